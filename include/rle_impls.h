/*
 * rle_impls.h: the RLE implementation table (the per-ISA dispatch idiom of tsfile_isa.h).
 *
 * One row per ISA compiled into this build, best first, the scalar row last: its name, level and
 * the CPU features all its kernels need, then the kernels: the INT32 and INT64 batch decoders
 * (same contract as rle_decode_*_scalar; they differ only in how whole groups of a bit-packed run
 * are unpacked). BOOLEAN output and RLE runs are scalar code in every row. Callers pick a row once
 * per ISA level with rle_pick_impl() (rle.pyx does it at import, so a run-time switch of level is
 * an array lookup) after running every row's init once.
 */
#ifndef TSFILE_RLE_IMPLS_H
#define TSFILE_RLE_IMPLS_H

#include "rle_avx2.h"
#include "rle_avx512.h"
#include "rle_neon.h"
#include "rle_scalar.h"

typedef ptrdiff_t (*rle_decode_i32_fn)(const uint8_t *src, size_t n, int32_t *out, size_t count,
                                       size_t *err_at);
typedef ptrdiff_t (*rle_decode_i64_fn)(const uint8_t *src, size_t n, int64_t *out, size_t count,
                                       size_t *err_at);

typedef struct {
    tsfile_impl_head head;
    void (*init)(void); /* builds the row's shuffle plans; run once before its kernels */
    rle_decode_i32_fn decode_i32;
    rle_decode_i64_fn decode_i64;
} rle_impl;

static void rle_scalar_init(void) {}

static const rle_impl rle_impls[] = {
#if TSFILE_ISA_AVX512
    {{"avx512", TSFILE_LEVEL_AVX512, TSFILE_NEED_AVX512_VBMI}, rle_avx512_init,
     rle_decode_i32_avx512, rle_decode_i64_avx512},
#endif
#if TSFILE_ISA_AVX2
    {{"avx2", TSFILE_LEVEL_AVX2, TSFILE_NEED_AVX2}, rle_avx2_init, rle_decode_i32_avx2,
     rle_decode_i64_avx2},
#endif
#if TSFILE_ISA_NEON
    {{"neon", TSFILE_LEVEL_NEON, 0}, rle_neon_init, rle_decode_i32_neon, rle_decode_i64_neon},
#endif
    {{"scalar", TSFILE_LEVEL_SCALAR, 0}, rle_scalar_init, rle_decode_i32_scalar,
     rle_decode_i64_scalar},
};

#define RLE_N_IMPLS (sizeof rle_impls / sizeof rle_impls[0])

/* Run every row's init (once, before any kernel). */
static inline void rle_init_impls(void)
{
    for (size_t i = 0; i < RLE_N_IMPLS; i++) rle_impls[i].init();
}

/* The row to run at ISA `level` on a CPU with `features`. */
static inline size_t rle_pick_impl(int level, unsigned features)
{
    return tsfile_pick_impl(rle_impls, sizeof rle_impls[0], RLE_N_IMPLS, level, features);
}

#endif /* TSFILE_RLE_IMPLS_H */
