/*
 * alp_avx2.h: AVX2 kernels for ALP pages (see alp_scalar.h for the format and the value rules).
 *
 * Decode (fused): unpack the LSB-first stream without gathers, add the frame-of-reference base,
 * convert to floating point, multiply by 10^f and 10^-e; exceptions are patched by the caller.
 * Eight values always occupy exactly `width` bytes, so in each group of eight the byte offset and
 * bit shift of every lane are the same: they are computed once per block. Each 128-bit half of a
 * register is loaded from the byte where its first lane starts, `pshufb` moves every lane's bytes
 * into place, `vpsrlv` shifts and a mask clears the neighbours' bits.
 * DOUBLE converts int64 -> double with the magic-number trick (exact for |n| < 2^51: the driver
 * only calls this kernel for blocks where alp_f64_simd_safe() holds); FLOAT uses cvtdq2ps.
 *
 * Encode (value loop): the same classification as alp_classify_*: two multiplies, range check,
 * round-half-even (magic number / cvtps2dq), the decoder's two multiplies, a bitwise compare; the
 * exception bitmap from movemask and min/max of the kept integers.
 *
 * Every function carries TSFILE_TARGET_AVX2 (the module is compiled for baseline x86-64); the
 * caller picks its row from alp_impls.h (tsfile_pick_impl).
 */
#ifndef TSFILE_ALP_AVX2_H
#define TSFILE_ALP_AVX2_H

#include "alp_scalar.h"

#if TSFILE_ISA_AVX2

/* Per-block lane layout for 8 values of `width` bits: shuffle masks and shifts of two registers
 * (DOUBLE: lanes 0-3 and 4-7, 64-bit lanes) and the byte offsets of their four 128-bit halves. */
typedef struct {
    __m256i shuf[2], shift[2];
    size_t half[4];
} alp_lanes64_t;

TSFILE_TARGET_AVX2 static inline void alp_lanes64_init(alp_lanes64_t *L, int width)
{
    uint8_t idx[64];
    int64_t shift[8];
    alp_lanes64_tables(width, idx, shift, L->half);
    for (int r = 0; r < 2; r++) {
        L->shuf[r] = _mm256_loadu_si256((const __m256i *)(idx + 32 * r));
        L->shift[r] = _mm256_loadu_si256((const __m256i *)(shift + 4 * r));
    }
}

TSFILE_TARGET_AVX2 static inline __m256i alp_load_halves(const uint8_t *lo, const uint8_t *hi)
{
    return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)lo)),
                                   _mm_loadu_si128((const __m128i *)hi), 1);
}

/* DOUBLE, 1 <= width <= 51 and all integers in (-2^51, 2^51). */
TSFILE_TARGET_AVX2 static void alp_decode_f64_avx2(const uint8_t *body, size_t count, int width,
                                                   int64_t base, double P, double Ie, double *out)
{
    if (width == 0 || !alp_f64_simd_safe(width, base)) {
        alp_decode_f64_scalar(body, count, width, base, P, Ie, out);
        return;
    }
    alp_lanes64_t L;
    alp_lanes64_init(&L, width);
    const __m256i mask = _mm256_set1_epi64x((int64_t)((UINT64_C(1) << width) - 1));
    const __m256i magic_base = _mm256_set1_epi64x((int64_t)(ALP_MAGIC_F64_BITS + (uint64_t)base));
    const __m256d magic = _mm256_set1_pd(ALP_MAGIC_F64);
    const __m256d vp = _mm256_set1_pd(P), vi = _mm256_set1_pd(Ie);
    size_t groups = count / 8;
    const uint8_t *g = body;
    for (size_t k = 0; k < groups; k++, g += width) {
        for (int r = 0; r < 2; r++) {
            __m256i w = alp_load_halves(g + L.half[2 * r], g + L.half[2 * r + 1]);
            w = _mm256_shuffle_epi8(w, L.shuf[r]);
            w = _mm256_and_si256(_mm256_srlv_epi64(w, L.shift[r]), mask);
            /* bits(1.5 * 2^52) + base + u is the double 1.5 * 2^52 + n; subtracting gives n */
            __m256d d = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_add_epi64(w, magic_base)), magic);
            d = _mm256_mul_pd(_mm256_mul_pd(d, vp), vi);
            _mm256_storeu_pd(out + 8 * k + 4 * r, d);
        }
    }
    /* the last < 8 values: the scalar kernel from the first byte after the whole groups */
    alp_decode_f64_scalar(g, count - groups * 8, width, base, P, Ie, out + groups * 8);
}

/* FLOAT, 1 <= width <= 32: lanes 0-3 from the low half, 4-7 from the high half; a lane whose
 * bits cross 32 bits after the byte shift also takes its fifth byte. */
TSFILE_TARGET_AVX2 static void alp_decode_f32_avx2(const uint8_t *body, size_t count, int width,
                                                   int32_t base, float P, float Ie, float *out)
{
    if (width == 0) {
        alp_decode_f32_scalar(body, count, width, base, P, Ie, out);
        return;
    }
    uint8_t lo_m[32], hi_m[32];
    int32_t sr[8], sl[8];
    size_t half[2];
    alp_lanes32_tables(width, 0x80, lo_m, hi_m, sr, sl, half);
    const __m256i vlo = _mm256_loadu_si256((const __m256i *)lo_m);
    const __m256i vhi = _mm256_loadu_si256((const __m256i *)hi_m);
    const __m256i vsr = _mm256_loadu_si256((const __m256i *)sr);
    const __m256i vsl = _mm256_loadu_si256((const __m256i *)sl);
    const __m256i mask = _mm256_set1_epi32(width == 32 ? -1 : (int32_t)((1u << width) - 1));
    const __m256i vb = _mm256_set1_epi32(base);
    const __m256 vp = _mm256_set1_ps(P), vi = _mm256_set1_ps(Ie);
    size_t groups = count / 8;
    const uint8_t *g = body;
    for (size_t k = 0; k < groups; k++, g += width) {
        __m256i w = alp_load_halves(g + half[0], g + half[1]);
        __m256i lo = _mm256_srlv_epi32(_mm256_shuffle_epi8(w, vlo), vsr);
        __m256i hi = _mm256_sllv_epi32(_mm256_shuffle_epi8(w, vhi), vsl);
        __m256i u = _mm256_and_si256(_mm256_or_si256(lo, hi), mask);
        __m256 d = _mm256_cvtepi32_ps(_mm256_add_epi32(u, vb));
        d = _mm256_mul_ps(_mm256_mul_ps(d, vp), vi);
        _mm256_storeu_ps(out + 8 * k, d);
    }
    /* the last < 8 values: the scalar kernel from the first byte after the whole groups */
    alp_decode_f32_scalar(g, count - groups * 8, width, base, P, Ie, out + groups * 8);
}

/* ------------------------------------------------------------------ encoder value loops */

TSFILE_TARGET_AVX2 static size_t alp_analyze_f64_avx2(const double *v, size_t count, double E,
                                                      double F, double P, double Ie, int64_t *ints,
                                                      uint8_t *bitmap, int64_t *mn, int64_t *mx)
{
    const __m256d vE = _mm256_set1_pd(E), vF = _mm256_set1_pd(F);
    const __m256d vP = _mm256_set1_pd(P), vI = _mm256_set1_pd(Ie);
    const __m256d lim = _mm256_set1_pd(ALP_LIMIT_F64);
    const __m256d sign = _mm256_set1_pd(-0.0);
    const __m256d magic = _mm256_set1_pd(ALP_MAGIC_F64);
    const __m256i magic_bits = _mm256_set1_epi64x((int64_t)ALP_MAGIC_F64_BITS);
    const __m256i imax = _mm256_set1_epi64x(INT64_MAX), imin = _mm256_set1_epi64x(INT64_MIN);
    __m256i vmin = imax, vmax = imin;
    size_t exc = 0, i = 0;
    for (; i + 8 <= count; i += 8) {
        unsigned keep = 0;
        for (int r = 0; r < 2; r++) {
            __m256d x = _mm256_loadu_pd(v + i + 4 * r);
            __m256d y = _mm256_mul_pd(_mm256_mul_pd(x, vE), vF);
            __m256d inr = _mm256_cmp_pd(_mm256_andnot_pd(sign, y), lim, _CMP_LE_OQ);
            __m256d t = _mm256_add_pd(y, magic); /* rounds half-even to an integer */
            __m256i n = _mm256_sub_epi64(_mm256_castpd_si256(t), magic_bits);
            __m256d d = _mm256_mul_pd(_mm256_mul_pd(_mm256_sub_pd(t, magic), vP), vI);
            __m256i ok = _mm256_and_si256(
                _mm256_cmpeq_epi64(_mm256_castpd_si256(d), _mm256_castpd_si256(x)),
                _mm256_castpd_si256(inr));
            _mm256_storeu_si256((__m256i *)(ints + i + 4 * r), n);
            __m256i lo = _mm256_blendv_epi8(imax, n, ok);
            __m256i hi = _mm256_blendv_epi8(imin, n, ok);
            vmin = TSFILE_AVX2_MIN_EPI64(vmin, lo);
            vmax = TSFILE_AVX2_MAX_EPI64(vmax, hi);
            keep |= (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(ok)) << (4 * r);
        }
        uint8_t b = (uint8_t)(~keep & 0xff);
        bitmap[i >> 3] = b;
        exc += (size_t)__builtin_popcount(b);
    }
    int64_t a[4], z[4];
    _mm256_storeu_si256((__m256i *)a, vmin);
    _mm256_storeu_si256((__m256i *)z, vmax);
    return alp_analyze_f64_finish(a, z, 4, exc, v, i, count, E, F, P, Ie, ints, bitmap, mn, mx);
}

TSFILE_TARGET_AVX2 static size_t alp_analyze_f32_avx2(const float *v, size_t count, float E,
                                                      float F, float P, float Ie, int32_t *ints,
                                                      uint8_t *bitmap, int32_t *mn, int32_t *mx)
{
    const __m256 vE = _mm256_set1_ps(E), vF = _mm256_set1_ps(F);
    const __m256 vP = _mm256_set1_ps(P), vI = _mm256_set1_ps(Ie);
    const __m256 lim = _mm256_set1_ps(ALP_LIMIT_F32);
    const __m256 sign = _mm256_set1_ps(-0.0f);
    const __m256i imax = _mm256_set1_epi32(INT32_MAX), imin = _mm256_set1_epi32(INT32_MIN);
    __m256i vmin = imax, vmax = imin;
    size_t exc = 0, i = 0;
    for (; i + 8 <= count; i += 8) {
        __m256 x = _mm256_loadu_ps(v + i);
        __m256 y = _mm256_mul_ps(_mm256_mul_ps(x, vE), vF);
        __m256 inr = _mm256_cmp_ps(_mm256_andnot_ps(sign, y), lim, _CMP_LE_OQ);
        __m256i n = _mm256_cvtps_epi32(y); /* MXCSR default: round half-even */
        __m256 d = _mm256_mul_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(n), vP), vI);
        __m256i ok = _mm256_and_si256(
            _mm256_cmpeq_epi32(_mm256_castps_si256(d), _mm256_castps_si256(x)),
            _mm256_castps_si256(inr));
        _mm256_storeu_si256((__m256i *)(ints + i), n);
        vmin = _mm256_min_epi32(vmin, _mm256_blendv_epi8(imax, n, ok));
        vmax = _mm256_max_epi32(vmax, _mm256_blendv_epi8(imin, n, ok));
        uint8_t b = (uint8_t)(~(unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(ok)) & 0xff);
        bitmap[i >> 3] = b;
        exc += (size_t)__builtin_popcount(b);
    }
    int32_t a[8], z[8];
    _mm256_storeu_si256((__m256i *)a, vmin);
    _mm256_storeu_si256((__m256i *)z, vmax);
    return alp_analyze_f32_finish(a, z, 8, exc, v, i, count, E, F, P, Ie, ints, bitmap, mn, mx);
}

#endif /* TSFILE_ISA_AVX2 */
#endif /* TSFILE_ALP_AVX2_H */
