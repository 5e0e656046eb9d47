/*
 * rle_avx512.h: AVX-512 (F/BW/VL/VBMI) unpacking of RLE bit-packed runs (x86-64; every function
 * carries TSFILE_TARGET_AVX512, the avx512 row of rle_impls.h needs TSFILE_NEED_AVX512_VBMI).
 *
 * A bit-packed run is a sequence of groups of 8 MSB-first values of width w, w bytes each (see
 * rle_scalar.h). In a group every value starts at the same byte offset (j*w)>>3 and bit shift
 * (j*w)&7, so one `vpermb` with a per-width index vector gathers, from a 64-byte register holding
 * the group, each value's bytes big-endian into its lane; a per-lane left shift drops the bits of
 * the value before it and a right shift by (lane bits - w) cuts it. Two lane layouts:
 *
 *   D32    int32 output, 32-bit lanes: two groups (2w <= 64 bytes) per register, 16 values; for
 *          w > 25 a value can touch a fifth byte, brought to the top of the lane by a second
 *          vpermb, shifted right by 32 - shift and or-ed in (a shift of 32 gives 0 in vpsrlvd, so
 *          shift 0 needs no special case);
 *   Q64    int64 output, 64-bit lanes: one group per register, 8 values; for w > 57 the same with
 *          a ninth byte.
 *
 * Loads: a plain 64-byte load while those 64 bytes lie within the caller's buffer (`room`), then
 * a byte-masked load of exactly the group's own bytes, so no byte past the buffer is read (masked
 * bytes are zeros; the gathered bytes past a value's bits are shifted out). Whole groups only:
 * the partial last group of a run and RLE runs (a fill) are the scalar code's, as for AVX2.
 */
#ifndef TSFILE_RLE_AVX512_H
#define TSFILE_RLE_AVX512_H

#include "rle_scalar.h"

#if TSFILE_ISA_AVX512

/* Per-width index and shift vectors (64-byte aligned for the vector loads). */
typedef struct {
    uint8_t idx[64];     /* vpermb index: the lane bytes of each value, big-endian */
    uint8_t idx_hi[64];  /* w > 25 (D32) / 57 (Q64): the fifth / ninth byte at the lane's top */
    uint64_t shl[8];     /* Q64: bit shift of each lane's value */
    uint32_t shl32[16];  /* D32: the same for 32-bit lanes */
} __attribute__((aligned(64))) rle_avx512_plan;

static rle_avx512_plan rle_avx512_q64[65]; /* 64-bit lanes, one group, widths 1..64 */
static rle_avx512_plan rle_avx512_d32[33]; /* 32-bit lanes, two groups, widths 1..32 */

/* Widest values that, after a shift of up to 7 bits, still fit in a 32- / 64-bit lane (wider
 * ones take the extra byte). */
#define RLE_AVX512_D32_MAX_W 25
#define RLE_AVX512_Q64_MAX_W 57

static void rle_avx512_init(void)
{
    for (int w = 1; w <= 64; w++) {
        rle_avx512_plan *p = &rle_avx512_q64[w];
        memset(p, 0, sizeof *p);
        for (int j = 0; j < 8; j++) {
            unsigned bit = (unsigned)(j * w), off = bit >> 3;
            for (int k = 0; k < 8; k++) p->idx[8 * j + k] = (uint8_t)((off + 7 - (unsigned)k) & 63);
            /* the ninth byte (off + 8 < 64 whenever the value reaches it; else shifted out) */
            p->idx_hi[8 * j + 7] = (uint8_t)((off + 8) & 63);
            p->shl[j] = bit & 7;
        }
    }
    for (int w = 1; w <= 32; w++) {
        rle_avx512_plan *p = &rle_avx512_d32[w];
        memset(p, 0, sizeof *p);
        for (int i = 0; i < 16; i++) {
            unsigned bit = (unsigned)((i & 7) * w), off = (unsigned)((i >> 3) * w) + (bit >> 3);
            for (int k = 0; k < 4; k++) p->idx[4 * i + k] = (uint8_t)(off + 3 - (unsigned)k);
            p->idx_hi[4 * i + 3] = (uint8_t)((off + 4) & 63); /* as idx_hi of Q64 */
            p->shl32[i] = bit & 7;
        }
    }
}

#define RLE_AVX512_INLINE TSFILE_TARGET_AVX512 TSFILE_INLINE

/* Mask of the first `nbytes` (<= 64) bytes of a register. */
RLE_AVX512_INLINE __mmask64 rle_avx512_bytes(size_t nbytes)
{
    return nbytes >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << nbytes) - 1);
}

/* 64 bytes from g: a plain load when they are all inside the buffer, else the first `own`. */
RLE_AVX512_INLINE __m512i rle_avx512_load(const uint8_t *g, size_t room, size_t own)
{
    if (TSFILE_LIKELY(room >= 64)) return _mm512_loadu_si512((const void *)g);
    return _mm512_maskz_loadu_epi8(rle_avx512_bytes(own), g);
}

/* A plan's vectors, loaded into registers once per run (loads through the plan inside the group
 * loop would be repeated after every store: the output may alias the plan as far as C knows). */
typedef struct {
    __m512i idx, idx_hi, shl, shr; /* shr = lane bits - shl: the extra byte's right shift */
    __m128i cut;                   /* lane bits - w */
} rle_avx512_vecs;

/*
 * Generates, for one lane layout L (q64: 64-bit lanes, d32: 32-bit lanes; BITS the lane width),
 * rle_avx512_L_vecs (a plan's vectors in registers; SHL names the plan's shift field of that lane
 * width) and rle_avx512_L_values (the values of the group(s) in x; `split`: the extra byte, whose
 * lanes' top bytes TOP selects, is or-ed in). The layouts differ only in lane width.
 */
#define RLE_AVX512_DEFINE_LANES(L, BITS, SHL, TOP)                                                 \
    RLE_AVX512_INLINE rle_avx512_vecs rle_avx512_##L##_vecs(const rle_avx512_plan *p, int w)       \
    {                                                                                              \
        rle_avx512_vecs r;                                                                         \
        r.idx = _mm512_load_si512(p->idx);                                                         \
        r.idx_hi = _mm512_load_si512(p->idx_hi);                                                   \
        r.shl = _mm512_load_si512((const void *)p->SHL);                                           \
        r.shr = _mm512_sub_epi##BITS(_mm512_set1_epi##BITS(BITS), r.shl);                          \
        r.cut = _mm_cvtsi32_si128(BITS - w);                                                       \
        return r;                                                                                  \
    }                                                                                              \
    RLE_AVX512_INLINE __m512i rle_avx512_##L##_values(__m512i x, const rle_avx512_vecs *k,         \
                                                      int split)                                   \
    {                                                                                              \
        __m512i v = _mm512_sllv_epi##BITS(_mm512_permutexvar_epi8(k->idx, x), k->shl);             \
        if (split) {                                                                               \
            const __m512i top = _mm512_maskz_permutexvar_epi8(TOP, k->idx_hi, x);                  \
            v = _mm512_or_si512(v, _mm512_srlv_epi##BITS(top, k->shr));                            \
        }                                                                                          \
        return _mm512_srl_epi##BITS(v, k->cut);                                                    \
    }

RLE_AVX512_DEFINE_LANES(q64, 64, shl, 0x8080808080808080ull)
RLE_AVX512_DEFINE_LANES(d32, 32, shl32, 0x8888888888888888ull)

/* Groups of width w <= 64 into int64 output, one per register. */
RLE_AVX512_INLINE void rle_avx512_q64_groups(const uint8_t *g, size_t room, int w, size_t ngroups,
                                             int64_t *out, int split)
{
    const rle_avx512_vecs k = rle_avx512_q64_vecs(&rle_avx512_q64[w], w);
    for (size_t i = 0; i < ngroups; i++, g += w, room -= (size_t)w) {
        const __m512i x = rle_avx512_load(g, room, (size_t)w);
        _mm512_storeu_si512((void *)(out + 8 * i), rle_avx512_q64_values(x, &k, split));
    }
}

/* Groups of width w <= 32 into int32 output, two per register (the odd last one alone). */
RLE_AVX512_INLINE void rle_avx512_d32_groups(const uint8_t *g, size_t room, int w, size_t ngroups,
                                             int32_t *out, int split)
{
    const rle_avx512_vecs k = rle_avx512_d32_vecs(&rle_avx512_d32[w], w);
    const size_t pair = 2 * (size_t)w;
    size_t i = 0;
    for (; i + 2 <= ngroups; i += 2, g += pair, room -= pair) {
        const __m512i x = rle_avx512_load(g, room, pair);
        _mm512_storeu_si512((void *)(out + 8 * i), rle_avx512_d32_values(x, &k, split));
    }
    if (i < ngroups) { /* its own bytes only; the low 8 lanes stored */
        const __m512i v = rle_avx512_d32_values(rle_avx512_load(g, room, (size_t)w), &k, split);
        _mm256_storeu_si256((__m256i *)(out + 8 * i), _mm512_castsi512_si256(v));
    }
}

/*
 * Generates rle_unpack_groups_SUF_avx512: `ngroups` whole groups of width w (1..FULL_W) into T
 * output through layout L; all of them (their bytes lie within `room`, as the run parser
 * checked). The split/plain choice is made once per run: widths up to MAX_W fit a lane after
 * their shift, FULL_W is byte-aligned, the widths between take the extra byte.
 */
#define RLE_AVX512_DEFINE_UNPACK(SUF, T, L, MAX_W, FULL_W)                                         \
    static TSFILE_TARGET_AVX512 size_t rle_unpack_groups_##SUF##_avx512(                           \
        const uint8_t *g, size_t room, int w, size_t ngroups, T *out)                              \
    {                                                                                              \
        if (w <= MAX_W || w == FULL_W)                                                             \
            rle_avx512_##L##_groups(g, room, w, ngroups, out, 0);                                  \
        else                                                                                       \
            rle_avx512_##L##_groups(g, room, w, ngroups, out, 1);                                  \
        return ngroups;                                                                            \
    }

RLE_AVX512_DEFINE_UNPACK(i32, int32_t, d32, RLE_AVX512_D32_MAX_W, 32)
RLE_AVX512_DEFINE_UNPACK(i64, int64_t, q64, RLE_AVX512_Q64_MAX_W, 64)

RLE_DEFINE_DECODERS(avx512, TSFILE_TARGET_AVX512)

#endif /* TSFILE_ISA_AVX512 */
#endif /* TSFILE_RLE_AVX512_H */
