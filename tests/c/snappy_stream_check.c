/*
 * snappy_stream_check.c: the page reader's Snappy decoder (read_snappy.h) on hand-made streams,
 * against a plain element-by-element decoder written here from the format (every bound checked,
 * every byte moved one at a time): same return code, same error offset, same output. Built and
 * run by tests/test_isa_emulation.py as every tests/c check (natively, without SIMD, under
 * ASan + UBSan, on aarch64).
 *
 * snappy_check.c decodes what the compressor writes; this one writes the streams itself, to
 * reach what a compressor never emits and where the 16-byte fast paths of read_snappy.h end:
 * copies with offsets 8..16 (and 1..7, overlapping) as the very last element, short literals
 * ending exactly at the input's end, 2-byte-offset copies of up to 64, 4-byte-offset copies,
 * long literals (1..4 length bytes), bad offsets, outputs too long or too short, every
 * truncation and random byte changes. Input and output sit in exactly sized heap buffers. The
 * prefix mode (tsfile_snappy_resume with target < want, the page-prefix reads) is checked at
 * every target: the bytes out must be the whole decode's, and resuming to the end must finish
 * it. Exit status 0 = passed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read_snappy.h"

#include "check_common.h"

static size_t cases = 0;

/* The reference: rc 0, or 1 bad preamble, 2 length differs, 3 truncated, 4 overrun, 5 bad
 * offset, 6 short, with *err_pos as read_snappy.h documents. */
static int ref_decode(const uint8_t *src, size_t n, uint8_t *dst, size_t want, size_t *err_pos)
{
    uint32_t len = 0;
    size_t ip = 0, op = 0;
    if (tsfile_snappy_length(src, n, &len, &ip)) { *err_pos = ip; return 1; }
    if ((size_t)len != want) { *err_pos = 0; return 2; }
    while (ip < n) {
        const size_t at = ip;
        const uint8_t tag = src[ip++];
        if ((tag & 3) == 0) {
            size_t lit = tag >> 2;
            if (lit >= 60) {
                const size_t extra = lit - 59;
                if (extra > n - ip) { *err_pos = at; return 3; }
                lit = 0;
                for (size_t i = 0; i < extra; i++) lit |= (size_t)src[ip + i] << (8 * i);
                ip += extra;
            }
            lit += 1;
            if (lit > n - ip) { *err_pos = at; return 3; }
            if (lit > want - op) { *err_pos = at; return 4; }
            for (size_t i = 0; i < lit; i++) dst[op + i] = src[ip + i];
            ip += lit;
            op += lit;
            continue;
        }
        size_t clen, off = 0, nb = (tag & 3) == 1 ? 1 : (tag & 3) == 2 ? 2 : 4;
        if (nb > n - ip) { *err_pos = at; return 3; }
        if (nb == 1) {
            clen = ((tag >> 2) & 7) + 4;
            off = ((size_t)(tag >> 5) << 8) | src[ip];
        } else {
            clen = (size_t)(tag >> 2) + 1;
            for (size_t i = 0; i < nb; i++) off |= (size_t)src[ip + i] << (8 * i);
        }
        ip += nb;
        if (off == 0 || off > op) { *err_pos = at; return 5; }
        if (clen > want - op) { *err_pos = at; return 4; }
        for (size_t i = 0; i < clen; i++) dst[op + i] = dst[op + i - off];
        op += clen;
    }
    if (op != want) { *err_pos = n; return 6; }
    return 0;
}

/* A stream: preamble then elements, built in `buf` (room for the elements), `out` the bytes
 * they decode to (tracked to choose valid offsets). */
typedef struct {
    uint8_t buf[4096];
    size_t n;
    size_t out; /* bytes the elements produce */
} stream;

static void put_literal(stream *s, size_t lit, int long_form)
{
    if (lit <= 60 && !long_form) {
        s->buf[s->n++] = (uint8_t)((lit - 1) << 2);
    } else {
        const size_t v = lit - 1;
        const size_t extra = v < 256 ? 1 : v < 65536 ? 2 : 3;
        s->buf[s->n++] = (uint8_t)((59 + extra) << 2);
        for (size_t i = 0; i < extra; i++) s->buf[s->n++] = (uint8_t)(v >> (8 * i));
    }
    for (size_t i = 0; i < lit; i++) s->buf[s->n++] = (uint8_t)rnd();
    s->out += lit;
}

/* A copy of `len` at `off` in form `form` (1, 2, 4: the offset's bytes); the caller keeps the
 * length within the form's range. */
static void put_copy(stream *s, int form, size_t len, size_t off)
{
    if (form == 1) {
        s->buf[s->n++] = (uint8_t)(1 | ((len - 4) << 2) | ((off >> 8) << 5));
        s->buf[s->n++] = (uint8_t)off;
    } else {
        s->buf[s->n++] = (uint8_t)((form == 2 ? 2 : 3) | ((len - 1) << 2));
        for (int i = 0; i < form; i++) s->buf[s->n++] = (uint8_t)(off >> (8 * i));
    }
    s->out += len;
}

/* Random elements, biased to the fast paths' edges: short literals, copies at offsets 1..20. */
static void put_random(stream *s)
{
    const int k = (int)(rnd() % 10);
    if (k < 3 || s->out == 0) {
        put_literal(s, k == 0 ? 1 + rnd() % 70 : 1 + rnd() % 17, k == 1 && rnd() % 2);
        return;
    }
    const size_t near = 1 + rnd() % (s->out < 20 ? s->out : 20);
    const size_t off = rnd() % 3 ? near : 1 + rnd() % s->out;
    if (k < 6 && off < 2048) put_copy(s, 1, 4 + rnd() % 8, off);
    else if (k < 9) put_copy(s, 2, 1 + rnd() % 64, off);
    else put_copy(s, 4, 1 + rnd() % 64, off);
}

/* The stream `s` with its preamble for `want`, in a fresh exactly sized buffer. */
static uint8_t *framed(const stream *s, size_t want, size_t *cn)
{
    uint8_t pre[8];
    size_t p = 0;
    uint32_t v = (uint32_t)want;
    do {
        pre[p++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    *cn = p + s->n;
    uint8_t *c = malloc(*cn ? *cn : 1);
    memcpy(c, pre, p);
    memcpy(c + p, s->buf, s->n);
    return c;
}

/* Decode c[0:cn] for `want` bytes both ways, each into an exactly sized buffer; compare. */
static void compare(const uint8_t *c, size_t cn, size_t want, const char *what)
{
    uint8_t *a = malloc(want ? want : 1), *b = malloc(want ? want : 1);
    size_t ea = 0, eb = 0;
    const int ra = tsfile_snappy_decompress(c, cn, a, want, &ea);
    const int rb = ref_decode(c, cn, b, want, &eb);
    cases++;
    if (ra != rb || (ra && ea != eb))
        FAIL("%s (%zu bytes, want %zu): rc %d at %zu, reference rc %d at %zu", what, cn, want, ra,
             ea, rb, eb);
    else if (!ra && memcmp(a, b, want))
        FAIL("%s (%zu bytes, want %zu): output differs from the reference", what, cn, want);
    free(a);
    free(b);
}

/* Every prefix target of a valid stream: the bytes out are the whole decode's (`whole`), at
 * least `target` of them; then resuming to the end finishes it. */
static void check_prefixes(const uint8_t *c, size_t cn, const uint8_t *whole, size_t want)
{
    for (size_t target = 0; target < want; target++) {
        uint8_t *dst = malloc(want);
        uint32_t len = 0;
        size_t err = 0;
        tsfile_snappy_state st;
        memset(&st, 0, sizeof st);
        cases++;
        if (tsfile_snappy_length(c, cn, &len, &st.ip) || len != want) {
            FAIL("prefix: preamble");
            free(dst);
            return;
        }
        int rc = tsfile_snappy_resume(c, cn, &st, dst, want, target, &err);
        if (rc || st.op < target || st.op > want || memcmp(dst, whole, st.op))
            FAIL("prefix to %zu of %zu: rc %d, %zu bytes out", target, want, rc, st.op);
        rc = tsfile_snappy_resume(c, cn, &st, dst, want, want, &err);
        if (rc || st.op != want || memcmp(dst, whole, want))
            FAIL("prefix to %zu of %zu, resumed: rc %d at %zu, %zu bytes out", target, want, rc,
                 err, st.op);
        free(dst);
    }
}

static void check_stream(const stream *s, int prefixes)
{
    size_t cn;
    uint8_t *c = framed(s, s->out, &cn);
    uint8_t *whole = malloc(s->out ? s->out : 1);
    size_t err = 0;
    const int rc = ref_decode(c, cn, whole, s->out, &err);
    if (rc) FAIL("a stream built valid is refused by the reference: rc %d at %zu", rc, err);
    compare(c, cn, s->out, "valid");
    if (prefixes && !rc) check_prefixes(c, cn, whole, s->out);
    /* every truncation; a wrong length (more, less); random byte changes */
    for (size_t t = 0; t < cn; t++) compare(c, t, s->out, "truncated");
    if (s->out) compare(c, cn, s->out - 1, "one byte short");
    free(c);
    c = framed(s, s->out + 1 + rnd() % 20, &cn);
    compare(c, cn, s->out, "preamble longer than the output"); /* rc 2 both ways */
    free(c);
    for (int f = 0; f < 40; f++) {
        c = framed(s, s->out, &cn);
        const size_t at = rnd() % cn;
        c[at] ^= (uint8_t)(1 + rnd() % 255);
        compare(c, cn, s->out, "changed byte");
        free(c);
    }
    free(whole);
}

int main(void)
{
    /* the last element a copy of every offset 1..20 and length, after literals ending at the
     * output's start; every length of a short last literal ending at the input's end */
    for (size_t lead = 1; lead <= 24; lead++) {
        for (size_t off = 1; off <= 20 && off <= lead; off++) {
            /* every length the 16-byte paths can take, then the longest of each form (the
             * lengths between add cases, not paths: the CI runs this under ASan and qemu) */
            for (size_t len = 1; len <= 64; len = len < 20 ? len + 1 : len < 31 ? 31 : len + 1) {
                if (len > 33 && len < 60) continue;
                for (int form = 1; form <= 4; form *= 2) {
                    if (form == 1 && (len < 4 || len > 11)) continue;
                    stream s = {.n = 0, .out = 0};
                    put_literal(&s, lead, 0);
                    put_copy(&s, form, len, off);
                    check_stream(&s, lead < 12 && len < 20);
                }
            }
        }
        for (size_t lit = 1; lit <= 20; lit++) {
            stream s = {.n = 0, .out = 0};
            put_literal(&s, lead, 0);
            put_literal(&s, lit, 0);
            check_stream(&s, lead < 12);
        }
    }
    /* random element sequences of every size up to some hundreds of bytes */
    for (int r = 0; r < 600; r++) {
        stream s = {.n = 0, .out = 0};
        const int elements = 1 + (int)(rnd() % 40);
        for (int e = 0; e < elements && s.n < 3000; e++) put_random(&s);
        check_stream(&s, r < 100);
    }
    printf("snappy streams: %zu cases, %d failures\n", cases, failures);
    return failures != 0;
}
