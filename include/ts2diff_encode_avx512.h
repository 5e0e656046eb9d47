/*
 * ts2diff_encode_avx512.h: the AVX-512 (F/BW/VL + VBMI) TS_2DIFF bit-packing writer (x86-64;
 * compiled per function with TSFILE_TARGET_AVX512, used only by the "avx512" row of
 * ts2diff_impls.h, which needs TSFILE_NEED_AVX512_VBMI). The scalar writer
 * (ts2diff_write_block_* in ts2diff_scalar.h) stays the reference: the same bytes for every block.
 *
 * A block's deltas, less min_delta (the residuals, r < 2^w), are written MSB first: delta j of a
 * group takes the bits j*w .. j*w + w - 1 of the group's bytes. Per group, every residual sits in
 * its own 64-bit lane:
 *   shift    each lane left by 64 - w - s (s = j*w mod 8, the delta's bit offset in its first
 *            byte B = j*w / 8), so that the lane's big-endian bytes are the delta's contribution to
 *            output bytes B .. B+7 (one vpsllvq);
 *   pair     for widths 1..7, first pair lanes (lane L takes (L << w) | L + 1, then the same with
 *            L + 2 and L + 4, until a unit has 8 bits or more): a shift, a lane rotation and an OR
 *            per step, so that no output byte is touched by more than two units;
 *   gather   each output byte is the OR of the bytes of the (at most two) units that touch it:
 *            one zero-masked vpermt2b per pass picks, for every output byte, the matching byte of
 *            its first or second unit (byte reversal folded into the indices);
 *   store    the group's bytes with a byte-masked store (never past them).
 * Groups: 16 deltas (two vectors of 8 lanes, 2w <= 64 bytes) for widths 1..32 of both types; 8
 * int64 deltas (w bytes) for widths 33..64, where a delta can span nine bytes (s + w > 64): the
 * lane then holds the top 64 bits of its 72-bit window (vpsrlvq after the shift) and a second
 * vector its ninth byte, both read by the same vpermt2b. The deltas after the last whole group of
 * a block (fewer than a group) go to the scalar packer, which starts on the byte boundary where
 * the groups end.
 *
 * ts2diff_enc512_init() must run once before the writer (ts2diff_impls.h's avx512 init does it).
 */
#ifndef TS2DIFF_ENCODE_AVX512_H
#define TS2DIFF_ENCODE_AVX512_H

#include "ts2diff_scalar.h"

#if TSFILE_ISA_AVX512

/* The packing plan of one width and group size. */
typedef struct {
    __attribute__((aligned(64))) uint8_t idx[2][64]; /* vpermt2b indices of the two passes */
    __attribute__((aligned(64))) uint64_t lshift[16]; /* per lane: left shift into its window */
    __attribute__((aligned(64))) uint64_t rshift[8];  /* 8-delta plans: right shift (nine bytes) */
    __attribute__((aligned(64))) uint64_t yshift[8];  /* 8-delta plans: shift giving the ninth byte
                                                       * (64: none, the lane is zero) */
    uint64_t keep[2]; /* output bytes each pass writes */
    uint64_t store;   /* the group's output bytes */
    int combines;     /* pairings before the shift (widths 1..7) */
} ts2diff_enc512_plan;

static ts2diff_enc512_plan ts2diff_enc512_plan16[33]; /* 16 deltas of width 1..32 */
static ts2diff_enc512_plan ts2diff_enc512_plan8[65];  /* 8 int64 deltas of width 33..64 */

/* Fill a plan for `deltas` deltas of width w, paired `combines` times first (so the kernel packs
 * deltas >> combines "units" of width w << combines, unit u in the lane given below): for output
 * byte b, pass k reads the byte of the k-th unit touching b (units are at least 8 bits wide, so
 * at most two do). A unit's lane is bytes 8L .. 8L+7 of the vpermt2b tables (lanes 8..15 the
 * second table, which for 8-delta plans holds the ninth bytes, read at 64 + 8u + 7). */
static void ts2diff_enc512_plan_init(ts2diff_enc512_plan *pl, int w, int deltas, int combines)
{
    memset(pl, 0, sizeof *pl);
    pl->combines = combines;
    const int units = deltas >> combines, uw = w << combines, per_vector = 8 >> combines;
    const int nbytes = deltas * w / 8;
    for (int u = 0; u < units; u++) {
        const int lane = (u % per_vector << combines) + 8 * (u / per_vector);
        const int s = u * uw % 8, over = s + uw - 64; /* over > 0: the unit spans nine bytes */
        pl->lshift[lane] = (uint64_t)(over > 0 ? 0 : 64 - uw - s);
        if (deltas == 8) {
            pl->rshift[lane] = (uint64_t)(over > 0 ? over : 0);
            pl->yshift[lane] = (uint64_t)(over > 0 ? 64 - over : 64);
        }
    }
    for (int b = 0; b < nbytes; b++) {
        const int u0 = 8 * b / uw, u1_ = (8 * b + 7) / uw, u1 = u1_ < units ? u1_ : units - 1;
        for (int u = u0; u <= u1 && u - u0 < 2; u++) {
            const int k = u - u0, t = b - u * uw / 8; /* byte t of unit u's window */
            const int lane = (u % per_vector << combines) + 8 * (u / per_vector);
            pl->idx[k][b] = (uint8_t)(t <= 7 ? 8 * lane + 7 - t : 64 + 8 * lane + 7);
            pl->keep[k] |= 1ull << b;
        }
    }
    pl->store = nbytes == 64 ? ~0ull : (1ull << nbytes) - 1;
}

static void ts2diff_enc512_init(void)
{
    for (int w = 1; w <= 32; w++) {
        int combines = 0; /* pair narrow deltas until a unit has 8 bits or more */
        while ((w << combines) < 8) combines++;
        ts2diff_enc512_plan_init(&ts2diff_enc512_plan16[w], w, 16, combines);
    }
    for (int w = 33; w <= 64; w++) ts2diff_enc512_plan_init(&ts2diff_enc512_plan8[w], w, 8, 0);
}

#define TS2DIFF_ENC512_INLINE TSFILE_TARGET_AVX512 TSFILE_INLINE

/* The output bytes of a group from its shifted lanes (x: the first table, y: the second): the OR
 * of the two passes (indices i0, i1 and byte masks k0, k1 in registers: the loops copy them out
 * of the plan, which the compiler would otherwise reload after every store to the output). */
TS2DIFF_ENC512_INLINE __m512i ts2diff_enc512_gather(__m512i x, __m512i y, __m512i i0, __m512i i1,
                                                    __mmask64 k0, __mmask64 k1)
{
    return _mm512_or_si512(_mm512_maskz_permutex2var_epi8(k0, x, i0, y),
                           _mm512_maskz_permutex2var_epi8(k1, x, i1, y));
}

/* Store a group's bytes (the `store` mask, its low bytes): groups of up to 32 bytes (16 deltas of
 * width <= 16, the common case) by a 256-bit masked store, which crosses a cache line less often
 * than a 512-bit one at the same address (the masked-off bytes count for the split). */
TS2DIFF_ENC512_INLINE void ts2diff_enc512_store(uint8_t *out, __mmask64 store, __m512i bytes)
{
    if (store >> 32)
        _mm512_mask_storeu_epi8(out, store, bytes);
    else
        _mm256_mask_storeu_epi8(out, (__mmask32)store, _mm512_castsi512_si256(bytes));
}

/* Pair the residuals of a vector `combines` times (widths 1..7): lane L becomes
 * (lane L << w) | lane L + 1, then the same at twice the width with lane L + 2, then L + 4. The
 * units are in every second, fourth or eighth lane; the others hold what the plan never reads.
 * SLLI / ALIGNR: the lanes' shift and rotation. (int32 pairs its 16 lanes before widening them:
 * that leaves the units in the same 64-bit lanes as pairing the widened halves would, for half
 * the work.) */
#define TS2DIFF_ENC512_COMBINE(r, w, combines, SLLI, ALIGNR)                                       \
    do {                                                                                           \
        if ((combines) > 0) r = _mm512_or_si512(SLLI(r, (unsigned)(w)), ALIGNR(r, r, 1));          \
        if ((combines) > 1) r = _mm512_or_si512(SLLI(r, (unsigned)(2 * (w))), ALIGNR(r, r, 2));    \
        if ((combines) > 2) r = _mm512_or_si512(SLLI(r, (unsigned)(4 * (w))), ALIGNR(r, r, 4));    \
    } while (0)

/* The 16 residuals of the group at v (v[0..16] read), paired `combines` times, as two vectors of
 * 8 u64 lanes (deltas 0-7, 8-15). int64 subtracts in 64-bit lanes; int32 subtracts 16 lanes at
 * once, wrapping at 32 bits, pairs them in 32-bit lanes and widens each half. */
TS2DIFF_ENC512_INLINE void ts2diff_enc512_residuals16_i64(const int64_t *v, __m512i vmin, int w,
                                                          int combines, __m512i *r0, __m512i *r1)
{
    const __m512i a0 = _mm512_loadu_si512((const void *)v);
    const __m512i b0 = _mm512_loadu_si512((const void *)(v + 1));
    const __m512i a1 = _mm512_loadu_si512((const void *)(v + 8));
    const __m512i b1 = _mm512_loadu_si512((const void *)(v + 9));
    __m512i x0 = _mm512_sub_epi64(_mm512_sub_epi64(b0, a0), vmin);
    __m512i x1 = _mm512_sub_epi64(_mm512_sub_epi64(b1, a1), vmin);
    if (combines) {
        TS2DIFF_ENC512_COMBINE(x0, w, combines, _mm512_slli_epi64, _mm512_alignr_epi64);
        TS2DIFF_ENC512_COMBINE(x1, w, combines, _mm512_slli_epi64, _mm512_alignr_epi64);
    }
    *r0 = x0;
    *r1 = x1;
}

TS2DIFF_ENC512_INLINE void ts2diff_enc512_residuals16_i32(const int32_t *v, __m512i vmin, int w,
                                                          int combines, __m512i *r0, __m512i *r1)
{
    const __m512i a = _mm512_loadu_si512((const void *)v);
    const __m512i b = _mm512_loadu_si512((const void *)(v + 1));
    __m512i r = _mm512_sub_epi32(_mm512_sub_epi32(b, a), vmin);
    if (combines) TS2DIFF_ENC512_COMBINE(r, w, combines, _mm512_slli_epi32, _mm512_alignr_epi32);
    *r0 = _mm512_cvtepu32_epi64(_mm512_castsi512_si256(r));
    *r1 = _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(r, 1));
}

/*
 * Generates ts2diff_enc512_groups16_SUF: the whole 16-delta groups of a block of n deltas of width
 * w <= 32 at o; returns the deltas written and advances *o. SET1 broadcasts min_delta into the
 * lanes RESIDUALS subtracts it in. A macro because the two types differ only in those names.
 */
#define TS2DIFF_ENC512_DEFINE_GROUPS16(SUF, T, UT, SET1)                                           \
    TS2DIFF_ENC512_INLINE size_t ts2diff_enc512_groups16_##SUF(const T *v, size_t n, int w,        \
                                                               UT umin, uint8_t **o)               \
    {                                                                                              \
        const ts2diff_enc512_plan *pl = &ts2diff_enc512_plan16[w];                                 \
        const __m512i vmin = SET1(umin);                                                           \
        const __m512i l0 = _mm512_load_si512((const void *)pl->lshift);                            \
        const __m512i l1 = _mm512_load_si512((const void *)(pl->lshift + 8));                      \
        const __m512i i0 = _mm512_load_si512((const void *)pl->idx[0]);                            \
        const __m512i i1 = _mm512_load_si512((const void *)pl->idx[1]);                            \
        const __mmask64 k0 = pl->keep[0], k1 = pl->keep[1], store = pl->store;                     \
        const size_t stride = 2 * (size_t)w;                                                       \
        const int combines = pl->combines;                                                         \
        uint8_t *out = *o;                                                                         \
        size_t i = 0;                                                                              \
        for (; i + 16 <= n; i += 16, out += stride) {                                              \
            __m512i r0, r1;                                                                        \
            ts2diff_enc512_residuals16_##SUF(v + i, vmin, w, combines, &r0, &r1);                  \
            const __m512i x0 = _mm512_sllv_epi64(r0, l0), x1 = _mm512_sllv_epi64(r1, l1);          \
            ts2diff_enc512_store(out, store, ts2diff_enc512_gather(x0, x1, i0, i1, k0, k1));       \
        }                                                                                          \
        *o = out;                                                                                  \
        return i;                                                                                  \
    }
/* ts2diff_enc512_groups16_i64, ts2diff_enc512_groups16_i32 */
TS2DIFF_ENC512_DEFINE_GROUPS16(i64, int64_t, uint64_t, _mm512_set1_epi64)
TS2DIFF_ENC512_DEFINE_GROUPS16(i32, int32_t, uint32_t, _mm512_set1_epi32)

/* The whole 8-delta groups of an int64 block of n deltas of width 33..64 at o (as above). */
TS2DIFF_ENC512_INLINE size_t ts2diff_enc512_groups8_wide(const int64_t *v, size_t n, int w,
                                                         uint64_t umin, uint8_t **o)
{
    const ts2diff_enc512_plan *pl = &ts2diff_enc512_plan8[w];
    const __m512i vmin = _mm512_set1_epi64((long long)umin);
    const __m512i ls = _mm512_load_si512((const void *)pl->lshift);
    const __m512i rs = _mm512_load_si512((const void *)pl->rshift);
    const __m512i ys = _mm512_load_si512((const void *)pl->yshift);
    const __m512i i0 = _mm512_load_si512((const void *)pl->idx[0]);
    const __m512i i1 = _mm512_load_si512((const void *)pl->idx[1]);
    const __mmask64 k0 = pl->keep[0], k1 = pl->keep[1], store = pl->store;
    uint8_t *out = *o;
    size_t i = 0;
    for (; i + 8 <= n; i += 8, out += w) {
        const __m512i a = _mm512_loadu_si512((const void *)(v + i));
        const __m512i b = _mm512_loadu_si512((const void *)(v + i + 1));
        const __m512i r = _mm512_sub_epi64(_mm512_sub_epi64(b, a), vmin);
        const __m512i x = _mm512_srlv_epi64(_mm512_sllv_epi64(r, ls), rs);
        const __m512i y = _mm512_sllv_epi64(r, ys); /* shift counts of 64 give 0 */
        _mm512_mask_storeu_epi8(out, store, ts2diff_enc512_gather(x, y, i0, i1, k0, k1));
    }
    *o = out;
    return i;
}

/* int32 has no width above 32: its wide-group step writes nothing. */
#define TS2DIFF_ENC512_NO_WIDE(v, n, w, umin, o) ((size_t)0)

/*
 * Generates ts2diff_write_block_SUF_avx512, the AVX-512 twin of ts2diff_write_block_SUF: the
 * header, the whole groups here, the rest by the scalar packer. WIDE writes the groups of widths
 * above 32. A macro because the two types differ only in these names.
 */
#define TS2DIFF_ENC512_DEFINE_WRITE_BLOCK(SUF, T, UT, WIDE)                                        \
    static TSFILE_TARGET_AVX512 uint8_t *ts2diff_write_block_##SUF##_avx512(                       \
        const T *v, const ts2diff_blockinfo *b, uint8_t *o)                                        \
    {                                                                                              \
        TS2DIFF_WRITE_BLOCK_START(SUF, UT);                                                        \
        const size_t i = w <= 32 ? ts2diff_enc512_groups16_##SUF(v, n, w, umin, &o)                \
                                 : WIDE(v, n, w, umin, &o);                                        \
        return ts2diff_pack_from_##SUF(v, n, w, umin, i, o);                                       \
    }
/* ts2diff_write_block_i64_avx512, ts2diff_write_block_i32_avx512 */
TS2DIFF_ENC512_DEFINE_WRITE_BLOCK(i64, int64_t, uint64_t, ts2diff_enc512_groups8_wide)
TS2DIFF_ENC512_DEFINE_WRITE_BLOCK(i32, int32_t, uint32_t, TS2DIFF_ENC512_NO_WIDE)

/* The writing pass of the avx512 row (ts2diff_write_* with this block writer). */
TS2DIFF_DEFINE_WRITE(static TSFILE_TARGET_AVX512, ts2diff_write_i64_avx512, int64_t,
                     ts2diff_write_block_i64_avx512)
TS2DIFF_DEFINE_WRITE(static TSFILE_TARGET_AVX512, ts2diff_write_i32_avx512, int32_t,
                     ts2diff_write_block_i32_avx512)

#endif /* TSFILE_ISA_AVX512 */
#endif /* TS2DIFF_ENCODE_AVX512_H */
