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

cimport numpy as cnp
from libc.stdint cimport int64_t, uint8_t, uint64_t

from tsfile.codecs._common cimport PATH_PER_VALUE
from tsfile.codecs._serial cimport (
    COUNT_BOUND,
    SK_F64,
    SerialCodec,
    SerialDecoder,
    SerialEncoder,
    serial_codec,
    serial_kind,
    serial_raise,
    serial_take_rows,
    serial_values,
)

cnp.import_array()

HAS_SIMD = False

cdef uint8_t _EMPTY[1]


cdef int _raise_nogil(int status, size_t at, Py_ssize_t n) except -1 nogil:
    with gil:
        serial_raise(status, at, n, "CAMEL DOUBLE")
    return -1


cdef Py_ssize_t camel_max_values_of(Py_ssize_t nbytes) noexcept nogil:
    return <Py_ssize_t>camel_max_values(<size_t>nbytes)


cdef Py_ssize_t camel_decode_raw(const uint8_t *data, Py_ssize_t nbytes, void *out, Py_ssize_t cap,
                                 int path, Py_ssize_t *consumed) except -1 nogil:
    cdef size_t pos = 0
    cdef int64_t n = 0
    cdef int rc
    cdef bint at_header
    cdef uint64_t v
    cdef camel_state st
    if data == NULL:
        data = _EMPTY
        nbytes = 0
    if path == PATH_PER_VALUE:
        camel_init(&st, data, <size_t>nbytes)
        while n < cap:
            at_header = st.bits_left == 0
            rc = camel_next(&st, &v)
            if rc != 1:
                if rc < 0:
                    _raise_nogil(rc, camel_error_offset(&st, at_header), nbytes)
                break
            if out != NULL:  # NULL: a skip, walked and not stored
                (<uint64_t *>out)[n] = v
            n += 1
        pos = st.pos
    else:
        n = camel_decode(data, <size_t>nbytes, <uint64_t *>out, cap, &pos)
        if n < 0:
            _raise_nogil(<int>n, pos, nbytes)
    if consumed != NULL:
        consumed[0] = <Py_ssize_t>pos
    return <Py_ssize_t>n


# Adapters to the shared wrappers' signatures (CAMEL has one kind; a page stores no count).
cdef Py_ssize_t _bound(const uint8_t *data, Py_ssize_t nbytes, int kind) except -1 nogil:
    return camel_max_values_of(nbytes)


cdef Py_ssize_t _decode(const uint8_t *data, Py_ssize_t nbytes, void *out, Py_ssize_t cap,
                        int kind, int path, Py_ssize_t *consumed) except -1 nogil:
    return camel_decode_raw(data, nbytes, out, cap, path, consumed)


cdef SerialCodec _CODEC = serial_codec(
    "CAMEL", None, None, 1 << SK_F64, False, COUNT_BOUND, False, _bound, _decode, _decode
)


def decode(data, dtype=np.float64, count=None, path="auto"):
    """Decode a CAMEL page into a float64 array. ``dtype`` must be DOUBLE / float64.
    ``count``: the number of values to decode, None = all values of the page."""
    return _CODEC.decode(data, dtype, count, path)


def decode_into(data, out, path="auto"):
    """Decode exactly ``len(out)`` values into the float64 array ``out``; return the bytes
    consumed."""
    return _CODEC.decode_into(data, out, path)


cdef class CamelDecoder(SerialDecoder):
    """Streaming decoder: ``has_next()`` / ``next()`` one value at a time (also an iterator)."""

    cdef camel_state st

    def __init__(self, data, dtype=np.float64):
        cdef const uint8_t *p = self._open(data, dtype, 1 << SK_F64, "CAMEL")
        camel_init(&self.st, p, <size_t>self.buf.shape[0])

    cdef int _step(self, uint64_t *v) noexcept:
        return camel_next(&self.st, v)

    cdef size_t _error_at(self) noexcept:
        return camel_error_offset(&self.st, 0)


def encode(values, dtype=None):
    """Encode a page of doubles as CAMEL, making the official C++ writer's choices (decimal or
    GORILLA per value). ``dtype``: DOUBLE / float64 or None."""
    arr, _ = serial_values(values, dtype, 1 << SK_F64, "CAMEL")
    cdef size_t n = arr.shape[0]
    if n == 0:
        return b""
    cdef size_t bound = camel_encode_bound(n)
    out = np.empty(bound, dtype=np.uint8)
    scratch = np.empty(bound, dtype=np.uint8)
    cdef const double *src = <const double *>cnp.PyArray_DATA(<cnp.ndarray>arr)
    cdef uint8_t *dst = <uint8_t *>cnp.PyArray_DATA(<cnp.ndarray>out)
    cdef uint8_t *tmp = <uint8_t *>cnp.PyArray_DATA(<cnp.ndarray>scratch)
    cdef size_t size
    with nogil:
        size = camel_encode(src, n, dst, tmp)
    return out[:size].tobytes()


cdef class CamelEncoder(SerialEncoder):
    """Streaming encoder: ``encode(value)`` buffers a value, ``flush()`` returns the page bytes and
    starts a new page."""

    def __init__(self, dtype=np.float64):
        serial_kind(dtype, 1 << SK_F64, "CAMEL")
        self._open(None, np.float64, encode)


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

from tsfile.codecs._kinds cimport KIND_F64


cdef Py_ssize_t _row_decode(const uint8_t *src, Py_ssize_t n, void *out, Py_ssize_t count,
                            int kind, int path) except -1 nogil:
    check_decoded(camel_decode_raw(src, n, out, count, path, NULL), count, b"CAMEL")
    return 0


cdef Py_ssize_t _row_skip(const uint8_t *src, Py_ssize_t n, Py_ssize_t k,
                          int kind) except -1 nogil:
    # The bit stream walked value by value on the per-value decoder's state, nothing stored
    # (fewer than k values is CorruptDataError).
    check_skip(camel_decode_raw(src, n, NULL, k, PATH_PER_VALUE, NULL), k, b"CAMEL")
    return k


cdef extern from "serial_skip.h" nogil:
    int64_t camel_take64(camel_state *s, int64_t k, void *out)


# serial_take_fn's exact signature over the typed take function: calling them through a cast
# function pointer would be undefined behaviour in C.
cdef int64_t _take64(void *s, int64_t k, void *out) noexcept nogil:
    return camel_take64(<camel_state *>s, k, out)


cdef Py_ssize_t _row_rows(const uint8_t *src, Py_ssize_t n, void *more, Py_ssize_t start,
                          Py_ssize_t stop, void *out, int kind, int path) except -1 nogil:
    # The range from the opened decoder state (_serial.serial_take_rows). The body is
    # decompressed whole: where a value lies is known only by walking the stream.
    cdef camel_state st
    cdef Py_ssize_t r
    if stop <= start:
        return 0
    rows_readable(more, src, n, n, b"CAMEL")
    camel_init(&st, src if n > 0 else _EMPTY, <size_t>n)
    r = serial_take_rows(&st, _take64, start, stop, out)
    if r < 0:
        _raise_nogil(<int>r, st.pos, n)
    return r


cdef codec_row _ROWS[1]
cdef codec_table _TABLE
_ROWS[0] = with_rows(
    make_row(14, KIND_F64, b"camel", b"CAMEL", ROW_PER_VALUE | ROW_BATCH,
             NULL, _row_decode, NULL, _row_skip, NULL, NULL),
    _row_rows)
CODEC_ROWS = publish_rows(&_TABLE, _ROWS, 1)
