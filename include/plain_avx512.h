/*
 * plain_avx512.h: AVX-512 (F/BW) byte swapping of PLAIN's big-endian fixed-width values into
 * native order: `vpshufb` on 512 bits, 8 INT64/DOUBLE or 16 FLOAT values a register, two
 * registers an iteration. The tail (fewer values than a register holds) is one byte-masked load
 * of exactly its bytes and a masked store, so nothing past the `count` values is read or written.
 * The avx512 row of plain_impls.h (TSFILE_TARGET_AVX512 on every function; the row needs
 * TSFILE_NEED_AVX512_VBMI as every avx512 row does). The caller has checked that src holds
 * `count` values.
 */
#ifndef TSFILE_PLAIN_AVX512_H
#define TSFILE_PLAIN_AVX512_H

#include "plain_scalar.h"

#if TSFILE_ISA_AVX512

/* Byte swaps of one `width`-byte value per lane of every 128-bit quarter. */
#define PLAIN_AVX512_REV64 \
    _mm512_broadcast_i32x4(_mm_setr_epi8(7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8))
#define PLAIN_AVX512_REV32 \
    _mm512_broadcast_i32x4(_mm_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12))

/* One definition for both widths: `per` values of `width` bytes a register. */
#define PLAIN_DEFINE_BSWAP_AVX512(NAME, T, WIDTH, REV, MASKSTORE)                                 \
    static TSFILE_TARGET_AVX512 void NAME(const uint8_t *src, T *out, size_t count)              \
    {                                                                                            \
        const __m512i rev = REV;                                                                 \
        const size_t per = 64 / (WIDTH);                                                         \
        size_t i = 0;                                                                            \
        for (; i + 2 * per <= count; i += 2 * per) {                                             \
            __m512i a = _mm512_loadu_si512((const void *)(src + (WIDTH) * i));                   \
            __m512i b = _mm512_loadu_si512((const void *)(src + (WIDTH) * i + 64));              \
            _mm512_storeu_si512((void *)(out + i), _mm512_shuffle_epi8(a, rev));                 \
            _mm512_storeu_si512((void *)(out + i + per), _mm512_shuffle_epi8(b, rev));           \
        }                                                                                        \
        for (; i < count; i += per) {                                                            \
            size_t left = count - i < per ? count - i : per;                                     \
            __mmask64 bytes = left * (WIDTH) >= 64 ? ~(__mmask64)0                               \
                                                   : (((__mmask64)1 << (left * (WIDTH))) - 1);   \
            __m512i a = _mm512_maskz_loadu_epi8(bytes, src + (WIDTH) * i);                       \
            MASKSTORE(out + i, (1u << left) - 1u, _mm512_shuffle_epi8(a, rev));                  \
        }                                                                                        \
    }

PLAIN_DEFINE_BSWAP_AVX512(plain_bswap64_avx512, uint64_t, 8, PLAIN_AVX512_REV64,
                          _mm512_mask_storeu_epi64)
PLAIN_DEFINE_BSWAP_AVX512(plain_bswap32_avx512, uint32_t, 4, PLAIN_AVX512_REV32,
                          _mm512_mask_storeu_epi32)

#endif /* TSFILE_ISA_AVX512 */
#endif /* TSFILE_PLAIN_AVX512_H */
