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

/*
 * Generates, per value type T (SUF: i64 or i32; SUM_T: the sum's type, uint64_t wrapping for
 * int64 pages, int64_t exact for int32 ones):
 *   stats_SUF_scalar: the scalar row, in LANES independent lanes: int64 keeps four so the
 *                     compiler holds them in registers and breaks the compare-and-move chains;
 *                     int32 keeps one, which the compiler vectorises itself (measured: four
 *                     lanes are 5% slower there);
 *   stats_SUF_fold:   the vector rows' epilogue: their lanes' results folded with the scalar
 *                     tail v[i:n] (min / max over `lanes` lanes, the sum over `sum_lanes`).
 * A macro because the two types' kernels differ only in T, SUM_T and LANES.
 */
#define STATS_DEFINE_SCALAR(SUF, T, SUM_T, LANES)                                                  \
    static void stats_##SUF##_scalar(const T *v, size_t n, T *lo, T *hi, SUM_T *sum)               \
    {                                                                                              \
        T l[LANES], h[LANES];                                                                      \
        SUM_T s[LANES];                                                                            \
        for (int k = 0; k < (LANES); k++) {                                                        \
            l[k] = h[k] = v[0];                                                                    \
            s[k] = 0;                                                                              \
        }                                                                                          \
        size_t i = 0;                                                                              \
        for (; i + (LANES) <= n; i += (LANES)) {                                                   \
            for (int k = 0; k < (LANES); k++) {                                                    \
                l[k] = v[i + k] < l[k] ? v[i + k] : l[k];                                          \
                h[k] = v[i + k] > h[k] ? v[i + k] : h[k];                                          \
                s[k] += (SUM_T)v[i + k];                                                           \
            }                                                                                      \
        }                                                                                          \
        for (; i < n; i++) {                                                                       \
            l[0] = v[i] < l[0] ? v[i] : l[0];                                                      \
            h[0] = v[i] > h[0] ? v[i] : h[0];                                                      \
            s[0] += (SUM_T)v[i];                                                                   \
        }                                                                                          \
        for (int k = 1; k < (LANES); k++) {                                                        \
            l[0] = l[k] < l[0] ? l[k] : l[0];                                                      \
            h[0] = h[k] > h[0] ? h[k] : h[0];                                                      \
            s[0] += s[k];                                                                          \
        }                                                                                          \
        *lo = l[0];                                                                                \
        *hi = h[0];                                                                                \
        *sum = s[0];                                                                               \
    }                                                                                              \
                                                                                                   \
    static inline void stats_##SUF##_fold(const T *lanes_lo, const T *lanes_hi,                   \
                                          const SUM_T *lanes_sum, int lanes, int sum_lanes,        \
                                          const T *v, size_t i, size_t n, T *lo, T *hi,            \
                                          SUM_T *sum)                                              \
    {                                                                                              \
        T l = lanes_lo[0], h = lanes_hi[0];                                                        \
        SUM_T s = 0;                                                                               \
        for (int k = 0; k < lanes; k++) {                                                          \
            l = lanes_lo[k] < l ? lanes_lo[k] : l;                                                 \
            h = lanes_hi[k] > h ? lanes_hi[k] : h;                                                 \
        }                                                                                          \
        for (int k = 0; k < sum_lanes; k++) s += lanes_sum[k];                                     \
        for (; i < n; i++) {                                                                       \
            l = v[i] < l ? v[i] : l;                                                               \
            h = v[i] > h ? v[i] : h;                                                               \
            s += (SUM_T)v[i];                                                                      \
        }                                                                                          \
        *lo = l;                                                                                   \
        *hi = h;                                                                                   \
        *sum = s;                                                                                  \
    }

/* stats_i64_scalar, stats_i64_fold, stats_i32_scalar, stats_i32_fold */
STATS_DEFINE_SCALAR(i64, int64_t, uint64_t, 4)
STATS_DEFINE_SCALAR(i32, int32_t, int64_t, 1)

/*
 * Generates stats_i64_ISA and stats_i32_ISA, the vector kernels of one x86 ISA (VT: its integer
 * vector, LANES64: its 64-bit lanes). A macro because AVX2 and AVX-512 run the same loops and
 * differ only in the intrinsics, passed in by name (OP(args) macros below):
 *   i64: two accumulators of min, max and wrapping sum (2 * LANES64 values a step), combined
 *        lane-wise after the loop and folded with the tail by stats_i64_fold;
 *   i32: min and max in 32-bit lanes (2 * LANES64 values a step), the sum in two accumulators of
 *        int64 lanes (each half of the vector sign-extended), combined after the loop.
 */
#define STATS_DEFINE_SIMD(ISA, ATTR, VT, LANES64, SET1_64, SET1_32, ZERO, LOAD, STORE, MIN64,     \
                          MAX64, MIN32, MAX32, ADD64, WIDEN_LO, WIDEN_HI)                          \
    ATTR static void stats_i64_##ISA(const int64_t *v, size_t n, int64_t *lo, int64_t *hi,         \
                                     uint64_t *sum)                                                \
    {                                                                                              \
        VT l0 = SET1_64(v[0]), l1 = l0, h0 = l0, h1 = l0;                                          \
        VT s0 = ZERO(), s1 = s0;                                                                   \
        size_t i = 0;                                                                              \
        for (; i + 2 * (LANES64) <= n; i += 2 * (LANES64)) {                                       \
            const VT a = LOAD(v + i), b = LOAD(v + i + (LANES64));                                 \
            l0 = MIN64(l0, a);                                                                     \
            l1 = MIN64(l1, b);                                                                     \
            h0 = MAX64(h0, a);                                                                     \
            h1 = MAX64(h1, b);                                                                     \
            s0 = ADD64(s0, a);                                                                     \
            s1 = ADD64(s1, b);                                                                     \
        }                                                                                          \
        int64_t ll[LANES64], hh[LANES64];                                                          \
        uint64_t ss[LANES64];                                                                      \
        STORE(ll, MIN64(l0, l1));                                                                  \
        STORE(hh, MAX64(h0, h1));                                                                  \
        STORE(ss, ADD64(s0, s1));                                                                  \
        stats_i64_fold(ll, hh, ss, (LANES64), (LANES64), v, i, n, lo, hi, sum);                               \
    }                                                                                              \
                                                                                                   \
    ATTR static void stats_i32_##ISA(const int32_t *v, size_t n, int32_t *lo, int32_t *hi,         \
                                     int64_t *sum)                                                 \
    {                                                                                              \
        VT l = SET1_32(v[0]), h = l;                                                               \
        VT s0 = ZERO(), s1 = s0;                                                                   \
        size_t i = 0;                                                                              \
        for (; i + 2 * (LANES64) <= n; i += 2 * (LANES64)) {                                       \
            const VT a = LOAD(v + i);                                                              \
            l = MIN32(l, a);                                                                       \
            h = MAX32(h, a);                                                                       \
            s0 = ADD64(s0, WIDEN_LO(a));                                                           \
            s1 = ADD64(s1, WIDEN_HI(a));                                                           \
        }                                                                                          \
        int32_t ll[2 * (LANES64)], hh[2 * (LANES64)];                                              \
        int64_t ss[LANES64];                                                                       \
        STORE(ll, l);                                                                              \
        STORE(hh, h);                                                                              \
        STORE(ss, ADD64(s0, s1));                                                                  \
        stats_i32_fold(ll, hh, ss, 2 * (LANES64), (LANES64), v, i, n, lo, hi, sum);                \
    }

#if TSFILE_ISA_AVX2
#define STATS_AVX2_LOAD(p) _mm256_loadu_si256((const __m256i *)(p))
#define STATS_AVX2_STORE(p, x) _mm256_storeu_si256((__m256i *)(p), (x))
#define STATS_AVX2_WIDEN_LO(a) _mm256_cvtepi32_epi64(_mm256_castsi256_si128(a))
#define STATS_AVX2_WIDEN_HI(a) _mm256_cvtepi32_epi64(_mm256_extracti128_si256((a), 1))
/* stats_i64_avx2, stats_i32_avx2 */
STATS_DEFINE_SIMD(avx2, TSFILE_TARGET_AVX2, __m256i, 4, _mm256_set1_epi64x, _mm256_set1_epi32,
                  _mm256_setzero_si256, STATS_AVX2_LOAD, STATS_AVX2_STORE, TSFILE_AVX2_MIN_EPI64,
                  TSFILE_AVX2_MAX_EPI64, _mm256_min_epi32, _mm256_max_epi32, _mm256_add_epi64,
                  STATS_AVX2_WIDEN_LO, STATS_AVX2_WIDEN_HI)
#endif

#if TSFILE_ISA_AVX512
/* AVX-512 F only (min / max epi64, vpmovsxdq, vextracti64x4): the row needs no BW, VL or VBMI
 * instruction, but requires TSFILE_NEED_AVX512 like every AVX-512 row (the level's set); compiled
 * without VBMI (TSFILE_TARGET_AVX512_NOVBMI) so the compiler cannot use it either. */
#define STATS_AVX512_LOAD(p) _mm512_loadu_si512((const void *)(p))
#define STATS_AVX512_STORE(p, x) _mm512_storeu_si512((void *)(p), (x))
#define STATS_AVX512_WIDEN_LO(a) _mm512_cvtepi32_epi64(_mm512_castsi512_si256(a))
#define STATS_AVX512_WIDEN_HI(a) _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64((a), 1))
/* stats_i64_avx512, stats_i32_avx512 */
STATS_DEFINE_SIMD(avx512, TSFILE_TARGET_AVX512_NOVBMI, __m512i, 8, _mm512_set1_epi64,
                  _mm512_set1_epi32, _mm512_setzero_si512, STATS_AVX512_LOAD, STATS_AVX512_STORE,
                  _mm512_min_epi64, _mm512_max_epi64, _mm512_min_epi32, _mm512_max_epi32,
                  _mm512_add_epi64, STATS_AVX512_WIDEN_LO, STATS_AVX512_WIDEN_HI)
#endif

/* NEON: the scalar row (the compiler vectorises the lanes above); no NEON row yet. */

typedef struct {
    tsfile_impl_head head;
    stats_i64_fn i64;
    stats_i32_fn i32;
} stats_impl;

static const stats_impl stats_impls[] = {
#if TSFILE_ISA_AVX512
    {{"avx512", TSFILE_LEVEL_AVX512, TSFILE_NEED_AVX512}, stats_i64_avx512, stats_i32_avx512},
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
