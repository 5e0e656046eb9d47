/*
 * filter_avx512.h: AVX-512 (F/BW/VL) predicate kernels (x86-64; compiled per function with
 * TSFILE_TARGET_AVX512, used only through their row of filter_impls.h). Semantics and selection
 * forms: filter_scalar.h.
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

#define FILTER_AVX512_INLINE TSFILE_TARGET_AVX512 TSFILE_INLINE

/* Lane masks of "x in [lo, hi]" for the first `m` lanes (`m` = all-ones for whole vectors). */
FILTER_AVX512_INLINE __mmask8 filter_avx512_in_i64(const int64_t *p, __mmask8 m, __m512i lo,
                                                   __m512i hi)
{
    const __m512i x = _mm512_maskz_loadu_epi64(m, p);
    return _mm512_mask_cmple_epi64_mask(_mm512_mask_cmpge_epi64_mask(m, x, lo), x, hi);
}

FILTER_AVX512_INLINE __mmask8 filter_avx512_in_f64(const double *p, __mmask8 m, __m512d lo,
                                                   __m512d hi)
{
    const __m512d x = _mm512_maskz_loadu_pd(m, p);
    return _mm512_mask_cmp_pd_mask(_mm512_mask_cmp_pd_mask(m, x, lo, _CMP_GE_OQ), x, hi,
                                   _CMP_LE_OQ);
}

FILTER_AVX512_INLINE __mmask16 filter_avx512_in_i32(const int32_t *p, __mmask16 m, __m512i lo,
                                                    __m512i hi)
{
    const __m512i x = _mm512_maskz_loadu_epi32(m, p);
    return _mm512_mask_cmple_epi32_mask(_mm512_mask_cmpge_epi32_mask(m, x, lo), x, hi);
}

FILTER_AVX512_INLINE __mmask16 filter_avx512_in_f32(const float *p, __mmask16 m, __m512 lo,
                                                    __m512 hi)
{
    const __m512 x = _mm512_maskz_loadu_ps(m, p);
    return _mm512_mask_cmp_ps_mask(_mm512_mask_cmp_ps_mask(m, x, lo, _CMP_GE_OQ), x, hi,
                                   _CMP_LE_OQ);
}

/* 8 lanes of 64 bits: one bitmap byte per vector, 8 int32 positions per compress. */
#define FILTER_AVX512_DEFINE_64(SUF, T, VT, SET1)                                                  \
    TSFILE_TARGET_AVX512 static size_t filter_bitmap_##SUF##_avx512(                               \
        const T *v, size_t n, T lo, T hi, int negate, uint8_t *bits)                               \
    {                                                                                              \
        const VT vlo = SET1(lo), vhi = SET1(hi);                                                   \
        const unsigned flip = negate ? 0xFFu : 0u;                                                 \
        size_t i = 0, count = 0;                                                                   \
        for (; i + 32 <= n; i += 32) { /* four independent compares per iteration */              \
            const unsigned b0 = filter_avx512_in_##SUF(v + i, 0xFF, vlo, vhi) ^ flip;              \
            const unsigned b1 = filter_avx512_in_##SUF(v + i + 8, 0xFF, vlo, vhi) ^ flip;          \
            const unsigned b2 = filter_avx512_in_##SUF(v + i + 16, 0xFF, vlo, vhi) ^ flip;         \
            const unsigned b3 = filter_avx512_in_##SUF(v + i + 24, 0xFF, vlo, vhi) ^ flip;         \
            const uint32_t word = b0 | b1 << 8 | b2 << 16 | b3 << 24;                              \
            memcpy(bits + (i >> 3), &word, 4);                                                     \
            count += (size_t)_mm_popcnt_u32(word);                                                 \
        }                                                                                          \
        for (; i < n; i += 8) {                                                                    \
            const unsigned left = n - i < 8 ? (unsigned)(n - i) : 8u;                              \
            const unsigned live = (1u << left) - 1u;                                               \
            const unsigned b = (filter_avx512_in_##SUF(v + i, (__mmask8)live, vlo, vhi) ^ flip) & \
                               live;                                                               \
            bits[i >> 3] = (uint8_t)b;                                                             \
            count += (size_t)_mm_popcnt_u32(b);                                                    \
        }                                                                                          \
        return count;                                                                              \
    }                                                                                              \
    TSFILE_TARGET_AVX512 static size_t filter_index_##SUF##_avx512(                                \
        const T *v, size_t n, T lo, T hi, int negate, int32_t *idx, int32_t base)                  \
    {                                                                                              \
        const VT vlo = SET1(lo), vhi = SET1(hi);                                                   \
        const unsigned flip = negate ? 0xFFu : 0u;                                                 \
        const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);                            \
        size_t i = 0, k = 0;                                                                       \
        for (; i < n; i += 8) {                                                                    \
            const unsigned left = n - i < 8 ? (unsigned)(n - i) : 8u;                              \
            const unsigned live = (1u << left) - 1u;                                               \
            const __mmask8 b =                                                                     \
                (__mmask8)((filter_avx512_in_##SUF(v + i, (__mmask8)live, vlo, vhi) ^ flip) &      \
                           live);                                                                  \
            const __m256i pos = _mm256_add_epi32(iota, _mm256_set1_epi32(base + (int32_t)i));      \
            _mm256_storeu_si256((__m256i *)(idx + k), _mm256_maskz_compress_epi32(b, pos));        \
            k += (size_t)_mm_popcnt_u32(b);                                                        \
        }                                                                                          \
        return k;                                                                                  \
    }

/* 16 lanes of 32 bits: two bitmap bytes per vector, 16 positions per compress. */
#define FILTER_AVX512_DEFINE_32(SUF, T, VT, SET1)                                                  \
    TSFILE_TARGET_AVX512 static size_t filter_bitmap_##SUF##_avx512(                               \
        const T *v, size_t n, T lo, T hi, int negate, uint8_t *bits)                               \
    {                                                                                              \
        const VT vlo = SET1(lo), vhi = SET1(hi);                                                   \
        const unsigned flip = negate ? 0xFFFFu : 0u;                                               \
        size_t i = 0, count = 0;                                                                   \
        for (; i + 32 <= n; i += 32) {                                                             \
            const unsigned b0 = filter_avx512_in_##SUF(v + i, 0xFFFF, vlo, vhi) ^ flip;            \
            const unsigned b1 = filter_avx512_in_##SUF(v + i + 16, 0xFFFF, vlo, vhi) ^ flip;       \
            const uint32_t word = b0 | b1 << 16;                                                   \
            memcpy(bits + (i >> 3), &word, 4);                                                     \
            count += (size_t)_mm_popcnt_u32(word);                                                 \
        }                                                                                          \
        for (; i < n; i += 16) {                                                                   \
            const unsigned left = n - i < 16 ? (unsigned)(n - i) : 16u;                            \
            const unsigned live = (1u << left) - 1u;                                               \
            const unsigned b =                                                                     \
                (filter_avx512_in_##SUF(v + i, (__mmask16)live, vlo, vhi) ^ flip) & live;          \
            bits[i >> 3] = (uint8_t)b;                                                             \
            if (left > 8) bits[(i >> 3) + 1] = (uint8_t)(b >> 8);                                  \
            count += (size_t)_mm_popcnt_u32(b);                                                    \
        }                                                                                          \
        return count;                                                                              \
    }                                                                                              \
    TSFILE_TARGET_AVX512 static size_t filter_index_##SUF##_avx512(                                \
        const T *v, size_t n, T lo, T hi, int negate, int32_t *idx, int32_t base)                  \
    {                                                                                              \
        const VT vlo = SET1(lo), vhi = SET1(hi);                                                   \
        const unsigned flip = negate ? 0xFFFFu : 0u;                                               \
        const __m512i iota =                                                                       \
            _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);               \
        size_t i = 0, k = 0;                                                                       \
        for (; i < n; i += 16) {                                                                   \
            const unsigned left = n - i < 16 ? (unsigned)(n - i) : 16u;                            \
            const unsigned live = (1u << left) - 1u;                                               \
            const __mmask16 b =                                                                    \
                (__mmask16)((filter_avx512_in_##SUF(v + i, (__mmask16)live, vlo, vhi) ^ flip) &    \
                            live);                                                                 \
            const __m512i pos = _mm512_add_epi32(iota, _mm512_set1_epi32(base + (int32_t)i));      \
            _mm512_storeu_si512((void *)(idx + k), _mm512_maskz_compress_epi32(b, pos));           \
            k += (size_t)_mm_popcnt_u32(b);                                                        \
        }                                                                                          \
        return k;                                                                                  \
    }

FILTER_AVX512_DEFINE_64(i64, int64_t, __m512i, _mm512_set1_epi64)
FILTER_AVX512_DEFINE_64(f64, double, __m512d, _mm512_set1_pd)
FILTER_AVX512_DEFINE_32(i32, int32_t, __m512i, _mm512_set1_epi32)
FILTER_AVX512_DEFINE_32(f32, float, __m512, _mm512_set1_ps)

#endif /* TSFILE_ISA_AVX512 */
#endif /* FILTER_AVX512_H */
