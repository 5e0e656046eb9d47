# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""CHIMP (Chimp128) decoding for INT32/DATE, INT64/TIMESTAMP, FLOAT and DOUBLE (format notes 8.8).

A page is one MSB-first bit stream ending with an end-marker value, so the number of values is
only known once it has been decoded. Two paths, identical results:

* ``"per_value"``: a streaming decoder driven one value per C call (the classic baseline);
* ``"batch"``: the whole page in one C loop. ``"auto"`` means batch. There is no SIMD path (a
  serial bit stream: every value's position depends on the previous one), so ``"simd"`` raises
  :class:`~tsfile.errors.SimdUnavailableError`.

FLOAT and DOUBLE values are decoded as their IEEE bit patterns, so NaN payloads and -0.0 come back
exactly as written.
"""
include "_serial_codec.pxi"


# ---- the header's state and kernels (include/chimp_scalar.h) ------------------------------------

from libc.stddef cimport ptrdiff_t
from libc.stdint cimport int64_t, uint8_t, uint64_t


cdef extern from "chimp_scalar.h" nogil:
    ctypedef struct chimp_state:
        int done
        int stop_at_end
    void chimp_init(chimp_state *s, const uint8_t *src, size_t len, uint64_t endv)
    int chimp_next32(chimp_state *s, uint64_t *out)
    int chimp_next64(chimp_state *s, uint64_t *out)
    size_t chimp_consumed(const chimp_state *s)
    void chimp_try_end32(chimp_state *s)
    void chimp_try_end64(chimp_state *s)
    int64_t chimp_decode_u32(const uint8_t *src, size_t len, uint64_t endv, int stop_at_end,
                             void *out, int64_t cap, size_t *pos)
    int64_t chimp_decode_u64(const uint8_t *src, size_t len, uint64_t endv, int stop_at_end,
                             void *out, int64_t cap, size_t *pos)
    int64_t chimp_max_values(size_t len, int W)
    size_t chimp_encode_bound(size_t n, int W)
    ptrdiff_t chimp_encode_generic(const void *values, size_t n, int W, uint64_t endv,
                                   uint8_t *out)


# ---- the kernels (include/chimp_scalar.h) as the shared serial code calls them ------------------

cdef extern from "chimp_scalar.h" nogil:
    uint64_t CHIMP_END_I32
    uint64_t CHIMP_END_I64
    uint64_t CHIMP_END_F32
    uint64_t CHIMP_END_F64

cdef extern from "serial_skip.h" nogil:
    int64_t chimp_take32(chimp_state *s, int64_t k, void *out)
    int64_t chimp_take64(chimp_state *s, int64_t k, void *out)


# the end-marker word of a kind (MIN_VALUE, canonical NaN)
cdef inline uint64_t _endv(int sk) noexcept nogil:
    if sk == SK_I32:
        return CHIMP_END_I32
    if sk == SK_I64:
        return CHIMP_END_I64
    if sk == SK_F32:
        return CHIMP_END_F32
    return CHIMP_END_F64


cdef inline int _width(int sk) noexcept nogil:
    return 64 if serial_wide(sk) else 32


# exact (the page's count known): an end-marker word is a value, as the official reader has it
cdef void _open(void *st, const uint8_t *src, size_t n, int sk, bint exact) noexcept nogil:
    chimp_init(<chimp_state *>st, src, n, _endv(sk))
    (<chimp_state *>st).stop_at_end = not exact


cdef int _next(void *st, int sk, uint64_t *v) noexcept nogil:
    if serial_wide(sk):
        return chimp_next64(<chimp_state *>st, v)
    return chimp_next32(<chimp_state *>st, v)


# the whole page when its end marker directly follows the last value taken
cdef size_t _finish(void *st, int sk) noexcept nogil:
    if serial_wide(sk):
        chimp_try_end64(<chimp_state *>st)
    else:
        chimp_try_end32(<chimp_state *>st)
    return chimp_consumed(<chimp_state *>st)


cdef size_t _error_at(void *st) noexcept nogil:
    return chimp_consumed(<chimp_state *>st)


cdef int64_t _batch(const uint8_t *src, size_t n, int sk, bint exact, void *out, int64_t cap,
                    size_t *pos) noexcept nogil:
    if serial_wide(sk):
        return chimp_decode_u64(src, n, _endv(sk), not exact, out, cap, pos)
    return chimp_decode_u32(src, n, _endv(sk), not exact, out, cap, pos)


# a bound (about 7 values a byte for 64-bit words): a page stores no count
cdef int64_t _size(const uint8_t *src, size_t n, int sk, size_t *pos) noexcept nogil:
    return chimp_max_values(n, _width(sk))


cdef int64_t _take(void *st, int sk, int64_t k, void *out) noexcept nogil:
    if serial_wide(sk):
        return chimp_take64(<chimp_state *>st, k, out)
    return chimp_take32(<chimp_state *>st, k, out)


cdef size_t _encode_bound(size_t n, int sk) noexcept nogil:
    return chimp_encode_bound(n, _width(sk))


# the width a constant in each call, so that the encoder is compiled once per width
cdef ptrdiff_t _encode(const void *values, size_t n, int sk, uint8_t *out) noexcept nogil:
    if serial_wide(sk):
        return chimp_encode_generic(values, n, 64, _endv(sk), out)
    return chimp_encode_generic(values, n, 32, _endv(sk), out)


# the codec's kernels, for _serial_codec.pxi
cdef serial_ops _kernels() except *:
    return make_serial_ops(
        b"CHIMP", b"chimp", 11, 15, SERIAL_COUNT_BOUND | SERIAL_END_MARKER | SERIAL_SHORT_IS_TRUNCATED,
        sizeof(chimp_state), _open, _next, _finish, _error_at, _batch, _size, _take, _encode_bound,
        _encode)


# ---- the Python API -----------------------------------------------------------------------------

def decode(data, dtype, count=None, path="auto"):
    """Decode a CHIMP page into a numpy array (int32, int64, float32 or float64).

    ``dtype``: a :class:`~tsfile.types.TSDataType` (INT32, DATE, INT64, TIMESTAMP, FLOAT, DOUBLE) or
    a numpy dtype. ``count``: the number of values to decode, None = up to the end marker. With a
    count, values equal to the end marker (MIN_VALUE, canonical NaN) are decoded as data, as the
    official reader does (it knows each page's count); without one the first such value ends the
    page.
    """
    return _CODEC.decode(data, dtype, count, path)


cdef class ChimpDecoder(SerialDecoder):
    """Streaming decoder: ``has_next()`` / ``next()`` one value at a time (also an iterator)."""

    def __init__(self, data, dtype):
        self._start(&_OPS, data, dtype)

    @property
    def bytes_consumed(self):
        """Bytes of the page used so far (after the end marker: including its padded byte)."""
        if self.state == NULL:  # made by __new__ without __init__: no state to read
            raise TypeError(f"{type(self).__name__} was not initialised (call it with data, dtype)")
        return chimp_consumed(<chimp_state *>self.state)


def encode(values, dtype=None):
    """Encode a page of values as CHIMP, exactly as the official writers do (the end value is
    appended). ``dtype``: as for :func:`decode`; None = from the values' numpy dtype.

    Values equal to the end marker (MIN_VALUE, canonical NaN) are stored like any other; readers
    that know the page's value count (file readers do) decode them, a count-less decode stops there.
    """
    return serial_encode(&_OPS, values, dtype)


cdef class ChimpEncoder(SerialEncoder):
    """Streaming encoder: ``encode(value)`` buffers a value, ``flush()`` returns the page bytes and
    starts a new page."""

    def __init__(self, dtype):
        self._bind(&_OPS, dtype, encode)
