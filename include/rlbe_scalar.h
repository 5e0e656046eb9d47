/*
 * rlbe_scalar.h: TsFile RLBE (run-length + Fibonacci bit encoding) decoders, scalar C
 * (format notes 8.10).
 *
 * Words: W = 32 (INT32/DATE, FLOAT bits; length field 6 bits) or 64 (INT64/TIMESTAMP, DOUBLE bits;
 * length field 7 bits), carried in uint64_t. A page is a sequence of byte-aligned blocks:
 *   32 bits   value count c (1..10000)
 *   segments until c values are produced:
 *     length field: bit length L of the segment's values (1..W)
 *     Fibonacci (Zeckendorf) code of the run length k: bit j set = F_j used (F = 1, 2, 3, 5, ...),
 *       smallest term first, terminated by an extra '1' (so the code ends with '11')
 *     k values of L bits (when L == W the writer stores the top bit as 0: it is set back here)
 *   zero bits up to the next byte boundary
 * The values are deltas: v[0] = d[0], v[i] = v[i-1] + d[i] (wrapping), restarting at every block.
 */
#ifndef TSFILE_RLBE_SCALAR_H
#define TSFILE_RLBE_SCALAR_H

#include "bitreader_msb.h"

#define RLBE_MAX_BLOCK 10000

/* F_1.. of the Fibonacci code: 1, 2, 3, 5, 8, ... (21 terms cover every run of a block). */
static const uint32_t rlbe_fib[21] = {1,    2,    3,    5,    8,    13,   21,    34,   55,   89,  144,
                                      233,  377,  610,  987,  1597, 2584, 4181,  6765, 10946, 17711};

typedef struct {
    tsf_msb_reader r;
    uint64_t prev;      /* last value of the current block */
    int32_t remaining;  /* values of the current block not yet produced */
    int32_t in_block;   /* values produced in the current block */
    int32_t seg_left;   /* values left in the current segment */
    int seg_len;        /* L of the current segment */
} rlbe_state;

static inline void rlbe_init(rlbe_state *s, const uint8_t *src, size_t len)
{
    tsf_msb_init(&s->r, src, len);
    s->prev = 0;
    s->remaining = 0;
    s->in_block = 0;
    s->seg_left = 0;
    s->seg_len = 0;
}

/*
 * Start the next segment (and the next block when the current one is complete).
 * Returns 1 when a segment is ready, 0 at the end of the data (only between blocks), or TSF_E_*.
 */
TSFILE_INLINE int rlbe_segment(rlbe_state *s, const int W)
{
    const int LENW = (W == 64) ? 7 : 6;
    tsf_msb_reader *r = &s->r;
    if (s->remaining == 0) {
        tsf_msb_align(r);
        if (tsf_msb_bits_left(r) == 0) return 0;
        if (!tsf_msb_need(r, 32)) return TSF_E_TRUNCATED;
        uint32_t c = (uint32_t)tsf_msb_take(r, 32);
        if (c == 0 || c > RLBE_MAX_BLOCK) return TSF_E_COUNT;
        s->remaining = (int32_t)c;
        s->in_block = 0;
    }
    if (TSFILE_LIKELY(tsf_msb_need(r, LENW + 22))) {
        /* Fast path: a run of at most 10000 values has a code of at most 21 bits (F_20 = 10946),
         * so the length field and the whole code are in the reservoir. The code ends at the
         * first pair of consecutive 1 bits. */
        int L = (int)(r->buf >> (64 - LENW));
        uint64_t x = r->buf << LENW;
        uint64_t pairs = x & (x << 1);
        int i = pairs ? __builtin_clzll(pairs) : 64;
        if (L >= 1 && L <= W && i <= 20) {
            uint32_t k = 0;
            uint64_t code = x >> (63 - i); /* the i + 1 value bits, first bit lowest weight... */
            for (int j = 0; j <= i; j++)   /* ...bit j (from the first) selects F_{j+1} */
                if ((code >> (i - j)) & 1) k += rlbe_fib[j];
            if (k > (uint32_t)s->remaining) return TSF_E_COUNT;
            tsf_msb_take(r, LENW + i + 2);
            s->seg_left = (int32_t)k;
            s->seg_len = L;
            return 1;
        }
        /* otherwise let the careful path below report the problem */
    }
    if (!tsf_msb_need(r, LENW + 2)) return TSF_E_TRUNCATED;
    int L = (int)tsf_msb_take(r, LENW);
    if (L < 1 || L > W) return TSF_E_CORRUPT;
    /* Fibonacci code: accumulate F_j for each set bit until two consecutive set bits. */
    uint32_t f1 = 1, f2 = 2; /* F_j and F_{j+1} */
    uint32_t k = 0;
    int now = (int)tsf_msb_take(r, 1);
    for (;;) {
        if (!tsf_msb_need(r, 1)) return TSF_E_TRUNCATED;
        int next = (int)tsf_msb_take(r, 1);
        if (now) {
            k += f1;
            if (k > (uint32_t)s->remaining) return TSF_E_COUNT;
            if (next) break;
        }
        uint32_t f3 = f1 + f2;
        f1 = f2;
        f2 = f3;
        if (f1 > (uint32_t)RLBE_MAX_BLOCK) return TSF_E_COUNT; /* no term this large fits a block */
        now = next;
    }
    s->seg_left = (int32_t)k;
    s->seg_len = L;
    return 1;
}

TSFILE_INLINE uint64_t rlbe_apply(rlbe_state *s, const int W, uint64_t d)
{
    const uint64_t MASK = (W == 64) ? ~UINT64_C(0) : UINT64_C(0xffffffff);
    if (s->seg_len == W) d |= UINT64_C(1) << (W - 1);
    uint64_t v = s->in_block ? ((s->prev + d) & MASK) : d;
    s->prev = v;
    s->in_block++;
    s->remaining--;
    s->seg_left--;
    return v;
}

/* One value: 1 (in *out), 0 at the end of the data, or TSF_E_*. */
TSFILE_INLINE int rlbe_step(rlbe_state *s, const int W, uint64_t *out)
{
    uint64_t d;
    if (s->seg_left == 0) {
        int rc = rlbe_segment(s, W);
        if (rc != 1) return rc;
    }
    if (tsf_msb_read(&s->r, s->seg_len, &d)) return TSF_E_TRUNCATED;
    *out = rlbe_apply(s, W, d);
    return 1;
}

/*
 * Batch decode: up to `cap` values into out (uint32_t slots for W = 32, uint64_t for W = 64).
 * Returns the number written (the data ended or cap was reached) or a TSF_E_* code; *pos receives
 * the bytes consumed (a block's padding included once the block is complete) or the error offset.
 * Each segment's bits are checked once, then its values are read without further checks.
 */
TSFILE_INLINE int64_t rlbe_decode_generic(const uint8_t *src, size_t len, const int W, void *out,
                                          int64_t cap, size_t *pos)
{
    rlbe_state st;
    rlbe_init(&st, src, len);
    tsf_msb_reader *r = &st.r;
    int64_t n = 0;
    while (n < cap) {
        if (st.seg_left == 0) {
            int rc = rlbe_segment(&st, W);
            if (rc < 0) { *pos = tsf_msb_bit_pos(r) >> 3; return rc; }
            if (rc == 0) break;
        }
        int64_t m = st.seg_left;
        if (m > cap - n) m = cap - n;
        const int L = st.seg_len;
        if ((uint64_t)m * (uint64_t)L > tsf_msb_bits_left(r)) {
            *pos = len;
            return TSF_E_TRUNCATED;
        }
        const uint64_t MASK = (W == 64) ? ~UINT64_C(0) : UINT64_C(0xffffffff);
        const uint64_t top = (L == W) ? (UINT64_C(1) << (W - 1)) : 0;
        uint64_t prev = st.prev;
        int64_t i = 0;
        if (st.in_block == 0) {
            uint64_t d = 0;
            tsf_msb_read(r, L, &d);
            prev = d | top;
            if (W == 64) ((uint64_t *)out)[n] = prev; else ((uint32_t *)out)[n] = (uint32_t)prev;
            i = 1;
        }
        if (L <= 56) {
            for (; i < m; i++) {
                tsf_msb_need(r, L);
                prev = (prev + (tsf_msb_take(r, L) | top)) & MASK;
                if (W == 64) ((uint64_t *)out)[n + i] = prev;
                else ((uint32_t *)out)[n + i] = (uint32_t)prev;
            }
        } else {
            for (; i < m; i++) {
                uint64_t d = 0;
                tsf_msb_read(r, L, &d);
                prev = (prev + (d | top)) & MASK;
                if (W == 64) ((uint64_t *)out)[n + i] = prev;
                else ((uint32_t *)out)[n + i] = (uint32_t)prev;
            }
        }
        st.prev = prev;
        st.in_block += (int32_t)m;
        st.remaining -= (int32_t)m;
        st.seg_left -= (int32_t)m;
        n += m;
    }
    *pos = tsf_msb_byte_pos(r);
    return n;
}

static int64_t rlbe_decode_u32(const uint8_t *src, size_t len, void *out, int64_t cap, size_t *pos)
{
    return rlbe_decode_generic(src, len, 32, out, cap, pos);
}

static int64_t rlbe_decode_u64(const uint8_t *src, size_t len, void *out, int64_t cap, size_t *pos)
{
    return rlbe_decode_generic(src, len, 64, out, cap, pos);
}

#if defined(__GNUC__) || defined(__clang__)
#define RLBE_NOINLINE __attribute__((noinline))
#else
#define RLBE_NOINLINE
#endif
/* Per-value entry points: one value per (non-inlined) call, the streaming baseline. */
static RLBE_NOINLINE int rlbe_next32(rlbe_state *s, uint64_t *out) { return rlbe_step(s, 32, out); }
static RLBE_NOINLINE int rlbe_next64(rlbe_state *s, uint64_t *out) { return rlbe_step(s, 64, out); }

/* Bytes consumed by a streaming state (a partly read byte counts). */
static inline size_t rlbe_consumed(const rlbe_state *s) { return tsf_msb_byte_pos(&s->r); }

/*
 * Exact number of values in the page, found by walking block and segment headers and skipping the
 * value bits (no delta arithmetic). Returns the count or a TSF_E_* code (*pos = error offset).
 */
static int64_t rlbe_count(const uint8_t *src, size_t len, int W, size_t *pos)
{
    rlbe_state st;
    rlbe_init(&st, src, len);
    int64_t n = 0;
    for (;;) {
        int rc = (W == 64) ? rlbe_segment(&st, 64) : rlbe_segment(&st, 32);
        if (rc < 0) { *pos = tsf_msb_bit_pos(&st.r) >> 3; return rc; }
        if (rc == 0) break;
        if (tsf_msb_skip(&st.r, (size_t)st.seg_left * (size_t)st.seg_len)) {
            *pos = len;
            return TSF_E_TRUNCATED;
        }
        n += st.seg_left;
        st.remaining -= st.seg_left;
        st.in_block += st.seg_left;
        st.seg_left = 0;
    }
    *pos = tsf_msb_byte_pos(&st.r);
    return n;
}

#endif /* TSFILE_RLBE_SCALAR_H */

/* ------------------------------------------------------------------ encoder */

#include "bitwriter_msb.h"

/* Bytes enough for n values: per value at most W bits plus a segment header (length field and a
 * Fibonacci code of at most 22 bits), per block 4 bytes of count and 1 of padding. */
static inline size_t rlbe_encode_bound(size_t n, int W)
{
    size_t blocks = (n + RLBE_MAX_BLOCK - 1) / RLBE_MAX_BLOCK;
    return n * (size_t)((W + 7 + 22 + 7) / 8) + blocks * 5 + 8;
}

TSFILE_INLINE int rlbe_bitlen(uint64_t d, int W)
{
    (void)W;
    return d ? 64 - __builtin_clzll(d) : 1;
}

/*
 * Encode n words (uint32_t slots for W = 32, uint64_t for W = 64) as RLBE blocks of up to 10,000
 * values (format notes 8.10; a width-W value is stored with its top bit cleared). `out` must hold
 * rlbe_encode_bound(n, W) bytes. Returns the size.
 */
static size_t rlbe_encode_generic(const void *values, size_t n, int W, uint8_t *out)
{
    const int LENW = (W == 64) ? 7 : 6;
    const uint64_t MASK = (W == 64) ? ~UINT64_C(0) : UINT64_C(0xffffffff);
    tsf_msb_writer w;
    tsf_msbw_init(&w, out);
#define RLBE_WORD(i) (W == 64 ? ((const uint64_t *)values)[i] : (uint64_t)((const uint32_t *)values)[i])
    for (size_t start = 0; start < n; start += RLBE_MAX_BLOCK) {
        size_t cnt = n - start < RLBE_MAX_BLOCK ? n - start : RLBE_MAX_BLOCK;
        tsf_msbw_put(&w, (uint64_t)cnt, 32);
        size_t i = 0;
        while (i < cnt) {
            /* a segment: the values from i on with the same bit length */
            uint64_t d0 = i ? ((RLBE_WORD(start + i) - RLBE_WORD(start + i - 1)) & MASK)
                            : RLBE_WORD(start);
            int L = rlbe_bitlen(d0, W);
            size_t j = i + 1;
            while (j < cnt && rlbe_bitlen((RLBE_WORD(start + j) - RLBE_WORD(start + j - 1)) & MASK, W) == L)
                j++;
            uint32_t k = (uint32_t)(j - i);
            tsf_msbw_put(&w, (uint64_t)L, LENW);
            /* Zeckendorf code of k, smallest term first, then the terminating 1 */
            uint32_t used = 0;
            int top = 0;
            uint32_t rest = k;
            for (int t = 20; t >= 0; t--) {
                if (rlbe_fib[t] <= rest) {
                    rest -= rlbe_fib[t];
                    used |= UINT32_C(1) << t;
                    if (!top) top = t + 1;
                }
            }
            for (int t = 0; t < top; t++) tsf_msbw_put(&w, (used >> t) & 1, 1);
            tsf_msbw_put(&w, 1, 1);
            const uint64_t keep = (L == W) ? (MASK >> 1) : MASK;
            for (size_t q = i; q < j; q++) {
                uint64_t d = q ? ((RLBE_WORD(start + q) - RLBE_WORD(start + q - 1)) & MASK)
                               : RLBE_WORD(start);
                tsf_msbw_put_wide(&w, d & keep, L);
            }
            i = j;
        }
        tsf_msbw_finish(&w, 0);
    }
#undef RLBE_WORD
    return w.pos;
}
