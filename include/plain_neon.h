/*
 * plain_neon.h: NEON byte swapping of PLAIN's big-endian fixed-width values (AArch64, where NEON
 * is baseline); the neon row of plain_impls.h. Same contract as plain_avx2.h.
 */
#ifndef TSFILE_PLAIN_NEON_H
#define TSFILE_PLAIN_NEON_H

#include "plain_scalar.h"

#if TSFILE_ISA_NEON

static void plain_bswap64_neon(const uint8_t *src, uint64_t *out, size_t count)
{
    size_t i = 0;
    for (; i + 4 <= count; i += 4) {
        uint8x16_t a = vld1q_u8(src + 8 * i), b = vld1q_u8(src + 8 * i + 16);
        vst1q_u8((uint8_t *)(out + i), vrev64q_u8(a));
        vst1q_u8((uint8_t *)(out + i + 2), vrev64q_u8(b));
    }
    plain_bswap64_scalar(src + 8 * i, out + i, count - i);
}

static void plain_bswap32_neon(const uint8_t *src, uint32_t *out, size_t count)
{
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        uint8x16_t a = vld1q_u8(src + 4 * i), b = vld1q_u8(src + 4 * i + 16);
        vst1q_u8((uint8_t *)(out + i), vrev32q_u8(a));
        vst1q_u8((uint8_t *)(out + i + 4), vrev32q_u8(b));
    }
    plain_bswap32_scalar(src + 4 * i, out + i, count - i);
}

#endif /* TSFILE_ISA_NEON */
#endif /* TSFILE_PLAIN_NEON_H */
