/*
 * ts2diff_blocks_check.c: the SIMD rows' TS_2DIFF block writers (the AVX2 packer of
 * ts2diff_encode_avx2.h, and every other row this CPU runs) against the scalar writer, on pages
 * whose blocks differ from each other: each block of its own width (0..20, the vector steps'
 * 1..16 and the scalar packer's above), its min_delta anywhere in the type's range (residuals
 * that wrap), at block sizes 8..1024 around the 32-delta step (31, 32, 33, 63..65, 127..129, 1024)
 * and page lengths ending on every position of a step. Planned by the scalar plan; written whole
 * into an exactly sized buffer, then block after block (as a page's blocks are written), each
 * into its own exactly sized buffer: the scalar bytes, and no store past a block's planned end
 * (ASan, via tests/test_isa_emulation.py). ts2diff_check.c does this at one block size (64) and
 * one width per page. Exit status 0 = passed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts2diff_impls.h"

#define CHECK_SEED 0x2DF0C0FFEEull
#include "check_common.h"

static size_t cases = 0;

/* m values, block size bs: each block of bs deltas of a random width w (0..20) over a random
 * min_delta (the deltas min + r, r < 2^w, wrapping as the type does). */
static void make_page(int is64, size_t m, size_t bs, int64_t *v64, int32_t *v32)
{
    uint64_t acc = rnd();
    int w = 0;
    uint64_t min = 0;
    for (size_t i = 0; i < m; i++) {
        if (i % (bs + 1) == 0) { /* a block's first value (stored whole) and its deltas' shape */
            w = (int)(rnd() % 21);
            const int where = (int)(rnd() % 4);
            min = where == 0 ? rnd() : where == 1 ? (uint64_t)INT64_MIN + rnd() % 8
                : where == 2 ? (uint64_t)INT64_MAX - rnd() % 8 : rnd() % 16;
            if (!is64) min = (uint64_t)(int64_t)(int32_t)(uint32_t)min;
            acc = rnd();
        } else {
            const uint64_t r = w ? (rnd() & ((1ull << w) - 1)) : 0;
            const int edge = (int)(rnd() % 7);
            acc += min + (edge == 0 ? 0 : edge == 1 && w ? (1ull << w) - 1 : r);
        }
        if (is64) v64[i] = (int64_t)acc;
        else v32[i] = (int32_t)(uint32_t)acc;
    }
}

static void check_page(const ts2diff_impl *row, int is64, size_t m, size_t bs)
{
    int64_t *v64 = malloc(sizeof(int64_t) * (m + 1));
    int32_t *v32 = malloc(sizeof(int32_t) * (m + 1));
    make_page(is64, m, bs, v64, v32);
    const size_t nblocks = ts2diff_block_count(m, bs) + 1;
    ts2diff_blockinfo *info = malloc(sizeof *info * nblocks);
    const size_t planned = is64 ? ts2diff_plan_i64(v64, m, bs, 0, info)
                                : ts2diff_plan_i32(v32, m, bs, 0, info);
    uint8_t *want = malloc(planned ? planned : 1), *got = malloc(planned ? planned : 1);
    const size_t wn = is64 ? ts2diff_write_i64(v64, m, bs, info, want)
                           : ts2diff_write_i32(v32, m, bs, info, want);
    const size_t gn = is64 ? row->write_i64(v64, m, bs, info, got)
                           : row->write_i32(v32, m, bs, info, got);
    cases++;
    if (wn != planned || gn != planned || memcmp(want, got, planned))
        FAIL("%s is64 %d m %zu bs %zu: page differs (%zu / %zu / %zu bytes)", row->head.name,
             is64, m, bs, planned, wn, gn);
    size_t at = 0, k = 0;
    for (size_t s = 0; s < m; s += bs + 1, k++) {
        const size_t mk = m - s < bs + 1 ? m - s : bs + 1;
        const size_t bits = (size_t)info[k].n * (size_t)info[k].width;
        const size_t size = (is64 ? 24 : 16) + ((bits + 7) >> 3);
        uint8_t *blk = malloc(size);
        const size_t wk = is64 ? row->write_i64(v64 + s, mk, bs, &info[k], blk)
                               : row->write_i32(v32 + s, mk, bs, &info[k], blk);
        cases++;
        if (wk != size || at + size > planned || memcmp(want + at, blk, size))
            FAIL("%s is64 %d m %zu bs %zu: block %zu (width %d, %d deltas) differs",
                 row->head.name, is64, m, bs, k, info[k].width, info[k].n);
        at += size;
        free(blk);
    }
    if (at != planned) FAIL("is64 %d m %zu bs %zu: blocks sum to %zu of %zu", is64, m, bs, at,
                            planned);
    free(want);
    free(got);
    free(info);
    free(v64);
    free(v32);
}

int main(void)
{
    static const size_t sizes[] = {8, 31, 32, 33, 63, 64, 65, 96, 127, 128, 129, 256, 1024};
    const unsigned features = tsfile_cpu_features();
    int rows = 0;
    for (size_t i = 0; i + 1 < TS2DIFF_N_IMPLS; i++) { /* the last row is the scalar one */
        const ts2diff_impl *row = &ts2diff_impls[i];
        if ((features & row->head.need) != row->head.need) continue;
        row->init();
        rows++;
        for (int is64 = 0; is64 < 2; is64++) {
            for (size_t b = 0; b < sizeof sizes / sizeof sizes[0]; b++) {
                const size_t bs = sizes[b];
                /* every page length to 3 blocks and a bit, then a few long pages */
                for (size_t m = 1; m <= 3 * (bs + 1) + 40 && m <= 700; m++) check_page(row, is64, m, bs);
                for (int r = 0; r < 20; r++) check_page(row, is64, 1 + rnd() % 20000, bs);
            }
        }
        printf("[%s] ", row->head.name);
    }
    printf("ts2diff blocks: %d SIMD rows, %zu cases, %d failures\n", rows, cases, failures);
    return failures != 0;
}
