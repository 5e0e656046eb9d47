/*
 * stats_encode.h: the writer's page statistics kernels for integer pages (min, max and sum of
 * one page in one read), in the per-ISA table idiom of tsfile_isa.h.
 *
 * The statistics pass is the first read of a page's values (the encoder reads them again while
 * they are in cache), so it pays for the memory traffic; a scalar loop of compare-and-move
 * chains is slower than memory here. These kernels keep min, max and sum in vector lanes.
 *
 * Results are exact and independent of the lane split: integer min / max are order free and the
 * sums wrap modulo 2^64 (INT64; the caller decides whether that sum is exact) or are exact in
 * int64 (INT32 widened: 2^31 * 2^32 values cannot overflow). Float and double pages are not here:
 * their min / max keep the first of equal-comparing values (-0.0 / 0.0) and their sums follow
 * the official writer's order, which lanes would change.
 *
 * Every kernel takes n >= 1 values.
 */
#ifndef TSFILE_STATS_ENCODE_H
#define TSFILE_STATS_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "tsfile_isa.h"

typedef void (*stats_i64_fn)(const int64_t *v, size_t n, int64_t *lo, int64_t *hi,
                             uint64_t *sum);
typedef void (*stats_i32_fn)(const int32_t *v, size_t n, int32_t *lo, int32_t *hi,
                             int64_t *sum);

/* ---- scalar: four independent lanes so the compiler can keep them in registers ---- */

static void stats_i64_scalar(const int64_t *v, size_t n, int64_t *lo, int64_t *hi, uint64_t *sum)
{
    int64_t l[4] = {v[0], v[0], v[0], v[0]}, h[4] = {v[0], v[0], v[0], v[0]};
    uint64_t s[4] = {0, 0, 0, 0};
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        for (int k = 0; k < 4; k++) {
            l[k] = v[i + k] < l[k] ? v[i + k] : l[k];
            h[k] = v[i + k] > h[k] ? v[i + k] : h[k];
            s[k] += (uint64_t)v[i + k];
        }
    }
    for (; i < n; i++) {
        l[0] = v[i] < l[0] ? v[i] : l[0];
        h[0] = v[i] > h[0] ? v[i] : h[0];
        s[0] += (uint64_t)v[i];
    }
    for (int k = 1; k < 4; k++) {
        l[0] = l[k] < l[0] ? l[k] : l[0];
        h[0] = h[k] > h[0] ? h[k] : h[0];
    }
    *lo = l[0];
    *hi = h[0];
    *sum = s[0] + s[1] + s[2] + s[3];
}

static void stats_i32_scalar(const int32_t *v, size_t n, int32_t *lo, int32_t *hi, int64_t *sum)
{
    int32_t l = v[0], h = v[0];
    int64_t s = 0;
    for (size_t i = 0; i < n; i++) {
        l = v[i] < l ? v[i] : l;
        h = v[i] > h ? v[i] : h;
        s += v[i];
    }
    *lo = l;
    *hi = h;
    *sum = s;
}

/* The lanes' results folded with the scalar tail v[i:n]. */
static inline void stats_i64_fold(const int64_t *lanes_lo, const int64_t *lanes_hi,
                                  const uint64_t *lanes_sum, int lanes, const int64_t *v,
                                  size_t i, size_t n, int64_t *lo, int64_t *hi, uint64_t *sum)
{
    int64_t l = lanes_lo[0], h = lanes_hi[0];
    uint64_t s = 0;
    for (int k = 0; k < lanes; k++) {
        l = lanes_lo[k] < l ? lanes_lo[k] : l;
        h = lanes_hi[k] > h ? lanes_hi[k] : h;
        s += lanes_sum[k];
    }
    for (; i < n; i++) {
        l = v[i] < l ? v[i] : l;
        h = v[i] > h ? v[i] : h;
        s += (uint64_t)v[i];
    }
    *lo = l;
    *hi = h;
    *sum = s;
}

static inline void stats_i32_fold(const int32_t *lanes_lo, const int32_t *lanes_hi,
                                  const int64_t *lanes_sum, int lanes, int sum_lanes,
                                  const int32_t *v, size_t i, size_t n, int32_t *lo, int32_t *hi,
                                  int64_t *sum)
{
    int32_t l = lanes_lo[0], h = lanes_hi[0];
    int64_t s = 0;
    for (int k = 0; k < lanes; k++) {
        l = lanes_lo[k] < l ? lanes_lo[k] : l;
        h = lanes_hi[k] > h ? lanes_hi[k] : h;
    }
    for (int k = 0; k < sum_lanes; k++) s += lanes_sum[k];
    for (; i < n; i++) {
        l = v[i] < l ? v[i] : l;
        h = v[i] > h ? v[i] : h;
        s += v[i];
    }
    *lo = l;
    *hi = h;
    *sum = s;
}

#if TSFILE_ISA_AVX2
/* AVX2 has no 64-bit min / max: compare and blend. */
TSFILE_TARGET_AVX2 static void stats_i64_avx2(const int64_t *v, size_t n, int64_t *lo,
                                              int64_t *hi, uint64_t *sum)
{
    __m256i l0 = _mm256_set1_epi64x(v[0]), l1 = l0, h0 = l0, h1 = l0;
    __m256i s0 = _mm256_setzero_si256(), s1 = s0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(v + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(v + i + 4));
        l0 = _mm256_blendv_epi8(l0, a, _mm256_cmpgt_epi64(l0, a));
        l1 = _mm256_blendv_epi8(l1, b, _mm256_cmpgt_epi64(l1, b));
        h0 = _mm256_blendv_epi8(h0, a, _mm256_cmpgt_epi64(a, h0));
        h1 = _mm256_blendv_epi8(h1, b, _mm256_cmpgt_epi64(b, h1));
        s0 = _mm256_add_epi64(s0, a);
        s1 = _mm256_add_epi64(s1, b);
    }
    int64_t ll[8], hh[8];
    uint64_t ss[8];
    _mm256_storeu_si256((__m256i *)ll, l0);
    _mm256_storeu_si256((__m256i *)(ll + 4), l1);
    _mm256_storeu_si256((__m256i *)hh, h0);
    _mm256_storeu_si256((__m256i *)(hh + 4), h1);
    _mm256_storeu_si256((__m256i *)ss, s0);
    _mm256_storeu_si256((__m256i *)(ss + 4), s1);
    stats_i64_fold(ll, hh, ss, 8, v, i, n, lo, hi, sum);
}

TSFILE_TARGET_AVX2 static void stats_i32_avx2(const int32_t *v, size_t n, int32_t *lo,
                                              int32_t *hi, int64_t *sum)
{
    __m256i l = _mm256_set1_epi32(v[0]), h = l;
    __m256i s0 = _mm256_setzero_si256(), s1 = s0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(v + i));
        l = _mm256_min_epi32(l, a);
        h = _mm256_max_epi32(h, a);
        s0 = _mm256_add_epi64(s0, _mm256_cvtepi32_epi64(_mm256_castsi256_si128(a)));
        s1 = _mm256_add_epi64(s1, _mm256_cvtepi32_epi64(_mm256_extracti128_si256(a, 1)));
    }
    int32_t ll[8], hh[8];
    int64_t ss[8];
    _mm256_storeu_si256((__m256i *)ll, l);
    _mm256_storeu_si256((__m256i *)hh, h);
    _mm256_storeu_si256((__m256i *)ss, s0);
    _mm256_storeu_si256((__m256i *)(ss + 4), s1);
    stats_i32_fold(ll, hh, ss, 8, 8, v, i, n, lo, hi, sum);
}
#endif

#if TSFILE_ISA_AVX512
TSFILE_TARGET_AVX512 static void stats_i64_avx512(const int64_t *v, size_t n, int64_t *lo,
                                                  int64_t *hi, uint64_t *sum)
{
    __m512i l0 = _mm512_set1_epi64(v[0]), l1 = l0, h0 = l0, h1 = l0;
    __m512i s0 = _mm512_setzero_si512(), s1 = s0;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512i a = _mm512_loadu_si512((const void *)(v + i));
        __m512i b = _mm512_loadu_si512((const void *)(v + i + 8));
        l0 = _mm512_min_epi64(l0, a);
        l1 = _mm512_min_epi64(l1, b);
        h0 = _mm512_max_epi64(h0, a);
        h1 = _mm512_max_epi64(h1, b);
        s0 = _mm512_add_epi64(s0, a);
        s1 = _mm512_add_epi64(s1, b);
    }
    int64_t ll[8], hh[8];
    uint64_t ss[8];
    _mm512_storeu_si512((void *)ll, _mm512_min_epi64(l0, l1));
    _mm512_storeu_si512((void *)hh, _mm512_max_epi64(h0, h1));
    _mm512_storeu_si512((void *)ss, _mm512_add_epi64(s0, s1));
    stats_i64_fold(ll, hh, ss, 8, v, i, n, lo, hi, sum);
}

TSFILE_TARGET_AVX512 static void stats_i32_avx512(const int32_t *v, size_t n, int32_t *lo,
                                                  int32_t *hi, int64_t *sum)
{
    __m512i l = _mm512_set1_epi32(v[0]), h = l;
    __m512i s0 = _mm512_setzero_si512(), s1 = s0;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512i a = _mm512_loadu_si512((const void *)(v + i));
        l = _mm512_min_epi32(l, a);
        h = _mm512_max_epi32(h, a);
        s0 = _mm512_add_epi64(s0, _mm512_cvtepi32_epi64(_mm512_castsi512_si256(a)));
        s1 = _mm512_add_epi64(s1, _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(a, 1)));
    }
    int32_t ll[16], hh[16];
    int64_t ss[8];
    _mm512_storeu_si512((void *)ll, l);
    _mm512_storeu_si512((void *)hh, h);
    _mm512_storeu_si512((void *)ss, _mm512_add_epi64(s0, s1));
    stats_i32_fold(ll, hh, ss, 16, 8, v, i, n, lo, hi, sum);
}
#endif

/* NEON: the scalar row (the compiler vectorises the lanes above); no NEON row yet. */

typedef struct {
    tsfile_impl_head head;
    stats_i64_fn i64;
    stats_i32_fn i32;
} stats_impl;

static const stats_impl stats_impls[] = {
#if TSFILE_ISA_AVX512
    {{"avx512", TSFILE_LEVEL_AVX512, TSFILE_NEED_AVX512_VBMI}, stats_i64_avx512, stats_i32_avx512},
#endif
#if TSFILE_ISA_AVX2
    {{"avx2", TSFILE_LEVEL_AVX2, TSFILE_NEED_AVX2}, stats_i64_avx2, stats_i32_avx2},
#endif
    {{"scalar", TSFILE_LEVEL_SCALAR, 0}, stats_i64_scalar, stats_i32_scalar},
};

#define STATS_N_IMPLS (sizeof stats_impls / sizeof stats_impls[0])

/* The row to run at ISA `level` on a CPU with `features`. */
static inline size_t stats_pick_impl(int level, unsigned features)
{
    return tsfile_pick_impl(stats_impls, sizeof stats_impls[0], STATS_N_IMPLS, level, features);
}

#endif /* TSFILE_STATS_ENCODE_H */
