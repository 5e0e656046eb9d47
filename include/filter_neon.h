/*
 * filter_neon.h: NEON predicate kernels (AArch64, part of the baseline: no run-time check), used
 * only through their row of filter_impls.h. Semantics and selection forms: filter_scalar.h.
 *
 * Per 8 values: compares (vcge/vcle; float compares are ordered, so NaN fails), the lane masks
 * narrowed to 8 bytes, AND with the bit weights {1, 2, 4, ..., 128} and a horizontal add: one
 * bitmap byte. Indices are read off that byte, one count-trailing-zeros per match. Values after
 * the last group of 8 go through the scalar tail (nothing past v[n - 1] is read). The kernels
 * are FILTER_DEFINE_BYTEWISE's (filter_scalar.h), as AVX2's.
 */
#ifndef FILTER_NEON_H
#define FILTER_NEON_H

#include "filter_scalar.h"

#if TSFILE_ISA_NEON

static void filter_neon_init(void) {}

static const uint8_t filter_neon_weights[8] = {1, 2, 4, 8, 16, 32, 64, 128};

/* Lane masks (0 / 0xFF per value) -> bitmap byte: AND with the bit weights, horizontal add. */
TSFILE_INLINE unsigned filter_neon_weigh(uint8x8_t lanes)
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

/*
 * Generate filter_neon_byte_SUF(v, lo, hi): the bitmap byte of v[0 .. 7] in [lo, hi] (before
 * negation). One macro per lane width, because 64-bit lanes take four vectors and a two-step
 * narrowing and 32-bit lanes two vectors; within a width the integer and float twins differ only
 * in their intrinsics' suffix NS (s64 / f64, s32 / f32).
 */
#define FILTER_NEON_DEFINE_BYTE_64(SUF, T, VT, NS)                                                 \
    TSFILE_INLINE unsigned filter_neon_byte_##SUF(const T *v, VT lo, VT hi)                        \
    {                                                                                              \
        uint64x2_t m[4];                                                                           \
        for (int j = 0; j < 4; j++) {                                                              \
            const VT x = vld1q_##NS(v + 2 * j);                                                    \
            m[j] = vandq_u64(vcgeq_##NS(x, lo), vcleq_##NS(x, hi));                                \
        }                                                                                          \
        return filter_neon_weigh(filter_neon_narrow64(m[0], m[1], m[2], m[3]));                   \
    }

#define FILTER_NEON_DEFINE_BYTE_32(SUF, T, VT, NS)                                                 \
    TSFILE_INLINE unsigned filter_neon_byte_##SUF(const T *v, VT lo, VT hi)                        \
    {                                                                                              \
        const VT a = vld1q_##NS(v), b = vld1q_##NS(v + 4);                                         \
        return filter_neon_weigh(                                                                  \
            filter_neon_narrow32(vandq_u32(vcgeq_##NS(a, lo), vcleq_##NS(a, hi)),                  \
                                 vandq_u32(vcgeq_##NS(b, lo), vcleq_##NS(b, hi))));                \
    }

FILTER_NEON_DEFINE_BYTE_64(i64, int64_t, int64x2_t, s64)
FILTER_NEON_DEFINE_BYTE_64(f64, double, float64x2_t, f64)
FILTER_NEON_DEFINE_BYTE_32(i32, int32_t, int32x4_t, s32)
FILTER_NEON_DEFINE_BYTE_32(f32, float, float32x4_t, f32)

/* Store the positions pos + j of the set bits j of b at idx, one count-trailing-zeros per match;
 * returns their number. */
TSFILE_INLINE size_t filter_neon_emit(unsigned b, int32_t pos, int32_t *idx)
{
    size_t k = 0;
    while (b) {
        idx[k++] = pos + __builtin_ctz(b);
        b &= b - 1;
    }
    return k;
}

#define filter_neon_popcount(x) __builtin_popcount(x)

/* The kernels: FILTER_DEFINE_BYTEWISE (filter_scalar.h) over the bytes above; NEON is baseline
 * on AArch64, so no target attribute. */
#define FILTER_NEON_DEFINE(SUF, T, VT, NS) FILTER_DEFINE_BYTEWISE(neon, , SUF, T, VT, vdupq_n_##NS)

FILTER_NEON_DEFINE(i64, int64_t, int64x2_t, s64)
FILTER_NEON_DEFINE(f64, double, float64x2_t, f64)
FILTER_NEON_DEFINE(i32, int32_t, int32x4_t, s32)
FILTER_NEON_DEFINE(f32, float, float32x4_t, f32)

#endif /* TSFILE_ISA_NEON */
#endif /* FILTER_NEON_H */
