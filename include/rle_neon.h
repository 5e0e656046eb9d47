/*
 * rle_neon.h: NEON unpacking of RLE bit-packed runs (AArch64, where NEON is baseline).
 *
 * Same design as rle_avx2.h with 128-bit vectors and the shared plans of bitpack_msb_plan.h: per
 * slot a 16-byte load, tbl (vqtbl1q_u8) to gather each value's bytes big-endian into its lane, and
 * vshl by per-lane counts (negative = right) to align and cut. The int64 widths whose values can
 * span nine bytes (the SPLIT64 plans) and groups whose loads would pass the end of the buffer are
 * left to the scalar code. rle_neon_init() must run once before the kernels.
 */
#ifndef TSFILE_RLE_NEON_H
#define TSFILE_RLE_NEON_H

#include "bitpack_msb_plan.h"
#include "rle_scalar.h"

#if TSFILE_ISA_NEON

RLE_DEFINE_MSB_PLANS(neon)

/* The two 64-bit values of LANES64 slot k. */
TSFILE_INLINE uint64x2_t rle_neon_lanes64(const uint8_t *g, const bitpack_msb_plan *pl, int k,
                                          int64x2_t rsh)
{
    uint8x16_t x = vqtbl1q_u8(vld1q_u8(g + pl->off[k]), vld1q_u8(pl->mask[k]));
    uint64x2_t v = vshlq_u64(vreinterpretq_u64_u8(x), vreinterpretq_s64_u64(vld1q_u64(pl->shl64[k])));
    return vshlq_u64(v, rsh);
}

static size_t rle_unpack_groups_i32_neon(const uint8_t *g, size_t room, int w, size_t ngroups,
                                         int32_t *out)
{
    const bitpack_msb_plan *pl = &rle_neon_plan32[w];
    const size_t n = rle_safe_groups((size_t)pl->reach, room, w, ngroups);
    if (pl->kind == BITPACK_MSB_LANES32) {
        const uint8x16_t m0 = vld1q_u8(pl->mask[0]), m1 = vld1q_u8(pl->mask[1]);
        const int32x4_t s0 = vreinterpretq_s32_u32(vld1q_u32(pl->shl32[0]));
        const int32x4_t s1 = vreinterpretq_s32_u32(vld1q_u32(pl->shl32[1]));
        const int32x4_t rsh = vdupq_n_s32(-(32 - w));
        const int o0 = pl->off[0], o1 = pl->off[1];
        for (size_t i = 0; i < n; i++, g += w) {
            uint32x4_t a = vreinterpretq_u32_u8(vqtbl1q_u8(vld1q_u8(g + o0), m0));
            uint32x4_t b = vreinterpretq_u32_u8(vqtbl1q_u8(vld1q_u8(g + o1), m1));
            vst1q_u32((uint32_t *)(out + 8 * i), vshlq_u32(vshlq_u32(a, s0), rsh));
            vst1q_u32((uint32_t *)(out + 8 * i + 4), vshlq_u32(vshlq_u32(b, s1), rsh));
        }
    } else {
        const int64x2_t rsh = vdupq_n_s64(-(64 - w));
        for (size_t i = 0; i < n; i++, g += w) {
            for (int k = 0; k < 4; k += 2) {
                uint32x2_t lo = vmovn_u64(rle_neon_lanes64(g, pl, k, rsh));
                uint32x2_t hi = vmovn_u64(rle_neon_lanes64(g, pl, k + 1, rsh));
                vst1q_u32((uint32_t *)(out + 8 * i + 2 * k), vcombine_u32(lo, hi));
            }
        }
    }
    return n;
}

static size_t rle_unpack_groups_i64_neon(const uint8_t *g, size_t room, int w, size_t ngroups,
                                         int64_t *out)
{
    const bitpack_msb_plan *pl = &rle_neon_plan64[w];
    if (pl->kind != BITPACK_MSB_LANES64) return 0; /* SPLIT64 widths: scalar */
    const size_t n = rle_safe_groups((size_t)pl->reach, room, w, ngroups);
    const int64x2_t rsh = vdupq_n_s64(-(64 - w));
    for (size_t i = 0; i < n; i++, g += w)
        for (int k = 0; k < 4; k++)
            vst1q_u64((uint64_t *)(out + 8 * i + 2 * k), rle_neon_lanes64(g, pl, k, rsh));
    return n;
}

RLE_DEFINE_DECODERS(neon, inline)

#endif /* TSFILE_ISA_NEON */
#endif /* TSFILE_RLE_NEON_H */
