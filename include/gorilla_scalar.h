/*
 * gorilla_scalar.h: TsFile GORILLA (Gorilla XOR, Java "V2") encoder and decoders, scalar C.
 *
 * Layout (format notes 8.4): an MSB-first bit stream of W-bit words (W = 32 for INT32/FLOAT,
 * 64 for INT64/DOUBLE; field width L = 5 or 6). First value raw; then per value x = v ^ prev:
 *   x == 0                         -> '0'
 *   inside the stored lead/trail   -> '10' + (W - lead - trail) bits of x >> trail
 *   otherwise                      -> '11' + L bits lead + L bits (significant - 1) + significant bits
 * The page ends with the END value (INT32_MIN / INT64_MIN / canonical NaN bits) encoded like a
 * value, then the current byte is written out zero-padded (a whole 0x00 byte when aligned).
 *
 * Words are carried in uint64_t (32-bit words zero-extended) and every routine takes W as an
 * argument; the always-inline bodies are instantiated with a constant W so each width compiles to
 * its own straight-line code.
 *
 * The decoders never read outside [data, data + nbytes): the hot loop runs only while at least
 * GOR_FAST_MARGIN bytes remain after the bit position (one value is at most 78 bits and a peek
 * reads 9 bytes), the tail uses loads that substitute zeros past the end, and a value that needed
 * bits past the end is reported as truncation.
 */
#ifndef TSFILE_GORILLA_SCALAR_H
#define TSFILE_GORILLA_SCALAR_H

#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include "tsfile_isa.h"

#define GOR_END32 UINT64_C(0x80000000)         /* INT32 end value */
#define GOR_END64 UINT64_C(0x8000000000000000) /* INT64 end value */
#define GOR_ENDF32 UINT64_C(0x7fc00000)        /* FLOAT end value (canonical NaN) */
#define GOR_ENDF64 UINT64_C(0x7ff8000000000000) /* DOUBLE end value (canonical NaN) */

#define GOR_FAST_MARGIN 24

#if defined(__GNUC__) || defined(__clang__)
#  define GOR_NOINLINE __attribute__((noinline))
#else
#  define GOR_NOINLINE
#endif

enum {
    GOR_OK = 0,
    GOR_ERR_TRUNCATED = 1, /* data ended before the end value */
    GOR_ERR_WINDOW = 2,    /* '10' before any window, or lead + significant > W */
};

/* ---------------------------------------------------------------- bit loads (MSB-first) */

TSFILE_INLINE uint64_t gor_load_be64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_bswap64(v);
#else
    return ((v & 0xffull) << 56) | ((v & 0xff00ull) << 40) | ((v & 0xff0000ull) << 24) |
           ((v & 0xff000000ull) << 8) | ((v >> 8) & 0xff000000ull) | ((v >> 24) & 0xff0000ull) |
           ((v >> 40) & 0xff00ull) | (v >> 56);
#endif
}

/* The 64 bits starting at bit `pos`, MSB-aligned. Needs 9 readable bytes at pos >> 3. */
TSFILE_INLINE uint64_t gor_peek_fast(const uint8_t *d, uint64_t pos)
{
    const uint8_t *p = d + (pos >> 3);
    unsigned s = (unsigned)(pos & 7);
    uint64_t w = gor_load_be64(p) << s;
    if (s) w |= (uint64_t)p[8] >> (8 - s);
    return w;
}

/* Same, but bytes at or past `nbytes` read as zero. */
static inline uint64_t gor_peek_safe(const uint8_t *d, size_t nbytes, uint64_t pos)
{
    uint8_t tmp[9];
    size_t b = (size_t)(pos >> 3);
    for (int i = 0; i < 9; i++) tmp[i] = (b + (size_t)i < nbytes) ? d[b + (size_t)i] : 0;
    return gor_peek_fast(tmp, pos & 7);
}

TSFILE_INLINE int gor_clz64(uint64_t x) { return x ? __builtin_clzll(x) : 64; }
TSFILE_INLINE int gor_ctz64(uint64_t x) { return x ? __builtin_ctzll(x) : 64; }

/* ---------------------------------------------------------------- decoder state */

typedef struct {
    const uint8_t *data;
    size_t nbytes;
    uint64_t pos;   /* bit position of the next control bit */
    uint64_t prev;  /* last value (a W-bit word) */
    int lead;       /* stored window; lead < 0 = no window yet */
    int trail;
    int started;    /* first value read */
    int done;       /* end value reached */
    int err;        /* GOR_ERR_* */
} gorilla_dec_t;

static inline void gorilla_dec_init(gorilla_dec_t *s, const uint8_t *data, size_t nbytes)
{
    s->data = data;
    s->nbytes = nbytes;
    s->pos = 0;
    s->prev = 0;
    s->lead = -1;
    s->trail = 0;
    s->started = 0;
    s->done = 0;
    s->err = GOR_OK;
}

/* Bytes the page occupies once the end value has been read: the end value's last byte, or the
 * extra 0x00 byte the writer adds when the stream was byte-aligned (clamped to the data present). */
static inline size_t gorilla_dec_consumed(const gorilla_dec_t *s)
{
    size_t c = (size_t)(s->pos >> 3) + 1;
    return c < s->nbytes ? c : s->nbytes;
}

/*
 * One value (or one bulk run of repeats) from a non-first position. `FAST` selects unchecked loads.
 * Writes up to `room` values to out[0..] and returns how many were written (0 when the end value
 * was read or on error).
 */
TSFILE_INLINE size_t gor_step(gorilla_dec_t *s, const int W, const int FAST, uint64_t *out, size_t room)
{
    const int L = (W == 64) ? 6 : 5;
    const uint8_t *d = s->data;
    uint64_t pos = s->pos;
    uint64_t top = FAST ? gor_peek_fast(d, pos) : gor_peek_safe(d, s->nbytes, pos);
    if (!(top >> 63)) {
        /* a run of '0' bits = repeats of the previous value, emitted in bulk */
        size_t z = (size_t)gor_clz64(top);
        if (z > room) z = room;
        for (size_t i = 0; i < z; i++) out[i] = s->prev;
        s->pos = pos + z;
        return z;
    }
    uint64_t x;
    if (!((top >> 62) & 1)) {
        if (TSFILE_UNLIKELY(s->lead < 0)) { s->err = GOR_ERR_WINDOW; return 0; }
        int bits = W - s->lead - s->trail;
        pos += 2;
        uint64_t p = FAST ? gor_peek_fast(d, pos) : gor_peek_safe(d, s->nbytes, pos);
        x = (p >> (64 - bits)) << s->trail;
        pos += (uint64_t)bits;
    } else {
        int lead = (int)((top >> (62 - L)) & ((1u << L) - 1));
        int sig = (int)((top >> (62 - 2 * L)) & ((1u << L) - 1)) + 1;
        if (TSFILE_UNLIKELY(lead + sig > W)) { s->err = GOR_ERR_WINDOW; return 0; }
        int trail = W - lead - sig;
        pos += (uint64_t)(2 + 2 * L);
        uint64_t p = FAST ? gor_peek_fast(d, pos) : gor_peek_safe(d, s->nbytes, pos);
        x = (p >> (64 - sig)) << trail;
        pos += (uint64_t)sig;
        s->lead = lead;
        s->trail = trail;
    }
    s->pos = pos;
    s->prev ^= x;
    out[0] = s->prev;
    return 1;
}

/*
 * Batch decode: up to `cap` values into out (64-bit words for W = 64, else uint32 slots).
 * Resumable: call again with more room until s->done or s->err. Returns the values written.
 * `stop` = 1: a value equal to the end value ends the page (count unknown). `stop` = 0: decode by
 * count, as the official C++ reader does: a value equal to the end value is returned like any
 * other (the official writer stores such values without complaint), only running out of data
 * is an error.
 */
TSFILE_INLINE size_t gor_decode_generic(gorilla_dec_t *s, const int W, uint64_t endv, int stop,
                                        void *outv, size_t cap)
{
    uint64_t buf[64];
    size_t k = 0;
    uint64_t total_bits = (uint64_t)s->nbytes * 8;
    if (s->done || s->err || cap == 0) return 0;
    if (!s->started) {
        if ((uint64_t)W > total_bits) { s->err = GOR_ERR_TRUNCATED; return 0; }
        uint64_t top = gor_peek_safe(s->data, s->nbytes, 0);
        uint64_t v = top >> (64 - W);
        s->pos = (uint64_t)W;
        s->started = 1;
        if (stop && v == endv) { s->done = 1; return 0; }
        s->prev = v;
        if (W == 64) ((uint64_t *)outv)[k++] = v; else ((uint32_t *)outv)[k++] = (uint32_t)v;
    }
    /* Hot loop: unchecked loads while GOR_FAST_MARGIN bytes remain. Values go straight to the
     * output for 64-bit words; 32-bit words are staged through `buf` (repeats run in bulk). */
    while (k < cap) {
        int fast = (s->pos >> 3) + GOR_FAST_MARGIN <= (uint64_t)s->nbytes;
        size_t room = cap - k;
        size_t got;
        uint64_t *dst;
        if (W == 64) {
            dst = (uint64_t *)outv + k;
        } else {
            dst = buf;
            if (room > 64) room = 64;
        }
        if (fast) got = gor_step(s, W, 1, dst, room);
        else got = gor_step(s, W, 0, dst, room);
        if (TSFILE_UNLIKELY(s->err)) return k;
        if (!fast && TSFILE_UNLIKELY(s->pos > total_bits)) { s->err = GOR_ERR_TRUNCATED; return k; }
        if (stop && got == 1 && dst[0] == endv) { s->done = 1; return k; }
        if (W != 64) {
            uint32_t *o = (uint32_t *)outv + k;
            for (size_t i = 0; i < got; i++) o[i] = (uint32_t)buf[i];
        }
        k += got;
    }
    return k;
}

/*
 * Per-value decode: one value per call (the classic streaming baseline), inlined into the two
 * out-of-line entry points gorilla_next32/64 below. Returns 1 with *out set, 0 at the end value,
 * -1 on error (s->err).
 */
TSFILE_INLINE int gor_next_generic(gorilla_dec_t *s, const int W, uint64_t endv, int stop,
                                   uint64_t *out)
{
    uint64_t total_bits = (uint64_t)s->nbytes * 8;
    if (s->err) return -1;
    if (s->done) return 0;
    if (!s->started) {
        if ((uint64_t)W > total_bits) { s->err = GOR_ERR_TRUNCATED; return -1; }
        uint64_t v = gor_peek_safe(s->data, s->nbytes, 0) >> (64 - W);
        s->pos = (uint64_t)W;
        s->started = 1;
        if (stop && v == endv) { s->done = 1; return 0; }
        s->prev = v;
        *out = v;
        return 1;
    }
    uint64_t v;
    size_t got = gor_step(s, W, 0, &v, 1);
    if (s->err) return -1;
    if (s->pos > total_bits) { s->err = GOR_ERR_TRUNCATED; return -1; }
    if (stop && got == 1 && v == endv) { s->done = 1; return 0; }
    *out = s->prev;
    return 1;
}

static inline size_t gorilla_decode_batch32(gorilla_dec_t *s, uint64_t endv, int stop, uint32_t *out,
                                            size_t cap)
{
    return stop ? gor_decode_generic(s, 32, endv, 1, out, cap) : gor_decode_generic(s, 32, endv, 0, out, cap);
}
static inline size_t gorilla_decode_batch64(gorilla_dec_t *s, uint64_t endv, int stop, uint64_t *out,
                                            size_t cap)
{
    return stop ? gor_decode_generic(s, 64, endv, 1, out, cap) : gor_decode_generic(s, 64, endv, 0, out, cap);
}
/* The per-value entry points are kept out of line on purpose (as ts2diff_stream_next_i64): the
 * per_value path models a streaming decoder interface, one C call per value; inlined into the
 * caller's loop it would just be a worse batch decoder. */
static GOR_NOINLINE int gorilla_next32(gorilla_dec_t *s, uint64_t endv, int stop, uint64_t *out)
{
    return gor_next_generic(s, 32, endv, stop, out);
}
static GOR_NOINLINE int gorilla_next64(gorilla_dec_t *s, uint64_t endv, int stop, uint64_t *out)
{
    return gor_next_generic(s, 64, endv, stop, out);
}

/* ---------------------------------------------------------------- encoder */

typedef struct {
    uint8_t *out;   /* caller-provided, at least gorilla_encode_bound() bytes */
    size_t n;       /* bytes written */
    uint64_t acc;   /* pending bits in the low `nbits` bits */
    int nbits;      /* < 32 between calls */
    uint64_t prev;
    int lead;       /* stored window; lead = 1000 means none yet ("infinite") */
    int trail;
    int started;
} gorilla_enc_t;

static inline void gorilla_enc_init(gorilla_enc_t *e, uint8_t *out)
{
    e->out = out;
    e->n = 0;
    e->acc = 0;
    e->nbits = 0;
    e->prev = 0;
    e->lead = 1000;
    e->trail = 0;
    e->started = 0;
}

/* Bytes enough for `count` values plus the end value and the final byte. */
static inline size_t gorilla_encode_bound(size_t count, int W)
{
    size_t per = (size_t)(W + 2 + 2 * ((W == 64) ? 6 : 5));
    return ((count + 2) * per) / 8 + 16;
}

/* Append k <= 32 bits (MSB-first). */
TSFILE_INLINE void gor_put(gorilla_enc_t *e, uint64_t v, int k)
{
    e->acc = (e->acc << k) | v;
    e->nbits += k;
    if (e->nbits >= 32) {
        e->nbits -= 32;
        uint32_t w = (uint32_t)(e->acc >> e->nbits);
        e->out[e->n + 0] = (uint8_t)(w >> 24);
        e->out[e->n + 1] = (uint8_t)(w >> 16);
        e->out[e->n + 2] = (uint8_t)(w >> 8);
        e->out[e->n + 3] = (uint8_t)w;
        e->n += 4;
    }
}

/* Append k <= 64 bits. */
TSFILE_INLINE void gor_put_wide(gorilla_enc_t *e, uint64_t v, int k)
{
    if (k > 32) {
        gor_put(e, v >> 32, k - 32);
        gor_put(e, v & 0xffffffffu, 32);
    } else {
        gor_put(e, v, k);
    }
}

TSFILE_INLINE void gor_enc_value(gorilla_enc_t *e, const int W, uint64_t v)
{
    const int L = (W == 64) ? 6 : 5;
    if (TSFILE_UNLIKELY(!e->started)) {
        gor_put_wide(e, v, W);
        e->prev = v;
        e->started = 1;
        return;
    }
    uint64_t x = v ^ e->prev;
    e->prev = v;
    if (x == 0) {
        gor_put(e, 0, 1);
        return;
    }
    int lead = gor_clz64(x) - (64 - W);
    int trail = gor_ctz64(x);
    if (lead >= e->lead && trail >= e->trail) {
        int bits = W - e->lead - e->trail;
        if (W == 64 && bits > 30) {
            gor_put(e, 2, 2);
            gor_put_wide(e, x >> e->trail, bits);
        } else {
            gor_put_wide(e, ((uint64_t)2 << bits) | (x >> e->trail), bits + 2);
        }
    } else {
        int sig = W - lead - trail;
        gor_put(e, ((uint64_t)3 << (2 * L)) | ((uint64_t)lead << L) | (uint64_t)(sig - 1), 2 + 2 * L);
        gor_put_wide(e, x >> trail, sig);
        e->lead = lead;
        e->trail = trail;
    }
}

/* Encode the end value and write the final byte(s). Returns the total size. */
TSFILE_INLINE size_t gor_enc_finish(gorilla_enc_t *e, const int W, uint64_t endv)
{
    gor_enc_value(e, W, endv);
    while (e->nbits >= 8) {
        e->nbits -= 8;
        e->out[e->n++] = (uint8_t)(e->acc >> e->nbits);
    }
    /* the current byte, zero-padded; a 0x00 byte when the stream is already aligned */
    e->out[e->n++] = (uint8_t)((e->acc << (8 - e->nbits)) & 0xff);
    e->nbits = 0;
    e->acc = 0;
    return e->n;
}

/*
 * Encode a whole page. With `refuse`, returns -(i + 1) when values[i] equals the end value
 * (a reader that stops at the end value would lose the rest of the page); without it such values
 * are encoded like any other, as the official C++ writer does (its reader decodes by count).
 * Returns the size written otherwise. `out` must hold gorilla_encode_bound(count, W) bytes.
 */
TSFILE_INLINE ptrdiff_t gor_encode_generic(const void *values, size_t count, const int W,
                                          uint64_t endv, int refuse, uint8_t *out)
{
    gorilla_enc_t e;
    gorilla_enc_init(&e, out);
    for (size_t i = 0; i < count; i++) {
        uint64_t v = (W == 64) ? ((const uint64_t *)values)[i] : ((const uint32_t *)values)[i];
        if (TSFILE_UNLIKELY(refuse && v == endv)) return -(ptrdiff_t)(i + 1);
        gor_enc_value(&e, W, v);
    }
    return (ptrdiff_t)gor_enc_finish(&e, W, endv);
}

static inline ptrdiff_t gorilla_encode32(const uint32_t *values, size_t count, uint64_t endv,
                                         int refuse, uint8_t *out)
{
    return gor_encode_generic(values, count, 32, endv, refuse, out);
}
static inline ptrdiff_t gorilla_encode64(const uint64_t *values, size_t count, uint64_t endv,
                                         int refuse, uint8_t *out)
{
    return gor_encode_generic(values, count, 64, endv, refuse, out);
}

/* Streaming encoder entry points (one value per call). */
static inline void gorilla_enc_put32(gorilla_enc_t *e, uint64_t v) { gor_enc_value(e, 32, v); }
static inline void gorilla_enc_put64(gorilla_enc_t *e, uint64_t v) { gor_enc_value(e, 64, v); }
static inline size_t gorilla_enc_finish32(gorilla_enc_t *e, uint64_t endv) { return gor_enc_finish(e, 32, endv); }
static inline size_t gorilla_enc_finish64(gorilla_enc_t *e, uint64_t endv) { return gor_enc_finish(e, 64, endv); }

#endif /* TSFILE_GORILLA_SCALAR_H */
