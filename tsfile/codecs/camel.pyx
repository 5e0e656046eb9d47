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
from libc.string cimport memcpy

from tsfile.codecs._common cimport (
    PATH_PER_VALUE,
    as_byte_view,
    check_count,
    resolve_path,
)
from tsfile.codecs._serial cimport (
    SK_F64,
    serial_kind,
    serial_kind_of_out,
    serial_raise,
    serial_values,
)

from tsfile.errors import CorruptDataError

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
    cdef camel_state st
    if data == NULL:
        data = _EMPTY
        nbytes = 0
    if path == PATH_PER_VALUE:
        camel_init(&st, data, <size_t>nbytes)
        while n < cap:
            at_header = st.bits_left == 0
            rc = camel_next(&st, &(<uint64_t *>out)[n])
            if rc != 1:
                if rc < 0:
                    _raise_nogil(rc, camel_error_offset(&st, at_header), nbytes)
                break
            n += 1
        pos = st.pos
    else:
        n = camel_decode(data, <size_t>nbytes, <uint64_t *>out, cap, &pos)
        if n < 0:
            _raise_nogil(<int>n, pos, nbytes)
    if consumed != NULL:
        consumed[0] = <Py_ssize_t>pos
    return <Py_ssize_t>n


cdef inline const uint8_t *_ptr(const unsigned char[::1] buf) noexcept:
    return &buf[0] if buf.shape[0] > 0 else _EMPTY


def decode(data, dtype=np.float64, count=None, path="auto"):
    """Decode a CAMEL page into a float64 array. ``dtype`` must be DOUBLE / float64.
    ``count``: the number of values to decode, None = all values of the page."""
    serial_kind(dtype, 1 << SK_F64, "CAMEL")
    cdef int p = resolve_path(path, False, "CAMEL")
    cdef const unsigned char[::1] buf = as_byte_view(data)
    cdef Py_ssize_t want = check_count(count)
    cdef Py_ssize_t nb = buf.shape[0]
    cdef Py_ssize_t bound = camel_max_values_of(nb)
    cdef Py_ssize_t cap, got
    cdef const uint8_t *src = _ptr(buf)
    cdef void *dst
    if want > bound:
        raise CorruptDataError(f"CAMEL DOUBLE: {nb} bytes cannot hold {want} values")
    cap = bound if want < 0 else want
    out = np.empty(cap, dtype=np.float64)
    dst = cnp.PyArray_DATA(<cnp.ndarray>out)
    with nogil:
        got = camel_decode_raw(src, nb, dst, cap, p, NULL)
    if want >= 0 and got < want:
        raise CorruptDataError(f"CAMEL DOUBLE: the page holds {got} values, {want} requested")
    if got < cap:
        out = out[:got].copy() if got < cap // 2 else out[:got]
    return out


def decode_into(data, out, path="auto"):
    """Decode exactly ``len(out)`` values into the float64 array ``out``; return the bytes
    consumed."""
    serial_kind_of_out(out, 1 << SK_F64, "CAMEL")
    cdef int p = resolve_path(path, False, "CAMEL")
    cdef const unsigned char[::1] buf = as_byte_view(data)
    cdef Py_ssize_t nb = buf.shape[0]
    cdef Py_ssize_t want = out.shape[0]
    cdef Py_ssize_t got, used = 0
    cdef const uint8_t *src = _ptr(buf)
    cdef void *dst = cnp.PyArray_DATA(<cnp.ndarray>out)
    with nogil:
        got = camel_decode_raw(src, nb, dst, want, p, &used)
    if got < want:
        raise CorruptDataError(f"CAMEL DOUBLE: the page holds {got} values, {want} requested")
    return used


cdef class CamelDecoder:
    """Streaming decoder: ``has_next()`` / ``next()`` one value at a time (also an iterator)."""

    cdef camel_state st
    cdef const unsigned char[::1] buf
    cdef bint pending
    cdef uint64_t value

    def __init__(self, data, dtype=np.float64):
        serial_kind(dtype, 1 << SK_F64, "CAMEL")
        self.buf = as_byte_view(data)
        camel_init(&self.st, _ptr(self.buf), <size_t>self.buf.shape[0])
        self.pending = False

    def has_next(self):
        cdef int rc
        if self.pending:
            return True
        rc = camel_next(&self.st, &self.value)
        if rc < 0:
            serial_raise(rc, camel_error_offset(&self.st, 0), self.buf.shape[0], "CAMEL DOUBLE")
        self.pending = rc == 1
        return self.pending

    def next(self):
        cdef double d
        if not self.has_next():
            raise StopIteration
        self.pending = False
        memcpy(&d, &self.value, 8)
        return d

    def __iter__(self):
        return self

    def __next__(self):
        return self.next()


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


cdef class CamelEncoder:
    """Streaming encoder: ``encode(value)`` buffers a value, ``flush()`` returns the page bytes and
    starts a new page."""

    cdef list _values

    def __init__(self, dtype=np.float64):
        serial_kind(dtype, 1 << SK_F64, "CAMEL")
        self._values = []

    def encode(self, value):
        self._values.append(value)

    def flush(self):
        data = encode(np.asarray(self._values, dtype=np.float64))
        self._values = []
        return data
