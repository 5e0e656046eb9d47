/*
 * ts2diff_avx512.h: AVX-512 (F/BW/VL + VBMI) TS_2DIFF block kernels (x86-64; compiled per
 * function with TSFILE_TARGET_AVX512, used only by the "avx512" row of ts2diff_impls.h, which
 * needs TSFILE_NEED_AVX512_VBMI).
 *
 * Decode, per group of 16 deltas (int32, and int64 with narrow widths) or 8 deltas (int64). On
 * Intel cores 512-bit integer work issues on ports 0 and 5 only, shuffles on port 5 only, so the
 * kernels are written to a uop count (per 16 int32 deltas: WINDOW8 10, ALIGNED 12, SHIFTED 14):
 *   unpack   one 64-byte load at the group start (a group of 16 deltas of w <= 32 bits is 2w <= 64
 *            bytes, one of 8 int64 deltas is w <= 64 bytes), one vpermb that puts each delta's bytes
 *            big-endian into its lane (byte reversal and distribution in one cross-lane shuffle,
 *            no gathers), then by layout (see the enum below): nothing more for byte-aligned
 *            widths (the zero-masked vpermb already cut the delta), a per-lane vpsrlv and a mask,
 *            or, for w <= 8, vpmultishiftqb + mask cutting each delta into a byte of a four-delta
 *            window whose sum vpmaddubsw + vpmaddwd take. A 9-byte int64 delta (widths where some
 *            s + w > 64) takes a second vpermb for its ninth byte;
 *   scan     add min_delta, in-register prefix sum over the 512-bit vector (a shift for pairs, then
 *            zero-masked broadcasts of each block's last lane), then add the running carry: the
 *            last value stored, broadcast, so the loop-carried chain is one add and one shuffle per
 *            16 values. int64 deltas whose 16-lane plan fits 32-bit lanes (widths <= 28 except 27;
 *            16 of them sum below 2^32) are unpacked and scanned as int32 and widened, the carry
 *            pre-offset by the multiples of min_delta (one add per 8 values on the chain);
 *   width 0  an arithmetic progression, no unpack and no scan.
 * Groups whose 64-byte load would pass the end of the caller's buffer, and the last deltas of a
 * block (fewer than a group), go through the scalar kernel.
 *
 * Encode: the planning pass (each block's min and max delta) in 16 x int32 / 8 x int64 lanes
 * (AVX-512 has a 64-bit min/max, AVX2 had to compare and blend); the packing is in
 * ts2diff_encode_avx512.h.
 *
 * ts2diff_avx512_init() must run once before the kernels (ts2diff_impls.h's init does it).
 */
#ifndef TS2DIFF_AVX512_H
#define TS2DIFF_AVX512_H

#include "ts2diff_scalar.h"

#if TSFILE_ISA_AVX512

/* How a group's deltas are unpacked (each loop is compiled for one: the stores to `out` could
 * alias the plan as far as the compiler knows, so a test of its fields would stay in the loop). */
enum {
    /* w <= 8, 16 deltas: lane j gets deltas j-3 .. j as four bytes (vpermb, then for w < 8
     * vpmultishiftqb and a mask cut each delta's bits into its byte), vpmaddubsw + vpmaddwd sum
     * them: the first two steps of the prefix sum in two port-0 uops instead of four shuffle and
     * add uops, and the shift and mask of the other layouts folded into the byte cut */
    TS2DIFF_AVX512_WINDOW = 0,
    TS2DIFF_AVX512_WINDOW8 = 1, /* the same for w == 8: the zero-masked vpermb alone */
    TS2DIFF_AVX512_ALIGNED = 2, /* w % 8 == 0: the zero-masked vpermb alone places each delta */
    TS2DIFF_AVX512_SHIFTED = 3, /* vpermb, shift the delta to bit 0, mask */
    TS2DIFF_AVX512_WIDE = 4,    /* int32 widths 27, 29..31: 64-bit lanes, then narrowed */
    TS2DIFF_AVX512_SPLIT = 5    /* int64 widths 59, 61..63: a ninth byte OR'd in */
};

/* The unpack plan of one width: vpermb indices and per-lane shifts. */
typedef struct {
    /* 16-delta plans: idx[0] (16 deltas in 32-bit lanes) or, WIDE, 64-bit lanes: idx[0] for
     * deltas 0-7 and idx[1] for 8-15. 8-delta int64 plans: idx[0] for deltas 0-7 and idx[1] for
     * their ninth bytes (SPLIT). WINDOW: idx[0] fills each qword with the bytes of the deltas its
     * eight window bytes take (big-endian), or for w == 8 the window bytes themselves. */
    __attribute__((aligned(64))) uint8_t idx[2][64];
    __attribute__((aligned(64))) uint32_t shr32[16]; /* SHIFTED: 32 - s - w (delta to bit 0) */
    __attribute__((aligned(64))) uint64_t shl64[2][8];
    __attribute__((aligned(64))) uint64_t shr64[8]; /* SPLIT: 8 - s (the ninth byte's shift) */
    /* WINDOW, w < 8: the vpmultishiftqb bit offset of each window byte's delta, and the byte
     * masks (w bits; 0 for the window bytes before the group's first delta) */
    __attribute__((aligned(64))) uint8_t win_shift[64];
    __attribute__((aligned(64))) uint8_t win_mask[64];
    /* ALIGNED, and WINDOW with w == 8: the bytes vpermb keeps, the others zeroed */
    __mmask64 keep;
    int layout;
} ts2diff_avx512_plan;

static ts2diff_avx512_plan ts2diff_avx512_plan16[33]; /* 16 deltas of width 1..32 */
static ts2diff_avx512_plan ts2diff_avx512_plan8[65];  /* 8 int64 deltas of width 1..64 */

/* Index of byte `b` of the 64-byte group window. Bytes past the window are only ever those below
 * a delta's lowest bit (cut by the final shift or mask), so clamping them is harmless. */
static inline uint8_t ts2diff_avx512_byte(int b) { return (uint8_t)(b < 63 ? b : 63); }

/* Put the `nbytes` bytes at bit `lb` big-endian into lane `lane` (of `nbytes` bytes) of idx. */
static inline void ts2diff_avx512_lane(uint8_t *idx, int lane, int nbytes, int lb)
{
    for (int t = 0; t < nbytes; t++)
        idx[nbytes * lane + nbytes - 1 - t] = ts2diff_avx512_byte((lb >> 3) + t);
}

/* ALIGNED: each lane (of `lane_bytes` bytes) takes its delta's w / 8 bytes, reversed into the
 * lane's low bytes. */
static void ts2diff_avx512_aligned_init(ts2diff_avx512_plan *pl, int w, int lanes, int lane_bytes)
{
    const int nb = w / 8;
    pl->layout = TS2DIFF_AVX512_ALIGNED;
    pl->keep = 0;
    for (int j = 0; j < lanes; j++)
        for (int t = 0; t < lane_bytes; t++) {
            const int pos = lane_bytes * j + t;
            pl->idx[0][pos] = t < nb ? ts2diff_avx512_byte(j * nb + nb - 1 - t) : 0;
            if (t < nb) pl->keep |= (__mmask64)1 << pos;
        }
}

/* WINDOW (w <= 8): byte t of lane j holds delta j - 3 + t (0 when that is before the group).
 * Qword q (lanes 2q, 2q+1) needs deltas 2q-3 .. 2q+1: at most 5 * 7 + 7 = 42 bits from the byte
 * holding the first of them, so eight bytes from there, big-endian, hold all five, and
 * vpmultishiftqb cuts each out of that qword at bit 64 - (its offset from the first byte) - w. */
static void ts2diff_avx512_window_init(ts2diff_avx512_plan *pl, int w)
{
    pl->layout = w == 8 ? TS2DIFF_AVX512_WINDOW8 : TS2DIFF_AVX512_WINDOW;
    pl->keep = 0;
    for (int q = 0; q < 8; q++) {
        const int d0 = 2 * q - 3 < 0 ? 0 : 2 * q - 3, fb = d0 * w / 8;
        for (int t = 0; t < 8; t++) {
            const int pos = 8 * q + t, d = 2 * q - 3 + (t & 3) + (t >> 2); /* lane 2q + t / 4 */
            if (w == 8) {
                pl->idx[0][pos] = (uint8_t)(d < 0 ? 0 : d);
            } else {
                pl->idx[0][pos] = ts2diff_avx512_byte(fb + 7 - t);
                pl->win_shift[pos] = (uint8_t)(d < 0 ? 0 : 64 - (d * w - 8 * fb) - w);
                pl->win_mask[pos] = (uint8_t)(d < 0 ? 0 : (1u << w) - 1);
            }
            if (w == 8 ? d >= 0 : 1) pl->keep |= (__mmask64)1 << pos;
        }
    }
}

static void ts2diff_avx512_plan16_init(ts2diff_avx512_plan *pl, int w)
{
    memset(pl, 0, sizeof *pl);
    int lanes32 = 1;
    for (int j = 0; j < 16; j++)
        if (((j * w) & 7) + w > 32) lanes32 = 0;
    pl->layout = lanes32 ? TS2DIFF_AVX512_SHIFTED : TS2DIFF_AVX512_WIDE;
    for (int j = 0; j < 16; j++) {
        const int lb = j * w;
        if (lanes32) {
            ts2diff_avx512_lane(pl->idx[0], j, 4, lb);
            pl->shr32[j] = (uint32_t)(32 - (lb & 7) - w);
        } else {
            ts2diff_avx512_lane(pl->idx[j / 8], j % 8, 8, lb);
            pl->shl64[j / 8][j % 8] = (uint64_t)(lb & 7);
        }
    }
    if (w <= 8) ts2diff_avx512_window_init(pl, w);
    else if (w % 8 == 0) ts2diff_avx512_aligned_init(pl, w, 16, 4);
}

static void ts2diff_avx512_plan8_init(ts2diff_avx512_plan *pl, int w)
{
    memset(pl, 0, sizeof *pl);
    pl->layout = TS2DIFF_AVX512_SHIFTED;
    for (int j = 0; j < 8; j++) {
        const int lb = j * w, s = lb & 7;
        ts2diff_avx512_lane(pl->idx[0], j, 8, lb);
        pl->shl64[0][j] = (uint64_t)s;
        pl->idx[1][8 * j] = ts2diff_avx512_byte((lb >> 3) + 8); /* other bytes are masked to 0 */
        pl->shr64[j] = (uint64_t)(8 - s);                       /* s == 0: the byte shifts out */
        if (s + w > 64) pl->layout = TS2DIFF_AVX512_SPLIT;
    }
    if (w % 8 == 0) ts2diff_avx512_aligned_init(pl, w, 8, 8);
}

static void ts2diff_avx512_init(void)
{
    for (int w = 1; w <= 32; w++) ts2diff_avx512_plan16_init(&ts2diff_avx512_plan16[w], w);
    for (int w = 1; w <= 64; w++) ts2diff_avx512_plan8_init(&ts2diff_avx512_plan8[w], w);
}

#define TS2DIFF_AVX512_INLINE TSFILE_TARGET_AVX512 TSFILE_INLINE

/* Whole groups (of nd deltas, `per` deltas and `stride` bytes each) whose 64-byte loads stay
 * inside [packed, end). Inside a buffer every group fits (the next block's bytes follow), so the
 * division is left to a block near the buffer's end. */
TSFILE_INLINE size_t ts2diff_avx512_groups(const uint8_t *packed, const uint8_t *end, size_t nd,
                                           size_t per, size_t stride)
{
    const size_t avail = (size_t)(end - packed), ng = nd / per;
    if (ng == 0 || (ng - 1) * stride + 64 <= avail) return ng;
    const size_t gmax = avail >= 64 ? (avail - 64) / stride + 1 : 0;
    return ng < gmax ? ng : gmax;
}

/* Inclusive prefix sum of 16 x int32. Steps by block size, not by distance: pairs by a shift
 * inside each qword (port 0, not the shuffle port, which the unpack and the carry already load),
 * then each lane adds the last lane of the block before its own (blocks of 2, 4, 8) by a
 * zero-masked in-lane or cross-lane broadcast. */
TS2DIFF_AVX512_INLINE __m512i ts2diff_avx512_scan32(__m512i x, __m512i last4, __m512i last8)
{
    x = _mm512_add_epi32(x, _mm512_slli_epi64(x, 32));
    x = _mm512_add_epi32(x, _mm512_maskz_shuffle_epi32(0xCCCC, x, _MM_PERM_BBBB));
    x = _mm512_add_epi32(x, _mm512_maskz_permutexvar_epi32(0xF0F0, last4, x));
    return _mm512_add_epi32(x, _mm512_maskz_permutexvar_epi32(0xFF00, last8, x));
}

/* The index vectors scan32 takes: lane 3 of each 8-lane half, and lane 7 */
#define TS2DIFF_AVX512_SCAN32_IDX                                                                  \
    const __m512i last4 = _mm512_setr_epi32(0, 0, 0, 0, 3, 3, 3, 3, 0, 0, 0, 0, 11, 11, 11, 11);   \
    const __m512i last8 = _mm512_set1_epi32(7);

TS2DIFF_AVX512_INLINE __m512i ts2diff_avx512_scan64(__m512i x)
{
    const __m512i z = _mm512_setzero_si512();
    x = _mm512_add_epi64(x, _mm512_alignr_epi64(x, z, 7));
    x = _mm512_add_epi64(x, _mm512_alignr_epi64(x, z, 6));
    return _mm512_add_epi64(x, _mm512_alignr_epi64(x, z, 4));
}

/* {m, 2m, ..., 8m} (wrapping): a scan of the broadcast, cheaper in a block's prologue than eight
 * scalar multiplies and inserts (vpmullq would need AVX-512DQ). */
TS2DIFF_AVX512_INLINE __m512i ts2diff_avx512_multiples64(uint64_t m)
{
    return ts2diff_avx512_scan64(_mm512_set1_epi64((long long)m));
}

/* A 16-delta plan in registers (loaded once per block). `pre` is added to the unpacked deltas
 * before the scan: min_delta in each lane (int32), 0 (int64: the carry holds the multiples of
 * min_delta), and for WINDOW, whose first scan steps come with the unpack, min_delta times the
 * number of deltas each lane's window holds (1, 2, 3, then 4). */
typedef struct {
    __m512i i0, i1, shr, mask, s0, s1, cnt64, win_shift, win_mask, pre;
    __mmask64 keep;
} ts2diff_avx512_regs16;

TS2DIFF_AVX512_INLINE ts2diff_avx512_regs16 ts2diff_avx512_load16(const ts2diff_avx512_plan *pl,
                                                                  int w, uint32_t min)
{
    ts2diff_avx512_regs16 r;
    r.i0 = _mm512_load_si512((const void *)pl->idx[0]);
    r.i1 = _mm512_load_si512((const void *)pl->idx[1]);
    r.shr = _mm512_load_si512((const void *)pl->shr32);
    r.mask = _mm512_set1_epi32((int)((UINT64_C(1) << w) - 1));
    r.s0 = _mm512_load_si512((const void *)pl->shl64[0]);
    r.s1 = _mm512_load_si512((const void *)pl->shl64[1]);
    r.cnt64 = _mm512_set1_epi64(64 - w);
    r.win_shift = _mm512_load_si512((const void *)pl->win_shift);
    r.win_mask = _mm512_load_si512((const void *)pl->win_mask);
    r.keep = pl->keep;
    r.pre = pl->layout <= TS2DIFF_AVX512_WINDOW8 /* WINDOW or WINDOW8 */
                ? _mm512_mullo_epi32(_mm512_setr_epi32(1, 2, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4),
                                     _mm512_set1_epi32((int)min))
                : _mm512_set1_epi32((int)min);
    return r;
}

/* The inclusive prefix sum of the 16 deltas of one group (its 64 bytes loaded), with `pre` added
 * to each before the sum if add_pre (a constant at each call). */
TS2DIFF_AVX512_INLINE __m512i ts2diff_avx512_group16(__m512i raw, const int layout,
                                                     const ts2diff_avx512_regs16 *r,
                                                     const int add_pre)
{
    TS2DIFF_AVX512_SCAN32_IDX
    const __m512i z = _mm512_setzero_si512();
    __m512i x;
    switch (layout) {
    case TS2DIFF_AVX512_WINDOW:
    case TS2DIFF_AVX512_WINDOW8: {
        __m512i b = _mm512_maskz_permutexvar_epi8(r->keep, r->i0, raw);
        if (layout == TS2DIFF_AVX512_WINDOW)
            b = _mm512_and_si512(_mm512_multishift_epi64_epi8(r->win_shift, b), r->win_mask);
        x = _mm512_madd_epi16(_mm512_maddubs_epi16(b, _mm512_set1_epi8(1)), _mm512_set1_epi16(1));
        if (add_pre) x = _mm512_add_epi32(x, r->pre);
        x = _mm512_add_epi32(x, _mm512_alignr_epi32(x, z, 12));
        return _mm512_add_epi32(x, _mm512_alignr_epi32(x, z, 8));
    }
    case TS2DIFF_AVX512_ALIGNED:
        x = _mm512_maskz_permutexvar_epi8(r->keep, r->i0, raw);
        break;
    case TS2DIFF_AVX512_SHIFTED:
        x = _mm512_and_si512(_mm512_srlv_epi32(_mm512_permutexvar_epi8(r->i0, raw), r->shr),
                             r->mask);
        break;
    default: { /* WIDE: a delta can span 5 bytes: 64-bit lanes, then narrow */
        const __m512i a = _mm512_srlv_epi64(
            _mm512_sllv_epi64(_mm512_permutexvar_epi8(r->i0, raw), r->s0), r->cnt64);
        const __m512i b = _mm512_srlv_epi64(
            _mm512_sllv_epi64(_mm512_permutexvar_epi8(r->i1, raw), r->s1), r->cnt64);
        x = _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi64_epi32(a)),
                               _mm512_cvtepi64_epi32(b), 1);
    }
    }
    if (add_pre) x = _mm512_add_epi32(x, r->pre);
    return ts2diff_avx512_scan32(x, last4, last8);
}

/* Groups 0 .. ng-1 of 16 int32 deltas (out[1 .. 16 ng]) in one layout. */
TS2DIFF_AVX512_INLINE void ts2diff_avx512_i32_groups(const uint8_t *packed, int w, size_t ng,
                                                     const ts2diff_avx512_plan *pl,
                                                     const int layout, uint32_t min,
                                                     uint32_t first, int32_t *out)
{
    const ts2diff_avx512_regs16 r = ts2diff_avx512_load16(pl, w, min);
    const __m512i last = _mm512_set1_epi32(15);
    __m512i carry = _mm512_set1_epi32((int)first);
    for (size_t g = 0; g < ng; g++) {
        const __m512i raw = _mm512_loadu_si512((const void *)(packed + 2 * (size_t)w * g));
        /* The carry is the broadcast last value stored: one add and one shuffle per 16 values
         * on the loop-carried chain (4 cycles, below the loop's throughput), one uop fewer than
         * broadcasting the local total and adding it. */
        const __m512i o = _mm512_add_epi32(ts2diff_avx512_group16(raw, layout, &r, 1), carry);
        _mm512_storeu_si512((void *)(out + 1 + 16 * g), o);
        carry = _mm512_permutexvar_epi32(last, o);
    }
}

static TSFILE_TARGET_AVX512 void ts2diff_decode_i32_avx512(const uint8_t *packed,
                                                           const uint8_t *end, int w, uint32_t min,
                                                           uint32_t first, int32_t *out, size_t nd)
{
    out[0] = (int32_t)first;
    size_t done = 0;
    if (w == 0) {
        const __m512i step = _mm512_set1_epi32((int)(min * 16));
        __m512i v = _mm512_mullo_epi32(
            _mm512_setr_epi32(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16),
            _mm512_set1_epi32((int)min));
        v = _mm512_add_epi32(v, _mm512_set1_epi32((int)first));
        for (; done + 16 <= nd; done += 16) {
            _mm512_storeu_si512((void *)(out + 1 + done), v);
            v = _mm512_add_epi32(v, step);
        }
    } else {
        const ts2diff_avx512_plan *pl = &ts2diff_avx512_plan16[w];
        const size_t ng = ts2diff_avx512_groups(packed, end, nd, 16, 2 * (size_t)w);
        switch (pl->layout) {
        case TS2DIFF_AVX512_WINDOW:
            ts2diff_avx512_i32_groups(packed, w, ng, pl, TS2DIFF_AVX512_WINDOW, min, first, out);
            break;
        case TS2DIFF_AVX512_WINDOW8:
            ts2diff_avx512_i32_groups(packed, w, ng, pl, TS2DIFF_AVX512_WINDOW8, min, first, out);
            break;
        case TS2DIFF_AVX512_ALIGNED:
            ts2diff_avx512_i32_groups(packed, w, ng, pl, TS2DIFF_AVX512_ALIGNED, min, first, out);
            break;
        case TS2DIFF_AVX512_SHIFTED:
            ts2diff_avx512_i32_groups(packed, w, ng, pl, TS2DIFF_AVX512_SHIFTED, min, first, out);
            break;
        default:
            ts2diff_avx512_i32_groups(packed, w, ng, pl, TS2DIFF_AVX512_WIDE, min, first, out);
        }
        done = ng * 16;
    }
    if (done < nd) ts2diff_run_u32(packed, end, w, min, (uint32_t)out[done], out, done, nd);
}

/* int64 deltas of widths <= 28 whose 16-delta plan is not WIDE (16 of them sum below 2^32):
 * unpacked and scanned 16 at a time in 32-bit lanes, widened, and added to the running carry,
 * kept pre-offset by the multiples of min_delta. */
TS2DIFF_AVX512_INLINE void ts2diff_avx512_i64_narrow_groups(const uint8_t *packed, int w,
                                                            size_t ng,
                                                            const ts2diff_avx512_plan *pl,
                                                            const int layout, uint64_t min,
                                                            uint64_t first, int64_t *out)
{
    const ts2diff_avx512_regs16 r = ts2diff_avx512_load16(pl, w, 0);
    const __m512i mlo = ts2diff_avx512_multiples64(min);
    const __m512i mhi = _mm512_add_epi64(mlo, _mm512_set1_epi64((long long)(8 * min)));
    const __m512i min16 = _mm512_set1_epi64((long long)(16 * min));
    const __m512i f = _mm512_set1_epi64((long long)first);
    /* dword k of x zero-extended into qword k - 8 (odd dwords zeroed by the mask), and dword
     * 15 into every qword: one shuffle each instead of extract + vpmovzxdq */
    const __m512i hi_idx = _mm512_setr_epi32(8, 0, 9, 0, 10, 0, 11, 0, 12, 0, 13, 0, 14, 0, 15, 0);
    const __m512i last_idx = _mm512_set1_epi32(15);
    const __mmask16 even = 0x5555;
    __m512i ka = _mm512_add_epi64(f, mlo), kb = _mm512_add_epi64(f, mhi);
    for (size_t g = 0; g < ng; g++) {
        const __m512i raw = _mm512_loadu_si512((const void *)(packed + 2 * (size_t)w * g));
        const __m512i x = ts2diff_avx512_group16(raw, layout, &r, 0);
        const __m512i lo = _mm512_cvtepu32_epi64(_mm512_castsi512_si256(x));
        const __m512i hi = _mm512_maskz_permutexvar_epi32(even, hi_idx, x);
        const __m512i step =
            _mm512_add_epi64(_mm512_maskz_permutexvar_epi32(even, last_idx, x), min16);
        _mm512_storeu_si512((void *)(out + 1 + 16 * g), _mm512_add_epi64(lo, ka));
        _mm512_storeu_si512((void *)(out + 9 + 16 * g), _mm512_add_epi64(hi, kb));
        ka = _mm512_add_epi64(ka, step); /* the carry chain: one add per 8 values */
        kb = _mm512_add_epi64(kb, step);
    }
}

/* 8 int64 deltas per group (64-bit lanes), layout ALIGNED, SHIFTED or SPLIT. */
TS2DIFF_AVX512_INLINE void ts2diff_avx512_i64_groups(const uint8_t *packed, int w, size_t ng,
                                                     const ts2diff_avx512_plan *pl,
                                                     const int layout, uint64_t min,
                                                     uint64_t first, int64_t *out)
{
    const __mmask64 keep = pl->keep;
    const __m512i i0 = _mm512_load_si512((const void *)pl->idx[0]);
    const __m512i i9 = _mm512_load_si512((const void *)pl->idx[1]);
    const __m512i s0 = _mm512_load_si512((const void *)pl->shl64[0]);
    const __m512i r9 = _mm512_load_si512((const void *)pl->shr64);
    const __m512i cnt = _mm512_set1_epi64(64 - w);
    const __m512i last = _mm512_set1_epi64(7), min8 = _mm512_set1_epi64((long long)(8 * min));
    const __mmask64 low_bytes = 0x0101010101010101ull;
    /* min_delta folded into the carry: lane j holds first + (j + 1) * min */
    __m512i carry =
        _mm512_add_epi64(ts2diff_avx512_multiples64(min), _mm512_set1_epi64((long long)first));
    for (size_t g = 0; g < ng; g++) {
        const __m512i raw = _mm512_loadu_si512((const void *)(packed + (size_t)w * g));
        __m512i x;
        if (layout == TS2DIFF_AVX512_ALIGNED) {
            x = _mm512_maskz_permutexvar_epi8(keep, i0, raw);
        } else {
            x = _mm512_sllv_epi64(_mm512_permutexvar_epi8(i0, raw), s0);
            if (layout == TS2DIFF_AVX512_SPLIT) /* OR in the top bits of the ninth byte */
                x = _mm512_or_si512(
                    x, _mm512_srlv_epi64(_mm512_maskz_permutexvar_epi8(low_bytes, i9, raw), r9));
            x = _mm512_srlv_epi64(x, cnt);
        }
        x = ts2diff_avx512_scan64(x);
        const __m512i t = _mm512_add_epi64(_mm512_permutexvar_epi64(last, x), min8);
        _mm512_storeu_si512((void *)(out + 1 + 8 * g), _mm512_add_epi64(x, carry));
        carry = _mm512_add_epi64(carry, t);
    }
}

static TSFILE_TARGET_AVX512 void ts2diff_decode_i64_avx512(const uint8_t *packed,
                                                           const uint8_t *end, int w, uint64_t min,
                                                           uint64_t first, int64_t *out, size_t nd)
{
    out[0] = (int64_t)first;
    size_t done = 0;
    if (w == 0) {
        const __m512i step = _mm512_set1_epi64((long long)(min * 8));
        __m512i v = _mm512_add_epi64(ts2diff_avx512_multiples64(min),
                                     _mm512_set1_epi64((long long)first));
        for (; done + 8 <= nd; done += 8) {
            _mm512_storeu_si512((void *)(out + 1 + done), v);
            v = _mm512_add_epi64(v, step);
        }
    } else if (w <= 28 && ts2diff_avx512_plan16[w].layout != TS2DIFF_AVX512_WIDE) {
        const ts2diff_avx512_plan *pl = &ts2diff_avx512_plan16[w];
        const size_t ng = ts2diff_avx512_groups(packed, end, nd, 16, 2 * (size_t)w);
        switch (pl->layout) {
        case TS2DIFF_AVX512_WINDOW:
            ts2diff_avx512_i64_narrow_groups(packed, w, ng, pl, TS2DIFF_AVX512_WINDOW, min, first,
                                             out);
            break;
        case TS2DIFF_AVX512_WINDOW8:
            ts2diff_avx512_i64_narrow_groups(packed, w, ng, pl, TS2DIFF_AVX512_WINDOW8, min,
                                             first, out);
            break;
        case TS2DIFF_AVX512_ALIGNED:
            ts2diff_avx512_i64_narrow_groups(packed, w, ng, pl, TS2DIFF_AVX512_ALIGNED, min,
                                             first, out);
            break;
        default:
            ts2diff_avx512_i64_narrow_groups(packed, w, ng, pl, TS2DIFF_AVX512_SHIFTED, min,
                                             first, out);
        }
        done = ng * 16;
    } else {
        const ts2diff_avx512_plan *pl = &ts2diff_avx512_plan8[w];
        const size_t ng = ts2diff_avx512_groups(packed, end, nd, 8, (size_t)w);
        switch (pl->layout) {
        case TS2DIFF_AVX512_ALIGNED:
            ts2diff_avx512_i64_groups(packed, w, ng, pl, TS2DIFF_AVX512_ALIGNED, min, first, out);
            break;
        case TS2DIFF_AVX512_SPLIT:
            ts2diff_avx512_i64_groups(packed, w, ng, pl, TS2DIFF_AVX512_SPLIT, min, first, out);
            break;
        default:
            ts2diff_avx512_i64_groups(packed, w, ng, pl, TS2DIFF_AVX512_SHIFTED, min, first, out);
        }
        done = ng * 8;
    }
    if (done < nd) ts2diff_run_u64(packed, end, w, min, (uint64_t)out[done], out, done, nd);
}

/* ---- encoder: a block's min and max delta (the planning pass of encode) ------------------------ */

/* TS2DIFF_DEFINE_STATS_SIMD's operations on AVX-512 (horizontal min / max per lane type). */
#define TS2DIFF_AVX512_LOAD(p) _mm512_loadu_si512((const void *)(p))
#define TS2DIFF_AVX512_REDUCE_EPI32(T, LANES, lo, hi, dmin, dmax)                                  \
    (dmin = _mm512_reduce_min_epi32(lo), dmax = _mm512_reduce_max_epi32(hi))
#define TS2DIFF_AVX512_REDUCE_EPI64(T, LANES, lo, hi, dmin, dmax)                                  \
    (dmin = _mm512_reduce_min_epi64(lo), dmax = _mm512_reduce_max_epi64(hi))

TS2DIFF_DEFINE_STATS_SIMD(ts2diff_stats_i32_avx512, static TSFILE_TARGET_AVX512, int32_t,
                          uint32_t, __m512i, 16, _mm512_set1_epi32, TS2DIFF_AVX512_LOAD,
                          _mm512_sub_epi32, _mm512_min_epi32, _mm512_max_epi32,
                          TS2DIFF_AVX512_REDUCE_EPI32)
TS2DIFF_DEFINE_STATS_SIMD(ts2diff_stats_i64_avx512, static TSFILE_TARGET_AVX512, int64_t,
                          uint64_t, __m512i, 8, _mm512_set1_epi64, TS2DIFF_AVX512_LOAD,
                          _mm512_sub_epi64, _mm512_min_epi64, _mm512_max_epi64,
                          TS2DIFF_AVX512_REDUCE_EPI64)

TS2DIFF_DEFINE_PLAN(static TSFILE_TARGET_AVX512, ts2diff_plan_i64_avx512, int64_t, 24,
                    ts2diff_stats_i64_avx512)
TS2DIFF_DEFINE_PLAN(static TSFILE_TARGET_AVX512, ts2diff_plan_i32_avx512, int32_t, 16,
                    ts2diff_stats_i32_avx512)

#endif /* TSFILE_ISA_AVX512 */
#endif /* TS2DIFF_AVX512_H */
