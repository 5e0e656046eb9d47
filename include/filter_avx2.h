/*
 * filter_avx2.h: AVX2 predicate kernels (x86-64; compiled per function with TSFILE_TARGET_AVX2,
 * used only through their row of filter_impls.h). Semantics and selection forms: filter_scalar.h.
 *
 * Per vector: two compares (int: vpcmpgtq/vpcmpgtd against lo and hi, "outside" = lo > x or
 * x > hi; float: ordered >= and <=, so NaN fails both), movemask to a lane bitmask, XOR with the
 * negate mask. Bitmaps: the lane masks of 8 values make one byte. Indices: the lane mask picks a
 * row of a 256-entry permutation table (the positions of its set bits, built once by
 * filter_avx2_init), vpermd moves the matching lanes' positions to the front, and one 32-byte
 * store writes them; the output advances by popcount(mask). No gathers. The values after the last
 * whole vector go through the scalar tail, so nothing past v[n - 1] is read.
 */
#ifndef FILTER_AVX2_H
#define FILTER_AVX2_H

#include "filter_scalar.h"

#if TSFILE_ISA_AVX2

/* filter_avx2_perm[m]: the positions of the set bits of m, ascending, then zeros. */
static int32_t filter_avx2_perm[256][8] __attribute__((aligned(32)));

static void filter_avx2_init(void)
{
    for (int m = 0; m < 256; m++) {
        int k = 0;
        for (int j = 0; j < 8; j++)
            if (m & (1 << j)) filter_avx2_perm[m][k++] = j;
        while (k < 8) filter_avx2_perm[m][k++] = 0;
    }
}

#define FILTER_AVX2_INLINE TSFILE_TARGET_AVX2 TSFILE_INLINE

/* Lane masks (4 bits for 64-bit lanes, 8 for 32-bit lanes) of "x in [lo, hi]". */
FILTER_AVX2_INLINE unsigned filter_avx2_in_i64(const int64_t *p, __m256i lo, __m256i hi)
{
    const __m256i x = _mm256_loadu_si256((const __m256i *)p);
    const __m256i out = _mm256_or_si256(_mm256_cmpgt_epi64(lo, x), _mm256_cmpgt_epi64(x, hi));
    return (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(out)) ^ 0xFu;
}

FILTER_AVX2_INLINE unsigned filter_avx2_in_i32(const int32_t *p, __m256i lo, __m256i hi)
{
    const __m256i x = _mm256_loadu_si256((const __m256i *)p);
    const __m256i out = _mm256_or_si256(_mm256_cmpgt_epi32(lo, x), _mm256_cmpgt_epi32(x, hi));
    return (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(out)) ^ 0xFFu;
}

FILTER_AVX2_INLINE unsigned filter_avx2_in_f64(const double *p, __m256d lo, __m256d hi)
{
    const __m256d x = _mm256_loadu_pd(p);
    const __m256d in = _mm256_and_pd(_mm256_cmp_pd(x, lo, _CMP_GE_OQ),
                                     _mm256_cmp_pd(x, hi, _CMP_LE_OQ));
    return (unsigned)_mm256_movemask_pd(in);
}

FILTER_AVX2_INLINE unsigned filter_avx2_in_f32(const float *p, __m256 lo, __m256 hi)
{
    const __m256 x = _mm256_loadu_ps(p);
    const __m256 in = _mm256_and_ps(_mm256_cmp_ps(x, lo, _CMP_GE_OQ),
                                    _mm256_cmp_ps(x, hi, _CMP_LE_OQ));
    return (unsigned)_mm256_movemask_ps(in);
}

/* Store the positions pos + j of the set bits j of m (m < 256) at idx; returns popcount(m). */
FILTER_AVX2_INLINE size_t filter_avx2_emit(unsigned m, int32_t pos, int32_t *idx)
{
    const __m256i lanes = _mm256_load_si256((const __m256i *)filter_avx2_perm[m]);
    _mm256_storeu_si256((__m256i *)idx, _mm256_add_epi32(lanes, _mm256_set1_epi32(pos)));
    return (size_t)_mm_popcnt_u32(m);
}

/* 64-bit lanes: two vectors of 4 per byte of bitmap / per index step. */
#define FILTER_AVX2_DEFINE_64(SUF, T, VT, SET1)                                                    \
    TSFILE_TARGET_AVX2 static size_t filter_bitmap_##SUF##_avx2(const T *v, size_t n, T lo, T hi,  \
                                                                int negate, uint8_t *bits)         \
    {                                                                                              \
        const VT vlo = SET1(lo), vhi = SET1(hi);                                                   \
        const unsigned flip = negate ? 0xFFu : 0u;                                                 \
        size_t i = 0, count = 0;                                                                   \
        for (; i + 8 <= n; i += 8) {                                                               \
            const unsigned b = (filter_avx2_in_##SUF(v + i, vlo, vhi) |                            \
                                filter_avx2_in_##SUF(v + i + 4, vlo, vhi) << 4) ^ flip;            \
            bits[i >> 3] = (uint8_t)b;                                                             \
            count += (size_t)_mm_popcnt_u32(b);                                                    \
        }                                                                                          \
        return count + filter_bitmap_tail_##SUF(v, i, n, lo, hi, negate, bits);                    \
    }                                                                                              \
    TSFILE_TARGET_AVX2 static size_t filter_index_##SUF##_avx2(const T *v, size_t n, T lo, T hi,   \
                                                               int negate, int32_t *idx,           \
                                                               int32_t base)                       \
    {                                                                                              \
        const VT vlo = SET1(lo), vhi = SET1(hi);                                                   \
        const unsigned flip = negate ? 0xFFu : 0u;                                                 \
        size_t i = 0, k = 0;                                                                       \
        for (; i + 8 <= n; i += 8) {                                                               \
            const unsigned b = (filter_avx2_in_##SUF(v + i, vlo, vhi) |                            \
                                filter_avx2_in_##SUF(v + i + 4, vlo, vhi) << 4) ^ flip;            \
            k += filter_avx2_emit(b, base + (int32_t)i, idx + k);                                  \
        }                                                                                          \
        return k + filter_index_tail_##SUF(v, i, n, lo, hi, negate, idx + k, base);               \
    }

/* 32-bit lanes: one vector of 8 per byte / per index step. */
#define FILTER_AVX2_DEFINE_32(SUF, T, VT, SET1)                                                    \
    TSFILE_TARGET_AVX2 static size_t filter_bitmap_##SUF##_avx2(const T *v, size_t n, T lo, T hi,  \
                                                                int negate, uint8_t *bits)         \
    {                                                                                              \
        const VT vlo = SET1(lo), vhi = SET1(hi);                                                   \
        const unsigned flip = negate ? 0xFFu : 0u;                                                 \
        size_t i = 0, count = 0;                                                                   \
        for (; i + 16 <= n; i += 16) {                                                             \
            const unsigned b0 = filter_avx2_in_##SUF(v + i, vlo, vhi) ^ flip;                      \
            const unsigned b1 = filter_avx2_in_##SUF(v + i + 8, vlo, vhi) ^ flip;                  \
            bits[i >> 3] = (uint8_t)b0;                                                            \
            bits[(i >> 3) + 1] = (uint8_t)b1;                                                      \
            count += (size_t)_mm_popcnt_u32(b0 | b1 << 8);                                         \
        }                                                                                          \
        for (; i + 8 <= n; i += 8) {                                                               \
            const unsigned b = filter_avx2_in_##SUF(v + i, vlo, vhi) ^ flip;                       \
            bits[i >> 3] = (uint8_t)b;                                                             \
            count += (size_t)_mm_popcnt_u32(b);                                                    \
        }                                                                                          \
        return count + filter_bitmap_tail_##SUF(v, i, n, lo, hi, negate, bits);                    \
    }                                                                                              \
    TSFILE_TARGET_AVX2 static size_t filter_index_##SUF##_avx2(const T *v, size_t n, T lo, T hi,   \
                                                               int negate, int32_t *idx,           \
                                                               int32_t base)                       \
    {                                                                                              \
        const VT vlo = SET1(lo), vhi = SET1(hi);                                                   \
        const unsigned flip = negate ? 0xFFu : 0u;                                                 \
        size_t i = 0, k = 0;                                                                       \
        for (; i + 8 <= n; i += 8) {                                                               \
            const unsigned b = filter_avx2_in_##SUF(v + i, vlo, vhi) ^ flip;                       \
            k += filter_avx2_emit(b, base + (int32_t)i, idx + k);                                  \
        }                                                                                          \
        return k + filter_index_tail_##SUF(v, i, n, lo, hi, negate, idx + k, base);               \
    }

FILTER_AVX2_DEFINE_64(i64, int64_t, __m256i, _mm256_set1_epi64x)
FILTER_AVX2_DEFINE_64(f64, double, __m256d, _mm256_set1_pd)
FILTER_AVX2_DEFINE_32(i32, int32_t, __m256i, _mm256_set1_epi32)
FILTER_AVX2_DEFINE_32(f32, float, __m256, _mm256_set1_ps)

#endif /* TSFILE_ISA_AVX2 */
#endif /* FILTER_AVX2_H */
