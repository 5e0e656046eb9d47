/*
 * check_common.h: what every check program of tests/c (NAME_check.c) shares: a seeded random generator
 * (splitmix64; a program may define CHECK_SEED before including this for a stream of its own)
 * and the failure count with FAIL(printf format, ...), which prints the first 20 failures to
 * stderr, each on its own line. (The programs are standalone: test_isa_emulation.py compiles
 * each one alone, natively and for aarch64.)
 */
#ifndef CHECK_COMMON_H
#define CHECK_COMMON_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifndef CHECK_SEED
#define CHECK_SEED 0x9E3779B97F4A7C15ull
#endif

static uint64_t rng_state = CHECK_SEED;

static uint64_t rnd(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int failures = 0;

__attribute__((format(printf, 1, 2))) static void check_fail(const char *format, ...)
{
    if (failures++ >= 20) return;
    va_list args;
    va_start(args, format);
    fputs("FAIL: ", stderr);
    vfprintf(stderr, format, args);
    va_end(args);
    const size_t n = strlen(format);
    if (n == 0 || format[n - 1] != '\n') fputc('\n', stderr);
}

#define FAIL(...) check_fail(__VA_ARGS__)

#endif /* CHECK_COMMON_H */
