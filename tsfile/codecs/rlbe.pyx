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
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy

from tsfile.codecs._common cimport (
    PATH_PER_VALUE,
    as_byte_view,
    check_count,
    resolve_path,
)
from tsfile.codecs._serial cimport (
    SK_F32,
    SK_F64,
    SK_I32,
    SK_I64,
    serial_dtype,
    serial_kind,
    serial_kind_name,
    serial_kind_of_out,
    serial_raise,
    serial_raise_nogil,
    serial_values,
)

from tsfile.errors import CorruptDataError

cnp.import_array()

HAS_SIMD = False

cdef uint8_t _EMPTY[1]


cdef inline bint _wide(int kind) noexcept nogil:
    return kind == SK_I64 or kind == SK_F64


cdef Py_ssize_t rlbe_count_values(const uint8_t *data, Py_ssize_t nbytes, int kind) except -1 nogil:
    cdef size_t pos = 0
    cdef int64_t n
    if data == NULL:
        data = _EMPTY
        nbytes = 0
    n = rlbe_count(data, <size_t>nbytes, 64 if _wide(kind) else 32, &pos)
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
    cdef bint wide = _wide(kind)
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
            if wide:
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


cdef inline const uint8_t *_ptr(const unsigned char[::1] buf) noexcept:
    return &buf[0] if buf.shape[0] > 0 else _EMPTY


def decode(data, dtype, count=None, path="auto"):
    """Decode an RLBE page into a numpy array (int32, int64, float32 or float64).

    ``dtype``: a :class:`~tsfile.types.TSDataType` (INT32, DATE, INT64, TIMESTAMP, FLOAT, DOUBLE) or
    a numpy dtype. ``count``: the number of values to decode, None = all values of the page.
    """
    cdef int kind = serial_kind(dtype, 15, "RLBE")
    cdef int p = resolve_path(path, False, "RLBE")
    cdef const unsigned char[::1] buf = as_byte_view(data)
    cdef Py_ssize_t want = check_count(count)
    cdef Py_ssize_t nb = buf.shape[0]
    cdef Py_ssize_t cap, got, total
    cdef const uint8_t *src = _ptr(buf)
    cdef void *dst
    with nogil:
        total = rlbe_count_values(src, nb, kind)
    if want > total:
        raise CorruptDataError(
            f"RLBE {serial_kind_name(kind)}: the page holds {total} values, {want} requested"
        )
    cap = total if want < 0 else want
    out = np.empty(cap, dtype=serial_dtype(kind))
    dst = cnp.PyArray_DATA(<cnp.ndarray>out)
    with nogil:
        got = rlbe_decode_raw(src, nb, dst, cap, kind, p, NULL)
    if got != cap:  # cannot happen after a successful count; kept as a guard
        raise CorruptDataError(f"RLBE {serial_kind_name(kind)}: decoded {got} of {cap} values")
    return out


def decode_into(data, out, path="auto"):
    """Decode exactly ``len(out)`` values into ``out``; return the bytes consumed.

    The type follows ``out``'s dtype: int32 (INT32/DATE), int64 (INT64/TIMESTAMP), float32, float64.
    """
    cdef int kind = serial_kind_of_out(out, 15, "RLBE")
    cdef int p = resolve_path(path, False, "RLBE")
    cdef const unsigned char[::1] buf = as_byte_view(data)
    cdef Py_ssize_t nb = buf.shape[0]
    cdef Py_ssize_t want = out.shape[0]
    cdef Py_ssize_t got, used = 0
    cdef const uint8_t *src = _ptr(buf)
    cdef void *dst = cnp.PyArray_DATA(<cnp.ndarray>out)
    with nogil:
        got = rlbe_decode_raw(src, nb, dst, want, kind, p, &used)
    if got < want:
        raise CorruptDataError(
            f"RLBE {serial_kind_name(kind)}: the page holds {got} values, {want} requested"
        )
    return used


cdef object _as_python(uint64_t v, int kind):
    cdef double d
    if kind == SK_I32:
        return <int32_t>(<uint32_t>v)
    if kind == SK_I64:
        return <int64_t>v
    if kind == SK_F32:
        # a numpy float32 built from the bits: widening would quiet a signalling NaN
        return np.array([<uint32_t>v], dtype=np.uint32).view(np.float32)[0]
    memcpy(&d, &v, 8)
    return d


cdef class RlbeDecoder:
    """Streaming decoder: ``has_next()`` / ``next()`` one value at a time (also an iterator)."""

    cdef rlbe_state st
    cdef const unsigned char[::1] buf
    cdef int kind
    cdef bint wide
    cdef bint pending
    cdef uint64_t value

    def __init__(self, data, dtype):
        self.kind = serial_kind(dtype, 15, "RLBE")
        self.wide = _wide(self.kind)
        self.buf = as_byte_view(data)
        rlbe_init(&self.st, _ptr(self.buf), <size_t>self.buf.shape[0])
        self.pending = False

    def has_next(self):
        cdef int rc
        if self.pending:
            return True
        rc = rlbe_next64(&self.st, &self.value) if self.wide else rlbe_next32(&self.st, &self.value)
        if rc < 0:
            serial_raise(rc, rlbe_consumed(&self.st), self.buf.shape[0],
                         f"RLBE {serial_kind_name(self.kind)}")
        self.pending = rc == 1
        return self.pending

    def next(self):
        if not self.has_next():
            raise StopIteration
        self.pending = False
        return _as_python(self.value, self.kind)

    def __iter__(self):
        return self

    def __next__(self):
        return self.next()


def encode(values, dtype=None):
    """Encode a page of values as RLBE (blocks of up to 10,000 values), as the official writers
    do. ``dtype``: as for :func:`decode`; None = from the values' numpy dtype."""
    arr, kind = serial_values(values, dtype, 15, "RLBE")
    cdef int W = 64 if _wide(kind) else 32
    cdef size_t n = arr.shape[0]
    out = np.empty(rlbe_encode_bound(n, W), dtype=np.uint8)
    cdef const void *src = cnp.PyArray_DATA(<cnp.ndarray>arr)
    cdef uint8_t *dst = <uint8_t *>cnp.PyArray_DATA(<cnp.ndarray>out)
    cdef size_t size
    with nogil:
        size = rlbe_encode_generic(src, n, W, dst)
    return out[:size].tobytes()


cdef class RlbeEncoder:
    """Streaming encoder: ``encode(value)`` buffers a value, ``flush()`` returns the page bytes and
    starts a new page."""

    cdef object _dtype
    cdef list _values

    def __init__(self, dtype):
        serial_kind(dtype, 15, "RLBE")
        self._dtype = dtype
        self._values = []

    def encode(self, value):
        self._values.append(value)

    def flush(self):
        data = encode(np.asarray(self._values), self._dtype)
        self._values = []
        return data
