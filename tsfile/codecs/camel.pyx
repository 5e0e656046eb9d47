# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""CAMEL decoding (DOUBLE only; format notes 8.11; written by the C++ 2.5 writer only).

Paths, identical results: ``"per_value"`` (a streaming decoder driven one value per C call) and
``"batch"`` (the whole page per C loop; ``"auto"``). There is no SIMD path (``"simd"`` raises
:class:`~tsfile.errors.SimdUnavailableError`): a serial bit stream of variable-length fields.

The results are bit-identical to the official decoder. What the format itself keeps: the first
value of a block exactly (raw bits); later NaNs come back as the canonical NaN (the writer stores
Java's canonical bits), and a NaN after the first value is written as a decimal 0.0 by the C++
writer, so it reads back as 0.0 — the format's loss, not the decoder's.
"""
import numpy as np

include "_serial_codec.pxi"


# ---- the header's state and kernels (include/camel_scalar.h) ------------------------------------

from libc.stdint cimport int64_t, uint8_t, uint64_t


cdef extern from "camel_scalar.h" nogil:
    ctypedef struct camel_state:
        size_t pos
        size_t bits_left
    void camel_init(camel_state *s, const uint8_t *src, size_t len)
    int camel_next(camel_state *s, uint64_t *out)
    size_t camel_error_offset(const camel_state *s, int at_header)
    int64_t camel_decode(const uint8_t *src, size_t len, uint64_t *out, int64_t cap, size_t *pos)
    int64_t camel_max_values(size_t len)
    size_t camel_encode_bound(size_t n)
    size_t camel_encode(const double *values, size_t n, uint8_t *out, uint8_t *scratch)


# ---- the kernels (include/camel_scalar.h) as the shared serial code calls them ------------------

from libc.stdlib cimport free, malloc


cdef extern from "serial_skip.h" nogil:
    int64_t camel_take64(camel_state *s, int64_t k, void *out)


# The streaming state, and whether its last step began at a block header: an error there is
# reported at the header's offset (camel_error_offset), as the batch decoder reports it.
cdef struct camel_walk:
    camel_state st
    bint at_header


cdef void _open(void *st, const uint8_t *src, size_t n, int sk, bint exact) noexcept nogil:
    camel_init(&(<camel_walk *>st).st, src, n)
    (<camel_walk *>st).at_header = False


cdef int _next(void *st, int sk, uint64_t *v) noexcept nogil:
    cdef camel_walk *w = <camel_walk *>st
    w.at_header = w.st.bits_left == 0
    return camel_next(&w.st, v)


cdef size_t _finish(void *st, int sk) noexcept nogil:
    return (<camel_walk *>st).st.pos


cdef size_t _error_at(void *st) noexcept nogil:
    return camel_error_offset(&(<camel_walk *>st).st, (<camel_walk *>st).at_header)


cdef int64_t _batch(const uint8_t *src, size_t n, int sk, bint exact, void *out, int64_t cap,
                    size_t *pos) noexcept nogil:
    return camel_decode(src, n, <uint64_t *>out, cap, pos)


# a bound: a page stores no count
cdef int64_t _size(const uint8_t *src, size_t n, int sk, size_t *pos) noexcept nogil:
    return camel_max_values(n)


# a walk's error is reported at the block it was in (the header of the block being read)
cdef int64_t _take(void *st, int sk, int64_t k, void *out) noexcept nogil:
    (<camel_walk *>st).at_header = True
    return camel_take64(&(<camel_walk *>st).st, k, out)


cdef size_t _encode_bound(size_t n, int sk) noexcept nogil:
    return camel_encode_bound(n)


# the encoder's scratch is as large as its output
cdef ptrdiff_t _encode(const void *values, size_t n, int sk, uint8_t *out) noexcept nogil:
    cdef uint8_t *scratch
    cdef size_t size
    if n == 0:
        return 0
    scratch = <uint8_t *>malloc(camel_encode_bound(n))
    if scratch == NULL:
        return -1
    size = camel_encode(<const double *>values, n, out, scratch)
    free(scratch)
    return <ptrdiff_t>size


# the codec's kernels, for _serial_codec.pxi
cdef serial_ops _kernels() except *:
    return make_serial_ops(
        b"CAMEL", b"camel", 14, 1 << SK_F64, SERIAL_COUNT_BOUND, sizeof(camel_walk), _open, _next,
        _finish, _error_at, _batch, _size, _take, _encode_bound, _encode)


# ---- the Python API -----------------------------------------------------------------------------

def decode(data, dtype=np.float64, count=None, path="auto"):
    """Decode a CAMEL page into a float64 array. ``dtype`` must be DOUBLE / float64.
    ``count``: the number of values to decode, None = all values of the page."""
    return _CODEC.decode(data, dtype, count, path)


cdef class CamelDecoder(SerialDecoder):
    """Streaming decoder: ``has_next()`` / ``next()`` one value at a time (also an iterator)."""

    def __init__(self, data, dtype=np.float64):
        self._start(&_OPS, data, dtype)


def encode(values, dtype=None):
    """Encode a page of doubles as CAMEL, making the official C++ writer's choices (decimal or
    GORILLA per value). ``dtype``: DOUBLE / float64 or None."""
    return serial_encode(&_OPS, values, dtype)


cdef class CamelEncoder(SerialEncoder):
    """Streaming encoder: ``encode(value)`` buffers a value, ``flush()`` returns the page bytes and
    starts a new page."""

    def __init__(self, dtype=np.float64):
        self._bind(&_OPS, dtype, encode)
