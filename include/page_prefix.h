/*
 * page_prefix.h: a page body decompressed only as far as a reader needs it.
 *
 * A query on a large page often needs only its start: a 1 % time window in the first tenth of a
 * 1 M point page, the value rows up to that window's end. The page reader opens the body as a
 * tsfile_prefix and the decoders that walk a page block by block (ts2diff_blockskip.h) ask for
 * the bytes they are about to read (tsfile_prefix_need); SNAPPY and LZ4 bodies are decompressed
 * that far (and a little beyond, so that a walk of small blocks makes few calls), never further
 * (the decoders stop inside a run of literals too: incompressible bytes make long ones).
 * An uncompressed body is readable whole from the start.
 *
 * What is never decompressed is never checked: a stream damaged after the prefix a query needs
 * answers that query (with the right values) and fails any query that reaches the damage.
 */
#ifndef TSFILE_PAGE_PREFIX_H
#define TSFILE_PAGE_PREFIX_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "read_lz4.h"
#include "read_snappy.h"
#include "tsfile_isa.h"

enum { TSFILE_PREFIX_WHOLE = 0, TSFILE_PREFIX_SNAPPY = 1, TSFILE_PREFIX_LZ4 = 2 };

/* bytes decompressed beyond what is asked, so that block-by-block walks make few calls */
#define TSFILE_PREFIX_SLACK ((size_t)16384)

typedef struct {
    const uint8_t *src; /* the stored stream */
    size_t n;           /* its length */
    union {             /* where the decompressor stopped (by codec) */
        tsfile_lz4_state lz4;
        tsfile_snappy_state snappy;
    } at;
    uint8_t *dst;       /* the body (want bytes of room) */
    size_t want;        /* the body's size (the page header's uncompressed size) */
    size_t op;          /* bytes of the body readable: dst[0:op] */
    int codec;          /* TSFILE_PREFIX_* */
    int rc;             /* the decompressor's error code (0: none); sticky */
    size_t err_pos;     /* the stream offset of that error */
} tsfile_prefix;

/* A body readable whole (uncompressed, or decompressed already). */
TSFILE_INLINE void tsfile_prefix_whole(tsfile_prefix *p, const uint8_t *body, size_t size)
{
    memset(p, 0, sizeof *p);
    p->dst = (uint8_t *)body; /* never written: op == want */
    p->want = p->op = size;
    p->codec = TSFILE_PREFIX_WHOLE;
}

/* A SNAPPY (ip0 = the offset after its length preamble) or LZ4 stream (ip0 = 0) into dst. */
TSFILE_INLINE void tsfile_prefix_stream(tsfile_prefix *p, int codec, const uint8_t *src, size_t n,
                                        size_t ip0, uint8_t *dst, size_t want)
{
    memset(p, 0, sizeof *p);
    p->src = src;
    p->n = n;
    if (codec == TSFILE_PREFIX_SNAPPY) p->at.snappy.ip = ip0;
    p->dst = dst;
    p->want = want;
    p->codec = codec;
}

/* Make dst[0:need] readable (need is clamped to the body's size). 0, or -1 with p->rc set. */
static int tsfile_prefix_more(tsfile_prefix *p, size_t need)
{
    size_t target = need >= p->want ? p->want : need + TSFILE_PREFIX_SLACK;
    if (p->rc) return -1;
    if (target > p->want) target = p->want;
    if (p->codec == TSFILE_PREFIX_LZ4) {
        p->rc = tsfile_lz4_resume(p->src, p->n, &p->at.lz4, p->dst, p->want, target, &p->err_pos);
        p->op = p->at.lz4.op;
    } else if (p->codec == TSFILE_PREFIX_SNAPPY) {
        p->rc = tsfile_snappy_resume(p->src, p->n, &p->at.snappy, p->dst, p->want, target,
                                     &p->err_pos);
        p->op = p->at.snappy.op;
    }
    if (!p->rc && p->op < (need < p->want ? need : p->want)) {
        p->rc = p->codec == TSFILE_PREFIX_LZ4 ? 4 : 6; /* ended short: not filled */
        p->err_pos = p->n;
    }
    return p->rc ? -1 : 0;
}

TSFILE_INLINE int tsfile_prefix_need(tsfile_prefix *p, size_t need)
{
    if (p == NULL || need <= p->op) return 0;
    return tsfile_prefix_more(p, need);
}

/* The readable bytes of the region buf[0:nbytes] (inside the body) after making buf[0:upto]
 * readable; (size_t)-1 on a decompression error. p == NULL: the region is readable whole. */
TSFILE_INLINE size_t tsfile_prefix_region(tsfile_prefix *p, const uint8_t *buf, size_t nbytes,
                                          size_t upto)
{
    if (p == NULL) return nbytes;
    const size_t base = (size_t)(buf - p->dst);
    if (upto > nbytes) upto = nbytes;
    if (tsfile_prefix_need(p, base + upto) < 0) return (size_t)-1;
    return p->op - base >= nbytes ? nbytes : p->op - base;
}

/* The decompressor's name and what its error (p->rc) means. */
TSFILE_INLINE const char *tsfile_prefix_codec_name(const tsfile_prefix *p)
{
    return p->codec == TSFILE_PREFIX_LZ4 ? "LZ4" : p->codec == TSFILE_PREFIX_SNAPPY ? "SNAPPY" : "";
}

TSFILE_INLINE const char *tsfile_prefix_strerror(const tsfile_prefix *p)
{
    return p->codec == TSFILE_PREFIX_LZ4 ? tsfile_lz4_strerror(p->rc) : tsfile_snappy_strerror(p->rc);
}

#endif /* TSFILE_PAGE_PREFIX_H */
