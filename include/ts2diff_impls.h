/*
 * ts2diff_impls.h: the TS_2DIFF implementation table (the per-ISA dispatch idiom of tsfile_isa.h).
 *
 * One row per ISA compiled into this build, best first, the scalar row last: its name, level and
 * the CPU features all its kernels need, then the kernels. Callers pick a row once with
 * tsfile_pick_impl() (the Cython module does it at import for every ISA level, so a run-time
 * switch of level is an array lookup) and call through the row's pointers.
 */
#ifndef TS2DIFF_IMPLS_H
#define TS2DIFF_IMPLS_H

#include "ts2diff_avx2.h"
#include "ts2diff_avx512.h"
#include "ts2diff_encode_avx2.h"
#include "ts2diff_encode_avx512.h"
#include "ts2diff_neon.h"
#include "ts2diff_scalar.h"

typedef size_t (*ts2diff_plan_fn_i64)(const int64_t *v, size_t len, size_t bs,
                                      uint64_t carried_min, ts2diff_blockinfo *info);
typedef size_t (*ts2diff_plan_fn_i32)(const int32_t *v, size_t len, size_t bs,
                                      uint64_t carried_min, ts2diff_blockinfo *info);
typedef size_t (*ts2diff_write_fn_i64)(const int64_t *v, size_t len, size_t bs,
                                       const ts2diff_blockinfo *info, uint8_t *out);
typedef size_t (*ts2diff_write_fn_i32)(const int32_t *v, size_t len, size_t bs,
                                       const ts2diff_blockinfo *info, uint8_t *out);

typedef struct {
    tsfile_impl_head head;
    void (*init)(void); /* builds the row's lookup tables; run once before its kernels */
    ts2diff_block_fn_i64 decode_i64;
    ts2diff_block_fn_i32 decode_i32;
    ts2diff_plan_fn_i64 plan_i64; /* encode's planning pass */
    ts2diff_plan_fn_i32 plan_i32;
    ts2diff_write_fn_i64 write_i64; /* encode's writing pass (the bit packing) */
    ts2diff_write_fn_i32 write_i32;
} ts2diff_impl;

static void ts2diff_scalar_init(void) {}

#if TSFILE_ISA_AVX512
/* The avx512 row's tables: the decoder's unpack plans and the writer's packing plans. */
static void ts2diff_avx512_row_init(void)
{
    ts2diff_avx512_init();
    ts2diff_enc512_init();
}
#endif

/* The scalar row's planners: the scalar planning pass, as functions whose address the row takes. */
TS2DIFF_DEFINE_PLAN(static, ts2diff_plan_i64_scalar, int64_t, 24, ts2diff_stats_i64)
TS2DIFF_DEFINE_PLAN(static, ts2diff_plan_i32_scalar, int32_t, 16, ts2diff_stats_i32)

static const ts2diff_impl ts2diff_impls[] = {
#if TSFILE_ISA_AVX512
    {{"avx512", TSFILE_LEVEL_AVX512, TSFILE_NEED_AVX512_VBMI}, ts2diff_avx512_row_init,
     ts2diff_decode_i64_avx512, ts2diff_decode_i32_avx512, ts2diff_plan_i64_avx512,
     ts2diff_plan_i32_avx512, ts2diff_write_i64_avx512, ts2diff_write_i32_avx512},
#endif
#if TSFILE_ISA_AVX2
    {{"avx2", TSFILE_LEVEL_AVX2, TSFILE_NEED_AVX2}, ts2diff_avx2_init, ts2diff_decode_i64_avx2,
     ts2diff_decode_i32_avx2, ts2diff_plan_i64_avx2, ts2diff_plan_i32_avx2, ts2diff_write_i64_avx2,
     ts2diff_write_i32_avx2},
#endif
#if TSFILE_ISA_NEON
    {{"neon", TSFILE_LEVEL_NEON, 0}, ts2diff_neon_init, ts2diff_decode_i64_neon,
     ts2diff_decode_i32_neon, ts2diff_plan_i64_neon, ts2diff_plan_i32_neon, ts2diff_write_i64,
     ts2diff_write_i32},
#endif
    {{"scalar", TSFILE_LEVEL_SCALAR, 0}, ts2diff_scalar_init, ts2diff_decode_i64_scalar,
     ts2diff_decode_i32_scalar, ts2diff_plan_i64_scalar, ts2diff_plan_i32_scalar,
     ts2diff_write_i64, ts2diff_write_i32},
};

#define TS2DIFF_N_IMPLS (sizeof ts2diff_impls / sizeof ts2diff_impls[0])

/* The row to run at ISA `level` on a CPU with `features`. */
static inline size_t ts2diff_pick_impl(int level, unsigned features)
{
    return tsfile_pick_impl(ts2diff_impls, sizeof ts2diff_impls[0], TS2DIFF_N_IMPLS, level,
                            features);
}

#endif /* TS2DIFF_IMPLS_H */
