/*
 * filter_check.c: C-level check of the predicate kernels (filter_impls.h), built and run by
 * tests/test_isa_emulation.py natively (SIMD on, -DTSFILE_NO_SIMD, ASan + UBSan) and for aarch64
 * under qemu-user (the NEON row). For every type, lengths 0..100, random and edge values (type
 * extremes, NaN, +-0.0, infinities), ranges and negation, every row this CPU runs must give the
 * per-value baseline's bitmap and index list, and the bitmap's bool bytes must be its bits. The values sit at the end of an exactly sized heap
 * buffer (ASan sees an over-read) and, once per case, right before a PROT_NONE page.
 * Exit status 0 = all passed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "filter_impls.h"

#define CHECK_SEED 0x2545F4914F6CDD1Dull
#include "check_common.h"

#define MAXN 100

/* The memory right before an inaccessible page, for values that end there. */
static uint8_t *guard_end;

static void make_guard(void)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED || mprotect(map + page, page, PROT_NONE)) {
        FAIL("mmap/mprotect failed\n");
        exit(1);
    }
    guard_end = map + page;
}

/* Compare one row against the per-value baseline on v[0 .. n-1]. */
#define DEFINE_CHECK(SUF, T)                                                                       \
    static size_t check_##SUF(const filter_impl *row, const T *v, size_t n, T lo, T hi, int neg)   \
    {                                                                                              \
        uint8_t want_bits[MAXN / 8 + 1], got_bits[MAXN / 8 + 1];                                   \
        int32_t want_idx[MAXN + FILTER_INDEX_SLACK], got_idx[MAXN + FILTER_INDEX_SLACK];           \
        const size_t nb = filter_bitmap_bytes(n);                                                  \
        const size_t wb = filter_per_value.bitmap_##SUF(v, n, lo, hi, neg, want_bits);             \
        const size_t wi = filter_per_value.index_##SUF(v, n, lo, hi, neg, want_idx, 7);            \
        const size_t gb = row->bitmap_##SUF(v, n, lo, hi, neg, got_bits);                          \
        const size_t gi = row->index_##SUF(v, n, lo, hi, neg, got_idx, 7);                         \
        if (wb != wi || gb != wb || gi != wi || memcmp(want_bits, got_bits, nb) ||                 \
            memcmp(want_idx, got_idx, wi * sizeof(int32_t)))                                       \
            FAIL("%s %s n=%zu neg=%d: counts %zu/%zu vs %zu/%zu\n", row->head.name, #SUF, n, neg, \
                 gb, gi, wb, wi);                                                                  \
        uint8_t bools[MAXN + 1];                                                                   \
        filter_bitmap_to_bool(got_bits, n, bools);                                                 \
        for (size_t i = 0; i < n; i++)                                                             \
            if (bools[i] != ((want_bits[i >> 3] >> (i & 7)) & 1))                                  \
                FAIL("%s %s n=%zu: bool %zu differs from the bitmap\n", row->head.name, #SUF, n, i); \
        return 1;                                                                                  \
    }

DEFINE_CHECK(i32, int32_t)
DEFINE_CHECK(i64, int64_t)
DEFINE_CHECK(f32, float)
DEFINE_CHECK(f64, double)

/* Random values from a small set around the range plus the type's edge values. */
#define DEFINE_CASES(SUF, T, EDGES, NEDGE)                                                         \
    static size_t cases_##SUF(const filter_impl *row)                                             \
    {                                                                                              \
        const T edges[] = EDGES;                                                                   \
        size_t checks = 0;                                                                         \
        for (size_t n = 0; n <= MAXN; n++) {                                                       \
            T *v = malloc(n ? n * sizeof(T) : 1);                                                  \
            for (size_t i = 0; i < n; i++)                                                         \
                v[i] = (rnd() & 3) == 0 ? edges[rnd() % NEDGE] : (T)((int)(rnd() % 21) - 10);      \
            for (int c = 0; c < 6; c++) {                                                          \
                T lo = (T)((int)(rnd() % 25) - 12), hi = (T)((int)(rnd() % 25) - 12);              \
                if (c == 4) lo = hi = edges[rnd() % NEDGE];                                        \
                if (c == 5) { lo = edges[0]; hi = edges[1]; }                                      \
                for (int neg = 0; neg < 2; neg++) checks += check_##SUF(row, v, n, lo, hi, neg);   \
            }                                                                                      \
            if (n * sizeof(T) <= 4096) { /* the same values ending at an unmapped page */         \
                T *g = (T *)(guard_end - n * sizeof(T));                                           \
                memcpy(g, v, n * sizeof(T));                                                       \
                checks += check_##SUF(row, g, n, (T)-3, (T)4, 0);                                  \
            }                                                                                      \
            free(v);                                                                               \
        }                                                                                          \
        return checks;                                                                             \
    }

#define LIST(...) {__VA_ARGS__}
DEFINE_CASES(i32, int32_t, LIST(INT32_MIN, INT32_MAX, 0, -1, 1, INT32_MIN + 1, INT32_MAX - 1), 7)
DEFINE_CASES(i64, int64_t, LIST(INT64_MIN, INT64_MAX, 0, -1, 1, INT64_MIN + 1, INT64_MAX - 1), 7)
DEFINE_CASES(f32, float, LIST(-INFINITY, INFINITY, NAN, -0.0f, 0.0f, 1e-45f, -1e-45f), 7)
DEFINE_CASES(f64, double, LIST(-INFINITY, INFINITY, NAN, -0.0, 0.0, 5e-324, -5e-324), 7)

static size_t run_all(const filter_impl *row)
{
    return cases_i32(row) + cases_i64(row) + cases_f32(row) + cases_f64(row);
}

int main(void)
{
    const unsigned features = tsfile_cpu_features();
    char ran[64] = "";
    size_t checks = 0;
    make_guard();
    filter_bool_bytes_init();
    /* the scalar row (last) against the per-value baseline, then every SIMD row this CPU runs */
    filter_impls[FILTER_N_IMPLS - 1].init();
    checks += run_all(&filter_impls[FILTER_N_IMPLS - 1]);
    for (size_t i = 0; i + 1 < FILTER_N_IMPLS; i++) {
        const filter_impl *row = &filter_impls[i];
        if ((features & row->head.need) != row->head.need) continue;
        row->init();
        checks += run_all(row);
        snprintf(ran + strlen(ran), sizeof ran - strlen(ran), "%s%s", ran[0] ? "+" : "",
                 row->head.name);
    }
    printf("filter_check [%s]: %zu cases, %d failures\n", ran[0] ? ran : "scalar only", checks,
           failures);
    return failures != 0;
}
