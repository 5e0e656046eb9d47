/*
 * Raw Snappy compression (no framing), written for the writer's page bodies.
 *
 * Why here and not a library: the writer must keep writing the bytes it wrote before, which come
 * from cramjam.snappy.compress_raw (the Rust `snap` crate), and cramjam holds the GIL while it
 * compresses, so pages compressed through it cannot run in two threads at once. The system
 * libsnappy (1.1.9) and the official package's bundled snappy (1.2) each choose other matches on
 * many inputs (all three streams are valid Snappy and decode to the same bytes), so neither keeps
 * the files unchanged. This compressor makes exactly the choices `snap` makes (checked against
 * cramjam on random and real inputs by tests/test_chunk_encode.py), and needs no GIL.
 *
 * The format (Snappy's format_description.txt): a little-endian base-128 varint of the input
 * length, then elements: a literal (tag low bits 00; length - 1 in the tag's upper six bits when
 * < 60, else 60..63 meaning 1..4 little-endian length bytes follow) or a copy with a 1-byte
 * (tag 01: length 4..11, offset < 2048) or 2-byte (tag 10: length 1..64) offset.
 *
 * The match finder, which decides the exact bytes: the input is cut into blocks of 64 KiB, each
 * compressed alone with a fresh hash table of 2^k u16 positions (256 <= 2^k <= 16384, the least
 * power of two >= the block's length). Hash of 4 bytes x: (x * 0x1E35A7BD) >> (32 - k). The search
 * steps forward by skip >> 5 bytes (skip starts at 32 and grows by each step, so incompressible
 * data is skipped faster and faster); a block shorter than 17 bytes is one literal; no match
 * starts within the last 15 bytes of a block. After each copy, the positions of its last byte and
 * of the next byte are hashed, and a copy follows at once when the next 4 bytes match again.
 */
#ifndef TSFILE_SNAPPY_COMPRESS_H
#define TSFILE_SNAPPY_COMPRESS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define SNAPPY_BLOCK_SIZE 65536
#define SNAPPY_MAX_TABLE 16384
#define SNAPPY_INPUT_MARGIN 15
#define SNAPPY_MIN_MATCHING_BLOCK (1 + 1 + SNAPPY_INPUT_MARGIN)

/* Largest output of snappy_compress for n input bytes (Snappy's own bound). */
static inline size_t snappy_compress_bound(size_t n) { return 32 + n + n / 6; }

static inline uint32_t snappy_load32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    return v; /* little-endian value: the hash is defined on it */
}

static inline uint32_t snappy_hash(uint32_t x, int shift) { return (x * 0x1E35A7BDu) >> shift; }

static inline uint8_t *snappy_put_varint(uint8_t *o, uint64_t v)
{
    while (v >= 0x80) {
        *o++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *o++ = (uint8_t)v;
    return o;
}

static inline uint8_t *snappy_emit_literal(uint8_t *o, const uint8_t *src, size_t len)
{
    const size_t n = len - 1; /* len >= 1 */
    if (n < 60) {
        *o++ = (uint8_t)(n << 2);
    } else if (n < 256) {
        *o++ = 60 << 2;
        *o++ = (uint8_t)n;
    } else { /* a block is at most 64 KiB: two length bytes always suffice */
        *o++ = 61 << 2;
        *o++ = (uint8_t)n;
        *o++ = (uint8_t)(n >> 8);
    }
    memcpy(o, src, len);
    return o + len;
}

/* A literal of len 1..16 bytes: its tag, then 16 bytes copied whole (two fixed moves, where
 * memcpy of a variable length is a library call), of which the ones past len are overwritten by
 * what is emitted next. The caller checks that 16 bytes can be read at src and written after the
 * tag. */
static inline uint8_t *snappy_emit_short_literal(uint8_t *o, const uint8_t *src, size_t len)
{
    *o++ = (uint8_t)((len - 1) << 2);
    memcpy(o, src, 16);
    return o + len;
}

static inline uint8_t *snappy_emit_copy2(uint8_t *o, size_t offset, size_t len) /* len 1..64 */
{
    *o++ = (uint8_t)(((len - 1) << 2) | 2);
    *o++ = (uint8_t)offset;
    *o++ = (uint8_t)(offset >> 8);
    return o;
}

static inline uint8_t *snappy_emit_copy(uint8_t *o, size_t offset, size_t len) /* len >= 4 */
{
    while (len >= 68) {
        o = snappy_emit_copy2(o, offset, 64);
        len -= 64;
    }
    if (len > 64) { /* 65..67: 60 now leaves 5..7, which a 1-byte-offset copy can hold */
        o = snappy_emit_copy2(o, offset, 60);
        len -= 60;
    }
    if (len <= 11 && offset <= 2047) {
        *o++ = (uint8_t)(((offset >> 8) << 5) | ((len - 4) << 2) | 1);
        *o++ = (uint8_t)offset;
        return o;
    }
    return snappy_emit_copy2(o, offset, len);
}

/* The first position from s on (s < n, c < s) where src[s..] stops matching src[c..], or n: eight
 * bytes at a time (the lowest differing bit of their XOR names the first differing byte), then
 * byte by byte over the last few. */
static inline size_t snappy_match_end(const uint8_t *src, size_t s, size_t c, size_t n)
{
    while (s + 8 <= n) {
        uint64_t a, b;
        memcpy(&a, src + s, 8);
        memcpy(&b, src + c, 8);
        const uint64_t x = a ^ b;
        if (x) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
            return s + ((size_t)__builtin_clzll(x) >> 3);
#else
            return s + ((size_t)__builtin_ctzll(x) >> 3);
#endif
        }
        s += 8;
        c += 8;
    }
    while (s < n && src[s] == src[c]) {
        s++;
        c++;
    }
    return s;
}

/* One block of n (17..65536) bytes; `table` has room for SNAPPY_MAX_TABLE entries. `iend` is the
 * end of the whole input and `oend` of the output's room (snappy_compress_bound of the input):
 * a short literal may read and write up to 16 bytes before them. */
static inline uint8_t *snappy_compress_block(const uint8_t *src, size_t n, uint8_t *o,
                                             uint16_t *table, const uint8_t *iend,
                                             const uint8_t *oend)
{
    size_t table_size = 256;
    int shift = 24;
    while (table_size < SNAPPY_MAX_TABLE && table_size < n) {
        table_size <<= 1;
        shift--;
    }
    memset(table, 0, table_size * sizeof(uint16_t));
    const size_t limit = n - SNAPPY_INPUT_MARGIN;
    size_t s = 1, next_emit = 0, candidate;
    uint32_t next_hash = snappy_hash(snappy_load32(src + s), shift);
    for (;;) {
        /* search: the next position whose 4 bytes match an earlier one of the same hash */
        size_t skip = 32, s_next = s;
        /* The same probes as the loop below, faster where they can be (most of a search that
         * ends in a match: a TS_2DIFF page finds one at every block header). While skip < 64
         * the probes step by one byte: when all 32 lie below the limit they need no limit test
         * and no step arithmetic, and one 8-byte load gives the words of four positions. Then
         * each run of probes of one step (skip >> 5 constant, up to a step of 8) that lies below
         * the limit goes without them too; the rest is the plain loop. */
        if (s + 32 <= limit) {
            for (size_t k = 0; k < 32; k += 4) {
                uint64_t x;
                memcpy(&x, src + s + k, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
                x = __builtin_bswap64(x);
#endif
                for (unsigned j = 0; j < 4; j++) {
                    const uint32_t w = (uint32_t)(x >> (8 * j)); /* snappy_load32(src + s+k+j) */
                    const uint32_t h = snappy_hash(w, shift);
                    candidate = table[h];
                    table[h] = (uint16_t)(s + k + j);
                    if (w == snappy_load32(src + candidate)) {
                        s += k + j;
                        goto found;
                    }
                }
            }
            s += 32;
            skip = 64;
            for (;;) {
                const size_t step = skip >> 5;
                if (step > 8) /* runs of a probe or two: not worth a division each */
                    break;
                const size_t probes = ((skip | 31) + 1 - skip + step - 1) / step;
                if (s + probes * step > limit)
                    break;
                for (size_t i = 0; i < probes; i++, s += step) {
                    const uint32_t w = snappy_load32(src + s);
                    const uint32_t h = snappy_hash(w, shift);
                    candidate = table[h];
                    table[h] = (uint16_t)s;
                    if (w == snappy_load32(src + candidate))
                        goto found;
                }
                skip += probes * step;
            }
            s_next = s;
            next_hash = snappy_hash(snappy_load32(src + s), shift);
        }
        for (;;) {
            s = s_next;
            const size_t step = skip >> 5;
            s_next = s + step;
            skip += step;
            if (s_next > limit)
                goto done;
            candidate = table[next_hash];
            table[next_hash] = (uint16_t)s;
            next_hash = snappy_hash(snappy_load32(src + s_next), shift);
            if (snappy_load32(src + s) == snappy_load32(src + candidate))
                break;
        }
    found:
        if (s - next_emit <= 16 && src + next_emit + 16 <= iend && o + 17 <= oend)
            o = snappy_emit_short_literal(o, src + next_emit, s - next_emit);
        else
            o = snappy_emit_literal(o, src + next_emit, s - next_emit);
        /* copies, as long as the bytes after one copy match again at once */
        for (;;) {
            const size_t base = s;
            s = snappy_match_end(src, s + 4, candidate + 4, n);
            o = snappy_emit_copy(o, base - candidate, s - base);
            next_emit = s;
            if (s >= limit)
                goto done;
            table[snappy_hash(snappy_load32(src + s - 1), shift)] = (uint16_t)(s - 1);
            const uint32_t cur = snappy_load32(src + s);
            const uint32_t h = snappy_hash(cur, shift);
            candidate = table[h];
            table[h] = (uint16_t)s;
            if (cur != snappy_load32(src + candidate))
                break;
        }
        s++;
        next_hash = snappy_hash(snappy_load32(src + s), shift);
    }
done:
    if (next_emit < n)
        o = snappy_emit_literal(o, src + next_emit, n - next_emit);
    return o;
}

/* Compress n bytes into dst (snappy_compress_bound(n) bytes); the compressed size. `table`:
 * scratch of SNAPPY_MAX_TABLE u16 (the caller's, so that no call allocates). */
static inline size_t snappy_compress(const uint8_t *src, size_t n, uint8_t *dst, uint16_t *table)
{
    const uint8_t *iend = src + n, *oend = dst + snappy_compress_bound(n);
    uint8_t *o = snappy_put_varint(dst, n);
    while (n) {
        const size_t len = n < SNAPPY_BLOCK_SIZE ? n : SNAPPY_BLOCK_SIZE;
        if (len < SNAPPY_MIN_MATCHING_BLOCK)
            o = snappy_emit_literal(o, src, len);
        else
            o = snappy_compress_block(src, len, o, table, iend, oend);
        src += len;
        n -= len;
    }
    return (size_t)(o - dst);
}

#endif /* TSFILE_SNAPPY_COMPRESS_H */
