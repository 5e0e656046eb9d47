/*
 * rle_avx2.h: AVX2 unpacking of RLE bit-packed runs (x86-64; compiled per function with
 * TSFILE_TARGET_AVX2 and the avx2 row of rle_impls.h, run only when the CPU has TSFILE_NEED_AVX2).
 *
 * A bit-packed run is a sequence of groups of 8 MSB-first values of width w (w bytes each), the
 * same packing as TS_2DIFF's deltas, so the shared shuffle plans of bitpack_msb_plan.h apply: per
 * group, 16-byte loads at the plan's offsets, pshufb to gather each value's bytes big-endian into
 * its lane, vpsllv + vpsrl to align and cut. No gathers. Groups whose loads would pass the end of
 * the caller's buffer (the plan's `reach`) are left to the scalar code, as are RLE runs (a fill)
 * and BOOLEAN output.
 *
 * rle_avx2_init() must run once before the kernels (the Cython module does it at import).
 */
#ifndef TSFILE_RLE_AVX2_H
#define TSFILE_RLE_AVX2_H

#include "bitpack_msb_plan.h"
#include "rle_scalar.h"

#if TSFILE_ISA_AVX2

RLE_DEFINE_MSB_PLANS(avx2)

#define RLE_AVX2_INLINE TSFILE_TARGET_AVX2 TSFILE_INLINE

RLE_AVX2_INLINE __m256i rle_avx2_load2(const uint8_t *lo, const uint8_t *hi)
{
    return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)lo)),
                                   _mm_loadu_si128((const __m128i *)hi), 1);
}

RLE_AVX2_INLINE __m256i rle_avx2_ld(const void *p) { return _mm256_load_si256((const __m256i *)p); }

/* Values 4k..4k+3 of a LANES64 plan (slots 2k, 2k+1), as 4 x 64-bit. */
RLE_AVX2_INLINE __m256i rle_avx2_lanes64(const uint8_t *g, const bitpack_msb_plan *pl, int k,
                                         __m128i cnt)
{
    __m256i x = rle_avx2_load2(g + pl->off[2 * k], g + pl->off[2 * k + 1]);
    x = _mm256_shuffle_epi8(x, rle_avx2_ld(pl->mask[2 * k]));
    x = _mm256_sllv_epi64(x, rle_avx2_ld(pl->shl64[2 * k]));
    return _mm256_srl_epi64(x, cnt);
}

/* Values j, j+1 (lanes 0 and 2) of a SPLIT64 plan. */
RLE_AVX2_INLINE __m256i rle_avx2_split64(const uint8_t *g, const bitpack_msb_plan *pl, int j,
                                         __m128i cnt)
{
    __m256i x = rle_avx2_load2(g + pl->off[j], g + pl->off[j + 1]);
    x = _mm256_shuffle_epi8(x, rle_avx2_ld(pl->mask[j]));
    const __m256i hi = _mm256_sllv_epi64(x, rle_avx2_ld(pl->shl64[j]));
    const __m256i lo = _mm256_srlv_epi64(_mm256_bsrli_epi128(x, 8), rle_avx2_ld(pl->shr64[j]));
    return _mm256_srl_epi64(_mm256_or_si256(hi, lo), cnt);
}

/* Values j..j+3 of a SPLIT64 plan, in order. */
RLE_AVX2_INLINE __m256i rle_avx2_split64x4(const uint8_t *g, const bitpack_msb_plan *pl, int j,
                                           __m128i cnt)
{
    const __m256i a = rle_avx2_split64(g, pl, j, cnt);
    const __m256i b = rle_avx2_split64(g, pl, j + 2, cnt);
    return _mm256_permute4x64_epi64(_mm256_unpacklo_epi64(a, b), _MM_SHUFFLE(3, 1, 2, 0));
}

/* Unpack up to `ngroups` whole groups of width w (1..32) into out (int32 values, the low 32 bits
 * of each pattern); returns the number of groups done (the rest is for the scalar code). The
 * int64 unpacker below is no twin of this one: 32-bit lanes hold a value only up to width 25. */
static TSFILE_TARGET_AVX2 size_t rle_unpack_groups_i32_avx2(const uint8_t *g, size_t room, int w,
                                                           size_t ngroups, int32_t *out)
{
    const bitpack_msb_plan *pl = &rle_avx2_plan32[w];
    const size_t n = rle_safe_groups((size_t)pl->reach, room, w, ngroups);
    if (pl->kind == BITPACK_MSB_LANES32) {
        const __m256i mask = rle_avx2_ld(pl->mask[0]);
        const __m256i shl = rle_avx2_ld(pl->shl32[0]);
        const __m128i cnt = _mm_cvtsi32_si128(32 - w);
        const int o0 = pl->off[0], o1 = pl->off[1];
        for (size_t i = 0; i < n; i++, g += w) {
            __m256i x = _mm256_shuffle_epi8(rle_avx2_load2(g + o0, g + o1), mask);
            x = _mm256_srl_epi32(_mm256_sllv_epi32(x, shl), cnt);
            _mm256_storeu_si256((__m256i *)(out + 8 * i), x);
        }
    } else { /* 64-bit lanes (a value can span 5 bytes), then keep the low halves */
        const __m128i cnt = _mm_cvtsi32_si128(64 - w);
        const __m256i lows = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
        for (size_t i = 0; i < n; i++, g += w) {
            const __m256i a = _mm256_permutevar8x32_epi32(rle_avx2_lanes64(g, pl, 0, cnt), lows);
            const __m256i b = _mm256_permutevar8x32_epi32(rle_avx2_lanes64(g, pl, 1, cnt), lows);
            _mm256_storeu_si256((__m256i *)(out + 8 * i), _mm256_permute2x128_si256(a, b, 0x20));
        }
    }
    return n;
}

/* The same for width 1..64 into int64 output. */
static TSFILE_TARGET_AVX2 size_t rle_unpack_groups_i64_avx2(const uint8_t *g, size_t room, int w,
                                                           size_t ngroups, int64_t *out)
{
    const bitpack_msb_plan *pl = &rle_avx2_plan64[w];
    const size_t n = rle_safe_groups((size_t)pl->reach, room, w, ngroups);
    const __m128i cnt = _mm_cvtsi32_si128(64 - w);
    if (pl->kind == BITPACK_MSB_LANES64) {
        for (size_t i = 0; i < n; i++, g += w) {
            _mm256_storeu_si256((__m256i *)(out + 8 * i), rle_avx2_lanes64(g, pl, 0, cnt));
            _mm256_storeu_si256((__m256i *)(out + 8 * i + 4), rle_avx2_lanes64(g, pl, 1, cnt));
        }
    } else {
        for (size_t i = 0; i < n; i++, g += w) {
            _mm256_storeu_si256((__m256i *)(out + 8 * i), rle_avx2_split64x4(g, pl, 0, cnt));
            _mm256_storeu_si256((__m256i *)(out + 8 * i + 4), rle_avx2_split64x4(g, pl, 4, cnt));
        }
    }
    return n;
}

RLE_DEFINE_DECODERS(avx2, TSFILE_TARGET_AVX2)

#endif /* TSFILE_ISA_AVX2 */
#endif /* TSFILE_RLE_AVX2_H */
