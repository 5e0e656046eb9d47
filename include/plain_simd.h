/*
 * plain_simd.h: SIMD byte swapping for PLAIN's big-endian fixed-width values (INT64/TIMESTAMP,
 * DOUBLE: 8 bytes; FLOAT: 4 bytes). AVX2 on x86-64 (per-function target attribute, used only when
 * the CPU has it), NEON on arm64; both under ISA-neutral names:
 *
 *   PLAIN_HAS_SIMD_KERNELS         1 when a SIMD family is compiled in
 *   plain_bswap64_simd(src, out, count) / plain_bswap32_simd(src, out, count)
 *
 * The caller has checked that src holds count values. Without SIMD the names are the scalar loops.
 */
#ifndef TSFILE_PLAIN_SIMD_H
#define TSFILE_PLAIN_SIMD_H

#include "plain_scalar.h"

static inline void plain_bswap64_scalar(const uint8_t *src, uint64_t *out, size_t count)
{
    for (size_t i = 0; i < count; i++) out[i] = tsc_load_be64(src + 8 * i);
}

static inline void plain_bswap32_scalar(const uint8_t *src, uint32_t *out, size_t count)
{
    for (size_t i = 0; i < count; i++) out[i] = tsc_load_be32(src + 4 * i);
}

#if TSFILE_ISA_AVX2

#define PLAIN_HAS_SIMD_KERNELS 1

static TSFILE_TARGET_AVX2 void plain_bswap64_avx2(const uint8_t *src, uint64_t *out, size_t count)
{
    const __m256i rev = _mm256_setr_epi8(7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6,
                                         5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8);
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(src + 8 * i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(src + 8 * i + 32));
        _mm256_storeu_si256((__m256i *)(out + i), _mm256_shuffle_epi8(a, rev));
        _mm256_storeu_si256((__m256i *)(out + i + 4), _mm256_shuffle_epi8(b, rev));
    }
    for (; i < count; i++) out[i] = tsc_load_be64(src + 8 * i);
}

static TSFILE_TARGET_AVX2 void plain_bswap32_avx2(const uint8_t *src, uint32_t *out, size_t count)
{
    const __m256i rev = _mm256_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12, 3, 2,
                                         1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12);
    size_t i = 0;
    for (; i + 16 <= count; i += 16) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(src + 4 * i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(src + 4 * i + 32));
        _mm256_storeu_si256((__m256i *)(out + i), _mm256_shuffle_epi8(a, rev));
        _mm256_storeu_si256((__m256i *)(out + i + 8), _mm256_shuffle_epi8(b, rev));
    }
    for (; i < count; i++) out[i] = tsc_load_be32(src + 4 * i);
}

#  define plain_bswap64_simd plain_bswap64_avx2
#  define plain_bswap32_simd plain_bswap32_avx2

#elif TSFILE_ISA_NEON

#define PLAIN_HAS_SIMD_KERNELS 1

static inline void plain_bswap64_neon(const uint8_t *src, uint64_t *out, size_t count)
{
    size_t i = 0;
    for (; i + 4 <= count; i += 4) {
        uint8x16_t a = vld1q_u8(src + 8 * i), b = vld1q_u8(src + 8 * i + 16);
        vst1q_u8((uint8_t *)(out + i), vrev64q_u8(a));
        vst1q_u8((uint8_t *)(out + i + 2), vrev64q_u8(b));
    }
    for (; i < count; i++) out[i] = tsc_load_be64(src + 8 * i);
}

static inline void plain_bswap32_neon(const uint8_t *src, uint32_t *out, size_t count)
{
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        uint8x16_t a = vld1q_u8(src + 4 * i), b = vld1q_u8(src + 4 * i + 16);
        vst1q_u8((uint8_t *)(out + i), vrev32q_u8(a));
        vst1q_u8((uint8_t *)(out + i + 4), vrev32q_u8(b));
    }
    for (; i < count; i++) out[i] = tsc_load_be32(src + 4 * i);
}

#  define plain_bswap64_simd plain_bswap64_neon
#  define plain_bswap32_simd plain_bswap32_neon

#else

#define PLAIN_HAS_SIMD_KERNELS 0
#  define plain_bswap64_simd plain_bswap64_scalar
#  define plain_bswap32_simd plain_bswap32_scalar

#endif

#endif /* TSFILE_PLAIN_SIMD_H */
