/*
 * filter_scalar.h: predicate kernels that test a decoded block of values against a range and
 * produce a selection (the "batch" path, portable C99), plus the one-call-per-value baseline
 * (the "per_value" path).
 *
 * Every predicate arrives normalised (by the caller, tsfile/_read/pushdown.pyx) to
 *     match(x) = (lo <= x && x <= hi) XOR negate
 * with inclusive ends: exclusive ends become the neighbouring representable value (x > 5 is
 * x >= 6 for integers, x >= nextafter(5.0, +inf) for floats), `== v` is [v, v], `!= v` is [v, v]
 * negated. NaN fails both ordered comparisons, so it never lies in a range; under `negate` it
 * matches, as numpy's `~((x >= lo) & (x <= hi))` and `x != v` do. -0.0 and 0.0 compare equal.
 *
 * Two selection forms, both produced from the same comparisons:
 *   bitmap  ceil(n / 8) bytes, LSB first (value i -> bits[i >> 3] & (1 << (i & 7)), the layout
 *           of numpy.packbits(..., bitorder="little")); unused high bits of the last byte are 0;
 *   index   the positions base + i of the matching values, ascending, as int32; the buffer must
 *           hold n + FILTER_INDEX_SLACK entries (the SIMD kernels store whole vectors and only
 *           advance by the number of matches).
 * Both return the number of matches. No kernel reads v[n] or beyond.
 */
#ifndef FILTER_SCALAR_H
#define FILTER_SCALAR_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tsfile_isa.h"

/* Extra int32 entries an index buffer needs past n (one AVX-512 vector of int32). */
#define FILTER_INDEX_SLACK 16

#if defined(__GNUC__) || defined(__clang__)
#  define FILTER_NOINLINE __attribute__((noinline))
#else
#  define FILTER_NOINLINE
#endif

/* The value types of the predicate kernels: suffix and C type. Every typed family of the filter
 * headers is written once as a macro taking (SUF, T) and instantiated for these four, so the
 * int32/int64/float/double kernels cannot drift apart (C has no generics: hence macros). */
#define FILTER_FOR_EACH_TYPE(M) M(i32, int32_t) M(i64, int64_t) M(f32, float) M(f64, double)

/* Generates the kernel signatures filter_bitmap_fn_SUF and filter_index_fn_SUF of one type. */
#define FILTER_DEFINE_FN_TYPES(SUF, T)                                                             \
    typedef size_t (*filter_bitmap_fn_##SUF)(const T *v, size_t n, T lo, T hi, int negate,         \
                                             uint8_t *bits);                                       \
    typedef size_t (*filter_index_fn_##SUF)(const T *v, size_t n, T lo, T hi, int negate,          \
                                            int32_t *idx, int32_t base);

FILTER_FOR_EACH_TYPE(FILTER_DEFINE_FN_TYPES)

/* Set bits of a byte (portable; the SIMD kernels use their ISA's popcount). */
TSFILE_INLINE unsigned filter_popcount8(unsigned b)
{
    b = b - ((b >> 1) & 0x55u);
    b = (b & 0x33u) + ((b >> 2) & 0x33u);
    return (b + (b >> 4)) & 0x0Fu;
}

/* Bitmap bytes for n values. */
TSFILE_INLINE size_t filter_bitmap_bytes(size_t n) { return (n + 7) >> 3; }

/* filter_bool_bytes[b]: the 8 bytes 0/1 of the bits of b, LSB first (byte j = bit j), as they lie
 * in memory. Built by filter_bool_bytes_init(), once, before filter_bitmap_to_bool(). */
static uint64_t filter_bool_bytes[256];

static void filter_bool_bytes_init(void)
{
    for (unsigned b = 0; b < 256; b++) {
        uint8_t bytes[8];
        for (unsigned j = 0; j < 8; j++) bytes[j] = (uint8_t)((b >> j) & 1u);
        memcpy(&filter_bool_bytes[b], bytes, 8);
    }
}

/* A bitmap as one 0/1 byte per value (numpy's bool layout): one table load and one 8-byte store
 * per bitmap byte, so the mask form costs little over the bitmap. */
TSFILE_INLINE void filter_bitmap_to_bool(const uint8_t *bits, size_t n, uint8_t *out)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) memcpy(out + i, &filter_bool_bytes[bits[i >> 3]], 8);
    for (; i < n; i++) out[i] = (uint8_t)((bits[i >> 3] >> (i & 7)) & 1u);
}

/*
 * Generates, for one value type, the scalar kernels: filter_match_SUF (the predicate),
 * filter_bitmap_tail_SUF / filter_index_tail_SUF (values i0 .. n-1, bitmap bits continuing at bit
 * i0 (a multiple of 8, so whole bytes are written), indices continuing at idx: the SIMD kernels'
 * tails), the "batch" rows filter_bitmap_SUF_scalar / filter_index_SUF_scalar and the "per_value"
 * baseline filter_bitmap_SUF_per_value / filter_index_SUF_per_value.
 */
#define FILTER_DEFINE_SCALAR(SUF, T)                                                               \
    TSFILE_INLINE int filter_match_##SUF(T x, T lo, T hi, int negate)                              \
    {                                                                                              \
        return (int)((lo <= x) & (x <= hi)) ^ negate;                                              \
    }                                                                                              \
    TSFILE_INLINE size_t filter_bitmap_tail_##SUF(const T *v, size_t i0, size_t n, T lo, T hi,     \
                                                  int negate, uint8_t *bits)                       \
    {                                                                                              \
        size_t count = 0;                                                                          \
        for (size_t i = i0; i < n; i += 8) {                                                       \
            const size_t m = n - i < 8 ? n - i : 8;                                                \
            unsigned byte = 0;                                                                     \
            for (size_t j = 0; j < m; j++)                                                         \
                byte |= (unsigned)filter_match_##SUF(v[i + j], lo, hi, negate) << j;               \
            bits[i >> 3] = (uint8_t)byte;                                                          \
            count += filter_popcount8(byte);                                                   \
        }                                                                                          \
        return count;                                                                              \
    }                                                                                              \
    TSFILE_INLINE size_t filter_index_tail_##SUF(const T *v, size_t i0, size_t n, T lo, T hi,      \
                                                 int negate, int32_t *idx, int32_t base)           \
    {                                                                                              \
        size_t k = 0;                                                                              \
        for (size_t i = i0; i < n; i++) {                                                          \
            idx[k] = base + (int32_t)i; /* written always, kept only on a match: no branch */      \
            k += (size_t)filter_match_##SUF(v[i], lo, hi, negate);                                 \
        }                                                                                          \
        return k;                                                                                  \
    }                                                                                              \
    static size_t filter_bitmap_##SUF##_scalar(const T *v, size_t n, T lo, T hi, int negate,       \
                                               uint8_t *bits)                                      \
    {                                                                                              \
        return filter_bitmap_tail_##SUF(v, 0, n, lo, hi, negate, bits);                            \
    }                                                                                              \
    static size_t filter_index_##SUF##_scalar(const T *v, size_t n, T lo, T hi, int negate,        \
                                              int32_t *idx, int32_t base)                          \
    {                                                                                              \
        return filter_index_tail_##SUF(v, 0, n, lo, hi, negate, idx, base);                        \
    }                                                                                              \
    /* The per-value baseline: one out-of-line predicate call and one branch per value, as a     \
     * row-at-a-time reader tests its rows. */                                                     \
    static FILTER_NOINLINE int filter_test_one_##SUF(T x, T lo, T hi, int negate)                  \
    {                                                                                              \
        return filter_match_##SUF(x, lo, hi, negate);                                              \
    }                                                                                              \
    static size_t filter_index_##SUF##_per_value(const T *v, size_t n, T lo, T hi, int negate,     \
                                                 int32_t *idx, int32_t base)                       \
    {                                                                                              \
        size_t k = 0;                                                                              \
        for (size_t i = 0; i < n; i++)                                                             \
            if (filter_test_one_##SUF(v[i], lo, hi, negate)) idx[k++] = base + (int32_t)i;         \
        return k;                                                                                  \
    }                                                                                              \
    static size_t filter_bitmap_##SUF##_per_value(const T *v, size_t n, T lo, T hi, int negate,    \
                                                  uint8_t *bits)                                   \
    {                                                                                              \
        size_t k = 0;                                                                              \
        memset(bits, 0, filter_bitmap_bytes(n));                                                   \
        for (size_t i = 0; i < n; i++)                                                             \
            if (filter_test_one_##SUF(v[i], lo, hi, negate)) {                                     \
                bits[i >> 3] |= (uint8_t)(1u << (i & 7));                                          \
                k++;                                                                               \
            }                                                                                      \
        return k;                                                                                  \
    }

FILTER_FOR_EACH_TYPE(FILTER_DEFINE_SCALAR)

/*
 * Generates filter_bitmap_SUF_ISA and filter_index_SUF_ISA for an ISA whose kernels work 8 values
 * at a time (AVX2, NEON): one driver for both ISAs and all four types, since they differ only in
 * how 8 values become a bitmap byte and how a byte becomes positions. The ISA header provides
 *   unsigned filter_ISA_byte_SUF(const T *v, VT lo, VT hi)   bit j: v[j] in [lo, hi]
 *   size_t filter_ISA_emit(unsigned byte, int32_t pos, int32_t *idx)   stores pos + j for each
 *          set bit j (may write 8 entries), returns their number
 *   filter_ISA_popcount(x)                                   set bits of a 16-bit x
 * ATTR is the functions' target attribute (empty where the ISA is baseline), SET1 broadcasts a
 * bound into VT. Bitmaps take 16 values an iteration (two independent byte computations, one
 * popcount); values after the last whole byte go through the scalar tail, so nothing past
 * v[n - 1] is read.
 */
#define FILTER_DEFINE_BYTEWISE(ISA, ATTR, SUF, T, VT, SET1)                                        \
    ATTR static size_t filter_bitmap_##SUF##_##ISA(const T *v, size_t n, T lo, T hi, int negate,   \
                                                   uint8_t *bits)                                  \
    {                                                                                              \
        const VT vlo = SET1(lo), vhi = SET1(hi);                                                   \
        const unsigned flip = negate ? 0xFFu : 0u;                                                 \
        size_t i = 0, count = 0;                                                                   \
        for (; i + 16 <= n; i += 16) {                                                             \
            const unsigned b0 = filter_##ISA##_byte_##SUF(v + i, vlo, vhi) ^ flip;                 \
            const unsigned b1 = filter_##ISA##_byte_##SUF(v + i + 8, vlo, vhi) ^ flip;             \
            bits[i >> 3] = (uint8_t)b0;                                                            \
            bits[(i >> 3) + 1] = (uint8_t)b1;                                                      \
            count += (size_t)filter_##ISA##_popcount(b0 | b1 << 8);                                \
        }                                                                                          \
        for (; i + 8 <= n; i += 8) {                                                               \
            const unsigned b = filter_##ISA##_byte_##SUF(v + i, vlo, vhi) ^ flip;                  \
            bits[i >> 3] = (uint8_t)b;                                                             \
            count += (size_t)filter_##ISA##_popcount(b);                                           \
        }                                                                                          \
        return count + filter_bitmap_tail_##SUF(v, i, n, lo, hi, negate, bits);                    \
    }                                                                                              \
    ATTR static size_t filter_index_##SUF##_##ISA(const T *v, size_t n, T lo, T hi, int negate,    \
                                                  int32_t *idx, int32_t base)                      \
    {                                                                                              \
        const VT vlo = SET1(lo), vhi = SET1(hi);                                                   \
        const unsigned flip = negate ? 0xFFu : 0u;                                                 \
        size_t i = 0, k = 0;                                                                       \
        for (; i + 8 <= n; i += 8) {                                                               \
            const unsigned b = filter_##ISA##_byte_##SUF(v + i, vlo, vhi) ^ flip;                  \
            k += filter_##ISA##_emit(b, base + (int32_t)i, idx + k);                               \
        }                                                                                          \
        return k + filter_index_tail_##SUF(v, i, n, lo, hi, negate, idx + k, base);               \
    }

#endif /* FILTER_SCALAR_H */
