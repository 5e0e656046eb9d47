/*
 * read_lz4.h: decompression of one raw LZ4 block (no frame, no size prefix) into a caller-provided
 * buffer that must be filled exactly, for the TsFile page reader, callable without the GIL.
 *
 * Block: sequences of token (literal length high nibble, match length - 4 low nibble; 15 means
 * more length bytes follow, each added, until one is < 255), literals, 2-byte little-endian match
 * offset, match. The last sequence has literals only. All reads and writes are bounds-checked.
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

/* 0 on success; else 1 truncated input, 2 output overrun, 3 bad offset, 4 output not filled,
 * 5 length overflow. *err_pos = input offset of the problem. */
static int tsfile_lz4_decompress(const uint8_t *src, size_t n, uint8_t *dst, size_t want,
                                 size_t *err_pos)
{
    size_t ip = 0, op = 0;
    if (n == 0) { *err_pos = 0; return want == 0 ? 0 : 1; }
    for (;;) {
        size_t at = ip;
        if (ip >= n) { *err_pos = ip; return 1; }
        unsigned token = src[ip++];
        size_t lit = token >> 4;
        if (lit == 15) {
            unsigned b;
            do {
                if (ip >= n) { *err_pos = at; return 1; }
                b = src[ip++];
                lit += b;
                if (lit > ((size_t)1 << 40)) { *err_pos = at; return 5; }
            } while (b == 255);
        }
        if (lit > n - ip) { *err_pos = at; return 1; }
        if (lit > want - op) { *err_pos = at; return 2; }
        memcpy(dst + op, src + ip, lit);
        ip += lit;
        op += lit;
        if (ip == n) break; /* last sequence: literals only */
        if (ip + 2 > n) { *err_pos = at; return 1; }
        size_t off = (size_t)src[ip] | ((size_t)src[ip + 1] << 8);
        ip += 2;
        if (off == 0 || off > op) { *err_pos = at; return 3; }
        size_t mlen = token & 15;
        if (mlen == 15) {
            unsigned b;
            do {
                if (ip >= n) { *err_pos = at; return 1; }
                b = src[ip++];
                mlen += b;
                if (mlen > ((size_t)1 << 40)) { *err_pos = at; return 5; }
            } while (b == 255);
        }
        mlen += 4;
        if (mlen > want - op) { *err_pos = at; return 2; }
        uint8_t *d = dst + op;
        const uint8_t *s = d - off;
        if (off >= mlen) {
            memcpy(d, s, mlen);
        } else {
            for (size_t i = 0; i < mlen; i++) d[i] = s[i]; /* overlapping copy */
        }
        op += mlen;
    }
    if (op != want) { *err_pos = n; return 4; }
    return 0;
}

#endif
