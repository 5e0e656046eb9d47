/*
 * plain_avx2.h: AVX2 byte swapping of PLAIN's big-endian fixed-width values (INT64/TIMESTAMP and
 * DOUBLE: 8 bytes; FLOAT: 4 bytes) into native order; the avx2 row of plain_impls.h (compiled
 * per function with TSFILE_TARGET_AVX2, run only when the CPU has TSFILE_NEED_AVX2). The caller
 * has checked that src holds `count` values; the tail is scalar.
 */
#ifndef TSFILE_PLAIN_AVX2_H
#define TSFILE_PLAIN_AVX2_H

#include "plain_scalar.h"

#if TSFILE_ISA_AVX2

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
    plain_bswap64_scalar(src + 8 * i, out + i, count - i);
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
    plain_bswap32_scalar(src + 4 * i, out + i, count - i);
}

#endif /* TSFILE_ISA_AVX2 */
#endif /* TSFILE_PLAIN_AVX2_H */
