/*
 * basic_codecs_check.c: C-level check of the PLAIN, RLE and ZIGZAG kernels, built and run by
 * tests/test_isa_emulation.py natively (SIMD on and -DTSFILE_NO_SIMD) and for aarch64 under
 * qemu-user (so the headers are known to build and work on arm64).
 *
 * RLE: the format notes' example bytes; for every width (0..32 int32, 0..64 int64) and lengths
 * around group and run boundaries, values are encoded, decoded by the batch kernel and by the
 * streaming decoder, and compared; every truncation of the encoding must fail cleanly. PLAIN and
 * ZIGZAG: round trips of random values incl. the extremes, and truncations. Encoded bytes sit at
 * the very end of exactly sized heap buffers, so an over-read shows up under valgrind / ASan.
 * Exit status 0 = all passed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "plain_scalar.h"
#include "plain_impls.h"
#include "rle_scalar.h"
#include "rle_impls.h"
#include "zigzag_scalar.h"

#define CHECK_SEED 0x243F6A8885A308D3ull
#include "check_common.h"
static size_t cases = 0;

/* A copy of `len` bytes at the very end of a fresh heap block. */
static uint8_t *tail_copy(const uint8_t *src, size_t len, uint8_t **block)
{
    *block = (uint8_t *)malloc(len ? len : 1);
    memcpy(*block, src, len);
    return *block;
}

/* 1 when this CPU has every feature the implementation row needs. */
static int cpu_runs(const tsfile_impl_head *h) { return tsfile_cpu_has(h->need); }

static const size_t LENGTHS[] = {0, 1, 7, 8, 9, 63, 64, 65, 503, 504, 505, 1008, 1013, 4001};
#define NLEN (sizeof LENGTHS / sizeof LENGTHS[0])

static void check_rle(int is64, int w)
{
    for (size_t li = 0; li < NLEN; li++) {
        size_t n = LENGTHS[li];
        int64_t *v = (int64_t *)malloc((n + 1) * 8);
        for (size_t i = 0; i < n; i++) {
            uint64_t r = rnd();
            if (w < 64) r &= (1ull << w) - 1;
            if (!is64) r = (uint64_t)(int64_t)(int32_t)(uint32_t)r;
            v[i] = (int64_t)r;
        }
        uint8_t *enc = (uint8_t *)malloc(rle_encode_bound(n));
        size_t len;
        if (is64) {
            len = rle_encode_i64_scalar(v, n, w, enc);
        } else {
            int32_t *v32 = (int32_t *)malloc((n + 1) * 4);
            for (size_t i = 0; i < n; i++) v32[i] = (int32_t)v[i];
            len = rle_encode_i32_scalar(v32, n, w, enc);
            free(v32);
        }
        uint8_t *block;
        const uint8_t *data = tail_copy(enc, len, &block);
        int64_t *o64 = (int64_t *)malloc((n + 1) * 8);
        int32_t *o32 = (int32_t *)malloc((n + 1) * 4);
        size_t at = 0;
        ptrdiff_t r;
        for (size_t simd = 0; simd < RLE_N_IMPLS; simd++) { /* every row this CPU runs */
            const rle_impl *row = &rle_impls[simd];
            if (!cpu_runs(&row->head)) continue;
            memset(o64, 0x55, (n + 1) * 8);
            memset(o32, 0x55, (n + 1) * 4);
            r = is64 ? row->decode_i64(data, len, o64, n, &at) : row->decode_i32(data, len, o32, n, &at);
            if (r != (ptrdiff_t)len)
                FAIL("rle row %zu is64=%d w=%d n=%zu: consumed %td of %zu\n", simd, is64, w, n, r, len);
            for (size_t i = 0; i < n; i++) {
                int64_t got = is64 ? o64[i] : o32[i];
                if (got != v[i]) {
                    FAIL("rle row %zu is64=%d w=%d n=%zu: value %zu\n", simd, is64, w, n, i);
                    break;
                }
            }
            if ((is64 ? o64[n] : o32[n]) != (is64 ? 0x5555555555555555ll : 0x55555555))
                FAIL("rle row %zu is64=%d w=%d n=%zu: wrote past the end\n", simd, is64, w, n);
        }
        rle_stream s;
        rle_stream_init(&s, data, len, is64);
        for (size_t i = 0; i < n; i++) {
            uint64_t u = 0;
            int e = rle_stream_next(&s, &u);
            int64_t got = is64 ? (int64_t)u : (int64_t)(int32_t)(uint32_t)u;
            if (e != 1 || got != v[i]) {
                FAIL("rle stream is64=%d w=%d n=%zu: value %zu (e=%d)\n", is64, w, n, i, e);
                break;
            }
        }
        uint64_t u;
        if (rle_stream_next(&s, &u) != 0) FAIL("rle stream is64=%d w=%d n=%zu: not at end\n", is64, w, n);
        /* every truncation fails (one block: its length covers everything) */
        for (size_t cut = 1; cut < len; cut += 1 + cut / 16) {
            uint8_t *b2;
            const uint8_t *d2 = tail_copy(data, cut, &b2);
            r = is64 ? rle_decode_i64_scalar(d2, cut, o64, n, &at)
                     : rle_decode_i32_scalar(d2, cut, o32, n, &at);
            if (r >= 0) FAIL("rle is64=%d w=%d n=%zu: cut %zu accepted\n", is64, w, n, cut);
            uint64_t total;
            if (rle_count_scalar(d2, cut, is64, UINT64_MAX, &total, &at) >= 0)
                FAIL("rle count is64=%d w=%d n=%zu: cut %zu accepted\n", is64, w, n, cut);
            free(b2);
        }
        cases++;
        free(v);
        free(enc);
        free(block);
        free(o64);
        free(o32);
    }
}

static void check_rle_example(void)
{
    static const uint8_t ex[] = {0x08, 0x05, 0x03, 0x03, 0x2b, 0xf2, 0x00, 0x00, 0x00};
    int32_t v[3] = {5, 15, 25}, o[3];
    uint8_t enc[64];
    size_t len = rle_encode_i32_scalar(v, 3, rle_width_i32(v, 3), enc);
    if (len != sizeof ex || memcmp(enc, ex, len)) FAIL("rle example: encoding differs\n");
    size_t at;
    if (rle_decode_i32_scalar(ex, sizeof ex, o, 3, &at) != (ptrdiff_t)sizeof ex || o[0] != 5 ||
        o[1] != 15 || o[2] != 25)
        FAIL("rle example: decoding differs\n");
    /* an INT64 RLE run: width 40, value 0x0102030405 big-endian, 3 times */
    static const uint8_t run64[] = {0x07, 40, 0x06, 0x01, 0x02, 0x03, 0x04, 0x05};
    int64_t o64[3];
    if (rle_decode_i64_scalar(run64, sizeof run64, o64, 3, &at) != (ptrdiff_t)sizeof run64 ||
        o64[0] != 0x0102030405ll || o64[2] != 0x0102030405ll)
        FAIL("rle int64 run: value is not big-endian\n");
    cases++;
}

static void check_plain_zigzag(void)
{
    enum { N = 1000 };
    int32_t v32[N], o32[N];
    int64_t v64[N], o64[N];
    for (int i = 0; i < N; i++) {
        v32[i] = (int32_t)(uint32_t)(rnd() >> (rnd() & 31));
        v64[i] = (int64_t)(rnd() >> (rnd() & 63));
        if (rnd() & 1) { v32[i] = -v32[i]; v64[i] = -v64[i]; }
    }
    v32[0] = INT32_MIN; v32[1] = INT32_MAX; v64[0] = INT64_MIN; v64[1] = INT64_MAX;
    uint8_t *enc = (uint8_t *)malloc(zigzag_encode_bound(N, 1) + 8 * N);
    size_t at, len;
    uint8_t *block;
    const uint8_t *d;

    len = plain_encode_i32_scalar(v32, N, enc);
    d = tail_copy(enc, len, &block);
    if (plain_decode_i32_scalar(d, len, o32, N, &at) != (ptrdiff_t)len || memcmp(o32, v32, sizeof v32))
        FAIL("plain int32 round trip\n");
    if (plain_decode_i32_scalar(d, len - 1, o32, N, &at) >= 0) FAIL("plain int32 cut accepted\n");
    free(block);

    len = plain_encode_i64_scalar(v64, N, enc);
    d = tail_copy(enc, len, &block);
    if (plain_decode_i64_scalar(d, len, o64, N, &at) != (ptrdiff_t)len || memcmp(o64, v64, sizeof v64))
        FAIL("plain int64 round trip\n");
    if (enc[7] != 0x00 || enc[0] != 0x80) FAIL("plain int64 is not big-endian\n");
    if (plain_decode_i64_scalar(d, len - 1, o64, N, &at) >= 0) FAIL("plain int64 cut accepted\n");
    for (size_t m = 0; m <= 40; m++) { /* SIMD byte swaps, every tail length, data at the end */
        uint8_t *b2;
        const uint8_t *d2 = tail_copy(enc + len - 8 * m, 8 * m, &b2);
        uint32_t u32[64], w32[65];
        for (size_t i = 0; i < m; i++) u32[i] = (uint32_t)v64[i];
        uint8_t be[256], *b3;
        for (size_t i = 0; i < m; i++) tsc_store_be32(be + 4 * i, u32[i]);
        const uint8_t *d3 = tail_copy(be, 4 * m, &b3);
        for (size_t k = 0; k < PLAIN_N_IMPLS; k++) { /* every row this CPU runs */
            const plain_impl *row = &plain_impls[k];
            if (!cpu_runs(&row->head)) continue;
            memset(o64, 0x55, sizeof o64);
            row->bswap64(d2, (uint64_t *)o64, m);
            if (memcmp(o64, v64 + (N - m), 8 * m) || (m < N && o64[m] != 0x5555555555555555ll))
                FAIL("plain bswap64 %s, %zu values\n", row->head.name, m);
            memset(w32, 0x55, sizeof w32);
            row->bswap32(d3, w32, m);
            if (memcmp(w32, u32, 4 * m) || w32[m] != 0x55555555u)
                FAIL("plain bswap32 %s, %zu values\n", row->head.name, m);
        }
        free(b2);
        free(b3);
    }
    free(block);

    len = zigzag_encode_i32_scalar(v32, N, enc);
    d = tail_copy(enc, len, &block);
    if (zigzag_decode_i32_scalar(d, len, o32, N, &at) != (ptrdiff_t)len || memcmp(o32, v32, sizeof v32))
        FAIL("zigzag int32 round trip\n");
    for (size_t cut = 1; cut < len; cut += 7)
        if (zigzag_decode_i32_scalar(d, cut, o32, N, &at) >= 0) FAIL("zigzag cut %zu accepted\n", cut);
    free(block);

    len = zigzag_encode_i64_scalar(v64, N, enc);
    d = tail_copy(enc, len, &block);
    if (zigzag_decode_i64_scalar(d, len, o64, N, &at) != (ptrdiff_t)len || memcmp(o64, v64, sizeof v64))
        FAIL("zigzag int64 round trip\n");
    free(block);
    free(enc);
    cases += 4;
}

/* Readable bytes that end exactly where an inaccessible page begins: a kernel reading one byte
 * past what it was given faults. */
static uint8_t *guarded_end(size_t len, uint8_t **map, size_t *span)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    *span = (len + page - 1) / page * page + page;
    *map = mmap(NULL, *span + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (*map == MAP_FAILED || mprotect(*map + *span, page, PROT_NONE)) return NULL;
    return *map + *span - len;
}

/* Every RLE row decodes bodies ending at an inaccessible page (every width, lengths around the
 * groups and the 64-byte loads) to the scalar result; every PLAIN row byte-swaps values ending
 * there. */
static void check_reads_stay_in_bounds(void)
{
    static int64_t v[1100], o64[1100], ref64[1100];
    static int32_t v32[1100], o32[1100], ref32[1100];
    static uint8_t enc[16384];
    static const size_t lens[] = {8, 16, 24, 40, 64, 72, 128, 136, 504, 512, 1013, 1024};
    for (int is64 = 0; is64 < 2; is64++) {
        for (int w = 0; w <= (is64 ? 64 : 32); w++) {
            for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
                size_t n = lens[li], at = 0;
                for (size_t i = 0; i < n; i++) {
                    uint64_t r = rnd();
                    if (w < 64) r &= (1ull << w) - 1;
                    v[i] = (int64_t)r;
                    v32[i] = (int32_t)(uint32_t)r;
                }
                size_t len = is64 ? rle_encode_i64_scalar(v, n, w, enc)
                                  : rle_encode_i32_scalar(v32, n, w, enc);
                uint8_t *map;
                size_t span;
                uint8_t *d = guarded_end(len, &map, &span);
                if (!d) {
                    FAIL("bounds check: mmap/mprotect failed\n");
                    return;
                }
                memcpy(d, enc, len);
                if (is64) rle_decode_i64_scalar(d, len, ref64, n, &at);
                else rle_decode_i32_scalar(d, len, ref32, n, &at);
                for (size_t k = 0; k < RLE_N_IMPLS; k++) {
                    const rle_impl *row = &rle_impls[k];
                    if (!cpu_runs(&row->head)) continue;
                    ptrdiff_t r = is64 ? row->decode_i64(d, len, o64, n, &at)
                                       : row->decode_i32(d, len, o32, n, &at);
                    if (r != (ptrdiff_t)len || (is64 ? memcmp(o64, ref64, 8 * n)
                                                     : memcmp(o32, ref32, 4 * n)))
                        FAIL("rle %s at a page end: is64=%d w=%d n=%zu\n", row->head.name, is64, w, n);
                }
                munmap(map, span + getpagesize());
                cases++;
            }
        }
    }
    for (size_t m = 0; m <= 70; m++) {
        uint8_t *map;
        size_t span;
        uint8_t *d = guarded_end(8 * m, &map, &span);
        if (!d) return;
        for (size_t i = 0; i < 8 * m; i++) d[i] = (uint8_t)rnd();
        plain_bswap64_scalar(d, (uint64_t *)ref64, m);
        plain_bswap32_scalar(d + 4 * m, (uint32_t *)ref32, m);
        for (size_t k = 0; k < PLAIN_N_IMPLS; k++) {
            const plain_impl *row = &plain_impls[k];
            if (!cpu_runs(&row->head)) continue;
            row->bswap64(d, (uint64_t *)o64, m);
            row->bswap32(d + 4 * m, (uint32_t *)o32, m);
            if (memcmp(o64, ref64, 8 * m) || memcmp(o32, ref32, 4 * m))
                FAIL("plain %s at a page end: %zu values\n", row->head.name, m);
        }
        munmap(map, span + getpagesize());
        cases++;
    }
}

/* The PLAIN row plain_pick_impl chooses at `level` for a CPU with `features` (synthetic masks, so
 * CPUs qemu-user cannot emulate are covered too). */
static void check_plain_pick(int level, unsigned features, const char *want)
{
    const char *got = plain_impls[plain_pick_impl(level, features)].head.name;
    cases++;
    if (strcmp(got, want) != 0)
        FAIL("plain pick(level %d, features %#x): got the %s row, want %s\n", level, features, got,
             want);
}

static void check_plain_picks(void)
{
#if TSFILE_ISA_AVX512
    /* the AVX-512 byte swaps use F and BW only: AVX-512 without VBMI (Skylake-Server) runs them */
    check_plain_pick(TSFILE_LEVEL_AVX512, TSFILE_NEED_AVX512, "avx512");
#endif
#if TSFILE_ISA_AVX2
    check_plain_pick(TSFILE_LEVEL_AVX2, TSFILE_NEED_AVX512_VBMI, "avx2");
#endif
    check_plain_pick(TSFILE_LEVEL_SCALAR, TSFILE_NEED_AVX512_VBMI, "scalar");
}

int main(void)
{
    rle_init_impls();
    check_plain_picks();
    check_reads_stay_in_bounds();
    check_rle_example();
    for (int w = 0; w <= 32; w++) check_rle(0, w);
    for (int w = 0; w <= 64; w++) check_rle(1, w);
    check_plain_zigzag();
    char rows[64] = "";
    for (size_t k = 0; k + 1 < RLE_N_IMPLS; k++) /* the SIMD rows checked (the scalar one always) */
        if (cpu_runs(&rle_impls[k].head)) {
            if (rows[0]) strcat(rows, "+");
            strcat(rows, rle_impls[k].head.name);
        }
    printf("basic_codecs_check [%s; rows %s]: %zu cases, %d failures\n", TSFILE_ISA_NAME,
           rows[0] ? rows : "scalar only", cases, failures);
    return failures != 0;
}
