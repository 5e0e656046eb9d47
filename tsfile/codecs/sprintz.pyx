# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""SPRINTZ (Fire predictor + bit packing) decoding for INT32, INT64, FLOAT and DOUBLE (format
notes 8.9).

Paths, identical results: ``"per_value"`` (a streaming decoder driven one value per C call; it
decodes a 9-value block when the previous one is used up, as the official decoder does) and
``"batch"`` (the whole page per C loop; ``"auto"``). There is no SIMD path (``"simd"`` raises
:class:`~tsfile.errors.SimdUnavailableError`): each block's values depend on the predictor state.
FLOAT/DOUBLE are decoded as IEEE bit patterns, exactly as written (the official 2.5 reader returns
wrong FLOAT/DOUBLE values for its own SPRINTZ files; this decoder follows the format).
"""
include "_serial_codec.pxi"


# ---- the header's state and kernels (include/sprintz_scalar.h) ----------------------------------

from libc.stdint cimport int64_t, uint8_t, uint64_t


cdef extern from "sprintz_scalar.h" nogil:
    ctypedef struct sprintz_state:
        size_t pos
    void sprintz_init(sprintz_state *s, const uint8_t *src, size_t len, int kind)
    int sprintz_next(sprintz_state *s, uint64_t *out)
    int64_t sprintz_decode(const uint8_t *src, size_t len, int kind, void *out, int64_t cap,
                           size_t *pos)
    int64_t sprintz_count(const uint8_t *src, size_t len, int kind, size_t *pos)
    size_t sprintz_encode_bound(size_t n)
    size_t sprintz_encode(const void *values, size_t n, int kind, uint8_t *out)


# ---- the kernels (include/sprintz_scalar.h) as the shared serial code calls them ----------------

cdef extern from "serial_skip.h" nogil:
    int64_t sprintz_take32(sprintz_state *s, int64_t k, void *out)
    int64_t sprintz_take64(sprintz_state *s, int64_t k, void *out)


cdef void _open(void *st, const uint8_t *src, size_t n, int sk, bint exact) noexcept nogil:
    sprintz_init(<sprintz_state *>st, src, n, sk)


cdef int _next(void *st, int sk, uint64_t *v) noexcept nogil:
    return sprintz_next(<sprintz_state *>st, v)


cdef size_t _finish(void *st, int sk) noexcept nogil:
    return (<sprintz_state *>st).pos


cdef size_t _error_at(void *st) noexcept nogil:
    return (<sprintz_state *>st).pos


cdef int64_t _batch(const uint8_t *src, size_t n, int sk, bint exact, void *out, int64_t cap,
                    size_t *pos) noexcept nogil:
    return sprintz_decode(src, n, sk, out, cap, pos)


# the exact count: the block headers walked, only the tail decoded
cdef int64_t _size(const uint8_t *src, size_t n, int sk, size_t *pos) noexcept nogil:
    return sprintz_count(src, n, sk, pos)


cdef int64_t _take(void *st, int sk, int64_t k, void *out) noexcept nogil:
    if serial_wide(sk):
        return sprintz_take64(<sprintz_state *>st, k, out)
    return sprintz_take32(<sprintz_state *>st, k, out)


cdef size_t _encode_bound(size_t n, int sk) noexcept nogil:
    return sprintz_encode_bound(n)


cdef ptrdiff_t _encode(const void *values, size_t n, int sk, uint8_t *out) noexcept nogil:
    return <ptrdiff_t>sprintz_encode(values, n, sk, out)


# the codec's kernels, for _serial_codec.pxi
cdef serial_ops _kernels() except *:
    return make_serial_ops(
        b"SPRINTZ", b"sprintz", 12, 15, 0, sizeof(sprintz_state), _open, _next, _finish, _error_at,
        _batch, _size, _take, _encode_bound, _encode)


# ---- the Python API -----------------------------------------------------------------------------

def decode(data, dtype, count=None, path="auto"):
    """Decode an SPRINTZ page into a numpy array (int32, int64, float32 or float64).

    ``dtype``: a :class:`~tsfile.types.TSDataType` (INT32, INT64, FLOAT, DOUBLE) or
    a numpy dtype. ``count``: the number of values to decode, None = all values of the page.
    """
    return _CODEC.decode(data, dtype, count, path)


cdef class SprintzDecoder(SerialDecoder):
    """Streaming decoder: ``has_next()`` / ``next()`` one value at a time (also an iterator)."""

    def __init__(self, data, dtype):
        self._start(&_OPS, data, dtype)


def encode(values, dtype=None):
    """Encode a page of values as SPRINTZ, as the official C++ writer does (9-value blocks with
    the Fire predictor, an RLE / GORILLA tail). ``dtype``: as for :func:`decode`; None = from the
    values' numpy dtype.

    Caveats of the format (notes 8.9): the official 2.5 reader misreads FLOAT/DOUBLE pages and
    INT32/INT64 pages with large steps; a value whose prediction error is exactly -2**(W-1) (e.g.
    FLOAT -0.0 right after 0.0) is lost by every writer. Prefer another encoding when writing.
    """
    return serial_encode(&_OPS, values, dtype)


cdef class SprintzEncoder(SerialEncoder):
    """Streaming encoder: ``encode(value)`` buffers a value, ``flush()`` returns the page bytes and
    starts a new page."""

    def __init__(self, dtype):
        self._bind(&_OPS, dtype, encode)
