/*
 * sprintz_scalar.h: TsFile SPRINTZ (Fire predictor + bit packing) decoders, scalar C
 * (format notes 8.9).
 *
 * A page is a sequence of blocks, each starting with one byte b:
 *   b < 0x80: full block of 9 values: w = b, the first value (INT32: uvarint of its 32-bit pattern;
 *             INT64: i64 BE; FLOAT: f32 BE bits; DOUBLE: f64 BE bits), then w bytes holding 8
 *             residuals of w bits, MSB-first.
 *   b >= 0x80: tail of n = b & 0x7f (1..8) values, written at the end of the page as one INT32 RLE
 *             block (8.5) / INT64 RLE block / FLOAT GORILLA stream / DOUBLE GORILLA stream (8.4).
 * Residual r (unsigned w-bit) -> error e = r odd ? (r + 1) / 2 : -(r / 2); value = prediction + e,
 * where the Fire predictor (reset every block) predicts from the previous value:
 *   32-bit words: alpha = acc >> 2; diff = int32(alpha * delta) >> 8
 *   64-bit words: alpha = acc >> 3; diff = (alpha * delta, exact 128-bit) >> 16
 *   train: acc = int32(acc - (e > 0 ? -delta : delta)); delta = value - previous
 * (`acc` is a 32-bit int in both; all arithmetic on values wraps). FLOAT/DOUBLE run on their bits.
 *
 * The RLE and GORILLA tails are decoded by small self-contained routines here (at most 8 values).
 */
#ifndef TSFILE_SPRINTZ_SCALAR_H
#define TSFILE_SPRINTZ_SCALAR_H

#include "bitreader_msb.h"

/* Value kinds: identical to SK_* of tsfile/codecs/_serial.pxd. */
enum { SPRINTZ_I32 = 0, SPRINTZ_I64 = 1, SPRINTZ_F32 = 2, SPRINTZ_F64 = 3 };

#define SPRINTZ_W(kind) (((kind) == SPRINTZ_I64 || (kind) == SPRINTZ_F64) ? 64 : 32)

/* ------------------------------------------------------------------ Fire predictor */

/* Signed (a * b) >> s of two int64 with an exact 128-bit product, truncated to int64. */
TSFILE_INLINE int64_t sprintz_mul_shift64(int64_t a, int64_t b, int s)
{
#if defined(__SIZEOF_INT128__)
    __int128 p = (__int128)a * (__int128)b;
    return (int64_t)(p >> s);
#else
    /* Portable 64x64 -> 128 signed multiply from 32-bit halves. */
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    uint64_t al = ua & 0xffffffffu, ah = ua >> 32, bl = ub & 0xffffffffu, bh = ub >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
    uint64_t lo = (ll & 0xffffffffu) | (mid << 32);
    uint64_t hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
    if (a < 0) hi -= ub; /* signed correction of the unsigned product */
    if (b < 0) hi -= ua;
    /* arithmetic shift of the 128-bit (hi:lo) right by s (0 < s < 64), low 64 bits */
    return (int64_t)((lo >> s) | (hi << (64 - s)));
#endif
}

/* Rebuild v[1..8] of a full block in place: v[0] is the first value, v[1..8] hold residuals. */
TSFILE_INLINE void sprintz_fire32(uint64_t *v)
{
    int32_t acc = 0;
    uint32_t delta = 0;
    uint32_t prev = (uint32_t)v[0];
    for (int i = 1; i <= 8; i++) {
        int32_t alpha = acc >> 2;
        int32_t diff = ((int32_t)(uint32_t)((int64_t)alpha * (int64_t)(int32_t)delta)) >> 8;
        uint64_t r = v[i];
        uint32_t e = (r & 1) ? (uint32_t)((r >> 1) + 1) : (uint32_t)(0u - (uint32_t)(r >> 1));
        uint32_t cur = prev + (uint32_t)diff + e;
        uint32_t grad = ((int32_t)e > 0) ? (0u - delta) : delta;
        acc = (int32_t)((uint32_t)acc - grad);
        delta = cur - prev;
        prev = cur;
        v[i] = cur;
    }
}

TSFILE_INLINE void sprintz_fire64(uint64_t *v)
{
    int32_t acc = 0;
    uint64_t delta = 0;
    uint64_t prev = v[0];
    for (int i = 1; i <= 8; i++) {
        int64_t alpha = (int64_t)(acc >> 3);
        int64_t diff = sprintz_mul_shift64(alpha, (int64_t)delta, 16);
        uint64_t r = v[i];
        uint64_t e = (r & 1) ? ((r >> 1) + 1) : (UINT64_C(0) - (r >> 1));
        uint64_t cur = prev + (uint64_t)diff + e;
        uint64_t grad = ((int64_t)e > 0) ? (UINT64_C(0) - delta) : delta;
        acc = (int32_t)(uint32_t)((uint64_t)(int64_t)acc - grad);
        delta = cur - prev;
        prev = cur;
        v[i] = cur;
    }
}

/* ------------------------------------------------------------------ byte-level helpers */

/* uvarint accumulated in 32 bits (at most 5 bytes). */
TSFILE_INLINE int sprintz_uvarint32(const uint8_t *src, size_t len, size_t *pos, uint32_t *out)
{
    uint32_t v = 0;
    size_t p = *pos;
    for (int i = 0; i < 5; i++) {
        if (p >= len) return TSF_E_TRUNCATED;
        uint8_t b = src[p++];
        v |= (uint32_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) { *pos = p; *out = v; return 0; }
    }
    return TSF_E_CORRUPT;
}

/* ------------------------------------------------------------------ tails */

/* One RLE block (8.5) holding at least n values; the first n go to out. */
static int sprintz_tail_rle(const uint8_t *src, size_t len, size_t *pos, int W, int n, uint64_t *out)
{
    uint32_t blen;
    size_t p = *pos;
    int rc = sprintz_uvarint32(src, len, &p, &blen);
    if (rc) return rc;
    if (blen < 1 || blen > len - p) return TSF_E_TRUNCATED;
    size_t end = p + blen;
    int w = src[p++];
    if (w > W) return TSF_E_CORRUPT;
    int got = 0;
    while (p < end && got < n) {
        uint32_t h;
        rc = sprintz_uvarint32(src, end, &p, &h);
        if (rc) return rc == TSF_E_TRUNCATED ? TSF_E_CORRUPT : rc;
        if (h & 1) { /* bit-packed run */
            uint32_t groups = h >> 1;
            if (groups == 0 || p >= end) return TSF_E_CORRUPT;
            int last = src[p++];
            if (last < 1 || last > 8) return TSF_E_CORRUPT;
            uint64_t nbytes = (uint64_t)groups * (uint64_t)w;
            if (nbytes > end - p) return TSF_E_CORRUPT;
            uint64_t nvals = (uint64_t)(groups - 1) * 8 + (uint64_t)last;
            tsf_msb_reader r;
            tsf_msb_init(&r, src + p, (size_t)nbytes);
            for (uint64_t i = 0; i < nvals && got < n; i++) {
                uint64_t v = 0;
                tsf_msb_read(&r, w, &v);
                out[got++] = v;
            }
            p += (size_t)nbytes;
        } else { /* RLE run: the value in ceil(w/8) bytes, INT32 little-endian, INT64 big-endian */
            uint32_t cnt = h >> 1;
            size_t vb = (size_t)(w + 7) / 8;
            if (vb > end - p) return TSF_E_CORRUPT;
            uint64_t v = 0;
            for (size_t i = 0; i < vb; i++) {
                if (W == 32) v |= (uint64_t)src[p + i] << (8 * i);
                else v = (v << 8) | src[p + i];
            }
            p += vb;
            for (uint32_t i = 0; i < cnt && got < n; i++) out[got++] = v;
        }
    }
    if (got < n) return TSF_E_COUNT;
    *pos = end;
    return 0;
}

/* A GORILLA stream (8.4) of exactly n values followed by its end value and padding byte. The n
 * values are decoded without stopping at the end value, so a tail holding that value still
 * decodes; the value after them must be the end value. */
static int sprintz_tail_gorilla(const uint8_t *src, size_t len, size_t *pos, int W, uint64_t endv,
                                int n, uint64_t *out)
{
    const int L = (W == 64) ? 6 : 5;
    tsf_msb_reader r;
    tsf_msb_init(&r, src + *pos, len - *pos);
    uint64_t prev = 0, v = 0;
    int lead = -1, trail = 0;
    for (int i = 0; i <= n; i++) {
        if (i == 0) {
            if (tsf_msb_read(&r, W, &v)) return TSF_E_TRUNCATED;
        } else {
            uint64_t b = 0, x = 0;
            if (tsf_msb_read(&r, 1, &b)) return TSF_E_TRUNCATED;
            if (b) {
                if (tsf_msb_read(&r, 1, &b)) return TSF_E_TRUNCATED;
                if (!b) {
                    if (lead < 0) return TSF_E_CORRUPT;
                    if (tsf_msb_read(&r, W - lead - trail, &x)) return TSF_E_TRUNCATED;
                    x <<= trail;
                } else {
                    uint64_t ld = 0, sg = 0;
                    if (tsf_msb_read(&r, L, &ld) || tsf_msb_read(&r, L, &sg)) return TSF_E_TRUNCATED;
                    int sig = (int)sg + 1;
                    if ((int)ld + sig > W) return TSF_E_CORRUPT;
                    lead = (int)ld;
                    trail = W - lead - sig;
                    if (tsf_msb_read(&r, sig, &x)) return TSF_E_TRUNCATED;
                    x = trail >= 64 ? 0 : x << trail;
                }
            }
            v = prev ^ x;
        }
        if (i < n) out[i] = v;
        else if (v != endv) return TSF_E_COUNT;
        prev = v;
    }
    size_t used = (tsf_msb_bit_pos(&r) >> 3) + 1; /* the end value's byte, or a whole 0x00 byte */
    if (used > len - *pos) used = len - *pos;
    *pos += used;
    return 0;
}

/* ------------------------------------------------------------------ blocks */

/*
 * Decode the block at src[*pos]: writes its values (9, or 1..8 for a tail) to v[0..8] as words and
 * returns how many; 0 at the end of the data; TSF_E_* on error (*pos then points at the block).
 */
TSFILE_INLINE int sprintz_block(const uint8_t *src, size_t len, size_t *pos, const int kind,
                                uint64_t *v)
{
    const int W = SPRINTZ_W(kind);
    size_t p = *pos;
    if (p >= len) return 0;
    int b = src[p++];
    if (b & 0x80) {
        int n = b & 0x7f;
        int rc;
        if (n < 1 || n > 8) return TSF_E_COUNT;
        if (kind == SPRINTZ_I32 || kind == SPRINTZ_I64)
            rc = sprintz_tail_rle(src, len, &p, W, n, v);
        else
            rc = sprintz_tail_gorilla(src, len, &p, W,
                                      W == 64 ? UINT64_C(0x7ff8000000000000) : UINT64_C(0x7fc00000),
                                      n, v);
        if (rc) return rc;
        *pos = p;
        return n;
    }
    int w = b;
    if (w > W) return TSF_E_CORRUPT;
    if (kind == SPRINTZ_I32) {
        uint32_t f;
        int rc = sprintz_uvarint32(src, len, &p, &f);
        if (rc) return rc;
        v[0] = f;
    } else if (W == 32) {
        if (len - p < 4) return TSF_E_TRUNCATED;
        v[0] = tsf_load_be32(src + p);
        p += 4;
    } else {
        if (len - p < 8) return TSF_E_TRUNCATED;
        v[0] = tsf_load_be64(src + p);
        p += 8;
    }
    if (len - p < (size_t)w) return TSF_E_TRUNCATED;
    /* 8 residuals of w bits in exactly w bytes */
    if (w == 0) {
        for (int i = 1; i <= 8; i++) v[i] = 0;
    } else {
        tsf_msb_reader r;
        tsf_msb_init(&r, src + p, (size_t)w);
        if (w <= 56) {
            for (int i = 1; i <= 8; i++) {
                tsf_msb_need(&r, w);
                v[i] = tsf_msb_take(&r, w);
            }
        } else {
            for (int i = 1; i <= 8; i++) tsf_msb_read(&r, w, &v[i]);
        }
    }
    p += (size_t)w;
    if (W == 64) sprintz_fire64(v); else sprintz_fire32(v);
    *pos = p;
    return 9;
}

/*
 * Batch decode: up to `cap` values into out (uint32_t slots for 32-bit kinds, uint64_t otherwise).
 * Returns the number written (end of data or cap reached) or a TSF_E_* code; *pos receives the
 * bytes consumed through the last block used, or the offset of the bad block.
 */
TSFILE_INLINE int64_t sprintz_decode_generic(const uint8_t *src, size_t len, const int kind, void *out,
                                             int64_t cap, size_t *pos)
{
    const int W = SPRINTZ_W(kind);
    uint64_t v[9];
    size_t p = 0;
    int64_t n = 0;
    while (n < cap) {
        size_t at = p;
        int k = sprintz_block(src, len, &p, kind, v);
        if (k < 0) { *pos = at; return k; }
        if (k == 0) break;
        int take = (int64_t)k <= cap - n ? k : (int)(cap - n);
        if (W == 64) {
            for (int i = 0; i < take; i++) ((uint64_t *)out)[n + i] = v[i];
        } else {
            for (int i = 0; i < take; i++) ((uint32_t *)out)[n + i] = (uint32_t)v[i];
        }
        n += take;
    }
    *pos = p;
    return n;
}

static int64_t sprintz_decode(const uint8_t *src, size_t len, int kind, void *out, int64_t cap,
                              size_t *pos)
{
    switch (kind) {
    case SPRINTZ_I32: return sprintz_decode_generic(src, len, SPRINTZ_I32, out, cap, pos);
    case SPRINTZ_I64: return sprintz_decode_generic(src, len, SPRINTZ_I64, out, cap, pos);
    case SPRINTZ_F32: return sprintz_decode_generic(src, len, SPRINTZ_F32, out, cap, pos);
    default: return sprintz_decode_generic(src, len, SPRINTZ_F64, out, cap, pos);
    }
}

/* ------------------------------------------------------------------ streaming state */

typedef struct {
    const uint8_t *src;
    size_t len;
    size_t pos;     /* next block */
    int kind;
    int nbuf;       /* values of the current block */
    int ibuf;       /* next one to hand out */
    uint64_t buf[9];
} sprintz_state;

static inline void sprintz_init(sprintz_state *s, const uint8_t *src, size_t len, int kind)
{
    s->src = src;
    s->len = len;
    s->pos = 0;
    s->kind = kind;
    s->nbuf = 0;
    s->ibuf = 0;
}

#if defined(__GNUC__) || defined(__clang__)
#define SPRINTZ_NOINLINE __attribute__((noinline))
#else
#define SPRINTZ_NOINLINE
#endif

/* Per-value entry point: one value per (non-inlined) call, decoding a block when the previous one
 * is used up (as the official decoder does). 1 (value in *out), 0 at the end, or TSF_E_*. */
static SPRINTZ_NOINLINE int sprintz_next(sprintz_state *s, uint64_t *out)
{
    if (s->ibuf >= s->nbuf) {
        int k = sprintz_block(s->src, s->len, &s->pos, s->kind, s->buf);
        if (k <= 0) return k;
        s->nbuf = k;
        s->ibuf = 0;
    }
    *out = s->buf[s->ibuf++];
    return 1;
}

/*
 * Exact number of values in the page: walks full blocks by their headers (first value and packed
 * bytes skipped, nothing reconstructed) and decodes tails (at most 8 values each).
 * Returns the count or a TSF_E_* code (*pos = offset of the bad block).
 */
static int64_t sprintz_count(const uint8_t *src, size_t len, int kind, size_t *pos)
{
    const int W = SPRINTZ_W(kind);
    size_t p = 0;
    int64_t n = 0;
    uint64_t tmp[9];
    while (p < len) {
        size_t at = p;
        int b = src[p];
        if (b & 0x80) {
            int k = sprintz_block(src, len, &p, kind, tmp);
            if (k < 0) { *pos = at; return k; }
            n += k;
            continue;
        }
        p++;
        if (b > W) { *pos = at; return TSF_E_CORRUPT; }
        if (kind == SPRINTZ_I32) {
            uint32_t f;
            int rc = sprintz_uvarint32(src, len, &p, &f);
            if (rc) { *pos = at; return rc; }
        } else {
            size_t fb = (size_t)W / 8;
            if (len - p < fb) { *pos = at; return TSF_E_TRUNCATED; }
            p += fb;
        }
        if (len - p < (size_t)b) { *pos = at; return TSF_E_TRUNCATED; }
        p += (size_t)b;
        n += 9;
    }
    *pos = p;
    return n;
}

#endif /* TSFILE_SPRINTZ_SCALAR_H */

/* ------------------------------------------------------------------ encoder */

#include "bit_length.h"
#include "bitwriter_msb.h"

/* Bytes enough for n values: a full block takes at most 1 + 9 + 64 bytes for 9 values, a tail at
 * most 1 + 6 + 2 + 64 (RLE) or 1 + 8 * 10 + 12 (GORILLA) bytes. */
static inline size_t sprintz_encode_bound(size_t n) { return (n / 9) * 74 + 128; }

/* The residuals of a full block (v[0..8] words) into r[0..7]: Fire prediction, zigzag-like map. */
TSFILE_INLINE void sprintz_residuals(const uint64_t *v, int W, uint64_t *r)
{
    if (W == 32) {
        int32_t acc = 0;
        uint32_t delta = 0;
        for (int i = 1; i <= 8; i++) {
            uint32_t prev = (uint32_t)v[i - 1], cur = (uint32_t)v[i];
            int32_t alpha = acc >> 2;
            int32_t diff = ((int32_t)(uint32_t)((int64_t)alpha * (int64_t)(int32_t)delta)) >> 8;
            uint32_t e = cur - (prev + (uint32_t)diff);
            uint32_t grad = ((int32_t)e > 0) ? (0u - delta) : delta;
            acc = (int32_t)((uint32_t)acc - grad);
            delta = cur - prev;
            r[i - 1] = ((int32_t)e <= 0) ? (uint32_t)(0u - 2u * e) : (uint32_t)(2u * e - 1u);
        }
    } else {
        int32_t acc = 0;
        uint64_t delta = 0;
        for (int i = 1; i <= 8; i++) {
            uint64_t prev = v[i - 1], cur = v[i];
            int64_t alpha = (int64_t)(acc >> 3);
            int64_t diff = sprintz_mul_shift64(alpha, (int64_t)delta, 16);
            uint64_t e = cur - (prev + (uint64_t)diff);
            uint64_t grad = ((int64_t)e > 0) ? (UINT64_C(0) - delta) : delta;
            acc = (int32_t)(uint32_t)((uint64_t)(int64_t)acc - grad);
            delta = cur - prev;
            r[i - 1] = ((int64_t)e <= 0) ? (UINT64_C(0) - 2 * e) : (2 * e - 1);
        }
    }
}

static size_t sprintz_put_uvarint(uint8_t *out, uint32_t v)
{
    size_t k = 0;
    while (v >= 0x80) { out[k++] = (uint8_t)(v | 0x80); v >>= 7; }
    out[k++] = (uint8_t)v;
    return k;
}

/* The tail of n (1..8) words: an RLE block with one bit-packed run (INT32/INT64, as the C++
 * writer) or a GORILLA stream with its end value (FLOAT/DOUBLE). Returns the bytes written. */
static size_t sprintz_put_tail(uint8_t *out, int kind, const uint64_t *v, int n)
{
    const int W = SPRINTZ_W(kind);
    size_t p = 0;
    out[p++] = (uint8_t)(0x80 | n);
    if (kind == SPRINTZ_I32 || kind == SPRINTZ_I64) {
        int w = 1;
        for (int i = 0; i < n; i++) {
            int b = tsfile_bit_length64(v[i]);
            if (b > w) w = b;
        }
        uint8_t body[80];
        size_t q = 0;
        body[q++] = (uint8_t)w;
        body[q++] = 3; /* header: 1 group, bit-packed */
        body[q++] = (uint8_t)n;
        tsf_msb_writer bw;
        tsf_msbw_init(&bw, body + q);
        for (int i = 0; i < 8; i++) tsf_msbw_put_wide(&bw, i < n ? v[i] : 0, w);
        q += tsf_msbw_finish(&bw, 0);
        p += sprintz_put_uvarint(out + p, (uint32_t)q);
        memcpy(out + p, body, q);
        return p + q;
    }
    const int L = (W == 64) ? 6 : 5;
    const uint64_t endv = W == 64 ? UINT64_C(0x7ff8000000000000) : UINT64_C(0x7fc00000);
    tsf_msb_writer bw;
    tsf_msbw_init(&bw, out + p);
    uint64_t prev = 0;
    int lead = -1, trail = 0;
    for (int i = 0; i <= n; i++) {
        uint64_t cur = i < n ? v[i] : endv;
        if (i == 0) {
            tsf_msbw_put_wide(&bw, cur, W);
        } else {
            uint64_t x = cur ^ prev;
            if (x == 0) {
                tsf_msbw_put(&bw, 0, 1);
            } else {
                int ld = __builtin_clzll(x) - (64 - W), tr = __builtin_ctzll(x);
                if (lead >= 0 && ld >= lead && tr >= trail) {
                    tsf_msbw_put(&bw, 2, 2);
                    tsf_msbw_put_wide(&bw, x >> trail, W - lead - trail);
                } else {
                    int sig = W - ld - tr;
                    tsf_msbw_put(&bw, (UINT64_C(3) << (2 * L)) | ((uint64_t)ld << L) | (uint64_t)(sig - 1),
                                 2 + 2 * L);
                    tsf_msbw_put_wide(&bw, x >> tr, sig);
                    lead = ld;
                    trail = tr;
                }
            }
        }
        prev = cur;
    }
    return p + tsf_msbw_finish(&bw, 1);
}

/*
 * Encode n words of `kind` (uint32_t slots for 32-bit kinds, uint64_t otherwise) as the official
 * C++ writer does: full blocks of 9, then the tail. `out` must hold sprintz_encode_bound(n) bytes.
 * Returns the size. A prediction error of exactly -2^(W-1) maps to residual 0 (the format cannot
 * represent it; the writers lose such a value the same way).
 */
static size_t sprintz_encode(const void *values, size_t n, int kind, uint8_t *out)
{
    const int W = SPRINTZ_W(kind);
    size_t p = 0, i = 0;
    uint64_t v[9], r[8];
#define SPRINTZ_WORD(j) (W == 64 ? ((const uint64_t *)values)[j] : (uint64_t)((const uint32_t *)values)[j])
    for (; n - i >= 9; i += 9) {
        for (int j = 0; j < 9; j++) v[j] = SPRINTZ_WORD(i + (size_t)j);
        sprintz_residuals(v, W, r);
        int w = 1;
        for (int j = 0; j < 8; j++) {
            int b = tsfile_bit_length64(r[j]);
            if (b > w) w = b;
        }
        out[p++] = (uint8_t)w;
        if (kind == SPRINTZ_I32) {
            p += sprintz_put_uvarint(out + p, (uint32_t)v[0]);
        } else {
            for (int b = W - 8; b >= 0; b -= 8) out[p++] = (uint8_t)(v[0] >> b);
        }
        tsf_msb_writer bw;
        tsf_msbw_init(&bw, out + p);
        for (int j = 0; j < 8; j++) tsf_msbw_put_wide(&bw, r[j], w);
        p += tsf_msbw_finish(&bw, 0);
    }
    if (i < n) {
        int k = (int)(n - i);
        for (int j = 0; j < k; j++) v[j] = SPRINTZ_WORD(i + (size_t)j);
        p += sprintz_put_tail(out + p, kind, v, k);
    }
#undef SPRINTZ_WORD
    return p;
}
