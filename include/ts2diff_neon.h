/*
 * ts2diff_neon.h: NEON TS_2DIFF block kernels (AArch64, where NEON is baseline).
 *
 * Same design as ts2diff_avx2.h with 128-bit vectors: per group of 8 deltas (w bytes), 16-byte
 * loads at the plan's offsets, tbl (vqtbl1q_u8) to place each delta's bytes big-endian in its lane,
 * vshl by per-lane counts (negative = right) to align and cut; add min_delta, log-step prefix sum
 * with vext, and a carry whose chain is one vector add per vector (the group total is broadcast
 * from the local scan). Width 0 is an arithmetic progression. Trailing deltas go through the
 * scalar kernel. ts2diff_neon_init() must run once before the kernels.
 */
#ifndef TS2DIFF_NEON_H
#define TS2DIFF_NEON_H

#include "bitpack_msb_plan.h"
#include "ts2diff_scalar.h"

#if TSFILE_ISA_NEON

static bitpack_msb_plan ts2diff_neon_plan32[33];
static bitpack_msb_plan ts2diff_neon_plan64[65];

static void ts2diff_neon_init(void)
{
    for (int w = 1; w <= 32; w++) bitpack_msb_plan_init(&ts2diff_neon_plan32[w], w, 32);
    for (int w = 1; w <= 64; w++) bitpack_msb_plan_init(&ts2diff_neon_plan64[w], w, 64);
}

/* Two 64-bit deltas of LANES64 slot k. */
TSFILE_INLINE uint64x2_t ts2diff_neon_lanes64(const uint8_t *p, const bitpack_msb_plan *pl, int k,
                                              int64x2_t rsh)
{
    uint8x16_t x = vqtbl1q_u8(vld1q_u8(p + pl->off[k]), vld1q_u8(pl->mask[k]));
    uint64x2_t v = vshlq_u64(vreinterpretq_u64_u8(x), vreinterpretq_s64_u64(vld1q_u64(pl->shl64[k])));
    return vshlq_u64(v, rsh);
}

/* One 64-bit delta (lane 0) of SPLIT64 slot j. */
TSFILE_INLINE uint64x2_t ts2diff_neon_split64(const uint8_t *p, const bitpack_msb_plan *pl, int j,
                                              int64x2_t rsh)
{
    const uint64x2_t x =
        vreinterpretq_u64_u8(vqtbl1q_u8(vld1q_u8(p + pl->off[j]), vld1q_u8(pl->mask[j])));
    const int64_t s = (int64_t)pl->shl64[j][0];
    const uint64x2_t hi = vshlq_u64(x, vdupq_n_s64(s));
    const uint64x2_t lo = vshlq_u64(vextq_u64(x, x, 1), vdupq_n_s64(s - 8)); /* ninth byte >> (8-s) */
    return vshlq_u64(vorrq_u64(hi, lo), rsh);
}

/* Deltas 2k and 2k+1 of the group as a vector, whatever the layout. */
TSFILE_INLINE uint64x2_t ts2diff_neon_pair64(const uint8_t *p, const bitpack_msb_plan *pl, int k,
                                             int64x2_t rsh)
{
    if (pl->kind == BITPACK_MSB_SPLIT64) {
        const uint64x2_t a = ts2diff_neon_split64(p, pl, 2 * k, rsh);
        const uint64x2_t b = ts2diff_neon_split64(p, pl, 2 * k + 1, rsh);
        return vzip1q_u64(a, b);
    }
    return ts2diff_neon_lanes64(p, pl, k, rsh);
}

TSFILE_INLINE uint64x2_t ts2diff_neon_scan64(uint64x2_t x)
{
    return vaddq_u64(x, vextq_u64(vdupq_n_u64(0), x, 1));
}

TSFILE_INLINE uint32x4_t ts2diff_neon_scan32(uint32x4_t x)
{
    const uint32x4_t z = vdupq_n_u32(0);
    x = vaddq_u32(x, vextq_u32(z, x, 3));
    return vaddq_u32(x, vextq_u32(z, x, 2));
}

static void ts2diff_decode_i64_neon(const uint8_t *packed, const uint8_t *end, int w, uint64_t min,
                                    uint64_t first, int64_t *out, size_t nd)
{
    out[0] = (int64_t)first;
    size_t done = 0;
    if (w == 0) {
        const uint64x2_t step = vdupq_n_u64(min * 2);
        uint64x2_t v = vcombine_u64(vcreate_u64(first + min), vcreate_u64(first + 2 * min));
        for (; done + 2 <= nd; done += 2) {
            vst1q_s64(out + 1 + done, vreinterpretq_s64_u64(v));
            v = vaddq_u64(v, step);
        }
    } else if (w <= 28 && ts2diff_neon_plan32[w].kind == BITPACK_MSB_LANES32) {
        /* Narrow deltas (as in the AVX2 kernel): unpack and scan a group's 8 deltas in 32-bit
         * lanes (8 deltas of <= 28 bits cannot overflow), widen, and add carries kept
         * pre-offset by the multiples of min_delta; the carry chain is one add per vector. */
        const bitpack_msb_plan *pl = &ts2diff_neon_plan32[w];
        const size_t ng = ts2diff_whole_groups(packed, end, nd, w, (size_t)pl->reach);
        const int32x4_t rsh = vdupq_n_s32(w - 32);
        const uint8x16_t m0 = vld1q_u8(pl->mask[0]), m1 = vld1q_u8(pl->mask[1]);
        const int32x4_t s0 = vreinterpretq_s32_u32(vld1q_u32(pl->shl32[0]));
        const int32x4_t s1 = vreinterpretq_s32_u32(vld1q_u32(pl->shl32[1]));
        const int off1 = pl->off[1];
        uint64x2_t k[4];
        for (int j = 0; j < 4; j++) {
            const uint64_t pair[2] = {first + (uint64_t)(2 * j + 1) * min,
                                      first + (uint64_t)(2 * j + 2) * min};
            k[j] = vld1q_u64(pair);
        }
        const uint64x2_t min8 = vdupq_n_u64(8 * min);
        for (size_t g = 0; g < ng; g++) {
            const uint8_t *p = packed + g * (size_t)w;
            int64_t *o = out + 1 + 8 * g;
            uint32x4_t a = vreinterpretq_u32_u8(vqtbl1q_u8(vld1q_u8(p), m0));
            uint32x4_t b = vreinterpretq_u32_u8(vqtbl1q_u8(vld1q_u8(p + off1), m1));
            a = ts2diff_neon_scan32(vshlq_u32(vshlq_u32(a, s0), rsh));
            b = ts2diff_neon_scan32(vshlq_u32(vshlq_u32(b, s1), rsh));
            b = vaddq_u32(b, vdupq_laneq_u32(a, 3));
            vst1q_s64(o, vreinterpretq_s64_u64(vaddq_u64(vmovl_u32(vget_low_u32(a)), k[0])));
            vst1q_s64(o + 2, vreinterpretq_s64_u64(vaddq_u64(vmovl_u32(vget_high_u32(a)), k[1])));
            vst1q_s64(o + 4, vreinterpretq_s64_u64(vaddq_u64(vmovl_u32(vget_low_u32(b)), k[2])));
            vst1q_s64(o + 6, vreinterpretq_s64_u64(vaddq_u64(vmovl_u32(vget_high_u32(b)), k[3])));
            const uint64x2_t step = vaddq_u64(vdupq_n_u64(vgetq_lane_u32(b, 3)), min8);
            for (int j = 0; j < 4; j++) k[j] = vaddq_u64(k[j], step);
        }
        done = ng * 8;
    } else {
        const bitpack_msb_plan *pl = &ts2diff_neon_plan64[w];
        const size_t ng = ts2diff_whole_groups(packed, end, nd, w, (size_t)pl->reach);
        const int64x2_t rsh = vdupq_n_s64(w - 64);
        const uint64x2_t minv = vdupq_n_u64(min);
        uint64x2_t carry = vdupq_n_u64(first);
        for (size_t g = 0; g < ng; g++) {
            const uint8_t *p = packed + g * (size_t)w;
            int64_t *o = out + 1 + 8 * g;
            for (int k = 0; k < 4; k++) {
                const uint64x2_t x = ts2diff_neon_scan64(vaddq_u64(ts2diff_neon_pair64(p, pl, k, rsh), minv));
                const uint64x2_t t = vdupq_laneq_u64(x, 1);
                vst1q_s64(o + 2 * k, vreinterpretq_s64_u64(vaddq_u64(x, carry)));
                carry = vaddq_u64(carry, t);
            }
        }
        done = ng * 8;
    }
    if (done < nd) ts2diff_run_u64(packed, end, w, min, (uint64_t)out[done], out, done, nd);
}

static void ts2diff_decode_i32_neon(const uint8_t *packed, const uint8_t *end, int w, uint32_t min,
                                    uint32_t first, int32_t *out, size_t nd)
{
    out[0] = (int32_t)first;
    size_t done = 0;
    if (w == 0) {
        const uint32_t init[4] = {first + min, first + 2 * min, first + 3 * min, first + 4 * min};
        const uint32x4_t step = vdupq_n_u32(min * 4);
        uint32x4_t v = vld1q_u32(init);
        for (; done + 4 <= nd; done += 4) {
            vst1q_s32(out + 1 + done, vreinterpretq_s32_u32(v));
            v = vaddq_u32(v, step);
        }
    } else {
        const bitpack_msb_plan *pl = &ts2diff_neon_plan32[w];
        const size_t ng = ts2diff_whole_groups(packed, end, nd, w, (size_t)pl->reach);
        const uint32x4_t minv = vdupq_n_u32(min);
        uint32x4_t carry = vdupq_n_u32(first);
        if (pl->kind == BITPACK_MSB_LANES32) {
            const int32x4_t rsh = vdupq_n_s32(w - 32);
            const uint8x16_t m0 = vld1q_u8(pl->mask[0]), m1 = vld1q_u8(pl->mask[1]);
            const int32x4_t s0 = vreinterpretq_s32_u32(vld1q_u32(pl->shl32[0]));
            const int32x4_t s1 = vreinterpretq_s32_u32(vld1q_u32(pl->shl32[1]));
            const int off1 = pl->off[1];
            for (size_t g = 0; g < ng; g++) {
                const uint8_t *p = packed + g * (size_t)w;
                uint32x4_t a = vreinterpretq_u32_u8(vqtbl1q_u8(vld1q_u8(p), m0));
                uint32x4_t b = vreinterpretq_u32_u8(vqtbl1q_u8(vld1q_u8(p + off1), m1));
                a = vshlq_u32(vshlq_u32(a, s0), rsh);
                b = vshlq_u32(vshlq_u32(b, s1), rsh);
                a = ts2diff_neon_scan32(vaddq_u32(a, minv));
                b = ts2diff_neon_scan32(vaddq_u32(b, minv));
                const uint32x4_t ta = vdupq_laneq_u32(a, 3), tb = vdupq_laneq_u32(b, 3);
                vst1q_s32(out + 1 + 8 * g, vreinterpretq_s32_u32(vaddq_u32(a, carry)));
                carry = vaddq_u32(carry, ta);
                vst1q_s32(out + 5 + 8 * g, vreinterpretq_s32_u32(vaddq_u32(b, carry)));
                carry = vaddq_u32(carry, tb);
            }
        } else { /* a delta can span 5 bytes: unpack in 64-bit lanes, then narrow */
            const int64x2_t rsh = vdupq_n_s64(w - 64);
            for (size_t g = 0; g < ng; g++) {
                const uint8_t *p = packed + g * (size_t)w;
                for (int h = 0; h < 2; h++) {
                    const uint64x2_t x0 = ts2diff_neon_lanes64(p, pl, 2 * h, rsh);
                    const uint64x2_t x1 = ts2diff_neon_lanes64(p, pl, 2 * h + 1, rsh);
                    uint32x4_t a = vcombine_u32(vmovn_u64(x0), vmovn_u64(x1));
                    a = ts2diff_neon_scan32(vaddq_u32(a, minv));
                    const uint32x4_t t = vdupq_laneq_u32(a, 3);
                    vst1q_s32(out + 1 + 8 * g + 4 * h, vreinterpretq_s32_u32(vaddq_u32(a, carry)));
                    carry = vaddq_u32(carry, t);
                }
            }
        }
        done = ng * 8;
    }
    if (done < nd) ts2diff_run_u32(packed, end, w, min, (uint32_t)out[done], out, done, nd);
}

/* ---- encoder: a block's min and max delta with NEON (the planning pass of encode) -------------- */

/* TS2DIFF_DEFINE_STATS_SIMD's operations on NEON (no 64-bit min / max: compare and select;
 * horizontal min / max for 32-bit lanes only, the two 64-bit lanes are compared directly). */
#define TS2DIFF_NEON_MIN_S64(a, b) vbslq_s64(vcgtq_s64((a), (b)), (b), (a))
#define TS2DIFF_NEON_MAX_S64(a, b) vbslq_s64(vcgtq_s64((b), (a)), (b), (a))
#define TS2DIFF_NEON_REDUCE_S32(T, LANES, lo, hi, dmin, dmax)                                      \
    (dmin = vminvq_s32(lo), dmax = vmaxvq_s32(hi))
#define TS2DIFF_NEON_REDUCE_S64(T, LANES, lo, hi, dmin, dmax)                                      \
    do {                                                                                           \
        const int64_t lo0 = vgetq_lane_s64(lo, 0), lo1 = vgetq_lane_s64(lo, 1);                    \
        const int64_t hi0 = vgetq_lane_s64(hi, 0), hi1 = vgetq_lane_s64(hi, 1);                    \
        dmin = lo0 < lo1 ? lo0 : lo1;                                                              \
        dmax = hi0 > hi1 ? hi0 : hi1;                                                              \
    } while (0)

TS2DIFF_DEFINE_STATS_SIMD(ts2diff_stats_i32_neon, static, int32_t, uint32_t, int32x4_t, 4,
                          vdupq_n_s32, vld1q_s32, vsubq_s32, vminq_s32, vmaxq_s32,
                          TS2DIFF_NEON_REDUCE_S32)
TS2DIFF_DEFINE_STATS_SIMD(ts2diff_stats_i64_neon, static, int64_t, uint64_t, int64x2_t, 2,
                          vdupq_n_s64, vld1q_s64, vsubq_s64, TS2DIFF_NEON_MIN_S64,
                          TS2DIFF_NEON_MAX_S64, TS2DIFF_NEON_REDUCE_S64)

TS2DIFF_DEFINE_PLAN(static, ts2diff_plan_i64_neon, int64_t, 24, ts2diff_stats_i64_neon)
TS2DIFF_DEFINE_PLAN(static, ts2diff_plan_i32_neon, int32_t, 16, ts2diff_stats_i32_neon)

#endif /* TSFILE_ISA_NEON */
#endif /* TS2DIFF_NEON_H */
