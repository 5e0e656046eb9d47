/*
 * alp_layout_check.c: the DOUBLE block decode kernel of every implementation row this CPU runs
 * against alp_decode_f64_scalar, aimed at the output layout of the AVX-512 kernel
 * (alp_avx512_f64_groups: chunks of 8 values that start at the output's line boundaries, their
 * loads planned from bit a*width mod 8, the chunks past `loadable` cut from the last 64 readable
 * bytes, a masked partial chunk, an unaligned store of values 0..7, the small-block path) and
 * at its factor-0 loop (no product by P = 1):
 *  - every width 1..51 and 52, 64 (which every row hands to the scalar kernel);
 *  - every count up to where the layout's shape stops changing, then every count of a
 *    32-value period in the middle and at the end of the 1..1024 range. From 384 / width + 7
 *    values on, the first chunk's 64 bytes are readable at every a, so `loadable` is
 *    (readable - skip - 64) / width + 1 without the clamp to 0, and 8 more values only add one
 *    plainly loaded chunk (readable grows by `width` bytes, `loadable` and the chunks by one);
 *    the plainly loaded chunks go four per turn, then one by one, so the shape repeats every
 *    32 values: the counts checked take every shape the kernel has (a, plain chunks mod 4, none
 *    or some whole turns, chunks from the last 64 bytes, a partial chunk or not);
 *  - outputs at every 8-byte offset within a cache line, and, for the AVX-512 row, at byte
 *    offsets 1..7 (no aligned layout: every store unaligned);
 *  - bodies whose readable bytes (packed + ALP_GUARD) end where an inaccessible page begins, and
 *    bodies starting right after one (a read outside faults), the guard bytes random (their bits
 *    must not reach a value);
 *  - P = 1 (factor 0), 10, 1e12, 1e18, every 1/10^e, bases at both ends of the SIMD-safe range
 *    (alp_f64_simd_safe) and in between;
 *  - guard words before and after the output: nothing is stored outside out[0 .. count).
 * The scalar row is skipped (it would be compared with itself). Exit status 0 = passed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "alp_impls.h"

#define CHECK_SEED 0xA1B0A11C0FFEEull
#include "check_common.h"

#define LINE 64
#define SLACK (2 * LINE) /* bytes of guard words on each side of the output */

static size_t cases = 0;

/* The bytes written around an output (a NaN payload no kernel computes). */
static const uint8_t GUARD_BYTE = 0xF5;

/* The counts checked at `width` (see the header): 1 = check. */
static void pick_counts(int width, unsigned char *take)
{
    size_t settled = 384 / (size_t)width + 7 + 64; /* two periods past the last change */
    for (size_t n = 1; n <= ALP_BLOCK; n++)
        take[n] = n <= settled || (n >= 496 && n < 528) || n > ALP_BLOCK - 32;
}

/* A base for `width` inside the SIMD-safe range: its low end, its high end, 0 or in between. */
static int64_t pick_base(int width)
{
    if (width > 51) return -(int64_t)(rnd() % 1000); /* scalar on every row anyway */
    const int64_t lim = INT64_C(1) << 51, top = (int64_t)((UINT64_C(1) << width) - 1);
    switch (rnd() % 4) {
    case 0: return -lim + 1;
    case 1: return lim - 1 - top;
    case 2: return 0;
    default: {
        /* the bases -lim + 1 .. lim - 1 - top */
        const uint64_t span = (uint64_t)(lim - 1 - top) + (uint64_t)(lim - 1);
        return span ? -lim + 1 + (int64_t)(rnd() % span) : 0;
    }
    }
}

/* One body into outputs at every 8-byte offset within a line and, where `unaligned`, at byte
 * offsets 1..7; `want` is the scalar kernel's result. */
static void check_outputs(alp_decode_f64_fn dec, int unaligned, const uint8_t *body, size_t n,
                          int width, int64_t base, double P, double Ie, const double *want,
                          const char *where)
{
    static uint8_t buf[SLACK + ALP_BLOCK * 8 + LINE + SLACK] __attribute__((aligned(LINE)));
    for (size_t k = 0; k < (unaligned ? 8u + 7u : 8u); k++) {
        /* every 8-byte offset within a line, then byte offsets 1..7 (within a random 8-byte one) */
        const size_t off = k < 8 ? 8 * k : (k - 7) + 8 * (size_t)(rnd() % 8);
        uint8_t *out = buf + SLACK + off;
        uint8_t *const end = out + n * 8 + SLACK;
        memset(buf, GUARD_BYTE, (size_t)(end - buf));
        dec(body, n, width, base, P, Ie, (double *)(void *)out);
        cases++;
        if (memcmp(out, want, n * 8)) {
            size_t i = 0;
            while (!memcmp(out + 8 * i, want + i, 8)) i++;
            FAIL("%s: width %d n %zu base %lld P %g out +%zu: value %zu differs", where, width, n,
                 (long long)base, P, off, i);
        }
        for (const uint8_t *p = buf; p < end; p++) {
            if (p == out) p += n * 8;
            if (*p != GUARD_BYTE) {
                FAIL("%s: width %d n %zu out +%zu: byte %td stored outside the output", where,
                     width, n, off, p < out ? p - out : p - (out + n * 8));
                break;
            }
        }
    }
}

/* `stores_unaligned`: the row's kernel stores every value by its own vector stores (the AVX-512
 * kernel at widths <= 51), so outputs at byte offsets 1..7 are checked too; the C stores of
 * double in the other kernels (the scalar kernel, AVX2's tail) need 8-byte-aligned outputs. */
static void check_row(alp_decode_f64_fn dec, int stores_unaligned, uint8_t *after_hole,
                      uint8_t *before_hole)
{
    static const double Ps[] = {1.0, 10.0, 1e12, 1e18};
    static uint8_t src[ALP_BLOCK * 8 + ALP_GUARD];
    static double want[ALP_BLOCK];
    static unsigned char take[ALP_BLOCK + 1];
    static const int widths_past[] = {52, 64};
    for (int wi = 0; wi < 51 + 2; wi++) {
        const int width = wi < 51 ? wi + 1 : widths_past[wi - 51];
        for (size_t i = 0; i < sizeof src; i++) src[i] = (uint8_t)rnd();
        pick_counts(width, take);
        for (size_t n = 1; n <= ALP_BLOCK; n++) {
            if (!take[n]) continue;
            const size_t readable = alp_packed_bytes(n, width) + ALP_GUARD;
            const int64_t base = pick_base(width);
            const double P = Ps[n % 4], Ie = ALP_INV10_F64[rnd() % (ALP_MAX_E64 + 1)];
            if (width <= 51 && !alp_f64_simd_safe(width, base))
                FAIL("check: base %lld outside the SIMD-safe range at width %d", (long long)base,
                     width);
            uint8_t *at_end = before_hole - readable;
            memcpy(at_end, src, readable);
            memcpy(after_hole, src, readable);
            alp_decode_f64_scalar(src, n, width, base, P, Ie, want);
            const int unaligned = stores_unaligned && width <= 51;
            check_outputs(dec, unaligned, at_end, n, width, base, P, Ie, want,
                          "body ending at a hole");
            check_outputs(dec, unaligned, after_hole, n, width, base, P, Ie, want,
                          "body after a hole");
        }
    }
}

int main(void)
{
    (void)alp_stream_next_f64; /* the header's stream decoders: not used here */
    (void)alp_stream_next_f32;
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const size_t span = (ALP_BLOCK * 8 + ALP_GUARD + page - 1) / page * page;
    /* hole, `span` readable bytes (bodies ending at the next hole), hole, `span` readable bytes
     * (bodies starting right after the hole before them), hole */
    const size_t total = 2 * span + 3 * page;
    uint8_t *map = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED || mprotect(map, page, PROT_NONE) ||
        mprotect(map + page + span, page, PROT_NONE) ||
        mprotect(map + 2 * page + 2 * span, page, PROT_NONE)) {
        printf("alp_layout_check: mmap/mprotect failed\n");
        return 1;
    }
    const unsigned features = tsfile_cpu_features();
    int rows = 0;
    for (size_t i = 0; i < ALP_N_IMPLS; i++) {
        const alp_impl *row = &alp_impls[i];
        if (row->head.level == TSFILE_LEVEL_SCALAR) continue;
        if ((features & row->head.need) != row->head.need) {
            printf("alp_layout_check: row %s skipped (this CPU lacks its features)\n",
                   row->head.name);
            continue;
        }
        const int before = failures;
        const size_t cases_before = cases;
        check_row(row->decode_f64, row->head.level == TSFILE_LEVEL_AVX512, map + 2 * page + span,
                  map + page + span);
        printf("alp_layout_check: ISA %s, row %s: %zu decodes, %s\n", TSFILE_ISA_NAME,
               row->head.name, cases - cases_before, failures == before ? "ok" : "FAILED");
        rows++;
    }
    munmap(map, total);
    if (failures) {
        printf("alp_layout_check: %d failures\n", failures);
        return 1;
    }
    printf("alp_layout_check: ok (%d SIMD rows)\n", rows);
    return 0;
}
