/*
 * alp_avx512.h: AVX-512 (F/BW/VL/VBMI) decode kernels for ALP pages (see alp_scalar.h for the
 * format and the value rules; the encoder's value loop stays on the AVX2 kernel).
 *
 * Unpacking: a group of 8 DOUBLE values (64-bit lanes) of `width` <= 51 bits occupies exactly
 * `width` bytes, a group of 16 FLOAT values (32-bit lanes) exactly 2 * `width` <= 64 bytes, so one
 * 64-byte register holds a whole group and in every group each lane starts at the same byte
 * offset and bit shift (computed once per block). A group is one plain 64-byte load while those
 * 64 bytes lie within the packed bits and the ALP_GUARD bytes after them; FLOAT's last few
 * groups take a byte-masked load of their own bytes only (a partial last group: a shorter mask
 * and a masked store), DOUBLE's come out of the block's last 64 readable bytes (see
 * alp_avx512_f64_groups), so nothing past what the kernel contract promises is read. `vpermb`
 * moves each lane's bytes into place, a per-lane shift aligns them and a mask clears the
 * neighbours' bits (the plan of indices and shifts is built in registers per block).
 *
 * Values: exactly the scalar kernels' operations in their order, (double)n * P * Ie and
 * (float)n * P * Ie, each product rounded separately (no fused multiply-add), so the results are
 * bit-identical to alp_decode_*_scalar. The integer n becomes a float exactly by the
 * magic-number trick, with the mask, the OR of the magic number's bits and the base folded into
 * one vpternlog and one subtraction (DOUBLE: |n| < 2^51, other blocks take the scalar kernel;
 * FLOAT when width <= 22 and |base| <= 2^22, otherwise vcvtdq2ps, which rounds to nearest as the
 * C conversion does). AVX-512DQ's vcvtqq2pd is not used: the row needs F/BW/VL/VBMI only, and
 * the trick takes as many uops (two) as base add + conversion would. Exceptions are patched by
 * the page driver (only blocks that have some).
 *
 * Every function carries TSFILE_TARGET_AVX512; rows using them need TSFILE_NEED_AVX512_VBMI.
 */
#ifndef TSFILE_ALP_AVX512_H
#define TSFILE_ALP_AVX512_H

#include "alp_scalar.h"

#if TSFILE_ISA_AVX512

/* Mask of the first `nbytes` (<= 64) bytes of a 64-byte register. */
TSFILE_TARGET_AVX512 static inline __mmask64 alp_byte_mask64(size_t nbytes)
{
    return nbytes >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << nbytes) - 1);
}

/* How many of the first `groups` groups (`stride` bytes apart) can be loaded with a plain 64-byte
 * load: those whose 64 bytes end within the body's readable bytes (the packed bits and the
 * ALP_GUARD bytes the kernel contract promises). A masked byte load costs more than a plain one
 * (measured in a C loop over 64 blocks of 1024 doubles, width 14: 5.8 G values/s with masked
 * loads only, 6.6 G with plain loads; AVX2 5.0 G), so only the last
 * few groups of a block take it. */
TSFILE_TARGET_AVX512 static inline size_t alp_plain_load_groups(size_t count, int width,
                                                               size_t stride, size_t groups)
{
    size_t readable = alp_packed_bytes(count, width) + ALP_GUARD;
    size_t n = readable >= 64 ? (readable - 64) / stride + 1 : 0;
    return n < groups ? n : groups;
}

/* The unpacking plan of a block, built in registers (a few vector instructions; the byte tables
 * built by scalar loops cost about as much as 30 groups' decoding per block).
 * DOUBLE: lane j takes bytes (j*width)>>3 .. +7 (bits past the group come in as zeros, or as the
 * next group's: cut by the mask), shifted right by (j*width)&7.
 * FLOAT: the same in 32-bit lanes (bytes rel .. rel+3), plus, for lanes whose bits reach past 32
 * after the shift, byte rel+4 shifted left by 32 - s (a shift of 32 clears the lane otherwise).
 * vpermb reads only the low 6 bits of an index, so indices past 63 wrap as the tables' "& 63" did. */
typedef struct {
    __m512i lo;    /* vpermb indices: each lane's first four (FLOAT) or eight (DOUBLE) bytes */
    __m512i hi;    /* FLOAT: byte 0 of each lane indexes its fifth byte */
    __m512i sr;    /* right shift of each lane (its first bit within its first byte) */
    __m512i sl;    /* FLOAT: left shift of the fifth byte (32: not needed) */
    __mmask16 fifth; /* FLOAT: the lanes that need their fifth byte */
} alp_avx512_plan;

/* The first byte of each lane (of `lane_bytes`) repeated over the lane, plus 0, 1, 2, ... */
TSFILE_TARGET_AVX512 static inline __m512i alp_avx512_byte_run(__m512i first, int lane_bytes)
{
    const __m128i rep = lane_bytes == 8
        ? _mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 8, 8, 8, 8, 8, 8, 8, 8)
        : _mm_setr_epi8(0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12);
    const __m512i step = lane_bytes == 8 ? _mm512_set1_epi64(0x0706050403020100)
                                         : _mm512_set1_epi32(0x03020100);
    return _mm512_add_epi8(_mm512_shuffle_epi8(first, _mm512_broadcast_i32x4(rep)), step);
}

/* DOUBLE lanes whose first bit is `first_bit` (0..7) into the 64 loaded bytes: 0 for the groups
 * of the format, a*width mod 8 for groups starting a values later (see alp_avx512_f64_groups);
 * lane 7 then ends by byte (7 + 7 * 51 + 7) / 8 + 8 = 54 of the 64 for every width <= 51. */
TSFILE_TARGET_AVX512 static inline alp_avx512_plan alp_avx512_plan_f64(int width, int first_bit)
{
    alp_avx512_plan pl;
    const __m512i bit = _mm512_add_epi64(
        _mm512_mul_epu32(_mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7), _mm512_set1_epi64(width)),
        _mm512_set1_epi64(first_bit));
    pl.lo = alp_avx512_byte_run(_mm512_srli_epi64(bit, 3), 8);
    pl.sr = _mm512_and_si512(bit, _mm512_set1_epi64(7));
    pl.hi = pl.sl = _mm512_setzero_si512();
    pl.fifth = 0;
    return pl;
}

TSFILE_TARGET_AVX512 static inline alp_avx512_plan alp_avx512_plan_f32(int width)
{
    alp_avx512_plan pl;
    const __m512i bit = _mm512_mullo_epi32(
        _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
        _mm512_set1_epi32(width));
    pl.lo = alp_avx512_byte_run(_mm512_srli_epi32(bit, 3), 4);
    pl.hi = _mm512_add_epi8(pl.lo, _mm512_set1_epi8(4));
    pl.sr = _mm512_and_si512(bit, _mm512_set1_epi32(7));
    const __m512i k32 = _mm512_set1_epi32(32);
    pl.fifth = _mm512_cmpgt_epi32_mask(_mm512_add_epi32(pl.sr, _mm512_set1_epi32(width)), k32);
    pl.sl = _mm512_mask_sub_epi32(k32, pl.fifth, k32, pl.sr);
    return pl;
}

/* (a & b) | c in one vpternlog (truth table over the operands' canonical columns 0xF0, 0xCC,
 * 0xAA) */
#define ALP_AVX512_AND_OR ((0xF0 & 0xCC) | 0xAA)

/* DOUBLE, 1 <= width <= 51 and all integers in (-2^51, 2^51); other blocks go scalar.
 *
 * Per group of 8 values: vpermb, vpsrlvq, one vpternlogq that masks the lane to its `width` bits
 * and ORs in the bits of 1.5 * 2^52 (u < 2^51 lies below that double's lowest set mantissa bit,
 * so OR is the addition: the double 1.5 * 2^52 + u, exactly), one subtraction of the exact double
 * 1.5 * 2^52 - base (giving u + base = n exactly: both operands are integers in (2^52, 2^53) and
 * |n| < 2^51), then the two products, rounded separately as in the scalar kernel. Six vector uops
 * where the AVX2-style "and, add magic + base, subtract magic" took seven.
 *
 * Output: the kernel is bound by storing its output (a 64 Ki-value page's 512 KiB live in L2;
 * measured on an earlier Xeon: a loop doing nothing but load a group and store 64 bytes ran about
 * 6,700 M doubles/s). numpy's large arrays start 16 or 32 bytes past a cache line, so each
 * 64-byte store would straddle two lines; when `out` is 8-byte aligned (and not already 64-byte
 * aligned) the groups are shifted instead, so that every store but the first is aligned (see
 * alp_avx512_f64_groups). (A software prefetch of the output 2 KiB ahead measured no better
 * once the stores were aligned; a prefetcht0 of 1 KiB ahead does: see alp_avx512_f64_groups.) */
typedef struct {
    __m512i idx, shift, mask, magic_bits;
    __m512d magic_less_base, p, ie;
} alp_avx512_f64_consts;

/* `scaled` (a constant at every call): multiply by P. Without it P is 1 (factor 0), and n * 1 is
 * n exactly, so leaving the product out changes no bit and saves one of the loop's vector uops. */
TSFILE_TARGET_AVX512 static inline __m512d alp_avx512_f64_group(__m512i bytes,
                                                               const alp_avx512_f64_consts *c,
                                                               const int scaled)
{
    __m512i w = _mm512_srlv_epi64(_mm512_permutexvar_epi8(c->idx, bytes), c->shift);
    w = _mm512_ternarylogic_epi64(w, c->mask, c->magic_bits, ALP_AVX512_AND_OR);
    __m512d d = _mm512_sub_pd(_mm512_castsi512_pd(w), c->magic_less_base);
    if (scaled) d = _mm512_mul_pd(d, c->p);
    return _mm512_mul_pd(d, c->ie);
}

/* Small blocks (fewer than 8 values, or packed bits and guard under 64 bytes): the groups of the
 * format, each by a byte-masked load of its own bytes and an unaligned store. */
TSFILE_TARGET_AVX512 TSFILE_INLINE void alp_avx512_f64_small(const uint8_t *body, size_t count,
                                                            int width,
                                                            const alp_avx512_f64_consts *c,
                                                            const int scaled, double *out)
{
    const __mmask64 group_bytes = alp_byte_mask64((size_t)width);
    const size_t groups = count / 8, left = count % 8;
    for (size_t k = 0; k < groups; k++)
        _mm512_storeu_pd(out + 8 * k,
                         alp_avx512_f64_group(_mm512_maskz_loadu_epi8(
                                                  group_bytes, (const void *)(body + k * width)),
                                              c, scaled));
    if (left) { /* the partial last group: only its packed bytes are read, its lanes stored */
        const __mmask64 own = alp_byte_mask64(alp_packed_bytes(left, width));
        const __m512i bytes = _mm512_maskz_loadu_epi8(own, (const void *)(body + groups * width));
        _mm512_mask_storeu_pd(out + 8 * groups, (__mmask8)((1u << left) - 1),
                              alp_avx512_f64_group(bytes, c, scaled));
    }
}

/* The values of one block, `scaled` a constant at each call (see alp_avx512_f64_group).
 *
 * Stores are 64-byte aligned when `out` is 8-byte aligned: with a = 0..7 values before the first
 * line boundary, "chunk" m holds the values a + 8m .. a + 8m + 7, which start at bit 8mw + aw:
 * one 64-byte load from body + aw/8 + mw, lanes planned from first bit aw mod 8, one store at a
 * line boundary. Values 0..7 go first by an unaligned store of the format's group 0 (the first
 * chunk stores values a..7 again, equal). Chunks whose 64 bytes would pass the readable bytes (the
 * packed bits and ALP_GUARD) take their bytes from the last 64 readable ones instead, the lane
 * indices moved by the difference; the last chunk's values past the block are masked off.
 * Measured in a C loop over 64 blocks of 1024 doubles (512 KiB of output, in L2), width 12, P = 1,
 * `out` 16 bytes past a line: 6,270 M values/s. The previous layout (groups rotated into aligned
 * stores by a vpermt2pd, masked stores at both ends of a block) gave 5,200, plain unaligned stores
 * 4,700, and this layout with its last four chunks stored unaligned as the format's groups 5,000:
 * a store that splits two lines not yet owned costs far more than its share. Line-aligned `out`:
 * 6,300.
 *
 * ALP_AVX512_OUT_AHEAD: each chunk prefetches (prefetcht0) the output line 1 KiB (128 values)
 * ahead, so that fetching the lines the stores need overlaps the work instead of stalling it. In
 * the same loop with P != 1 (six vector uops per chunk), medians of 7 runs of separate builds
 * taken in turn: previous layout 5,250 M/s, this layout without the prefetch 5,530, with it 5,990
 * (prefetchw instead: 5,960), the AVX2 kernel 4,470-4,640 in every build. Single runs: 2,920 ->
 * 3,050 M/s at 32 MiB of output (memory bound), no loss at 16 KiB. The AVX2 kernel, bound by its
 * uops, gained nothing from the same hint. A prefetch never faults: the lines past the block's end
 * cost only the request.
 *
 * ALP_AVX512_IN_AHEAD: the packed bits are prefetched too, 512 bytes ahead, and the loop does four
 * chunks per turn. The input is only about a sixth of the bytes moved, but each 64-byte load of it
 * straddles two lines, and (our reading of the profile; this VM has no counters to confirm it) the
 * hardware prefetchers, busy with the output's lines, left those loads waiting on L2: the samples
 * piled up after the input loads. One prefetch every two chunks (every chunk when 2 * width > 64,
 * so that no line is passed over) costs less than one per chunk. C loop over the prices page of
 * `bench floats` (64 blocks, widths 11-13, P != 1, output in L2), medians of 5 runs, three rounds
 * alternating the builds: 5,807-5,963 -> 6,287-6,480 M/s (AVX2 4,646-4,827 in both builds); a
 * page of width 20 gained as much, pages with 14 % exceptions (widths 28-44, bound by the scalar
 * patching) 5-8 % (one run of each build). The same input prefetch in the AVX2 kernel, bound by
 * its uops, gained nothing measurable. */
#define ALP_AVX512_OUT_AHEAD 128 /* values */
#define ALP_AVX512_IN_AHEAD 512  /* bytes */
TSFILE_TARGET_AVX512 TSFILE_INLINE void alp_avx512_f64_groups(const uint8_t *body, size_t count,
                                                             int width,
                                                             const alp_avx512_f64_consts *c,
                                                             const int scaled, double *out)
{
    const size_t readable = alp_packed_bytes(count, width) + ALP_GUARD;
    if (count < 8 || readable < 64) {
        alp_avx512_f64_small(body, count, width, c, scaled, out);
        return;
    }
    const size_t a = ((uintptr_t)out & 7) ? 0 : ((64 - ((uintptr_t)out & 63)) & 63) / 8;
    const size_t first_bit = a * (size_t)width, skip = first_bit / 8;
    if (a) _mm512_storeu_pd(out, alp_avx512_f64_group(_mm512_loadu_si512((const void *)body), c,
                                                      scaled));
    const alp_avx512_plan pl = alp_avx512_plan_f64(width, (int)(first_bit % 8));
    alp_avx512_f64_consts shifted = *c;
    shifted.idx = pl.lo;
    shifted.shift = pl.sr;
    const size_t chunks = (count - a) / 8, rest = (count - a) % 8;
    const size_t loadable = readable >= skip + 64 ? (readable - skip - 64) / (size_t)width + 1 : 0;
    const uint8_t *g = body + skip;
    double *o = out + a;
    const size_t plain = chunks < loadable ? chunks : loadable, w = (size_t)width;
    const int wide = width > 32; /* two chunks pass more than a line of input */
    size_t m = 0;
    for (; m + 4 <= plain; m += 4, g += 4 * w, o += 32) {
        for (size_t u = 0; u < 4; u++) {
            _mm_prefetch((const char *)(o + 8 * u + ALP_AVX512_OUT_AHEAD), _MM_HINT_T0);
            if (u % 2 == 0 || wide)
                _mm_prefetch((const char *)(g + u * w + ALP_AVX512_IN_AHEAD), _MM_HINT_T0);
            _mm512_storeu_pd(o + 8 * u, alp_avx512_f64_group(
                                            _mm512_loadu_si512((const void *)(g + u * w)),
                                            &shifted, scaled));
        }
    }
    for (; m < plain; m++, g += w, o += 8) {
        _mm_prefetch((const char *)(o + ALP_AVX512_OUT_AHEAD), _MM_HINT_T0);
        _mm512_storeu_pd(o, alp_avx512_f64_group(_mm512_loadu_si512((const void *)g), &shifted,
                                                 scaled));
    }
    /* the rest (chunks past `loadable`, then the values after the last whole chunk) from the
     * last 64 readable bytes: a chunk starting at byte skip + m*w, past readable - 64, finds its
     * byte j at index skip + m*w - (readable - 64) + j, under 64 for every byte of its values
     * (their windows end by packed + 7 < readable). The last, partial chunk always starts past
     * readable - 64: its at most 7 values end within (7 + 7 * 51) / 8 + 1 = 46 bytes of its start
     * byte, so readable = packed + ALP_GUARD lies within 62 bytes of it. */
    const uint8_t *last = body + readable - 64;
    const __m512i tail = _mm512_loadu_si512((const void *)last);
    for (; m < chunks + (rest != 0); m++, g += w, o += 8) {
        shifted.idx = _mm512_add_epi8(pl.lo, _mm512_set1_epi8((char)(g - last)));
        const __m512d v = alp_avx512_f64_group(tail, &shifted, scaled);
        if (m < chunks)
            _mm512_storeu_pd(o, v);
        else
            _mm512_mask_storeu_pd(o, (__mmask8)((1u << rest) - 1), v);
    }
}

TSFILE_TARGET_AVX512 static void alp_decode_f64_avx512(const uint8_t *body, size_t count,
                                                       int width, int64_t base, double P,
                                                       double Ie, double *out)
{
    if (width == 0 || !alp_f64_simd_safe(width, base)) {
        alp_decode_f64_scalar(body, count, width, base, P, Ie, out);
        return;
    }
    const alp_avx512_plan pl = alp_avx512_plan_f64(width, 0);
    const alp_avx512_f64_consts c = {
        pl.lo,
        pl.sr,
        _mm512_set1_epi64((int64_t)((UINT64_C(1) << width) - 1)),
        _mm512_set1_epi64((int64_t)ALP_MAGIC_F64_BITS),
        _mm512_set1_pd(ALP_MAGIC_F64 - (double)base), /* exact: see above */
        _mm512_set1_pd(P),
        _mm512_set1_pd(Ie),
    };
    if (P == 1.0)
        alp_avx512_f64_groups(body, count, width, &c, 0, out);
    else
        alp_avx512_f64_groups(body, count, width, &c, 1, out);
}

/* FLOAT integers and the float they become, by block kind (a constant at each call of
 * alp_f32_groups, so that each loop is compiled for one kind). */
enum {
    /* width <= 22 and |base| <= 2^22: the magic-number conversion of the DOUBLE kernel in float
     * (u | bits(1.5 * 2^23) is 1.5 * 2^23 + u exactly; minus the exact float 1.5 * 2^23 - base
     * gives n = u + base, |n| < 2^24, exactly, as vcvtdq2ps would; no int32 wrap is possible) */
    ALP_F32_MAGIC = 0,
    ALP_F32_NARROW = 1, /* every lane's bits fit 32 after the shift: no fifth byte */
    ALP_F32_FIFTH = 2   /* some lanes take a fifth byte */
};

TSFILE_TARGET_AVX512 static inline int alp_f32_kind(const alp_avx512_plan *pl, int width,
                                                    int32_t base)
{
    const int32_t lim = INT32_C(1) << 22;
    if (width <= 22 && base >= -lim && base <= lim) return ALP_F32_MAGIC;
    return pl->fifth ? ALP_F32_FIFTH : ALP_F32_NARROW;
}

/* The 16 floats of one group (its 64 bytes loaded). */
TSFILE_TARGET_AVX512 static inline __m512 alp_f32_group(__m512i bytes, const int kind,
                                                       const alp_avx512_plan *pl, __m512i mask,
                                                       __m512i vb, __m512 magic_less_base,
                                                       __m512 vp, __m512 vi)
{
    /* the hi permute's bytes 1-3 of every lane are dropped (only byte 0 is wanted) */
    const __mmask64 hi_bytes = (__mmask64)0x1111111111111111ull;
    __m512i u = _mm512_srlv_epi32(_mm512_permutexvar_epi8(pl->lo, bytes), pl->sr);
    __m512 d;
    if (kind == ALP_F32_MAGIC) {
        u = _mm512_ternarylogic_epi32(u, mask, _mm512_set1_epi32(0x4B400000), ALP_AVX512_AND_OR);
        d = _mm512_sub_ps(_mm512_castsi512_ps(u), magic_less_base);
    } else {
        if (kind == ALP_F32_FIFTH)
            u = _mm512_or_si512(
                u, _mm512_sllv_epi32(_mm512_maskz_permutexvar_epi8(hi_bytes, pl->hi, bytes), pl->sl));
        d = _mm512_cvtepi32_ps(_mm512_add_epi32(_mm512_and_si512(u, mask), vb));
    }
    return _mm512_mul_ps(_mm512_mul_ps(d, vp), vi);
}

/* Groups of 16 values of one block kind: plain 64-byte loads while they stay readable, then
 * byte-masked loads, then the partial last group (its own bytes read, its lanes stored). */
TSFILE_TARGET_AVX512 static inline void alp_f32_groups(const uint8_t *body, size_t count,
                                                      int width, int32_t base, float P, float Ie,
                                                      const alp_avx512_plan *pl, const int kind,
                                                      float *out)
{
    const __m512i mask = _mm512_set1_epi32(width == 32 ? -1 : (int32_t)((1u << width) - 1));
    const __m512i vb = _mm512_set1_epi32(base);
    const __m512 magic_less_base = _mm512_set1_ps(12582912.0f - (float)base); /* exact if MAGIC */
    const __m512 vp = _mm512_set1_ps(P), vi = _mm512_set1_ps(Ie);
    const size_t stride = 2 * (size_t)width, groups = count / 16, left = count % 16;
    const __mmask64 group_bytes = alp_byte_mask64(stride);
    const size_t plain = alp_plain_load_groups(count, width, stride, groups);
    const uint8_t *g = body;
    size_t k = 0;
    for (; k < plain; k++, g += stride)
        _mm512_storeu_ps(out + 16 * k, alp_f32_group(_mm512_loadu_si512((const void *)g), kind,
                                                     pl, mask, vb, magic_less_base, vp, vi));
    for (; k < groups; k++, g += stride)
        _mm512_storeu_ps(out + 16 * k,
                         alp_f32_group(_mm512_maskz_loadu_epi8(group_bytes, (const void *)g), kind,
                                       pl, mask, vb, magic_less_base, vp, vi));
    if (left) {
        const __mmask64 own = alp_byte_mask64(alp_packed_bytes(left, width));
        _mm512_mask_storeu_ps(out + 16 * groups, (__mmask16)((1u << left) - 1),
                              alp_f32_group(_mm512_maskz_loadu_epi8(own, (const void *)g), kind,
                                            pl, mask, vb, magic_less_base, vp, vi));
    }
}

/* FLOAT, 1 <= width <= 32. */
TSFILE_TARGET_AVX512 static void alp_decode_f32_avx512(const uint8_t *body, size_t count,
                                                       int width, int32_t base, float P,
                                                       float Ie, float *out)
{
    if (width == 0) {
        alp_decode_f32_scalar(body, count, width, base, P, Ie, out);
        return;
    }
    const alp_avx512_plan pl = alp_avx512_plan_f32(width);
    switch (alp_f32_kind(&pl, width, base)) {
    case ALP_F32_MAGIC:
        alp_f32_groups(body, count, width, base, P, Ie, &pl, ALP_F32_MAGIC, out);
        break;
    case ALP_F32_NARROW:
        alp_f32_groups(body, count, width, base, P, Ie, &pl, ALP_F32_NARROW, out);
        break;
    default:
        alp_f32_groups(body, count, width, base, P, Ie, &pl, ALP_F32_FIFTH, out);
    }
}

#endif /* TSFILE_ISA_AVX512 */
#endif /* TSFILE_ALP_AVX512_H */
