/*
 * serial_skip.h: row ranges [start, stop) of the serial bit-stream codecs (GORILLA, CHIMP, RLBE,
 * CAMEL, SPRINTZ): every value's position depends on the values before it, so the values before
 * `start` must be walked, but they are not stored: the walk runs on the streaming decoder's state
 * with the batch decoders' inlined step (not the per-value path's out-of-line calls), then the
 * range is stored from the same state and the walk stops at value stop-1.
 *
 * GORILLA's walk is its resumable batch decoder run into a small scratch (the values before
 * the range never reach the result), asking a page body that is decompressed as it is read
 * (page_prefix.h) for its bytes as it walks: at most GOR_MAX_VALUE_BYTES a value, a step of
 * values ahead. The other codecs' states read a whole page, so their bodies are decompressed
 * whole first.
 *
 * Include it after the codec's own header: each section is compiled only where its codec's header
 * was included (the encoder parts of some of those headers cannot be included twice).
 */
#ifndef TSFILE_SERIAL_SKIP_H
#define TSFILE_SERIAL_SKIP_H

#include "page_prefix.h"

/* Pass (out NULL) or store `k` values of a streaming state; W-bit words, uint32 slots for W = 32.
 * Returns k, the values passed when the page ended first, or the step's TSF_E_* code (< 0). */
#define SERIAL_DEFINE_TAKE(NAME, STATE, STEP, W)                                                  \
    static inline int64_t NAME(STATE *s, int64_t k, void *out)                                   \
    {                                                                                            \
        for (int64_t i = 0; i < k; i++) {                                                        \
            uint64_t v;                                                                          \
            int rc = STEP(s, W, &v);                                                             \
            if (rc != 1) return rc < 0 ? rc : i;                                                 \
            if (out == NULL) continue;                                                           \
            if (W == 64) ((uint64_t *)out)[i] = v;                                               \
            else ((uint32_t *)out)[i] = (uint32_t)v;                                             \
        }                                                                                        \
        return k;                                                                                \
    }

/* ---- GORILLA -------------------------------------------------------------------------------- */
#ifdef TSFILE_GORILLA_SCALAR_H

/* Bits of one value at most: 2 control bits, the window (2 x 6 bits for 64-bit words), 64 value
 * bits; in bytes, rounded up, with one more for a value that starts mid-byte. */
#define GOR_MAX_VALUE_BYTES 11
/* values walked between two requests for bytes */
#define GOR_SKIP_STEP 4096

/* values decoded into the skip's scratch per call of the batch decoder */
#define GOR_SKIP_CHUNK 256

/* Pass `k` values of a by-count decode (the end value is data), s->nbytes bounding what is read:
 * the batch decoder (resumable on its state) run into a small scratch on the stack, which stays
 * in L1, rather than into the result. Returns the values passed (fewer than k only with s->err
 * set, or at the end of the bytes). */
TSFILE_INLINE size_t gor_skip_generic(gorilla_dec_t *s, const int W, size_t k, uint64_t endv)
{
    uint64_t scratch[GOR_SKIP_CHUNK];
    size_t done = 0;
    while (done < k) {
        size_t want = k - done < GOR_SKIP_CHUNK ? k - done : GOR_SKIP_CHUNK;
        size_t got = W == 64 ? gorilla_decode_batch64(s, endv, 0, scratch, want)
                             : gorilla_decode_batch32(s, endv, 0, (uint32_t *)scratch, want);
        done += got;
        if (got < want) break;
    }
    return done;
}

/* The stream's readable length once the bytes of `values` more values after the state's position
 * are readable (the whole page at most). (size_t)-1: the body failed to decompress. */
TSFILE_INLINE size_t gor_rows_ready(tsfile_prefix *more, const gorilla_dec_t *s, size_t n,
                                    size_t values)
{
    uint64_t upto = (s->pos >> 3) + (uint64_t)values * GOR_MAX_VALUE_BYTES + GOR_FAST_MARGIN + 8;
    return tsfile_prefix_region(more, s->data, n, upto > n ? n : (size_t)upto);
}

/*
 * Values start .. stop-1 of a GORILLA page d[0:n] (W-bit words; uint32 slots for W = 32) into
 * out, on the batch decoder's state `s` (per_value: one out-of-line call per stored value).
 * Returns the values stored (stop - start), -1 with s->err set (fewer values or corrupt), or -2
 * when the body failed to decompress.
 */
static inline ptrdiff_t gorilla_rows(const uint8_t *d, size_t n, tsfile_prefix *more, size_t start,
                                     size_t stop, const int W, int per_value, uint64_t endv,
                                     void *out, gorilla_dec_t *s)
{
    size_t ready, k = 0;
    gorilla_dec_init(s, d, 0);
    while (k < start) {
        size_t step = start - k < GOR_SKIP_STEP ? start - k : GOR_SKIP_STEP;
        if ((ready = gor_rows_ready(more, s, n, step)) == (size_t)-1) return -2;
        s->nbytes = ready;
        size_t got = W == 64 ? gor_skip_generic(s, 64, step, endv)
                             : gor_skip_generic(s, 32, step, endv);
        k += got;
        if (got < step) return -1;
    }
    if ((ready = gor_rows_ready(more, s, n, stop - start)) == (size_t)-1) return -2;
    s->nbytes = ready;
    size_t want = stop - start, got = 0;
    if (per_value) {
        uint64_t v;
        for (; got < want; got++) {
            int r = W == 64 ? gorilla_next64(s, endv, 0, &v) : gorilla_next32(s, endv, 0, &v);
            if (r != 1) break;
            if (W == 64) ((uint64_t *)out)[got] = v;
            else ((uint32_t *)out)[got] = (uint32_t)v;
        }
    } else {
        got = W == 64 ? gorilla_decode_batch64(s, endv, 0, (uint64_t *)out, want)
                      : gorilla_decode_batch32(s, endv, 0, (uint32_t *)out, want);
    }
    if (got < want) {
        if (!s->err) s->err = GOR_ERR_TRUNCATED;
        return -1;
    }
    return (ptrdiff_t)want;
}

#endif /* GORILLA */

/* ---- CHIMP, RLBE, CAMEL, SPRINTZ: walk, then take, on the streaming state ------------------- */

#ifdef TSFILE_SPRINTZ_SCALAR_H
/* SPRINTZ's per-value step, inlined (sprintz_next is out of line on purpose: the per-value
 * path's baseline); W is the kind's (the state knows it). */
TSFILE_INLINE int sprintz_step(sprintz_state *s, int W, uint64_t *out)
{
    (void)W;
    if (s->ibuf >= s->nbuf) {
        int k = sprintz_block(s->src, s->len, &s->pos, s->kind, s->buf);
        if (k <= 0) return k;
        s->nbuf = k;
        s->ibuf = 0;
    }
    *out = s->buf[s->ibuf++];
    return 1;
}

SERIAL_DEFINE_TAKE(sprintz_take32, sprintz_state, sprintz_step, 32)
SERIAL_DEFINE_TAKE(sprintz_take64, sprintz_state, sprintz_step, 64)
#endif

#ifdef TSFILE_CAMEL_SCALAR_H
#define SERIAL_CAMEL_STEP(s, W, v) camel_step(s, v)
SERIAL_DEFINE_TAKE(camel_take64, camel_state, SERIAL_CAMEL_STEP, 64)
#endif

#ifdef TSFILE_CHIMP_SCALAR_H
SERIAL_DEFINE_TAKE(chimp_take32, chimp_state, chimp_step, 32)
SERIAL_DEFINE_TAKE(chimp_take64, chimp_state, chimp_step, 64)
#endif

#ifdef TSFILE_RLBE_SCALAR_H
SERIAL_DEFINE_TAKE(rlbe_take32, rlbe_state, rlbe_step, 32)
SERIAL_DEFINE_TAKE(rlbe_take64, rlbe_state, rlbe_step, 64)
#endif

#endif /* TSFILE_SERIAL_SKIP_H */
