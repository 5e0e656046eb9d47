# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""RLBE (run-length + Fibonacci bit encoding) decoding for INT32/DATE, INT64/TIMESTAMP, FLOAT and
DOUBLE (format notes 8.10).

Paths, identical results: ``"per_value"`` (a streaming decoder driven one value per C call) and
``"batch"`` (whole segments per C loop; ``"auto"``). There is no SIMD path (``"simd"`` raises
:class:`~tsfile.errors.SimdUnavailableError`): values are variable-width fields of a serial bit
stream. FLOAT/DOUBLE are decoded as IEEE bit patterns, so NaN payloads and -0.0 are exact.
"""
import numpy as np

cimport numpy as cnp
from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t

from tsfile.codecs._common cimport PATH_PER_VALUE
from tsfile.codecs._serial cimport (
    COUNT_EXACT,
    SerialCodec,
    SerialDecoder,
    SerialEncoder,
    serial_codec,
    serial_kind,
    serial_raise_nogil,
    serial_take_fn,
    serial_take_rows,
    serial_values,
    serial_wide,
)

cnp.import_array()

HAS_SIMD = False

cdef uint8_t _EMPTY[1]


cdef Py_ssize_t rlbe_count_values(const uint8_t *data, Py_ssize_t nbytes, int kind) except -1 nogil:
    cdef size_t pos = 0
    cdef int64_t n
    if data == NULL:
        data = _EMPTY
        nbytes = 0
    n = rlbe_count(data, <size_t>nbytes, 64 if serial_wide(kind) else 32, &pos)
    if n < 0:
        serial_raise_nogil(<int>n, pos, nbytes, "RLBE", kind)
    return <Py_ssize_t>n


cdef Py_ssize_t rlbe_decode_raw(const uint8_t *data, Py_ssize_t nbytes, void *out, Py_ssize_t cap,
                                int kind, int path, Py_ssize_t *consumed) except -1 nogil:
    cdef size_t pos = 0
    cdef int64_t n = 0
    cdef int rc
    cdef uint64_t v
    cdef rlbe_state st
    cdef bint wide = serial_wide(kind)
    if data == NULL:
        data = _EMPTY
        nbytes = 0
    if path == PATH_PER_VALUE:
        rlbe_init(&st, data, <size_t>nbytes)
        while n < cap:
            rc = rlbe_next64(&st, &v) if wide else rlbe_next32(&st, &v)
            if rc != 1:
                if rc < 0:
                    serial_raise_nogil(rc, rlbe_consumed(&st), nbytes, "RLBE", kind)
                break
            if out == NULL:  # a skip: walked, nothing stored
                pass
            elif wide:
                (<uint64_t *>out)[n] = v
            else:
                (<uint32_t *>out)[n] = <uint32_t>v
            n += 1
        pos = rlbe_consumed(&st)
    else:
        if wide:
            n = rlbe_decode_u64(data, <size_t>nbytes, out, cap, &pos)
        else:
            n = rlbe_decode_u32(data, <size_t>nbytes, out, cap, &pos)
        if n < 0:
            serial_raise_nogil(<int>n, pos, nbytes, "RLBE", kind)
    if consumed != NULL:
        consumed[0] = <Py_ssize_t>pos
    return <Py_ssize_t>n


cdef SerialCodec _CODEC = serial_codec(
    "RLBE", None, None, 15, False, COUNT_EXACT, False, rlbe_count_values, rlbe_decode_raw,
    rlbe_decode_raw
)


def decode(data, dtype, count=None, path="auto"):
    """Decode an RLBE page into a numpy array (int32, int64, float32 or float64).

    ``dtype``: a :class:`~tsfile.types.TSDataType` (INT32, DATE, INT64, TIMESTAMP, FLOAT, DOUBLE) or
    a numpy dtype. ``count``: the number of values to decode, None = all values of the page.
    """
    return _CODEC.decode(data, dtype, count, path)


def decode_into(data, out, path="auto"):
    """Decode exactly ``len(out)`` values into ``out``; return the bytes consumed.

    The type follows ``out``'s dtype: int32 (INT32/DATE), int64 (INT64/TIMESTAMP), float32, float64.
    """
    return _CODEC.decode_into(data, out, path)


cdef class RlbeDecoder(SerialDecoder):
    """Streaming decoder: ``has_next()`` / ``next()`` one value at a time (also an iterator)."""

    cdef rlbe_state st
    cdef bint wide

    def __init__(self, data, dtype):
        cdef const uint8_t *p = self._open(data, dtype, 15, "RLBE")
        self.wide = serial_wide(self.kind)
        rlbe_init(&self.st, p, <size_t>self.buf.shape[0])

    cdef int _step(self, uint64_t *v) noexcept:
        return rlbe_next64(&self.st, v) if self.wide else rlbe_next32(&self.st, v)

    cdef size_t _error_at(self) noexcept:
        return rlbe_consumed(&self.st)


def encode(values, dtype=None):
    """Encode a page of values as RLBE (blocks of up to 10,000 values), as the official writers
    do. ``dtype``: as for :func:`decode`; None = from the values' numpy dtype."""
    arr, kind = serial_values(values, dtype, 15, "RLBE")
    cdef int W = 64 if serial_wide(kind) else 32
    cdef size_t n = arr.shape[0]
    out = np.empty(rlbe_encode_bound(n, W), dtype=np.uint8)
    cdef const void *src = cnp.PyArray_DATA(<cnp.ndarray>arr)
    cdef uint8_t *dst = <uint8_t *>cnp.PyArray_DATA(<cnp.ndarray>out)
    cdef size_t size
    with nogil:
        size = rlbe_encode_generic(src, n, W, dst)
    return out[:size].tobytes()


cdef class RlbeEncoder(SerialEncoder):
    """Streaming encoder: ``encode(value)`` buffers a value, ``flush()`` returns the page bytes and
    starts a new page."""

    def __init__(self, dtype):
        serial_kind(dtype, 15, "RLBE")
        self._open(dtype, None, encode)


# ---- the codec contract (tsfile/codecs/_contract.pxd) -------------------------------------------

from tsfile.codecs._contract cimport (
    ROW_BATCH,
    ROW_PER_VALUE,
    ROW_SIMD,
    check_decoded,
    check_skip,
    codec_row,
    codec_table,
    make_row,
    publish_rows,
    rows_readable,
    with_rows,
)

from tsfile.codecs._kinds cimport KIND_F32, KIND_F64, KIND_I32, KIND_I64
from tsfile.codecs._serial cimport sk_of_kind


cdef Py_ssize_t _row_count(const uint8_t *src, Py_ssize_t n, int kind) except -2 nogil:
    return rlbe_count_values(src, n, sk_of_kind(kind))


cdef Py_ssize_t _row_decode(const uint8_t *src, Py_ssize_t n, void *out, Py_ssize_t count,
                            int kind, int path) except -1 nogil:
    check_decoded(rlbe_decode_raw(src, n, out, count, sk_of_kind(kind), path, NULL), count, b"RLBE")
    return 0


cdef Py_ssize_t _row_skip(const uint8_t *src, Py_ssize_t n, Py_ssize_t k,
                          int kind) except -1 nogil:
    # The page's count first (its headers walked and checked, as decode does before decoding),
    # then the bit stream walked value by value on the per-value decoder's state, nothing stored.
    check_skip(rlbe_count_values(src, n, sk_of_kind(kind)), k, b"RLBE")
    check_skip(rlbe_decode_raw(src, n, NULL, k, sk_of_kind(kind), PATH_PER_VALUE, NULL), k,
               b"RLBE")
    return k


cdef extern from "serial_skip.h" nogil:
    int64_t rlbe_take32(rlbe_state *s, int64_t k, void *out)
    int64_t rlbe_take64(rlbe_state *s, int64_t k, void *out)


# serial_take_fn's exact signature over the typed take functions: calling them through a cast
# function pointer would be undefined behaviour in C.
cdef int64_t _take32(void *s, int64_t k, void *out) noexcept nogil:
    return rlbe_take32(<rlbe_state *>s, k, out)


cdef int64_t _take64(void *s, int64_t k, void *out) noexcept nogil:
    return rlbe_take64(<rlbe_state *>s, k, out)


cdef Py_ssize_t _row_rows(const uint8_t *src, Py_ssize_t n, void *more, Py_ssize_t start,
                          Py_ssize_t stop, void *out, int kind, int path) except -1 nogil:
    # The range from the opened decoder state (_serial.serial_take_rows). The body is
    # decompressed whole: where a value lies is known only by walking the stream.
    cdef rlbe_state st
    cdef int sk = sk_of_kind(kind)
    cdef serial_take_fn take = _take64 if serial_wide(sk) else _take32
    cdef Py_ssize_t r
    if stop <= start:
        return 0
    rows_readable(more, src, n, n, b"RLBE")
    rlbe_init(&st, src if n > 0 else _EMPTY, <size_t>n)
    r = serial_take_rows(&st, take, start, stop, out)
    if r < 0:
        serial_raise_nogil(<int>r, rlbe_consumed(&st), n, "RLBE", sk)
    return r


cdef codec_row _ROWS[4]
cdef codec_table _TABLE
for _i, _kind in enumerate((KIND_I32, KIND_I64, KIND_F32, KIND_F64)):
    _ROWS[_i] = with_rows(
        make_row(13, _kind, b"rlbe", b"RLBE", ROW_PER_VALUE | ROW_BATCH,
                 _row_count, _row_decode, NULL, _row_skip, NULL, NULL),
        _row_rows)
CODEC_ROWS = publish_rows(&_TABLE, _ROWS, 4)
