/*
 * filter_impls.h: the predicate-kernel implementation table (the per-ISA dispatch idiom of
 * tsfile_isa.h): one row per ISA compiled into this build, best first, the scalar row last.
 * tsfile/_read/pushdown.pyx picks a row per ISA level once at import.
 *
 * FILTER_PER_VALUE is not a row of the table (no ISA level chooses it): it is the "per_value"
 * path, the row-at-a-time baseline the other paths are measured and checked against.
 */
#ifndef FILTER_IMPLS_H
#define FILTER_IMPLS_H

#include "filter_avx2.h"
#include "filter_avx512.h"
#include "filter_neon.h"
#include "filter_scalar.h"

typedef struct {
    tsfile_impl_head head;
    void (*init)(void); /* builds the row's lookup tables; run once before its kernels */
    filter_bitmap_fn_i32 bitmap_i32;
    filter_bitmap_fn_i64 bitmap_i64;
    filter_bitmap_fn_f32 bitmap_f32;
    filter_bitmap_fn_f64 bitmap_f64;
    filter_index_fn_i32 index_i32;
    filter_index_fn_i64 index_i64;
    filter_index_fn_f32 index_f32;
    filter_index_fn_f64 index_f64;
} filter_impl;

static void filter_scalar_init(void) {}

#define FILTER_ROW(NAME, LEVEL, NEED, INIT, SUF)                                                   \
    {{NAME, LEVEL, NEED}, INIT,                                                                    \
     filter_bitmap_i32_##SUF, filter_bitmap_i64_##SUF, filter_bitmap_f32_##SUF,                    \
     filter_bitmap_f64_##SUF, filter_index_i32_##SUF, filter_index_i64_##SUF,                      \
     filter_index_f32_##SUF, filter_index_f64_##SUF}

static const filter_impl filter_impls[] = {
#if TSFILE_ISA_AVX512
    /* F/BW/VL only: no VBMI instruction is used, so no VBMI requirement. */
    FILTER_ROW("avx512", TSFILE_LEVEL_AVX512, TSFILE_NEED_AVX512, filter_scalar_init, avx512),
#endif
#if TSFILE_ISA_AVX2
    FILTER_ROW("avx2", TSFILE_LEVEL_AVX2, TSFILE_NEED_AVX2, filter_avx2_init, avx2),
#endif
#if TSFILE_ISA_NEON
    FILTER_ROW("neon", TSFILE_LEVEL_NEON, 0, filter_neon_init, neon),
#endif
    FILTER_ROW("scalar", TSFILE_LEVEL_SCALAR, 0, filter_scalar_init, scalar),
};

#define FILTER_N_IMPLS (sizeof filter_impls / sizeof filter_impls[0])

/* The row-at-a-time baseline (path "per_value"). */
static const filter_impl filter_per_value =
    FILTER_ROW("per_value", TSFILE_LEVEL_SCALAR, 0, filter_scalar_init, per_value);

/* The row to run at ISA `level` on a CPU with `features`. */
static inline size_t filter_pick_impl(int level, unsigned features)
{
    return tsfile_pick_impl(filter_impls, sizeof filter_impls[0], FILTER_N_IMPLS, level,
                            features);
}

#endif /* FILTER_IMPLS_H */
