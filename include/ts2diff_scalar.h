/*
 * ts2diff_scalar.h: TS_2DIFF (Apache TsFile) block parsing, scalar decode kernels, the streaming
 * (one value per call) decoder and the encoder. Portable C99; no SIMD.
 *
 * Format (tsfile-format.md 8.3): a sequence of blocks, each
 *     i32 n, i32 width, T min_delta, T first          (T = i32 or i64, big-endian; 16 / 24 bytes)
 *     ceil(n * width / 8) bytes: n values r[i], `width` bits each, MSB-first
 * holding the n + 1 values  v0 = first,  v[i+1] = v[i] + min_delta + r[i]  (wrapping arithmetic).
 *
 * Safety: every header is checked against the bytes present before the packed bits are read; the
 * kernels read only inside [packed, end), where `end` is the end of the caller's buffer (so a
 * kernel may look past its own block into later bytes of the same buffer, never beyond).
 */
#ifndef TS2DIFF_SCALAR_H
#define TS2DIFF_SCALAR_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bit_length.h"
#include "tsfile_isa.h"

/* Largest delta count accepted in one block. Writers use 128; other block sizes must decode, but a
 * bound is needed because a width-0 block of n deltas takes no packed bytes: with this bound a
 * buffer of B bytes decodes to at most ~256 * B values, so callers may size outputs from
 * ts2diff_count_values() without trusting anything else. */
#define TS2DIFF_MAX_BLOCK_DELTAS 4096

#if defined(__GNUC__) || defined(__clang__)
#  define TS2DIFF_NOINLINE __attribute__((noinline))
#else
#  define TS2DIFF_NOINLINE
#endif

/* ---- errors ---------------------------------------------------------------------------------- */

enum {
    TS2DIFF_OK = 0,
    TS2DIFF_E_HEADER_TRUNC = 1, /* value: header size, extra: bytes left */
    TS2DIFF_E_NEG_COUNT = 2,    /* value: n */
    TS2DIFF_E_COUNT_LIMIT = 3,  /* value: n */
    TS2DIFF_E_WIDTH = 4,        /* value: width, extra: max width */
    TS2DIFF_E_DATA_TRUNC = 5,   /* value: packed bytes needed, extra: bytes left after the header */
    TS2DIFF_E_SHORT = 6,        /* value: values found, extra: values requested */
};

typedef struct {
    int code;
    int64_t offset; /* byte offset (into the caller's buffer) of the block header concerned */
    int64_t value;
    int64_t extra;
} ts2diff_error;

TSFILE_INLINE void ts2diff_set_error(ts2diff_error *e, int code, size_t offset, int64_t value,
                                     int64_t extra)
{
    e->code = code;
    e->offset = (int64_t)offset;
    e->value = value;
    e->extra = extra;
}

/* ---- byte order -------------------------------------------------------------------------------- */

TSFILE_INLINE uint64_t ts2diff_bswap64(uint64_t v)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_bswap64(v);
#else
    v = ((v & 0x00000000FFFFFFFFull) << 32) | (v >> 32);
    v = ((v & 0x0000FFFF0000FFFFull) << 16) | ((v >> 16) & 0x0000FFFF0000FFFFull);
    return ((v & 0x00FF00FF00FF00FFull) << 8) | ((v >> 8) & 0x00FF00FF00FF00FFull);
#endif
}

TSFILE_INLINE uint32_t ts2diff_bswap32(uint32_t v)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_bswap32(v);
#else
    return (v >> 24) | ((v >> 8) & 0xFF00u) | ((v << 8) & 0xFF0000u) | (v << 24);
#endif
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#  define TS2DIFF_BE64(v) (v)
#  define TS2DIFF_BE32(v) (v)
#else
#  define TS2DIFF_BE64(v) ts2diff_bswap64(v)
#  define TS2DIFF_BE32(v) ts2diff_bswap32(v)
#endif

TSFILE_INLINE uint64_t ts2diff_load_be64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return TS2DIFF_BE64(v);
}

TSFILE_INLINE uint32_t ts2diff_load_be32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return TS2DIFF_BE32(v);
}

TSFILE_INLINE void ts2diff_store_be64(uint8_t *p, uint64_t v)
{
    v = TS2DIFF_BE64(v);
    memcpy(p, &v, 8);
}

TSFILE_INLINE void ts2diff_store_be32(uint8_t *p, uint32_t v)
{
    v = TS2DIFF_BE32(v);
    memcpy(p, &v, 4);
}

/* ---- block headers ----------------------------------------------------------------------------- */

typedef struct {
    int64_t n;          /* deltas in the block (values = n + 1) */
    int width;          /* bits per packed delta */
    uint64_t min_delta; /* int32 blocks: sign-extended (only the low 32 bits matter) */
    uint64_t first;
    size_t data_off;    /* offset of the packed bits in the buffer */
    size_t data_len;    /* ceil(n * width / 8) */
} ts2diff_block;

TSFILE_INLINE size_t ts2diff_header_size(int is64) { return is64 ? 24 : 16; }

/* Parse and check the block header at `pos` (pos <= nbytes). 0 on success, -1 with *e set. */
TSFILE_INLINE int ts2diff_parse_block(const uint8_t *buf, size_t nbytes, size_t pos, int is64,
                                      ts2diff_block *b, ts2diff_error *e)
{
    const size_t hdr = ts2diff_header_size(is64);
    const size_t left = nbytes - pos;
    if (TSFILE_UNLIKELY(left < hdr)) {
        ts2diff_set_error(e, TS2DIFF_E_HEADER_TRUNC, pos, (int64_t)hdr, (int64_t)left);
        return -1;
    }
    const uint8_t *p = buf + pos;
    const int32_t n = (int32_t)ts2diff_load_be32(p);
    const int32_t w = (int32_t)ts2diff_load_be32(p + 4);
    const int maxw = is64 ? 64 : 32;
    if (TSFILE_UNLIKELY(n < 0)) {
        ts2diff_set_error(e, TS2DIFF_E_NEG_COUNT, pos, n, 0);
        return -1;
    }
    if (TSFILE_UNLIKELY(n > TS2DIFF_MAX_BLOCK_DELTAS)) {
        ts2diff_set_error(e, TS2DIFF_E_COUNT_LIMIT, pos, n, TS2DIFF_MAX_BLOCK_DELTAS);
        return -1;
    }
    if (TSFILE_UNLIKELY(w < 0 || w > maxw)) {
        ts2diff_set_error(e, TS2DIFF_E_WIDTH, pos, w, maxw);
        return -1;
    }
    const size_t len = ((size_t)n * (size_t)w + 7) >> 3;
    if (TSFILE_UNLIKELY(left - hdr < len)) {
        ts2diff_set_error(e, TS2DIFF_E_DATA_TRUNC, pos, (int64_t)len, (int64_t)(left - hdr));
        return -1;
    }
    b->n = n;
    b->width = w;
    if (is64) {
        b->min_delta = ts2diff_load_be64(p + 8);
        b->first = ts2diff_load_be64(p + 16);
    } else {
        b->min_delta = (uint64_t)(int64_t)(int32_t)ts2diff_load_be32(p + 8);
        b->first = (uint64_t)(int64_t)(int32_t)ts2diff_load_be32(p + 12);
    }
    b->data_off = pos + hdr;
    b->data_len = len;
    return 0;
}

/* Number of values in the whole buffer (walks and checks every header); -1 with *e set. */
static inline int64_t ts2diff_count_values_c(const uint8_t *buf, size_t nbytes, int is64,
                                             ts2diff_error *e)
{
    size_t pos = 0;
    int64_t total = 0;
    ts2diff_block b;
    while (pos < nbytes) {
        if (ts2diff_parse_block(buf, nbytes, pos, is64, &b, e) < 0) return -1;
        total += b.n + 1;
        pos = b.data_off + b.data_len;
    }
    return total;
}

/* ---- scalar unpack + prefix sum ---------------------------------------------------------------- */

/*
 * Decode deltas i0 .. i1-1 of a block whose packed bits start at `packed` (readable up to `end`),
 * writing out[i + 1]; `acc` is the value before delta i0. Returns the value after delta i1-1.
 * A delta's bits are read with one 8-byte big-endian load at its first byte (plus a ninth byte for
 * int64 widths above 56); the last few deltas, whose window would pass `end`, are read from a
 * zero-padded copy of the remaining bytes.
 */
TSFILE_INLINE uint64_t ts2diff_run_u64(const uint8_t *packed, const uint8_t *end, int w,
                                       uint64_t min, uint64_t acc, int64_t *out, size_t i0,
                                       size_t i1)
{
    size_t i = i0;
    if (w == 0) {
        for (; i < i1; i++) {
            acc += min;
            out[i + 1] = (int64_t)acc;
        }
        return acc;
    }
    const size_t avail = (size_t)(end - packed);
    /* deltas i with (i*w >> 3) + 9 <= avail can use the direct loads */
    size_t safe = avail >= 9 ? ((avail - 8) * 8 - 1) / (size_t)w + 1 : 0;
    if (safe > i1) safe = i1;
    const unsigned sh = 64u - (unsigned)w;
    if (w <= 56) {
        for (; i < safe; i++) {
            const uint64_t bit = (uint64_t)i * (uint64_t)w;
            const uint64_t x = ts2diff_load_be64(packed + (bit >> 3)) << (bit & 7);
            acc += min + (x >> sh);
            out[i + 1] = (int64_t)acc;
        }
    } else {
        for (; i < safe; i++) {
            const uint64_t bit = (uint64_t)i * (uint64_t)w;
            const uint8_t *p = packed + (bit >> 3);
            const unsigned s = (unsigned)(bit & 7);
            uint64_t x = ts2diff_load_be64(p) << s;
            x |= (uint64_t)p[8] >> (8 - s); /* s == 0: p[8] >> 8 == 0 */
            acc += min + (x >> sh);
            out[i + 1] = (int64_t)acc;
        }
    }
    if (i < i1) {
        /* tail: fewer than 9 bytes remain after the first delta's byte */
        uint8_t tmp[32];
        const size_t b0 = (size_t)(((uint64_t)i * (uint64_t)w) >> 3);
        memset(tmp, 0, sizeof tmp);
        memcpy(tmp, packed + b0, avail - b0);
        for (; i < i1; i++) {
            const uint64_t bit = (uint64_t)i * (uint64_t)w - (uint64_t)b0 * 8;
            const uint8_t *p = tmp + (bit >> 3);
            const unsigned s = (unsigned)(bit & 7);
            uint64_t x = ts2diff_load_be64(p) << s;
            x |= (uint64_t)p[8] >> (8 - s);
            acc += min + (x >> sh);
            out[i + 1] = (int64_t)acc;
        }
    }
    return acc;
}

/* int32 twin: widths 0..32, one 8-byte window always holds a delta (bit shift <= 7, +32). */
TSFILE_INLINE uint32_t ts2diff_run_u32(const uint8_t *packed, const uint8_t *end, int w,
                                       uint32_t min, uint32_t acc, int32_t *out, size_t i0,
                                       size_t i1)
{
    size_t i = i0;
    if (w == 0) {
        for (; i < i1; i++) {
            acc += min;
            out[i + 1] = (int32_t)acc;
        }
        return acc;
    }
    const size_t avail = (size_t)(end - packed);
    size_t safe = avail >= 8 ? ((avail - 7) * 8 - 1) / (size_t)w + 1 : 0;
    if (safe > i1) safe = i1;
    const unsigned sh = 64u - (unsigned)w;
    for (; i < safe; i++) {
        const uint64_t bit = (uint64_t)i * (uint64_t)w;
        const uint64_t x = ts2diff_load_be64(packed + (bit >> 3)) << (bit & 7);
        acc += min + (uint32_t)(x >> sh);
        out[i + 1] = (int32_t)acc;
    }
    if (i < i1) {
        uint8_t tmp[32];
        const size_t b0 = (size_t)(((uint64_t)i * (uint64_t)w) >> 3);
        memset(tmp, 0, sizeof tmp);
        memcpy(tmp, packed + b0, avail - b0);
        for (; i < i1; i++) {
            const uint64_t bit = (uint64_t)i * (uint64_t)w - (uint64_t)b0 * 8;
            const uint64_t x = ts2diff_load_be64(tmp + (bit >> 3)) << (bit & 7);
            acc += min + (uint32_t)(x >> sh);
            out[i + 1] = (int32_t)acc;
        }
    }
    return acc;
}

/* ---- block kernels (the "batch" path) ----------------------------------------------------------
 * Decode the first nd + 1 values of one block (nd <= the block's n) into out[0 .. nd]. */

typedef void (*ts2diff_block_fn_i64)(const uint8_t *packed, const uint8_t *end, int w,
                                     uint64_t min, uint64_t first, int64_t *out, size_t nd);
typedef void (*ts2diff_block_fn_i32)(const uint8_t *packed, const uint8_t *end, int w,
                                     uint32_t min, uint32_t first, int32_t *out, size_t nd);

/*
 * The scalar block kernels specialise the unpack per width: a group of 8 deltas is w bytes, so
 * with w a compile-time constant every byte offset and shift of the group is an immediate and the
 * group unrolls to 8 x (load, byte swap, two shifts, two adds, store). Groups whose loads would
 * pass `end`, and the last < 8 deltas, go through ts2diff_run_*.
 */
#define TS2DIFF_G64(J, W)                                                                          \
    do {                                                                                           \
        const unsigned bit_ = (J) * (W), s_ = bit_ & 7;                                            \
        uint64_t x_ = ts2diff_load_be64(p + (bit_ >> 3)) << s_;                                    \
        if ((W) > 56 && s_ + (W) > 64) x_ |= (uint64_t)p[(bit_ >> 3) + 8] >> (8 - s_);             \
        acc += min + (x_ >> (64 - (W)));                                                           \
        o[J] = (int64_t)acc;                                                                       \
    } while (0)
#define TS2DIFF_G32(J, W)                                                                          \
    do {                                                                                           \
        const unsigned bit_ = (J) * (W);                                                           \
        const uint64_t x_ = ts2diff_load_be64(p + (bit_ >> 3)) << (bit_ & 7);                     \
        acc += min + (uint32_t)(x_ >> (64 - (W)));                                                 \
        o[J] = (int32_t)acc;                                                                       \
    } while (0)
#define TS2DIFF_GROUPS(G, W)                                                                       \
    case W:                                                                                        \
        for (size_t g = 0; g < ng; g++) {                                                          \
            const uint8_t *p = packed + g * (W);                                                   \
            T_ *o = out + 1 + 8 * g;                                                               \
            G(0, W); G(1, W); G(2, W); G(3, W); G(4, W); G(5, W); G(6, W); G(7, W);                \
        }                                                                                          \
        break;
#define TS2DIFF_CASES_1_32(G)                                                                      \
    TS2DIFF_GROUPS(G, 1) TS2DIFF_GROUPS(G, 2) TS2DIFF_GROUPS(G, 3) TS2DIFF_GROUPS(G, 4)            \
    TS2DIFF_GROUPS(G, 5) TS2DIFF_GROUPS(G, 6) TS2DIFF_GROUPS(G, 7) TS2DIFF_GROUPS(G, 8)            \
    TS2DIFF_GROUPS(G, 9) TS2DIFF_GROUPS(G, 10) TS2DIFF_GROUPS(G, 11) TS2DIFF_GROUPS(G, 12)         \
    TS2DIFF_GROUPS(G, 13) TS2DIFF_GROUPS(G, 14) TS2DIFF_GROUPS(G, 15) TS2DIFF_GROUPS(G, 16)        \
    TS2DIFF_GROUPS(G, 17) TS2DIFF_GROUPS(G, 18) TS2DIFF_GROUPS(G, 19) TS2DIFF_GROUPS(G, 20)        \
    TS2DIFF_GROUPS(G, 21) TS2DIFF_GROUPS(G, 22) TS2DIFF_GROUPS(G, 23) TS2DIFF_GROUPS(G, 24)        \
    TS2DIFF_GROUPS(G, 25) TS2DIFF_GROUPS(G, 26) TS2DIFF_GROUPS(G, 27) TS2DIFF_GROUPS(G, 28)        \
    TS2DIFF_GROUPS(G, 29) TS2DIFF_GROUPS(G, 30) TS2DIFF_GROUPS(G, 31) TS2DIFF_GROUPS(G, 32)
#define TS2DIFF_CASES_33_64(G)                                                                     \
    TS2DIFF_GROUPS(G, 33) TS2DIFF_GROUPS(G, 34) TS2DIFF_GROUPS(G, 35) TS2DIFF_GROUPS(G, 36)        \
    TS2DIFF_GROUPS(G, 37) TS2DIFF_GROUPS(G, 38) TS2DIFF_GROUPS(G, 39) TS2DIFF_GROUPS(G, 40)        \
    TS2DIFF_GROUPS(G, 41) TS2DIFF_GROUPS(G, 42) TS2DIFF_GROUPS(G, 43) TS2DIFF_GROUPS(G, 44)        \
    TS2DIFF_GROUPS(G, 45) TS2DIFF_GROUPS(G, 46) TS2DIFF_GROUPS(G, 47) TS2DIFF_GROUPS(G, 48)        \
    TS2DIFF_GROUPS(G, 49) TS2DIFF_GROUPS(G, 50) TS2DIFF_GROUPS(G, 51) TS2DIFF_GROUPS(G, 52)        \
    TS2DIFF_GROUPS(G, 53) TS2DIFF_GROUPS(G, 54) TS2DIFF_GROUPS(G, 55) TS2DIFF_GROUPS(G, 56)        \
    TS2DIFF_GROUPS(G, 57) TS2DIFF_GROUPS(G, 58) TS2DIFF_GROUPS(G, 59) TS2DIFF_GROUPS(G, 60)        \
    TS2DIFF_GROUPS(G, 61) TS2DIFF_GROUPS(G, 62) TS2DIFF_GROUPS(G, 63) TS2DIFF_GROUPS(G, 64)

/* Whole groups of 8 deltas (of nd; a group is w bytes) whose loads, reaching `reach` bytes from a
 * group's first byte, stay inside `end`: every block kernel's count of groups it may unpack
 * before its tail goes through ts2diff_run_*. */
TSFILE_INLINE size_t ts2diff_whole_groups(const uint8_t *packed, const uint8_t *end, size_t nd,
                                          int w, size_t reach)
{
    const size_t avail = (size_t)(end - packed), ng = nd / 8;
    const size_t gmax = avail >= reach ? (avail - reach) / (size_t)w + 1 : 0;
    return ng < gmax ? ng : gmax;
}

/*
 * Generates ts2diff_decode_SUF_scalar, the scalar block kernel of one value type (T, its unsigned
 * twin UT): whole groups through the width-specialised cases CASES(G) (G unpacks one delta in
 * that type), then the rest through RUN (ts2diff_run_u64 / _u32). A macro because the int32 and
 * int64 kernels differ only in these names (int32 has widths 1..32, int64 1..64).
 */
#define TS2DIFF_DEFINE_DECODE_SCALAR(SUF, T, UT, G, CASES, RUN)                                    \
    static void ts2diff_decode_##SUF##_scalar(const uint8_t *packed, const uint8_t *end, int w,    \
                                              UT min, UT first, T *out, size_t nd)                 \
    {                                                                                              \
        typedef T T_; /* the output type of TS2DIFF_GROUPS */                                      \
        out[0] = (T)first;                                                                         \
        UT acc = first;                                                                            \
        size_t ng = 0;                                                                             \
        if (w > 0) {                                                                               \
            /* group g reads bytes g*w .. g*w + w + 8 (a ninth byte at most) */                   \
            ng = ts2diff_whole_groups(packed, end, nd, w, (size_t)w + 9);                          \
            switch (w) {                                                                           \
                CASES(G)                                                                           \
            default:                                                                               \
                ng = 0;                                                                            \
            }                                                                                      \
            if (ng) acc = (UT)out[8 * ng];                                                         \
        }                                                                                          \
        RUN(packed, end, w, min, acc, out, 8 * ng, nd);                                            \
    }

#define TS2DIFF_CASES_1_64(G) TS2DIFF_CASES_1_32(G) TS2DIFF_CASES_33_64(G)
/* ts2diff_decode_i64_scalar, ts2diff_decode_i32_scalar */
TS2DIFF_DEFINE_DECODE_SCALAR(i64, int64_t, uint64_t, TS2DIFF_G64, TS2DIFF_CASES_1_64,
                             ts2diff_run_u64)
TS2DIFF_DEFINE_DECODE_SCALAR(i32, int32_t, uint32_t, TS2DIFF_G32, TS2DIFF_CASES_1_32,
                             ts2diff_run_u32)

/*
 * Decode exactly `count` values from consecutive blocks with the given block kernel. Returns the
 * bytes consumed (end of the last block used), or -1 with *e set (corrupt data, or the data hold
 * fewer than `count` values).
 */
#define TS2DIFF_DEFINE_DECODE_BUFFER(SUFFIX, T, IS64, FN_T, MINCAST)                               \
    static int64_t ts2diff_decode_buffer_##SUFFIX(const uint8_t *buf, size_t nbytes, T *out,     \
                                                  size_t count, FN_T kernel, ts2diff_error *e)   \
    {                                                                                              \
        size_t pos = 0, done = 0;                                                                  \
        ts2diff_block b;                                                                           \
        while (done < count) {                                                                     \
            if (TSFILE_UNLIKELY(pos >= nbytes)) {                                                  \
                ts2diff_set_error(e, TS2DIFF_E_SHORT, pos, (int64_t)done, (int64_t)count);         \
                return -1;                                                                         \
            }                                                                                      \
            if (ts2diff_parse_block(buf, nbytes, pos, IS64, &b, e) < 0) return -1;                 \
            size_t k = (size_t)b.n + 1;                                                            \
            if (k > count - done) k = count - done;                                                \
            kernel(buf + b.data_off, buf + nbytes, b.width, MINCAST(b.min_delta),                  \
                   MINCAST(b.first), out + done, k - 1);                                           \
            done += k;                                                                             \
            pos = b.data_off + b.data_len;                                                         \
        }                                                                                          \
        return (int64_t)pos;                                                                       \
    }

#define TS2DIFF_CAST_U64(x) ((uint64_t)(x))
#define TS2DIFF_CAST_U32(x) ((uint32_t)(x))
/* ts2diff_decode_buffer_i64, ts2diff_decode_buffer_i32 */
TS2DIFF_DEFINE_DECODE_BUFFER(i64, int64_t, 1, ts2diff_block_fn_i64, TS2DIFF_CAST_U64)
TS2DIFF_DEFINE_DECODE_BUFFER(i32, int32_t, 0, ts2diff_block_fn_i32, TS2DIFF_CAST_U32)

/* ---- the streaming decoder (the "per_value" path) -----------------------------------------------
 * A classic stateful decoder: all state lives in the struct, each call returns one value and reads
 * its bits through the decoder's own cursor. The next() functions are kept out of line on purpose:
 * the path models a streaming decoder interface (one call per value, as TsFile's
 * Decoder::read_int64), and an inlined copy would just be a worse batch decoder. */

typedef struct {
    const uint8_t *buf;
    size_t nbytes;
    size_t pos;        /* offset of the next block header */
    size_t data_off;   /* packed bits of the current block */
    uint64_t bitpos;   /* bit cursor inside the current block's packed bits */
    int64_t remaining; /* deltas left in the current block */
    int width;
    int is64;
    uint64_t min_delta;
    uint64_t prev;
    ts2diff_error err;
} ts2diff_stream;

static inline void ts2diff_stream_init(ts2diff_stream *d, const uint8_t *buf, size_t nbytes,
                                       int is64)
{
    memset(d, 0, sizeof *d);
    d->buf = buf;
    d->nbytes = nbytes;
    d->is64 = is64;
}

static inline int ts2diff_stream_has_next(const ts2diff_stream *d)
{
    return d->remaining > 0 || d->pos < d->nbytes;
}

/* The next `w` bits at the cursor (the block's bytes are known to be inside the buffer). */
TSFILE_INLINE uint64_t ts2diff_stream_bits(const ts2diff_stream *d)
{
    const size_t byte = d->data_off + (size_t)(d->bitpos >> 3);
    const unsigned s = (unsigned)(d->bitpos & 7);
    const unsigned w = (unsigned)d->width;
    uint64_t x;
    if (TSFILE_LIKELY(byte + 9 <= d->nbytes)) {
        x = ts2diff_load_be64(d->buf + byte) << s;
        if (w > 56) x |= (uint64_t)d->buf[byte + 8] >> (8 - s);
    } else {
        uint8_t tmp[16] = {0};
        memcpy(tmp, d->buf + byte, d->nbytes - byte);
        x = (ts2diff_load_be64(tmp) << s) | ((uint64_t)tmp[8] >> (8 - s));
    }
    return x >> (64 - w);
}

/* 1: a value was stored in *v; 0: end of data; -1: corrupt data (d->err set). Inlined into the
 * two typed next() functions, so that a value costs exactly one call. */
TSFILE_INLINE int ts2diff_stream_next_u64(ts2diff_stream *d, uint64_t *v)
{
    if (TSFILE_LIKELY(d->remaining > 0)) {
        uint64_t r = 0;
        if (d->width) {
            r = ts2diff_stream_bits(d);
            d->bitpos += (uint64_t)d->width;
        }
        d->prev += d->min_delta + r;
        d->remaining--;
        *v = d->prev;
        return 1;
    }
    if (d->pos >= d->nbytes) return 0;
    ts2diff_block b;
    if (ts2diff_parse_block(d->buf, d->nbytes, d->pos, d->is64, &b, &d->err) < 0) return -1;
    d->remaining = b.n;
    d->width = b.width;
    d->min_delta = b.min_delta;
    d->prev = b.first;
    d->data_off = b.data_off;
    d->bitpos = 0;
    d->pos = b.data_off + b.data_len;
    *v = d->prev;
    return 1;
}

/* Generates ts2diff_stream_next_SUF: the next value as T (int32 wraps at 32 bits: only the low
 * half of the sums matters). A macro because the two types differ only in the cast. */
#define TS2DIFF_DEFINE_STREAM_NEXT(SUF, T, UT)                                                     \
    static TS2DIFF_NOINLINE int ts2diff_stream_next_##SUF(ts2diff_stream *d, T *v)                 \
    {                                                                                              \
        uint64_t u = 0;                                                                            \
        int rc = ts2diff_stream_next_u64(d, &u);                                                   \
        *v = (T)(UT)u;                                                                             \
        return rc;                                                                                 \
    }

/* ts2diff_stream_next_i64, ts2diff_stream_next_i32 */
TS2DIFF_DEFINE_STREAM_NEXT(i64, int64_t, uint64_t)
TS2DIFF_DEFINE_STREAM_NEXT(i32, int32_t, uint32_t)

/* ---- encoder ------------------------------------------------------------------------------------ */

/* Upper bound of the encoded size of `len` values with block size `bs` (bs >= 1). */
static inline size_t ts2diff_encode_bound(size_t len, size_t bs, int is64)
{
    const size_t blocks = (len + bs) / (bs + 1);
    return blocks * ts2diff_header_size(is64) + len * (is64 ? 8 : 4) + 8;
}

/* MSB-first bit writer: up to 63 pending bits in `acc` (right-aligned), emitted 32 at a time. */
typedef struct {
    uint8_t *o;
    uint64_t acc;
    unsigned nb;
} ts2diff_bitw;

TSFILE_INLINE void ts2diff_bitw_put(ts2diff_bitw *bw, uint64_t v, unsigned w) /* w <= 32 */
{
    bw->acc = (bw->acc << w) | v;
    bw->nb += w;
    if (bw->nb >= 32) {
        bw->nb -= 32;
        ts2diff_store_be32(bw->o, (uint32_t)(bw->acc >> bw->nb));
        bw->o += 4;
    }
}

TSFILE_INLINE void ts2diff_bitw_finish(ts2diff_bitw *bw)
{
    if (bw->nb) { /* < 32 bits left: pad with zeros to a byte boundary */
        uint32_t last = (uint32_t)(bw->acc << (32 - bw->nb));
        unsigned bytes = (bw->nb + 7) >> 3;
        for (unsigned k = 0; k < bytes; k++) *bw->o++ = (uint8_t)(last >> (24 - 8 * k));
        bw->nb = 0;
    }
}

/* What the encoder decided for one block: its delta count, width and min_delta. */
typedef struct {
    uint64_t min_delta;
    int32_t n;
    int32_t width;
} ts2diff_blockinfo;

/*
 * The block statistics of the encoder's planning pass: the width and min_delta of a block of
 * m >= 2 values (signed minimum, as the format notes say). Generated per value type (T, its
 * unsigned twin UT) and ISA from two macros, because every ISA runs the same pass and only the
 * vector intrinsics differ:
 *   TS2DIFF_DEFINE_STATS_SCALAR: ts2diff_stats_SUF, one scalar loop over the deltas;
 *   TS2DIFF_DEFINE_STATS_SIMD:   NAME (ts2diff_stats_SUF_ISA), the deltas' min and max in LANES
 *                                vector lanes (VT; SET1, LOAD, SUB, MIN, MAX its operations),
 *                                folded by REDUCE(T, LANES, lo, hi, dmin, dmax), then the tail.
 * Deltas wrap in the type (unsigned subtraction), and the width is that of dmax - dmin.
 */
#define TS2DIFF_STATS_TAIL(T, UT, v, i, n, dmin, dmax, w, min)                                     \
    for (; i < n; i++) {                                                                           \
        const T d = (T)((UT)v[i + 1] - (UT)v[i]);                                                  \
        dmin = d < dmin ? d : dmin;                                                                \
        dmax = d > dmax ? d : dmax;                                                                \
    }                                                                                              \
    *min = (UT)dmin;                                                                               \
    *w = tsfile_bit_length64((UT)((UT)dmax - (UT)dmin))

#define TS2DIFF_DEFINE_STATS_SCALAR(SUF, T, UT)                                                    \
    TSFILE_INLINE void ts2diff_stats_##SUF(const T *v, size_t m, int *w, uint64_t *min)            \
    {                                                                                              \
        const size_t n = m - 1;                                                                    \
        size_t i = 1;                                                                              \
        T dmin = (T)((UT)v[1] - (UT)v[0]), dmax = dmin;                                            \
        TS2DIFF_STATS_TAIL(T, UT, v, i, n, dmin, dmax, w, min);                                    \
    }

#define TS2DIFF_DEFINE_STATS_SIMD(NAME, ATTR, T, UT, VT, LANES, SET1, LOAD, SUB, MIN, MAX, REDUCE) \
    ATTR void NAME(const T *v, size_t m, int *w, uint64_t *min)                                    \
    {                                                                                              \
        const size_t n = m - 1;                                                                    \
        size_t i = 0;                                                                              \
        const T type_max = (T)((UT)-1 >> 1);                                                       \
        T dmin = type_max, dmax = (T)~type_max;                                                    \
        if (n >= (LANES)) {                                                                        \
            VT lo = SET1(dmin), hi = SET1(dmax);                                                   \
            for (; i + (LANES) <= n; i += (LANES)) {                                               \
                const VT d = SUB(LOAD(v + i + 1), LOAD(v + i));                                    \
                lo = MIN(lo, d);                                                                   \
                hi = MAX(hi, d);                                                                   \
            }                                                                                      \
            REDUCE(T, LANES, lo, hi, dmin, dmax);                                                  \
        }                                                                                          \
        TS2DIFF_STATS_TAIL(T, UT, v, i, n, dmin, dmax, w, min);                                    \
    }

/* ts2diff_stats_i64, ts2diff_stats_i32 */
TS2DIFF_DEFINE_STATS_SCALAR(i64, int64_t, uint64_t)
TS2DIFF_DEFINE_STATS_SCALAR(i32, int32_t, uint32_t)

/*
 * Width-specialised packing of 8 deltas (w bytes): with w a compile-time constant (the switch
 * below calls this once per case) every shift and word index is an immediate, so a group is
 * straight-line shifts and ORs into at most 8 registers and w bytes of big-endian stores, with
 * no per-value branch. r[j] < 2^w.
 */
TSFILE_INLINE void ts2diff_pack8(uint8_t *o, const uint64_t *r, const unsigned W)
{
    uint64_t words[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    for (unsigned j = 0; j < 8; j++) {
        const unsigned bit = j * W, k = bit >> 6, off = bit & 63;
        if (off + W <= 64) {
            words[k] |= r[j] << (64 - W - off);
        } else {
            words[k] |= r[j] >> (off + W - 64);
            words[k + 1] |= r[j] << (128 - off - W);
        }
    }
    for (unsigned k = 0; k < W / 8; k++) ts2diff_store_be64(o + 8 * k, words[k]);
    if (W % 8) {
        uint8_t t[8];
        ts2diff_store_be64(t, words[W / 8]);
        memcpy(o + 8 * (W / 8), t, W % 8);
    }
}

#define TS2DIFF_W_1_32(X)                                                                          \
    X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16) X(17)   \
    X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) X(28) X(29) X(30) X(31) X(32)
#define TS2DIFF_W_33_64(X)                                                                         \
    X(33) X(34) X(35) X(36) X(37) X(38) X(39) X(40) X(41) X(42) X(43) X(44) X(45) X(46) X(47)      \
    X(48) X(49) X(50) X(51) X(52) X(53) X(54) X(55) X(56) X(57) X(58) X(59) X(60) X(61) X(62)      \
    X(63) X(64)
/* The delta k of a block, less min_delta, wrapped in the value type (ut_, its unsigned twin, is
 * a typedef of the function using it). */
#define TS2DIFF_RDELTA(k) ((uint64_t)(ut_)((ut_)v[(k) + 1] - (ut_)v[k] - umin))
/* one case: whole groups of 8 deltas starting at delta i, advancing o */
#define TS2DIFF_PACK_CASE(W)                                                                       \
    case W:                                                                                        \
        for (; i + 8 <= n; i += 8, o += W) {                                                       \
            uint64_t r_[8];                                                                        \
            for (unsigned j_ = 0; j_ < 8; j_++) r_[j_] = TS2DIFF_RDELTA(i + j_);                   \
            ts2diff_pack8(o, r_, W);                                                               \
        }                                                                                          \
        break;

/* The start of every block writer (the scalar one below, the SIMD ones of
 * ts2diff_encode_avx2.h / ts2diff_encode_avx512.h): the header written, then n (the deltas),
 * w (their width) and umin (min_delta in the unsigned type UT) in scope, the writer returning
 * after the header when there is no delta to pack. Inside a function taking (v, b, o). */
#define TS2DIFF_WRITE_BLOCK_START(SUF, UT)                                                         \
    o = ts2diff_write_header_##SUF(v, b, o);                                                       \
    const size_t n = (size_t)b->n;                                                                 \
    const int w = b->width;                                                                        \
    if (n == 0 || w == 0) return o;                                                                \
    const UT umin = (UT)b->min_delta

/*
 * Generates, per value type (T / UT the type and its unsigned twin, BITS their width: the header's
 * min_delta and first value are BITS-bit words; CASES the width cases of the whole-group packer,
 * TS2DIFF_W_1_32, or TS2DIFF_W_1_64 for int64):
 *   ts2diff_write_header_SUF: the header of one block; returns the end of its bytes;
 *   ts2diff_pack_from_SUF:    the packed deltas i .. n-1 of a block (n deltas, width w >= 1,
 *                             delta i starting on a byte boundary at o): whole groups of 8 first
 *                             (each ends on a byte boundary), the rest bit by bit, 32 bits a put
 *                             (an int64 delta of more than 32 bits in two); returns the end. The
 *                             SIMD block writers (ts2diff_encode_avx2.h, _avx512.h) pack
 *                             their whole groups and leave the rest to it;
 *   ts2diff_write_block_SUF:  one block of m = b->n + 1 values, header and deltas.
 * A macro because the two types differ only in these names.
 */
#define TS2DIFF_W_1_64(X) TS2DIFF_W_1_32(X) TS2DIFF_W_33_64(X)
#define TS2DIFF_DEFINE_WRITE_BLOCK(SUF, T, UT, BITS, CASES)                                        \
    TSFILE_INLINE uint8_t *ts2diff_write_header_##SUF(const T *v, const ts2diff_blockinfo *b,      \
                                                      uint8_t *o)                                  \
    {                                                                                              \
        ts2diff_store_be32(o, (uint32_t)b->n);                                                     \
        ts2diff_store_be32(o + 4, (uint32_t)b->width);                                             \
        ts2diff_store_be##BITS(o + 8, (UT)b->min_delta);                                           \
        ts2diff_store_be##BITS(o + 8 + (BITS) / 8, (UT)v[0]);                                      \
        return o + 8 + 2 * ((BITS) / 8);                                                           \
    }                                                                                              \
    TSFILE_INLINE uint8_t *ts2diff_pack_from_##SUF(const T *v, size_t n, int w, UT umin, size_t i, \
                                                   uint8_t *o)                                     \
    {                                                                                              \
        typedef UT ut_; /* the type deltas wrap in (TS2DIFF_RDELTA) */                             \
        switch (w) {                                                                               \
            CASES(TS2DIFF_PACK_CASE)                                                               \
        default:                                                                                   \
            break;                                                                                 \
        }                                                                                          \
        ts2diff_bitw bw = {o, 0, 0};                                                               \
        if (w <= 32) {                                                                             \
            for (; i < n; i++) ts2diff_bitw_put(&bw, TS2DIFF_RDELTA(i), (unsigned)w);              \
        } else {                                                                                   \
            const unsigned hi = (unsigned)w - 32;                                                  \
            for (; i < n; i++) {                                                                   \
                const uint64_t r = TS2DIFF_RDELTA(i);                                              \
                ts2diff_bitw_put(&bw, r >> 32, hi);                                                \
                ts2diff_bitw_put(&bw, r & 0xFFFFFFFFu, 32);                                        \
            }                                                                                      \
        }                                                                                          \
        ts2diff_bitw_finish(&bw);                                                                  \
        return bw.o;                                                                               \
    }                                                                                              \
    TSFILE_INLINE uint8_t *ts2diff_write_block_##SUF(const T *v, const ts2diff_blockinfo *b,       \
                                                     uint8_t *o)                                   \
    {                                                                                              \
        TS2DIFF_WRITE_BLOCK_START(SUF, UT);                                                        \
        return ts2diff_pack_from_##SUF(v, n, w, umin, 0, o);                                       \
    }

/* ts2diff_write_header_i64, ts2diff_pack_from_i64, ts2diff_write_block_i64 */
/* ts2diff_write_header_i32, ts2diff_pack_from_i32, ts2diff_write_block_i32 */
TS2DIFF_DEFINE_WRITE_BLOCK(i64, int64_t, uint64_t, 64, TS2DIFF_W_1_64)
TS2DIFF_DEFINE_WRITE_BLOCK(i32, int32_t, uint32_t, 32, TS2DIFF_W_1_32)

/*
 * Decide one block of m >= 1 values. `carried_min` is the min_delta of the last block that had
 * deltas (the one before this block, possibly on the chunk's previous page; 0 before any).
 * A block without deltas (m == 1: a page whose value count is 1 mod 129) gets width 0 and the
 * carried min_delta: that is what Apache TsFile's C++ writer (2.5) puts in such a header (its
 * encoder keeps the last min_delta across blocks and pages of a chunk; checked on official pages,
 * tests/fixtures/official/ts2diff_one_value_blocks.tsfile), and byte-exact output needs the same.
 * Readers ignore both fields there (no delta uses them).
 */
#define TS2DIFF_DEFINE_BLOCKINFO(SUFFIX, T)                                                        \
    TSFILE_INLINE ts2diff_blockinfo ts2diff_blockinfo_##SUFFIX(const T *v, size_t m,              \
                                                               uint64_t *carried_min)             \
    {                                                                                              \
        ts2diff_blockinfo b = {*carried_min, (int32_t)(m - 1), 0};                                 \
        if (m >= 2) {                                                                              \
            int w;                                                                                 \
            ts2diff_stats_##SUFFIX(v, m, &w, &b.min_delta);                                        \
            b.width = w;                                                                           \
            *carried_min = b.min_delta;                                                            \
        }                                                                                          \
        return b;                                                                                  \
    }
/* ts2diff_blockinfo_i64, ts2diff_blockinfo_i32 */
TS2DIFF_DEFINE_BLOCKINFO(i64, int64_t)
TS2DIFF_DEFINE_BLOCKINFO(i32, int32_t)

/* Generates ts2diff_encode_block_SUF, one block (streaming encoder): decide and write. A macro
 * because the two types differ only in T. */
#define TS2DIFF_DEFINE_ENCODE_BLOCK(SUF, T)                                                        \
    static inline uint8_t *ts2diff_encode_block_##SUF(const T *v, size_t m, uint8_t *o,           \
                                                      uint64_t *carried_min)                      \
    {                                                                                              \
        const ts2diff_blockinfo b = ts2diff_blockinfo_##SUF(v, m, carried_min);                    \
        return ts2diff_write_block_##SUF(v, &b, o);                                                \
    }
/* ts2diff_encode_block_i64, ts2diff_encode_block_i32 */
TS2DIFF_DEFINE_ENCODE_BLOCK(i64, int64_t)
TS2DIFF_DEFINE_ENCODE_BLOCK(i32, int32_t)

/* Number of blocks of `len` values with block size `bs`. */
static inline size_t ts2diff_block_count(size_t len, size_t bs) { return (len + bs) / (bs + 1); }

/*
 * Two-pass batch encoding: ts2diff_plan_* decides every block (into info[ts2diff_block_count()])
 * and returns the exact encoded size; ts2diff_write_* then writes exactly that many bytes. (The
 * exact size lets the caller allocate the result once, without an over-sized buffer.)
 */
/* The planning pass, parameterised by the function that finds a block's width and min_delta
 * (ts2diff_avx2.h / ts2diff_neon.h instantiate it again with a SIMD one). Same block decisions as
 * ts2diff_blockinfo_*(); `carried_min` is the min_delta a leading block without deltas carries
 * (the last one of the chunk's previous page, 0 on a chunk's first page). */
#define TS2DIFF_DEFINE_PLAN(ATTR, NAME, T, HDR, STATS)                                             \
    ATTR size_t NAME(const T *v, size_t len, size_t bs, uint64_t carried_min,                     \
                     ts2diff_blockinfo *info)                                                      \
    {                                                                                              \
        size_t total = 0, k = 0;                                                                   \
        for (size_t s = 0; s < len; s += bs + 1, k++) {                                            \
            const size_t m = len - s < bs + 1 ? len - s : bs + 1;                                  \
            ts2diff_blockinfo b = {carried_min, (int32_t)(m - 1), 0};                              \
            if (m >= 2) {                                                                          \
                int w_;                                                                            \
                STATS(v + s, m, &w_, &b.min_delta);                                                \
                b.width = w_;                                                                      \
                carried_min = b.min_delta;                                                         \
            }                                                                                      \
            info[k] = b;                                                                           \
            total += HDR + (((size_t)(m - 1) * (size_t)b.width + 7) >> 3);                         \
        }                                                                                          \
        return total;                                                                              \
    }
/* The writing pass, parameterised by the block writer (ts2diff_encode_avx2.h and
 * ts2diff_encode_avx512.h instantiate it again with their SIMD ones). */
#define TS2DIFF_DEFINE_WRITE(ATTR, NAME, T, WRITE_BLOCK)                                           \
    ATTR size_t NAME(const T *v, size_t len, size_t bs, const ts2diff_blockinfo *info,            \
                     uint8_t *out)                                                                 \
    {                                                                                              \
        uint8_t *o = out;                                                                          \
        size_t k = 0;                                                                              \
        for (size_t s = 0; s < len; s += bs + 1, k++) o = WRITE_BLOCK(v + s, &info[k], o);         \
        return (size_t)(o - out);                                                                  \
    }
TS2DIFF_DEFINE_PLAN(static inline, ts2diff_plan_i64, int64_t, 24, ts2diff_stats_i64)
TS2DIFF_DEFINE_PLAN(static inline, ts2diff_plan_i32, int32_t, 16, ts2diff_stats_i32)
/* ts2diff_write_i64, ts2diff_write_i32 */
TS2DIFF_DEFINE_WRITE(static inline, ts2diff_write_i64, int64_t, ts2diff_write_block_i64)
TS2DIFF_DEFINE_WRITE(static inline, ts2diff_write_i32, int32_t, ts2diff_write_block_i32)

/* Generates ts2diff_encode_SUF, the single-pass convenience (tests, C callers): `out` holds
 * ts2diff_encode_bound() bytes. A macro because the two types differ only in T. */
#define TS2DIFF_DEFINE_ENCODE(SUF, T)                                                              \
    static inline size_t ts2diff_encode_##SUF(const T *v, size_t len, size_t bs, uint8_t *out)     \
    {                                                                                              \
        uint8_t *o = out;                                                                          \
        uint64_t carried_min = 0; /* a page that starts a chunk */                                 \
        for (size_t s = 0; s < len; s += bs + 1) {                                                 \
            const size_t m = len - s < bs + 1 ? len - s : bs + 1;                                  \
            o = ts2diff_encode_block_##SUF(v + s, m, o, &carried_min);                             \
        }                                                                                          \
        return (size_t)(o - out);                                                                  \
    }
/* ts2diff_encode_i64, ts2diff_encode_i32 */
TS2DIFF_DEFINE_ENCODE(i64, int64_t)
TS2DIFF_DEFINE_ENCODE(i32, int32_t)

#endif /* TS2DIFF_SCALAR_H */
