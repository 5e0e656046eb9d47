/*
 * alp_check.c: checks every row of the ALP implementation table (alp_impls.h: AVX-512 and AVX2
 * on x86-64 when the CPU has them, NEON on AArch64, and scalar) against the scalar kernels:
 * decode over every bit width, lengths around the 8-value groups, bases inside and outside the
 * SIMD-safe range; the encoder value loop on decimal, special and random data; whole pages
 * (identical bytes from both encoders, lossless decode on both paths) and corrupted pages (same
 * verdict and values on both paths); width-0 blocks: no body from either encoder, and the padded
 * body older pages carry still decodes. Rows whose CPU features are missing are skipped.
 * Exit status 0 = all good; prints the first failures otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <sys/mman.h>
#include <unistd.h>

#include "alp_impls.h"

#include "check_common.h"

/* The kernels under test: one implementation row of alp_impls.h at a time (main() runs the checks
 * once per row this CPU can run, the scalar row included; its kernels are the reference's twins
 * called through pointers). */
static alp_decode_f64_fn dec64 = NULL;
static alp_decode_f32_fn dec32 = NULL;
static alp_analyze_f64_fn an64 = NULL;
static alp_analyze_f32_fn an32 = NULL;

static void use_row(const alp_impl *row)
{
    dec64 = row->decode_f64;
    dec32 = row->decode_f32;
    an64 = row->analyze_f64;
    an32 = row->analyze_f32;
}

static const size_t LENS[] = {1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 100, 1000, 1023, 1024};
#define NLENS (sizeof(LENS) / sizeof(LENS[0]))

static void check_decode_kernels(void)
{
    static uint8_t body[1024 * 8 + 64];
    static double a[1024], b[1024 + 8] __attribute__((aligned(64)));
    static float fa[1024], fb[1024];
    for (int width = 0; width <= 64; width++) {
        for (size_t li = 0; li < NLENS; li++) {
            size_t n = LENS[li];
            for (int rep = 0; rep < 3; rep++) {
                for (size_t i = 0; i < sizeof(body); i++) body[i] = (uint8_t)rnd();
                size_t packed = alp_packed_bytes(n, width);
                memset(body + packed, 0, sizeof(body) - packed);
                int64_t base;
                if (rep == 0) base = 0;
                else if (rep == 1) base = -(int64_t)(rnd() % (UINT64_C(1) << 48));
                else base = (int64_t)rnd(); /* mostly outside the SIMD-safe range */
                double P = ALP_POW10_F64[rnd() % 19], Ie = ALP_INV10_F64[rnd() % 19];
                alp_decode_f64_scalar(body, n, width, base, P, Ie, a);
                if (dec64) {
                    dec64(body, n, width, base, P, Ie, b);
                    if (memcmp(a, b, n * 8)) FAIL("f64 decode width %d n %zu base %lld", width, n, (long long)base);
                }
                if (width <= 32) {
                    int32_t b32 = (int32_t)(rep == 2 ? (int64_t)(int32_t)rnd() : base / 65536);
                    float fP = ALP_POW10_F32[rnd() % 11], fI = ALP_INV10_F32[rnd() % 11];
                    alp_decode_f32_scalar(body, n, width, b32, fP, fI, fa);
                    if (dec32) {
                        dec32(body, n, width, b32, fP, fI, fb);
                        if (memcmp(fa, fb, n * 4)) FAIL("f32 decode width %d n %zu", width, n);
                    }
                }
                /* the scalar kernel against a bit-by-bit reading of the stream */
                for (size_t i = 0; i < n; i += 1 + n / 7) {
                    uint64_t u = 0;
                    for (int k = 0; k < width; k++) {
                        size_t bit = i * (size_t)width + (size_t)k;
                        u |= (uint64_t)((body[bit >> 3] >> (bit & 7)) & 1) << k;
                    }
                    double want = (double)(int64_t)((uint64_t)base + u) * P * Ie;
                    if (memcmp(&want, &a[i], 8)) FAIL("scalar extract width %d i %zu", width, i);
                }
            }
        }
    }
}

/* The kernels read no byte past the packed bits and the ALP_GUARD bytes their contract promises:
 * every body is placed so that those bytes end exactly where an inaccessible page begins (a read
 * beyond faults), for every width, lengths around the groups and DOUBLE outputs at every offset
 * within a cache line; values must equal scalar's. */
static void check_decode_reads_stay_in_bounds(void)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t span = (1024 * 8 + ALP_GUARD + page - 1) / page * page;
    uint8_t *map = mmap(NULL, span + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED || mprotect(map + span, page, PROT_NONE)) {
        FAIL("bounds check: mmap/mprotect failed");
        return;
    }
    static double a[1024], b[1024 + 8] __attribute__((aligned(64)));
    static float fa[1024], fb[1024];
    for (int width = 1; width <= 64; width++) {
        for (size_t li = 0; li < NLENS; li++) {
            size_t n = LENS[li];
            size_t readable = alp_packed_bytes(n, width) + ALP_GUARD;
            uint8_t *body = map + span - readable;
            for (size_t i = 0; i < readable; i++) body[i] = (uint8_t)rnd();
            int64_t base = -(int64_t)(rnd() % 1000);
            alp_decode_f64_scalar(body, n, width, base, 0.01, 1.0, a);
            /* every output offset within a line: the AVX-512 kernel's loads depend on it */
            for (size_t off = 0; dec64 && off < 8; off++) {
                dec64(body, n, width, base, 0.01, 1.0, b + off);
                if (memcmp(a, b + off, n * 8))
                    FAIL("f64 decode at a page end, width %d n %zu out +%zu", width, n, off);
            }
            if (width <= 32 && dec32) {
                alp_decode_f32_scalar(body, n, width, (int32_t)base, 0.5f, 1.0f, fa);
                dec32(body, n, width, (int32_t)base, 0.5f, 1.0f, fb);
                if (memcmp(fa, fb, n * 4)) FAIL("f32 decode at a page end, width %d n %zu", width, n);
            }
        }
    }
    munmap(map, span + page);
}

static double special64(void)
{
    static const uint64_t bits[] = {
        0x7ff8000000000000ull, 0x7ff0000000000001ull, 0xfff8000000000123ull, 0x7ff0000000000000ull,
        0xfff0000000000000ull, 0x8000000000000000ull, 0x0000000000000001ull, 0x000fffffffffffffull,
        0x7fefffffffffffffull, 0x4330000000000000ull, 0x44b52d02c7e14af6ull};
    double d;
    uint64_t u = bits[rnd() % (sizeof(bits) / 8)];
    memcpy(&d, &u, 8);
    return d;
}

static void fill64(double *v, size_t n, int kind)
{
    double level = (double)(rnd() % 100000) / 100.0;
    for (size_t i = 0; i < n; i++) {
        switch (kind) {
        case 0: level += (double)((int64_t)(rnd() % 201) - 100) / 100.0; v[i] = round(level * 100) / 100; break;
        case 1: v[i] = (double)((int64_t)(rnd() % 2001) - 1000) / 10.0; break;
        case 2: { uint64_t u = rnd(); memcpy(&v[i], &u, 8); break; }
        case 3: v[i] = (rnd() % 5 == 0) ? special64() : (double)(int64_t)(rnd() % 100000) / 1000.0; break;
        default: v[i] = sin((double)i / 50.0); break;
        }
    }
}

static void fill32(float *v, size_t n, int kind)
{
    float level = (float)(rnd() % 10000) / 10.0f;
    for (size_t i = 0; i < n; i++) {
        switch (kind) {
        case 0: level += (float)((int)(rnd() % 21) - 10) / 10.0f; v[i] = level; break;
        case 1: v[i] = (float)((int)(rnd() % 2001) - 1000) / 10.0f; break;
        case 2: { uint32_t u = (uint32_t)rnd(); memcpy(&v[i], &u, 4); break; }
        case 3: { if (rnd() % 5 == 0) { uint32_t u = (uint32_t[]){0x7fc00000u, 0x7f800001u, 0xff800000u, 0x80000000u, 1u, 0x7f7fffffu}[rnd() % 6]; memcpy(&v[i], &u, 4); } else v[i] = (float)(rnd() % 100000) / 1000.0f; break; }
        default: v[i] = sinf((float)i / 50.0f); break;
        }
    }
}

static void check_analyze(void)
{
    static double v[1024];
    static float fv[1024];
    static int64_t ia[1024], ib[1024];
    static int32_t ja[1024], jb[1024];
    uint8_t ba[128], bb[128];
    if (!an64) return;
    for (int kind = 0; kind < 5; kind++) {
        for (size_t li = 0; li < NLENS; li++) {
            size_t n = LENS[li];
            fill64(v, n, kind);
            fill32(fv, n, kind);
            for (int e = 0; e <= ALP_MAX_E64; e += 1) {
                for (int f = 0; f <= e; f += 3) {
                    int64_t mna, mxa, mnb, mxb;
                    size_t xa = alp_analyze_f64_scalar(v, n, ALP_POW10_F64[e], ALP_INV10_F64[f], ALP_POW10_F64[f], ALP_INV10_F64[e], ia, ba, &mna, &mxa);
                    size_t xb = an64(v, n, ALP_POW10_F64[e], ALP_INV10_F64[f], ALP_POW10_F64[f], ALP_INV10_F64[e], ib, bb, &mnb, &mxb);
                    if (xa != xb || memcmp(ba, bb, (n + 7) / 8) || (xa < n && (mna != mnb || mxa != mxb)))
                        FAIL("f64 analyze kind %d n %zu e %d f %d: exc %zu vs %zu", kind, n, e, f, xa, xb);
                    for (size_t i = 0; i < n; i++)
                        if (!((ba[i >> 3] >> (i & 7)) & 1) && ia[i] != ib[i]) { FAIL("f64 analyze ints at %zu", i); break; }
                    if (e <= ALP_MAX_E32 && f <= e) {
                        int32_t mn2, mx2, mn3, mx3;
                        size_t ya = alp_analyze_f32_scalar(fv, n, ALP_POW10_F32[e], ALP_INV10_F32[f], ALP_POW10_F32[f], ALP_INV10_F32[e], ja, ba, &mn2, &mx2);
                        size_t yb = an32(fv, n, ALP_POW10_F32[e], ALP_INV10_F32[f], ALP_POW10_F32[f], ALP_INV10_F32[e], jb, bb, &mn3, &mx3);
                        if (ya != yb || memcmp(ba, bb, (n + 7) / 8) || (ya < n && (mn2 != mn3 || mx2 != mx3)))
                            FAIL("f32 analyze kind %d n %zu e %d f %d: exc %zu vs %zu", kind, n, e, f, ya, yb);
                        for (size_t i = 0; i < n; i++)
                            if (!((ba[i >> 3] >> (i & 7)) & 1) && ja[i] != jb[i]) { FAIL("f32 analyze ints at %zu", i); break; }
                    }
                }
            }
        }
    }
}

static void check_pages(void)
{
    static const size_t sizes[] = {0, 1, 5, 8, 1023, 1024, 1025, 3000, 5000};
    static double v[5000], out_a[5000], out_b[5000];
    static float fv[5000], fo_a[5000], fo_b[5000];
    static uint8_t pa[5000 * 8 + 4096], pb[5000 * 8 + 4096];
    for (int kind = 0; kind < 5; kind++) {
        for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
            size_t n = sizes[si];
            alp_err_t err;
            fill64(v, n, kind);
            size_t la = alp_encode_page_f64(v, n, pa, sizeof(pa), alp_analyze_f64_scalar);
            size_t lb = an64 ? alp_encode_page_f64(v, n, pb, sizeof(pb), an64) : la;
            if (an64 && (la != lb || memcmp(pa, pb, la))) FAIL("f64 page bytes differ kind %d n %zu", kind, n);
            ptrdiff_t ca = alp_decode_page_f64(pa, la, out_a, n, NULL, &err);
            if (ca != (ptrdiff_t)la || memcmp(out_a, v, n * 8)) FAIL("f64 scalar page roundtrip kind %d n %zu (%s)", kind, n, alp_error_text(err.code));
            if (dec64) {
                ptrdiff_t cb = alp_decode_page_f64(pa, la, out_b, n, dec64, &err);
                if (cb != ca || memcmp(out_b, v, n * 8)) FAIL("f64 simd page roundtrip kind %d n %zu", kind, n);
            }
            /* corruption: both paths agree on the verdict and on the values; the damaged page
             * sits in a heap block of its exact size, so a sanitizer build sees any overread */
            for (int t = 0; t < 200 && la > 0; t++) {
                size_t cut = (t % 4 == 0) ? rnd() % (la + 1) : la;
                uint8_t *bad = malloc(cut ? cut : 1);
                memcpy(bad, pa, cut);
                if (cut) bad[rnd() % cut] ^= (uint8_t)(1u << (rnd() % 8));
                alp_err_t e1, e2;
                ptrdiff_t r1 = alp_decode_page_f64(bad, cut, out_a, n, NULL, &e1);
                if (dec64) {
                    ptrdiff_t r2 = alp_decode_page_f64(bad, cut, out_b, n, dec64, &e2);
                    if (r1 != r2 || e1.code != e2.code || (r1 >= 0 && memcmp(out_a, out_b, n * 8)))
                        FAIL("f64 corrupt page paths disagree kind %d n %zu", kind, n);
                }
                alp_stream_t s;
                size_t k = 0;
                if (alp_stream_init(&s, bad, cut, 1, &e2) == ALP_OK) {
                    double x;
                    while (k < n && alp_stream_next_f64(&s, &x, &e2) == 1) {
                        if (r1 >= 0 && memcmp(&x, &out_a[k], 8)) { FAIL("f64 stream differs at %zu", k); break; }
                        k++;
                    }
                }
                if (r1 >= 0 && k != n) FAIL("f64 stream stopped at %zu of %zu", k, n);
                free(bad);
            }
            fill32(fv, n, kind);
            la = alp_encode_page_f32(fv, n, pa, sizeof(pa), alp_analyze_f32_scalar);
            lb = an32 ? alp_encode_page_f32(fv, n, pb, sizeof(pb), an32) : la;
            if (an32 && (la != lb || memcmp(pa, pb, la))) FAIL("f32 page bytes differ kind %d n %zu", kind, n);
            ca = alp_decode_page_f32(pa, la, fo_a, n, NULL, &err);
            if (ca != (ptrdiff_t)la || memcmp(fo_a, fv, n * 4)) FAIL("f32 scalar page roundtrip kind %d n %zu", kind, n);
            if (dec32) {
                ptrdiff_t cb = alp_decode_page_f32(pa, la, fo_b, n, dec32, &err);
                if (cb != ca || memcmp(fo_b, fv, n * 4)) FAIL("f32 simd page roundtrip kind %d n %zu", kind, n);
            }
            for (int t = 0; t < 100 && la > 0; t++) {
                size_t cut = (t % 4 == 0) ? rnd() % (la + 1) : la;
                uint8_t *bad = malloc(cut ? cut : 1);
                memcpy(bad, pa, cut);
                if (cut) bad[rnd() % cut] ^= (uint8_t)(1u << (rnd() % 8));
                alp_err_t e1, e2;
                ptrdiff_t r1 = alp_decode_page_f32(bad, cut, fo_a, n, NULL, &e1);
                if (dec32) {
                    ptrdiff_t r2 = alp_decode_page_f32(bad, cut, fo_b, n, dec32, &e2);
                    if (r1 != r2 || e1.code != e2.code || (r1 >= 0 && memcmp(fo_a, fo_b, n * 4)))
                        FAIL("f32 corrupt page paths disagree kind %d n %zu", kind, n);
                }
                free(bad);
            }
        }
    }
}

/* Decode a page held in an exactly sized heap copy (a sanitizer build sees any over-read) with
 * the scalar kernels, the SIMD kernels and the stream decoder; all must give `want`. */
static void check_page_f64(const uint8_t *page, size_t len, const double *want, size_t n,
                           const char *what)
{
    uint8_t *exact = malloc(len);
    memcpy(exact, page, len);
    static double out[2048];
    alp_err_t err;
    ptrdiff_t r = alp_decode_page_f64(exact, len, out, n, NULL, &err);
    if (r != (ptrdiff_t)len || memcmp(out, want, n * 8)) FAIL("%s: scalar decode (%s)", what, alp_error_text(err.code));
    if (dec64) {
        r = alp_decode_page_f64(exact, len, out, n, dec64, &err);
        if (r != (ptrdiff_t)len || memcmp(out, want, n * 8)) FAIL("%s: SIMD decode", what);
    }
    alp_stream_t s;
    size_t k = 0;
    double x;
    if (alp_stream_init(&s, exact, len, 1, &err) == ALP_OK)
        while (alp_stream_next_f64(&s, &x, &err) == 1 && k < n && !memcmp(&x, &want[k], 8)) k++;
    if (k != n) FAIL("%s: stream decode stopped at %zu of %zu", what, k, n);
    free(exact);
}

static void check_page_f32(const uint8_t *page, size_t len, const float *want, size_t n,
                           const char *what)
{
    uint8_t *exact = malloc(len);
    memcpy(exact, page, len);
    static float out[2048];
    alp_err_t err;
    ptrdiff_t r = alp_decode_page_f32(exact, len, out, n, NULL, &err);
    if (r != (ptrdiff_t)len || memcmp(out, want, n * 4)) FAIL("%s: scalar decode (%s)", what, alp_error_text(err.code));
    if (dec32) {
        r = alp_decode_page_f32(exact, len, out, n, dec32, &err);
        if (r != (ptrdiff_t)len || memcmp(out, want, n * 4)) FAIL("%s: SIMD decode", what);
    }
    alp_stream_t s;
    size_t k = 0;
    float x;
    if (alp_stream_init(&s, exact, len, 0, &err) == ALP_OK)
        while (alp_stream_next_f32(&s, &x, &err) == 1 && k < n && !memcmp(&x, &want[k], 4)) k++;
    if (k != n) FAIL("%s: stream decode stopped at %zu of %zu", what, k, n);
    free(exact);
}

/* Width-0 blocks (alp-format.md): body_bytes 0 and no body, from the scalar and the SIMD value
 * loop alike, for constant runs of every length around the block size, with and without
 * exceptions, next to blocks of other widths; and a block carrying the 32-byte zero body older
 * pages have (body_bytes 32) decodes the same on every path. */
static void check_width_zero_blocks(void)
{
    static const size_t lens[] = {1, 2, 4, 5, 8, 9, 1023, 1024, 1025, 2048};
    static double v[2048];
    static float fv[2048];
    static uint8_t pa[2048 * 8 + 4096], pb[2048 * 8 + 4096], old[2048 * 8 + 4096];
    for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {
        const size_t n = lens[li];
        for (int variant = 0; variant < 3; variant++) {
            /* 0: constant; 1: constant with specials (exceptions); 2: constant, then a ramp */
            for (size_t i = 0; i < n; i++) {
                v[i] = 21.5;
                fv[i] = -0.75f;
                if (variant == 1 && i % 7 == 3) { v[i] = NAN; fv[i] = INFINITY; }
                if (variant == 2 && i >= ALP_BLOCK) { v[i] = (double)i / 4; fv[i] = (float)i / 4; }
            }
            size_t la = alp_encode_page_f64(v, n, pa, sizeof(pa), alp_analyze_f64_scalar);
            size_t lb = an64 ? alp_encode_page_f64(v, n, pb, sizeof(pb), an64) : la;
            if (an64 && (la != lb || memcmp(pa, pb, la))) FAIL("f64 width-0 page bytes differ n %zu", n);
            /* rebuild the page with the padded width-0 bodies of the old encoder */
            size_t off = ALP_PAGE_HEADER, lo = ALP_PAGE_HEADER;
            memcpy(old, pa, ALP_PAGE_HEADER);
            while (off < la) {
                alp_block_t b;
                if (alp_parse_block(pa + off, la - off, 1, &b) != ALP_OK) { FAIL("f64 width-0 page n %zu: bad block", n); break; }
                memcpy(old + lo, pa + off, b.size);
                if (b.scheme == 0 && b.width == 0) {
                    if (b.body_bytes != 0) FAIL("f64 width-0 block n %zu variant %d: body_bytes %u", n, variant, b.body_bytes);
                    alp_st32(old + lo + 12, 32);
                    memset(old + lo + b.size, 0, 32);
                    lo += 32;
                }
                off += b.size;
                lo += b.size;
            }
            check_page_f64(pa, la, v, n, "f64 width-0 page");
            check_page_f64(old, lo, v, n, "f64 padded width-0 page");
            la = alp_encode_page_f32(fv, n, pa, sizeof(pa), alp_analyze_f32_scalar);
            lb = an32 ? alp_encode_page_f32(fv, n, pb, sizeof(pb), an32) : la;
            if (an32 && (la != lb || memcmp(pa, pb, la))) FAIL("f32 width-0 page bytes differ n %zu", n);
            off = lo = ALP_PAGE_HEADER;
            memcpy(old, pa, ALP_PAGE_HEADER);
            while (off < la) {
                alp_block_t b;
                if (alp_parse_block(pa + off, la - off, 0, &b) != ALP_OK) { FAIL("f32 width-0 page n %zu: bad block", n); break; }
                memcpy(old + lo, pa + off, b.size);
                if (b.scheme == 0 && b.width == 0) {
                    if (b.body_bytes != 0) FAIL("f32 width-0 block n %zu variant %d: body_bytes %u", n, variant, b.body_bytes);
                    alp_st32(old + lo + 12, 32);
                    memset(old + lo + b.size, 0, 32);
                    lo += 32;
                }
                off += b.size;
                lo += b.size;
            }
            check_page_f32(pa, la, fv, n, "f32 width-0 page");
            check_page_f32(old, lo, fv, n, "f32 padded width-0 page");
        }
    }
}

int main(void)
{
    unsigned features = tsfile_cpu_features();
    int rows = 0;
    for (size_t i = 0; i < ALP_N_IMPLS; i++) {
        const alp_impl *row = &alp_impls[i];
        if ((features & row->head.need) != row->head.need) {
            printf("alp_check: row %s skipped (this CPU lacks its features)\n", row->head.name);
            continue;
        }
        int before = failures;
        use_row(row);
        check_decode_kernels();
        check_decode_reads_stay_in_bounds();
        check_analyze();
        check_pages();
        check_width_zero_blocks();
        printf("alp_check: ISA %s, row %s: %s\n", TSFILE_ISA_NAME, row->head.name,
               failures == before ? "ok" : "FAILED");
        rows++;
    }
    if (failures) {
        printf("alp_check: %d failures\n", failures);
        return 1;
    }
    printf("alp_check: ok (%d rows)\n", rows);
    return 0;
}
