/*
 * ts2diff_avx512.h: AVX-512 (F/BW/VL + VBMI) TS_2DIFF block kernels (x86-64; compiled per
 * function with TSFILE_TARGET_AVX512, used only by the "avx512" row of ts2diff_impls.h, which
 * needs TSFILE_NEED_AVX512_VBMI).
 *
 * Decode, per group of 16 deltas (int32, and int64 with narrow widths) or 8 deltas (int64):
 *   unpack   one 64-byte load at the group start (a group of 16 deltas of w <= 32 bits is 2w <= 64
 *            bytes, one of 8 int64 deltas is w <= 64 bytes), one vpermb that puts each delta's bytes
 *            big-endian into its lane (byte reversal and distribution in one cross-lane shuffle,
 *            no gathers), vpsllv + vpsrl to align and cut. A 9-byte int64 delta (widths where some
 *            s + w > 64) takes a second vpermb for its ninth byte;
 *   scan     add min_delta, in-register log-step prefix sum over the 512-bit vector (valign),
 *            then add the running carry. The carry chain is broken as in the AVX2 kernel: the
 *            group's total is broadcast from the local scan, so the loop-carried dependency is one
 *            vector add per 16 (int32) or 8 (int64) values. int64 deltas whose 16-lane plan fits
 *            32-bit lanes (widths <= 26 and 28; 16 of them sum below 2^32) are unpacked and
 *            scanned as int32 and widened;
 *   width 0  an arithmetic progression, no unpack and no scan.
 * Groups whose 64-byte load would pass the end of the caller's buffer, and the last deltas of a
 * block (fewer than a group), go through the scalar kernel.
 *
 * Encode: the planning pass (each block's min and max delta) in 16 x int32 / 8 x int64 lanes
 * (AVX-512 has a 64-bit min/max, AVX2 had to compare and blend); the packing is shared scalar code.
 *
 * ts2diff_avx512_init() must run once before the kernels (ts2diff_impls.h's init does it).
 */
#ifndef TS2DIFF_AVX512_H
#define TS2DIFF_AVX512_H

#include "ts2diff_scalar.h"

#if TSFILE_ISA_AVX512

/* The unpack plan of one width: vpermb indices and per-lane shifts. */
typedef struct {
    /* lanes32: idx[0] (16 deltas in 32-bit lanes). Otherwise 64-bit lanes: int32 plans use
     * idx[0] for deltas 0-7 and idx[1] for 8-15; int64 plans idx[0] for deltas 0-7 and idx[1] for
     * their ninth bytes (split widths). */
    __attribute__((aligned(64))) uint8_t idx[2][64];
    __attribute__((aligned(64))) uint32_t shl32[16];
    __attribute__((aligned(64))) uint64_t shl64[2][8];
    __attribute__((aligned(64))) uint64_t shr64[8]; /* split: 8 - s (the ninth byte's shift) */
    int lanes32; /* 16-delta plans: every delta fits a 32-bit lane (s + w <= 32) */
    int split;   /* 8-delta int64 plans: some delta spans nine bytes (s + w > 64) */
} ts2diff_avx512_plan;

static ts2diff_avx512_plan ts2diff_avx512_plan16[33]; /* 16 deltas of width 1..32 */
static ts2diff_avx512_plan ts2diff_avx512_plan8[65];  /* 8 int64 deltas of width 1..64 */

/* Index of byte `b` of the 64-byte group window. Bytes past the window are only ever those below
 * a delta's lowest bit (cut by the final shift), so clamping them is harmless. */
static inline uint8_t ts2diff_avx512_byte(int b) { return (uint8_t)(b < 63 ? b : 63); }

/* Put the `nbytes` bytes at bit `lb` big-endian into lane `lane` (of `nbytes` bytes) of idx. */
static inline void ts2diff_avx512_lane(uint8_t *idx, int lane, int nbytes, int lb)
{
    for (int t = 0; t < nbytes; t++)
        idx[nbytes * lane + nbytes - 1 - t] = ts2diff_avx512_byte((lb >> 3) + t);
}

static void ts2diff_avx512_plan16_init(ts2diff_avx512_plan *pl, int w)
{
    memset(pl, 0, sizeof *pl);
    pl->lanes32 = 1;
    for (int j = 0; j < 16; j++)
        if (((j * w) & 7) + w > 32) pl->lanes32 = 0;
    for (int j = 0; j < 16; j++) {
        const int lb = j * w;
        if (pl->lanes32) {
            ts2diff_avx512_lane(pl->idx[0], j, 4, lb);
            pl->shl32[j] = (uint32_t)(lb & 7);
        } else {
            ts2diff_avx512_lane(pl->idx[j / 8], j % 8, 8, lb);
            pl->shl64[j / 8][j % 8] = (uint64_t)(lb & 7);
        }
    }
}

static void ts2diff_avx512_plan8_init(ts2diff_avx512_plan *pl, int w)
{
    memset(pl, 0, sizeof *pl);
    for (int j = 0; j < 8; j++) {
        const int lb = j * w, s = lb & 7;
        ts2diff_avx512_lane(pl->idx[0], j, 8, lb);
        pl->shl64[0][j] = (uint64_t)s;
        pl->idx[1][8 * j] = ts2diff_avx512_byte((lb >> 3) + 8); /* other bytes are masked to 0 */
        pl->shr64[j] = (uint64_t)(8 - s);                       /* s == 0: the byte shifts out */
        if (s + w > 64) pl->split = 1;
    }
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

/* Inclusive prefix sum of 16 x int32 / 8 x int64. */
TS2DIFF_AVX512_INLINE __m512i ts2diff_avx512_scan32(__m512i x)
{
    const __m512i z = _mm512_setzero_si512();
    x = _mm512_add_epi32(x, _mm512_alignr_epi32(x, z, 15));
    x = _mm512_add_epi32(x, _mm512_alignr_epi32(x, z, 14));
    x = _mm512_add_epi32(x, _mm512_alignr_epi32(x, z, 12));
    return _mm512_add_epi32(x, _mm512_alignr_epi32(x, z, 8));
}

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

/* Groups 0 .. ng-1 of 16 int32 deltas (out[1 .. 16 ng]); lanes32 is pl->lanes32, a constant at
 * each call. */
TS2DIFF_AVX512_INLINE void ts2diff_avx512_i32_groups(const uint8_t *packed, int w, size_t ng,
                                                     const ts2diff_avx512_plan *pl,
                                                     const int lanes32, uint32_t min,
                                                     uint32_t first, int32_t *out)
{
    /* the plan in registers */
    const __m512i i0 = _mm512_load_si512((const void *)pl->idx[0]);
    const __m512i i1 = _mm512_load_si512((const void *)pl->idx[1]);
    const __m512i s0 = lanes32 ? _mm512_load_si512((const void *)pl->shl32)
                               : _mm512_load_si512((const void *)pl->shl64[0]);
    const __m512i s1 = _mm512_load_si512((const void *)pl->shl64[1]);
    const __m128i cnt32 = _mm_cvtsi32_si128(32 - w), cnt64 = _mm_cvtsi32_si128(64 - w);
    const __m512i last = _mm512_set1_epi32(15), minv = _mm512_set1_epi32((int)min);
    __m512i carry = _mm512_set1_epi32((int)first);
    for (size_t g = 0; g < ng; g++) {
        const __m512i raw = _mm512_loadu_si512((const void *)(packed + 2 * (size_t)w * g));
        __m512i x;
        if (lanes32) {
            x = _mm512_srl_epi32(_mm512_sllv_epi32(_mm512_permutexvar_epi8(i0, raw), s0), cnt32);
        } else { /* widths 27, 29..31: a delta can span 5 bytes; 64-bit lanes, then narrow */
            const __m512i a =
                _mm512_srl_epi64(_mm512_sllv_epi64(_mm512_permutexvar_epi8(i0, raw), s0), cnt64);
            const __m512i b =
                _mm512_srl_epi64(_mm512_sllv_epi64(_mm512_permutexvar_epi8(i1, raw), s1), cnt64);
            x = _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi64_epi32(a)),
                                   _mm512_cvtepi64_epi32(b), 1);
        }
        /* The carry is the broadcast last value stored: one add and one shuffle per 16 values
         * on the loop-carried chain (4 cycles, below the loop's throughput), one uop fewer than
         * broadcasting the local total and adding it. */
        const __m512i o = _mm512_add_epi32(ts2diff_avx512_scan32(_mm512_add_epi32(x, minv)), carry);
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
        /* one loop per layout (lanes32 a constant inside): the stores to `out` could alias the
         * plan as far as the compiler knows, so a test of pl->lanes32 would stay in the loop */
        if (pl->lanes32) ts2diff_avx512_i32_groups(packed, w, ng, pl, 1, min, first, out);
        else ts2diff_avx512_i32_groups(packed, w, ng, pl, 0, min, first, out);
        done = ng * 16;
    }
    if (done < nd) ts2diff_run_u32(packed, end, w, min, (uint32_t)out[done], out, done, nd);
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
    } else if (w <= 28 && ts2diff_avx512_plan16[w].lanes32) {
        /* Narrow deltas: unpack and scan 16 at a time in 32-bit lanes (16 deltas below 2^28 sum
         * below 2^32), widen, and add the running carry, kept pre-offset by the multiples of
         * min_delta. */
        const ts2diff_avx512_plan *pl = &ts2diff_avx512_plan16[w];
        const size_t ng = ts2diff_avx512_groups(packed, end, nd, 16, 2 * (size_t)w);
        const __m512i i0 = _mm512_load_si512((const void *)pl->idx[0]);
        const __m512i s0 = _mm512_load_si512((const void *)pl->shl32);
        const __m128i cnt32 = _mm_cvtsi32_si128(32 - w);
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
            __m512i x = _mm512_srl_epi32(_mm512_sllv_epi32(_mm512_permutexvar_epi8(i0, raw), s0),
                                         cnt32);
            x = ts2diff_avx512_scan32(x);
            const __m512i lo = _mm512_cvtepu32_epi64(_mm512_castsi512_si256(x));
            const __m512i hi = _mm512_maskz_permutexvar_epi32(even, hi_idx, x);
            const __m512i step =
                _mm512_add_epi64(_mm512_maskz_permutexvar_epi32(even, last_idx, x), min16);
            _mm512_storeu_si512((void *)(out + 1 + 16 * g), _mm512_add_epi64(lo, ka));
            _mm512_storeu_si512((void *)(out + 9 + 16 * g), _mm512_add_epi64(hi, kb));
            ka = _mm512_add_epi64(ka, step); /* the carry chain: one add per 8 values */
            kb = _mm512_add_epi64(kb, step);
        }
        done = ng * 16;
    } else {
        const ts2diff_avx512_plan *pl = &ts2diff_avx512_plan8[w];
        const size_t ng = ts2diff_avx512_groups(packed, end, nd, 8, (size_t)w);
        const __m512i i0 = _mm512_load_si512((const void *)pl->idx[0]);
        const __m512i i9 = _mm512_load_si512((const void *)pl->idx[1]);
        const __m512i s0 = _mm512_load_si512((const void *)pl->shl64[0]);
        const __m512i r9 = _mm512_load_si512((const void *)pl->shr64);
        const __m128i cnt = _mm_cvtsi32_si128(64 - w);
        const __m512i last = _mm512_set1_epi64(7), min8 = _mm512_set1_epi64((long long)(8 * min));
        const __mmask64 low_bytes = 0x0101010101010101ull;
        const int split = pl->split;
        /* min_delta folded into the carry: lane j holds first + (j + 1) * min */
        __m512i carry = _mm512_add_epi64(ts2diff_avx512_multiples64(min),
                                         _mm512_set1_epi64((long long)first));
        for (size_t g = 0; g < ng; g++) {
            const __m512i raw = _mm512_loadu_si512((const void *)(packed + (size_t)w * g));
            __m512i x = _mm512_sllv_epi64(_mm512_permutexvar_epi8(i0, raw), s0);
            if (split) /* widths 59, 61, 62, 63: OR in the top bits of each delta's ninth byte */
                x = _mm512_or_si512(
                    x, _mm512_srlv_epi64(_mm512_maskz_permutexvar_epi8(low_bytes, i9, raw), r9));
            x = ts2diff_avx512_scan64(_mm512_srl_epi64(x, cnt));
            const __m512i t = _mm512_add_epi64(_mm512_permutexvar_epi64(last, x), min8);
            _mm512_storeu_si512((void *)(out + 1 + 8 * g), _mm512_add_epi64(x, carry));
            carry = _mm512_add_epi64(carry, t);
        }
        done = ng * 8;
    }
    if (done < nd) ts2diff_run_u64(packed, end, w, min, (uint64_t)out[done], out, done, nd);
}

/* ---- encoder: a block's min and max delta (the planning pass of encode) ------------------------ */

static TSFILE_TARGET_AVX512 void ts2diff_stats_i32_avx512(const int32_t *v, size_t m, int *w,
                                                          uint64_t *min)
{
    const size_t n = m - 1;
    size_t i = 0;
    int32_t dmin = INT32_MAX, dmax = INT32_MIN;
    if (n >= 16) {
        __m512i lo = _mm512_set1_epi32(INT32_MAX), hi = _mm512_set1_epi32(INT32_MIN);
        for (; i + 16 <= n; i += 16) {
            const __m512i d = _mm512_sub_epi32(_mm512_loadu_si512((const void *)(v + i + 1)),
                                               _mm512_loadu_si512((const void *)(v + i)));
            lo = _mm512_min_epi32(lo, d);
            hi = _mm512_max_epi32(hi, d);
        }
        dmin = _mm512_reduce_min_epi32(lo);
        dmax = _mm512_reduce_max_epi32(hi);
    }
    for (; i < n; i++) {
        const int32_t d = (int32_t)((uint32_t)v[i + 1] - (uint32_t)v[i]);
        dmin = d < dmin ? d : dmin;
        dmax = d > dmax ? d : dmax;
    }
    *min = (uint32_t)dmin;
    *w = ts2diff_bits_u64((uint32_t)((uint32_t)dmax - (uint32_t)dmin));
}

static TSFILE_TARGET_AVX512 void ts2diff_stats_i64_avx512(const int64_t *v, size_t m, int *w,
                                                          uint64_t *min)
{
    const size_t n = m - 1;
    size_t i = 0;
    int64_t dmin = INT64_MAX, dmax = INT64_MIN;
    if (n >= 8) {
        __m512i lo = _mm512_set1_epi64(INT64_MAX), hi = _mm512_set1_epi64(INT64_MIN);
        for (; i + 8 <= n; i += 8) {
            const __m512i d = _mm512_sub_epi64(_mm512_loadu_si512((const void *)(v + i + 1)),
                                               _mm512_loadu_si512((const void *)(v + i)));
            lo = _mm512_min_epi64(lo, d);
            hi = _mm512_max_epi64(hi, d);
        }
        dmin = _mm512_reduce_min_epi64(lo);
        dmax = _mm512_reduce_max_epi64(hi);
    }
    for (; i < n; i++) {
        const int64_t d = (int64_t)((uint64_t)v[i + 1] - (uint64_t)v[i]);
        dmin = d < dmin ? d : dmin;
        dmax = d > dmax ? d : dmax;
    }
    *min = (uint64_t)dmin;
    *w = ts2diff_bits_u64((uint64_t)dmax - (uint64_t)dmin);
}

TS2DIFF_DEFINE_PLAN(static TSFILE_TARGET_AVX512, ts2diff_plan_i64_avx512, int64_t, 24,
                    ts2diff_stats_i64_avx512)
TS2DIFF_DEFINE_PLAN(static TSFILE_TARGET_AVX512, ts2diff_plan_i32_avx512, int32_t, 16,
                    ts2diff_stats_i32_avx512)

#endif /* TSFILE_ISA_AVX512 */
#endif /* TS2DIFF_AVX512_H */
