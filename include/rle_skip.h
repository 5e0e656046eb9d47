/*
 * rle_skip.h: a row range [start, stop) of an RLE / bit-packing hybrid page (rle_scalar.h has the
 * layout), decoding only the runs that hold it.
 *
 * Runs before `start` are passed by their headers (an RLE run by its count, a bit-packed run by
 * its group count: its packed bytes are never touched); inside the run holding `start` the groups
 * before it are passed by their byte length (w bytes a group), the overlapping groups unpacked,
 * whole groups through the ISA's group kernel (the BULK of the stream decoders); nothing after
 * value stop-1 is read. A page body decompressed as it is read (page_prefix.h) is asked for each
 * header's bytes, and for a run's groups only when they are unpacked, so a SNAPPY / LZ4 page is
 * decompressed only up to the last group needed.
 *
 * The headers read are checked as the stream decoders check them (rle_parse_block /
 * rle_parse_run: runs crossing their block, widths above the type's, bad last-group counts);
 * runs after the range are never read, so never checked.
 */
#ifndef TSFILE_RLE_SKIP_H
#define TSFILE_RLE_SKIP_H

#include "page_prefix.h"
#include "rle_impls.h"

/* the compressed page body failed to decompress (tsfile_prefix rc / err_pos say why) */
#define RLE_E_STREAM 100

/* The readable bytes of src[0:n] once src[0:upto] is, with 16 bytes more (a run header's value,
 * a group's word loads). (size_t)-1: the body failed to decompress. */
TSFILE_INLINE size_t rle_rows_ready(tsfile_prefix *more, const uint8_t *src, size_t n,
                                    uint64_t upto)
{
    upto += 16;
    return tsfile_prefix_region(more, src, n, upto > n ? n : (size_t)upto);
}

/*
 * Values start .. stop-1 of the page src[0:n] into out[0 .. stop - start). `more`: the body
 * decompressed as far as it is read (NULL: readable whole). Returns 0, or -code with *err_at
 * (a TSC_ERR_* of varint_scalar.h; -RLE_E_STREAM: the body's decompression failed); fewer than
 * `stop` values is TSC_ERR_TRUNCATED at the end of the data.
 */
#define RLE_DEFINE_DECODE_ROWS(NAME, T, IS64, CONV, BULK, ATTR)                                   \
    static ATTR ptrdiff_t NAME(const uint8_t *src, size_t n, tsfile_prefix *more, size_t start,  \
                               size_t stop, T *out, size_t *err_at)                              \
    {                                                                                            \
        size_t pos = 0;                                                                          \
        uint64_t done = 0; /* values before the run at pos */                                    \
        if (stop <= start) return 0;                                                             \
        while (pos < n) {                                                                        \
            int w;                                                                               \
            size_t body, end;                                                                    \
            if (rle_rows_ready(more, src, n, pos) == (size_t)-1) return -RLE_E_STREAM;           \
            int e = rle_parse_block(src, n, pos, IS64, &w, &body, &end, err_at);                 \
            if (e) return -e;                                                                    \
            pos = body;                                                                          \
            while (pos < end) {                                                                  \
                rle_run r;                                                                       \
                if (rle_rows_ready(more, src, n, pos) == (size_t)-1) return -RLE_E_STREAM;       \
                e = rle_parse_run(src, end, pos, w, IS64, &r, err_at);                           \
                if (e) return -e;                                                                \
                const uint64_t rend = done + r.nvalues;                                          \
                if (rend > start) { /* the run holds values of the range */                     \
                    const uint64_t lo = start > done ? start - done : 0;                         \
                    const uint64_t hi = stop < rend ? stop - done : r.nvalues;                   \
                    T *o = out + (size_t)(done + lo - start);                                    \
                    if (r.bitpacked) {                                                           \
                        /* groups before lo passed by their length; lo .. hi unpacked */         \
                        const size_t g0 = r.data + (size_t)(lo / 8) * (size_t)w;                 \
                        const size_t ready =                                                     \
                            rle_rows_ready(more, src, n, r.data + ((hi + 7) / 8) * (uint64_t)w); \
                        if (ready == (size_t)-1) return -RLE_E_STREAM;                           \
                        const uint8_t *g = src + g0;                                             \
                        size_t room = ready - g0;                                                \
                        uint64_t i = lo, tmp[8];                                                 \
                        if (i % 8) { /* the part of the first group in the range */             \
                            rle_unpack8(g, room, w, tmp);                                        \
                            for (; i % 8 && i < hi; i++) *o++ = CONV(tmp[i % 8]);                \
                            g += w;                                                              \
                            room -= (size_t)w;                                                   \
                        }                                                                        \
                        if (i < hi && hi - i >= 8) { /* whole groups */                          \
                            size_t ng = (size_t)((hi - i) / 8);                                  \
                            /* BULK needs w >= 1 (width 0: rle_unpack8's zeros) */               \
                            size_t bulk = w ? BULK(g, room, w, ng, o) : 0;                       \
                            o += bulk * 8;                                                       \
                            g += bulk * (size_t)w;                                               \
                            room -= bulk * (size_t)w;                                            \
                            i += bulk * 8;                                                       \
                            for (; bulk < ng; bulk++) {                                          \
                                rle_unpack8(g, room, w, tmp);                                    \
                                for (int j = 0; j < 8; j++) *o++ = CONV(tmp[j]);                 \
                                g += w;                                                          \
                                room -= (size_t)w;                                               \
                                i += 8;                                                          \
                            }                                                                    \
                        }                                                                        \
                        if (i < hi) { /* the part of the last group in the range */             \
                            rle_unpack8(g, room, w, tmp);                                        \
                            for (int j = 0; i < hi; i++, j++) *o++ = CONV(tmp[j]);               \
                        }                                                                        \
                    } else {                                                                     \
                        const T v = CONV(r.value);                                               \
                        for (uint64_t i = lo; i < hi; i++) *o++ = v;                             \
                    }                                                                            \
                    if (stop <= rend) return 0;                                                  \
                }                                                                                \
                done = rend;                                                                     \
                pos = r.next;                                                                    \
            }                                                                                    \
            pos = end;                                                                           \
        }                                                                                        \
        *err_at = n;                                                                             \
        return -TSC_ERR_TRUNCATED;                                                               \
    }

/* The int32 and int64 row-range decoders of one ISA row, on that ISA's group unpackers
 * rle_unpack_groups_i32_ISA / rle_unpack_groups_i64_ISA (as RLE_DEFINE_DECODERS does for the
 * whole-page decoders). */
#define RLE_DEFINE_ROWS_DECODERS(ISA, ATTR)                                                        \
    RLE_DEFINE_DECODE_ROWS(rle_rows_i32_##ISA, int32_t, 0, RLE_CONV_I32,                           \
                           rle_unpack_groups_i32_##ISA, ATTR)                                      \
    RLE_DEFINE_DECODE_ROWS(rle_rows_i64_##ISA, int64_t, 1, RLE_CONV_I64,                           \
                           rle_unpack_groups_i64_##ISA, ATTR)

RLE_DEFINE_ROWS_DECODERS(scalar, inline)
RLE_DEFINE_DECODE_ROWS(rle_rows_bool, uint8_t, 0, RLE_CONV_BOOL, RLE_BULK_NONE, inline)
#if TSFILE_ISA_AVX512
RLE_DEFINE_ROWS_DECODERS(avx512, TSFILE_TARGET_AVX512)
#endif
#if TSFILE_ISA_AVX2
RLE_DEFINE_ROWS_DECODERS(avx2, TSFILE_TARGET_AVX2)
#endif
#if TSFILE_ISA_NEON
RLE_DEFINE_ROWS_DECODERS(neon, inline)
#endif

typedef ptrdiff_t (*rle_rows_i32_fn)(const uint8_t *src, size_t n, tsfile_prefix *more,
                                     size_t start, size_t stop, int32_t *out, size_t *err_at);
typedef ptrdiff_t (*rle_rows_i64_fn)(const uint8_t *src, size_t n, tsfile_prefix *more,
                                     size_t start, size_t stop, int64_t *out, size_t *err_at);

/* The row-range decoders of each ISA: rows in the order (and under the conditions) of rle_impls
 * (rle_impls.h), whose init has built the group kernels' plans. */
typedef struct {
    tsfile_impl_head head;
    rle_rows_i32_fn rows_i32;
    rle_rows_i64_fn rows_i64;
} rle_rows_impl;

static const rle_rows_impl rle_rows_impls[] = {
#if TSFILE_ISA_AVX512
    {{"avx512", TSFILE_LEVEL_AVX512, TSFILE_NEED_AVX512_VBMI}, rle_rows_i32_avx512,
     rle_rows_i64_avx512},
#endif
#if TSFILE_ISA_AVX2
    {{"avx2", TSFILE_LEVEL_AVX2, TSFILE_NEED_AVX2}, rle_rows_i32_avx2, rle_rows_i64_avx2},
#endif
#if TSFILE_ISA_NEON
    {{"neon", TSFILE_LEVEL_NEON, 0}, rle_rows_i32_neon, rle_rows_i64_neon},
#endif
    {{"scalar", TSFILE_LEVEL_SCALAR, 0}, rle_rows_i32_scalar, rle_rows_i64_scalar},
};

#define RLE_ROWS_N_IMPLS (sizeof rle_rows_impls / sizeof rle_rows_impls[0])

/* The row to run at ISA `level` on a CPU with `features`. */
static inline size_t rle_rows_pick_impl(int level, unsigned features)
{
    return tsfile_pick_impl(rle_rows_impls, sizeof rle_rows_impls[0], RLE_ROWS_N_IMPLS, level,
                            features);
}

#endif /* TSFILE_RLE_SKIP_H */
