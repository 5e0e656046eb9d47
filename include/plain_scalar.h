/*
 * plain_scalar.h: PLAIN encoding kernels (format notes 8.2).
 *
 *   BOOLEAN          one byte, non-zero = true (writers emit 0/1)
 *   INT32, DATE      svarint (zigzag varint, 1..5 bytes)
 *   INT64, TIMESTAMP i64 big-endian
 *   FLOAT, DOUBLE    IEEE bits big-endian (kept bit-exact: NaN payloads, -0.0)
 *   TEXT/STRING/BLOB svarint length + raw bytes
 *
 * Batch decoders: decode exactly `count` values from src[0..n) and return the number of bytes
 * consumed, or a negative TSC_ERR_* code with *err_at set to the offending byte offset. They check
 * the length before every read. Per-value readers (plain_next_*) read one value at *pos.
 * Encoders write into a buffer the caller sized with the plain_encoded_bound_* helpers.
 */
#ifndef TSFILE_PLAIN_SCALAR_H
#define TSFILE_PLAIN_SCALAR_H

#include "varint_scalar.h"

/* ---- per-value readers: return TSC_OK or an error code; *pos advances on success ---- */

TSFILE_INLINE int plain_next_bool(const uint8_t *p, size_t n, size_t *pos, uint8_t *out)
{
    if (*pos >= n) return TSC_ERR_TRUNCATED;
    *out = p[*pos] != 0;
    *pos += 1;
    return TSC_OK;
}

TSFILE_INLINE int plain_next_i32(const uint8_t *p, size_t n, size_t *pos, int32_t *out)
{
    return tsc_read_svarint32(p, n, pos, out);
}

/* Generates NAME(p, n, pos, out): one BITS-bit big-endian value (INT64 / TIMESTAMP, or the IEEE
 * bits of a FLOAT) into *out as T. A macro because the widths differ only in the load. */
#define PLAIN_DEFINE_NEXT_FIXED(NAME, T, BITS)                                                     \
    TSFILE_INLINE int NAME(const uint8_t *p, size_t n, size_t *pos, T *out)                        \
    {                                                                                              \
        if (*pos > n || n - *pos < (BITS) / 8) return TSC_ERR_TRUNCATED;                           \
        *out = (T)tsc_load_be##BITS(p + *pos);                                                     \
        *pos += (BITS) / 8;                                                                        \
        return TSC_OK;                                                                             \
    }

PLAIN_DEFINE_NEXT_FIXED(plain_next_i64, int64_t, 64)
PLAIN_DEFINE_NEXT_FIXED(plain_next_u32bits, uint32_t, 32)

/* One binary value: stores the start offset and length of its bytes. */
TSFILE_INLINE int plain_next_binary(const uint8_t *p, size_t n, size_t *pos, size_t *start,
                                    size_t *len)
{
    size_t i = *pos;
    int32_t l;
    int e = tsc_read_svarint32(p, n, &i, &l);
    if (e) return e;
    if (l < 0) return TSC_ERR_NEG_LENGTH;
    if ((size_t)l > n - i) return TSC_ERR_TRUNCATED;
    *start = i;
    *len = (size_t)l;
    *pos = i + (size_t)l;
    return TSC_OK;
}

/* ---- byte swaps of fixed-width big-endian values (the caller has checked that src holds
 * `count` values) ---- */

/* Generates plain_bswapBITS_scalar (BITS 64 or 32), the scalar row of plain_impls.h and the
 * vector rows' tail: a macro because the two widths differ only in the load. */
#define PLAIN_DEFINE_BSWAP_SCALAR(BITS)                                                            \
    static void plain_bswap##BITS##_scalar(const uint8_t *src, uint##BITS##_t *out, size_t count)  \
    {                                                                                              \
        for (size_t i = 0; i < count; i++) out[i] = tsc_load_be##BITS(src + (BITS) / 8 * i);       \
    }

/* plain_bswap64_scalar, plain_bswap32_scalar */
PLAIN_DEFINE_BSWAP_SCALAR(64)
PLAIN_DEFINE_BSWAP_SCALAR(32)

/*
 * Generates NAME(src, out, count), the byte swap of `count` BITS-bit big-endian values into
 * native order, for the vector rows of plain_impls.h: a loop of two VBYTES-byte registers a step
 * (VT; LOAD, STORE and SWAP its operations, SWAP reversing the bytes of each value), then
 * TAIL(src, out, i, count, BITS) for the values after the last whole step (by default
 * PLAIN_BSWAP_SCALAR_TAIL). One macro because the rows (AVX2, AVX-512, NEON) and the widths differ
 * only in these operations.
 */
#define PLAIN_DEFINE_BSWAP(NAME, ATTR, BITS, VBYTES, VT, LOAD, STORE, SWAP, TAIL)                  \
    static ATTR void NAME(const uint8_t *src, uint##BITS##_t *out, size_t count)                   \
    {                                                                                              \
        const size_t width = (BITS) / 8, per = (VBYTES) / width; /* values a register */          \
        size_t i = 0;                                                                              \
        for (; i + 2 * per <= count; i += 2 * per) {                                               \
            const VT a = LOAD(src + width * i), b = LOAD(src + width * i + (VBYTES));              \
            STORE(out + i, SWAP(a));                                                               \
            STORE(out + i + per, SWAP(b));                                                         \
        }                                                                                          \
        TAIL(src, out, i, count, BITS);                                                            \
    }

#define PLAIN_BSWAP_SCALAR_TAIL(src, out, i, count, BITS)                                          \
    plain_bswap##BITS##_scalar(src + (BITS) / 8 * i, out + i, count - i)

/* ---- batch decoders ---- */

static inline ptrdiff_t plain_decode_bool_scalar(const uint8_t *src, size_t n, uint8_t *out, size_t count,
                                          size_t *err_at)
{
    if (count > n) {
        *err_at = n;
        return -TSC_ERR_TRUNCATED;
    }
    for (size_t i = 0; i < count; i++) out[i] = src[i] != 0;
    return (ptrdiff_t)count;
}

static inline ptrdiff_t plain_decode_i32_scalar(const uint8_t *src, size_t n, int32_t *out, size_t count,
                                         size_t *err_at)
{
    size_t pos = 0, i = 0;
    /* Fast loop while at least 5 bytes remain: a varint cannot run past the end there. The
     * byte-by-byte unrolling keeps the common 1- and 2-byte values on short, predictable paths. */
    while (i < count && n - pos >= 5) {
        const uint8_t *q = src + pos;
        uint32_t v = q[0];
        if (TSFILE_LIKELY(v < 0x80u)) {
            pos += 1;
        } else {
            v = (v & 0x7fu) | ((uint32_t)q[1] << 7);
            if (q[1] < 0x80u) {
                pos += 2;
            } else {
                v = (v & 0x3fffu) | ((uint32_t)q[2] << 14);
                if (q[2] < 0x80u) {
                    pos += 3;
                } else {
                    v = (v & 0x1fffffu) | ((uint32_t)q[3] << 21);
                    if (q[3] < 0x80u) {
                        pos += 4;
                    } else {
                        if (q[4] & 0xf0u) { /* a 6th byte or bits beyond 32 */
                            *err_at = pos;
                            return -TSC_ERR_VARINT;
                        }
                        v = (v & 0xfffffffu) | ((uint32_t)q[4] << 28);
                        pos += 5;
                    }
                }
            }
        }
        out[i++] = tsc_zigzag_dec32(v);
    }
    for (; i < count; i++) {
        int e = tsc_read_svarint32(src, n, &pos, &out[i]);
        if (e) {
            *err_at = pos;
            return -e;
        }
    }
    return (ptrdiff_t)pos;
}

/* Generates NAME(src, n, out, count, err_at): `count` BITS-bit big-endian values into native
 * order (INT64 / TIMESTAMP as int64; FLOAT as its IEEE bits in uint32, the caller's float32
 * buffer, so NaN payloads survive), or -TSC_ERR_TRUNCATED at the end of the last whole value. A
 * macro because the widths differ only in T and BITS. */
#define PLAIN_DEFINE_DECODE_FIXED(NAME, T, BITS)                                                   \
    static inline ptrdiff_t NAME(const uint8_t *src, size_t n, T *out, size_t count,               \
                                 size_t *err_at)                                                   \
    {                                                                                              \
        const size_t width = (BITS) / 8;                                                           \
        if (count > n / width) {                                                                   \
            *err_at = (n / width) * width;                                                         \
            return -TSC_ERR_TRUNCATED;                                                             \
        }                                                                                          \
        for (size_t i = 0; i < count; i++) out[i] = (T)tsc_load_be##BITS(src + width * i);        \
        return (ptrdiff_t)(count * width);                                                         \
    }

PLAIN_DEFINE_DECODE_FIXED(plain_decode_i64_scalar, int64_t, 64)
PLAIN_DEFINE_DECODE_FIXED(plain_decode_f32_scalar, uint32_t, 32)

/* Number of svarints in the whole buffer (for count=None); rejects a varint cut by the end and
 * over-long varints, so the following decode of that many values cannot fail on them. */
static inline ptrdiff_t plain_count_i32_scalar(const uint8_t *src, size_t n, size_t *count, size_t *err_at)
{
    size_t pos = 0, c = 0;
    while (pos < n) {
        int32_t v;
        int e = tsc_read_svarint32(src, n, &pos, &v);
        if (e) {
            *err_at = pos;
            return -e;
        }
        c++;
    }
    *count = c;
    return (ptrdiff_t)n;
}

/* Skip the first `k` svarints: the bytes they take, or -code with *err_at (fewer than k values,
 * a varint cut by the end, an over-long varint). Nothing is stored. */
static inline ptrdiff_t plain_skip_i32_scalar(const uint8_t *src, size_t n, size_t k, size_t *err_at)
{
    size_t pos = 0;
    for (size_t i = 0; i < k; i++) {
        int32_t v;
        int e = tsc_read_svarint32(src, n, &pos, &v);
        if (e) {
            *err_at = pos;
            return -e;
        }
    }
    return (ptrdiff_t)pos;
}

/* Binary values: the start offset and length of `count` values (count == SIZE_MAX: until the end
 * of the data; then *count_out receives the number found). starts/lens may be NULL to only count
 * and validate. */
static inline ptrdiff_t plain_scan_binary_scalar(const uint8_t *src, size_t n, size_t count,
                                          int64_t *starts, int64_t *lens, size_t *count_out,
                                          size_t *err_at)
{
    size_t pos = 0, i = 0;
    while (count == SIZE_MAX ? pos < n : i < count) {
        size_t s, l;
        int e = plain_next_binary(src, n, &pos, &s, &l);
        if (e) {
            *err_at = pos;
            return -e;
        }
        if (starts) {
            starts[i] = (int64_t)s;
            lens[i] = (int64_t)l;
        }
        i++;
    }
    *count_out = i;
    return (ptrdiff_t)pos;
}

/* ---- encoders (dst sized by the caller) ---- */

TSFILE_INLINE size_t plain_encoded_bound_i32(size_t count) { return count * 5; }

static inline size_t plain_encode_i32_scalar(const int32_t *v, size_t count, uint8_t *dst)
{
    size_t k = 0;
    for (size_t i = 0; i < count; i++) k += tsc_write_uvarint32(dst + k, tsc_zigzag_enc32(v[i]));
    return k;
}

/* Generates NAME(v, count, dst): `count` values as BITS-bit big-endian words (INT64 / TIMESTAMP;
 * the IEEE bits of FLOAT / DOUBLE). A macro because the widths differ only in T and BITS. */
#define PLAIN_DEFINE_ENCODE_FIXED(NAME, T, BITS)                                                   \
    static inline size_t NAME(const T *v, size_t count, uint8_t *dst)                              \
    {                                                                                              \
        for (size_t i = 0; i < count; i++)                                                         \
            tsc_store_be##BITS(dst + (BITS) / 8 * i, (uint##BITS##_t)v[i]);                        \
        return count * ((BITS) / 8);                                                               \
    }

PLAIN_DEFINE_ENCODE_FIXED(plain_encode_i64_scalar, int64_t, 64)
PLAIN_DEFINE_ENCODE_FIXED(plain_encode_u32bits_scalar, uint32_t, 32)

static inline size_t plain_encode_bool_scalar(const uint8_t *v, size_t count, uint8_t *dst)
{
    for (size_t i = 0; i < count; i++) dst[i] = v[i] != 0;
    return count;
}

#endif /* TSFILE_PLAIN_SCALAR_H */
