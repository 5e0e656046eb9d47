/*
 * ts2diff_blockskip.h: read a [t1, t2] window out of a TS_2DIFF int64 page (a time page) without
 * unpacking the blocks that cannot overlap it, and read a row range out of a TS_2DIFF value page
 * by skipping whole blocks by their headers (the TsFile batch-read study, experiment E5-4).
 *
 * A block (ts2diff_scalar.h) holds v0 = first and v[i+1] = v[i] + min_delta + r[i] with
 * 0 <= r[i] < 2^width, so without unpacking anything its values lie in
 *     [first + min(0, n * min_delta),  first + max(0, n * (min_delta + 2^width - 1))]
 * when those exact bounds fit in int64 (then no partial sum wrapped). Bounds:
 *   plan A  that interval alone. Its upper end overshoots the block's last value by about
 *           n * (2^width - 1 - mean jitter): with uniform jitter less than one block span (the
 *           block before a window may be decoded for nothing), far more with rare wide deltas;
 *   plan C  for strictly increasing timestamps: [first, next block's first - 1] (clipped by
 *           plan A's upper end), one 8-byte load of the next header. Exact up to the last value, so every block
 *           that holds no match is skipped, and once a block starts after t2 the page is done.
 *   off     every block is decoded (the baseline).
 * Plan C's premise is checked on every header before that block is judged by it: min_delta >= 0
 * without wrap-around and the first values strictly increasing (so each block is non-decreasing
 * and starts after the previous one started); a header that breaks it restarts the page under
 * plan A. (Checked as the walk reaches each header, not by a walk of all headers first: a window
 * near the start of a page never reads the headers after it.) What headers cannot show is the
 * last value of a block staying below the next first value: TsFile requires it of time
 * pages (strictly increasing timestamps), and every block that is decoded is checked against it;
 * a violation restarts the page under plan A, which holds for any data.
 *
 * Compressed pages: the walks take the page as a tsfile_prefix (page_prefix.h, NULL when the
 * whole page is readable) and ask for each block's bytes (its header, its bits, the next block's
 * first value) just before they read them, so that a SNAPPY / LZ4 page is decompressed only up to
 * the last block a window or a row range needs.
 */
#ifndef TS2DIFF_BLOCKSKIP_H
#define TS2DIFF_BLOCKSKIP_H

#include "filter_scalar.h"
#include "page_prefix.h"
#include "ts2diff_scalar.h"

enum { TS2DIFF_SKIP_OFF = 0, TS2DIFF_SKIP_PLAN_A = 1, TS2DIFF_SKIP_PLAN_C = 2 };

/* Error codes of this header, after ts2diff_scalar.h's (same ts2diff_error record). */
enum {
    TS2DIFF_E_OUT_CAP = 20, /* value: rows needed, extra: room in the output */
    TS2DIFF_E_ROWS = 21,    /* value: rows requested (end), extra: rows in the page */
    TS2DIFF_E_STREAM = 22,  /* the compressed page: value: its decompressor's error code (read_lz4.h,
                             * read_snappy.h), extra: the offset in the stored stream */
};

/* Per call: what was skipped (the numbers the E5-4 benchmark reports). */
typedef struct {
    int64_t blocks;  /* blocks in the page */
    int64_t skipped; /* blocks whose packed bits were never unpacked */
    int64_t phantom; /* blocks decoded that held no value in the window */
    int64_t rows;    /* values in the page; -1: not known (a compressed page decompressed only
                      * as far as the window needed; blocks then counts the blocks reached) */
    int64_t first_row, last_row; /* page rows of the first and last match (-1: none) */
    int plan;        /* the plan that ran: TS2DIFF_SKIP_* (plan C falls back to plan A) */
} ts2diff_skip_stats;

/* a + b, or 0 when it leaves int64 (portable: no 128-bit type, no overflow builtins). */
TSFILE_INLINE int ts2diff_add_ok(int64_t a, int64_t b, int64_t *sum)
{
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) return 0;
    *sum = a + b;
    return 1;
}

/* n * x for 0 <= n <= TS2DIFF_MAX_BLOCK_DELTAS, or 0 when it leaves int64. */
TSFILE_INLINE int ts2diff_mul_ok(int64_t n, int64_t x, int64_t *prod)
{
    if (n > 0 && (x > INT64_MAX / n || x < INT64_MIN / n)) return 0;
    *prod = n * x;
    return 1;
}

/* Exact bounds of a block's values from its header; 0 when they cannot be given in int64 (a
 * partial sum may have wrapped, or the block is too wide to say): the block must be decoded. */
TSFILE_INLINE int ts2diff_block_bounds(const ts2diff_block *b, int64_t *lo, int64_t *hi)
{
    const int64_t first = (int64_t)b->first, n = b->n, min = (int64_t)b->min_delta;
    int64_t step_max, down = 0, up = 0;
    if (n == 0) {
        *lo = *hi = first;
        return 1;
    }
    /* a width of 62 or more bounds nothing useful: the steps span most of the int64 range */
    if (b->width >= 62 || !ts2diff_add_ok(min, (int64_t)((1ull << b->width) - 1), &step_max))
        return 0;
    if (min < 0 && !ts2diff_mul_ok(n, min, &down)) return 0;
    if (step_max > 0 && !ts2diff_mul_ok(n, step_max, &up)) return 0;
    return ts2diff_add_ok(first, down, lo) && ts2diff_add_ok(first, up, hi);
}

/* Make the region buf[0:upto] readable (more: the page being decompressed, NULL when whole);
 * *avail gets the readable length of the region. 0, or -1 with *e set (at the block at pos). */
TSFILE_INLINE int ts2diff_fetch(tsfile_prefix *more, const uint8_t *buf, size_t nbytes,
                                size_t upto, size_t pos, size_t *avail, ts2diff_error *e)
{
    const size_t got = tsfile_prefix_region(more, buf, nbytes, upto);
    if (TSFILE_UNLIKELY(got == (size_t)-1)) {
        ts2diff_set_error(e, TS2DIFF_E_STREAM, pos, more->rc, (int64_t)more->err_pos);
        return -1;
    }
    *avail = got;
    return 0;
}

/* Plan C's premise on one header (see the top): strictly after the previous block's first value
 * (first_block: there is none), deltas >= 0 with bounds that fit in int64. */
TSFILE_INLINE int ts2diff_premise(const ts2diff_block *b, int first_block, int64_t prev_first)
{
    int64_t lo, hi;
    if (!first_block && (int64_t)b->first <= prev_first) return 0;
    return b->n == 0 || ((int64_t)b->min_delta >= 0 && ts2diff_block_bounds(b, &lo, &hi));
}

/* The rest of the page from pos (the block after the one a plan C pass stopped at, whose first
 * value was prev_first): with more == NULL (the caller wants the page's exact counts), counted
 * into st (every block skipped), its headers checked and held to plan C's premise; else left
 * unread (st->rows = -1: the caller has the page's statistics count, and a page's headers after
 * the window are neither decompressed nor, uncompressed, touched). 0, -1 with *e set, or -2
 * (premise broken). */
static int ts2diff_count_rest(const uint8_t *buf, size_t nbytes, tsfile_prefix *more, size_t pos,
                              int64_t prev_first, int64_t row, ts2diff_skip_stats *st,
                              ts2diff_error *e)
{
    ts2diff_block b;
    if (more != NULL) {
        st->rows = -1;
        return 0;
    }
    while (pos < nbytes) {
        if (ts2diff_parse_block(buf, nbytes, pos, 1, &b, e) < 0) return -1;
        if (st->plan == TS2DIFF_SKIP_PLAN_C && !ts2diff_premise(&b, st->blocks == 0, prev_first))
            return -2;
        prev_first = (int64_t)b.first;
        row += b.n + 1;
        st->blocks++;
        st->skipped++;
        pos = b.data_off + b.data_len;
    }
    st->rows = row;
    return 0;
}

/*
 * Copy the values of a decoded block (n values at vals, page rows row0 ..) that lie in [t1, t2]
 * to out / out_rows at k, and the first / last match rows to *st; `select` is a predicate kernel
 * (filter_impls.h), idx holds n + FILTER_INDEX_SLACK entries. Returns the number of matches, or -1 when out is too small.
 */
TSFILE_INLINE int64_t ts2diff_keep_window(const int64_t *vals, size_t n, int64_t row0, int64_t t1,
                                          int64_t t2, filter_index_fn_i64 select, int32_t *idx,
                                          int64_t *out, int64_t *out_rows, size_t k, size_t cap,
                                          ts2diff_skip_stats *st)
{
    const size_t m = select(vals, n, t1, t2, 0, idx, 0);
    if (m > cap - k) return -1;
    if (m) {
        if (st->first_row < 0) st->first_row = row0 + idx[0];
        st->last_row = row0 + idx[m - 1];
    }
    for (size_t j = 0; j < m; j++) {
        out[k + j] = vals[idx[j]];
        if (out_rows) out_rows[k + j] = row0 + idx[j];
    }
    return (int64_t)m;
}

/* One pass of ts2diff_window() under a fixed plan; returns matches, -1 (error, *e set) or -2
 * (plan C's premise failed: run again under plan A). st->blocks / st->rows are set here. */
static int64_t ts2diff_window_pass(const uint8_t *buf, size_t nbytes, tsfile_prefix *more,
                                   int64_t t1, int64_t t2, int plan, ts2diff_block_fn_i64 kernel,
                                   filter_index_fn_i64 select, int64_t *scratch, int32_t *idx,
                                   int64_t *out, int64_t *out_rows, size_t cap,
                                   ts2diff_skip_stats *st, ts2diff_error *e)
{
    size_t pos = 0, k = 0, avail = 0;
    int64_t row = 0, prev_first = INT64_MIN;
    ts2diff_block b;
    while (pos < nbytes) {
        if (ts2diff_fetch(more, buf, nbytes, pos + 24, pos, &avail, e) < 0) return -1;
        if (ts2diff_parse_block(buf, nbytes, pos, 1, &b, e) < 0) return -1;
        const size_t next = b.data_off + b.data_len;
        /* this block's bits and the next block's header (plan C's look-ahead) */
        if (ts2diff_fetch(more, buf, nbytes, next + 24, pos, &avail, e) < 0) return -1;
        const uint8_t *end = buf + avail;
        const int has_next = next < nbytes && nbytes - next >= 24;
        const int64_t next_first = has_next ? (int64_t)ts2diff_load_be64(buf + next + 16) : 0;
        const size_t nv = (size_t)b.n + 1;
        int64_t lo = INT64_MIN, hi = INT64_MAX;
        int known = 0;
        st->blocks++;
        if (plan != TS2DIFF_SKIP_OFF) known = ts2diff_block_bounds(&b, &lo, &hi);
        if (plan == TS2DIFF_SKIP_PLAN_C) {
            if (!ts2diff_premise(&b, st->blocks == 1, prev_first)) return -2;
            /* strictly increasing: the block ends before the next one starts (next_first is
             * above this block's first value, so next_first - 1 cannot wrap) */
            if (has_next && next_first - 1 < hi) hi = next_first - 1;
            if (lo > t2) {
                /* increasing page: this block and every later one start after t2 */
                st->skipped++;
                const int rc = ts2diff_count_rest(buf, nbytes, more, next, (int64_t)b.first,
                                                  row + (int64_t)nv, st, e);
                return rc < 0 ? rc : (int64_t)k;
            }
        }
        prev_first = (int64_t)b.first;
        if (known && (hi < t1 || lo > t2)) {
            st->skipped++;
        } else if (known && lo >= t1 && hi <= t2) {
            /* wholly inside: decode straight into the result */
            if (nv > cap - k) goto out_full;
            kernel(buf + b.data_off, end, b.width, b.min_delta, b.first, out + k, nv - 1);
            if (plan == TS2DIFF_SKIP_PLAN_C && has_next && out[k + nv - 1] >= next_first)
                return -2;
            if (st->first_row < 0) st->first_row = row;
            st->last_row = row + (int64_t)nv - 1;
            if (out_rows)
                for (size_t j = 0; j < nv; j++) out_rows[k + j] = row + (int64_t)j;
            k += nv;
        } else {
            kernel(buf + b.data_off, end, b.width, b.min_delta, b.first, scratch, nv - 1);
            if (plan == TS2DIFF_SKIP_PLAN_C && has_next && scratch[nv - 1] >= next_first)
                return -2;
            const int64_t m =
                ts2diff_keep_window(scratch, nv, row, t1, t2, select, idx, out, out_rows, k, cap, st);
            if (m < 0) goto out_full;
            if (m == 0) st->phantom++;
            k += (size_t)m;
        }
        row += (int64_t)nv;
        pos = next;
    }
    st->rows = row;
    return (int64_t)k;
out_full:
    ts2diff_set_error(e, TS2DIFF_E_OUT_CAP, pos, (int64_t)(k + 1), (int64_t)cap);
    return -1;
}

/*
 * The values of an int64 TS_2DIFF page that lie in [t1, t2], in page order, into out (cap
 * entries; the page's value count always suffices) and their page row numbers into out_rows
 * (may be NULL). `more`: the page when it is decompressed as it is read (page_prefix.h), NULL
 * when buf[0:nbytes] is readable and the page's exact counts are wanted (st->rows is -1 when a
 * pass with `more` stops before the page's end). `plan` is TS2DIFF_SKIP_*: plan C runs as long as the headers
 * allow it (else plan A). `kernel`: a TS_2DIFF block kernel (ts2diff_impls.h); `select`: an int64
 * index kernel (filter_impls.h); scratch: TS2DIFF_MAX_BLOCK_DELTAS + 1 int64; idx:
 * TS2DIFF_MAX_BLOCK_DELTAS + 1 + FILTER_INDEX_SLACK int32. Returns the number of values written,
 * or -1 with *e set (corrupt page, or out too small).
 */
static int64_t ts2diff_window(const uint8_t *buf, size_t nbytes, tsfile_prefix *more, int64_t t1,
                              int64_t t2, int plan, ts2diff_block_fn_i64 kernel,
                              filter_index_fn_i64 select, int64_t *scratch, int32_t *idx,
                              int64_t *out, int64_t *out_rows, size_t cap, ts2diff_skip_stats *st,
                              ts2diff_error *e)
{
    for (;;) {
        memset(st, 0, sizeof *st);
        st->first_row = st->last_row = -1;
        st->plan = plan;
        int64_t k;
        if (t1 > t2) /* an empty window: nothing to decode */
            k = ts2diff_count_rest(buf, nbytes, more, 0, INT64_MIN, 0, st, e);
        else
            k = ts2diff_window_pass(buf, nbytes, more, t1, t2, plan, kernel, select, scratch,
                                    idx, out, out_rows, cap, st, e);
        if (k != -2) return k;
        plan = TS2DIFF_SKIP_PLAN_A;
    }
}

/*
 * The scratch block ts2diff_decode_rows_* needs (the first block of a range decoded whole, its
 * rows before r0 dropped), for callers without one of their own: one per thread, since pages are
 * decoded on several threads, made on the thread's first call and reused after (instead of a
 * 32 KiB allocation per page).
 */
typedef union {
    int64_t i64[TS2DIFF_MAX_BLOCK_DELTAS + 1];
    int32_t i32[TS2DIFF_MAX_BLOCK_DELTAS + 1];
} ts2diff_rows_scratch_t;

static inline ts2diff_rows_scratch_t *ts2diff_rows_scratch(void)
{
    static _Thread_local ts2diff_rows_scratch_t scratch;
    return &scratch;
}

/*
 * Rows r0 .. r1-1 of a TS_2DIFF value page (int64 or int32 blocks) into out: the blocks before
 * r0 are passed by their headers (never unpacked), decoding stops after r1 (`more`: the page
 * when it is decompressed as it is read, see ts2diff_window). scratch holds
 * TS2DIFF_MAX_BLOCK_DELTAS + 1 values. *skipped counts the blocks passed over. Returns 0, or -1
 * with *e set (corrupt page, or the page holds fewer than r1 values).
 */
#define TS2DIFF_DEFINE_DECODE_ROWS(SUF, T, IS64, FN_T, MINCAST)                                    \
    static int ts2diff_decode_rows_##SUF(const uint8_t *buf, size_t nbytes, tsfile_prefix *more,  \
                                         int64_t r0, int64_t r1, FN_T kernel, T *scratch, T *out,  \
                                         int64_t *skipped, ts2diff_error *e)                       \
    {                                                                                              \
        size_t pos = 0, avail = 0;                                                                 \
        const size_t hdr = ts2diff_header_size(IS64);                                              \
        int64_t row = 0;                                                                           \
        ts2diff_block b;                                                                           \
        *skipped = 0;                                                                              \
        while (row < r1) {                                                                         \
            if (TSFILE_UNLIKELY(pos >= nbytes)) {                                                  \
                ts2diff_set_error(e, TS2DIFF_E_ROWS, pos, r1, row);                                \
                return -1;                                                                         \
            }                                                                                      \
            if (ts2diff_fetch(more, buf, nbytes, pos + hdr, pos, &avail, e) < 0) return -1;        \
            if (ts2diff_parse_block(buf, nbytes, pos, IS64, &b, e) < 0) return -1;                 \
            const int64_t nv = b.n + 1;                                                            \
            if (row + nv <= r0) {                                                                  \
                (*skipped)++;                                                                      \
            } else {                                                                               \
                const int64_t j0 = r0 > row ? r0 - row : 0;                                        \
                const int64_t j1 = r1 - row < nv ? r1 - row : nv;                                  \
                T *dst = j0 == 0 ? out + (row - r0) : scratch;                                     \
                if (ts2diff_fetch(more, buf, nbytes, b.data_off + b.data_len, pos, &avail, e) < 0) \
                    return -1;                                                                     \
                kernel(buf + b.data_off, buf + avail, b.width, MINCAST(b.min_delta),               \
                       MINCAST(b.first), dst, (size_t)(j1 - 1));                                   \
                if (j0 > 0) memcpy(out, scratch + j0, (size_t)(j1 - j0) * sizeof(T));              \
            }                                                                                      \
            row += nv;                                                                             \
            pos = b.data_off + b.data_len;                                                         \
        }                                                                                          \
        return 0;                                                                                  \
    }

/* ts2diff_decode_rows_i64, ts2diff_decode_rows_i32 */
TS2DIFF_DEFINE_DECODE_ROWS(i64, int64_t, 1, ts2diff_block_fn_i64, (uint64_t))
TS2DIFF_DEFINE_DECODE_ROWS(i32, int32_t, 0, ts2diff_block_fn_i32, (uint32_t))

#endif /* TS2DIFF_BLOCKSKIP_H */
