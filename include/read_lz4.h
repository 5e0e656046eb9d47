/*
 * read_lz4.h: decompression of one raw LZ4 block (no frame, no size prefix) into a caller-provided
 * buffer that must be filled exactly, for the TsFile page reader, callable without the GIL.
 *
 * Block: sequences of token (literal length high nibble, match length - 4 low nibble; 15 means
 * more length bytes follow, each added, until one is < 255), literals, 2-byte little-endian match
 * offset, match. The last sequence has literals only. All reads and writes are bounds-checked.
 *
 * The decoder can stop early and resume (tsfile_lz4_resume): a query that needs only the start of
 * a page (a time window in its first tenth, say) decompresses only that prefix. A sequence's
 * output depends only on the output before it, so the prefix is exactly what the whole
 * decompression would have written there; what lies after it is never read, nor checked.
 *
 * Why by hand: the page loop runs without the GIL, and cramjam/lz4 offer only Python calls
 * (one per page, under the GIL). The block formats are small and stable; the decoder is checked
 * against the library's output, on the official fixtures and on damaged input, and the library remains the path
 * for compression and for the Python-level tsfile.compression API.
 */
#ifndef TSFILE_READ_LZ4_H
#define TSFILE_READ_LZ4_H

#include <stdint.h>
#include <stddef.h>
#include <string.h>

/* Continue decompressing src[*ipp:n] into dst[*opp:want] until at least `target` bytes are out
 * (target >= want: to the end of the stream, checking that it fills dst exactly). *ipp / *opp
 * hold the position between two sequences, 0 / 0 at the start. Returns 0, or 1 truncated input,
 * 2 output overrun, 3 bad offset, 4 output not filled, 5 length overflow, with *err_pos = the
 * input offset of the problem. */
static int tsfile_lz4_resume(const uint8_t *src, size_t n, size_t *ipp, uint8_t *dst, size_t want,
                             size_t *opp, size_t target, size_t *err_pos)
{
    size_t ip = *ipp, op = *opp;
    int rc = 0;
    if (n == 0) { *err_pos = 0; return want == 0 ? 0 : 1; }
    while (ip < n && (op < target || target >= want)) {
        size_t at = ip;
        unsigned token = src[ip++];
        size_t lit = token >> 4;
        if (lit == 15) {
            unsigned b;
            do {
                if (ip >= n) { rc = 1; goto fail; }
                b = src[ip++];
                lit += b;
                if (lit > ((size_t)1 << 40)) { rc = 5; goto fail; }
            } while (b == 255);
        }
        if (lit > n - ip) { rc = 1; goto fail; }
        if (lit > want - op) { rc = 2; goto fail; }
        memcpy(dst + op, src + ip, lit);
        ip += lit;
        op += lit;
        if (ip == n) break; /* last sequence: literals only */
        if (ip + 2 > n) { rc = 1; goto fail; }
        size_t off = (size_t)src[ip] | ((size_t)src[ip + 1] << 8);
        ip += 2;
        if (off == 0 || off > op) { rc = 3; goto fail; }
        size_t mlen = token & 15;
        if (mlen == 15) {
            unsigned b;
            do {
                if (ip >= n) { rc = 1; goto fail; }
                b = src[ip++];
                mlen += b;
                if (mlen > ((size_t)1 << 40)) { rc = 5; goto fail; }
            } while (b == 255);
        }
        mlen += 4;
        if (mlen > want - op) { rc = 2; goto fail; }
        uint8_t *d = dst + op;
        const uint8_t *s = d - off;
        if (off >= mlen) {
            memcpy(d, s, mlen);
        } else {
            for (size_t i = 0; i < mlen; i++) d[i] = s[i]; /* overlapping copy */
        }
        op += mlen;
        if (ip == n) { *err_pos = ip; return 1; } /* a stream ends with literals, not a match */
        continue;
    fail:
        *err_pos = at;
        return rc;
    }
    *ipp = ip;
    *opp = op;
    if (ip == n && op != want) { *err_pos = n; return 4; }
    return 0;
}

/* What an error code of tsfile_lz4_resume means. */
static const char *tsfile_lz4_strerror(int rc)
{
    switch (rc) {
    case 1: return "truncated stream";
    case 2: return "decompresses to more than the page header says";
    case 3: return "bad match offset";
    case 4: return "decompresses to less than the page header says";
    case 5: return "length overflow";
    default: return "unknown error";
    }
}

/* The whole block: 0 on success, else an error code of tsfile_lz4_resume. */
static int tsfile_lz4_decompress(const uint8_t *src, size_t n, uint8_t *dst, size_t want,
                                 size_t *err_pos)
{
    size_t ip = 0, op = 0;
    return tsfile_lz4_resume(src, n, &ip, dst, want, &op, want, err_pos);
}

#endif
