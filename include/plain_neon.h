/*
 * plain_neon.h: NEON byte swapping of PLAIN's big-endian fixed-width values (AArch64, where NEON
 * is baseline); the neon row of plain_impls.h. Same contract as plain_avx2.h.
 */
#ifndef TSFILE_PLAIN_NEON_H
#define TSFILE_PLAIN_NEON_H

#include "plain_scalar.h"

#if TSFILE_ISA_NEON

/* PLAIN_DEFINE_BSWAP's operations: vrev64 / vrev32 reverse the bytes of each value. */
#define PLAIN_NEON_STORE(p, x) vst1q_u8((uint8_t *)(p), (x))

PLAIN_DEFINE_BSWAP(plain_bswap64_neon, , 64, 16, uint8x16_t, vld1q_u8, PLAIN_NEON_STORE,
                   vrev64q_u8, PLAIN_BSWAP_SCALAR_TAIL)
PLAIN_DEFINE_BSWAP(plain_bswap32_neon, , 32, 16, uint8x16_t, vld1q_u8, PLAIN_NEON_STORE,
                   vrev32q_u8, PLAIN_BSWAP_SCALAR_TAIL)

#endif /* TSFILE_ISA_NEON */
#endif /* TSFILE_PLAIN_NEON_H */
