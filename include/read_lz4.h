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

/* Where a decompression stopped: between two sequences, or inside one's literals. */
typedef struct {
    size_t ip, op;   /* the next input byte, the bytes out */
    size_t lit_left; /* literals of the current sequence still to copy */
    size_t seq_at;   /* the input offset of the current sequence (for errors) */
    unsigned match4; /* its token's match length nibble (match length - 4, 15: more follows) */
    int in_seq;      /* inside a sequence: its literals (lit_left) and its match are pending */
} tsfile_lz4_state;

/* Continue decompressing src[0:n] into dst[0:want] from *s (all zero at the start) until at least
 * `target` bytes are out, stopping as soon as they are (inside a run of literals if need be:
 * incompressible bytes make runs as long as the block); target >= want: to the end of the
 * stream, checking that it fills dst exactly. Returns 0, or 1 truncated input, 2 output
 * overrun, 3 bad offset, 4 output not filled, 5 length overflow, with *err_pos = the input
 * offset of the sequence at fault. */
static int tsfile_lz4_resume(const uint8_t *src, size_t n, tsfile_lz4_state *s, uint8_t *dst,
                             size_t want, size_t target, size_t *err_pos)
{
    size_t ip = s->ip, op = s->op;
    const int all = target >= want;
    int rc = 0;
    if (n == 0) { *err_pos = 0; return want == 0 ? 0 : 1; }
    for (;;) {
        if (!s->in_seq) {
            if (ip >= n || (!all && op >= target)) break;
            s->seq_at = ip;
            const unsigned token = src[ip++];
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
            s->in_seq = 1;
            s->lit_left = lit;
            s->match4 = token & 15;
        }
        if (s->lit_left) {
            size_t c = s->lit_left;
            if (!all && c > target - op) c = op < target ? target - op : 0;
            memcpy(dst + op, src + ip, c);
            ip += c;
            op += c;
            s->lit_left -= c;
            if (s->lit_left) break; /* stopped inside the literals */
        }
        if (ip == n) { /* last sequence: literals only */
            s->in_seq = 0;
            break;
        }
        {
            size_t mlen = s->match4;
            if (ip + 2 > n) { rc = 1; goto fail; }
            const size_t off = (size_t)src[ip] | ((size_t)src[ip + 1] << 8);
            ip += 2;
            if (off == 0 || off > op) { rc = 3; goto fail; }
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
            const uint8_t *m = d - off;
            if (off >= mlen) {
                memcpy(d, m, mlen);
            } else {
                for (size_t i = 0; i < mlen; i++) d[i] = m[i]; /* overlapping copy */
            }
            op += mlen;
            s->in_seq = 0;
            if (ip == n) { *err_pos = ip; return 1; } /* a stream ends with literals, not a match */
        }
    }
    s->ip = ip;
    s->op = op;
    if (ip == n && !s->in_seq && op != want) { *err_pos = n; return 4; }
    return 0;
fail:
    *err_pos = s->seq_at;
    return rc;
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
    tsfile_lz4_state s;
    memset(&s, 0, sizeof s);
    return tsfile_lz4_resume(src, n, &s, dst, want, want, err_pos);
}

#endif
