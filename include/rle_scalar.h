/*
 * rle_scalar.h: TsFile's RLE / bit-packing hybrid (format notes 8.5), scalar kernels.
 *
 * Value bytes = one or more blocks:
 *   uvarint block_len, then block_len bytes: u8 width w, then runs until the block is consumed:
 *     uvarint header; odd  -> bit-packed run: groups = header >> 1, u8 last_group_count (1..8),
 *                             groups * w bytes (8 values of w bits per group, MSB-first);
 *                     even -> RLE run: count = header >> 1, the value in ceil(w / 8) bytes,
 *                             little-endian for INT32/BOOLEAN, BIG-endian for INT64 (Java).
 * Values are two's-complement bit patterns (a w-bit pattern with w < 32/64 is non-negative).
 *
 * Decoding is lenient where no value can come out wrong (empty blocks, zero-length runs, w = 0)
 * and strict elsewhere: a run crossing its block, a width above the type's, a last-group count
 * outside 1..8 are errors. Every length is checked before the bytes are read.
 *
 * The encoder writes what the official C++ 2.5 writer writes for the same values: one block,
 * width = max(1, bit length of the values) (32/64 for any negative value), bit-packed runs only,
 * at most 63 groups a run, the final group zero-padded.
 */
#ifndef TSFILE_RLE_SCALAR_H
#define TSFILE_RLE_SCALAR_H

#include "bit_length.h"
#include "varint_scalar.h"

#define RLE_MAX_GROUPS_PER_RUN 63

/* ---- unpacking one group of 8 MSB-first values ---- */

/* Group of w <= 32 bits from src (w bytes); the caller guarantees w + 9 readable bytes from src
 * (rle_unpack8 checks and copies the group otherwise). */
TSFILE_INLINE void rle_unpack8_w32_fast(const uint8_t *src, int w, uint64_t out[8])
{
    if (w == 0) {
        for (int i = 0; i < 8; i++) out[i] = 0;
        return;
    }
    for (int i = 0; i < 8; i++) {
        unsigned bit = (unsigned)(i * w);
        uint64_t win = tsc_load_be64(src + (bit >> 3));
        out[i] = (win << (bit & 7)) >> (64 - w);
    }
}

TSFILE_INLINE void rle_unpack8_w64_fast(const uint8_t *src, int w, uint64_t out[8])
{
    if (w <= 32) {
        rle_unpack8_w32_fast(src, w, out);
        return;
    }
    for (int i = 0; i < 8; i++) {
        unsigned bit = (unsigned)(i * w);
        const uint8_t *p = src + (bit >> 3);
        unsigned sh = bit & 7;
        uint64_t hi = tsc_load_be64(p) << sh;
        if (sh) hi |= (uint64_t)p[8] >> (8 - sh);
        out[i] = hi >> (64 - w);
    }
}

/* Any group: `room` = readable bytes from src (>= w). Near the end of the buffer the group is
 * copied into a zero-padded local array so the fast loads never leave the buffer. */
TSFILE_INLINE void rle_unpack8(const uint8_t *src, size_t room, int w, uint64_t out[8])
{
    if (TSFILE_LIKELY(room >= (size_t)w + 9)) {
        rle_unpack8_w64_fast(src, w, out);
    } else {
        uint8_t tmp[64 + 16];
        memset(tmp, 0, sizeof tmp);
        memcpy(tmp, src, (size_t)w);
        rle_unpack8_w64_fast(tmp, w, out);
    }
}

/* Value of an RLE run: ceil(w/8) bytes, LE (is64 = 0) or BE (is64 = 1). */
TSFILE_INLINE uint64_t rle_run_value(const uint8_t *p, int nbytes, int is64)
{
    uint64_t v = 0;
    if (is64) {
        for (int k = 0; k < nbytes; k++) v = (v << 8) | p[k];
    } else {
        for (int k = 0; k < nbytes; k++) v |= (uint64_t)p[k] << (8 * k);
    }
    return v;
}

/* ---- width-specialised scalar unpacking of whole groups (the batch path's bulk) ----
 * One function per width, so offsets and shifts are constants and the 8 values of a group unroll
 * into 8 loads, shifts and stores. Only groups whose 8-byte loads stay inside the buffer (room
 * >= w + 9 from the group start) are done here; the rest goes through rle_unpack8. */

/* How a w-bit pattern (in a uint64_t) becomes an output value: its low 32 bits as int32, all 64
 * bits as int64, non-zero as BOOLEAN. */
#define RLE_CONV_I32(x) ((int32_t)(uint32_t)(x))
#define RLE_CONV_I64(x) ((int64_t)(x))
#define RLE_CONV_BOOL(x) ((uint8_t)((uint32_t)(x) != 0))

/* Generates rle_groups_SUF_wW: `ng` whole groups of width W into T output (CONV as above). A
 * macro so that W is a constant in each instance. */
#define RLE_SG(SUF, T, CONV, W)                                                                    \
    static void rle_groups_##SUF##_w##W(const uint8_t *g, size_t ng, T *out)                       \
    {                                                                                              \
        for (size_t k = 0; k < ng; k++, g += W, out += 8)                                          \
            for (unsigned i = 0; i < 8; i++)                                                       \
                out[i] = CONV((tsc_load_be64(g + ((i * W) >> 3)) << ((i * W) & 7)) >> (64 - W));   \
    }
#define RLE_SG_I32(W) RLE_SG(i32, int32_t, RLE_CONV_I32, W)
#define RLE_SG_I64(W) RLE_SG(i64, int64_t, RLE_CONV_I64, W)
#define RLE_SG_8(M, a) M(a##1) M(a##2) M(a##3) M(a##4) M(a##5) M(a##6) M(a##7) M(a##8)
#define RLE_SG_9(M, a) M(a##0) RLE_SG_8(M, a) M(a##9)
RLE_SG_8(RLE_SG_I32, ) RLE_SG_I32(9)
RLE_SG_9(RLE_SG_I32, 1) RLE_SG_9(RLE_SG_I32, 2)
RLE_SG_I32(30) RLE_SG_I32(31) RLE_SG_I32(32)
RLE_SG_8(RLE_SG_I64, ) RLE_SG_I64(9)
RLE_SG_9(RLE_SG_I64, 1) RLE_SG_9(RLE_SG_I64, 2) RLE_SG_9(RLE_SG_I64, 3) RLE_SG_9(RLE_SG_I64, 4)
RLE_SG_I64(50) RLE_SG_I64(51) RLE_SG_I64(52) RLE_SG_I64(53) RLE_SG_I64(54) RLE_SG_I64(55)
RLE_SG_I64(56) RLE_SG_I64(57)

typedef void (*rle_groups_i32_fn)(const uint8_t *, size_t, int32_t *);
typedef void (*rle_groups_i64_fn)(const uint8_t *, size_t, int64_t *);

#define RLE_SG_REF_I32(W) rle_groups_i32_w##W,
#define RLE_SG_REF_I64(W) rle_groups_i64_w##W,
static const rle_groups_i32_fn rle_groups_i32_table[33] = {
    NULL, RLE_SG_8(RLE_SG_REF_I32, ) RLE_SG_REF_I32(9) RLE_SG_9(RLE_SG_REF_I32, 1)
    RLE_SG_9(RLE_SG_REF_I32, 2) RLE_SG_REF_I32(30) RLE_SG_REF_I32(31) RLE_SG_REF_I32(32)};
/* widths 58..64 can need a ninth byte: left to the generic code */
static const rle_groups_i64_fn rle_groups_i64_table[58] = {
    NULL, RLE_SG_8(RLE_SG_REF_I64, ) RLE_SG_REF_I64(9) RLE_SG_9(RLE_SG_REF_I64, 1)
    RLE_SG_9(RLE_SG_REF_I64, 2) RLE_SG_9(RLE_SG_REF_I64, 3) RLE_SG_9(RLE_SG_REF_I64, 4)
    RLE_SG_REF_I64(50) RLE_SG_REF_I64(51) RLE_SG_REF_I64(52) RLE_SG_REF_I64(53)
    RLE_SG_REF_I64(54) RLE_SG_REF_I64(55) RLE_SG_REF_I64(56) RLE_SG_REF_I64(57)};

/* Generates rle_ISA_plan32 / rle_ISA_plan64 (the shuffle plans of bitpack_msb_plan.h, which the
 * including ISA header provides, for 32- and 64-bit lanes and every width) and rle_ISA_init that
 * builds them: AVX2 and NEON unpack with the same plans, only their vectors differ. */
#define RLE_DEFINE_MSB_PLANS(ISA)                                                                  \
    static bitpack_msb_plan rle_##ISA##_plan32[33];                                                \
    static bitpack_msb_plan rle_##ISA##_plan64[65];                                                \
    static void rle_##ISA##_init(void)                                                             \
    {                                                                                              \
        for (int w = 1; w <= 32; w++) bitpack_msb_plan_init(&rle_##ISA##_plan32[w], w, 32);        \
        for (int w = 1; w <= 64; w++) bitpack_msb_plan_init(&rle_##ISA##_plan64[w], w, 64);        \
    }

/* Number of whole groups of width w (of `ngroups`, from a group start with `room` readable bytes)
 * that an unpacker whose loads reach `reach` bytes past a group start can do inside the buffer:
 * the scalar groups above load 8 bytes at up to w + 1 (reach w + 9), the SIMD ones their plan's. */
TSFILE_INLINE size_t rle_safe_groups(size_t reach, size_t room, int w, size_t ngroups)
{
    if (room < reach) return 0;
    size_t g = (room - reach) / (size_t)w + 1;
    return g < ngroups ? g : ngroups;
}

/* Generates rle_unpack_groups_SUF_scalar, the scalar row's bulk (the contract of
 * RLE_DEFINE_DECODE_BULK's BULK; w >= 1): the width-specialised groups of TABLE, for widths
 * 1..MAX_W (the int64 widths 58..64 can need a ninth byte: left to rle_unpack8). */
#define RLE_DEFINE_BULK_SCALAR(SUF, T, TABLE, MAX_W)                                               \
    TSFILE_INLINE size_t rle_unpack_groups_##SUF##_scalar(const uint8_t *g, size_t room, int w,    \
                                                          size_t ng, T *out)                       \
    {                                                                                              \
        if (w > MAX_W) return 0;                                                                   \
        size_t n = rle_safe_groups((size_t)w + 9, room, w, ng);                                    \
        if (n) TABLE[w](g, n, out);                                                                \
        return n;                                                                                  \
    }

RLE_DEFINE_BULK_SCALAR(i32, int32_t, rle_groups_i32_table, 32)
RLE_DEFINE_BULK_SCALAR(i64, int64_t, rle_groups_i64_table, 57)

/* ---- run headers ---- */

typedef struct {
    int bitpacked;     /* 1: bit-packed run, 0: RLE run */
    uint64_t nvalues;  /* values in the run */
    size_t data;       /* offset of the packed groups / the run value */
    size_t next;       /* offset after the run */
    uint64_t value;    /* RLE run: the value */
} rle_run;

/* Parse the run at *pos inside [.., block_end); 0 or an error code (with *err_at). */
TSFILE_INLINE int rle_parse_run(const uint8_t *src, size_t block_end, size_t pos, int w, int is64,
                                rle_run *r, size_t *err_at)
{
    uint32_t header;
    size_t p = pos;
    int e = tsc_read_uvarint32(src, block_end, &p, &header);
    if (e) {
        *err_at = pos;
        return e == TSC_ERR_TRUNCATED ? TSC_ERR_BLOCK : e;
    }
    if (header & 1u) {
        uint64_t groups = header >> 1;
        if (p >= block_end) {
            *err_at = p;
            return TSC_ERR_BLOCK;
        }
        unsigned last = src[p++];
        if (groups == 0) {
            r->nvalues = 0; /* an empty run (the C++ writer's output for zero values) */
        } else {
            if (last == 0 || last > 8) {
                *err_at = p - 1;
                return TSC_ERR_RUN;
            }
            r->nvalues = (groups - 1) * 8 + last;
        }
        uint64_t nbytes = groups * (uint64_t)w;
        if (nbytes > block_end - p) {
            *err_at = p;
            return TSC_ERR_BLOCK;
        }
        r->bitpacked = 1;
        r->value = 0;
        r->data = p;
        r->next = p + (size_t)nbytes;
    } else {
        int vb = (w + 7) / 8;
        if ((size_t)vb > block_end - p) {
            *err_at = p;
            return TSC_ERR_BLOCK;
        }
        r->bitpacked = 0;
        r->nvalues = header >> 1;
        r->data = p;
        r->value = rle_run_value(src + p, vb, is64);
        r->next = p + (size_t)vb;
    }
    return TSC_OK;
}

/* Parse the block header at *pos: sets *w, *body (first run) and *block_end. */
TSFILE_INLINE int rle_parse_block(const uint8_t *src, size_t n, size_t pos, int is64, int *w,
                                  size_t *body, size_t *block_end, size_t *err_at)
{
    uint32_t blen;
    size_t p = pos;
    int e = tsc_read_uvarint32(src, n, &p, &blen);
    if (e) {
        *err_at = pos;
        return e;
    }
    if ((size_t)blen > n - p) {
        *err_at = pos;
        return TSC_ERR_TRUNCATED;
    }
    *block_end = p + blen;
    if (blen == 0) { /* an empty block: no width byte, no values */
        *w = 0;
        *body = p;
        return TSC_OK;
    }
    int width = src[p];
    if (width > (is64 ? 64 : 32)) {
        *err_at = p;
        return TSC_ERR_WIDTH;
    }
    *w = width;
    *body = p + 1;
    return TSC_OK;
}

/* Walk the block and run headers from the start of the buffer (each one checked, nothing
 * unpacked) until the run that reaches `stop` values: returns the end of its block (as the
 * decoders report) with *seen = stop; or to the end of the data: returns n with *seen = the
 * values there (fewer than `stop`). More than `limit` values on the way is TSC_ERR_TOO_MANY at the
 * run that passes it; errors are -code with *err_at. The one header walk of counting and skipping. */
static inline ptrdiff_t rle_walk_headers(const uint8_t *src, size_t n, int is64, uint64_t stop,
                                         uint64_t limit, uint64_t *seen, size_t *err_at)
{
    size_t pos = 0;
    uint64_t t = 0;
    while (pos < n) {
        int w;
        size_t body, end;
        int e = rle_parse_block(src, n, pos, is64, &w, &body, &end, err_at);
        if (e) return -e;
        pos = body;
        while (pos < end) {
            rle_run r;
            e = rle_parse_run(src, end, pos, w, is64, &r, err_at);
            if (e) return -e;
            if (r.nvalues >= stop - t) {
                *seen = stop;
                return (ptrdiff_t)end;
            }
            t += r.nvalues;
            if (t > limit) {
                *err_at = pos;
                return -TSC_ERR_TOO_MANY;
            }
            pos = r.next;
        }
        pos = end;
    }
    *seen = t;
    return (ptrdiff_t)n;
}

/* Number of values in the whole buffer (walks and checks every block and run header). Fails with
 * TSC_ERR_TOO_MANY beyond `limit` values, so a tiny hostile run cannot demand a huge array. */
static inline ptrdiff_t rle_count_scalar(const uint8_t *src, size_t n, int is64, uint64_t limit,
                                         uint64_t *total, size_t *err_at)
{
    /* no run holds UINT64_MAX values (a run header holds at most 2^31 groups): walks to the end */
    return rle_walk_headers(src, n, is64, UINT64_MAX, limit, total, err_at);
}

/* Advance over the first `k` values by the block and run headers alone (nothing is unpacked or
 * stored): the offset of the end of the block holding value k (as the decoders report), or -code
 * with *err_at; fewer than k values is TSC_ERR_TRUNCATED at the end of the data. k == 0 is 0. */
static inline ptrdiff_t rle_skip_scalar(const uint8_t *src, size_t n, int is64, uint64_t k,
                                        size_t *err_at)
{
    uint64_t seen;
    if (k == 0) return 0;
    ptrdiff_t r = rle_walk_headers(src, n, is64, k, UINT64_MAX, &seen, err_at);
    if (r >= 0 && seen < k) {
        *err_at = n;
        return -TSC_ERR_TRUNCATED;
    }
    return r;
}

/* ---- batch decoders ----
 * Decode exactly `count` values; return the bytes consumed (up to the end of the block holding
 * the last value) or -code with *err_at. */

/* Generates the batch decoder NAME of T values. BULK(g, room, w, ngroups, out) may unpack a
 * prefix of a bit-packed run's whole groups (w >= 1; the ISA's kernel) and returns how many it
 * did; the rest, and every width-0 run (all zeros, which no writer here emits), goes through
 * rle_unpack8. ATTR is a function attribute (the ISA's target). One definition for every type and
 * ISA, so the run walking and its checks exist once. */
#define RLE_DEFINE_DECODE_BULK(NAME, T, IS64, CONV, BULK, ATTR)                                   \
    static ATTR ptrdiff_t NAME(const uint8_t *src, size_t n, T *out, size_t count,               \
                               size_t *err_at)                                                   \
    {                                                                                            \
        size_t pos = 0, done = 0;                                                                \
        if (count == 0) return 0;                                                                \
        while (pos < n) {                                                                        \
            int w;                                                                               \
            size_t body, end;                                                                    \
            int e = rle_parse_block(src, n, pos, IS64, &w, &body, &end, err_at);                 \
            if (e) return -e;                                                                    \
            pos = body;                                                                          \
            while (pos < end) {                                                                  \
                rle_run r;                                                                       \
                e = rle_parse_run(src, end, pos, w, IS64, &r, err_at);                           \
                if (e) return -e;                                                                \
                uint64_t take = r.nvalues;                                                       \
                if (take > count - done) take = count - done;                                    \
                if (r.bitpacked) {                                                               \
                    const uint8_t *g = src + r.data;                                             \
                    size_t room = n - r.data;                                                    \
                    uint64_t tmp[8];                                                             \
                    size_t k = 0;                                                                \
                    size_t bulk = w ? BULK(g, room, w, (size_t)(take / 8), out + done) : 0;      \
                    k = bulk * 8;                                                                \
                    g += bulk * (size_t)w;                                                       \
                    room -= bulk * (size_t)w;                                                    \
                    /* whole groups straight into the output */                                  \
                    while (take - k >= 8) {                                                      \
                        rle_unpack8(g, room, w, tmp);                                            \
                        for (int j = 0; j < 8; j++) out[done + k + (size_t)j] = CONV(tmp[j]);    \
                        k += 8;                                                                  \
                        g += w;                                                                  \
                        room -= (size_t)w;                                                       \
                    }                                                                            \
                    if (k < take) {                                                              \
                        rle_unpack8(g, room, w, tmp);                                            \
                        for (size_t j = 0; k + j < take; j++) out[done + k + j] = CONV(tmp[j]);  \
                    }                                                                            \
                } else {                                                                         \
                    T v = CONV(r.value);                                                         \
                    for (uint64_t j = 0; j < take; j++) out[done + j] = v;                       \
                }                                                                                \
                done += (size_t)take;                                                            \
                pos = r.next;                                                                    \
                if (done == count) return (ptrdiff_t)end;                                        \
            }                                                                                    \
            pos = end;                                                                           \
        }                                                                                        \
        *err_at = n;                                                                             \
        return -TSC_ERR_TRUNCATED;                                                               \
    }

#define RLE_BULK_NONE(g, room, w, ng, o) ((size_t)0)

/* Generates an ISA's row kernels rle_decode_i32_ISA and rle_decode_i64_ISA from its bulk
 * unpackers rle_unpack_groups_i32_ISA / rle_unpack_groups_i64_ISA. */
#define RLE_DEFINE_DECODERS(ISA, ATTR)                                                             \
    RLE_DEFINE_DECODE_BULK(rle_decode_i32_##ISA, int32_t, 0, RLE_CONV_I32,                         \
                           rle_unpack_groups_i32_##ISA, ATTR)                                      \
    RLE_DEFINE_DECODE_BULK(rle_decode_i64_##ISA, int64_t, 1, RLE_CONV_I64,                         \
                           rle_unpack_groups_i64_##ISA, ATTR)

RLE_DEFINE_DECODERS(scalar, inline)
RLE_DEFINE_DECODE_BULK(rle_decode_bool_scalar, uint8_t, 0, RLE_CONV_BOOL, RLE_BULK_NONE, inline)

/* ---- the streaming decoder (the "per_value" path) ---- */

typedef struct {
    const uint8_t *src;
    size_t n;
    size_t pos;       /* next unread byte (a run header, or a block header when pos == block_end) */
    size_t block_end;
    int w;
    int is64;
    int bitpacked;    /* kind of the current run */
    uint64_t left;    /* values left in the current run */
    uint64_t value;   /* RLE run value */
    size_t gpos;      /* bit-packed: offset of the next group to unpack */
    uint64_t grp[8];
    int gi;           /* next value in grp (8 = empty) */
    size_t err_at;
} rle_stream;

static inline void rle_stream_init(rle_stream *s, const uint8_t *src, size_t n, int is64)
{
    memset(s, 0, sizeof *s);
    s->src = src;
    s->n = n;
    s->is64 = is64;
    s->gi = 8;
}

/* Advance to a run with values left. 1: ready; 0: end of data; -code: corrupt. */
static inline int rle_stream_fill(rle_stream *s)
{
    while (s->left == 0) {
        if (s->pos >= s->block_end) {
            if (s->pos >= s->n) return 0;
            size_t body, end;
            int e = rle_parse_block(s->src, s->n, s->pos, s->is64, &s->w, &body, &end, &s->err_at);
            if (e) return -e;
            s->pos = body;
            s->block_end = end;
            continue;
        }
        rle_run r;
        int e = rle_parse_run(s->src, s->block_end, s->pos, s->w, s->is64, &r, &s->err_at);
        if (e) return -e;
        s->bitpacked = r.bitpacked;
        s->left = r.nvalues;
        s->value = r.value;
        s->gpos = r.data;
        s->gi = 8;
        s->pos = r.next;
    }
    return 1;
}

/* One value into *v. 1: done; 0: end of data; -code: corrupt (s->err_at set). */
static inline int rle_stream_next(rle_stream *s, uint64_t *v)
{
    if (TSFILE_UNLIKELY(s->left == 0)) {
        int e = rle_stream_fill(s);
        if (e <= 0) return e;
    }
    s->left--;
    if (!s->bitpacked) {
        *v = s->value;
        return 1;
    }
    if (s->gi == 8) {
        rle_unpack8(s->src + s->gpos, s->n - s->gpos, s->w, s->grp);
        s->gpos += (size_t)s->w;
        s->gi = 0;
    }
    *v = s->grp[s->gi++];
    return 1;
}

/* ---- encoder (C++ 2.5 layout) ---- */

/* Pack 8 values of w bits (0..64) MSB-first into dst (w bytes). */
TSFILE_INLINE void rle_pack8(const uint64_t v[8], int w, uint8_t *dst)
{
    if (w == 0) return;
    uint64_t mask = w == 64 ? ~0ull : ((1ull << w) - 1);
    uint64_t acc = 0;
    int nb = 0;
    size_t k = 0;
    for (int i = 0; i < 8; i++) {
        uint64_t x = v[i] & mask;
        if (w > 32) { /* push the high part first so acc never exceeds 63 bits */
            int hw = w - 32;
            acc = (acc << hw) | (x >> 32);
            nb += hw;
            while (nb >= 8) { dst[k++] = (uint8_t)(acc >> (nb - 8)); nb -= 8; }
            x &= 0xffffffffull;
            acc = (acc << 32) | x;
            nb += 32;
        } else {
            acc = (acc << w) | x;
            nb += w;
        }
        while (nb >= 8) { dst[k++] = (uint8_t)(acc >> (nb - 8)); nb -= 8; }
    }
}

/* Upper bound of the encoded size of `count` values of width <= 64. */
TSFILE_INLINE size_t rle_encode_bound(size_t count)
{
    size_t groups = (count + 7) / 8;
    return 5 + 1 + groups * 64 + 2 * (groups / RLE_MAX_GROUPS_PER_RUN + 1);
}

/* Encode `count` values with width `w` (values are taken as the type's two's-complement bit
 * pattern: an int32 -1 is 0xffffffff) as one block; returns the bytes written. count == 0 writes
 * nothing (like the C++ writer). dst needs rle_encode_bound(count) bytes. */
#define RLE_DEFINE_ENCODE(NAME, T, TOU64)                                                         \
    static inline size_t NAME(const T *vals, size_t count, int w, uint8_t *dst)                         \
    {                                                                                            \
        if (count == 0) return 0;                                                                \
        size_t groups = (count + 7) / 8;                                                         \
        /* the body goes after a 5-byte gap for the block length, then moves down */             \
        uint8_t *body = dst + 5;                                                                 \
        size_t k = 0;                                                                            \
        body[k++] = (uint8_t)w;                                                                  \
        size_t g = 0;                                                                            \
        while (g < groups) {                                                                     \
            size_t run = groups - g;                                                             \
            if (run > RLE_MAX_GROUPS_PER_RUN) run = RLE_MAX_GROUPS_PER_RUN;                      \
            int last = 8;                                                                        \
            if (g + run == groups && count % 8) last = (int)(count % 8);                         \
            body[k++] = (uint8_t)((run << 1) | 1);                                               \
            body[k++] = (uint8_t)last;                                                           \
            for (size_t j = 0; j < run; j++, g++) {                                              \
                uint64_t grp[8];                                                                 \
                size_t base = g * 8;                                                             \
                for (int i = 0; i < 8; i++)                                                      \
                    grp[i] = base + (size_t)i < count ? TOU64(vals[base + (size_t)i]) : 0;       \
                rle_pack8(grp, w, body + k);                                                     \
                k += (size_t)w;                                                                  \
            }                                                                                    \
        }                                                                                        \
        uint8_t head[5];                                                                         \
        size_t hl = tsc_write_uvarint32(head, (uint32_t)k);                                      \
        memmove(dst + hl, body, k);                                                              \
        memcpy(dst, head, hl);                                                                   \
        return hl + k;                                                                           \
    }

#define RLE_TOU64_I32(x) ((uint64_t)(uint32_t)(x))
#define RLE_TOU64_I64(x) ((uint64_t)(x))
#define RLE_TOU64_BOOL(x) ((uint64_t)((x) != 0))

RLE_DEFINE_ENCODE(rle_encode_i32_scalar, int32_t, RLE_TOU64_I32)
RLE_DEFINE_ENCODE(rle_encode_i64_scalar, int64_t, RLE_TOU64_I64)
RLE_DEFINE_ENCODE(rle_encode_bool_scalar, uint8_t, RLE_TOU64_BOOL)

/* Generates rle_width_SUF, the C++ writer's width: max(1, bit length of the OR of the values as
 * UT), so a negative int32 needs 32 and a negative int64 64. */
#define RLE_DEFINE_WIDTH(SUF, T, UT)                                                               \
    static inline int rle_width_##SUF(const T *v, size_t count)                                    \
    {                                                                                              \
        UT orv = 0;                                                                                \
        for (size_t i = 0; i < count; i++) orv |= (UT)v[i];                                        \
        int w = tsfile_bit_length64(orv);                                                                 \
        return w < 1 ? 1 : w;                                                                      \
    }

RLE_DEFINE_WIDTH(i32, int32_t, uint32_t)
RLE_DEFINE_WIDTH(i64, int64_t, uint64_t)

static inline int rle_width_bool(const uint8_t *v, size_t count)
{
    (void)v;
    (void)count;
    return 1; /* 0/1 values: max(1, bit length) is always 1 */
}

#endif /* TSFILE_RLE_SCALAR_H */
