/*
 * filter_neon.h: NEON predicate kernels (AArch64, part of the baseline: no run-time check), used
 * only through their row of filter_impls.h. Semantics and selection forms: filter_scalar.h.
 *
 * Per 8 values: compares (vcge/vcle; float compares are ordered, so NaN fails), the lane masks
 * narrowed to 8 bytes, AND with the bit weights {1, 2, 4, ..., 128} and a horizontal add: one
 * bitmap byte. Indices are read off that byte, one count-trailing-zeros per match. Values after
 * the last group of 8 go through the scalar tail (nothing past v[n - 1] is read).
 */
#ifndef FILTER_NEON_H
#define FILTER_NEON_H

#include "filter_scalar.h"

#if TSFILE_ISA_NEON

static void filter_neon_init(void) {}

static const uint8_t filter_neon_weights[8] = {1, 2, 4, 8, 16, 32, 64, 128};

TSFILE_INLINE unsigned filter_neon_byte(uint8x8_t lanes)
{
    return (unsigned)vaddv_u8(vand_u8(lanes, vld1_u8(filter_neon_weights)));
}

TSFILE_INLINE uint8x8_t filter_neon_narrow64(uint64x2_t a, uint64x2_t b, uint64x2_t c,
                                             uint64x2_t d)
{
    const uint32x4_t ab = vcombine_u32(vmovn_u64(a), vmovn_u64(b));
    const uint32x4_t cd = vcombine_u32(vmovn_u64(c), vmovn_u64(d));
    return vmovn_u16(vcombine_u16(vmovn_u32(ab), vmovn_u32(cd)));
}

TSFILE_INLINE uint8x8_t filter_neon_narrow32(uint32x4_t a, uint32x4_t b)
{
    return vmovn_u16(vcombine_u16(vmovn_u32(a), vmovn_u32(b)));
}

/* The bitmap byte of v[0 .. 7] in [lo, hi] (before negation). */
TSFILE_INLINE unsigned filter_neon_in8_i64(const int64_t *v, int64x2_t lo, int64x2_t hi)
{
    uint64x2_t m[4];
    for (int j = 0; j < 4; j++) {
        const int64x2_t x = vld1q_s64(v + 2 * j);
        m[j] = vandq_u64(vcgeq_s64(x, lo), vcleq_s64(x, hi));
    }
    return filter_neon_byte(filter_neon_narrow64(m[0], m[1], m[2], m[3]));
}

TSFILE_INLINE unsigned filter_neon_in8_f64(const double *v, float64x2_t lo, float64x2_t hi)
{
    uint64x2_t m[4];
    for (int j = 0; j < 4; j++) {
        const float64x2_t x = vld1q_f64(v + 2 * j);
        m[j] = vandq_u64(vcgeq_f64(x, lo), vcleq_f64(x, hi));
    }
    return filter_neon_byte(filter_neon_narrow64(m[0], m[1], m[2], m[3]));
}

TSFILE_INLINE unsigned filter_neon_in8_i32(const int32_t *v, int32x4_t lo, int32x4_t hi)
{
    const int32x4_t a = vld1q_s32(v), b = vld1q_s32(v + 4);
    return filter_neon_byte(filter_neon_narrow32(vandq_u32(vcgeq_s32(a, lo), vcleq_s32(a, hi)),
                                                 vandq_u32(vcgeq_s32(b, lo), vcleq_s32(b, hi))));
}

TSFILE_INLINE unsigned filter_neon_in8_f32(const float *v, float32x4_t lo, float32x4_t hi)
{
    const float32x4_t a = vld1q_f32(v), b = vld1q_f32(v + 4);
    return filter_neon_byte(filter_neon_narrow32(vandq_u32(vcgeq_f32(a, lo), vcleq_f32(a, hi)),
                                                 vandq_u32(vcgeq_f32(b, lo), vcleq_f32(b, hi))));
}

#define FILTER_NEON_DEFINE(SUF, T, VT, DUP)                                                        \
    static size_t filter_bitmap_##SUF##_neon(const T *v, size_t n, T lo, T hi, int negate,         \
                                             uint8_t *bits)                                        \
    {                                                                                              \
        const VT vlo = DUP(lo), vhi = DUP(hi);                                                     \
        const unsigned flip = negate ? 0xFFu : 0u;                                                 \
        size_t i = 0, count = 0;                                                                   \
        for (; i + 8 <= n; i += 8) {                                                               \
            const unsigned b = filter_neon_in8_##SUF(v + i, vlo, vhi) ^ flip;                      \
            bits[i >> 3] = (uint8_t)b;                                                             \
            count += filter_popcount8(b);                                                \
        }                                                                                          \
        return count + filter_bitmap_tail_##SUF(v, i, n, lo, hi, negate, bits);                    \
    }                                                                                              \
    static size_t filter_index_##SUF##_neon(const T *v, size_t n, T lo, T hi, int negate,          \
                                            int32_t *idx, int32_t base)                            \
    {                                                                                              \
        const VT vlo = DUP(lo), vhi = DUP(hi);                                                     \
        const unsigned flip = negate ? 0xFFu : 0u;                                                 \
        size_t i = 0, k = 0;                                                                       \
        for (; i + 8 <= n; i += 8) {                                                               \
            unsigned b = filter_neon_in8_##SUF(v + i, vlo, vhi) ^ flip;                            \
            while (b) {                                                                            \
                idx[k++] = base + (int32_t)i + __builtin_ctz(b);                                   \
                b &= b - 1;                                                                        \
            }                                                                                      \
        }                                                                                          \
        return k + filter_index_tail_##SUF(v, i, n, lo, hi, negate, idx + k, base);               \
    }

FILTER_NEON_DEFINE(i64, int64_t, int64x2_t, vdupq_n_s64)
FILTER_NEON_DEFINE(f64, double, float64x2_t, vdupq_n_f64)
FILTER_NEON_DEFINE(i32, int32_t, int32x4_t, vdupq_n_s32)
FILTER_NEON_DEFINE(f32, float, float32x4_t, vdupq_n_f32)

#endif /* TSFILE_ISA_NEON */
#endif /* FILTER_NEON_H */
