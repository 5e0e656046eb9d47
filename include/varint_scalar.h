/*
 * varint_scalar.h: the variable-length integers of the TsFile format (format notes 1.2) and the
 * error codes shared by the PLAIN, RLE, ZIGZAG and DICTIONARY kernels.
 *
 * uvarint32: Java writeUnsignedVarInt, 7 bits per byte, low group first, at most 5 bytes. Readers
 *            accumulate in 32 bits like Java; bits beyond bit 31 (a 5th byte above 0x0f) or a 6th
 *            byte are rejected rather than wrapped, so a damaged varint never decodes silently.
 * svarint32: zigzag of a 32-bit value, then uvarint32.
 * uvarint64: the 64-bit LEB128 of ZIGZAG INT64 pages, at most 10 bytes.
 *
 * Every reader checks the remaining length before touching a byte.
 */
#ifndef TSFILE_VARINT_SCALAR_H
#define TSFILE_VARINT_SCALAR_H

#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include "tsfile_isa.h"

/* Error codes returned (negated) by the kernels of these codecs; the Cython side turns them into
 * CorruptDataError messages together with the byte offset the kernel reports. */
enum {
    TSC_OK = 0,
    TSC_ERR_TRUNCATED = 1,     /* data end before the value / header / run is complete */
    TSC_ERR_VARINT = 2,        /* varint longer than its type allows or overflowing it */
    TSC_ERR_NEG_LENGTH = 3,    /* negative length of a binary value */
    TSC_ERR_WIDTH = 4,         /* bit width above the type's width */
    TSC_ERR_RUN = 5,           /* bad run header (last-group count outside 1..8) */
    TSC_ERR_BLOCK = 6,         /* a run or value crosses the end of its block */
    TSC_ERR_COUNT = 7,         /* a count larger than the bytes can hold */
    TSC_ERR_TRAILING = 8,      /* bytes left over inside a block that must be consumed exactly */
    TSC_ERR_INDEX = 9,         /* dictionary index outside the dictionary */
    TSC_ERR_TOO_MANY = 10,     /* more values than the caller allows */
};

TSFILE_INLINE uint32_t tsc_zigzag_enc32(int32_t v) { return ((uint32_t)v << 1) ^ (uint32_t)(v >> 31); }
TSFILE_INLINE int32_t tsc_zigzag_dec32(uint32_t u) { return (int32_t)((u >> 1) ^ (0u - (u & 1u))); }
TSFILE_INLINE uint64_t tsc_zigzag_enc64(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
TSFILE_INLINE int64_t tsc_zigzag_dec64(uint64_t u) { return (int64_t)((u >> 1) ^ (0ull - (u & 1ull))); }

/* Read a uvarint32 from p[*pos .. n). On success stores the value, advances *pos, returns 0;
 * otherwise returns an error code and leaves *pos at the varint's first byte. */
TSFILE_INLINE int tsc_read_uvarint32(const uint8_t *p, size_t n, size_t *pos, uint32_t *out)
{
    size_t i = *pos;
    if (TSFILE_LIKELY(i < n && p[i] < 0x80)) {
        *out = p[i];
        *pos = i + 1;
        return TSC_OK;
    }
    uint32_t v = 0;
    for (int k = 0; k < 5; k++) {
        if (i + (size_t)k >= n) return TSC_ERR_TRUNCATED;
        uint32_t b = p[i + (size_t)k];
        if (k == 4 && (b & 0xf0u)) return TSC_ERR_VARINT; /* > 32 bits or a 6th byte */
        v |= (b & 0x7fu) << (7 * k);
        if (!(b & 0x80u)) {
            *out = v;
            *pos = i + (size_t)k + 1;
            return TSC_OK;
        }
    }
    return TSC_ERR_VARINT;
}

TSFILE_INLINE int tsc_read_svarint32(const uint8_t *p, size_t n, size_t *pos, int32_t *out)
{
    uint32_t u;
    int e = tsc_read_uvarint32(p, n, pos, &u);
    if (e) return e;
    *out = tsc_zigzag_dec32(u);
    return TSC_OK;
}

/* 64-bit LEB128 (at most 10 bytes; the 10th may only carry bit 63). */
TSFILE_INLINE int tsc_read_uvarint64(const uint8_t *p, size_t n, size_t *pos, uint64_t *out)
{
    size_t i = *pos;
    if (TSFILE_LIKELY(i < n && p[i] < 0x80)) {
        *out = p[i];
        *pos = i + 1;
        return TSC_OK;
    }
    uint64_t v = 0;
    for (int k = 0; k < 10; k++) {
        if (i + (size_t)k >= n) return TSC_ERR_TRUNCATED;
        uint64_t b = p[i + (size_t)k];
        if (k == 9 && (b & 0xfeu)) return TSC_ERR_VARINT;
        v |= (b & 0x7fu) << (7 * k);
        if (!(b & 0x80u)) {
            *out = v;
            *pos = i + (size_t)k + 1;
            return TSC_OK;
        }
    }
    return TSC_ERR_VARINT;
}

/* Writers: return the number of bytes written (dst needs 5 / 10 bytes of room). One body, typed
 * per word width (the loop on the value's own width: the 32-bit one is not the 64-bit one widened,
 * which ran ZIGZAG INT32 encode about 5% slower). */
#define TSC_DEFINE_WRITE_UVARINT(NAME, T)                                                          \
    TSFILE_INLINE size_t NAME(uint8_t *dst, T v)                                                   \
    {                                                                                              \
        size_t k = 0;                                                                              \
        while (v >= 0x80u) {                                                                       \
            dst[k++] = (uint8_t)(v | 0x80u);                                                       \
            v >>= 7;                                                                               \
        }                                                                                          \
        dst[k++] = (uint8_t)v;                                                                     \
        return k;                                                                                  \
    }

/* generates tsc_write_uvarint32, tsc_write_uvarint64 */
TSC_DEFINE_WRITE_UVARINT(tsc_write_uvarint32, uint32_t)
TSC_DEFINE_WRITE_UVARINT(tsc_write_uvarint64, uint64_t)

TSFILE_INLINE uint64_t tsc_load_be64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__GNUC__) || defined(__clang__)
#  if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap64(v);
#  endif
#else
    v = ((uint64_t)p[0] << 56) | ((uint64_t)p[1] << 48) | ((uint64_t)p[2] << 40) |
        ((uint64_t)p[3] << 32) | ((uint64_t)p[4] << 24) | ((uint64_t)p[5] << 16) |
        ((uint64_t)p[6] << 8) | (uint64_t)p[7];
#endif
    return v;
}

TSFILE_INLINE uint32_t tsc_load_be32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
#if defined(__GNUC__) || defined(__clang__)
#  if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap32(v);
#  endif
#else
    v = ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
#endif
    return v;
}

TSFILE_INLINE void tsc_store_be64(uint8_t *p, uint64_t v)
{
#if (defined(__GNUC__) || defined(__clang__)) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap64(v);
    memcpy(p, &v, 8);
#else
    for (int k = 7; k >= 0; k--) { p[k] = (uint8_t)v; v >>= 8; }
#endif
}

TSFILE_INLINE void tsc_store_be32(uint8_t *p, uint32_t v)
{
#if (defined(__GNUC__) || defined(__clang__)) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap32(v);
    memcpy(p, &v, 4);
#else
    for (int k = 3; k >= 0; k--) { p[k] = (uint8_t)v; v >>= 8; }
#endif
}

#endif /* TSFILE_VARINT_SCALAR_H */
