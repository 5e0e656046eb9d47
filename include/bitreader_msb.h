/*
 * bitreader_msb.h: a small bounds-checked MSB-first bit reader with a 64-bit reservoir.
 *
 * TsFile's serial bit streams (GORILLA, CHIMP, RLBE, CAMEL, the packed residuals of SPRINTZ) write
 * the first bit into bit 7 of the first byte. The reader keeps the unread bits left-aligned in
 * `buf`; `avail` counts how many of them are real data. Refills load whole bytes from the buffer
 * only while they exist, so `avail` is always exact: a read of n bits succeeds iff n bits remain,
 * and nothing is ever read outside [base, end).
 *
 * Usage: tsf_msb_init(&r, data, n); then tsf_msb_read(&r, k, &v) (0 <= k <= 64) returns 0, or
 * TSF_E_TRUNCATED when fewer than k bits remain (the reader is then unchanged).
 * The fast forms tsf_msb_need() + tsf_msb_take() let a decoder check once for several fields.
 */
#ifndef TSFILE_BITREADER_MSB_H
#define TSFILE_BITREADER_MSB_H

#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include "tsfile_isa.h"

/* Status codes shared by the serial codecs (CHIMP, SPRINTZ, RLBE, CAMEL); 0 = success. */
enum {
    TSF_E_TRUNCATED = -1, /* the data end inside a value or header */
    TSF_E_CORRUPT = -2,   /* a field holds an impossible value (width, count, window, ...) */
    TSF_E_COUNT = -3,     /* a count or length exceeds what the data or the format allow */
};

typedef struct {
    const uint8_t *base; /* first byte of the stream */
    const uint8_t *p;    /* next byte to load into the reservoir */
    const uint8_t *end;  /* one past the last byte */
    uint64_t buf;        /* unread bits, MSB-aligned; bits below `avail` are zero or future data */
    int avail;           /* number of valid bits in buf (0..64) */
} tsf_msb_reader;

TSFILE_INLINE uint64_t tsf_load_be64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_bswap64(v);
#else
    return ((uint64_t)p[0] << 56) | ((uint64_t)p[1] << 48) | ((uint64_t)p[2] << 40) |
           ((uint64_t)p[3] << 32) | ((uint64_t)p[4] << 24) | ((uint64_t)p[5] << 16) |
           ((uint64_t)p[6] << 8) | (uint64_t)p[7];
#endif
}

TSFILE_INLINE uint32_t tsf_load_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

TSFILE_INLINE void tsf_msb_init(tsf_msb_reader *r, const uint8_t *src, size_t len)
{
    r->base = src;
    r->p = src;
    r->end = src + len;
    r->buf = 0;
    r->avail = 0;
}

/* Top up the reservoir: afterwards avail >= 56, or every remaining byte is loaded. */
TSFILE_INLINE void tsf_msb_refill(tsf_msb_reader *r)
{
    if (TSFILE_LIKELY(r->end - r->p >= 8)) {
        /* Branch-free refill: OR in 8 bytes below the valid bits and advance by the whole bytes
         * that fit. Bits loaded beyond `avail` are the true next bits of the stream, so the next
         * refill ORs identical bits over them. */
        r->buf |= tsf_load_be64(r->p) >> r->avail;
        r->p += (63 - r->avail) >> 3;
        r->avail |= 56;
    } else {
        while (r->avail <= 56 && r->p < r->end) {
            r->buf |= (uint64_t)(*r->p++) << (56 - r->avail);
            r->avail += 8;
        }
    }
}

/* Make at least n (<= 56) bits available; 0 when the stream holds fewer. */
TSFILE_INLINE int tsf_msb_need(tsf_msb_reader *r, int n)
{
    if (TSFILE_LIKELY(r->avail >= n)) return 1;
    tsf_msb_refill(r);
    return r->avail >= n;
}

/* Take n (0..56) bits that tsf_msb_need() guaranteed. */
TSFILE_INLINE uint64_t tsf_msb_take(tsf_msb_reader *r, int n)
{
    uint64_t v = n ? (r->buf >> (64 - n)) : 0;
    r->buf = n ? (r->buf << n) : r->buf;
    r->avail -= n;
    return v;
}

/* Read n (0..64) bits into *out; 0 or TSF_E_TRUNCATED (nothing consumed then). */
TSFILE_INLINE int tsf_msb_read(tsf_msb_reader *r, int n, uint64_t *out)
{
    if (TSFILE_LIKELY(n <= 56)) {
        if (TSFILE_UNLIKELY(!tsf_msb_need(r, n))) return TSF_E_TRUNCATED;
        *out = tsf_msb_take(r, n);
        return 0;
    }
    /* 57..64 bits: check the total first so a failure consumes nothing. */
    if (r->avail < n && (size_t)r->avail + (size_t)(r->end - r->p) * 8 < (size_t)n)
        return TSF_E_TRUNCATED;
    tsf_msb_need(r, 32);
    uint64_t hi = tsf_msb_take(r, 32);
    tsf_msb_need(r, n - 32);
    *out = (hi << (n - 32)) | tsf_msb_take(r, n - 32);
    return 0;
}

/* Bits consumed so far. */
TSFILE_INLINE size_t tsf_msb_bit_pos(const tsf_msb_reader *r)
{
    return (size_t)(r->p - r->base) * 8 - (size_t)r->avail;
}

/* Bytes consumed so far, counting a partly read byte as consumed. */
TSFILE_INLINE size_t tsf_msb_byte_pos(const tsf_msb_reader *r)
{
    return (tsf_msb_bit_pos(r) + 7) >> 3;
}

/* Bits left in the stream. */
TSFILE_INLINE size_t tsf_msb_bits_left(const tsf_msb_reader *r)
{
    return (size_t)(r->end - r->p) * 8 + (size_t)r->avail;
}

/* Drop the rest of a partly read byte. */
TSFILE_INLINE void tsf_msb_align(tsf_msb_reader *r)
{
    int drop = r->avail & 7;
    r->buf <<= drop;
    r->avail -= drop;
}

/* Skip n bits (any count); 0 or TSF_E_TRUNCATED (nothing consumed then). */
TSFILE_INLINE int tsf_msb_skip(tsf_msb_reader *r, size_t n)
{
    if (n <= (size_t)r->avail) {
        r->buf = n >= 64 ? 0 : (r->buf << n);
        r->avail -= (int)n;
        return 0;
    }
    if (n > tsf_msb_bits_left(r)) return TSF_E_TRUNCATED;
    size_t pos = tsf_msb_bit_pos(r) + n;
    r->p = r->base + (pos >> 3);
    r->buf = 0;
    r->avail = 0;
    tsf_msb_refill(r);
    (void)tsf_msb_take(r, (int)(pos & 7));
    return 0;
}

#endif /* TSFILE_BITREADER_MSB_H */
