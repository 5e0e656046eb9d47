/*
 * alp_neon.h: NEON kernels for ALP pages (AArch64; see alp_scalar.h for the rules and
 * alp_avx2.h for the unpacking scheme, which is the same here with 128-bit registers).
 *
 * Decode: eight values take exactly `width` bytes, so each register's lanes sit at fixed byte
 * offsets and bit shifts within the group: one 16-byte load per register, `tbl` moves the bytes
 * of each lane into place, `ushl` by a negative count shifts right, a mask clears the neighbours.
 * int64 -> double uses vcvtq_f64_s64 (exact rounding like the scalar cast), then two multiplies.
 * Encode: two multiplies, |x| range check, vcvtn (round half-even), the decoder's multiplies and a
 * bitwise compare, exactly as alp_classify_*.
 */
#ifndef TSFILE_ALP_NEON_H
#define TSFILE_ALP_NEON_H

#include "alp_scalar.h"

#if TSFILE_ISA_NEON

/* DOUBLE, 1 <= width <= 51 (the driver's alp_f64_simd_safe() range, shared with AVX2). */
static void alp_decode_f64_neon(const uint8_t *body, size_t count, int width, int64_t base,
                                double P, double Ie, double *out)
{
    if (width == 0 || !alp_f64_simd_safe(width, base)) {
        alp_decode_f64_scalar(body, count, width, base, P, Ie, out);
        return;
    }
    uint8_t tb[64];
    int64_t sh[8];
    size_t half[4];
    alp_lanes64_tables(width, tb, sh, half);
    uint8x16_t vt[4];
    int64x2_t vs[4];
    for (int h = 0; h < 4; h++) {
        vt[h] = vld1q_u8(tb + 16 * h);
        vs[h] = vnegq_s64(vld1q_s64(sh + 2 * h)); /* ushl by a negative count shifts right */
    }
    const uint64x2_t mask = vdupq_n_u64((UINT64_C(1) << width) - 1);
    const int64x2_t vb = vdupq_n_s64(base);
    const float64x2_t vp = vdupq_n_f64(P), vi = vdupq_n_f64(Ie);
    size_t groups = count / 8;
    const uint8_t *g = body;
    for (size_t k = 0; k < groups; k++, g += width) {
        for (int h = 0; h < 4; h++) {
            uint8x16_t w = vqtbl1q_u8(vld1q_u8(g + half[h]), vt[h]);
            uint64x2_t u = vandq_u64(vshlq_u64(vreinterpretq_u64_u8(w), vs[h]), mask);
            int64x2_t n = vaddq_s64(vreinterpretq_s64_u64(u), vb);
            float64x2_t d = vmulq_f64(vmulq_f64(vcvtq_f64_s64(n), vp), vi);
            vst1q_f64(out + 8 * k + 2 * h, d);
        }
    }
    /* the last < 8 values: the scalar kernel from the first byte after the whole groups */
    alp_decode_f64_scalar(g, count - groups * 8, width, base, P, Ie, out + groups * 8);
}

/* FLOAT, 1 <= width <= 32. */
static void alp_decode_f32_neon(const uint8_t *body, size_t count, int width, int32_t base,
                                float P, float Ie, float *out)
{
    if (width == 0) {
        alp_decode_f32_scalar(body, count, width, base, P, Ie, out);
        return;
    }
    uint8_t lo_m[32], hi_m[32];
    int32_t sr[8], sl[8];
    size_t half[2];
    alp_lanes32_tables(width, 0xff, lo_m, hi_m, sr, sl, half);
    uint8x16_t vlo[2], vhi[2];
    int32x4_t vsr[2], vsl[2];
    for (int h = 0; h < 2; h++) {
        vlo[h] = vld1q_u8(lo_m + 16 * h);
        vhi[h] = vld1q_u8(hi_m + 16 * h);
        vsr[h] = vnegq_s32(vld1q_s32(sr + 4 * h)); /* ushl by a negative count shifts right */
        vsl[h] = vld1q_s32(sl + 4 * h); /* a shift by 32 gives 0: ushl of a 32-bit lane */
    }
    const uint32x4_t mask = vdupq_n_u32(width == 32 ? 0xffffffffu : ((1u << width) - 1));
    const int32x4_t vb = vdupq_n_s32(base);
    const float32x4_t vp = vdupq_n_f32(P), vi = vdupq_n_f32(Ie);
    size_t groups = count / 8;
    const uint8_t *g = body;
    for (size_t k = 0; k < groups; k++, g += width) {
        for (int h = 0; h < 2; h++) {
            uint8x16_t w = vld1q_u8(g + half[h]);
            uint32x4_t lo = vshlq_u32(vreinterpretq_u32_u8(vqtbl1q_u8(w, vlo[h])), vsr[h]);
            uint32x4_t hi = vshlq_u32(vreinterpretq_u32_u8(vqtbl1q_u8(w, vhi[h])), vsl[h]);
            uint32x4_t u = vandq_u32(vorrq_u32(lo, hi), mask);
            int32x4_t n = vaddq_s32(vreinterpretq_s32_u32(u), vb);
            float32x4_t d = vmulq_f32(vmulq_f32(vcvtq_f32_s32(n), vp), vi);
            vst1q_f32(out + 8 * k + 4 * h, d);
        }
    }
    /* the last < 8 values: the scalar kernel from the first byte after the whole groups */
    alp_decode_f32_scalar(g, count - groups * 8, width, base, P, Ie, out + groups * 8);
}

static size_t alp_analyze_f64_neon(const double *v, size_t count, double E, double F, double P,
                                   double Ie, int64_t *ints, uint8_t *bitmap, int64_t *mn, int64_t *mx)
{
    const float64x2_t vE = vdupq_n_f64(E), vF = vdupq_n_f64(F);
    const float64x2_t vP = vdupq_n_f64(P), vI = vdupq_n_f64(Ie);
    const float64x2_t lim = vdupq_n_f64(ALP_LIMIT_F64);
    const int64x2_t imax = vdupq_n_s64(INT64_MAX), imin = vdupq_n_s64(INT64_MIN);
    int64x2_t vmin = imax, vmax = imin;
    size_t exc = 0, i = 0;
    for (; i + 8 <= count; i += 8) {
        unsigned keep = 0;
        for (int r = 0; r < 4; r++) {
            float64x2_t x = vld1q_f64(v + i + 2 * r);
            float64x2_t y = vmulq_f64(vmulq_f64(x, vE), vF);
            uint64x2_t inr = vcaleq_f64(y, lim); /* |y| <= 2^49, false for NaN */
            int64x2_t n = vcvtnq_s64_f64(y);
            float64x2_t d = vmulq_f64(vmulq_f64(vcvtq_f64_s64(n), vP), vI);
            uint64x2_t ok = vandq_u64(vceqq_u64(vreinterpretq_u64_f64(d), vreinterpretq_u64_f64(x)), inr);
            vst1q_s64(ints + i + 2 * r, n);
            int64x2_t lo = vbslq_s64(ok, n, imax);
            int64x2_t hi = vbslq_s64(ok, n, imin);
            vmin = vbslq_s64(vcgtq_s64(vmin, lo), lo, vmin);
            vmax = vbslq_s64(vcgtq_s64(hi, vmax), hi, vmax);
            keep |= (unsigned)(vgetq_lane_u64(ok, 0) & 1) << (2 * r);
            keep |= (unsigned)(vgetq_lane_u64(ok, 1) & 1) << (2 * r + 1);
        }
        uint8_t b = (uint8_t)(~keep & 0xff);
        bitmap[i >> 3] = b;
        exc += (size_t)__builtin_popcount(b);
    }
    int64_t a[2], z[2];
    vst1q_s64(a, vmin);
    vst1q_s64(z, vmax);
    return alp_analyze_f64_finish(a, z, 2, exc, v, i, count, E, F, P, Ie, ints, bitmap, mn, mx);
}

static size_t alp_analyze_f32_neon(const float *v, size_t count, float E, float F, float P,
                                   float Ie, int32_t *ints, uint8_t *bitmap, int32_t *mn, int32_t *mx)
{
    const float32x4_t vE = vdupq_n_f32(E), vF = vdupq_n_f32(F);
    const float32x4_t vP = vdupq_n_f32(P), vI = vdupq_n_f32(Ie);
    const float32x4_t lim = vdupq_n_f32(ALP_LIMIT_F32);
    const int32x4_t imax = vdupq_n_s32(INT32_MAX), imin = vdupq_n_s32(INT32_MIN);
    static const uint32_t bitw[2][4] = {{1, 2, 4, 8}, {16, 32, 64, 128}};
    int32x4_t vmin = imax, vmax = imin;
    size_t exc = 0, i = 0;
    for (; i + 8 <= count; i += 8) {
        unsigned keep = 0;
        for (int r = 0; r < 2; r++) {
            float32x4_t x = vld1q_f32(v + i + 4 * r);
            float32x4_t y = vmulq_f32(vmulq_f32(x, vE), vF);
            uint32x4_t inr = vcaleq_f32(y, lim);
            int32x4_t n = vcvtnq_s32_f32(y);
            float32x4_t d = vmulq_f32(vmulq_f32(vcvtq_f32_s32(n), vP), vI);
            uint32x4_t ok = vandq_u32(vceqq_u32(vreinterpretq_u32_f32(d), vreinterpretq_u32_f32(x)), inr);
            vst1q_s32(ints + i + 4 * r, n);
            vmin = vminq_s32(vmin, vbslq_s32(ok, n, imax));
            vmax = vmaxq_s32(vmax, vbslq_s32(ok, n, imin));
            keep |= vaddvq_u32(vandq_u32(ok, vld1q_u32(bitw[r])));
        }
        uint8_t b = (uint8_t)(~keep & 0xff);
        bitmap[i >> 3] = b;
        exc += (size_t)__builtin_popcount(b);
    }
    const int32_t lo = vminvq_s32(vmin), hi = vmaxvq_s32(vmax);
    return alp_analyze_f32_finish(&lo, &hi, 1, exc, v, i, count, E, F, P, Ie, ints, bitmap, mn, mx);
}

#endif /* TSFILE_ISA_NEON */
#endif /* TSFILE_ALP_NEON_H */
