/*
 * stats_check.c: checks every row of the writer's page statistics table (stats_encode.h: AVX-512
 * and AVX2 on x86-64 when the CPU has them, scalar everywhere) against a plain loop: min, max and
 * sum of INT64 pages (sums wrapping modulo 2^64) and INT32 pages (exact int64 sums), on lengths
 * around the vector widths, with the extremes in the first value, a middle one and the tail, and
 * on pages of one repeated extreme. Each page sits at the end of a buffer so that AddressSanitizer
 * sees any read past it. Rows whose CPU features are missing are skipped.
 * Exit status 0 = all good; prints the first failures otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats_encode.h"

#include "check_common.h"

static const size_t LENS[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 1000};
#define NLENS (sizeof(LENS) / sizeof(LENS[0]))

static void fill_i64(int64_t *v, size_t n, int pattern)
{
    for (size_t i = 0; i < n; i++) v[i] = (int64_t)(rnd() >> (pattern == 0 ? 40 : 1)) - (pattern ? (INT64_C(1) << 61) : 0);
    if (pattern == 2) for (size_t i = 0; i < n; i++) v[i] = INT64_MIN;
    if (pattern == 3) for (size_t i = 0; i < n; i++) v[i] = INT64_MAX;
    if (pattern >= 4) { /* one extreme at 0, n / 2 or n - 1 */
        size_t at = pattern == 4 ? 0 : pattern == 5 ? n / 2 : n - 1;
        v[at] = (rnd() & 1) ? INT64_MIN : INT64_MAX;
    }
}

static void check_i64(const stats_impl *row)
{
    for (size_t li = 0; li < NLENS; li++) {
        const size_t n = LENS[li];
        for (int pattern = 0; pattern < 7; pattern++) {
            int64_t *v = malloc(n * sizeof(int64_t)); /* exactly n values: reads past them fault */
            fill_i64(v, n, pattern);
            int64_t lo = v[0], hi = v[0];
            uint64_t sum = 0;
            for (size_t i = 0; i < n; i++) {
                if (v[i] < lo) lo = v[i];
                if (v[i] > hi) hi = v[i];
                sum += (uint64_t)v[i];
            }
            int64_t glo, ghi;
            uint64_t gsum;
            row->i64(v, n, &glo, &ghi, &gsum);
            if (glo != lo || ghi != hi || gsum != sum)
                FAIL("%s i64 n=%zu pattern=%d: got (%lld, %lld, %llu), want (%lld, %lld, %llu)",
                     row->head.name, n, pattern, (long long)glo, (long long)ghi,
                     (unsigned long long)gsum, (long long)lo, (long long)hi, (unsigned long long)sum);
            free(v);
        }
    }
}

static void check_i32(const stats_impl *row)
{
    for (size_t li = 0; li < NLENS; li++) {
        const size_t n = LENS[li];
        for (int pattern = 0; pattern < 7; pattern++) {
            int32_t *v = malloc(n * sizeof(int32_t));
            for (size_t i = 0; i < n; i++) v[i] = (int32_t)(uint32_t)rnd();
            if (pattern == 1) for (size_t i = 0; i < n; i++) v[i] = (int32_t)(rnd() % 2001) - 1000;
            if (pattern == 2) for (size_t i = 0; i < n; i++) v[i] = INT32_MIN;
            if (pattern == 3) for (size_t i = 0; i < n; i++) v[i] = INT32_MAX;
            if (pattern >= 4) v[pattern == 4 ? 0 : pattern == 5 ? n / 2 : n - 1] = INT32_MIN;
            int32_t lo = v[0], hi = v[0];
            int64_t sum = 0;
            for (size_t i = 0; i < n; i++) {
                if (v[i] < lo) lo = v[i];
                if (v[i] > hi) hi = v[i];
                sum += v[i];
            }
            int32_t glo, ghi;
            int64_t gsum;
            row->i32(v, n, &glo, &ghi, &gsum);
            if (glo != lo || ghi != hi || gsum != sum)
                FAIL("%s i32 n=%zu pattern=%d: got (%d, %d, %lld), want (%d, %d, %lld)",
                     row->head.name, n, pattern, glo, ghi, (long long)gsum, lo, hi,
                     (long long)sum);
            free(v);
        }
    }
}

/* The row stats_pick_impl chooses at `level` for a CPU with `features` (synthetic masks, so CPUs
 * qemu-user cannot emulate are covered too). */
static void check_pick(int level, unsigned features, const char *want)
{
    const char *got = stats_impls[stats_pick_impl(level, features)].head.name;
    if (strcmp(got, want) != 0)
        FAIL("pick(level %d, features %#x): got the %s row, want %s", level, features, got, want);
}

static void check_picks(void)
{
#if TSFILE_ISA_AVX512
    /* the AVX-512 row uses F only: a CPU with AVX-512 F/BW/VL but no VBMI (Skylake-Server) runs it */
    check_pick(TSFILE_LEVEL_AVX512, TSFILE_NEED_AVX512, "avx512");
    check_pick(TSFILE_LEVEL_AVX512, TSFILE_NEED_AVX512_VBMI, "avx512");
#endif
#if TSFILE_ISA_AVX2
    check_pick(TSFILE_LEVEL_AVX2, TSFILE_NEED_AVX512_VBMI, "avx2");
    check_pick(TSFILE_LEVEL_AVX512, TSFILE_NEED_AVX2, "avx2");
#endif
    check_pick(TSFILE_LEVEL_SCALAR, TSFILE_NEED_AVX512_VBMI, "scalar");
}

int main(void)
{
    check_picks();
    const unsigned features = tsfile_cpu_features();
    char rows[128] = "";
    for (size_t k = 0; k < STATS_N_IMPLS; k++) {
        const stats_impl *row = &stats_impls[k];
        if ((features & row->head.need) != row->head.need) continue;
        check_i64(row);
        check_i32(row);
        strcat(rows, " ");
        strcat(rows, row->head.name);
    }
    if (strcmp(stats_impls[STATS_N_IMPLS - 1].head.name, "scalar") != 0) FAIL("the last row is not scalar");
    printf("stats rows checked:%s\n", rows);
    if (failures) {
        printf("%d failures\n", failures);
        return 1;
    }
    return 0;
}
