/*
 * snappy_check.c: C-level check of the writer's Snappy compressor (snappy_compress.h) and the
 * page reader's decompressor (read_snappy.h), built and run by tests/test_isa_emulation.py
 * natively (as built, -DTSFILE_NO_SIMD, ASan + UBSan) and for aarch64 under qemu-user.
 *
 * Inputs of many shapes (random, few symbols, periodic with every period, text-like, TS_2DIFF-
 * like headers between noise) and every length up to 300 bytes, then longer ones across the
 * 64 KiB block boundary: compressed into an exactly sized buffer of snappy_compress_bound bytes,
 * decompressed into an exactly sized output, compared. Every truncation of some streams and
 * single-byte changes of each must fail cleanly or decode to some output of the right size.
 * Input, stream and output sit in exactly sized heap buffers, so an over-read or over-write
 * shows up under ASan. (Byte-for-byte agreement with the reference compressor is checked in
 * Python, tests/test_chunk_encode.py and tests/test_snappy_search.py.) Exit status 0 = passed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read_snappy.h"
#include "tsfile_isa.h" /* TSFILE_ISA_NAME: the build configuration checked */
#include "snappy_compress.h"

#include "check_common.h"
static size_t cases = 0;

static uint16_t table[SNAPPY_MAX_TABLE];

/* n bytes of shape `kind` (0..4) into a fresh exactly sized buffer. */
static uint8_t *make_input(int kind, size_t n)
{
    uint8_t *p = malloc(n ? n : 1);
    const size_t period = 1 + rnd() % 40;
    for (size_t i = 0; i < n; i++) {
        switch (kind) {
        case 0: p[i] = (uint8_t)rnd(); break;                     /* incompressible */
        case 1: p[i] = (uint8_t)(rnd() % 3); break;               /* few symbols */
        case 2: p[i] = i < period ? (uint8_t)rnd() : p[i - period]; break; /* every offset */
        case 3: p[i] = (uint8_t)("0123456789 ,."[rnd() % 13]); break;       /* text-like */
        default: /* a 24-byte header repeating every 150 bytes, noise between */
            p[i] = (i % 150) < 24 ? (uint8_t)(i % 150 < 8 ? 0 : 0xFF) : (uint8_t)rnd();
        }
    }
    return p;
}

static int decompress(const uint8_t *c, size_t cn, uint8_t *out, size_t want)
{
    size_t err = 0;
    return tsfile_snappy_decompress(c, cn, out, want, &err);
}

static void check_one(int kind, size_t n, int damage)
{
    uint8_t *in = make_input(kind, n);
    const size_t bound = snappy_compress_bound(n);
    uint8_t *c = malloc(bound);
    const size_t cn = snappy_compress(in, n, c, table);
    cases++;
    if (cn > bound) FAIL("kind %d n %zu: %zu bytes out, bound %zu\n", kind, n, cn, bound);
    uint8_t *stream = malloc(cn); /* exactly sized: an over-read of the stream trips ASan */
    memcpy(stream, c, cn);
    free(c);
    uint8_t *out = malloc(n ? n : 1);
    int rc = decompress(stream, cn, out, n);
    if (rc != 0 || memcmp(out, in, n) != 0)
        FAIL("kind %d n %zu: round trip rc %d (%s)", kind, n, rc, tsfile_snappy_strerror(rc));
    if (damage) {
        for (size_t cut = 0; cut < cn; cut += 1 + cn / 200) {
            uint8_t *t = malloc(cut ? cut : 1);
            memcpy(t, stream, cut);
            cases++;
            if (decompress(t, cut, out, n) == 0 && n > 0)
                FAIL("kind %d n %zu: truncated to %zu decoded\n", kind, n, cut);
            free(t);
        }
        for (size_t at = 0; at < cn; at += 1 + cn / 200) {
            const uint8_t saved = stream[at];
            stream[at] ^= (uint8_t)(1 + rnd() % 255);
            cases++;
            (void)decompress(stream, cn, out, n); /* any result; never out of bounds */
            stream[at] = saved;
        }
    }
    free(stream);
    free(out);
    free(in);
}

int main(void)
{
    for (int kind = 0; kind < 5; kind++) {
        for (size_t n = 0; n <= 300; n++) check_one(kind, n, n % 7 == 0);
        const size_t longer[] = {4095, 4096, 12288, 65535, 65536, 65537, 65536 + 17, 200000};
        for (size_t k = 0; k < sizeof longer / sizeof longer[0]; k++) check_one(kind, longer[k], 1);
    }
    printf("snappy_check [%s]: %zu cases, %d failures\n", TSFILE_ISA_NAME, cases, failures);
    return failures != 0;
}
