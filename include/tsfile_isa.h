/*
 * tsfile_isa.h: which SIMD family this build carries, and the run-time CPU checks.
 *
 * The family is fixed when the package is built, from the target architecture:
 *   x86-64 -> AVX2 kernels, compiled with per-function target attributes (TSFILE_TARGET_AVX2) so the
 *             rest of the module stays baseline x86-64 and one binary runs on every x86-64 CPU; the
 *             AVX2 kernels are used only when the CPU (and the OS) report AVX2, BMI1/2, LZCNT and
 *             POPCNT at run time.
 *   arm64  -> NEON kernels (NEON is part of the AArch64 baseline, so no run-time check is needed).
 * Defining TSFILE_NO_SIMD (setup.py does so for TSFILE_SIMD_BUILD=off) leaves all SIMD code out.
 *
 * Kernel headers include this file and guard their SIMD parts with TSFILE_ISA_AVX2 / TSFILE_ISA_NEON.
 */
#ifndef TSFILE_ISA_H
#define TSFILE_ISA_H

#include <stdint.h>
#include <stddef.h>

#if !defined(TSFILE_NO_SIMD) && (defined(__x86_64__) || defined(_M_X64)) && \
    (defined(__GNUC__) || defined(__clang__))
#  define TSFILE_ISA_AVX2 1
#  define TSFILE_ISA_NEON 0
#  define TSFILE_ISA_NAME "avx2"
#  include <immintrin.h>
   /* Functions carrying this attribute may use AVX2, BMI1/2, LZCNT and POPCNT intrinsics. */
#  define TSFILE_TARGET_AVX2 __attribute__((target("avx2,bmi,bmi2,lzcnt,popcnt")))
#elif !defined(TSFILE_NO_SIMD) && (defined(__aarch64__) || defined(_M_ARM64))
#  define TSFILE_ISA_AVX2 0
#  define TSFILE_ISA_NEON 1
#  define TSFILE_ISA_NAME "neon"
#  include <arm_neon.h>
#else
#  define TSFILE_ISA_AVX2 0
#  define TSFILE_ISA_NEON 0
#  define TSFILE_ISA_NAME "none"
#endif

#if defined(__GNUC__) || defined(__clang__)
#  define TSFILE_LIKELY(x) __builtin_expect(!!(x), 1)
#  define TSFILE_UNLIKELY(x) __builtin_expect(!!(x), 0)
#  define TSFILE_INLINE static inline __attribute__((always_inline))
#else
#  define TSFILE_LIKELY(x) (x)
#  define TSFILE_UNLIKELY(x) (x)
#  define TSFILE_INLINE static inline
#endif

/* Bit flags of the CPU features this library cares about (tsfile_cpu_features()). */
enum {
    TSFILE_CPU_SSE42 = 1 << 0,
    TSFILE_CPU_AVX = 1 << 1,
    TSFILE_CPU_AVX2 = 1 << 2,
    TSFILE_CPU_BMI2 = 1 << 3,
    TSFILE_CPU_AVX512F = 1 << 4,
    TSFILE_CPU_NEON = 1 << 5,
    TSFILE_CPU_BMI1 = 1 << 6,
    TSFILE_CPU_LZCNT = 1 << 7,
    TSFILE_CPU_POPCNT = 1 << 8,
};

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#  include <cpuid.h>
#endif

static inline unsigned tsfile_cpu_features(void)
{
    unsigned f = 0;
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    /* libgcc's checks include the OS's XSAVE support for the AVX register state. */
    if (__builtin_cpu_supports("sse4.2")) f |= TSFILE_CPU_SSE42;
    if (__builtin_cpu_supports("avx")) f |= TSFILE_CPU_AVX;
    if (__builtin_cpu_supports("avx2")) f |= TSFILE_CPU_AVX2;
    if (__builtin_cpu_supports("bmi2")) f |= TSFILE_CPU_BMI2;
    if (__builtin_cpu_supports("avx512f")) f |= TSFILE_CPU_AVX512F;
    if (__builtin_cpu_supports("bmi")) f |= TSFILE_CPU_BMI1;
    if (__builtin_cpu_supports("popcnt")) f |= TSFILE_CPU_POPCNT;
    {
        /* LZCNT (CPUID 0x80000001 ECX bit 5, "ABM"), read directly: not every compiler's
         * __builtin_cpu_supports knows it. */
        unsigned a, b, c, d;
        if (__get_cpuid(0x80000001u, &a, &b, &c, &d) && (c & (1u << 5))) f |= TSFILE_CPU_LZCNT;
    }
#elif defined(__aarch64__) || defined(_M_ARM64)
    f |= TSFILE_CPU_NEON;
#endif
    return f;
}

/* 1 when this build's SIMD family can run on this CPU. */
static inline int tsfile_cpu_can_run_simd(void)
{
#if TSFILE_ISA_AVX2
    /* Everything TSFILE_TARGET_AVX2 lets the compiler use. A CPU without LZCNT runs the lzcnt
     * encoding as bsr (another result, no fault): without this check a CPU model that has AVX2
     * and BMI2 but no LZCNT (qemu "Haswell,-abm") got wrong TS_2DIFF bit widths from the SIMD
     * encoder. */
    const unsigned need = TSFILE_CPU_AVX2 | TSFILE_CPU_BMI1 | TSFILE_CPU_BMI2 | TSFILE_CPU_LZCNT |
                          TSFILE_CPU_POPCNT;
    return (tsfile_cpu_features() & need) == need;
#elif TSFILE_ISA_NEON
    return 1;
#else
    return 0;
#endif
}

#endif /* TSFILE_ISA_H */
