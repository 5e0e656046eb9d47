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

/* PLAIN_DEFINE_BSWAP's operations: pshufb reversing each 8- or 4-byte value of both lanes. */
#define PLAIN_AVX2_LOAD(p) _mm256_loadu_si256((const __m256i *)(p))
#define PLAIN_AVX2_STORE(p, x) _mm256_storeu_si256((__m256i *)(p), (x))
#define PLAIN_AVX2_SWAP64(x)                                                                       \
    _mm256_shuffle_epi8((x), _mm256_setr_epi8(7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9,  \
                                              8, 7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, \
                                              9, 8))
#define PLAIN_AVX2_SWAP32(x)                                                                       \
    _mm256_shuffle_epi8((x), _mm256_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13,  \
                                              12, 3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14,  \
                                              13, 12))

PLAIN_DEFINE_BSWAP(plain_bswap64_avx2, TSFILE_TARGET_AVX2, 64, 32, __m256i, PLAIN_AVX2_LOAD,
                   PLAIN_AVX2_STORE, PLAIN_AVX2_SWAP64, PLAIN_BSWAP_SCALAR_TAIL)
PLAIN_DEFINE_BSWAP(plain_bswap32_avx2, TSFILE_TARGET_AVX2, 32, 32, __m256i, PLAIN_AVX2_LOAD,
                   PLAIN_AVX2_STORE, PLAIN_AVX2_SWAP32, PLAIN_BSWAP_SCALAR_TAIL)

#endif /* TSFILE_ISA_AVX2 */
#endif /* TSFILE_PLAIN_AVX2_H */
