/*
 * rle_simd.h: the RLE SIMD kernels of this build under ISA-neutral names, for the Cython module.
 *
 *   RLE_HAS_SIMD_KERNELS   1 when AVX2 (x86-64) or NEON (arm64) kernels are compiled in
 *   rle_simd_init()        prepares their shuffle plans (call once)
 *   rle_decode_i32_simd / rle_decode_i64_simd   same contract as the *_scalar decoders
 *
 * Without SIMD kernels the names fall back to the scalar decoders (never chosen then: the module
 * reports HAS_SIMD = False and "simd" raises SimdUnavailableError).
 */
#ifndef TSFILE_RLE_SIMD_H
#define TSFILE_RLE_SIMD_H

#include "rle_avx2.h"
#include "rle_neon.h"

#if TSFILE_ISA_AVX2
#  define rle_simd_init rle_avx2_init
#  define rle_decode_i32_simd rle_decode_i32_avx2
#  define rle_decode_i64_simd rle_decode_i64_avx2
#elif TSFILE_ISA_NEON
#  define rle_simd_init rle_neon_init
#  define rle_decode_i32_simd rle_decode_i32_neon
#  define rle_decode_i64_simd rle_decode_i64_neon
#else
#  define RLE_HAS_SIMD_KERNELS 0
static inline void rle_simd_init(void) {}
#  define rle_decode_i32_simd rle_decode_i32_scalar
#  define rle_decode_i64_simd rle_decode_i64_scalar
#endif

#endif /* TSFILE_RLE_SIMD_H */
