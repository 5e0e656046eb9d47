/*
 * alp_impls.h: the ALP implementation table (the per-ISA dispatch idiom of tsfile_isa.h).
 *
 * One row per ISA compiled into this build, best first, the scalar row last: its name, level and
 * the CPU features all its kernels need, then the kernels the page drivers of alp_scalar.h take
 * (the block decode kernels and the encoder's value loop). Callers pick a row once with
 * alp_pick_impl() (alp.pyx does it at import for every ISA level, so a run-time switch of level
 * is an array lookup) and pass the row's pointers to the drivers.
 */
#ifndef ALP_IMPLS_H
#define ALP_IMPLS_H

#include "alp_avx2.h"
#include "alp_avx512.h"
#include "alp_neon.h"
#include "alp_scalar.h"

typedef struct {
    tsfile_impl_head head;
    alp_decode_f64_fn decode_f64;
    alp_decode_f32_fn decode_f32;
    alp_analyze_f64_fn analyze_f64; /* the encoder's value loop (classification, min/max) */
    alp_analyze_f32_fn analyze_f32;
} alp_impl;

static const alp_impl alp_impls[] = {
#if TSFILE_ISA_AVX512
    /* AVX-512 decode; the encoder's value loop is AVX2's (no AVX-512 version yet) */
    {{"avx512", TSFILE_LEVEL_AVX512, TSFILE_NEED_AVX512_VBMI}, alp_decode_f64_avx512,
     alp_decode_f32_avx512, alp_analyze_f64_avx2, alp_analyze_f32_avx2},
#endif
#if TSFILE_ISA_AVX2
    {{"avx2", TSFILE_LEVEL_AVX2, TSFILE_NEED_AVX2}, alp_decode_f64_avx2, alp_decode_f32_avx2,
     alp_analyze_f64_avx2, alp_analyze_f32_avx2},
#endif
#if TSFILE_ISA_NEON
    {{"neon", TSFILE_LEVEL_NEON, 0}, alp_decode_f64_neon, alp_decode_f32_neon,
     alp_analyze_f64_neon, alp_analyze_f32_neon},
#endif
    {{"scalar", TSFILE_LEVEL_SCALAR, 0}, alp_decode_f64_scalar, alp_decode_f32_scalar,
     alp_analyze_f64_scalar, alp_analyze_f32_scalar},
};

#define ALP_N_IMPLS (sizeof alp_impls / sizeof alp_impls[0])

/* The row to run at ISA `level` on a CPU with `features`. */
static inline size_t alp_pick_impl(int level, unsigned features)
{
    return tsfile_pick_impl(alp_impls, sizeof alp_impls[0], ALP_N_IMPLS, level, features);
}

#endif /* ALP_IMPLS_H */
