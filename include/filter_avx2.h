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
 * whole vector go through the scalar tail, so nothing past v[n - 1] is read. The kernels are
 * FILTER_DEFINE_BYTEWISE's (filter_scalar.h), as NEON's.
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

/*
 * Generate filter_avx2_in_SUF(p, lo, hi): the lane mask (one bit per lane: 4 for 64-bit lanes, 8
 * for 32-bit) of "x in [lo, hi]" for the vector at p. One macro per compare family, because AVX2
 * compares integers only with > (so "in" is "not (lo > x or x > hi)", flipped on the mask) and
 * floats with ordered >= and <= (NaN fails both); within a family the 32- and 64-bit twins differ
 * only in their intrinsics' suffixes: EPI the integer lane (epi32, epi64), FP the float type of
 * the same lane width (ps, pd), whose movemask reads one bit per lane.
 */
#define FILTER_AVX2_DEFINE_IN_INT(SUF, T, EPI, FP)                                                 \
    FILTER_AVX2_INLINE unsigned filter_avx2_in_##SUF(const T *p, __m256i lo, __m256i hi)           \
    {                                                                                              \
        const __m256i x = _mm256_loadu_si256((const __m256i *)p);                                  \
        const __m256i out = _mm256_or_si256(_mm256_cmpgt_##EPI(lo, x), _mm256_cmpgt_##EPI(x, hi)); \
        const unsigned all = (1u << (32 / sizeof(T))) - 1u;                                        \
        return (unsigned)_mm256_movemask_##FP(_mm256_castsi256_##FP(out)) ^ all;                   \
    }

#define FILTER_AVX2_DEFINE_IN_FLOAT(SUF, T, VT, FP)                                                \
    FILTER_AVX2_INLINE unsigned filter_avx2_in_##SUF(const T *p, VT lo, VT hi)                     \
    {                                                                                              \
        const VT x = _mm256_loadu_##FP(p);                                                         \
        const VT in = _mm256_and_##FP(_mm256_cmp_##FP(x, lo, _CMP_GE_OQ),                          \
                                      _mm256_cmp_##FP(x, hi, _CMP_LE_OQ));                         \
        return (unsigned)_mm256_movemask_##FP(in);                                                 \
    }

FILTER_AVX2_DEFINE_IN_INT(i64, int64_t, epi64, pd)
FILTER_AVX2_DEFINE_IN_INT(i32, int32_t, epi32, ps)
FILTER_AVX2_DEFINE_IN_FLOAT(f64, double, __m256d, pd)
FILTER_AVX2_DEFINE_IN_FLOAT(f32, float, __m256, ps)

/* Store the positions pos + j of the set bits j of m (m < 256) at idx; returns popcount(m). */
FILTER_AVX2_INLINE size_t filter_avx2_emit(unsigned m, int32_t pos, int32_t *idx)
{
    const __m256i lanes = _mm256_load_si256((const __m256i *)filter_avx2_perm[m]);
    _mm256_storeu_si256((__m256i *)idx, _mm256_add_epi32(lanes, _mm256_set1_epi32(pos)));
    return (size_t)_mm_popcnt_u32(m);
}

#define filter_avx2_popcount(x) _mm_popcnt_u32(x)

/* Generates filter_avx2_byte_SUF (the bitmap byte of 8 values before negation: one vector of
 * 32-bit lanes or two of 64-bit lanes; the sizeof test is resolved at compile time) and, through
 * FILTER_DEFINE_BYTEWISE (filter_scalar.h), the type's bitmap and index kernels. */
#define FILTER_AVX2_DEFINE(SUF, T, VT, SET1)                                                       \
    FILTER_AVX2_INLINE unsigned filter_avx2_byte_##SUF(const T *p, VT lo, VT hi)                   \
    {                                                                                              \
        if (sizeof(T) == 4) return filter_avx2_in_##SUF(p, lo, hi);                                \
        return filter_avx2_in_##SUF(p, lo, hi) | filter_avx2_in_##SUF(p + 4, lo, hi) << 4;         \
    }                                                                                              \
    FILTER_DEFINE_BYTEWISE(avx2, TSFILE_TARGET_AVX2, SUF, T, VT, SET1)

FILTER_AVX2_DEFINE(i64, int64_t, __m256i, _mm256_set1_epi64x)
FILTER_AVX2_DEFINE(f64, double, __m256d, _mm256_set1_pd)
FILTER_AVX2_DEFINE(i32, int32_t, __m256i, _mm256_set1_epi32)
FILTER_AVX2_DEFINE(f32, float, __m256, _mm256_set1_ps)

#endif /* TSFILE_ISA_AVX2 */
#endif /* FILTER_AVX2_H */
