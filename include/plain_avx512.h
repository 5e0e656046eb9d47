/*
 * plain_avx512.h: AVX-512 (F/BW) byte swapping of PLAIN's big-endian fixed-width values into
 * native order: `vpshufb` on 512 bits, 8 INT64/DOUBLE or 16 FLOAT values a register, two
 * registers an iteration. The tail (fewer values than a register holds) is one byte-masked load
 * of exactly its bytes and a masked store, so nothing past the `count` values is read or written.
 * The avx512 row of plain_impls.h (TSFILE_TARGET_AVX512_NOVBMI on every function, so the row
 * needs only TSFILE_NEED_AVX512: neither the intrinsics nor the compiler may use VBMI). The caller
 * has checked that src holds `count` values.
 */
#ifndef TSFILE_PLAIN_AVX512_H
#define TSFILE_PLAIN_AVX512_H

#include "plain_scalar.h"

#if TSFILE_ISA_AVX512

/* PLAIN_DEFINE_BSWAP's operations: vpshufb reversing each 8- or 4-byte value of every 128-bit
 * quarter, and a tail of one masked load and store (BW's byte mask, F's lane mask). The tail
 * runs inside PLAIN_DEFINE_BSWAP's function and uses its `per` and `width`. */
#define PLAIN_AVX512_LOAD(p) _mm512_loadu_si512((const void *)(p))
#define PLAIN_AVX512_STORE(p, x) _mm512_storeu_si512((void *)(p), (x))
#define PLAIN_AVX512_SWAP64(x)                                                                     \
    _mm512_shuffle_epi8((x), _mm512_broadcast_i32x4(_mm_setr_epi8(7, 6, 5, 4, 3, 2, 1, 0, 15, 14, \
                                                                  13, 12, 11, 10, 9, 8)))
#define PLAIN_AVX512_SWAP32(x)                                                                     \
    _mm512_shuffle_epi8((x), _mm512_broadcast_i32x4(_mm_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, \
                                                                  9, 8, 15, 14, 13, 12)))
#define PLAIN_AVX512_MASKED_TAIL(src, out, i, count, BITS)                                         \
    for (; i < count; i += per) {                                                                  \
        const size_t left = count - i < per ? count - i : per;                                     \
        const __mmask64 bytes = left * width >= 64 ? ~(__mmask64)0                                 \
                                                   : (((__mmask64)1 << (left * width)) - 1);       \
        const __m512i a = _mm512_maskz_loadu_epi8(bytes, src + width * i);                         \
        _mm512_mask_storeu_epi##BITS(out + i, (1u << left) - 1u, PLAIN_AVX512_SWAP##BITS(a));      \
    }

PLAIN_DEFINE_BSWAP(plain_bswap64_avx512, TSFILE_TARGET_AVX512_NOVBMI, 64, 64, __m512i,
                   PLAIN_AVX512_LOAD, PLAIN_AVX512_STORE, PLAIN_AVX512_SWAP64,
                   PLAIN_AVX512_MASKED_TAIL)
PLAIN_DEFINE_BSWAP(plain_bswap32_avx512, TSFILE_TARGET_AVX512_NOVBMI, 32, 64, __m512i,
                   PLAIN_AVX512_LOAD, PLAIN_AVX512_STORE, PLAIN_AVX512_SWAP32,
                   PLAIN_AVX512_MASKED_TAIL)

#endif /* TSFILE_ISA_AVX512 */
#endif /* TSFILE_PLAIN_AVX512_H */
