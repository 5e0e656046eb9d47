/*
 * ts2diff_check.c: C-level check of the TS_2DIFF kernels, built and run by
 * tests/test_isa_emulation.py natively (SIMD on and -DTSFILE_NO_SIMD) and for aarch64 under
 * qemu-user. For every width (0..32 int32, 0..64 int64), several delta counts and every buffer
 * alignment 0..15, blocks are encoded by the scalar encoder and decoded by the scalar kernel, each
 * SIMD row of the implementation table (ts2diff_impls.h) this CPU can run, and the streaming
 * decoder; all must reproduce the original values, and every row's encode plan and packed
 * bytes must equal the scalar ones. The
 * packed bytes sit at the very end of an exactly sized heap buffer, so an over-read past the end
 * shows up under valgrind / ASan. Exit status 0 = all passed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts2diff_impls.h"

#include "check_common.h"

static ts2diff_block_fn_i64 simd64 = NULL;
static ts2diff_block_fn_i32 simd32 = NULL;
static size_t (*simd_plan64)(const int64_t *, size_t, size_t, uint64_t, ts2diff_blockinfo *) = NULL;
static size_t (*simd_plan32)(const int32_t *, size_t, size_t, uint64_t, ts2diff_blockinfo *) = NULL;
static ts2diff_write_fn_i64 simd_write64 = NULL; /* the row's bit packing */
static ts2diff_write_fn_i32 simd_write32 = NULL;

/* Values whose block (all deltas) has exactly width w: deltas base + r, r in [0, 2^w), with the
 * base chosen so that no delta crosses the signed boundary (the encoder's minimum is signed). */
static void make_values(int is64, int w, size_t m, int64_t *v64, int32_t *v32)
{
    const int bits = is64 ? 64 : 32;
    const uint64_t mask = w == 64 ? ~0ull : ((1ull << w) - 1);
    const uint64_t full = is64 ? ~0ull : 0xFFFFFFFFull;
    const uint64_t span = (full - mask) + 1; /* admissible bases: INT_MIN .. INT_MAX - mask */
    const uint64_t base = (1ull << (bits - 1)) + (span ? rnd() % span : rnd());
    uint64_t acc = rnd();
    for (size_t i = 0; i < m; i++) {
        if (i > 0) {
            uint64_t r = rnd() & mask;
            if (i == 1) r = mask; /* force the full width */
            if (i == 2) r = 0;    /* and the minimum */
            acc += base + r;
        }
        if (is64) v64[i] = (int64_t)acc;
        else v32[i] = (int32_t)(uint32_t)acc;
    }
}

static void check_one(int is64, int w, size_t m, size_t align, size_t slack)
{
    int64_t *v64 = malloc(sizeof(int64_t) * (m + 1));
    int32_t *v32 = malloc(sizeof(int32_t) * (m + 1));
    make_values(is64, w, m, v64, v32);
    size_t bound = ts2diff_encode_bound(m, TS2DIFF_MAX_BLOCK_DELTAS, is64);
    uint8_t *enc = malloc(bound);
    size_t len = is64 ? ts2diff_encode_i64(v64, m, m, enc) : ts2diff_encode_i32(v32, m, m, enc);
    /* the block's width must be the requested one (needs two deltas, m >= 3) */
    if (m >= 3 && (int)ts2diff_load_be32(enc + 4) != w)
        FAIL("width %d m %zu: encoder wrote width %u\n", w, m, ts2diff_load_be32(enc + 4));
    /* the two-pass encoder (what the Python module uses) into an exactly sized buffer: same bytes,
     * and no write past the planned size (ASan) */
    if (align == 0 && slack == 0) {
        const size_t nblocks = ts2diff_block_count(m, 64) + 1;
        ts2diff_blockinfo *info = malloc(sizeof *info * nblocks);
        size_t bound7 = ts2diff_encode_bound(m, 64, is64);
        uint8_t *one = malloc(bound7);
        size_t len1 = is64 ? ts2diff_encode_i64(v64, m, 64, one) : ts2diff_encode_i32(v32, m, 64, one);
        size_t planned = is64 ? ts2diff_plan_i64(v64, m, 64, 0, info)
                              : ts2diff_plan_i32(v32, m, 64, 0, info);
        uint8_t *exact = malloc(planned ? planned : 1);
        size_t written = is64 ? ts2diff_write_i64(v64, m, 64, info, exact)
                              : ts2diff_write_i32(v32, m, 64, info, exact);
        if (planned != len1 || written != planned || memcmp(one, exact, planned) != 0)
            FAIL("is64 %d w %d m %zu: two-pass encoder differs (%zu / %zu / %zu bytes)\n", is64,
                 w, m, len1, planned, written);
        if (simd_plan64) { /* the SIMD planning pass decides every block the same way */
            ts2diff_blockinfo *info2 = malloc(sizeof *info2 * nblocks);
            size_t planned2 = is64 ? simd_plan64(v64, m, 64, 0, info2)
                                   : simd_plan32(v32, m, 64, 0, info2);
            if (planned2 != planned ||
                memcmp(info, info2, sizeof *info * ts2diff_block_count(m, 64)) != 0)
                FAIL("is64 %d w %d m %zu: SIMD plan differs\n", is64, w, m);
            free(info2);
        }
        if (simd_write64) { /* the row's packing: the scalar bytes, nothing past them (ASan) */
            uint8_t *exact2 = malloc(planned ? planned : 1);
            size_t written2 = is64 ? simd_write64(v64, m, 64, info, exact2)
                                   : simd_write32(v32, m, 64, info, exact2);
            if (written2 != planned || memcmp(exact, exact2, planned) != 0)
                FAIL("is64 %d w %d m %zu: SIMD packing differs\n", is64, w, m);
            free(exact2);
            /* block by block (as the writer's pages call it), each into its own exactly sized
             * buffer: the same bytes, and nothing past a block's planned end (ASan) */
            size_t at = 0, k = 0;
            for (size_t s = 0; s < m; s += 65, k++) {
                const size_t mk = m - s < 65 ? m - s : 65;
                const size_t bits = (size_t)info[k].n * (size_t)info[k].width;
                const size_t size = (is64 ? 24 : 16) + ((bits + 7) >> 3);
                uint8_t *blk = malloc(size);
                size_t wk = is64 ? simd_write64(v64 + s, mk, 64, &info[k], blk)
                                 : simd_write32(v32 + s, mk, 64, &info[k], blk);
                if (wk != size || at + size > planned || memcmp(exact + at, blk, size) != 0)
                    FAIL("is64 %d w %d m %zu: SIMD packing of block %zu differs\n", is64, w, m, k);
                at += size;
                free(blk);
            }
        }
        free(exact);
        free(one);
        free(info);
    }
    /* copy to an exactly sized buffer at the given alignment, plus `slack` bytes after */
    uint8_t *raw = malloc(align + len + slack);
    uint8_t *buf = raw + align;
    memcpy(buf, enc, len);
    memset(buf + len, 0xA5, slack);
    const size_t nb = len + slack;
    ts2diff_error err;
    for (int kernel = 0; kernel < 3; kernel++) {
        if (kernel == 1 && !(is64 ? (void *)simd64 : (void *)simd32)) continue;
        int64_t *o64 = calloc(m + 1, 8);
        int32_t *o32 = calloc(m + 1, 4);
        for (size_t count = (m > 3 ? m - 3 : 0); count <= m; count++) {
            int64_t used;
            if (kernel == 2) { /* streaming decoder */
                ts2diff_stream st;
                ts2diff_stream_init(&st, buf, len, is64);
                used = 0;
                for (size_t i = 0; i < count; i++) {
                    int rc = is64 ? ts2diff_stream_next_i64(&st, &o64[i])
                                  : ts2diff_stream_next_i32(&st, &o32[i]);
                    if (rc != 1) { used = -1; break; }
                }
                if (used == 0) used = count ? (int64_t)len : 0;
            } else if (is64) {
                used = ts2diff_decode_buffer_i64(buf, nb, o64, count,
                                                 kernel ? simd64 : ts2diff_decode_i64_scalar, &err);
            } else {
                used = ts2diff_decode_buffer_i32(buf, nb, o32, count,
                                                 kernel ? simd32 : ts2diff_decode_i32_scalar, &err);
            }
            if (used != (count ? (int64_t)len : 0))
                FAIL("is64 %d w %d m %zu count %zu kernel %d: used %lld of %zu\n", is64, w, m,
                     count, kernel, (long long)used, len);
            for (size_t i = 0; i < count; i++) {
                if (is64 ? o64[i] != v64[i] : o32[i] != v32[i]) {
                    FAIL("is64 %d w %d m %zu align %zu slack %zu kernel %d: value %zu differs\n",
                         is64, w, m, align, slack, kernel, i);
                    break;
                }
            }
        }
        free(o64);
        free(o32);
    }
    free(raw);
    free(enc);
    free(v64);
    free(v32);
}

/* Blocks without deltas (m = 1 mod 65 with block size 64): the planners (scalar and SIMD) give
 * them width 0 and the min_delta of the block before, or the carried one when the page starts with
 * one; and every kernel decodes such a block the same whatever width its header claims. */
static void check_single_value_blocks(int is64)
{
    static const size_t lengths[] = {1, 66, 131};
    const uint64_t carried = is64 ? 0xFEDCBA9876543210ull : 0x76543210ull;
    for (size_t li = 0; li < 3; li++) {
        const size_t m = lengths[li], nblocks = ts2diff_block_count(m, 64);
        int64_t v64[131];
        int32_t v32[131];
        make_values(is64, 7, m, v64, v32);
        ts2diff_blockinfo info[3], info2[3];
        if (is64) ts2diff_plan_i64(v64, m, 64, carried, info);
        else ts2diff_plan_i32(v32, m, 64, carried, info);
        const ts2diff_blockinfo *last = &info[nblocks - 1];
        const uint64_t want = nblocks > 1 ? info[nblocks - 2].min_delta : carried;
        if (last->n != 0 || last->width != 0 || last->min_delta != want)
            FAIL("is64 %d m %zu: block without deltas planned as n %d width %d min %llx\n", is64,
                 m, last->n, last->width, (unsigned long long)last->min_delta);
        if (simd_plan64) {
            if (is64) simd_plan64(v64, m, 64, carried, info2);
            else simd_plan32(v32, m, 64, carried, info2);
            if (memcmp(info, info2, sizeof *info * nblocks) != 0)
                FAIL("is64 %d m %zu: SIMD plan of a block without deltas differs\n", is64, m);
        }
    }
    /* one block: n = 0, any width, min_delta and first; nothing packed */
    const size_t hdr = ts2diff_header_size(is64);
    for (int w = 0; w <= (is64 ? 64 : 32); w++) {
        uint8_t buf[24];
        ts2diff_store_be32(buf, 0);
        ts2diff_store_be32(buf + 4, (uint32_t)w);
        if (is64) {
            ts2diff_store_be64(buf + 8, rnd());
            ts2diff_store_be64(buf + 16, 0x8000000000000001ull);
        } else {
            ts2diff_store_be32(buf + 8, (uint32_t)rnd());
            ts2diff_store_be32(buf + 12, 0x80000001u);
        }
        uint8_t *exact = malloc(hdr); /* exactly sized: an over-read shows under ASan */
        memcpy(exact, buf, hdr);
        ts2diff_error err;
        for (int kernel = 0; kernel < 3; kernel++) {
            if (kernel == 1 && !(is64 ? (void *)simd64 : (void *)simd32)) continue;
            int64_t o64[2] = {0, 0};
            int32_t o32[2] = {0, 0};
            int64_t used;
            if (kernel == 2) {
                ts2diff_stream st;
                ts2diff_stream_init(&st, exact, hdr, is64);
                int rc = is64 ? ts2diff_stream_next_i64(&st, &o64[0])
                              : ts2diff_stream_next_i32(&st, &o32[0]);
                used = rc == 1 && !ts2diff_stream_has_next(&st) ? (int64_t)hdr : -1;
            } else if (is64) {
                used = ts2diff_decode_buffer_i64(exact, hdr, o64, 1,
                                                 kernel ? simd64 : ts2diff_decode_i64_scalar, &err);
            } else {
                used = ts2diff_decode_buffer_i32(exact, hdr, o32, 1,
                                                 kernel ? simd32 : ts2diff_decode_i32_scalar, &err);
            }
            const int ok = is64 ? o64[0] == (int64_t)0x8000000000000001ull
                                : o32[0] == (int32_t)0x80000001u;
            if (used != (int64_t)hdr || !ok)
                FAIL("is64 %d: one-value block claiming width %d, kernel %d: used %lld\n", is64,
                     w, kernel, (long long)used);
        }
        free(exact);
    }
}

/* Every check, with the SIMD pointers set to one row of the table (or NULL: scalar only). */
static size_t run_all_checks(void)
{
    static const size_t lengths[] = {1, 2, 3, 8, 9, 16, 17, 31, 33, 64, 65, 129, 130, 200, 257,
                                     1000, 4097};
    size_t checks = 0;
    for (int is64 = 0; is64 <= 1; is64++)
        for (int w = 0; w <= (is64 ? 64 : 32); w++)
            for (size_t li = 0; li < sizeof lengths / sizeof *lengths; li++)
                for (size_t align = 0; align < 16; align += (lengths[li] > 300 ? 5 : 1))
                    for (size_t slack = 0; slack <= 80; slack += 20) {
                        check_one(is64, w, lengths[li], align, slack);
                        checks++;
                    }
    for (int is64 = 0; is64 <= 1; is64++) check_single_value_blocks(is64);
    return checks;
}

/* The row picked for an ISA level and a CPU feature set (synthetic masks: a CPU this machine is
 * not, e.g. AVX-512 without VBMI, which qemu-user cannot emulate). */
static void check_row(int level, unsigned features, const char *want)
{
    const char *got = ts2diff_impls[ts2diff_pick_impl(level, features)].head.name;
    if (strcmp(got, want) != 0)
        FAIL("level %d features %#x: picked row %s, want %s\n", level, features, got, want);
}

static void check_row_choice(void)
{
    check_row(TSFILE_LEVEL_SCALAR, ~0u, "scalar");
#if !TSFILE_ISA_NEON
    check_row(TSFILE_LEVEL_AVX512, 0, "scalar");
#endif
#if TSFILE_ISA_AVX512
    check_row(TSFILE_LEVEL_AVX512, TSFILE_NEED_AVX512_VBMI, "avx512");
    check_row(TSFILE_LEVEL_AVX2, TSFILE_NEED_AVX512_VBMI, "avx2");
    /* Skylake-Server: AVX-512 F/BW/VL without VBMI -> the AVX2 row (the AVX-512 one uses vpermb) */
    check_row(TSFILE_LEVEL_AVX512, TSFILE_NEED_AVX512, "avx2");
    /* AVX-512 VBMI but no LZCNT (the AVX2 set is part of every wider row) -> scalar */
    check_row(TSFILE_LEVEL_AVX512, TSFILE_NEED_AVX512_VBMI & ~(unsigned)TSFILE_CPU_LZCNT, "scalar");
    check_row(TSFILE_LEVEL_AVX512, TSFILE_NEED_AVX2, "avx2");
#endif
#if TSFILE_ISA_NEON
    check_row(TSFILE_LEVEL_AVX512, 0, "neon");
    check_row(TSFILE_LEVEL_NEON, 0, "neon");
#endif
}

int main(void)
{
    check_row_choice();
    const unsigned features = tsfile_cpu_features();
    char ran[64] = "";
    size_t checks = 0;
    int simd_rows = 0;
    for (size_t i = 0; i + 1 < TS2DIFF_N_IMPLS; i++) { /* the last row is the scalar one */
        const ts2diff_impl *row = &ts2diff_impls[i];
        if ((features & row->head.need) != row->head.need) continue;
        row->init();
        simd64 = row->decode_i64;
        simd32 = row->decode_i32;
        simd_plan64 = row->plan_i64;
        simd_plan32 = row->plan_i32;
        simd_write64 = row->write_i64;
        simd_write32 = row->write_i32;
        checks += run_all_checks();
        snprintf(ran + strlen(ran), sizeof ran - strlen(ran), "%s%s", simd_rows ? "+" : "",
                 row->head.name);
        simd_rows++;
    }
    if (!simd_rows) checks += run_all_checks(); /* scalar kernels and encoder only */
    printf("ts2diff_check [%s%s%s]: %zu cases, %d failures\n", simd_rows ? ran : TSFILE_ISA_NAME,
           simd_rows ? "" : ", no SIMD kernel", "", checks, failures);
    return failures != 0;
}
