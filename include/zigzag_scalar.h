/*
 * zigzag_scalar.h: ZIGZAG encoding (format notes 8.6), scalar kernels.
 *
 * Value bytes = one or more blocks (writers emit one per page):
 *   uvarint encoded_len, uvarint value_count, then value_count zigzag LEB128 varints taking exactly
 *   encoded_len bytes (32-bit zigzag, at most 5 bytes, for INT32; 64-bit, at most 10, for INT64).
 *
 * Since every varint takes at least one byte, value_count <= encoded_len <= the bytes present:
 * counts are checked against that before anything is decoded.
 */
#ifndef TSFILE_ZIGZAG_SCALAR_H
#define TSFILE_ZIGZAG_SCALAR_H

#include "varint_scalar.h"

/* Block header at pos: sets *body, *end (one past the varints) and *nvals. */
TSFILE_INLINE int zigzag_parse_block(const uint8_t *src, size_t n, size_t pos, size_t *body,
                                     size_t *end, uint32_t *nvals, size_t *err_at)
{
    uint32_t elen, cnt;
    size_t p = pos;
    int e = tsc_read_uvarint32(src, n, &p, &elen);
    if (!e) e = tsc_read_uvarint32(src, n, &p, &cnt);
    if (e) {
        *err_at = p;
        return e;
    }
    if ((size_t)elen > n - p) {
        *err_at = pos;
        return TSC_ERR_TRUNCATED;
    }
    if (cnt > elen) {
        *err_at = pos;
        return TSC_ERR_COUNT;
    }
    *body = p;
    *end = p + elen;
    *nvals = cnt;
    return TSC_OK;
}

static inline ptrdiff_t zigzag_count_scalar(const uint8_t *src, size_t n, size_t *total, size_t *err_at)
{
    size_t pos = 0, t = 0;
    while (pos < n) {
        size_t body, end;
        uint32_t c;
        int e = zigzag_parse_block(src, n, pos, &body, &end, &c, err_at);
        if (e) return -e;
        t += c;
        pos = end;
    }
    *total = t;
    return (ptrdiff_t)n;
}

#define ZIGZAG_DEFINE_DECODE(NAME, T, UT, READ, DEC)                                              \
    static inline ptrdiff_t NAME(const uint8_t *src, size_t n, T *out, size_t count, size_t *err_at)   \
    {                                                                                            \
        size_t pos = 0, done = 0;                                                                \
        if (count == 0) return 0;                                                                \
        while (pos < n) {                                                                        \
            size_t body, end;                                                                    \
            uint32_t c;                                                                          \
            int e = zigzag_parse_block(src, n, pos, &body, &end, &c, err_at);                    \
            if (e) return -e;                                                                    \
            size_t take = c;                                                                     \
            if (take > count - done) take = count - done;                                        \
            size_t p = body;                                                                     \
            for (size_t i = 0; i < take; i++) {                                                  \
                UT u;                                                                            \
                if (TSFILE_LIKELY(p < end && src[p] < 0x80)) {                                   \
                    u = src[p++];                                                                \
                } else {                                                                         \
                    e = READ(src, end, &p, &u);                                                  \
                    if (e) {                                                                     \
                        *err_at = p;                                                             \
                        return -(e == TSC_ERR_TRUNCATED ? TSC_ERR_BLOCK : e);                    \
                    }                                                                            \
                }                                                                                \
                out[done + i] = DEC(u);                                                          \
            }                                                                                    \
            done += take;                                                                        \
            if (take == c && p != end) {                                                         \
                *err_at = p;                                                                     \
                return -TSC_ERR_TRAILING;                                                        \
            }                                                                                    \
            if (done == count) return (ptrdiff_t)end;                                            \
            pos = end;                                                                           \
        }                                                                                        \
        *err_at = n;                                                                             \
        return -TSC_ERR_TRUNCATED;                                                               \
    }

ZIGZAG_DEFINE_DECODE(zigzag_decode_i32_scalar, int32_t, uint32_t, tsc_read_uvarint32,
                     tsc_zigzag_dec32)
ZIGZAG_DEFINE_DECODE(zigzag_decode_i64_scalar, int64_t, uint64_t, tsc_read_uvarint64,
                     tsc_zigzag_dec64)

/* ---- the streaming decoder (the "per_value" path) ---- */

typedef struct {
    const uint8_t *src;
    size_t n;
    size_t pos;       /* next varint, or the next block header when left == 0 */
    size_t block_end;
    uint32_t left;    /* values left in the current block */
    int is64;
    size_t err_at;
} zigzag_stream;

static inline void zigzag_stream_init(zigzag_stream *s, const uint8_t *src, size_t n, int is64)
{
    memset(s, 0, sizeof *s);
    s->src = src;
    s->n = n;
    s->is64 = is64;
}

/* Advance to a block with values left. 1: ready; 0: end; -code: corrupt. */
static inline int zigzag_stream_fill(zigzag_stream *s)
{
    while (s->left == 0) {
        if (s->pos != s->block_end) { /* the finished block left bytes over */
            s->err_at = s->pos;
            return -TSC_ERR_TRAILING;
        }
        if (s->pos >= s->n) return 0;
        size_t body, end;
        uint32_t c;
        int e = zigzag_parse_block(s->src, s->n, s->pos, &body, &end, &c, &s->err_at);
        if (e) return -e;
        s->pos = body;
        s->block_end = end;
        s->left = c;
    }
    return 1;
}

/* One value (as the unsigned zigzag-decoded pattern) into *v: 1 done, 0 end, -code corrupt. */
static inline int zigzag_stream_next(zigzag_stream *s, uint64_t *v)
{
    if (TSFILE_UNLIKELY(s->left == 0)) {
        int r = zigzag_stream_fill(s);
        if (r <= 0) return r;
    }
    int e;
    if (s->is64) {
        uint64_t u;
        e = tsc_read_uvarint64(s->src, s->block_end, &s->pos, &u);
        if (!e) *v = (uint64_t)tsc_zigzag_dec64(u);
    } else {
        uint32_t u;
        e = tsc_read_uvarint32(s->src, s->block_end, &s->pos, &u);
        if (!e) *v = (uint64_t)(int64_t)tsc_zigzag_dec32(u);
    }
    if (e) {
        s->err_at = s->pos;
        return -(e == TSC_ERR_TRUNCATED ? TSC_ERR_BLOCK : e);
    }
    if (--s->left == 0 && s->pos != s->block_end) { /* the block's varints end early */
        s->err_at = s->pos;
        return -TSC_ERR_TRAILING;
    }
    return 1;
}

/* ---- encoder: one block (like the C++ writer; zero values give the block 00 00) ---- */

TSFILE_INLINE size_t zigzag_encode_bound(size_t count, int is64)
{
    return 10 + count * (is64 ? 10 : 5);
}

/*
 * Generates NAME(v, count, dst) (zigzag_encode_i32_scalar, zigzag_encode_i64_scalar): one block
 * of count values (the body is written at dst + 10, past the longest header, then moved down
 * behind the real header). A macro because the int32 and int64 encoders differ only in the
 * zigzag and varint helpers (32 or 64 bits); the header's two varints are 32-bit for both.
 */
#define ZIGZAG_DEFINE_ENCODE(NAME, T, WRITE_UVARINT, ZIGZAG_ENC)                                   \
    static inline size_t NAME(const T *v, size_t count, uint8_t *dst)                              \
    {                                                                                              \
        uint8_t *body = dst + 10;                                                                  \
        size_t k = 0;                                                                              \
        for (size_t i = 0; i < count; i++) k += WRITE_UVARINT(body + k, ZIGZAG_ENC(v[i]));        \
        uint8_t head[10];                                                                          \
        size_t hl = tsc_write_uvarint32(head, (uint32_t)k);                                        \
        hl += tsc_write_uvarint32(head + hl, (uint32_t)count);                                     \
        memmove(dst + hl, body, k);                                                                \
        memcpy(dst, head, hl);                                                                     \
        return hl + k;                                                                             \
    }

ZIGZAG_DEFINE_ENCODE(zigzag_encode_i32_scalar, int32_t, tsc_write_uvarint32, tsc_zigzag_enc32)
ZIGZAG_DEFINE_ENCODE(zigzag_encode_i64_scalar, int64_t, tsc_write_uvarint64, tsc_zigzag_enc64)

#endif /* TSFILE_ZIGZAG_SCALAR_H */
