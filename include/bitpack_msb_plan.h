/*
 * bitpack_msb_plan.h: shuffle plans for SIMD unpacking of MSB-first bit-packed values (TS_2DIFF
 * deltas, TsFile RLE bit-packed runs), shared by the AVX2 and NEON kernels.
 *
 * A group of 8 values of width w occupies exactly w bytes, so every group starts on a byte
 * boundary and the position of value j inside its group (byte (j*w) >> 3, bit (j*w) & 7) depends
 * only on w. For each width a plan lists "slots": a 16-byte unaligned load at a fixed offset from
 * the group start, a byte shuffle (pshufb / tbl) that gathers each value's bytes into a lane in
 * reversed (big-endian -> little-endian) order, and per-lane shift counts. No gather
 * instructions: one load per slot, then register shuffles.
 *
 * Three layouts, chosen per width and value size:
 *   LANES32  2 slots x 4 values in 32-bit lanes: value = (lane << s) >> (32 - w); needs s + w <= 32.
 *   LANES64  4 slots x 2 values in 64-bit lanes: value = (lane << s) >> (64 - w); needs s + w <= 64.
 *   SPLIT64  8 slots x 1 value: 64-bit lane 0 holds the first 8 bytes, lane 1 the ninth byte;
 *            value = ((q0 << s) | (q1 >> (8 - s))) >> (64 - w). For the int64 widths where a value
 *            can span nine bytes (59, 61, 62, 63: some s + w > 64).
 * Shuffle indices 0x80 produce zero bytes on both ISAs (pshufb: high bit; tbl: index >= 16).
 */
#ifndef BITPACK_MSB_PLAN_H
#define BITPACK_MSB_PLAN_H

#include <stdint.h>
#include <string.h>

enum { BITPACK_MSB_LANES32 = 1, BITPACK_MSB_LANES64 = 2, BITPACK_MSB_SPLIT64 = 3 };

#if defined(__GNUC__) || defined(__clang__)
#  define BITPACK_MSB_ALIGN32 __attribute__((aligned(32)))
#elif defined(_MSC_VER)
#  define BITPACK_MSB_ALIGN32 __declspec(align(32))
#else
#  define BITPACK_MSB_ALIGN32
#endif

typedef struct {
    /* shuffle of each slot; slots 2k and 2k+1 are adjacent so one 32-byte load feeds AVX2 */
    BITPACK_MSB_ALIGN32 uint8_t mask[8][16];
    BITPACK_MSB_ALIGN32 uint32_t shl32[2][4]; /* LANES32: left shift of each lane */
    BITPACK_MSB_ALIGN32 uint64_t shl64[8][2]; /* LANES64: left shift per lane; SPLIT64: {s, 0} */
    BITPACK_MSB_ALIGN32 uint64_t shr64[8][2]; /* SPLIT64: {8 - s, 0} (right shift of the 9th byte) */
    int32_t off[8];                           /* load offset of each slot from the group start */
    int kind;
    int nslots;
    int reach; /* bytes read from the group start: max(off) + 16 */
    int width;
} bitpack_msb_plan;

/* Fill the plan for width w (1..64) and value size 32 or 64 bits. */
static inline void bitpack_msb_plan_init(bitpack_msb_plan *pl, int w, int value_bits)
{
    int fits32 = 1, fits64 = 1;
    for (int j = 0; j < 8; j++) {
        const int s = (j * w) & 7;
        if (s + w > 32) fits32 = 0;
        if (s + w > 64) fits64 = 0;
    }
    memset(pl, 0, sizeof *pl);
    memset(pl->mask, 0x80, sizeof pl->mask);
    pl->width = w;
    if (value_bits == 32 && fits32) {
        pl->kind = BITPACK_MSB_LANES32;
        pl->nslots = 2;
        for (int k = 0; k < 2; k++) {
            pl->off[k] = (4 * k * w) >> 3;
            for (int l = 0; l < 4; l++) {
                const int lb = (4 * k + l) * w - pl->off[k] * 8;
                const int ob = lb >> 3;
                for (int t = 0; t < 4; t++) pl->mask[k][4 * l + 3 - t] = (uint8_t)(ob + t);
                pl->shl32[k][l] = (uint32_t)(lb & 7);
            }
        }
    } else if (fits64) {
        pl->kind = BITPACK_MSB_LANES64;
        pl->nslots = 4;
        for (int k = 0; k < 4; k++) {
            pl->off[k] = (2 * k * w) >> 3;
            for (int l = 0; l < 2; l++) {
                const int lb = (2 * k + l) * w - pl->off[k] * 8;
                const int ob = lb >> 3;
                for (int t = 0; t < 8; t++) pl->mask[k][8 * l + 7 - t] = (uint8_t)(ob + t);
                pl->shl64[k][l] = (uint64_t)(lb & 7);
            }
        }
    } else {
        pl->kind = BITPACK_MSB_SPLIT64;
        pl->nslots = 8;
        for (int j = 0; j < 8; j++) {
            pl->off[j] = (j * w) >> 3;
            for (int t = 0; t < 8; t++) pl->mask[j][7 - t] = (uint8_t)t;
            pl->mask[j][8] = 8;
            pl->shl64[j][0] = (uint64_t)((j * w) & 7);
            pl->shr64[j][0] = 8 - pl->shl64[j][0];
        }
    }
    int reach = 0;
    for (int k = 0; k < pl->nslots; k++)
        if (pl->off[k] + 16 > reach) reach = pl->off[k] + 16;
    pl->reach = reach;
}

#endif /* BITPACK_MSB_PLAN_H */
