/*
 * ts2diff_avx2.h: AVX2 TS_2DIFF block kernels (x86-64; compiled per function with
 * TSFILE_TARGET_AVX2 and used only through its row of ts2diff_impls.h).
 *
 * Per group of 8 deltas (exactly w bytes, so groups start on byte boundaries):
 *   unpack   16-byte loads at the plan's offsets, pshufb to put each delta's bytes big-endian into
 *            its lane, vpsllv + vpsrl to align and cut (bitpack_msb_plan.h); no gathers;
 *   scan     add min_delta, in-register log-step prefix sum (within 128-bit lanes, then across),
 *            then add the running carry (int64 deltas of <= 28 bits are unpacked and scanned in
 *            32-bit lanes, then widened). The carry chain is broken: the group's total is
 *            broadcast from the local scan (off the critical path), so the only loop-carried
 *            dependency is one vector add per 4 (int64) or 8 (int32) values;
 *   width 0  an arithmetic progression, no unpack and no scan.
 * The few trailing deltas of a block (fewer than 8, or whose loads would pass the end of the
 * caller's buffer) go through the scalar kernel.
 *
 * ts2diff_avx2_init() must run once before the kernels (the Cython module does it at import).
 */
#ifndef TS2DIFF_AVX2_H
#define TS2DIFF_AVX2_H

#include "bitpack_msb_plan.h"
#include "ts2diff_scalar.h"

#if TSFILE_ISA_AVX2

static bitpack_msb_plan ts2diff_avx2_plan32[33];
static bitpack_msb_plan ts2diff_avx2_plan64[65];

static void ts2diff_avx2_init(void)
{
    for (int w = 1; w <= 32; w++) bitpack_msb_plan_init(&ts2diff_avx2_plan32[w], w, 32);
    for (int w = 1; w <= 64; w++) bitpack_msb_plan_init(&ts2diff_avx2_plan64[w], w, 64);
}

#define TS2DIFF_AVX2_INLINE TSFILE_TARGET_AVX2 TSFILE_INLINE

TS2DIFF_AVX2_INLINE __m256i ts2diff_avx2_load2(const uint8_t *lo, const uint8_t *hi)
{
    return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)lo)),
                                   _mm_loadu_si128((const __m128i *)hi), 1);
}

TS2DIFF_AVX2_INLINE __m256i ts2diff_avx2_ld(const void *p)
{
    return _mm256_load_si256((const __m256i *)p);
}

/* Four 64-bit deltas of slots 2k and 2k+1 of a LANES64 plan. */
TS2DIFF_AVX2_INLINE __m256i ts2diff_avx2_lanes64(const uint8_t *p, const bitpack_msb_plan *pl,
                                                 int k, __m128i cnt)
{
    __m256i x = ts2diff_avx2_load2(p + pl->off[2 * k], p + pl->off[2 * k + 1]);
    x = _mm256_shuffle_epi8(x, ts2diff_avx2_ld(pl->mask[2 * k]));
    x = _mm256_sllv_epi64(x, ts2diff_avx2_ld(pl->shl64[2 * k]));
    return _mm256_srl_epi64(x, cnt);
}

/* Two 64-bit deltas (in lanes 0 and 2) of slots j and j+1 of a SPLIT64 plan. */
TS2DIFF_AVX2_INLINE __m256i ts2diff_avx2_split64(const uint8_t *p, const bitpack_msb_plan *pl,
                                                 int j, __m128i cnt)
{
    __m256i x = ts2diff_avx2_load2(p + pl->off[j], p + pl->off[j + 1]);
    x = _mm256_shuffle_epi8(x, ts2diff_avx2_ld(pl->mask[j]));
    const __m256i hi = _mm256_sllv_epi64(x, ts2diff_avx2_ld(pl->shl64[j]));
    const __m256i lo = _mm256_srlv_epi64(_mm256_bsrli_epi128(x, 8), ts2diff_avx2_ld(pl->shr64[j]));
    return _mm256_srl_epi64(_mm256_or_si256(hi, lo), cnt);
}

/* Four deltas j..j+3 of a SPLIT64 plan, in order. */
TS2DIFF_AVX2_INLINE __m256i ts2diff_avx2_split64x4(const uint8_t *p, const bitpack_msb_plan *pl,
                                                   int j, __m128i cnt)
{
    const __m256i a = ts2diff_avx2_split64(p, pl, j, cnt);     /* v_j . v_j+1 . */
    const __m256i b = ts2diff_avx2_split64(p, pl, j + 2, cnt); /* v_j+2 . v_j+3 . */
    return _mm256_permute4x64_epi64(_mm256_unpacklo_epi64(a, b), _MM_SHUFFLE(3, 1, 2, 0));
}

/* Inclusive prefix sum of 4 x int64. */
TS2DIFF_AVX2_INLINE __m256i ts2diff_avx2_scan64(__m256i x)
{
    x = _mm256_add_epi64(x, _mm256_bslli_epi128(x, 8));
    const __m256i t = _mm256_permute4x64_epi64(x, _MM_SHUFFLE(1, 1, 1, 1));
    return _mm256_add_epi64(x, _mm256_blend_epi32(_mm256_setzero_si256(), t, 0xF0));
}

/* Inclusive prefix sum of 8 x int32. */
TS2DIFF_AVX2_INLINE __m256i ts2diff_avx2_scan32(__m256i x)
{
    x = _mm256_add_epi32(x, _mm256_bslli_epi128(x, 4));
    x = _mm256_add_epi32(x, _mm256_bslli_epi128(x, 8));
    const __m256i t = _mm256_shuffle_epi32(x, 0xFF);
    return _mm256_add_epi32(x, _mm256_permute2x128_si256(t, t, 0x08));
}

static TSFILE_TARGET_AVX2 void ts2diff_decode_i64_avx2(const uint8_t *packed, const uint8_t *end,
                                                       int w, uint64_t min, uint64_t first,
                                                       int64_t *out, size_t nd)
{
    out[0] = (int64_t)first;
    size_t done = 0; /* deltas decoded by the vector loop */
    if (w == 0) {
        const __m256i step = _mm256_set1_epi64x((long long)(min * 4));
        __m256i v = _mm256_set_epi64x((long long)(first + 4 * min), (long long)(first + 3 * min),
                                      (long long)(first + 2 * min), (long long)(first + min));
        for (; done + 4 <= nd; done += 4) {
            _mm256_storeu_si256((__m256i *)(out + 1 + done), v);
            v = _mm256_add_epi64(v, step);
        }
    } else if (w <= 28 && ts2diff_avx2_plan32[w].kind == BITPACK_MSB_LANES32) {
        /* Narrow deltas: unpack and scan the 8 deltas of a group in 32-bit lanes (a sum of 8
         * deltas of <= 28 bits cannot overflow), then widen to int64 and add the running carry,
         * kept pre-offset by the multiples of min_delta: half the unpack work and one 8-lane
         * scan instead of two 4-lane ones. */
        const bitpack_msb_plan *pl = &ts2diff_avx2_plan32[w];
        const size_t ng = ts2diff_whole_groups(packed, end, nd, w, (size_t)pl->reach);
        const __m128i cnt = _mm_cvtsi32_si128(32 - w);
        const __m256i mask = ts2diff_avx2_ld(pl->mask[0]);
        const __m256i shl = ts2diff_avx2_ld(pl->shl32[0]);
        const size_t off1 = (size_t)pl->off[1];
        const __m256i minlo = _mm256_setr_epi64x((long long)min, (long long)(2 * min),
                                                 (long long)(3 * min), (long long)(4 * min));
        const __m256i minhi = _mm256_add_epi64(minlo, _mm256_set1_epi64x((long long)(4 * min)));
        const __m256i min8 = _mm256_set1_epi64x((long long)(8 * min));
        const __m256i f = _mm256_set1_epi64x((long long)first);
        __m256i ka = _mm256_add_epi64(f, minlo), kb = _mm256_add_epi64(f, minhi);
        for (size_t g = 0; g < ng; g++) {
            const uint8_t *p = packed + g * (size_t)w;
            __m256i x = ts2diff_avx2_load2(p, p + off1);
            x = _mm256_srl_epi32(_mm256_sllv_epi32(_mm256_shuffle_epi8(x, mask), shl), cnt);
            x = ts2diff_avx2_scan32(x);
            const __m256i lo = _mm256_cvtepu32_epi64(_mm256_castsi256_si128(x));
            const __m256i hi = _mm256_cvtepu32_epi64(_mm256_extracti128_si256(x, 1));
            const __m256i step = _mm256_add_epi64(_mm256_permute4x64_epi64(hi, 0xFF), min8);
            _mm256_storeu_si256((__m256i *)(out + 1 + 8 * g), _mm256_add_epi64(lo, ka));
            _mm256_storeu_si256((__m256i *)(out + 5 + 8 * g), _mm256_add_epi64(hi, kb));
            ka = _mm256_add_epi64(ka, step); /* the carry chain: one add per 4 values */
            kb = _mm256_add_epi64(kb, step);
        }
        done = ng * 8;
    } else {
        const bitpack_msb_plan *pl = &ts2diff_avx2_plan64[w];
        const size_t ng = ts2diff_whole_groups(packed, end, nd, w, (size_t)pl->reach);
        const __m128i cnt = _mm_cvtsi32_si128(64 - w);
        const __m256i minv = _mm256_set1_epi64x((long long)min);
        __m256i carry = _mm256_set1_epi64x((long long)first);
        const int split = pl->kind == BITPACK_MSB_SPLIT64;
        /* the plan in locals: stores to `out` could alias it as far as the compiler knows */
        const __m256i m0 = ts2diff_avx2_ld(pl->mask[0]), m1 = ts2diff_avx2_ld(pl->mask[2]);
        const __m256i s0 = ts2diff_avx2_ld(pl->shl64[0]), s1 = ts2diff_avx2_ld(pl->shl64[2]);
        const size_t o0 = (size_t)pl->off[0], o1 = (size_t)pl->off[1];
        const size_t o2 = (size_t)pl->off[2], o3 = (size_t)pl->off[3];
        for (size_t g = 0; g < ng; g++) {
            const uint8_t *p = packed + g * (size_t)w;
            __m256i a, b;
            if (split) { /* widths 59, 61, 62, 63 */
                a = ts2diff_avx2_split64x4(p, pl, 0, cnt);
                b = ts2diff_avx2_split64x4(p, pl, 4, cnt);
            } else {
                a = ts2diff_avx2_load2(p + o0, p + o1);
                b = ts2diff_avx2_load2(p + o2, p + o3);
                a = _mm256_srl_epi64(_mm256_sllv_epi64(_mm256_shuffle_epi8(a, m0), s0), cnt);
                b = _mm256_srl_epi64(_mm256_sllv_epi64(_mm256_shuffle_epi8(b, m1), s1), cnt);
            }
            a = ts2diff_avx2_scan64(_mm256_add_epi64(a, minv));
            b = ts2diff_avx2_scan64(_mm256_add_epi64(b, minv));
            const __m256i ta = _mm256_permute4x64_epi64(a, _MM_SHUFFLE(3, 3, 3, 3));
            const __m256i tb = _mm256_permute4x64_epi64(b, _MM_SHUFFLE(3, 3, 3, 3));
            _mm256_storeu_si256((__m256i *)(out + 1 + 8 * g), _mm256_add_epi64(a, carry));
            carry = _mm256_add_epi64(carry, ta);
            _mm256_storeu_si256((__m256i *)(out + 5 + 8 * g), _mm256_add_epi64(b, carry));
            carry = _mm256_add_epi64(carry, tb);
        }
        done = ng * 8;
    }
    if (done < nd) ts2diff_run_u64(packed, end, w, min, (uint64_t)out[done], out, done, nd);
}

static TSFILE_TARGET_AVX2 void ts2diff_decode_i32_avx2(const uint8_t *packed, const uint8_t *end,
                                                       int w, uint32_t min, uint32_t first,
                                                       int32_t *out, size_t nd)
{
    out[0] = (int32_t)first;
    size_t done = 0;
    if (w == 0) {
        const __m256i step = _mm256_set1_epi32((int)(min * 8));
        __m256i v = _mm256_mullo_epi32(_mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 8),
                                       _mm256_set1_epi32((int)min));
        v = _mm256_add_epi32(v, _mm256_set1_epi32((int)first));
        for (; done + 8 <= nd; done += 8) {
            _mm256_storeu_si256((__m256i *)(out + 1 + done), v);
            v = _mm256_add_epi32(v, step);
        }
    } else {
        const bitpack_msb_plan *pl = &ts2diff_avx2_plan32[w];
        const size_t ng = ts2diff_whole_groups(packed, end, nd, w, (size_t)pl->reach);
        const __m256i minv = _mm256_set1_epi32((int)min);
        const __m256i last = _mm256_set1_epi32(7);
        __m256i carry = _mm256_set1_epi32((int)first);
        if (pl->kind == BITPACK_MSB_LANES32) {
            const __m128i cnt = _mm_cvtsi32_si128(32 - w);
            const __m256i mask = ts2diff_avx2_ld(pl->mask[0]);
            const __m256i shl = ts2diff_avx2_ld(pl->shl32[0]);
            const int off1 = pl->off[1];
            for (size_t g = 0; g < ng; g++) {
                const uint8_t *p = packed + g * (size_t)w;
                __m256i x = ts2diff_avx2_load2(p, p + off1);
                x = _mm256_srl_epi32(_mm256_sllv_epi32(_mm256_shuffle_epi8(x, mask), shl), cnt);
                x = ts2diff_avx2_scan32(_mm256_add_epi32(x, minv));
                const __m256i t = _mm256_permutevar8x32_epi32(x, last);
                _mm256_storeu_si256((__m256i *)(out + 1 + 8 * g), _mm256_add_epi32(x, carry));
                carry = _mm256_add_epi32(carry, t);
            }
        } else { /* widths 27, 29..31: a delta can span 5 bytes, unpack in 64-bit lanes */
            const __m128i cnt = _mm_cvtsi32_si128(64 - w);
            const __m256i even = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
            const __m256i m0 = ts2diff_avx2_ld(pl->mask[0]), m1 = ts2diff_avx2_ld(pl->mask[2]);
            const __m256i s0 = ts2diff_avx2_ld(pl->shl64[0]), s1 = ts2diff_avx2_ld(pl->shl64[2]);
            const size_t o0 = (size_t)pl->off[0], o1 = (size_t)pl->off[1];
            const size_t o2 = (size_t)pl->off[2], o3 = (size_t)pl->off[3];
            for (size_t g = 0; g < ng; g++) {
                const uint8_t *p = packed + g * (size_t)w;
                __m256i a = ts2diff_avx2_load2(p + o0, p + o1);
                __m256i b = ts2diff_avx2_load2(p + o2, p + o3);
                a = _mm256_srl_epi64(_mm256_sllv_epi64(_mm256_shuffle_epi8(a, m0), s0), cnt);
                b = _mm256_srl_epi64(_mm256_sllv_epi64(_mm256_shuffle_epi8(b, m1), s1), cnt);
                a = _mm256_permutevar8x32_epi32(a, even);
                b = _mm256_permutevar8x32_epi32(b, even);
                __m256i x = _mm256_permute2x128_si256(a, b, 0x20);
                x = ts2diff_avx2_scan32(_mm256_add_epi32(x, minv));
                const __m256i t = _mm256_permutevar8x32_epi32(x, last);
                _mm256_storeu_si256((__m256i *)(out + 1 + 8 * g), _mm256_add_epi32(x, carry));
                carry = _mm256_add_epi32(carry, t);
            }
        }
        done = ng * 8;
    }
    if (done < nd) ts2diff_run_u32(packed, end, w, min, (uint32_t)out[done], out, done, nd);
}

/* ---- encoder: a block's min and max delta with AVX2 (the planning pass of encode) -------------- */

/* TS2DIFF_DEFINE_STATS_SIMD's operations on AVX2 (no horizontal min / max: the lanes are stored
 * and folded in a scalar loop). */
#define TS2DIFF_AVX2_LOAD(p) _mm256_loadu_si256((const __m256i *)(p))
#define TS2DIFF_AVX2_REDUCE(T, LANES, lo, hi, dmin, dmax)                                          \
    do {                                                                                           \
        T lanes_lo[LANES], lanes_hi[LANES];                                                        \
        _mm256_storeu_si256((__m256i *)lanes_lo, lo);                                              \
        _mm256_storeu_si256((__m256i *)lanes_hi, hi);                                              \
        for (int k = 0; k < (LANES); k++) {                                                        \
            dmin = lanes_lo[k] < dmin ? lanes_lo[k] : dmin;                                        \
            dmax = lanes_hi[k] > dmax ? lanes_hi[k] : dmax;                                        \
        }                                                                                          \
    } while (0)

TS2DIFF_DEFINE_STATS_SIMD(ts2diff_stats_i32_avx2, static TSFILE_TARGET_AVX2, int32_t, uint32_t,
                          __m256i, 8, _mm256_set1_epi32, TS2DIFF_AVX2_LOAD, _mm256_sub_epi32,
                          _mm256_min_epi32, _mm256_max_epi32, TS2DIFF_AVX2_REDUCE)
TS2DIFF_DEFINE_STATS_SIMD(ts2diff_stats_i64_avx2, static TSFILE_TARGET_AVX2, int64_t, uint64_t,
                          __m256i, 4, _mm256_set1_epi64x, TS2DIFF_AVX2_LOAD, _mm256_sub_epi64,
                          TSFILE_AVX2_MIN_EPI64, TSFILE_AVX2_MAX_EPI64, TS2DIFF_AVX2_REDUCE)

TS2DIFF_DEFINE_PLAN(static TSFILE_TARGET_AVX2, ts2diff_plan_i64_avx2, int64_t, 24,
                    ts2diff_stats_i64_avx2)
TS2DIFF_DEFINE_PLAN(static TSFILE_TARGET_AVX2, ts2diff_plan_i32_avx2, int32_t, 16,
                    ts2diff_stats_i32_avx2)

#endif /* TSFILE_ISA_AVX2 */
#endif /* TS2DIFF_AVX2_H */
