/*
 * alp_avx512.h: AVX-512 (F/BW/VL/VBMI) decode kernels for ALP pages (see alp_scalar.h for the
 * format and the value rules; the encoder's value loop stays on the AVX2 kernel).
 *
 * Unpacking: a group of 8 DOUBLE values (64-bit lanes) of `width` <= 51 bits occupies exactly
 * `width` bytes, a group of 16 FLOAT values (32-bit lanes) exactly 2 * `width` <= 64 bytes, so one
 * 64-byte register holds a whole group and in every group each lane starts at the same byte
 * offset and bit shift (computed once per block). A group is one plain 64-byte load while those
 * 64 bytes lie within the packed bits and the ALP_GUARD bytes after them; the last few groups
 * take a byte-masked load of their own bytes only (a partial last group: a shorter mask and a
 * masked store), so nothing past what the kernel contract promises is read. `vpermb` moves each
 * lane's bytes into place,
 * a per-lane shift aligns them and a mask clears the neighbours' bits.
 *
 * Values: exactly the scalar kernels' operations in their order, (double)n * P * Ie and
 * (float)n * P * Ie, each product rounded separately (no fused multiply-add), so the results are
 * bit-identical to alp_decode_*_scalar. DOUBLE converts int64 -> double with the magic-number
 * trick of alp_avx2.h (exact for |n| < 2^51; other blocks take the scalar kernel); FLOAT uses
 * vcvtdq2ps (round to nearest, as the C conversion). Exceptions are patched by the page driver.
 *
 * Every function carries TSFILE_TARGET_AVX512; rows using them need TSFILE_NEED_AVX512_VBMI.
 */
#ifndef TSFILE_ALP_AVX512_H
#define TSFILE_ALP_AVX512_H

#include "alp_scalar.h"

#if TSFILE_ISA_AVX512

/* Mask of the first `nbytes` (<= 64) bytes of a 64-byte register. */
TSFILE_TARGET_AVX512 static inline __mmask64 alp_byte_mask64(size_t nbytes)
{
    return nbytes >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << nbytes) - 1);
}

/* How many of the first `groups` groups (`stride` bytes apart) can be loaded with a plain 64-byte
 * load: those whose 64 bytes end within the body's readable bytes (the packed bits and the
 * ALP_GUARD bytes the kernel contract promises). A masked byte load costs more than a plain one
 * (measured in a C loop over 64 blocks of 1024 doubles, width 14: 5.8 G values/s with masked
 * loads only, 6.6 G with plain loads; AVX2 5.0 G), so only the last
 * few groups of a block take it. */
TSFILE_TARGET_AVX512 static inline size_t alp_plain_load_groups(size_t count, int width,
                                                               size_t stride, size_t groups)
{
    size_t readable = alp_packed_bytes(count, width) + ALP_GUARD;
    size_t n = readable >= 64 ? (readable - 64) / stride + 1 : 0;
    return n < groups ? n : groups;
}

/* DOUBLE, 1 <= width <= 51 and all integers in (-2^51, 2^51); other blocks go scalar. */
TSFILE_TARGET_AVX512 static void alp_decode_f64_avx512(const uint8_t *body, size_t count,
                                                       int width, int64_t base, double P,
                                                       double Ie, double *out)
{
    if (width == 0 || !alp_f64_simd_safe(width, base)) {
        alp_decode_f64_scalar(body, count, width, base, P, Ie, out);
        return;
    }
    /* lane j takes bytes (j*width)>>3 .. +7 (bits past the group come in as zeros), shifted
     * right by (j*width)&7 */
    uint8_t idx[64];
    int64_t shift[8];
    for (int j = 0; j < 8; j++) {
        size_t bit = (size_t)j * (size_t)width;
        for (int b = 0; b < 8; b++) idx[8 * j + b] = (uint8_t)(((bit >> 3) + (size_t)b) & 63);
        shift[j] = (int64_t)(bit & 7);
    }
    const __m512i vidx = _mm512_loadu_si512((const void *)idx);
    const __m512i vshift = _mm512_loadu_si512((const void *)shift);
    const __m512i mask = _mm512_set1_epi64((int64_t)((UINT64_C(1) << width) - 1));
    const __m512i magic_base = _mm512_set1_epi64((int64_t)(ALP_MAGIC_F64_BITS + (uint64_t)base));
    const __m512d magic = _mm512_set1_pd(ALP_MAGIC_F64);
    const __m512d vp = _mm512_set1_pd(P), vi = _mm512_set1_pd(Ie);
    const __mmask64 group_bytes = alp_byte_mask64((size_t)width);
    size_t groups = count / 8, left = count % 8;
    const uint8_t *g = body;
/* one group: its 64 loaded bytes into lanes, aligned and masked, to doubles */
#define ALP_F64_GROUP(bytes)                                                                       \
    __m512i w = _mm512_permutexvar_epi8(vidx, (bytes));                                            \
    w = _mm512_and_si512(_mm512_srlv_epi64(w, vshift), mask);                                      \
    /* bits(1.5 * 2^52) + base + u is the double 1.5 * 2^52 + n; subtracting gives n */           \
    __m512d d = _mm512_sub_pd(_mm512_castsi512_pd(_mm512_add_epi64(w, magic_base)), magic);        \
    d = _mm512_mul_pd(_mm512_mul_pd(d, vp), vi);
    size_t plain = alp_plain_load_groups(count, width, (size_t)width, groups), k = 0;
    for (; k < plain; k++, g += width) {
        ALP_F64_GROUP(_mm512_loadu_si512((const void *)g))
        _mm512_storeu_pd(out + 8 * k, d);
    }
    for (; k < groups; k++, g += width) {
        ALP_F64_GROUP(_mm512_maskz_loadu_epi8(group_bytes, (const void *)g))
        _mm512_storeu_pd(out + 8 * k, d);
    }
    if (left) { /* the partial last group: only its packed bytes are read, its lanes stored */
        ALP_F64_GROUP(_mm512_maskz_loadu_epi8(alp_byte_mask64(alp_packed_bytes(left, width)), g))
        _mm512_mask_storeu_pd(out + 8 * groups, (__mmask8)((1u << left) - 1), d);
    }
#undef ALP_F64_GROUP
}

/* FLOAT, 1 <= width <= 32: lane j takes bytes rel..rel+3 (rel = (j*width)>>3) shifted right by
 * s = (j*width)&7, OR'd with byte rel+4 shifted left by 32 - s when its bits reach past 32 (a
 * shift of 32 clears the lane otherwise). */
TSFILE_TARGET_AVX512 static void alp_decode_f32_avx512(const uint8_t *body, size_t count,
                                                       int width, int32_t base, float P,
                                                       float Ie, float *out)
{
    if (width == 0) {
        alp_decode_f32_scalar(body, count, width, base, P, Ie, out);
        return;
    }
    uint8_t lo_idx[64], hi_idx[64];
    int32_t sr[16], sl[16];
    for (int j = 0; j < 16; j++) {
        size_t bit = (size_t)j * (size_t)width;
        size_t rel = bit >> 3;
        int s = (int)(bit & 7);
        for (int b = 0; b < 4; b++) {
            lo_idx[4 * j + b] = (uint8_t)((rel + (size_t)b) & 63);
            hi_idx[4 * j + b] = b == 0 ? (uint8_t)((rel + 4) & 63) : 0;
        }
        sr[j] = s;
        sl[j] = s + width > 32 ? 32 - s : 32;
    }
    const __m512i vlo = _mm512_loadu_si512((const void *)lo_idx);
    const __m512i vhi = _mm512_loadu_si512((const void *)hi_idx);
    const __m512i vsr = _mm512_loadu_si512((const void *)sr);
    const __m512i vsl = _mm512_loadu_si512((const void *)sl);
    /* the hi permute's bytes 1-3 of every lane are dropped (only byte 0 is wanted) */
    const __mmask64 hi_bytes = (__mmask64)0x1111111111111111ull;
    const __m512i mask = _mm512_set1_epi32(width == 32 ? -1 : (int32_t)((1u << width) - 1));
    const __m512i vb = _mm512_set1_epi32(base);
    const __m512 vp = _mm512_set1_ps(P), vi = _mm512_set1_ps(Ie);
    const __mmask64 group_bytes = alp_byte_mask64(2 * (size_t)width);
    size_t groups = count / 16, left = count % 16;
    const uint8_t *g = body;
/* one group: its 64 loaded bytes into lanes, aligned and masked, to floats */
#define ALP_F32_GROUP(bytes)                                                                   \
    __m512i w = (bytes);                                                                       \
    __m512i lo = _mm512_srlv_epi32(_mm512_permutexvar_epi8(vlo, w), vsr);                      \
    __m512i hi = _mm512_sllv_epi32(_mm512_maskz_permutexvar_epi8(hi_bytes, vhi, w), vsl);      \
    __m512i u = _mm512_and_si512(_mm512_or_si512(lo, hi), mask);                               \
    __m512 d = _mm512_cvtepi32_ps(_mm512_add_epi32(u, vb));                                    \
    d = _mm512_mul_ps(_mm512_mul_ps(d, vp), vi);
    size_t plain = alp_plain_load_groups(count, width, 2 * (size_t)width, groups), k = 0;
    for (; k < plain; k++, g += 2 * (size_t)width) {
        ALP_F32_GROUP(_mm512_loadu_si512((const void *)g))
        _mm512_storeu_ps(out + 16 * k, d);
    }
    for (; k < groups; k++, g += 2 * (size_t)width) {
        ALP_F32_GROUP(_mm512_maskz_loadu_epi8(group_bytes, (const void *)g))
        _mm512_storeu_ps(out + 16 * k, d);
    }
    if (left) { /* the partial last group: only its packed bytes are read, its lanes stored */
        ALP_F32_GROUP(_mm512_maskz_loadu_epi8(alp_byte_mask64(alp_packed_bytes(left, width)), g))
        _mm512_mask_storeu_ps(out + 16 * groups, (__mmask16)((1u << left) - 1), d);
    }
#undef ALP_F32_GROUP
}

#endif /* TSFILE_ISA_AVX512 */
#endif /* TSFILE_ALP_AVX512_H */
