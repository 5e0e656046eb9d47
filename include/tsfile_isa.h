/*
 * tsfile_isa.h: which SIMD families this build carries, the run-time CPU checks, and the one idiom
 * every codec uses to choose its kernels (a table of implementation rows, picked once at import).
 *
 * Families compiled in, fixed by the target architecture:
 *   x86-64 -> AVX2 *and* AVX-512 kernels side by side, each compiled with per-function target
 *             attributes (TSFILE_TARGET_AVX2 / TSFILE_TARGET_AVX512) so the rest of the module stays
 *             baseline x86-64 and one binary runs on every x86-64 CPU; a family's kernels run only
 *             when the CPU (and the OS, for the register state) report every feature its target
 *             attribute enables.
 *   arm64  -> NEON kernels (NEON is part of the AArch64 baseline, so no run-time check is needed).
 * Defining TSFILE_NO_SIMD (setup.py does so for TSFILE_SIMD_BUILD=off) leaves all SIMD code out.
 *
 * Kernel headers include this file and guard their SIMD parts with TSFILE_ISA_AVX2 /
 * TSFILE_ISA_AVX512 / TSFILE_ISA_NEON.
 *
 * Dispatch idiom (c-blosc2 / Arrow DynamicDispatch / simdjson shape): a codec lists its
 * implementations best first in a static table whose rows start with a tsfile_impl_head
 * {name, level, need}; tsfile_pick_impl() returns the first row whose level is at most the
 * process-wide ISA level (tsfile._simd: the best the CPU runs, or what TSFILE_SIMD / set_simd()
 * chose) and whose needed CPU features are all present. The last row is always the scalar one
 * (level TSFILE_LEVEL_SCALAR, need 0), so the pick never fails.
 */
#ifndef TSFILE_ISA_H
#define TSFILE_ISA_H

#include <stdint.h>
#include <stddef.h>

#if !defined(TSFILE_NO_SIMD) && (defined(__x86_64__) || defined(_M_X64)) && \
    (defined(__GNUC__) || defined(__clang__))
#  define TSFILE_ISA_AVX2 1
#  define TSFILE_ISA_AVX512 1
#  define TSFILE_ISA_NEON 0
#  define TSFILE_ISA_NAME "avx2"
#  include <immintrin.h>
   /* Functions carrying this attribute may use AVX2, BMI1/2, LZCNT and POPCNT intrinsics. */
#  define TSFILE_TARGET_AVX2 __attribute__((target("avx2,bmi,bmi2,lzcnt,popcnt")))
   /* ... and these AVX-512 F/BW/VL/VBMI as well: their rows need TSFILE_NEED_AVX512_VBMI. The
    * attribute is what the compiler may emit (its own vectorisation may pick vpermb), not just what
    * the intrinsics use, so a row that admits CPUs without VBMI (TSFILE_NEED_AVX512) must carry
    * TSFILE_TARGET_AVX512_NOVBMI instead. */
#  define TSFILE_TARGET_AVX512 \
       __attribute__((target("avx2,bmi,bmi2,lzcnt,popcnt,avx512f,avx512bw,avx512vl,avx512vbmi")))
#  define TSFILE_TARGET_AVX512_NOVBMI \
       __attribute__((target("avx2,bmi,bmi2,lzcnt,popcnt,avx512f,avx512bw,avx512vl")))
   /* AVX2 has no 64-bit min / max (AVX-512 F's vpminsq): compare and blend. */
#  define TSFILE_AVX2_MIN_EPI64(a, b) _mm256_blendv_epi8((a), (b), _mm256_cmpgt_epi64((a), (b)))
#  define TSFILE_AVX2_MAX_EPI64(a, b) _mm256_blendv_epi8((a), (b), _mm256_cmpgt_epi64((b), (a)))
#elif !defined(TSFILE_NO_SIMD) && (defined(__aarch64__) || defined(_M_ARM64))
#  define TSFILE_ISA_AVX2 0
#  define TSFILE_ISA_AVX512 0
#  define TSFILE_ISA_NEON 1
#  define TSFILE_ISA_NAME "neon"
#  include <arm_neon.h>
#else
#  define TSFILE_ISA_AVX2 0
#  define TSFILE_ISA_AVX512 0
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
    TSFILE_CPU_AVX512BW = 1 << 9,
    TSFILE_CPU_AVX512VL = 1 << 10,
    TSFILE_CPU_AVX512VBMI = 1 << 11,
    TSFILE_CPU_AVX512VBMI2 = 1 << 12,
};

/* What each family's target attribute lets the compiler use, as CPU feature sets. A CPU without
 * LZCNT runs the lzcnt encoding as bsr (another result, no fault): without LZCNT in the AVX2 set a
 * CPU model that has AVX2 and BMI2 but no LZCNT (qemu "Haswell,-abm") got wrong TS_2DIFF bit
 * widths from the SIMD encoder. */
#define TSFILE_NEED_AVX2 \
    (TSFILE_CPU_AVX2 | TSFILE_CPU_BMI1 | TSFILE_CPU_BMI2 | TSFILE_CPU_LZCNT | TSFILE_CPU_POPCNT)
#define TSFILE_NEED_AVX512 \
    (TSFILE_NEED_AVX2 | TSFILE_CPU_AVX512F | TSFILE_CPU_AVX512BW | TSFILE_CPU_AVX512VL)
#define TSFILE_NEED_AVX512_VBMI (TSFILE_NEED_AVX512 | TSFILE_CPU_AVX512VBMI)

/* ISA levels, ordered: a row is eligible when its level is at most the process-wide level.
 * AVX2 and NEON share a level (never both in one build). */
enum { TSFILE_LEVEL_SCALAR = 0, TSFILE_LEVEL_AVX2 = 1, TSFILE_LEVEL_NEON = 1, TSFILE_LEVEL_AVX512 = 2 };

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#  include <cpuid.h>
#endif

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
/* AVX-512 F/BW/VL/VBMI/VBMI2 from CPUID leaf 7, counted only when the OS saves the whole AVX-512
 * register state: XCR0 bits 1-2 (SSE, AVX) and 5-7 (opmask, ZMM0-15 upper halves, ZMM16-31).
 * (GCC 12's __builtin_cpu_supports("avx512f") checks the same XCR0 bits: its libgcc's
 * __cpu_indicator_init does `xgetbv; and $0xe6; cmp $0xe6` (checked by disassembly). Not every
 * compiler's runtime does, and VBMI/VBMI2 are read here anyway: one place, no reliance on it.) */
static inline unsigned tsfile_cpu_avx512_features(void)
{
    unsigned a, b, c, d, f = 0;
    if (!__get_cpuid(1u, &a, &b, &c, &d) || !(c & (1u << 27))) return 0; /* OSXSAVE */
    unsigned xcr0_lo, xcr0_hi;
    __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
    (void)xcr0_hi;
    if ((xcr0_lo & 0xE6u) != 0xE6u) return 0;
    if (__get_cpuid_max(0u, NULL) < 7u) return 0;
    __cpuid_count(7u, 0u, a, b, c, d);
    if (b & (1u << 16)) f |= TSFILE_CPU_AVX512F;
    if (b & (1u << 30)) f |= TSFILE_CPU_AVX512BW;
    if (b & (1u << 31)) f |= TSFILE_CPU_AVX512VL;
    if (c & (1u << 1)) f |= TSFILE_CPU_AVX512VBMI;
    if (c & (1u << 6)) f |= TSFILE_CPU_AVX512VBMI2;
    return f;
}
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
    if (__builtin_cpu_supports("bmi")) f |= TSFILE_CPU_BMI1;
    if (__builtin_cpu_supports("popcnt")) f |= TSFILE_CPU_POPCNT;
    {
        /* LZCNT (CPUID 0x80000001 ECX bit 5, "ABM"), read directly: not every compiler's
         * __builtin_cpu_supports knows it. */
        unsigned a, b, c, d;
        if (__get_cpuid(0x80000001u, &a, &b, &c, &d) && (c & (1u << 5))) f |= TSFILE_CPU_LZCNT;
    }
    f |= tsfile_cpu_avx512_features();
#elif defined(__aarch64__) || defined(_M_ARM64)
    f |= TSFILE_CPU_NEON;
#endif
    return f;
}

/* 1 when the CPU has every feature in `need`. */
static inline int tsfile_cpu_has(unsigned need) { return (tsfile_cpu_features() & need) == need; }

/* The head of every implementation row (a codec's row struct starts with one). */
typedef struct {
    const char *name; /* "avx512", "avx2", "neon", "scalar" */
    int level;        /* TSFILE_LEVEL_* */
    unsigned need;    /* TSFILE_CPU_* bits every kernel of the row needs */
} tsfile_impl_head;

/* Index of the first row (of n, `stride` bytes apart, best first) eligible at `level` on a CPU
 * with `features`; the last row is returned when none is (tables end with the scalar row). */
static inline size_t tsfile_pick_impl(const void *rows, size_t stride, size_t n, int level,
                                      unsigned features)
{
    for (size_t i = 0; i < n; i++) {
        const tsfile_impl_head *h = (const tsfile_impl_head *)((const char *)rows + i * stride);
        if (h->level <= level && (features & h->need) == h->need) return i;
    }
    return n - 1;
}

#endif /* TSFILE_ISA_H */
