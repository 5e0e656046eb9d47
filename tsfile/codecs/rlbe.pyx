# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""RLBE (run-length + Fibonacci bit encoding) decoding for INT32/DATE, INT64/TIMESTAMP, FLOAT and
DOUBLE (format notes 8.10).

Paths, identical results: ``"per_value"`` (a streaming decoder driven one value per C call) and
``"batch"`` (whole segments per C loop; ``"auto"``). There is no SIMD path (``"simd"`` raises
:class:`~tsfile.errors.SimdUnavailableError`): values are variable-width fields of a serial bit
stream. FLOAT/DOUBLE are decoded as IEEE bit patterns, so NaN payloads and -0.0 are exact.
"""
include "_serial_codec.pxi"


# ---- the header's state and kernels (include/rlbe_scalar.h) -------------------------------------

from libc.stdint cimport int64_t, uint8_t, uint64_t


cdef extern from "rlbe_scalar.h" nogil:
    ctypedef struct rlbe_state:
        int seg_len
    void rlbe_init(rlbe_state *s, const uint8_t *src, size_t len)
    int rlbe_next32(rlbe_state *s, uint64_t *out)
    int rlbe_next64(rlbe_state *s, uint64_t *out)
    size_t rlbe_consumed(const rlbe_state *s)
    int64_t rlbe_decode_u32(const uint8_t *src, size_t len, void *out, int64_t cap, size_t *pos)
    int64_t rlbe_decode_u64(const uint8_t *src, size_t len, void *out, int64_t cap, size_t *pos)
    int64_t rlbe_count(const uint8_t *src, size_t len, int W, size_t *pos)
    size_t rlbe_encode_bound(size_t n, int W)
    size_t rlbe_encode_generic(const void *values, size_t n, int W, uint8_t *out)


# ---- the kernels (include/rlbe_scalar.h) as the shared serial code calls them -------------------

cdef extern from "serial_skip.h" nogil:
    int64_t rlbe_take32(rlbe_state *s, int64_t k, void *out)
    int64_t rlbe_take64(rlbe_state *s, int64_t k, void *out)


cdef inline int _width(int sk) noexcept nogil:
    return 64 if serial_wide(sk) else 32


cdef void _open(void *st, const uint8_t *src, size_t n, int sk, bint exact) noexcept nogil:
    rlbe_init(<rlbe_state *>st, src, n)


cdef int _next(void *st, int sk, uint64_t *v) noexcept nogil:
    if serial_wide(sk):
        return rlbe_next64(<rlbe_state *>st, v)
    return rlbe_next32(<rlbe_state *>st, v)


cdef size_t _finish(void *st, int sk) noexcept nogil:
    return rlbe_consumed(<rlbe_state *>st)


cdef size_t _error_at(void *st) noexcept nogil:
    return rlbe_consumed(<rlbe_state *>st)


cdef int64_t _batch(const uint8_t *src, size_t n, int sk, bint exact, void *out, int64_t cap,
                    size_t *pos) noexcept nogil:
    if serial_wide(sk):
        return rlbe_decode_u64(src, n, out, cap, pos)
    return rlbe_decode_u32(src, n, out, cap, pos)


# the exact count: the block and segment headers walked, the value bits skipped
cdef int64_t _size(const uint8_t *src, size_t n, int sk, size_t *pos) noexcept nogil:
    return rlbe_count(src, n, _width(sk), pos)


cdef int64_t _take(void *st, int sk, int64_t k, void *out) noexcept nogil:
    if serial_wide(sk):
        return rlbe_take64(<rlbe_state *>st, k, out)
    return rlbe_take32(<rlbe_state *>st, k, out)


cdef size_t _encode_bound(size_t n, int sk) noexcept nogil:
    return rlbe_encode_bound(n, _width(sk))


# the width a constant in each call, so that the encoder is compiled once per width
cdef ptrdiff_t _encode(const void *values, size_t n, int sk, uint8_t *out) noexcept nogil:
    if serial_wide(sk):
        return <ptrdiff_t>rlbe_encode_generic(values, n, 64, out)
    return <ptrdiff_t>rlbe_encode_generic(values, n, 32, out)


# the codec's kernels, for _serial_codec.pxi
cdef serial_ops _kernels() except *:
    return make_serial_ops(
        b"RLBE", b"rlbe", 13, 15, 0, sizeof(rlbe_state), _open, _next, _finish, _error_at, _batch,
        _size, _take, _encode_bound, _encode)


# ---- the Python API -----------------------------------------------------------------------------

def decode(data, dtype, count=None, path="auto"):
    """Decode an RLBE page into a numpy array (int32, int64, float32 or float64).

    ``dtype``: a :class:`~tsfile.types.TSDataType` (INT32, DATE, INT64, TIMESTAMP, FLOAT, DOUBLE) or
    a numpy dtype. ``count``: the number of values to decode, None = all values of the page.
    """
    return _CODEC.decode(data, dtype, count, path)


cdef class RlbeDecoder(SerialDecoder):
    """Streaming decoder: ``has_next()`` / ``next()`` one value at a time (also an iterator)."""

    def __init__(self, data, dtype):
        self._start(&_OPS, data, dtype)


def encode(values, dtype=None):
    """Encode a page of values as RLBE (blocks of up to 10,000 values), as the official writers
    do. ``dtype``: as for :func:`decode`; None = from the values' numpy dtype."""
    return serial_encode(&_OPS, values, dtype)


cdef class RlbeEncoder(SerialEncoder):
    """Streaming encoder: ``encode(value)`` buffers a value, ``flush()`` returns the page bytes and
    starts a new page."""

    def __init__(self, dtype):
        self._bind(&_OPS, dtype, encode)
