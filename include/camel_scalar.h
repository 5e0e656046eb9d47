/*
 * camel_scalar.h: TsFile CAMEL decoder (DOUBLE only), scalar C (format notes 8.11).
 *
 * A page holds one or more blocks: svarint nbits, then ceil(nbits / 8) bytes of an MSB-first bit
 * stream of which the first nbits are meaningful. In a block:
 *   first value: 64 raw bits; int_state = java_long(v0); prev = java_bits(v0)
 *   next values: 1 bit sign, 1 bit type,
 *     type 1 (decimal): varlong d (int_state += d; int = int_state), 4 bits c - 1, 1 bit flag,
 *                       [flag: c bits xb], varlong m;
 *                       frac = flag ? bits_to_double(java_bits(m / 10^c + 1) ^ (xb << (52 - c))) - 1
 *                                   : m / 10^c
 *                       a = (int * 10^c + java_round(frac * 10^c)) / 10^c; value = sign ? -a : a
 *     type 0: a GORILLA step (lead 6 bits, significant - 1 in 6 bits) of |value| against prev;
 *             value = sign ? -that : that
 *   after each value prev = java_bits(value) (java_bits: NaN -> canonical 0x7ff8000000000000).
 * varlong = zigzag-64 in 7-bit groups, least significant first, each followed by a continuation bit.
 * The arithmetic follows the official C++ decoder step by step (double precision, no fused
 * multiply-add), so the results are bit-identical to it.
 */
#ifndef TSFILE_CAMEL_SCALAR_H
#define TSFILE_CAMEL_SCALAR_H

#include <math.h>

#include "bitreader_msb.h"

#define CAMEL_CANON_NAN UINT64_C(0x7ff8000000000000)

static const int64_t camel_pow10[15] = {
    INT64_C(10), INT64_C(100), INT64_C(1000), INT64_C(10000), INT64_C(100000),
    INT64_C(1000000), INT64_C(10000000), INT64_C(100000000), INT64_C(1000000000),
    INT64_C(10000000000), INT64_C(100000000000), INT64_C(1000000000000),
    INT64_C(10000000000000), INT64_C(100000000000000), INT64_C(1000000000000000),
};

TSFILE_INLINE double camel_dbl(uint64_t b) { double d; memcpy(&d, &b, 8); return d; }
TSFILE_INLINE uint64_t camel_raw_bits(double d) { uint64_t b; memcpy(&b, &d, 8); return b; }
TSFILE_INLINE uint64_t camel_java_bits(double d) { return d != d ? CAMEL_CANON_NAN : camel_raw_bits(d); }

/* Java's (long) cast: NaN -> 0, saturating at the int64 range. */
TSFILE_INLINE int64_t camel_java_long(double d)
{
    if (d != d) return 0;
    if (d >= 9223372036854775808.0) return INT64_MAX;
    if (d <= -9223372036854775808.0) return INT64_MIN;
    return (int64_t)d;
}

/* A product that the compiler must not fuse with a following addition (an FMA would round once
 * instead of twice and change the result on FMA targets). */
TSFILE_INLINE double camel_mul(double a, double b)
{
    volatile double p = a * b;
    return p;
}

typedef struct {
    const uint8_t *src;
    size_t len;
    size_t pos;         /* next block header */
    tsf_msb_reader r;   /* over the current block's bytes */
    size_t bits_left;   /* meaningful bits of the current block not yet read; 0 = between blocks */
    int first;          /* the next value is a block's first */
    int lead, trail;    /* GORILLA window; lead < 0 = none yet */
    int64_t int_state;
    uint64_t prev;      /* java_bits of the previous value */
} camel_state;

static inline void camel_init(camel_state *s, const uint8_t *src, size_t len)
{
    s->src = src;
    s->len = len;
    s->pos = 0;
    tsf_msb_init(&s->r, src, 0);
    s->bits_left = 0;
    s->first = 0;
    s->lead = -1;
    s->trail = 0;
    s->int_state = 0;
    s->prev = 0;
}

/* n (0..64) bits of the current block; a field crossing the block's end is corrupt. */
TSFILE_INLINE int camel_bits(camel_state *s, int n, uint64_t *v)
{
    if (TSFILE_UNLIKELY((size_t)n > s->bits_left)) return TSF_E_CORRUPT;
    s->bits_left -= (size_t)n;
    return tsf_msb_read(&s->r, n, v); /* the block's bytes were checked to be present */
}

TSFILE_INLINE int camel_varlong(camel_state *s, int64_t *out)
{
    uint64_t result = 0;
    int shift = 0;
    for (;;) {
        uint64_t chunk, more;
        if (camel_bits(s, 7, &chunk) || camel_bits(s, 1, &more)) return TSF_E_CORRUPT;
        result |= chunk << shift;
        shift += 7;
        if (!more) break;
        if (shift >= 64) return TSF_E_CORRUPT;
    }
    *out = (int64_t)((result >> 1) ^ (UINT64_C(0) - (result & 1)));
    return 0;
}

/* Start the block at s->pos: 1 when started, 0 at the end of the data, TSF_E_* on error. */
static int camel_block(camel_state *s)
{
    if (s->pos >= s->len) return 0;
    uint32_t u = 0;
    size_t p = s->pos;
    int i;
    for (i = 0; i < 5; i++) {
        if (p >= s->len) return TSF_E_TRUNCATED;
        uint8_t b = s->src[p++];
        u |= (uint32_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) break;
    }
    if (i == 5) return TSF_E_CORRUPT;
    int32_t nbits = (int32_t)((u >> 1) ^ (0u - (u & 1u)));
    if (nbits <= 0) return TSF_E_CORRUPT;
    size_t nbytes = ((size_t)nbits + 7) / 8;
    if (nbytes > s->len - p) return TSF_E_TRUNCATED;
    tsf_msb_init(&s->r, s->src + p, nbytes);
    s->pos = p + nbytes;
    s->bits_left = (size_t)nbits;
    s->first = 1;
    s->lead = -1;
    s->trail = 0;
    s->int_state = 0;
    s->prev = 0;
    return 1;
}

/* One value: 1 (its bits in *out), 0 at the end of the data, or TSF_E_*. */
TSFILE_INLINE int camel_step(camel_state *s, uint64_t *out)
{
    uint64_t v, sign, type;
    if (s->bits_left == 0) {
        int rc = camel_block(s);
        if (rc != 1) return rc;
    }
    if (s->first) {
        if (camel_bits(s, 64, &v)) return TSF_E_CORRUPT;
        s->first = 0;
        s->int_state = camel_java_long(camel_dbl(v));
        s->prev = camel_java_bits(camel_dbl(v));
        *out = v; /* the raw bits: a NaN payload in the first value survives */
        return 1;
    }
    if (camel_bits(s, 1, &sign) || camel_bits(s, 1, &type)) return TSF_E_CORRUPT;
    double value;
    if (type) {
        int64_t diff, m;
        uint64_t c4, flag, xb = 0;
        if (camel_varlong(s, &diff)) return TSF_E_CORRUPT;
        s->int_state = (int64_t)((uint64_t)s->int_state + (uint64_t)diff);
        int64_t int_part = s->int_state;
        if (camel_bits(s, 4, &c4)) return TSF_E_CORRUPT;
        int c = (int)c4 + 1;
        if (c > 15) return TSF_E_CORRUPT;
        if (camel_bits(s, 1, &flag)) return TSF_E_CORRUPT;
        if (flag && camel_bits(s, c, &xb)) return TSF_E_CORRUPT;
        if (camel_varlong(s, &m)) return TSF_E_CORRUPT;
        double pw = (double)camel_pow10[c - 1];
        double frac;
        if (flag) {
            double base = (double)m / pw + 1;
            frac = camel_dbl((xb << (52 - c)) ^ camel_java_bits(base)) - 1;
        } else {
            frac = (double)m / pw;
        }
        /* java_round(frac * scale) = java_long(floor(x + 0.5)), NaN -> 0 */
        double x = camel_mul(frac, pw);
        double dec = (x != x) ? 0.0 : (double)camel_java_long(floor(x + 0.5));
        double t = camel_mul((double)int_part, pw) + dec;
        double a = int_part >= 0 ? t / pw : -t / pw;
        value = sign ? -a : a;
    } else {
        uint64_t b, x = 0;
        if (camel_bits(s, 1, &b)) return TSF_E_CORRUPT;
        if (b) {
            if (camel_bits(s, 1, &b)) return TSF_E_CORRUPT;
            if (!b) {
                if (s->lead < 0) return TSF_E_CORRUPT;
                int sig = 64 - s->lead - s->trail;
                if (sig > 0) {
                    if (camel_bits(s, sig, &x)) return TSF_E_CORRUPT;
                    x <<= s->trail;
                }
            } else {
                uint64_t ld, sg;
                if (camel_bits(s, 6, &ld) || camel_bits(s, 6, &sg)) return TSF_E_CORRUPT;
                int sig = (int)sg + 1;
                int trail = 64 - (int)ld - sig;
                if (trail < 0) return TSF_E_CORRUPT;
                s->lead = (int)ld;
                s->trail = trail;
                if (camel_bits(s, sig, &x)) return TSF_E_CORRUPT;
                x = trail >= 64 ? 0 : (x << trail);
            }
        }
        uint64_t gb = s->prev ^ x;
        double g = camel_dbl(gb);
        if (g != g) {
            /* sign * NaN keeps the NaN (quietened), as the official decoder's multiply does */
            value = camel_dbl(gb | UINT64_C(0x0008000000000000));
        } else {
            value = sign ? -g : g;
        }
    }
    s->prev = camel_java_bits(value);
    *out = camel_raw_bits(value);
    return 1;
}

/* Byte offset of an error: the block header when starting a block failed, else the byte of the
 * block's bit stream where the failing field starts. */
static inline size_t camel_error_offset(const camel_state *s, int at_header)
{
    if (at_header) return s->pos;
    return (size_t)(s->r.base - s->src) + (tsf_msb_bit_pos(&s->r) >> 3);
}

/*
 * Batch decode: up to `cap` values into out (the IEEE bits of each double). Returns the number
 * written (end of data or cap reached) or a TSF_E_* code; *pos receives the bytes consumed
 * (whole blocks once started) or the offset of the bad block.
 */
static int64_t camel_decode(const uint8_t *src, size_t len, uint64_t *out, int64_t cap, size_t *pos)
{
    camel_state st;
    camel_init(&st, src, len);
    int64_t n = 0;
    while (n < cap) {
        int at_header = st.bits_left == 0;
        int rc = camel_step(&st, &out[n]);
        if (rc < 0) { *pos = camel_error_offset(&st, at_header); return rc; }
        if (rc == 0) break;
        n++;
    }
    *pos = st.pos;
    return n;
}

#if defined(__GNUC__) || defined(__clang__)
#define CAMEL_NOINLINE __attribute__((noinline))
#else
#define CAMEL_NOINLINE
#endif
/* Per-value entry point: one value per (non-inlined) call, the streaming baseline. */
static CAMEL_NOINLINE int camel_next(camel_state *s, uint64_t *out) { return camel_step(s, out); }

/* Upper bound of the values in len bytes: a block's first value takes 64 bits, every other value
 * at least 3 (sign, type, one GORILLA control bit). */
static inline int64_t camel_max_values(size_t len) { return (int64_t)(len * 8 / 3) + 1; }

#endif /* TSFILE_CAMEL_SCALAR_H */

/* ------------------------------------------------------------------ encoder */

#include "bitwriter_msb.h"

static const int64_t camel_thresholds[10] = {
    INT64_C(5), INT64_C(25), INT64_C(125), INT64_C(625), INT64_C(3125), INT64_C(15625),
    INT64_C(78125), INT64_C(390625), INT64_C(1953125), INT64_C(9765625),
};

/* Java Math.round as the official C++ writer computes it: java_long(floor(x + 0.5)), NaN -> 0. */
TSFILE_INLINE int64_t camel_java_round(double x)
{
    if (x != x) return 0;
    return camel_java_long(floor(x + 0.5));
}

/* Values per block: a value takes at most 137 bits, so 2^20 values keep nbits below 2^31. */
#define CAMEL_BLOCK_VALUES (1u << 20)

/* Bytes enough for n values (at most 18 bytes each, plus 5 header bytes and padding per block). */
static inline size_t camel_encode_bound(size_t n)
{
    return n * 18 + (n / CAMEL_BLOCK_VALUES + 1) * 8;
}

typedef struct {
    tsf_msb_writer w;
    int64_t stored;
    uint64_t prev;
    int lead, trail; /* lead < 0: no GORILLA window yet */
} camel_enc;

TSFILE_INLINE void camel_put_varlong(camel_enc *e, int64_t v)
{
    uint64_t u = ((uint64_t)v << 1) ^ (v < 0 ? ~UINT64_C(0) : 0);
    while (u & ~UINT64_C(0x7f)) {
        tsf_msbw_put(&e->w, ((u & 0x7f) << 1) | 1, 8);
        u >>= 7;
    }
    tsf_msbw_put(&e->w, (u & 0x7f) << 1, 8);
}

TSFILE_INLINE void camel_put_gorilla(camel_enc *e, double a)
{
    uint64_t x = camel_java_bits(a) ^ e->prev;
    if (x == 0) {
        tsf_msbw_put(&e->w, 0, 1);
        return;
    }
    int lead = __builtin_clzll(x), trail = __builtin_ctzll(x);
    if (e->lead >= 0 && lead >= e->lead && trail >= e->trail) {
        tsf_msbw_put(&e->w, 2, 2);
        tsf_msbw_put_wide(&e->w, x >> e->trail, 64 - e->lead - e->trail);
    } else {
        int sig = 64 - lead - trail;
        tsf_msbw_put(&e->w, (UINT64_C(3) << 12) | ((uint64_t)lead << 6) | (uint64_t)(sig - 1), 14);
        tsf_msbw_put_wide(&e->w, x >> trail, sig);
        e->lead = lead;
        e->trail = trail;
    }
}

/* Encode one value after a block's first (format notes 8.11, the official writer's choices). */
static void camel_put_value(camel_enc *e, double v)
{
    tsf_msbw_put(&e->w, camel_java_bits(v) >> 63, 1);
    double a = fabs(v);
    if (a > 9223372036854775807.0 || a == 0 || fabs(floor(log10(a))) > 10) {
        tsf_msbw_put(&e->w, 0, 1);
        camel_put_gorilla(e, a);
        return;
    }
    int64_t int_part = camel_java_long(a);
    int digits = 1;
    for (int64_t t = int_part < 0 ? -int_part : int_part; t >= 10; t /= 10) digits++;
    double factor = 1;
    int c = 0;
    for (;;) {
        double x = camel_mul(a, factor);
        if (!(fabs(x - (double)camel_java_round(x)) > 0)) break;
        factor *= 10.0;
        c++;
        if (digits + c > 10) break;
    }
    if (c < 1) c = 1;
    if (c + digits > 10) {
        tsf_msbw_put(&e->w, 0, 1);
        camel_put_gorilla(e, a);
        return;
    }
    int64_t pw = camel_pow10[c - 1];
    int64_t dv = camel_java_round(camel_mul(a, (double)pw)) % pw;
    tsf_msbw_put(&e->w, 1, 1);
    camel_put_varlong(e, (int64_t)((uint64_t)int_part - (uint64_t)e->stored));
    e->stored = int_part;
    tsf_msbw_put(&e->w, (uint64_t)(c - 1), 4);
    int64_t thr = camel_thresholds[c - 1];
    int64_t m = (int64_t)(int32_t)(uint32_t)dv;
    if (dv >= thr) {
        tsf_msbw_put(&e->w, 1, 1);
        m = (int64_t)(int32_t)(uint32_t)(dv % thr);
        uint64_t xb = camel_java_bits((double)dv / (double)pw + 1) ^
                      camel_java_bits((double)m / (double)pw + 1);
        tsf_msbw_put(&e->w, xb >> (52 - c), c);
    } else {
        tsf_msbw_put(&e->w, 0, 1);
    }
    camel_put_varlong(e, m);
}

/* Encode n doubles (one block per CAMEL_BLOCK_VALUES values; pages normally hold one block).
 * `out` must hold camel_encode_bound(n) bytes; `scratch` as many. Returns the size. */
static size_t camel_encode(const double *values, size_t n, uint8_t *out, uint8_t *scratch)
{
    size_t pos = 0;
    for (size_t start = 0; start < n; start += CAMEL_BLOCK_VALUES) {
        size_t end = n - start < CAMEL_BLOCK_VALUES ? n : start + CAMEL_BLOCK_VALUES;
        camel_enc e;
        tsf_msbw_init(&e.w, scratch);
        e.lead = -1;
        e.trail = 0;
        tsf_msbw_put_wide(&e.w, camel_raw_bits(values[start]), 64);
        e.stored = camel_java_long(values[start]);
        e.prev = camel_java_bits(values[start]);
        for (size_t i = start + 1; i < end; i++) {
            camel_put_value(&e, values[i]);
            e.prev = camel_java_bits(values[i]);
        }
        uint32_t nbits = (uint32_t)tsf_msbw_bits(&e.w);
        size_t nbytes = tsf_msbw_finish(&e.w, 0);
        uint32_t u = (nbits << 1) ^ 0; /* svarint of a positive int32 */
        while (u >= 0x80) { out[pos++] = (uint8_t)(u | 0x80); u >>= 7; }
        out[pos++] = (uint8_t)u;
        memcpy(out + pos, scratch, nbytes);
        pos += nbytes;
    }
    return pos;
}
