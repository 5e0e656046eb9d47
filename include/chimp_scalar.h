/*
 * chimp_scalar.h: TsFile CHIMP (Chimp128) decoders, scalar C (format notes 8.8).
 *
 * Words: W = 32 (INT32/DATE, FLOAT bits) or 64 (INT64/TIMESTAMP, DOUBLE bits), carried in uint64_t.
 * Parameters: W=32: 64 previous values (LOG 6), significant-bits field 5 bits;
 *             W=64: 128 previous values (LOG 7), significant-bits field 6 bits.
 * Stream: first value W bits raw; then per value a 2-bit flag:
 *   00: ref(LOG)                                   value = stored[ref]
 *   01: ref(LOG) lead(3) sig(5|6) + sig bits       value = stored[ref] ^ (bits << (W - lead - sig))
 *                                                  (sig 0 means W)
 *   10: (W - stored_lead) bits                     value = last ^ bits
 *   11: lead(3) + (W - lead) bits                  value = last ^ bits; stored_lead = lead
 * Each decoded value goes into the ring stored[]. The page ends with the END value
 * (INT32_MIN / INT64_MIN / canonical NaN bits), which is not a data value.
 *
 * chimp_step() decodes one value from a state; the batch functions run it in a loop on a local
 * copy of the state (kept in registers), chimp_next32/64() are the non-inlined per-value calls.
 */
#ifndef TSFILE_CHIMP_SCALAR_H
#define TSFILE_CHIMP_SCALAR_H

#include "bitreader_msb.h"

#define CHIMP_END_I32 UINT64_C(0x80000000)
#define CHIMP_END_I64 UINT64_C(0x8000000000000000)
#define CHIMP_END_F32 UINT64_C(0x7fc00000)
#define CHIMP_END_F64 UINT64_C(0x7ff8000000000000)

static const int8_t chimp_lead_class[8] = {0, 8, 12, 16, 18, 20, 22, 24};

typedef struct {
    tsf_msb_reader r;
    uint64_t endv;        /* the end-marker word of this type */
    uint64_t last;        /* last decoded value */
    int current;          /* ring position of the last value */
    int lead;             /* stored leading-zero class for flag '10'; -1 = none yet */
    int started;          /* first value read */
    int done;             /* end marker read */
    int stop_at_end;      /* 1: the end value ends the page; 0: it is data (the count is known) */
    uint64_t stored[128]; /* ring of previous values (64 used for W = 32) */
} chimp_state;

static inline void chimp_init(chimp_state *s, const uint8_t *src, size_t len, uint64_t endv)
{
    tsf_msb_init(&s->r, src, len);
    s->endv = endv;
    s->last = 0;
    s->current = 0;
    s->lead = -1;
    s->started = 0;
    s->done = 0;
    s->stop_at_end = 1;
    memset(s->stored, 0, sizeof(s->stored));
}

/* Whether an end-value word just read ends the page. With stop_at_end, always. Otherwise (the
 * count is known) only when it is the stream's last field: its byte, padded, ends the buffer (a
 * stored MIN_VALUE / canonical NaN is followed by more values and the real end marker). */
TSFILE_INLINE int chimp_is_end(const chimp_state *s)
{
    if (s->stop_at_end) return 1;
    return (tsf_msb_bit_pos(&s->r) >> 3) + 1 >= (size_t)(s->r.end - s->r.base);
}

/*
 * Decode one value. Returns 1 (value in *out), 0 at the end marker, or a TSF_E_* code.
 * On error the state is left where the bad field starts, so tsf_msb_byte_pos() is the offset.
 */
TSFILE_INLINE int chimp_step(chimp_state *s, const int W, uint64_t *out)
{
    const int LOG = (W == 64) ? 7 : 6;
    const int PREV = 1 << LOG;
    const int SIGW = (W == 64) ? 6 : 5;
    const uint64_t MASK = (W == 64) ? ~UINT64_C(0) : UINT64_C(0xffffffff);
    tsf_msb_reader *r = &s->r;
    uint64_t v = 0;

    if (TSFILE_UNLIKELY(s->done)) return 0;
    if (TSFILE_UNLIKELY(!s->started)) {
        if (tsf_msb_read(r, W, &v)) return TSF_E_TRUNCATED;
        s->started = 1;
        if (v == s->endv && chimp_is_end(s)) { s->done = 1; return 0; }
        s->last = v;
        s->stored[0] = v;
        s->current = 0;
        *out = v;
        return 1;
    }
    /* The largest header (flag + ref + lead + sig) is 2 + 7 + 3 + 6 = 18 bits. */
    if (TSFILE_UNLIKELY(!tsf_msb_need(r, 2))) return TSF_E_TRUNCATED;
    int flag = (int)(r->buf >> 62);
    switch (flag) {
    case 3: {
        if (TSFILE_UNLIKELY(!tsf_msb_need(r, 5))) return TSF_E_TRUNCATED;
        int lead = chimp_lead_class[(r->buf >> 59) & 7];
        int nb = W - lead;
        if (nb <= 51) {
            if (TSFILE_UNLIKELY(!tsf_msb_need(r, 5 + nb))) return TSF_E_TRUNCATED;
            tsf_msb_take(r, 5);
            v = tsf_msb_take(r, nb);
        } else {
            if (TSFILE_UNLIKELY(tsf_msb_bits_left(r) < (size_t)(5 + nb))) return TSF_E_TRUNCATED;
            tsf_msb_take(r, 5);
            tsf_msb_read(r, nb, &v);
        }
        s->lead = lead;
        v ^= s->last;
        break;
    }
    case 2: {
        if (TSFILE_UNLIKELY(s->lead < 0)) return TSF_E_CORRUPT; /* '10' before any '11' */
        int nb = W - s->lead;
        if (nb <= 54) {
            if (TSFILE_UNLIKELY(!tsf_msb_need(r, 2 + nb))) return TSF_E_TRUNCATED;
            tsf_msb_take(r, 2);
            v = tsf_msb_take(r, nb);
        } else {
            if (TSFILE_UNLIKELY(tsf_msb_bits_left(r) < (size_t)(2 + nb))) return TSF_E_TRUNCATED;
            tsf_msb_take(r, 2);
            tsf_msb_read(r, nb, &v);
        }
        v ^= s->last;
        break;
    }
    case 1: {
        const int HDR = 2 + LOG + 3 + SIGW;
        if (TSFILE_UNLIKELY(!tsf_msb_need(r, HDR))) return TSF_E_TRUNCATED;
        uint64_t h = r->buf >> (64 - HDR);
        int ref = (int)((h >> (3 + SIGW)) & (uint64_t)(PREV - 1));
        int lead = chimp_lead_class[(h >> SIGW) & 7];
        int sig = (int)(h & (uint64_t)((1 << SIGW) - 1));
        if (sig == 0) sig = W;
        int trail = W - lead - sig;
        if (TSFILE_UNLIKELY(trail < 0)) return TSF_E_CORRUPT;
        if (TSFILE_UNLIKELY(tsf_msb_bits_left(r) < (size_t)(HDR + sig))) return TSF_E_TRUNCATED;
        tsf_msb_take(r, HDR);
        tsf_msb_read(r, sig, &v);
        v = trail >= 64 ? 0 : (v << trail);
        v = (v ^ s->stored[ref]) & MASK;
        /* As the official decoder: the class becomes the stored lead (the writer itself resets
         * its lead here, so a valid stream never follows this with '10'). */
        s->lead = lead;
        break;
    }
    default: {
        if (TSFILE_UNLIKELY(!tsf_msb_need(r, 2 + LOG))) return TSF_E_TRUNCATED;
        int ref = (int)(tsf_msb_take(r, 2 + LOG) & (uint64_t)(PREV - 1));
        v = s->stored[ref];
        break;
    }
    }
    if (TSFILE_UNLIKELY(v == s->endv) && chimp_is_end(s)) { s->done = 1; return 0; }
    s->last = v;
    s->current = (s->current + 1) & (PREV - 1);
    s->stored[s->current] = v;
    *out = v;
    return 1;
}

/* Bytes consumed: after the end marker the writer pads its byte, adding a whole 0x00 byte when the
 * marker ended byte-aligned (clamped to the data present); otherwise the bytes touched so far. */
static inline size_t chimp_consumed(const chimp_state *s)
{
    if (s->done) {
        size_t b = (tsf_msb_bit_pos(&s->r) >> 3) + 1;
        size_t len = (size_t)(s->r.end - s->r.base);
        return b < len ? b : len;
    }
    return tsf_msb_byte_pos(&s->r);
}

/* After `cap` values: when the end marker comes next, consume it too (so the bytes consumed cover
 * the whole page); otherwise leave the state as it was. */
static inline void chimp_try_end(chimp_state *s, const int W)
{
    chimp_state probe;
    uint64_t v;
    if (s->done) return;
    memcpy(&probe, s, sizeof(probe));
    probe.stop_at_end = 1;
    if (chimp_step(&probe, W, &v) == 0) {
        probe.stop_at_end = s->stop_at_end;
        memcpy(s, &probe, sizeof(probe));
    }
}

/*
 * Batch decode of a whole page: up to `cap` values into out (uint32_t slots for W = 32, uint64_t
 * for W = 64). With stop_at_end, stops at the end marker or after `cap` values; without it, the
 * end value is data and exactly `cap` values are read (the official readers know each page's
 * value count and decode end-marker values that the writer stored). Returns the number of values
 * written, or a TSF_E_* code; *pos receives the bytes consumed (the end marker included once it
 * was read), or the byte offset of the error.
 */
TSFILE_INLINE int64_t chimp_decode_generic(const uint8_t *src, size_t len, const int W, uint64_t endv,
                                           int stop_at_end, void *out, int64_t cap, size_t *pos)
{
    chimp_state st;
    chimp_init(&st, src, len, endv);
    st.stop_at_end = stop_at_end;
    int64_t n = 0;
    while (n < cap) {
        uint64_t v;
        int rc = chimp_step(&st, W, &v);
        if (rc != 1) {
            if (rc < 0) { *pos = tsf_msb_bit_pos(&st.r) >> 3; return rc; }
            break;
        }
        if (W == 64) ((uint64_t *)out)[n] = v;
        else ((uint32_t *)out)[n] = (uint32_t)v;
        n++;
    }
    chimp_try_end(&st, W);
    *pos = chimp_consumed(&st);
    return n;
}

static int64_t chimp_decode_u32(const uint8_t *src, size_t len, uint64_t endv, int stop_at_end,
                                void *out, int64_t cap, size_t *pos)
{
    return chimp_decode_generic(src, len, 32, endv, stop_at_end, out, cap, pos);
}

static int64_t chimp_decode_u64(const uint8_t *src, size_t len, uint64_t endv, int stop_at_end,
                                void *out, int64_t cap, size_t *pos)
{
    return chimp_decode_generic(src, len, 64, endv, stop_at_end, out, cap, pos);
}

/* Per-value entry points: one value per (non-inlined) call, the streaming baseline. */
#if defined(__GNUC__) || defined(__clang__)
#define CHIMP_NOINLINE __attribute__((noinline))
#else
#define CHIMP_NOINLINE
#endif
static CHIMP_NOINLINE int chimp_next32(chimp_state *s, uint64_t *out) { return chimp_step(s, 32, out); }
static CHIMP_NOINLINE int chimp_next64(chimp_state *s, uint64_t *out) { return chimp_step(s, 64, out); }
static inline void chimp_try_end32(chimp_state *s) { chimp_try_end(s, 32); }
static inline void chimp_try_end64(chimp_state *s) { chimp_try_end(s, 64); }

/* Upper bound of the values a CHIMP page of len bytes can hold (each value after the first takes
 * at least 2 + LOG bits), for sizing the output of a decode-everything call. */
static inline int64_t chimp_max_values(size_t len, int W)
{
    size_t bits = len * 8;
    if (bits < (size_t)W) return 0;
    return 1 + (int64_t)((bits - (size_t)W) / (size_t)(W == 64 ? 9 : 8));
}

#endif /* TSFILE_CHIMP_SCALAR_H */

/* ------------------------------------------------------------------ encoder */

#include <stdlib.h>
#include "bitwriter_msb.h"

/* Bytes enough for n values plus the end value and the final byte. */
static inline size_t chimp_encode_bound(size_t n, int W)
{
    return (n + 1) * (size_t)(W == 64 ? 11 : 6) + 2;
}

TSFILE_INLINE int chimp_lead_code(int lz)
{
    /* the largest class <= lz: classes 0, 8, 12, 16, 18, 20, 22, 24 */
    if (lz >= 24) return 7;
    if (lz >= 22) return 6;
    if (lz >= 20) return 5;
    if (lz >= 18) return 4;
    if (lz >= 16) return 3;
    if (lz >= 12) return 2;
    if (lz >= 8) return 1;
    return 0;
}

TSFILE_INLINE int chimp_clz(uint64_t x, int W) { return x ? __builtin_clzll(x) - (64 - W) : W; }
TSFILE_INLINE int chimp_ctz(uint64_t x, int W) { return x ? __builtin_ctzll(x) : W; }

/*
 * Encode n words (values[i] as uint32_t for W = 32, uint64_t for W = 64) followed by the end
 * value, as the official writers do (format notes 8.8; the index table starts zeroed, like their
 * int array). `out` must hold chimp_encode_bound(n, W) bytes. Returns the size, or -1 when the
 * working memory cannot be allocated.
 */
static ptrdiff_t chimp_encode_generic(const void *values, size_t n, int W, uint64_t endv, uint8_t *out)
{
    const int LOG = (W == 64) ? 7 : 6;
    const int PREV = 1 << LOG;
    const int TH = (W == 64) ? 13 : 11;
    const int SIGW = (W == 64) ? 6 : 5;
    const uint64_t KEYMASK = (UINT64_C(1) << (TH + 1)) - 1;
    uint64_t stored[128];
    int64_t *indices = (int64_t *)calloc((size_t)KEYMASK + 1, sizeof(int64_t));
    if (!indices) return -1;
    tsf_msb_writer w;
    tsf_msbw_init(&w, out);
    int64_t index = 0;
    int current = 0;
    int stored_lead = W + 1;
    for (size_t i = 0; i <= n; i++) {
        uint64_t v = i < n ? (W == 64 ? ((const uint64_t *)values)[i] : ((const uint32_t *)values)[i])
                           : endv;
        if (i == 0) {
            tsf_msbw_put_wide(&w, v, W);
            stored[0] = v;
            indices[v & KEYMASK] = 0;
            continue;
        }
        uint64_t key = v & KEYMASK;
        int64_t cand = indices[key];
        int ref;
        uint64_t x;
        if (index - cand < PREV) {
            uint64_t t = v ^ stored[cand % PREV];
            if (chimp_ctz(t, W) > TH) {
                ref = (int)(cand % PREV);
                x = t;
            } else {
                ref = (int)(index % PREV);
                x = v ^ stored[ref];
            }
        } else {
            ref = (int)(index % PREV);
            x = v ^ stored[ref];
        }
        if (x == 0) {
            tsf_msbw_put(&w, (uint64_t)ref, 2 + LOG); /* '00' + ref */
            stored_lead = W + 1;
        } else if (chimp_ctz(x, W) > TH) {
            int tz = chimp_ctz(x, W);
            int code = chimp_lead_code(chimp_clz(x, W));
            int lz = chimp_lead_class[code];
            int sig = W - lz - tz;
            tsf_msbw_put(&w, ((uint64_t)(PREV + ref) << (3 + SIGW)) | ((uint64_t)code << SIGW) |
                                 (uint64_t)sig, 2 + LOG + 3 + SIGW); /* '01' ref lead sig */
            tsf_msbw_put_wide(&w, x >> tz, sig);
            stored_lead = W + 1;
        } else {
            int code = chimp_lead_code(chimp_clz(x, W));
            int lz = chimp_lead_class[code];
            if (lz == stored_lead) {
                tsf_msbw_put(&w, 2, 2);
            } else {
                tsf_msbw_put(&w, (uint64_t)(0x18 | code), 5); /* '11' + lead code */
                stored_lead = lz;
            }
            tsf_msbw_put_wide(&w, x, W - lz);
        }
        current = (current + 1) % PREV;
        stored[current] = v;
        index++;
        indices[key] = index;
    }
    free(indices);
    return (ptrdiff_t)tsf_msbw_finish(&w, 1);
}
