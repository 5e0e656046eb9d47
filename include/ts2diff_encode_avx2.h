/*
 * ts2diff_encode_avx2.h: the AVX2 TS_2DIFF bit-packing writer (x86-64; compiled per function with
 * TSFILE_TARGET_AVX2, used by the "avx2" row of ts2diff_impls.h). The scalar writer
 * (ts2diff_write_block_* in ts2diff_scalar.h) stays the reference: the same bytes for every block.
 * No pext/pdep (microcoded on AMD Zen1/Zen2) and no gathers; no per-width code or tables.
 *
 * A block's deltas, less min_delta (the residuals, r < 2^w), are written MSB first; 8 deltas take
 * exactly w bytes (a "group"). For widths 1..16, 32 deltas (four groups) a step:
 *   residuals  eight vectors of four u64 lanes, deltas 4k .. 4k+3 in vector k (int32 subtracts
 *              in 32-bit lanes, so that it wraps as the type does, then widens);
 *   units      4 consecutive residuals make a "unit" of 4w <= 64 bits: lane j of a vector is
 *              shifted left by 64 - (j+1)w (one vpsllvq by a constant vector), so that the sum
 *              (= the OR: disjoint bits) of its four lanes is the unit, top-aligned; the sums of
 *              eight vectors are done together (unpack lo/hi, add, then the 128-bit halves),
 *              giving the first units of the four groups in one vector and their second units
 *              in another. int64 subtracts min_delta from the units, not the lanes: the shifted
 *              min_delta of the four lanes, summed, once per unit (shifts and sums are linear
 *              mod 2^64), which saves six of a step's subtractions;
 *   words      a group is 8w <= 128 bits: word 0 = first | second >> 4w, word 1 =
 *              second << (64 - 4w) (zero for w <= 8); shift counts in an xmm register;
 *   store      each word byte-reversed (vpshufb), a group's two words side by side, and one
 *              16-byte store per group at its w-byte offset: w bytes of the group and 16 - w
 *              zero bytes that the next group's store overwrites. The last store of a step ends
 *              16 - w bytes past the step; where that would pass the block's planned end the
 *              step is stored exactly (ts2diff_enc2_store_last), so nothing is written past the
 *              block.
 * The deltas after the last whole step of a block (fewer than 32) go to the scalar packer,
 * ts2diff_pack_from_*, which starts on the byte boundary where the steps end (32w bits).
 *
 * Widths 17..64 stay scalar: a unit would hold fewer than 4 deltas and a group 3 or more words,
 * which this layout does not cover. The numbers that decided it (write pass alone, 65536 values in
 * 128-delta blocks, cache-resident, AMD EPYC Zen3, medians of 3 interleaved runs; M values/s,
 * scalar row -> this writer):
 *   int64  w1 2338 -> 3251 (1.39x)  w2 1.50x  w4 1.46x  w7 1.56x  w8 2399 -> 4112 (1.71x)
 *          w9 1.84x  w12 1.84x  w15 1.98x  w16 1.65x
 *   int32  w1 1.27x  w4 1.23x  w8 1.34x  w12 1.49x  w15 1.66x  w16 1.35x (widened to 64-bit
 *          lanes; no int32 column in the E5-2 shape, so not tuned further)
 *   above 16 (the scalar packer, out of line): 0.88 .. 1.04x of the scalar row, the per-block
 *          call being the difference.
 */
#ifndef TS2DIFF_ENCODE_AVX2_H
#define TS2DIFF_ENCODE_AVX2_H

#include "ts2diff_scalar.h"

#if TSFILE_ISA_AVX2

/* The widest residual the vector step packs (4 deltas in a 64-bit unit). */
#define TS2DIFF_ENC2_MAX_WIDTH 16

#define TS2DIFF_ENC2_INLINE TSFILE_TARGET_AVX2 TSFILE_INLINE

/*
 * The 32 deltas at v (v[0 .. 32] read) in eight vectors of four u64 lanes, deltas 4k .. 4k+3 in
 * vector k; returns the min_delta still in them, which the units take off (ts2diff_enc2_groups32:
 * the shifted lanes of a unit hold disjoint bits, so their sum is their OR, and shifting and
 * summing are linear mod 2^64). int64 leaves it in (one subtraction per unit instead of one per
 * lane); int32 subtracts it in 32-bit lanes, where its residuals wrap, and returns 0.
 */
TS2DIFF_ENC2_INLINE uint64_t ts2diff_enc2_residuals32_i64(const int64_t *v, uint64_t umin,
                                                          __m256i r[8])
{
    for (int k = 0; k < 8; k++) {
        const __m256i a = _mm256_loadu_si256((const __m256i *)(v + 4 * k));
        const __m256i b = _mm256_loadu_si256((const __m256i *)(v + 4 * k + 1));
        r[k] = _mm256_sub_epi64(b, a);
    }
    return umin;
}

TS2DIFF_ENC2_INLINE uint64_t ts2diff_enc2_residuals32_i32(const int32_t *v, uint32_t umin,
                                                          __m256i r[8])
{
    const __m256i vmin = _mm256_set1_epi32((int)umin);
    for (int k = 0; k < 4; k++) {
        const __m256i a = _mm256_loadu_si256((const __m256i *)(v + 8 * k));
        const __m256i b = _mm256_loadu_si256((const __m256i *)(v + 8 * k + 1));
        const __m256i d = _mm256_sub_epi32(_mm256_sub_epi32(b, a), vmin);
        r[2 * k] = _mm256_cvtepu32_epi64(_mm256_castsi256_si128(d));
        r[2 * k + 1] = _mm256_cvtepu32_epi64(_mm256_extracti128_si256(d, 1));
    }
    return 0;
}

/* [a0+a1, b0+b1 | a2+a3, b2+b3]: the first step of summing each vector's four lanes. */
TS2DIFF_ENC2_INLINE __m256i ts2diff_enc2_sum_pairs(__m256i a, __m256i b)
{
    return _mm256_add_epi64(_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b));
}

/* The sums of the four lanes of vectors a, b, c, d, in that order, less `bias` each. */
TS2DIFF_ENC2_INLINE __m256i ts2diff_enc2_units4(__m256i a, __m256i b, __m256i c, __m256i d,
                                                __m256i bias)
{
    const __m256i ab = ts2diff_enc2_sum_pairs(a, b), cd = ts2diff_enc2_sum_pairs(c, d);
    const __m256i lo = _mm256_permute2x128_si256(ab, cd, 0x20);
    return _mm256_add_epi64(_mm256_sub_epi64(lo, bias), _mm256_permute2x128_si256(ab, cd, 0x31));
}

/*
 * The four groups of the 32 deltas r (as from ts2diff_enc2_residuals32_*, with `lmin` the
 * min_delta still in them; width w <= 16), each as 16 bytes in memory order (its w bytes, then
 * zeros): groups 0 and 2 in *g02, 1 and 3 in *g13. `lanes`: per lane j, 64 - (j+1)w; `cw`: 4w
 * and `cw1`: 64 - 4w as shift counts.
 */
TS2DIFF_ENC2_INLINE void ts2diff_enc2_groups32(const __m256i r[8], uint64_t lmin, int w,
                                               __m256i lanes, __m128i cw, __m128i cw1,
                                               __m256i *g02, __m256i *g13)
{
    uint64_t b = 0; /* lmin in each of a unit's four lanes, shifted and summed */
    for (int j = 1; j <= 4; j++) b += lmin << (64 - j * w);
    const __m256i bias = _mm256_set1_epi64x((long long)b);
    __m256i x[8];
    for (int k = 0; k < 8; k++) x[k] = _mm256_sllv_epi64(r[k], lanes);
    const __m256i first = ts2diff_enc2_units4(x[0], x[2], x[4], x[6], bias);
    const __m256i second = ts2diff_enc2_units4(x[1], x[3], x[5], x[7], bias);
    const __m256i bswap64 = _mm256_setr_epi8(7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8,
                                             7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8);
    const __m256i w0 = _mm256_shuffle_epi8(_mm256_or_si256(first, _mm256_srl_epi64(second, cw)),
                                           bswap64);
    const __m256i w1 = _mm256_shuffle_epi8(_mm256_sll_epi64(second, cw1), bswap64);
    *g02 = _mm256_unpacklo_epi64(w0, w1);
    *g13 = _mm256_unpackhi_epi64(w0, w1);
}

/* Store groups 0..2 (16 bytes each at their offsets, each overwriting the zeros of the one
 * before): writes o[0 .. 2w + 16). */
TS2DIFF_ENC2_INLINE void ts2diff_enc2_store3(uint8_t *o, size_t w, __m256i g02, __m256i g13)
{
    _mm_storeu_si128((__m128i *)o, _mm256_castsi256_si128(g02));
    _mm_storeu_si128((__m128i *)(o + w), _mm256_castsi256_si128(g13));
    _mm_storeu_si128((__m128i *)(o + 2 * w), _mm256_extracti128_si256(g02, 1));
}

/* The 4w bytes of a step at o, writing nothing past them (the block's last step). Widths 8..16:
 * groups 0..2 as in a full step (their stores end by 2w + 16 <= 4w), group 3 by an 8-byte store
 * of its first bytes and one of its last 8 (bytes w - 8 .. w - 1, from its two words). Widths
 * 1..7 (the step is 4..28 bytes): through a stack buffer, copied by two overlapping moves. */
TS2DIFF_ENC2_INLINE void ts2diff_enc2_store_last(uint8_t *o, size_t w, __m256i g02, __m256i g13)
{
    if (w >= 8) {
        ts2diff_enc2_store3(o, w, g02, g13);
        const __m128i g3 = _mm256_extracti128_si256(g13, 1);
        const uint64_t lo = (uint64_t)_mm_cvtsi128_si64(g3);
        const uint64_t hi = (uint64_t)_mm_extract_epi64(g3, 1);
        const unsigned s = 8 * (unsigned)(w - 8); /* little-endian words: bytes w-8.. of g3 */
        const uint64_t last = s == 0 ? lo : s == 64 ? hi : (lo >> s) | (hi << (64 - s));
        memcpy(o + 3 * w, &lo, 8);
        memcpy(o + 4 * w - 8, &last, 8);
        return;
    }
    uint8_t tmp[64];
    ts2diff_enc2_store3(tmp, w, g02, g13);
    _mm_storeu_si128((__m128i *)(tmp + 3 * w), _mm256_extracti128_si256(g13, 1));
    const size_t n = 4 * w;
    if (n >= 16) {
        const __m128i a = _mm_loadu_si128((const __m128i *)tmp);
        const __m128i b = _mm_loadu_si128((const __m128i *)(tmp + n - 16));
        _mm_storeu_si128((__m128i *)o, a);
        _mm_storeu_si128((__m128i *)(o + n - 16), b);
    } else if (n >= 8) {
        uint64_t a, b;
        memcpy(&a, tmp, 8);
        memcpy(&b, tmp + n - 8, 8);
        memcpy(o, &a, 8);
        memcpy(o + n - 8, &b, 8);
    } else {
        memcpy(o, tmp, 4);
    }
}

/*
 * Generates ts2diff_enc2_steps_SUF: the whole 32-delta steps of a block of n deltas of width
 * 1..16 whose packed bytes start at o and end at `end`; returns the deltas written and advances
 * *o. A macro because the two types differ only in these names.
 */
#define TS2DIFF_ENC2_DEFINE_STEPS(SUF, T, UT)                                                      \
    TS2DIFF_ENC2_INLINE size_t ts2diff_enc2_steps_##SUF(const T *v, size_t n, int w, UT umin,      \
                                                        const uint8_t *end, uint8_t **o)           \
    {                                                                                              \
        const size_t uw = (size_t)w;                                                               \
        const long long s = 64 - w;                                                                \
        const __m256i lanes = _mm256_setr_epi64x(s, s - w, s - 2 * w, s - 3 * w);                  \
        const __m128i cw = _mm_cvtsi32_si128(4 * w), cw1 = _mm_cvtsi32_si128(64 - 4 * w);          \
        uint8_t *out = *o;                                                                         \
        size_t i = 0;                                                                              \
        for (; i + 32 <= n; i += 32, out += 4 * uw) {                                              \
            __m256i r[8];                                                                          \
            __m256i g02, g13;                                                                      \
            const uint64_t lmin = ts2diff_enc2_residuals32_##SUF(v + i, umin, r);                  \
            ts2diff_enc2_groups32(r, lmin, w, lanes, cw, cw1, &g02, &g13);                         \
            if ((size_t)(end - out) >= 3 * uw + 16) {                                              \
                ts2diff_enc2_store3(out, uw, g02, g13);                                            \
                _mm_storeu_si128((__m128i *)(out + 3 * uw), _mm256_extracti128_si256(g13, 1));     \
            } else { /* the block's last step: nothing past the block */                          \
                ts2diff_enc2_store_last(out, uw, g02, g13);                                        \
            }                                                                                      \
        }                                                                                          \
        *o = out;                                                                                  \
        return i;                                                                                  \
    }
/* ts2diff_enc2_steps_i64, ts2diff_enc2_steps_i32 */
TS2DIFF_ENC2_DEFINE_STEPS(i64, int64_t, uint64_t)
TS2DIFF_ENC2_DEFINE_STEPS(i32, int32_t, uint32_t)

/*
 * Generates ts2diff_enc2_pack_rest_SUF: the scalar packer (ts2diff_pack_from_SUF), compiled for
 * the baseline ISA and kept out of line, for what the vector steps leave (the last < 32 deltas
 * of a block and widths 17..64). Inlined into the AVX2 block writer, widths above 16 ran at
 * 0.64-0.95x the scalar row's speed (int32 widths 24 and 32: 0.80x): the compiler vectorised
 * the 8-delta residual gather (its disassembly stores ymm registers to stack slots that the
 * packing then reads back one value at a time).
 */
#define TS2DIFF_ENC2_DEFINE_PACK_REST(SUF, T, UT)                                                  \
    static TS2DIFF_NOINLINE uint8_t *ts2diff_enc2_pack_rest_##SUF(const T *v, size_t n, int w,    \
                                                                  UT umin, size_t i, uint8_t *o)  \
    {                                                                                              \
        return ts2diff_pack_from_##SUF(v, n, w, umin, i, o);                                       \
    }
/* ts2diff_enc2_pack_rest_i64, ts2diff_enc2_pack_rest_i32 */
TS2DIFF_ENC2_DEFINE_PACK_REST(i64, int64_t, uint64_t)
TS2DIFF_ENC2_DEFINE_PACK_REST(i32, int32_t, uint32_t)

/*
 * Generates ts2diff_write_block_SUF_avx2, the AVX2 twin of ts2diff_write_block_SUF: the header,
 * the vector steps for widths 1..16, the rest by the scalar packer. A macro because the two types
 * differ only in these names.
 */
#define TS2DIFF_ENC2_DEFINE_WRITE_BLOCK(SUF, T, UT)                                                \
    static TSFILE_TARGET_AVX2 uint8_t *ts2diff_write_block_##SUF##_avx2(                           \
        const T *v, const ts2diff_blockinfo *b, uint8_t *o)                                        \
    {                                                                                              \
        TS2DIFF_WRITE_BLOCK_START(SUF, UT);                                                        \
        size_t i = 0;                                                                              \
        if (w <= TS2DIFF_ENC2_MAX_WIDTH && n >= 32) {                                              \
            const uint8_t *end = o + ((n * (size_t)w + 7) >> 3);                                   \
            i = ts2diff_enc2_steps_##SUF(v, n, w, umin, end, &o);                                  \
        }                                                                                          \
        return i < n ? ts2diff_enc2_pack_rest_##SUF(v, n, w, umin, i, o) : o;                      \
    }
/* ts2diff_write_block_i64_avx2, ts2diff_write_block_i32_avx2 */
TS2DIFF_ENC2_DEFINE_WRITE_BLOCK(i64, int64_t, uint64_t)
TS2DIFF_ENC2_DEFINE_WRITE_BLOCK(i32, int32_t, uint32_t)

/* The writing pass of the avx2 row (ts2diff_write_* with this block writer). */
TS2DIFF_DEFINE_WRITE(static TSFILE_TARGET_AVX2, ts2diff_write_i64_avx2, int64_t,
                     ts2diff_write_block_i64_avx2)
TS2DIFF_DEFINE_WRITE(static TSFILE_TARGET_AVX2, ts2diff_write_i32_avx2, int32_t,
                     ts2diff_write_block_i32_avx2)

#endif /* TSFILE_ISA_AVX2 */
#endif /* TS2DIFF_ENCODE_AVX2_H */
