/*
 * filter_avx512.h: AVX-512 (F/BW/VL) predicate kernels (x86-64; compiled per function with
 * TSFILE_TARGET_AVX512_NOVBMI, since their row admits CPUs without VBMI; used only through their
 * row of filter_impls.h). Semantics and selection forms: filter_scalar.h.
 *
 * Per vector: one compare into a mask register and a second compare under that mask (int:
 * vpcmpq/vpcmpd >= lo then <= hi; float: ordered _CMP_GE_OQ / _CMP_LE_OQ, so NaN fails), XOR
 * with the negate mask. Bitmaps: the mask register is the bitmap (one byte per 8 lanes). Indices:
 * vpcompressd of the lane positions into a register, then one full-vector store (compress-to-
 * register + store, not the slow compress-to-memory form). The last partial vector is read with a
 * masked load (masked-off lanes are not accessed, so a block ending at an unmapped page is safe).
 */
#ifndef FILTER_AVX512_H
#define FILTER_AVX512_H

#include "filter_scalar.h"

#if TSFILE_ISA_AVX512

#define FILTER_AVX512_INLINE TSFILE_TARGET_AVX512_NOVBMI TSFILE_INLINE

/*
 * Generate filter_avx512_in_SUF(p, m, lo, hi): the lane mask of "x in [lo, hi]" for the first
 * lanes `m` selects (all-ones for a whole vector; the masked-off lanes are not loaded). One macro
 * per compare family (integers have >= / <= compares of their own, floats one compare with an
 * ordered predicate, so NaN fails); within a family the 32- and 64-bit twins differ only in their
 * intrinsics' suffix (EPI: epi32 / epi64, FP: ps / pd) and mask type MT (16 / 8 lanes).
 */
#define FILTER_AVX512_DEFINE_IN_INT(SUF, T, MT, EPI)                                               \
    FILTER_AVX512_INLINE MT filter_avx512_in_##SUF(const T *p, MT m, __m512i lo, __m512i hi)       \
    {                                                                                              \
        const __m512i x = _mm512_maskz_loadu_##EPI(m, p);                                          \
        return _mm512_mask_cmple_##EPI##_mask(_mm512_mask_cmpge_##EPI##_mask(m, x, lo), x, hi);    \
    }

#define FILTER_AVX512_DEFINE_IN_FLOAT(SUF, T, MT, VT, FP)                                          \
    FILTER_AVX512_INLINE MT filter_avx512_in_##SUF(const T *p, MT m, VT lo, VT hi)                 \
    {                                                                                              \
        const VT x = _mm512_maskz_loadu_##FP(m, p);                                                \
        return _mm512_mask_cmp_##FP##_mask(_mm512_mask_cmp_##FP##_mask(m, x, lo, _CMP_GE_OQ), x,   \
                                           hi, _CMP_LE_OQ);                                        \
    }

FILTER_AVX512_DEFINE_IN_INT(i64, int64_t, __mmask8, epi64)
FILTER_AVX512_DEFINE_IN_INT(i32, int32_t, __mmask16, epi32)
FILTER_AVX512_DEFINE_IN_FLOAT(f64, double, __mmask8, __m512d, pd)
FILTER_AVX512_DEFINE_IN_FLOAT(f32, float, __mmask16, __m512, ps)

/* Store the positions pos + j of the set lanes j of m at idx (compress into a register, then one
 * full-vector store); returns popcount(m). One per lane count: 8 positions fill a ymm register,
 * 16 a zmm. */
FILTER_AVX512_INLINE size_t filter_avx512_emit8(unsigned m, int32_t pos, int32_t *idx)
{
    const __m256i at = _mm256_add_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                                        _mm256_set1_epi32(pos));
    _mm256_storeu_si256((__m256i *)idx, _mm256_maskz_compress_epi32((__mmask8)m, at));
    return (size_t)_mm_popcnt_u32(m);
}

FILTER_AVX512_INLINE size_t filter_avx512_emit16(unsigned m, int32_t pos, int32_t *idx)
{
    const __m512i at = _mm512_add_epi32(
        _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
        _mm512_set1_epi32(pos));
    _mm512_storeu_si512((void *)idx, _mm512_maskz_compress_epi32((__mmask16)m, at));
    return (size_t)_mm_popcnt_u32(m);
}

/*
 * Generates filter_bitmap_SUF_avx512 and filter_index_SUF_avx512 for one value type: LANES values
 * a vector (8 of 64 bits, 16 of 32 bits), MT its mask type, SET1 the broadcast into VT. Bitmaps:
 * 32 values an iteration (four or two independent compares; the inner loop has a constant trip
 * count and is unrolled) stored as one 32-bit word, then one masked vector at a time (one or two
 * bytes). Indices: one masked vector at a time, compressed by filter_avx512_emitLANES. The last
 * partial vector is read with a masked load, so nothing past v[n - 1] is touched.
 */
#define FILTER_AVX512_DEFINE(SUF, T, VT, MT, SET1, LANES)                                          \
    TSFILE_TARGET_AVX512_NOVBMI static size_t filter_bitmap_##SUF##_avx512(                        \
        const T *v, size_t n, T lo, T hi, int negate, uint8_t *bits)                               \
    {                                                                                              \
        const VT vlo = SET1(lo), vhi = SET1(hi);                                                   \
        const unsigned all = (1u << LANES) - 1u, flip = negate ? all : 0u;                         \
        size_t i = 0, count = 0;                                                                   \
        for (; i + 32 <= n; i += 32) {                                                             \
            uint32_t word = 0;                                                                     \
            for (unsigned j = 0; j < 32 / LANES; j++)                                              \
                word |= (uint32_t)(filter_avx512_in_##SUF(v + i + j * LANES, (MT)all, vlo, vhi) ^  \
                                   flip) << (j * LANES);                                           \
            memcpy(bits + (i >> 3), &word, 4);                                                     \
            count += (size_t)_mm_popcnt_u32(word);                                                 \
        }                                                                                          \
        for (; i < n; i += LANES) {                                                                \
            const unsigned left = n - i < LANES ? (unsigned)(n - i) : LANES;                       \
            const unsigned live = (1u << left) - 1u;                                               \
            const unsigned b = (filter_avx512_in_##SUF(v + i, (MT)live, vlo, vhi) ^ flip) & live;  \
            bits[i >> 3] = (uint8_t)b;                                                             \
            if (left > 8) bits[(i >> 3) + 1] = (uint8_t)(b >> 8);                                  \
            count += (size_t)_mm_popcnt_u32(b);                                                    \
        }                                                                                          \
        return count;                                                                              \
    }                                                                                              \
    TSFILE_TARGET_AVX512_NOVBMI static size_t filter_index_##SUF##_avx512(                         \
        const T *v, size_t n, T lo, T hi, int negate, int32_t *idx, int32_t base)                  \
    {                                                                                              \
        const VT vlo = SET1(lo), vhi = SET1(hi);                                                   \
        const unsigned flip = negate ? (1u << LANES) - 1u : 0u;                                    \
        size_t i = 0, k = 0;                                                                       \
        for (; i < n; i += LANES) {                                                                \
            const unsigned left = n - i < LANES ? (unsigned)(n - i) : LANES;                       \
            const unsigned live = (1u << left) - 1u;                                               \
            const unsigned b = (filter_avx512_in_##SUF(v + i, (MT)live, vlo, vhi) ^ flip) & live;  \
            k += filter_avx512_emit##LANES(b, base + (int32_t)i, idx + k);                         \
        }                                                                                          \
        return k;                                                                                  \
    }

FILTER_AVX512_DEFINE(i64, int64_t, __m512i, __mmask8, _mm512_set1_epi64, 8)
FILTER_AVX512_DEFINE(f64, double, __m512d, __mmask8, _mm512_set1_pd, 8)
FILTER_AVX512_DEFINE(i32, int32_t, __m512i, __mmask16, _mm512_set1_epi32, 16)
FILTER_AVX512_DEFINE(f32, float, __m512, __mmask16, _mm512_set1_ps, 16)

#endif /* TSFILE_ISA_AVX512 */
#endif /* FILTER_AVX512_H */
