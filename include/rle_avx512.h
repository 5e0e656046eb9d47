/*
 * rle_avx512.h: AVX-512 (F/BW/VL/VBMI) unpacking of RLE bit-packed runs (x86-64; every function
 * carries TSFILE_TARGET_AVX512, the avx512 row of rle_impls.h needs TSFILE_NEED_AVX512_VBMI).
 *
 * A bit-packed run is a sequence of groups of 8 MSB-first values of width w, w bytes each (see
 * rle_scalar.h). In a group every value starts at the same byte offset (j*w)>>3 and bit shift
 * (j*w)&7, so one `vpermb` with a per-width index vector gathers, from a 64-byte register holding
 * the group, each value's bytes big-endian into its lane; a per-lane left shift drops the bits of
 * the value before it and a right shift by (lane bits - w) cuts it. Three lane layouts:
 *
 *   D32    w <= 25, 32-bit lanes: two groups (2w <= 50 bytes) per register, 16 values;
 *   Q64    w <= 57, 64-bit lanes: one group per register, 8 values (int32 output takes the low
 *          halves with vpmovqd);
 *   SPLIT  w 58..64 (int64 only): a value can touch a ninth byte; a second vpermb brings that byte
 *          to the top of the lane, shifted right by 64 - shift and or-ed in (a shift of 64 gives 0
 *          in vpsrlvq, so shift 0 needs no special case).
 *
 * Loads: a plain 64-byte load while those 64 bytes lie within the caller's buffer (`room`), then
 * a byte-masked load of exactly the group's own bytes, so no byte past the buffer is read (masked
 * bytes are zeros; the gathered bytes past a value's bits are shifted out). Whole groups only:
 * the partial last group of a run and RLE runs (a fill) are the scalar code's, as for AVX2.
 */
#ifndef TSFILE_RLE_AVX512_H
#define TSFILE_RLE_AVX512_H

#include "rle_scalar.h"

#if TSFILE_ISA_AVX512

/* Per-width index and shift vectors (64-byte aligned for the vector loads). */
typedef struct {
    uint8_t idx[64];     /* vpermb index: the lane bytes of each value, big-endian */
    uint8_t idx_hi[64];  /* SPLIT: the ninth byte at the top of each 64-bit lane */
    uint64_t shl[8];     /* Q64/SPLIT: bit shift of each lane's value; D32 uses shl32 */
    uint32_t shl32[16];
} __attribute__((aligned(64))) rle_avx512_plan;

static rle_avx512_plan rle_avx512_q64[65]; /* 64-bit lanes, one group, widths 1..64 */
static rle_avx512_plan rle_avx512_d32[26]; /* 32-bit lanes, two groups, widths 1..25 */

#define RLE_AVX512_D32_MAX_W 25
#define RLE_AVX512_Q64_MAX_W 57

static void rle_avx512_init(void)
{
    for (int w = 1; w <= 64; w++) {
        rle_avx512_plan *p = &rle_avx512_q64[w];
        memset(p, 0, sizeof *p);
        for (int j = 0; j < 8; j++) {
            unsigned bit = (unsigned)(j * w), off = bit >> 3;
            for (int k = 0; k < 8; k++) p->idx[8 * j + k] = (uint8_t)((off + 7 - (unsigned)k) & 63);
            /* the ninth byte (off + 8 < 64 whenever the value reaches it; else shifted out) */
            p->idx_hi[8 * j + 7] = (uint8_t)((off + 8) & 63);
            p->shl[j] = bit & 7;
        }
    }
    for (int w = 1; w <= RLE_AVX512_D32_MAX_W; w++) {
        rle_avx512_plan *p = &rle_avx512_d32[w];
        memset(p, 0, sizeof *p);
        for (int i = 0; i < 16; i++) {
            unsigned bit = (unsigned)((i & 7) * w), off = (unsigned)((i >> 3) * w) + (bit >> 3);
            for (int k = 0; k < 4; k++) p->idx[4 * i + k] = (uint8_t)(off + 3 - (unsigned)k);
            p->shl32[i] = bit & 7;
        }
    }
}

#define RLE_AVX512_INLINE TSFILE_TARGET_AVX512 TSFILE_INLINE

/* Mask of the first `nbytes` (<= 64) bytes of a register. */
RLE_AVX512_INLINE __mmask64 rle_avx512_bytes(size_t nbytes)
{
    return nbytes >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << nbytes) - 1);
}

/* 64 bytes from g: a plain load when they are all inside the buffer, else the first `own`. */
RLE_AVX512_INLINE __m512i rle_avx512_load(const uint8_t *g, size_t room, size_t own)
{
    if (TSFILE_LIKELY(room >= 64)) return _mm512_loadu_si512((const void *)g);
    return _mm512_maskz_loadu_epi8(rle_avx512_bytes(own), g);
}

/* The 8 values of the group in x, 64-bit lanes (Q64; SPLIT when `split`). */
RLE_AVX512_INLINE __m512i rle_avx512_q64_values(__m512i x, const rle_avx512_plan *p, int split,
                                                 __m128i cut)
{
    const __m512i shl = _mm512_load_si512((const void *)p->shl);
    __m512i v = _mm512_sllv_epi64(_mm512_permutexvar_epi8(_mm512_load_si512(p->idx), x), shl);
    if (split) {
        const __m512i top = _mm512_maskz_permutexvar_epi8(0x8080808080808080ull,
                                                          _mm512_load_si512(p->idx_hi), x);
        const __m512i shr = _mm512_sub_epi64(_mm512_set1_epi64(64), shl);
        v = _mm512_or_si512(v, _mm512_srlv_epi64(top, shr));
    }
    return _mm512_srl_epi64(v, cut);
}

/* Groups of 64-bit lanes into int64 (`narrow` 0) or int32 (`narrow` 1) output. */
RLE_AVX512_INLINE void rle_avx512_q64_groups(const uint8_t *g, size_t room, int w, size_t ngroups,
                                             void *out, int narrow)
{
    const rle_avx512_plan *p = &rle_avx512_q64[w];
    const int split = w > RLE_AVX512_Q64_MAX_W;
    const __m128i cut = _mm_cvtsi32_si128(64 - w);
    for (size_t i = 0; i < ngroups; i++, g += w, room -= (size_t)w) {
        const __m512i v = rle_avx512_q64_values(rle_avx512_load(g, room, (size_t)w), p, split, cut);
        if (narrow)
            _mm256_storeu_si256((__m256i *)((int32_t *)out + 8 * i), _mm512_cvtepi64_epi32(v));
        else
            _mm512_storeu_si512((void *)((int64_t *)out + 8 * i), v);
    }
}

/* Groups of width w <= 25 into int32 output, two per register (D32). */
RLE_AVX512_INLINE void rle_avx512_d32_groups(const uint8_t *g, size_t room, int w, size_t ngroups,
                                             int32_t *out)
{
    const rle_avx512_plan *p = &rle_avx512_d32[w];
    const __m512i idx = _mm512_load_si512(p->idx);
    const __m512i shl = _mm512_load_si512((const void *)p->shl32);
    const __m128i cut = _mm_cvtsi32_si128(32 - w);
    const size_t pair = 2 * (size_t)w;
    size_t i = 0;
    for (; i + 2 <= ngroups; i += 2, g += pair, room -= pair) {
        __m512i v = _mm512_permutexvar_epi8(idx, rle_avx512_load(g, room, pair));
        v = _mm512_srl_epi32(_mm512_sllv_epi32(v, shl), cut);
        _mm512_storeu_si512((void *)(out + 8 * i), v);
    }
    if (i < ngroups) { /* an odd last group: its own bytes only, the low 8 lanes stored */
        __m512i v = _mm512_permutexvar_epi8(idx, rle_avx512_load(g, room, (size_t)w));
        v = _mm512_srl_epi32(_mm512_sllv_epi32(v, shl), cut);
        _mm256_storeu_si256((__m256i *)(out + 8 * i), _mm512_castsi512_si256(v));
    }
}

/* Unpack `ngroups` whole groups of width w (0..32) into int32 output; all of them (their bytes
 * lie within `room`, as the run parser checked). */
static TSFILE_TARGET_AVX512 size_t rle_unpack_groups_i32_avx512(const uint8_t *g, size_t room,
                                                               int w, size_t ngroups, int32_t *out)
{
    if (w == 0)
        memset(out, 0, ngroups * 8 * sizeof *out);
    else if (w <= RLE_AVX512_D32_MAX_W)
        rle_avx512_d32_groups(g, room, w, ngroups, out);
    else
        rle_avx512_q64_groups(g, room, w, ngroups, out, 1);
    return ngroups;
}

/* The same for width 0..64 into int64 output. */
static TSFILE_TARGET_AVX512 size_t rle_unpack_groups_i64_avx512(const uint8_t *g, size_t room,
                                                               int w, size_t ngroups, int64_t *out)
{
    if (w == 0)
        memset(out, 0, ngroups * 8 * sizeof *out);
    else
        rle_avx512_q64_groups(g, room, w, ngroups, out, 0);
    return ngroups;
}

#define RLE_BULK_I32_AVX512(g, room, w, ng, o) rle_unpack_groups_i32_avx512(g, room, w, ng, o)
#define RLE_BULK_I64_AVX512(g, room, w, ng, o) rle_unpack_groups_i64_avx512(g, room, w, ng, o)

RLE_DEFINE_DECODE_BULK(rle_decode_i32_avx512, int32_t, 0, RLE_CONV_I32, RLE_BULK_I32_AVX512,
                       TSFILE_TARGET_AVX512)
RLE_DEFINE_DECODE_BULK(rle_decode_i64_avx512, int64_t, 1, RLE_CONV_I64, RLE_BULK_I64_AVX512,
                       TSFILE_TARGET_AVX512)

#endif /* TSFILE_ISA_AVX512 */
#endif /* TSFILE_RLE_AVX512_H */
