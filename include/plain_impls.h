/*
 * plain_impls.h: the PLAIN implementation table (the per-ISA dispatch idiom of tsfile_isa.h).
 *
 * One row per ISA compiled into this build, best first, the scalar row last: its name, level and
 * the CPU features its kernels need, then the kernels: byte swaps of the big-endian fixed-width
 * values (INT64/TIMESTAMP and DOUBLE as 8-byte words, FLOAT as 4-byte words) into native order.
 * BOOLEAN, INT32 svarints and binary values are scalar code in every row. Callers pick a row once
 * per ISA level with plain_pick_impl() (plain.pyx does it at import) and check that the source
 * holds `count` values before calling a kernel.
 */
#ifndef TSFILE_PLAIN_IMPLS_H
#define TSFILE_PLAIN_IMPLS_H

#include "plain_avx2.h"
#include "plain_avx512.h"
#include "plain_neon.h"
#include "plain_scalar.h"

typedef void (*plain_bswap64_fn)(const uint8_t *src, uint64_t *out, size_t count);
typedef void (*plain_bswap32_fn)(const uint8_t *src, uint32_t *out, size_t count);

typedef struct {
    tsfile_impl_head head;
    plain_bswap64_fn bswap64;
    plain_bswap32_fn bswap32;
} plain_impl;

static const plain_impl plain_impls[] = {
#if TSFILE_ISA_AVX512
    {{"avx512", TSFILE_LEVEL_AVX512, TSFILE_NEED_AVX512}, plain_bswap64_avx512,
     plain_bswap32_avx512},
#endif
#if TSFILE_ISA_AVX2
    {{"avx2", TSFILE_LEVEL_AVX2, TSFILE_NEED_AVX2}, plain_bswap64_avx2, plain_bswap32_avx2},
#endif
#if TSFILE_ISA_NEON
    {{"neon", TSFILE_LEVEL_NEON, 0}, plain_bswap64_neon, plain_bswap32_neon},
#endif
    {{"scalar", TSFILE_LEVEL_SCALAR, 0}, plain_bswap64_scalar, plain_bswap32_scalar},
};

#define PLAIN_N_IMPLS (sizeof plain_impls / sizeof plain_impls[0])

/* The row to run at ISA `level` on a CPU with `features`. */
static inline size_t plain_pick_impl(int level, unsigned features)
{
    return tsfile_pick_impl(plain_impls, sizeof plain_impls[0], PLAIN_N_IMPLS, level, features);
}

#endif /* TSFILE_PLAIN_IMPLS_H */
