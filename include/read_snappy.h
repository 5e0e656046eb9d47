/*
 * read_snappy.h: decompression of one raw Snappy block (no framing) into a caller-provided buffer,
 * for the TsFile page reader, callable without the GIL.
 *
 * Raw Snappy block: uvarint uncompressed length, then elements tagged by the low 2 bits of their
 * first byte: 00 literal (length in the tag or in 1-4 following bytes), 01 copy with 1-byte offset
 * (length 4..11), 10 copy with 2-byte offset, 11 copy with 4-byte offset (length 1..64).
 * Every read and write is bounds-checked before it happens; the output must be filled exactly.
 * The decoder can stop once a prefix is out and resume later (tsfile_snappy_resume): a query that
 * needs only the start of a page decompresses only that.
 *
 * Why by hand: the page loop runs without the GIL, and python-snappy/cramjam offer only Python calls
 * (one per page, under the GIL). The block formats are small and stable; the decoder is checked
 * against the library's output, on the official fixtures and on damaged input, and the library remains the path
 * for compression and for the Python-level tsfile.compression API.
 */
#ifndef TSFILE_READ_SNAPPY_H
#define TSFILE_READ_SNAPPY_H

#include <stdint.h>
#include <stddef.h>
#include <string.h>

/* The block's preamble: the uvarint of its exact decompressed length (at most 32 bits), so that
 * a reader can match it with the size it expects before sizing any buffer. Returns 0 and sets
 * *length and *pos (the offset of the first element), or 1 for a truncated or overlong preamble
 * (*pos = the offset of the bad byte). */
static int tsfile_snappy_length(const uint8_t *src, size_t n, uint32_t *length, size_t *pos)
{
    size_t ip = 0;
    uint32_t len = 0;
    int shift = 0;
    for (;;) {
        if (ip >= n || shift > 28) { *pos = ip; return 1; }
        uint8_t b = src[ip++];
        if (shift == 28 && (b & 0x70)) { *pos = ip - 1; return 1; } /* bits above 32 */
        len |= (uint32_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) break;
        shift += 7;
    }
    *length = len;
    *pos = ip;
    return 0;
}

/* Where a decompression stopped: between two elements, or inside a literal. */
typedef struct {
    size_t ip, op;   /* the next input byte, the bytes out */
    size_t lit_left; /* bytes of the current literal still to copy */
} tsfile_snappy_state;

/* Continue decompressing the elements of src[0:n] into dst[0:want] from *s (ip: the offset after
 * the length preamble, tsfile_snappy_length; op, lit_left: 0) until at least `target` bytes are
 * out, stopping as soon as they are (inside a literal if need be); target >= want: to the end of
 * the stream, checking that it fills dst exactly. An element's output depends only on the output
 * before it, so a prefix is exactly what the whole decompression writes there; the rest of the
 * stream is neither read nor checked. Returns 0, or 3 truncated input, 4 output overrun, 5 bad
 * copy offset, 6 output not filled, with *err_pos = the input offset of the problem. */
static int tsfile_snappy_resume(const uint8_t *src, size_t n, tsfile_snappy_state *s,
                                uint8_t *dst, size_t want, size_t target, size_t *err_pos)
{
    size_t ip = s->ip, op = s->op;
    const int all = target >= want;
    for (;;) {
        if (s->lit_left) {
            size_t c = s->lit_left;
            if (!all && c > target - op) c = op < target ? target - op : 0;
            memcpy(dst + op, src + ip, c);
            ip += c;
            op += c;
            s->lit_left -= c;
            if (s->lit_left) break; /* stopped inside the literal */
        }
        if (ip >= n || (!all && op >= target)) break;
        uint8_t tag = src[ip];
        size_t at = ip;
        ip++;
        /* Short literals and copies (the commonest elements) with 16 bytes of room after them,
         * in a whole decompression: moved as 16 bytes (two fixed 8-byte moves) instead of a
         * memcpy call of a variable length, the bytes past the element overwritten by the
         * elements after it. Only elements whose bounds hold are taken here (every check of the
         * general path below is implied by the conditions), so damaged input still reaches the
         * general path and its error. A copy reads 8 bytes behind the output at least (offset
         * >= 8), so each 8-byte move reads bytes already out. */
        if (all && want - op >= 16) {
            if ((tag & 3) == 0 && tag < (16 << 2) && n - ip >= 16) { /* literal of 1..16 */
                const size_t lit = (size_t)(tag >> 2) + 1;
                memcpy(dst + op, src + ip, 16);
                ip += lit;
                op += lit;
                continue;
            }
            size_t clen = 0, off = 0, len_bytes = 0;
            if ((tag & 3) == 1 && ip < n) { /* copy of 4..11, 11-bit offset */
                clen = ((tag >> 2) & 7) + 4;
                off = ((size_t)(tag >> 5) << 8) | src[ip];
                len_bytes = 1;
            } else if ((tag & 3) == 2 && tag < (16 << 2) && n - ip >= 2) { /* copy of 1..16 */
                clen = (size_t)(tag >> 2) + 1;
                off = (size_t)src[ip] | ((size_t)src[ip + 1] << 8);
                len_bytes = 2;
            }
            if (clen && off >= 8 && off <= op) {
                uint8_t *d = dst + op;
                memcpy(d, d - off, 8);
                memcpy(d + 8, d - off + 8, 8);
                ip += len_bytes;
                op += clen;
                continue;
            }
        }
        switch (tag & 3) {
        case 0: {
            size_t lit = tag >> 2;
            if (lit >= 60) {
                size_t extra = lit - 59;
                if (ip + extra > n) { *err_pos = at; return 3; }
                lit = 0;
                for (size_t i = 0; i < extra; i++) lit |= (size_t)src[ip + i] << (8 * i);
                ip += extra;
            }
            lit += 1;
            if (lit > n - ip) { *err_pos = at; return 3; }
            if (lit > want - op) { *err_pos = at; return 4; }
            s->lit_left = lit; /* copied at the top of the loop */
            break;
        }
        default: {
            size_t clen, off;
            if ((tag & 3) == 1) {
                if (ip + 1 > n) { *err_pos = at; return 3; }
                clen = ((tag >> 2) & 7) + 4;
                off = ((size_t)(tag >> 5) << 8) | src[ip];
                ip += 1;
            } else if ((tag & 3) == 2) {
                if (ip + 2 > n) { *err_pos = at; return 3; }
                clen = (tag >> 2) + 1;
                off = (size_t)src[ip] | ((size_t)src[ip + 1] << 8);
                ip += 2;
            } else {
                if (ip + 4 > n) { *err_pos = at; return 3; }
                clen = (tag >> 2) + 1;
                off = (size_t)src[ip] | ((size_t)src[ip + 1] << 8) | ((size_t)src[ip + 2] << 16) |
                      ((size_t)src[ip + 3] << 24);
                ip += 4;
            }
            if (off == 0 || off > op) { *err_pos = at; return 5; }
            if (clen > want - op) { *err_pos = at; return 4; }
            uint8_t *d = dst + op;
            const uint8_t *m = d - off;
            if (off >= clen) {
                memcpy(d, m, clen);
            } else {
                for (size_t i = 0; i < clen; i++) d[i] = m[i]; /* overlapping: byte by byte */
            }
            op += clen;
            break;
        }
        }
    }
    s->ip = ip;
    s->op = op;
    if (ip == n && !s->lit_left && op != want) { *err_pos = n; return 6; }
    return 0;
}

/* What an error code of tsfile_snappy_decompress / tsfile_snappy_resume means. */
static const char *tsfile_snappy_strerror(int rc)
{
    switch (rc) {
    case 1: return "bad length preamble";
    case 2: return "the stream's length differs from the page header's";
    case 3: return "truncated stream";
    case 4: return "decompresses to more than the page header says";
    case 5: return "bad copy offset";
    case 6: return "decompresses to less than the page header says";
    default: return "unknown error";
    }
}

/* Returns 0 on success, or a positive error code: 1 bad length prefix, 2 length differs from the
 * expected size, or an error code of tsfile_snappy_resume. */
static int tsfile_snappy_decompress(const uint8_t *src, size_t n, uint8_t *dst, size_t want,
                                    size_t *err_pos)
{
    tsfile_snappy_state s;
    uint32_t len = 0;
    memset(&s, 0, sizeof s);
    if (tsfile_snappy_length(src, n, &len, &s.ip)) { *err_pos = s.ip; return 1; }
    if ((size_t)len != want) { *err_pos = 0; return 2; }
    return tsfile_snappy_resume(src, n, &s, dst, want, want, err_pos);
}

#endif
