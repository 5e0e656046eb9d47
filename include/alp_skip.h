/*
 * alp_skip.h: a row range [start, stop) of an ALP page (docs/alp-format.md), decoding only the
 * blocks that hold it.
 *
 * Blocks before `start` are passed by their headers (each block's size follows from its header,
 * so nothing of it is unpacked); the blocks overlapping the range are decoded with the page
 * decoder's block kernel, and nothing after the block holding value stop-1 is read. A page body
 * that is decompressed as it is read (page_prefix.h) is asked for each block's bytes before the
 * block is parsed, so a SNAPPY / LZ4 page is decompressed only up to the last block needed.
 *
 * Every block read is validated exactly as the page decoder validates it (alp_parse_block, on
 * the bytes present); blocks after the range are never read, so never checked.
 */
#ifndef TSFILE_ALP_SKIP_H
#define TSFILE_ALP_SKIP_H

#include "alp_scalar.h"
#include "page_prefix.h"

/* the compressed page body failed to decompress (tsfile_prefix rc / err_pos say why) */
#define ALP_E_STREAM 100

/* Bytes a block takes, from its 28-byte header alone (64-bit: a lying header may exceed the
 * page; alp_parse_block then rejects it). */
TSFILE_INLINE uint64_t alp_block_span(const uint8_t *p, int is64)
{
    const uint64_t vsize = is64 ? 8 : 4;
    const uint64_t count = alp_ld32(p + 4), exc = alp_ld32(p + 8), body = alp_ld32(p + 12);
    if (p[0] == 1) return ALP_BLOCK_HEADER + count * vsize;
    return ALP_BLOCK_HEADER + ((p[3] & 1) ? (count + 7) / 8 : 0) + exc * vsize + body;
}

/* The readable bytes of d[0:nbytes] once d[0:upto] (and the guard bytes after it) are. */
TSFILE_INLINE size_t alp_rows_ready(tsfile_prefix *more, const uint8_t *d, size_t nbytes,
                                    uint64_t upto)
{
    upto += ALP_GUARD;
    return tsfile_prefix_region(more, d, nbytes, upto > nbytes ? nbytes : (size_t)upto);
}

/*
 * Values start .. stop-1 of the page d[0:nbytes] into out[0 .. stop - start). `more`: the body
 * decompressed as far as it is read (NULL: readable whole). `kernel` NULL = scalar. Returns
 * ALP_OK, or an ALP_E_* code with err->offset (ALP_E_STREAM: the body's decompression failed).
 */
#define ALP_DEFINE_ROWS_DECODER(SUF, T, IS64)                                                       \
    static inline int alp_decode_rows_##SUF(const uint8_t *d, size_t nbytes, tsfile_prefix *more, \
                                            size_t start, size_t stop,                             \
                                            alp_decode_##SUF##_fn kernel, T *out, alp_err_t *err)  \
    {                                                                                              \
        uint32_t vc, bc, blk = 0;                                                                  \
        size_t off = ALP_PAGE_HEADER, done = 0, ready;                                             \
        T tmp[ALP_BLOCK];                                                                          \
        err->offset = 0;                                                                           \
        if (stop <= start) return err->code = ALP_OK;                                              \
        if (alp_rows_ready(more, d, nbytes, 0) == (size_t)-1) return err->code = ALP_E_STREAM;    \
        if (alp_parse_page_header(d, nbytes, IS64, &vc, &bc, err)) return err->code;               \
        if (stop > vc) { err->offset = 4; return err->code = ALP_E_FEWER; }                        \
        while (done < stop) {                                                                      \
            alp_block_t b;                                                                         \
            err->offset = off;                                                                     \
            if (blk >= bc) return err->code = ALP_E_TOTAL;                                         \
            ready = alp_rows_ready(more, d, nbytes, off + ALP_BLOCK_HEADER);                       \
            if (ready == (size_t)-1) return err->code = ALP_E_STREAM;                              \
            if (ready - off >= ALP_BLOCK_HEADER) { /* else alp_parse_block: too short */          \
                ready = alp_rows_ready(more, d, nbytes, off + alp_block_span(d + off, IS64));      \
                if (ready == (size_t)-1) return err->code = ALP_E_STREAM;                          \
            }                                                                                      \
            int rc = alp_parse_block(d + off, ready - off, IS64, &b);                              \
            if (rc) return err->code = rc;                                                         \
            if ((size_t)b.count > (size_t)vc - done) return err->code = ALP_E_TOTAL;               \
            const size_t end = done + b.count;                                                     \
            if (end > start) { /* the block holds values of the range */                          \
                const size_t avail = ready - (size_t)(b.body - d);                                 \
                const size_t lo = start > done ? start - done : 0;                                 \
                const size_t hi = stop < end ? stop - done : b.count;                              \
                if (lo == 0 && hi == b.count) {                                                    \
                    alp_block_decode_##SUF(&b, avail, kernel, out + (done - start));               \
                } else {                                                                           \
                    alp_block_decode_##SUF(&b, avail, kernel, tmp);                                \
                    memcpy(out + (done + lo - start), tmp + lo, (hi - lo) * sizeof(T));            \
                }                                                                                  \
            }                                                                                      \
            done = end;                                                                            \
            off += b.size;                                                                         \
            blk++;                                                                                 \
        }                                                                                          \
        return err->code = ALP_OK;                                                                 \
    }

/* alp_decode_rows_f64, alp_decode_rows_f32 */
ALP_DEFINE_ROWS_DECODER(f64, double, 1)
ALP_DEFINE_ROWS_DECODER(f32, float, 0)

#endif /* TSFILE_ALP_SKIP_H */
