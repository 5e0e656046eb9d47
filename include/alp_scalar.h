/*
 * alp_scalar.h: ALP (Adaptive Lossless floating-Point) pages for TsFile encoding 15, scalar C.
 *
 * Layout: ../shared/docs/alp-format.md (16-byte page header; blocks of <= 1024 values with a
 * 28-byte header; exception bitmap LSB-first; exceptions raw; LSB-first packed body padded with
 * 16 guard bytes and rounded up to 32, and no body at all for width 0; PLAIN blocks where ALP
 * does not pay). Little-endian hosts.
 *
 * One value: encode n = round(v * 10^e * 10^-f), decode v' = n * 10^f * 10^-e, both as two
 * multiplications by tabulated constants in the value's own precision. The encoder keeps a value
 * only when the decoder's exact arithmetic gives it back bit for bit (alp_classify_*: the same
 * operations, in the same order, as every decode kernel) and when |v * 10^e * 10^-f| stays within
 * ALP_LIMIT_F64 / ALP_LIMIT_F32; every other value (NaN, inf, -0.0, subnormals that do not come
 * back, huge values) is an exception stored raw.
 *
 * The ranges are chosen so that every decode path computes the same values:
 *  - DOUBLE: non-exception |n| <= 2^49, so base >= -2^49 and base + 2^width - 1 < 3 * 2^49 < 2^51,
 *    the range where AVX2's int64 -> double "magic number" conversion is exact. Blocks from other
 *    writers that fall outside it are decoded by the scalar kernel (see alp_f64_simd_safe()).
 *  - FLOAT: non-exception |n| <= 2^30; integers are added in wrapping int32 arithmetic and
 *    converted with round-to-nearest by every path.
 * Rounding to an integer is round-half-even everywhere: (x + 1.5 * 2^52) - 1.5 * 2^52 in scalar
 * code (for FLOAT on the value widened to double, exact), cvtps2dq / vcvtn in SIMD code.
 *
 * Page-level drivers take the SIMD kernels as function pointers (NULL = scalar), so one driver
 * serves every path and the C check program can run them under any ISA.
 */
#ifndef TSFILE_ALP_SCALAR_H
#define TSFILE_ALP_SCALAR_H

#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include "bit_length.h"
#include "tsfile_isa.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "alp_scalar.h assumes a little-endian host"
#endif

#define ALP_VERSION 1
#define ALP_BLOCK 1024
#define ALP_PAGE_HEADER 16
#define ALP_BLOCK_HEADER 28
#define ALP_GUARD 16

#if defined(__GNUC__) || defined(__clang__)
#  define ALP_NOINLINE __attribute__((noinline))
#else
#  define ALP_NOINLINE
#endif

#define ALP_MAX_E64 18
#define ALP_MAX_E32 10
#define ALP_SAMPLES 32   /* values sampled per block / per page for the (e, f) search */
#define ALP_TOP_K 5      /* candidate pairs kept from the page-level search */

#define ALP_LIMIT_F64 562949953421312.0 /* 2^49 */
#define ALP_LIMIT_F32 1073741824.0f     /* 2^30 */
#define ALP_MAGIC_F64 6755399441055744.0 /* 1.5 * 2^52 */
#define ALP_MAGIC_F64_BITS UINT64_C(0x4338000000000000)

/* Keep a floating value in a register as computed: stops the compiler from fusing a multiply
 * into the following add (FMA contraction would change the rounding between paths). */
#if defined(__GNUC__) || defined(__clang__)
#  if defined(__x86_64__) || defined(__i386__)
#    define ALP_FP_BARRIER(x) __asm__("" : "+x"(x))
#  elif defined(__aarch64__)
#    define ALP_FP_BARRIER(x) __asm__("" : "+w"(x))
#  else
#    define ALP_FP_BARRIER(x) __asm__("" : "+g"(x))
#  endif
#else
#  define ALP_FP_BARRIER(x) ((void)0)
#endif

/* Powers of ten, correctly rounded by the compiler from decimal literals (10^0..10^18 are exact
 * doubles; 10^0..10^10 exact floats). */
static const double ALP_POW10_F64[ALP_MAX_E64 + 1] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
    1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18};
static const double ALP_INV10_F64[ALP_MAX_E64 + 1] = {
    1e0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10,
    1e-11, 1e-12, 1e-13, 1e-14, 1e-15, 1e-16, 1e-17, 1e-18};
static const float ALP_POW10_F32[ALP_MAX_E32 + 1] = {
    1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f, 1e10f};
static const float ALP_INV10_F32[ALP_MAX_E32 + 1] = {
    1e0f, 1e-1f, 1e-2f, 1e-3f, 1e-4f, 1e-5f, 1e-6f, 1e-7f, 1e-8f, 1e-9f, 1e-10f};

/* ------------------------------------------------------------------ little-endian helpers */

TSFILE_INLINE uint64_t alp_ld64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
TSFILE_INLINE uint32_t alp_ld32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
TSFILE_INLINE void alp_st64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
TSFILE_INLINE void alp_st32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
TSFILE_INLINE uint64_t alp_dbits(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
TSFILE_INLINE uint32_t alp_fbits(float d) { uint32_t u; memcpy(&u, &d, 4); return u; }

TSFILE_INLINE size_t alp_packed_bytes(size_t count, int width) { return (count * (size_t)width + 7) / 8; }
/* body_bytes of an ALP block as written here. Width 0 (every non-exception value is the base) has
 * no body: the draft TsFile decoder (apache/tsfile cpp/src/encoding/alp) rejects a width-0 block
 * whose body_bytes is not 0, failing the whole page. Readers still accept the padded width-0 body
 * this encoder wrote before (alp_parse_block only needs body_bytes >= the packed bytes, 0 here). */
TSFILE_INLINE size_t alp_body_bytes(size_t count, int width)
{
    if (width == 0) return 0;
    return (alp_packed_bytes(count, width) + ALP_GUARD + 31) / 32 * 32;
}

/* ------------------------------------------------------------------ one value */

/*
 * Generates alp_classify_SUF(v, E, F, P, Ie, &n): n for (e, f) and whether v comes back bit for bit
 * (T the float type, IT its integer, LIMIT the largest |v * 10^e * 10^-f| encoded, BITS its bit
 * pattern). Both types round through double (the magic-number trick on 1.5 * 2^52). A macro
 * because the two types differ only in these names.
 */
#define ALP_DEFINE_CLASSIFY(SUF, T, IT, LIMIT, BITS)                                                \
    TSFILE_INLINE int alp_classify_##SUF(T v, T E, T F, T P, T Ie, IT *n_out)                       \
    {                                                                                               \
        T x = v * E * F;                                                                            \
        ALP_FP_BARRIER(x);                                                                          \
        if (!(x <= (LIMIT) && x >= -(LIMIT))) { *n_out = 0; return 0; }                             \
        double r = (double)x + ALP_MAGIC_F64;                                                       \
        ALP_FP_BARRIER(r);                                                                          \
        r = r - ALP_MAGIC_F64;                                                                      \
        IT n = (IT)r;                                                                               \
        T d = (T)n * P * Ie;                                                                        \
        *n_out = n;                                                                                 \
        return BITS(d) == BITS(v);                                                                  \
    }

/* alp_classify_f64, alp_classify_f32 */
ALP_DEFINE_CLASSIFY(f64, double, int64_t, ALP_LIMIT_F64, alp_dbits)
ALP_DEFINE_CLASSIFY(f32, float, int32_t, ALP_LIMIT_F32, alp_fbits)

/* ------------------------------------------------------------------ encoder value loop */

/*
 * Analyse a block for one (e, f): ints[i] = n_i (any value at exceptions), the exception bitmap
 * (ceil(count / 8) bytes, all written), min and max of the non-exception n (min > max when there
 * are none). Returns the number of exceptions. SIMD versions have the same contract.
 */
typedef size_t (*alp_analyze_f64_fn)(const double *v, size_t count, double E, double F, double P,
                                     double Ie, int64_t *ints, uint8_t *bitmap, int64_t *mn, int64_t *mx);
typedef size_t (*alp_analyze_f32_fn)(const float *v, size_t count, float E, float F, float P,
                                     float Ie, int32_t *ints, uint8_t *bitmap, int32_t *mn, int32_t *mx);

/* Generates alp_analyze_SUF_scalar (T the float type, IT its integer, IT_MIN / IT_MAX its range):
 * a macro because the two types differ only in these names. */
#define ALP_DEFINE_ANALYZE_SCALAR(SUF, T, IT, IT_MIN, IT_MAX)                                       \
    static inline size_t alp_analyze_##SUF##_scalar(const T *v, size_t count, T E, T F, T P, T Ie,  \
                                                    IT *ints, uint8_t *bitmap, IT *mn, IT *mx)      \
    {                                                                                               \
        IT lo = IT_MAX, hi = IT_MIN;                                                                \
        size_t exc = 0;                                                                             \
        memset(bitmap, 0, (count + 7) / 8);                                                         \
        for (size_t i = 0; i < count; i++) {                                                        \
            IT n;                                                                                   \
            int ok = alp_classify_##SUF(v[i], E, F, P, Ie, &n);                                     \
            ints[i] = n;                                                                            \
            if (ok) {                                                                               \
                lo = n < lo ? n : lo;                                                               \
                hi = n > hi ? n : hi;                                                               \
            } else {                                                                                \
                bitmap[i >> 3] |= (uint8_t)(1u << (i & 7));                                         \
                exc++;                                                                              \
            }                                                                                       \
        }                                                                                           \
        *mn = lo;                                                                                   \
        *mx = hi;                                                                                   \
        return exc;                                                                                 \
    }

/* alp_analyze_f64_scalar, alp_analyze_f32_scalar */
ALP_DEFINE_ANALYZE_SCALAR(f64, double, int64_t, INT64_MIN, INT64_MAX)
ALP_DEFINE_ANALYZE_SCALAR(f32, float, int32_t, INT32_MIN, INT32_MAX)

/*
 * Generates alp_analyze_SUF_finish, the epilogue of every vector alp_analyze_SUF_ISA: fold the
 * vector lanes' min / max (lanes_lo / lanes_hi, `lanes` of them) and the `exc` exceptions of the
 * first i values with the scalar analysis of the values from i on (fewer than a group; i is a
 * multiple of 8, so their bitmap is one byte), then set *mn, *mx and return the exception count.
 * A macro because the two types differ only in T and IT.
 */
#define ALP_DEFINE_ANALYZE_FINISH(SUF, T, IT)                                                       \
    TSFILE_INLINE size_t alp_analyze_##SUF##_finish(const IT *lanes_lo, const IT *lanes_hi,         \
                                                    int lanes, size_t exc, const T *v, size_t i,    \
                                                    size_t count, T E, T F, T P, T Ie, IT *ints,    \
                                                    uint8_t *bitmap, IT *mn, IT *mx)                \
    {                                                                                               \
        IT lo = lanes_lo[0], hi = lanes_hi[0];                                                      \
        for (int j = 1; j < lanes; j++) {                                                           \
            lo = lanes_lo[j] < lo ? lanes_lo[j] : lo;                                               \
            hi = lanes_hi[j] > hi ? lanes_hi[j] : hi;                                               \
        }                                                                                           \
        if (i < count) {                                                                            \
            IT tl, th;                                                                              \
            uint8_t tb[1];                                                                          \
            exc += alp_analyze_##SUF##_scalar(v + i, count - i, E, F, P, Ie, ints + i, tb, &tl,     \
                                              &th);                                                 \
            bitmap[i >> 3] = tb[0];                                                                 \
            lo = tl < lo ? tl : lo;                                                                 \
            hi = th > hi ? th : hi;                                                                 \
        }                                                                                           \
        *mn = lo;                                                                                   \
        *mx = hi;                                                                                   \
        return exc;                                                                                 \
    }

/* alp_analyze_f64_finish, alp_analyze_f32_finish */
ALP_DEFINE_ANALYZE_FINISH(f64, double, int64_t)
ALP_DEFINE_ANALYZE_FINISH(f32, float, int32_t)

/* ------------------------------------------------------------------ packing (LSB-first) */

/* Generates alp_pack_uBITS(u, count, width, out): the `count` values u[i] (each < 2^width) as an
 * LSB-first bit stream, exactly alp_packed_bytes(count, width) bytes, through a 64-bit
 * accumulator. A macro because the two input widths (BITS 64 or 32) differ only in u's type. */
#define ALP_DEFINE_PACK(BITS)                                                                       \
    static inline void alp_pack_u##BITS(const uint##BITS##_t *u, size_t count, int width,           \
                                        uint8_t *out)                                               \
    {                                                                                               \
        if (width == 0) return;                                                                     \
        uint64_t acc = 0;                                                                           \
        int filled = 0;                                                                             \
        size_t o = 0;                                                                               \
        for (size_t i = 0; i < count; i++) {                                                        \
            uint64_t x = u[i];                                                                      \
            acc |= x << filled;                                                                     \
            filled += width;                                                                        \
            if (filled >= 64) {                                                                     \
                alp_st64(out + o, acc);                                                             \
                o += 8;                                                                             \
                filled -= 64;                                                                       \
                acc = filled ? x >> (width - filled) : 0;                                           \
            }                                                                                       \
        }                                                                                           \
        size_t rest = (size_t)(filled + 7) / 8;                                                     \
        for (size_t b = 0; b < rest; b++) out[o + b] = (uint8_t)(acc >> (8 * b));                   \
    }

/* alp_pack_u64, alp_pack_u32 */
ALP_DEFINE_PACK(64)
ALP_DEFINE_PACK(32)

/* ------------------------------------------------------------------ decode kernels (scalar) */

/* The `width`-bit value i of an LSB-first stream; reads 9 bytes at most from (i * width) >> 3. */
TSFILE_INLINE uint64_t alp_extract(const uint8_t *body, size_t i, int width)
{
    size_t bit = i * (size_t)width;
    const uint8_t *p = body + (bit >> 3);
    unsigned s = (unsigned)(bit & 7);
    uint64_t v = alp_ld64(p) >> s;
    if (s && (int)s + width > 64) v |= (uint64_t)p[8] << (64 - s);
    return width == 64 ? v : (v & ((UINT64_C(1) << width) - 1));
}

/*
 * Fused block decode: out[i] = (base + u_i) * P * Ie for i < count (exception slots are patched
 * afterwards). `body` must be readable for alp_packed_bytes(count, width) + ALP_GUARD bytes.
 */
typedef void (*alp_decode_f64_fn)(const uint8_t *body, size_t count, int width, int64_t base,
                                  double P, double Ie, double *out);
typedef void (*alp_decode_f32_fn)(const uint8_t *body, size_t count, int width, int32_t base,
                                  float P, float Ie, float *out);

/* Generates alp_decode_SUF_scalar (T the float type, IT / UT its signed and unsigned integers):
 * n = base + u_i wraps in IT's width. A macro because the two types differ only in these names. */
#define ALP_DEFINE_DECODE_SCALAR(SUF, T, IT, UT)                                                    \
    static inline void alp_decode_##SUF##_scalar(const uint8_t *body, size_t count, int width,      \
                                                 IT base, T P, T Ie, T *out)                        \
    {                                                                                               \
        if (width == 0) {                                                                           \
            T d = (T)base * P * Ie;                                                                 \
            for (size_t i = 0; i < count; i++) out[i] = d;                                          \
            return;                                                                                 \
        }                                                                                           \
        for (size_t i = 0; i < count; i++) {                                                        \
            IT n = (IT)((UT)base + (UT)alp_extract(body, i, width));                                \
            out[i] = (T)n * P * Ie;                                                                 \
        }                                                                                           \
    }

/* alp_decode_f64_scalar, alp_decode_f32_scalar */
ALP_DEFINE_DECODE_SCALAR(f64, double, int64_t, uint64_t)
ALP_DEFINE_DECODE_SCALAR(f32, float, int32_t, uint32_t)

/* DOUBLE blocks whose integers all lie in (-2^51, 2^51) and whose width the SIMD unpack handles;
 * other blocks take the scalar kernel on every path. */
TSFILE_INLINE int alp_f64_simd_safe(int width, int64_t base)
{
    if (width > 51) return 0;
    const int64_t lim = INT64_C(1) << 51;
    if (base <= -lim || base >= lim) return 0;
    return base + (int64_t)((UINT64_C(1) << width) - 1) < lim;
}

/*
 * The unpack tables of the kernels that load each 128-bit part of a register from the byte where
 * its first lane starts and move every lane's bytes into place with one byte shuffle (AVX2's
 * pshufb, NEON's tbl), for a group of 8 values of `width` bits (LSB-first; a group is `width`
 * bytes, so the tables serve every group of a block). Written once for both ISAs; the two value
 * types unpack differently, hence two functions.
 *
 * DOUBLE (alp_lanes64_tables): 4 quarters of 2 lanes; quarter q starts at byte half[q], lane
 * 2q + j takes bytes idx[16q + 8j + 0..7] of it and is shifted right by shift[2q + j].
 * FLOAT (alp_lanes32_tables): 2 halves of 4 lanes; half h starts at byte half[h], lane 4h + j
 * takes bytes lo[16h + 4j + 0..3], shifted right by sr[4h + j], and, where its bits reach past
 * 32 after that shift, its fifth byte hi[16h + 4j] shifted left by sl[4h + j] = 32 - sr
 * (`none`: the shuffle index that gives a zero byte, 0x80 for pshufb, 0xff for tbl).
 */
static inline void alp_lanes64_tables(int width, uint8_t idx[64], int64_t shift[8],
                                      size_t half[4])
{
    for (int q = 0; q < 4; q++) {
        const size_t first = ((size_t)(2 * q) * (size_t)width) >> 3;
        half[q] = first;
        for (int j = 0; j < 2; j++) {
            const size_t bit = (size_t)(2 * q + j) * (size_t)width;
            const int rel = (int)((bit >> 3) - first);
            for (int b = 0; b < 8; b++) idx[16 * q + 8 * j + b] = (uint8_t)(rel + b);
            shift[2 * q + j] = (int64_t)(bit & 7);
        }
    }
}

static inline void alp_lanes32_tables(int width, uint8_t none, uint8_t lo[32], uint8_t hi[32],
                                      int32_t sr[8], int32_t sl[8], size_t half[2])
{
    for (int h = 0; h < 2; h++) {
        const size_t first = ((size_t)(4 * h) * (size_t)width) >> 3;
        half[h] = first;
        for (int j = 0; j < 4; j++) {
            const size_t bit = (size_t)(4 * h + j) * (size_t)width;
            const int rel = (int)((bit >> 3) - first);
            const int s = (int)(bit & 7);
            uint8_t *l = lo + 16 * h + 4 * j, *u = hi + 16 * h + 4 * j;
            for (int b = 0; b < 4; b++) l[b] = (uint8_t)(rel + b);
            u[0] = s + width > 32 ? (uint8_t)(rel + 4) : none;
            u[1] = u[2] = u[3] = none;
            sr[4 * h + j] = s;
            sl[4 * h + j] = 32 - s;
        }
    }
}

/* ------------------------------------------------------------------ block header parsing */

enum {
    ALP_OK = 0,
    ALP_E_PAGE_SHORT,   /* fewer than 16 bytes */
    ALP_E_VERSION,      /* version != 1 */
    ALP_E_TYPE,         /* data_type does not match */
    ALP_E_PAGE_COUNTS,  /* value/block counts impossible for the bytes present */
    ALP_E_FEWER,        /* fewer values than requested */
    ALP_E_BLOCK_SHORT,  /* block header or contents past the end of the data */
    ALP_E_SCHEME,       /* scheme not 0/1 */
    ALP_E_BLOCK_COUNT,  /* block value count 0 or > 1024, or past the page's count */
    ALP_E_EF,           /* exponent/factor out of range */
    ALP_E_WIDTH,        /* bit width out of range */
    ALP_E_EXC,          /* exception count/flags inconsistent */
    ALP_E_BITMAP,       /* bitmap population != exception count, or bits past the count */
    ALP_E_BODY,         /* body_bytes smaller than the packed bits */
    ALP_E_BASE,         /* FLOAT base outside int32 */
    ALP_E_TOTAL,        /* block counts do not add up to the page's count */
    ALP_E_CAPACITY,     /* encoder: output buffer too small */
    ALP_E_PLAIN_BODY,   /* PLAIN block whose body_bytes is not value_count * value size */
};

static inline const char *alp_error_text(int code)
{
    switch (code) {
    case ALP_E_PAGE_SHORT: return "page shorter than its 16-byte header";
    case ALP_E_VERSION: return "unsupported ALP version";
    case ALP_E_TYPE: return "page data type does not match the requested type";
    case ALP_E_PAGE_COUNTS: return "value/block counts impossible for the bytes present";
    case ALP_E_FEWER: return "page holds fewer values than requested";
    case ALP_E_BLOCK_SHORT: return "block extends past the end of the data";
    case ALP_E_SCHEME: return "unknown block scheme";
    case ALP_E_BLOCK_COUNT: return "block value count out of range";
    case ALP_E_EF: return "exponent/factor out of range";
    case ALP_E_WIDTH: return "bit width out of range";
    case ALP_E_EXC: return "exception count inconsistent with the block";
    case ALP_E_BITMAP: return "exception bitmap does not match the exception count";
    case ALP_E_BODY: return "packed body shorter than its bit width needs";
    case ALP_E_BASE: return "FLOAT frame-of-reference base outside int32";
    case ALP_E_TOTAL: return "block value counts do not add up to the page's value count";
    case ALP_E_CAPACITY: return "output buffer too small";
    case ALP_E_PLAIN_BODY: return "PLAIN block body_bytes is not value_count * value size";
    default: return "ok";
    }
}

typedef struct {
    int code;
    size_t offset; /* byte offset of the offending header field / block */
} alp_err_t;

typedef struct {
    int scheme, factor, exponent, width;
    uint32_t count, exc_count, body_bytes;
    int64_t base;
    const uint8_t *bitmap; /* NULL when the block has no exceptions */
    const uint8_t *exc;    /* exc_count raw values */
    const uint8_t *body;   /* packed body (ALP) or raw values (PLAIN) */
    size_t size;           /* bytes of the whole block */
    size_t packed;         /* alp_packed_bytes(count, width) */
} alp_block_t;

static inline size_t alp_popcount_bytes(const uint8_t *p, size_t n)
{
    size_t c = 0, i = 0;
    for (; i + 8 <= n; i += 8) c += (size_t)__builtin_popcountll(alp_ld64(p + i));
    for (; i < n; i++) c += (size_t)__builtin_popcount(p[i]);
    return c;
}

/* Parse and validate the block at p (avail bytes left in the data). Nothing past p + avail is
 * read; every count and size is checked before it is used. */
static inline int alp_parse_block(const uint8_t *p, size_t avail, int is64, alp_block_t *b)
{
    const size_t vsize = is64 ? 8 : 4;
    if (avail < ALP_BLOCK_HEADER) return ALP_E_BLOCK_SHORT;
    b->scheme = p[0];
    b->factor = p[1];
    b->exponent = p[2];
    int flags = p[3];
    b->count = alp_ld32(p + 4);
    b->exc_count = alp_ld32(p + 8);
    b->body_bytes = alp_ld32(p + 12);
    b->base = (int64_t)alp_ld64(p + 16);
    b->width = p[24];
    if (b->count == 0 || b->count > ALP_BLOCK) return ALP_E_BLOCK_COUNT;
    size_t rest = avail - ALP_BLOCK_HEADER;
    const uint8_t *q = p + ALP_BLOCK_HEADER;
    if (b->scheme == 1) {
        size_t need = (size_t)b->count * vsize;
        if (need > rest) return ALP_E_BLOCK_SHORT;
        /* the draft format sizes a PLAIN block by body_bytes and requires exactly the raw values
         * (so does every writer of this project): any other value leaves the next block's
         * offset ambiguous */
        if ((size_t)b->body_bytes != need) return ALP_E_PLAIN_BODY;
        /* the other header fields mean nothing for PLAIN: never let them index a table */
        b->factor = b->exponent = b->width = 0;
        b->base = 0;
        b->bitmap = NULL;
        b->exc = NULL;
        b->exc_count = 0;
        b->body = q;
        b->packed = need;
        b->size = ALP_BLOCK_HEADER + need;
        return ALP_OK;
    }
    if (b->scheme != 0) return ALP_E_SCHEME;
    if (b->exponent > (is64 ? ALP_MAX_E64 : ALP_MAX_E32) || b->factor > b->exponent) return ALP_E_EF;
    if (b->width > (is64 ? 64 : 32)) return ALP_E_WIDTH;
    if (!is64 && (b->base < INT32_MIN || b->base > INT32_MAX)) return ALP_E_BASE;
    if (b->exc_count > b->count || ((flags & 1) == 0 && b->exc_count != 0)) return ALP_E_EXC;
    size_t bm = (flags & 1) ? ((size_t)b->count + 7) / 8 : 0;
    size_t excb = (size_t)b->exc_count * vsize;
    b->packed = alp_packed_bytes(b->count, b->width);
    if (b->body_bytes < b->packed) return ALP_E_BODY;
    if (bm > rest || excb > rest - bm || (size_t)b->body_bytes > rest - bm - excb) return ALP_E_BLOCK_SHORT;
    b->bitmap = bm ? q : NULL;
    b->exc = q + bm;
    b->body = q + bm + excb;
    b->size = ALP_BLOCK_HEADER + bm + excb + b->body_bytes;
    if (bm) {
        if (alp_popcount_bytes(q, bm) != b->exc_count) return ALP_E_BITMAP;
        unsigned tail = b->count & 7;
        if (tail && (q[bm - 1] >> tail)) return ALP_E_BITMAP;
    }
    return ALP_OK;
}

/* Put the raw exception values at their positions (bitmap order = increasing position). The
 * bitmap is walked 64 bits at a time (a loop exit mispredicts once per word instead of once per
 * byte: measured 2.9 vs 4.5 us per 64K floats with 4 % exceptions). */
TSFILE_INLINE uint64_t alp_bitmap_word(const uint8_t *bm, size_t nb, size_t w)
{
    if (TSFILE_LIKELY(nb - w >= 8)) return alp_ld64(bm + w);
    uint64_t m = 0;
    for (size_t t = 0; t < nb - w; t++) m |= (uint64_t)bm[w + t] << (8 * t);
    return m;
}

#define ALP_DEFINE_PATCH(SUF, T, VSIZE)                                                              \
    static inline void alp_patch_##SUF(const alp_block_t *b, T *out)                                \
    {                                                                                               \
        if (!b->bitmap) return;                                                                     \
        size_t nb = ((size_t)b->count + 7) / 8;                                                     \
        const uint8_t *src = b->exc;                                                                \
        for (size_t w = 0; w < nb; w += 8) {                                                        \
            uint64_t m = alp_bitmap_word(b->bitmap, nb, w);                                         \
            while (m) {                                                                             \
                size_t i = w * 8 + (size_t)__builtin_ctzll(m);                                      \
                m &= m - 1;                                                                         \
                memcpy(out + i, src, VSIZE);                                                        \
                src += VSIZE;                                                                       \
            }                                                                                       \
        }                                                                                           \
    }

/* alp_patch_f64, alp_patch_f32 */
ALP_DEFINE_PATCH(f64, double, 8)
ALP_DEFINE_PATCH(f32, float, 4)

/*
 * Generates alp_block_decode_SUF: one validated block into out[0 .. count). `avail_from_body` =
 * bytes readable from the body start to the end of the data (guard bytes for word loads are
 * checked, not assumed). The SIMD `kernel` runs where SIMD_SAFE(width, base) holds (DOUBLE:
 * alp_f64_simd_safe; FLOAT: always), else the scalar one. A macro because the two types differ
 * only in T, IT, VSIZE (value bytes), the power tables and that test.
 */
#define ALP_DEFINE_BLOCK_DECODE(SUF, T, IT, VSIZE, POW, INV, SIMD_SAFE)                             \
    static inline void alp_block_decode_##SUF(const alp_block_t *b, size_t avail_from_body,         \
                                              alp_decode_##SUF##_fn kernel, T *out)                 \
    {                                                                                               \
        if (b->scheme == 1) {                                                                       \
            memcpy(out, b->body, (size_t)b->count * (VSIZE));                                       \
            return;                                                                                 \
        }                                                                                           \
        T P = POW[b->factor], Ie = INV[b->exponent];                                                \
        const uint8_t *body = b->body;                                                              \
        uint8_t pad[ALP_BLOCK * (VSIZE) + ALP_GUARD + 32];                                          \
        if (b->width && avail_from_body < b->packed + ALP_GUARD) {                                  \
            /* not enough bytes after the packed bits for word loads: work on a padded copy */      \
            memcpy(pad, body, b->packed);                                                           \
            memset(pad + b->packed, 0, ALP_GUARD + 32);                                             \
            body = pad;                                                                             \
        }                                                                                           \
        if (kernel && b->width && SIMD_SAFE(b->width, b->base))                                     \
            kernel(body, b->count, b->width, (IT)b->base, P, Ie, out);                              \
        else                                                                                        \
            alp_decode_##SUF##_scalar(body, b->count, b->width, (IT)b->base, P, Ie, out);           \
        alp_patch_##SUF(b, out);                                                                    \
    }

#define ALP_F32_SIMD_SAFE(width, base) 1
/* alp_block_decode_f64, alp_block_decode_f32 */
ALP_DEFINE_BLOCK_DECODE(f64, double, int64_t, 8, ALP_POW10_F64, ALP_INV10_F64, alp_f64_simd_safe)
ALP_DEFINE_BLOCK_DECODE(f32, float, int32_t, 4, ALP_POW10_F32, ALP_INV10_F32, ALP_F32_SIMD_SAFE)

/* ------------------------------------------------------------------ page header */

static inline int alp_parse_page_header(const uint8_t *d, size_t nbytes, int is64,
                                        uint32_t *value_count, uint32_t *block_count, alp_err_t *err)
{
    err->offset = 0;
    if (nbytes < ALP_PAGE_HEADER) return err->code = ALP_E_PAGE_SHORT;
    if (d[0] != ALP_VERSION) return err->code = ALP_E_VERSION;
    err->offset = 1;
    if (d[1] != (is64 ? 1 : 0)) return err->code = ALP_E_TYPE;
    *value_count = alp_ld32(d + 4);
    *block_count = alp_ld32(d + 8);
    err->offset = 4;
    /* every block holds 1..1024 values and takes at least 28 bytes */
    if ((uint64_t)*block_count * ALP_BLOCK_HEADER > nbytes - ALP_PAGE_HEADER ||
        (uint64_t)*value_count > (uint64_t)*block_count * ALP_BLOCK ||
        *value_count < *block_count)
        return err->code = ALP_E_PAGE_COUNTS;
    return err->code = ALP_OK;
}

/*
 * Decode the first `count` values of a page into out. Returns the bytes consumed (up to the end of
 * the last block read), or -1 with *err set. `kernel` NULL = scalar.
 */
#define ALP_DEFINE_PAGE_DECODER(SUF, T, IS64)                                                        \
    static inline ptrdiff_t alp_decode_page_##SUF(const uint8_t *d, size_t nbytes, T *out,          \
                                                  size_t count, alp_decode_##SUF##_fn kernel,       \
                                                  alp_err_t *err)                                   \
    {                                                                                               \
        uint32_t vc, bc;                                                                            \
        if (alp_parse_page_header(d, nbytes, IS64, &vc, &bc, err)) return -1;                       \
        if (count > vc) { err->code = ALP_E_FEWER; err->offset = 4; return -1; }                    \
        size_t off = ALP_PAGE_HEADER, done = 0;                                                     \
        uint32_t blk = 0;                                                                           \
        T tmp[ALP_BLOCK];                                                                           \
        while (done < count || (count == vc && blk < bc)) {                                         \
            alp_block_t b;                                                                          \
            err->offset = off;                                                                      \
            if (blk >= bc) { err->code = ALP_E_TOTAL; return -1; }                                  \
            int rc = alp_parse_block(d + off, nbytes - off, IS64, &b);                              \
            if (rc) { err->code = rc; return -1; }                                                  \
            if ((size_t)b.count > (size_t)vc - done) { err->code = ALP_E_TOTAL; return -1; }        \
            size_t avail = nbytes - (size_t)(b.body - d);                                           \
            if ((size_t)b.count <= count - done) {                                                  \
                alp_block_decode_##SUF(&b, avail, kernel, out + done);                              \
            } else {                                                                                \
                alp_block_decode_##SUF(&b, avail, kernel, tmp);                                     \
                memcpy(out + done, tmp, (count - done) * sizeof(T));                                \
            }                                                                                       \
            done += b.count;                                                                        \
            off += b.size;                                                                          \
            blk++;                                                                                  \
        }                                                                                           \
        if (count == vc && done != vc) { err->offset = off; err->code = ALP_E_TOTAL; return -1; }   \
        err->code = ALP_OK;                                                                         \
        return (ptrdiff_t)off;                                                                      \
    }

/* alp_decode_page_f64, alp_decode_page_f32 */
ALP_DEFINE_PAGE_DECODER(f64, double, 1)
ALP_DEFINE_PAGE_DECODER(f32, float, 0)

/* ------------------------------------------------------------------ per-value stream decoder */

typedef struct {
    const uint8_t *d;
    size_t nbytes, off;      /* off: start of the next block */
    uint32_t vc, bc, blk;    /* page counts, blocks opened */
    uint32_t produced;
    int is64;
    alp_block_t b;
    uint32_t i, k;           /* position in the block, exceptions used */
    int open;
    double P64, I64;
    float P32, I32;
} alp_stream_t;

static inline int alp_stream_init(alp_stream_t *s, const uint8_t *d, size_t nbytes, int is64, alp_err_t *err)
{
    memset(s, 0, sizeof(*s));
    s->d = d;
    s->nbytes = nbytes;
    s->is64 = is64;
    s->off = ALP_PAGE_HEADER;
    return alp_parse_page_header(d, nbytes, is64, &s->vc, &s->bc, err);
}

/* Open the next block when the current one is used up. 1 = a value is available, 0 = page end. */
static inline int alp_stream_ready(alp_stream_t *s, alp_err_t *err)
{
    if (s->open && s->i < s->b.count) return 1;
    if (s->produced == s->vc) {
        if (s->blk == s->bc) return 0;
        /* the header lists more blocks than the values need: the batch driver parses the next
         * one before it finds the count too large, so a damaged block is reported as such there;
         * the same error here (into a local: the current block stays as it was) */
        alp_block_t extra;
        err->offset = s->off;
        int rc = alp_parse_block(s->d + s->off, s->nbytes - s->off, s->is64, &extra);
        err->code = rc ? rc : ALP_E_TOTAL;
        return -1;
    }
    err->offset = s->off;
    if (s->blk >= s->bc) { err->code = ALP_E_TOTAL; return -1; }
    int rc = alp_parse_block(s->d + s->off, s->nbytes - s->off, s->is64, &s->b);
    if (rc) { err->code = rc; return -1; }
    if (s->b.count > s->vc - s->produced) { err->code = ALP_E_TOTAL; return -1; }
    s->off += s->b.size;
    s->blk++;
    s->i = 0;
    s->k = 0;
    s->open = 1;
    s->P64 = ALP_POW10_F64[s->b.factor % (ALP_MAX_E64 + 1)];
    s->I64 = ALP_INV10_F64[s->b.exponent % (ALP_MAX_E64 + 1)];
    s->P32 = ALP_POW10_F32[s->b.factor % (ALP_MAX_E32 + 1)];
    s->I32 = ALP_INV10_F32[s->b.exponent % (ALP_MAX_E32 + 1)];
    return 1;
}

/* The packed value i, reading only the body's body_bytes bytes (no guard assumed): one 8-byte
 * load while 8 bytes remain (plus the 9th byte a value straddling it needs, which then lies inside
 * the value's own bytes), else the remaining bytes copied into a zeroed word. Every value of the
 * block lies inside alp_packed_bytes(count, width) <= body_bytes, checked by alp_parse_block. */
TSFILE_INLINE uint64_t alp_extract_bounded(const alp_block_t *b, uint32_t i)
{
    const unsigned w = (unsigned)b->width;
    if (w == 0) return 0;
    const size_t bit = (size_t)i * w;
    const size_t byte = bit >> 3;
    const unsigned s = (unsigned)(bit & 7);
    const uint8_t *p = b->body + byte;
    const size_t avail = (size_t)b->body_bytes - byte; /* >= 1: the value starts in the body */
    uint64_t v;
    if (TSFILE_LIKELY(avail >= 8)) {
        v = alp_ld64(p) >> s;
        if (s + w > 64) v |= (uint64_t)p[8] << (64 - s);
    } else {
        /* fewer than 8 bytes left: the value fits in them (s + w <= 8 * avail < 64) */
        uint8_t tmp[8] = {0};
        memcpy(tmp, p, avail);
        v = alp_ld64(tmp) >> s;
    }
    return w == 64 ? v : (v & ((UINT64_C(1) << w) - 1));
}

/* 1 with *out set, 0 at the end of the page, -1 on error. Kept out of line on purpose (as
 * ts2diff_stream_next_i64): the per_value path models a streaming decoder interface, one C call
 * per value; an inlined copy in the caller's loop would just be a worse batch decoder. */
/* Generates alp_stream_next_SUF (T, IT / UT, VSIZE value bytes, BITS the suffix of the stream's
 * P / I fields): a macro because the two types differ only in these names. */
#define ALP_DEFINE_STREAM_NEXT(SUF, T, IT, UT, VSIZE, BITS)                                         \
    static ALP_NOINLINE int alp_stream_next_##SUF(alp_stream_t *s, T *out, alp_err_t *err)          \
    {                                                                                               \
        int r = alp_stream_ready(s, err);                                                           \
        if (r <= 0) return r;                                                                       \
        alp_block_t *b = &s->b;                                                                     \
        uint32_t i = s->i++;                                                                        \
        s->produced++;                                                                              \
        if (b->scheme == 1) {                                                                       \
            memcpy(out, b->body + (VSIZE) * (size_t)i, (VSIZE));                                    \
        } else if (b->bitmap && (b->bitmap[i >> 3] >> (i & 7) & 1)) {                               \
            memcpy(out, b->exc + (VSIZE) * (size_t)s->k++, (VSIZE));                                \
        } else {                                                                                    \
            IT n = (IT)((UT)b->base + (UT)alp_extract_bounded(b, i));                               \
            *out = (T)n * s->P##BITS * s->I##BITS;                                                  \
        }                                                                                           \
        return 1;                                                                                   \
    }

/* alp_stream_next_f64, alp_stream_next_f32 */
ALP_DEFINE_STREAM_NEXT(f64, double, int64_t, uint64_t, 8, 64)
ALP_DEFINE_STREAM_NEXT(f32, float, int32_t, uint32_t, 4, 32)

/* ------------------------------------------------------------------ encoder: (e, f) search */

typedef struct { uint8_t e, f; } alp_pair_t;

/* Estimated bits of `m` values for one pair: width * m + exceptions * (value bits + 16). */
#define ALP_DEFINE_SCORE(SUF, T, IT, NBITS, MAXE, POW, INV)                                          \
    static inline uint64_t alp_score_##SUF(const T *s, size_t m, int e, int f,                       \
                                           alp_analyze_##SUF##_fn an, size_t *exc_out)              \
    {                                                                                               \
        IT ints[ALP_SAMPLES];                                                                       \
        uint8_t bm[ALP_SAMPLES / 8];                                                                \
        IT mn, mx;                                                                                  \
        size_t exc = an(s, m, POW[e], INV[f], POW[f], INV[e], ints, bm, &mn, &mx);                  \
        int w = exc < m ? tsfile_bit_length64((uint64_t)((int64_t)mx - (int64_t)mn)) : 0;               \
        *exc_out = exc;                                                                             \
        return (uint64_t)w * m + (uint64_t)exc * (NBITS + 16);                                      \
    }

/* alp_score_f64, alp_score_f32 */
ALP_DEFINE_SCORE(f64, double, int64_t, 64, ALP_MAX_E64, ALP_POW10_F64, ALP_INV10_F64)
ALP_DEFINE_SCORE(f32, float, int32_t, 32, ALP_MAX_E32, ALP_POW10_F32, ALP_INV10_F32)

/*
 * Page level: score every pair on ALP_SAMPLES values spread over the page and keep the best
 * ALP_TOP_K (ties keep the earlier pair: smaller e, then smaller f). Returns the number kept;
 * 0 when no pair keeps any sampled value (the page goes PLAIN without block-level search).
 */
#define ALP_DEFINE_PAGE_SEARCH(SUF, T, MAXE)                                                         \
    static inline int alp_page_search_##SUF(const T *v, size_t n, alp_analyze_##SUF##_fn an,         \
                                            alp_pair_t *top)                                        \
    {                                                                                               \
        T s[ALP_SAMPLES];                                                                           \
        size_t m = n < ALP_SAMPLES ? n : ALP_SAMPLES;                                               \
        for (size_t i = 0; i < m; i++) s[i] = v[(i * n) / m];                                       \
        uint64_t best[ALP_TOP_K];                                                                   \
        int kept = 0, any = 0;                                                                      \
        for (int e = 0; e <= MAXE; e++) {                                                           \
            for (int f = 0; f <= e; f++) {                                                          \
                size_t exc;                                                                         \
                uint64_t sc = alp_score_##SUF(s, m, e, f, an, &exc);                                \
                if (exc == m) continue;                                                             \
                any = 1;                                                                            \
                int pos = kept;                                                                     \
                while (pos > 0 && best[pos - 1] > sc) pos--;                                        \
                if (pos >= ALP_TOP_K) continue;                                                     \
                int last = kept < ALP_TOP_K ? kept : ALP_TOP_K - 1;                                 \
                for (int j = last; j > pos; j--) { best[j] = best[j - 1]; top[j] = top[j - 1]; }    \
                best[pos] = sc;                                                                     \
                top[pos].e = (uint8_t)e;                                                            \
                top[pos].f = (uint8_t)f;                                                            \
                if (kept < ALP_TOP_K) kept++;                                                       \
            }                                                                                       \
        }                                                                                           \
        return any ? kept : 0;                                                                      \
    }

/* alp_page_search_f64, alp_page_search_f32 */
ALP_DEFINE_PAGE_SEARCH(f64, double, ALP_MAX_E64)
ALP_DEFINE_PAGE_SEARCH(f32, float, ALP_MAX_E32)

/* Block level: try the page's candidates on ALP_SAMPLES values of the block; stop after two
 * candidates in a row that do no better. */
#define ALP_DEFINE_BLOCK_PICK(SUF, T)                                                                \
    static inline alp_pair_t alp_block_pick_##SUF(const T *v, size_t n, const alp_pair_t *top,       \
                                                  int k, alp_analyze_##SUF##_fn an)                 \
    {                                                                                               \
        if (k == 1) return top[0];                                                                  \
        T s[ALP_SAMPLES];                                                                           \
        size_t m = n < ALP_SAMPLES ? n : ALP_SAMPLES;                                               \
        for (size_t i = 0; i < m; i++) s[i] = v[(i * n) / m];                                       \
        alp_pair_t best = top[0];                                                                   \
        uint64_t best_sc = UINT64_MAX;                                                              \
        int worse = 0;                                                                              \
        for (int j = 0; j < k; j++) {                                                               \
            size_t exc;                                                                             \
            uint64_t sc = alp_score_##SUF(s, m, top[j].e, top[j].f, an, &exc);                      \
            if (sc < best_sc) { best_sc = sc; best = top[j]; worse = 0; }                           \
            else if (++worse >= 2) break;                                                           \
        }                                                                                           \
        return best;                                                                                \
    }

/* alp_block_pick_f64, alp_block_pick_f32 */
ALP_DEFINE_BLOCK_PICK(f64, double)
ALP_DEFINE_BLOCK_PICK(f32, float)

/* ------------------------------------------------------------------ encoder: blocks and pages */

/* Worst-case page size: PLAIN blocks plus headers. */
static inline size_t alp_encode_bound(size_t n, int is64)
{
    size_t blocks = (n + ALP_BLOCK - 1) / ALP_BLOCK;
    return ALP_PAGE_HEADER + blocks * ALP_BLOCK_HEADER + n * (is64 ? 8 : 4);
}

static inline void alp_write_block_header(uint8_t *p, int scheme, int f, int e, int flags,
                                          uint32_t count, uint32_t exc, uint32_t body,
                                          int64_t base, int width)
{
    p[0] = (uint8_t)scheme;
    p[1] = (uint8_t)f;
    p[2] = (uint8_t)e;
    p[3] = (uint8_t)flags;
    alp_st32(p + 4, count);
    alp_st32(p + 8, exc);
    alp_st32(p + 12, body);
    alp_st64(p + 16, (uint64_t)base);
    p[24] = (uint8_t)width;
    p[25] = p[26] = p[27] = 0;
}

/* PLAIN block: body_bytes holds the size of the raw values, as the draft format requires;
 * factor, exponent, flags, base and width are 0 (readers ignore them in a PLAIN block). */
static inline size_t alp_write_plain(const void *v, size_t n, size_t vsize, uint8_t *out)
{
    alp_write_block_header(out, 1, 0, 0, 0, (uint32_t)n, 0, (uint32_t)(n * vsize), 0, 0);
    memcpy(out + ALP_BLOCK_HEADER, v, n * vsize);
    return ALP_BLOCK_HEADER + n * vsize;
}

#define ALP_DEFINE_BLOCK_ENCODER(SUF, T, IT, UT, VSIZE, POW, INV, PACK)                              \
    static inline size_t alp_encode_block_##SUF(const T *v, size_t n, alp_pair_t pr,                \
                                                alp_analyze_##SUF##_fn an, uint8_t *out)            \
    {                                                                                               \
        IT ints[ALP_BLOCK];                                                                         \
        uint8_t bitmap[ALP_BLOCK / 8];                                                              \
        IT mn, mx;                                                                                  \
        int e = pr.e, f = pr.f;                                                                     \
        size_t exc = an(v, n, POW[e], INV[f], POW[f], INV[e], ints, bitmap, &mn, &mx);              \
        if (exc == n) return alp_write_plain(v, n, VSIZE, out);                                     \
        int w = tsfile_bit_length64((uint64_t)((int64_t)mx - (int64_t)mn));                            \
        size_t bm = exc ? (n + 7) / 8 : 0;                                                          \
        size_t body = alp_body_bytes(n, w);                                                         \
        size_t size = ALP_BLOCK_HEADER + bm + exc * VSIZE + body;                                   \
        if (size >= ALP_BLOCK_HEADER + n * VSIZE) return alp_write_plain(v, n, VSIZE, out);         \
        alp_write_block_header(out, 0, f, e, exc ? 1 : 0, (uint32_t)n, (uint32_t)exc,               \
                               (uint32_t)body, (int64_t)mn, w);                                     \
        uint8_t *q = out + ALP_BLOCK_HEADER;                                                        \
        if (exc) {                                                                                  \
            memcpy(q, bitmap, bm);                                                                  \
            q += bm;                                                                                \
            for (size_t byte = 0; byte < bm; byte++) {                                              \
                unsigned msk = bitmap[byte];                                                        \
                while (msk) {                                                                       \
                    size_t i = byte * 8 + (size_t)__builtin_ctz(msk);                               \
                    msk &= msk - 1;                                                                 \
                    memcpy(q, v + i, VSIZE);                                                        \
                    q += VSIZE;                                                                     \
                    ints[i] = mn; /* a non-exception integer: does not widen the packing */         \
                }                                                                                   \
            }                                                                                       \
        }                                                                                           \
        UT *u = (UT *)ints;                                                                         \
        for (size_t i = 0; i < n; i++) u[i] = (UT)ints[i] - (UT)mn;                                 \
        size_t packed = alp_packed_bytes(n, w);                                                     \
        PACK(u, n, w, q);                                                                           \
        memset(q + packed, 0, body - packed);                                                       \
        return size;                                                                                \
    }

/* alp_encode_block_f64, alp_encode_block_f32 */
ALP_DEFINE_BLOCK_ENCODER(f64, double, int64_t, uint64_t, 8, ALP_POW10_F64, ALP_INV10_F64, alp_pack_u64)
ALP_DEFINE_BLOCK_ENCODER(f32, float, int32_t, uint32_t, 4, ALP_POW10_F32, ALP_INV10_F32, alp_pack_u32)

/*
 * Encode a page of n values into out (capacity cap >= alp_encode_bound(n)). `an` is the value
 * loop (scalar or SIMD; identical results). Returns the size, or 0 when cap is too small.
 */
#define ALP_DEFINE_PAGE_ENCODER(SUF, T, IS64, VSIZE)                                                 \
    static inline size_t alp_encode_page_##SUF(const T *v, size_t n, uint8_t *out, size_t cap,      \
                                               alp_analyze_##SUF##_fn an)                           \
    {                                                                                               \
        if (cap < alp_encode_bound(n, IS64) || n > UINT32_MAX) return 0;                            \
        alp_pair_t top[ALP_TOP_K];                                                                  \
        int k = n ? alp_page_search_##SUF(v, n, an, top) : 0;                                       \
        size_t blocks = (n + ALP_BLOCK - 1) / ALP_BLOCK;                                            \
        out[0] = ALP_VERSION;                                                                       \
        out[1] = IS64 ? 1 : 0;                                                                      \
        out[2] = out[3] = 0;                                                                        \
        alp_st32(out + 4, (uint32_t)n);                                                             \
        alp_st32(out + 8, (uint32_t)blocks);                                                        \
        alp_st32(out + 12, 0);                                                                      \
        size_t o = ALP_PAGE_HEADER;                                                                 \
        for (size_t start = 0; start < n; start += ALP_BLOCK) {                                     \
            size_t m = n - start < ALP_BLOCK ? n - start : ALP_BLOCK;                               \
            if (k == 0) {                                                                           \
                o += alp_write_plain(v + start, m, VSIZE, out + o);                                 \
            } else {                                                                                \
                alp_pair_t pr = alp_block_pick_##SUF(v + start, m, top, k, an);                     \
                o += alp_encode_block_##SUF(v + start, m, pr, an, out + o);                         \
            }                                                                                       \
        }                                                                                           \
        return o;                                                                                   \
    }

/* alp_encode_page_f64, alp_encode_page_f32 */
ALP_DEFINE_PAGE_ENCODER(f64, double, 1, 8)
ALP_DEFINE_PAGE_ENCODER(f32, float, 0, 4)

#endif /* TSFILE_ALP_SCALAR_H */
