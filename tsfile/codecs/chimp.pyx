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

cdef extern from "chimp_scalar.h" nogil:
    uint64_t CHIMP_END_I32
    uint64_t CHIMP_END_I64
    uint64_t CHIMP_END_F32
    uint64_t CHIMP_END_F64

cdef uint8_t _EMPTY[1]


cdef inline uint64_t _endv(int kind) noexcept nogil:
    if kind == SK_I32:
        return CHIMP_END_I32
    if kind == SK_I64:
        return CHIMP_END_I64
    if kind == SK_F32:
        return CHIMP_END_F32
    return CHIMP_END_F64


cdef inline bint _wide(int kind) noexcept nogil:
    return kind == SK_I64 or kind == SK_F64


cdef Py_ssize_t chimp_max_values_of(Py_ssize_t nbytes, int kind) noexcept nogil:
    return <Py_ssize_t>chimp_max_values(<size_t>nbytes, 64 if _wide(kind) else 32)


cdef Py_ssize_t chimp_decode_raw(const uint8_t *data, Py_ssize_t nbytes, void *out, Py_ssize_t cap,
                                 int kind, int path, bint exact,
                                 Py_ssize_t *consumed) except -1 nogil:
    cdef size_t pos = 0
    cdef int64_t n = 0
    cdef int rc
    cdef uint64_t v
    cdef chimp_state st
    cdef bint wide = _wide(kind)
    if data == NULL:
        data = _EMPTY
        nbytes = 0
    if path == PATH_PER_VALUE:
        chimp_init(&st, data, <size_t>nbytes, _endv(kind))
        st.stop_at_end = not exact
        while n < cap:
            rc = chimp_next64(&st, &v) if wide else chimp_next32(&st, &v)
            if rc != 1:
                if rc < 0:
                    serial_raise_nogil(rc, chimp_consumed(&st), nbytes, "CHIMP", kind)
                break
            if wide:
                (<uint64_t *>out)[n] = v
            else:
                (<uint32_t *>out)[n] = <uint32_t>v
            n += 1
        if wide:
            chimp_try_end64(&st)
        else:
            chimp_try_end32(&st)
        pos = chimp_consumed(&st)
    else:
        if wide:
            n = chimp_decode_u64(data, <size_t>nbytes, _endv(kind), not exact, out, cap, &pos)
        else:
            n = chimp_decode_u32(data, <size_t>nbytes, _endv(kind), not exact, out, cap, &pos)
        if n < 0:
            serial_raise_nogil(<int>n, pos, nbytes, "CHIMP", kind)
    if exact and n < cap:
        serial_raise_nogil(-1, pos, nbytes, "CHIMP", kind)
    if consumed != NULL:
        consumed[0] = <Py_ssize_t>pos
    return <Py_ssize_t>n


cdef inline const uint8_t *_ptr(const unsigned char[::1] buf) noexcept:
    return &buf[0] if buf.shape[0] > 0 else _EMPTY


def decode(data, dtype, count=None, path="auto"):
    """Decode a CHIMP page into a numpy array (int32, int64, float32 or float64).

    ``dtype``: a :class:`~tsfile.types.TSDataType` (INT32, DATE, INT64, TIMESTAMP, FLOAT, DOUBLE) or
    a numpy dtype. ``count``: the number of values to decode, None = up to the end marker. With a
    count, values equal to the end marker (MIN_VALUE, canonical NaN) are decoded as data, as the
    official reader does (it knows each page's count); without one the first such value ends the
    page.
    """
    cdef int kind = serial_kind(dtype, 15, "CHIMP")
    cdef int p = resolve_path(path, False, "CHIMP")
    cdef const unsigned char[::1] buf = as_byte_view(data)
    cdef Py_ssize_t want = check_count(count)
    cdef Py_ssize_t nb = buf.shape[0]
    cdef Py_ssize_t bound = chimp_max_values_of(nb, kind)
    cdef Py_ssize_t cap, got
    cdef const uint8_t *src = _ptr(buf)
    cdef void *dst
    if want >= 0 and want > bound:
        raise CorruptDataError(
            f"CHIMP {serial_kind_name(kind)}: {nb} bytes cannot hold {want} values"
        )
    cap = bound if want < 0 else want
    out = np.empty(cap, dtype=serial_dtype(kind))
    dst = cnp.PyArray_DATA(<cnp.ndarray>out)
    with nogil:
        got = chimp_decode_raw(src, nb, dst, cap, kind, p, want >= 0, NULL)
    if want >= 0 and got < want:
        raise CorruptDataError(
            f"CHIMP {serial_kind_name(kind)}: the page holds {got} values, {want} requested"
        )
    if want < 0 and got == cap and nb > 0:
        # the bound counts the end marker as a value: reaching it means the marker is missing
        serial_raise(-1, nb, nb, f"CHIMP {serial_kind_name(kind)}")
    if got < cap:
        out = out[:got].copy() if got < cap // 2 else out[:got]
    return out


def decode_into(data, out, path="auto"):
    """Decode exactly ``len(out)`` values into ``out``; return the bytes consumed.

    The type follows ``out``'s dtype: int32 (INT32/DATE), int64 (INT64/TIMESTAMP), float32, float64.
    """
    cdef int kind = serial_kind_of_out(out, 15, "CHIMP")
    cdef int p = resolve_path(path, False, "CHIMP")
    cdef const unsigned char[::1] buf = as_byte_view(data)
    cdef Py_ssize_t nb = buf.shape[0]
    cdef Py_ssize_t want = out.shape[0]
    cdef Py_ssize_t got, used = 0
    cdef const uint8_t *src = _ptr(buf)
    cdef void *dst = cnp.PyArray_DATA(<cnp.ndarray>out)
    with nogil:
        got = chimp_decode_raw(src, nb, dst, want, kind, p, True, &used)
    if got < want:
        raise CorruptDataError(
            f"CHIMP {serial_kind_name(kind)}: the page holds {got} values, {want} requested"
        )
    return used


cdef object _as_python(uint64_t v, int kind):
    cdef double d
    if kind == SK_I32:
        return <int32_t>(<uint32_t>v)
    if kind == SK_I64:
        return <int64_t>v
    if kind == SK_F32:
        # a numpy float32 built from the bits: widening to a Python float would quiet a
        # signalling NaN
        return np.array([<uint32_t>v], dtype=np.uint32).view(np.float32)[0]
    memcpy(&d, &v, 8)
    return d


cdef class ChimpDecoder:
    """Streaming decoder: ``has_next()`` / ``next()`` one value at a time (also an iterator)."""

    cdef chimp_state st
    cdef const unsigned char[::1] buf
    cdef int kind
    cdef bint wide
    cdef bint pending
    cdef uint64_t value

    def __init__(self, data, dtype):
        self.kind = serial_kind(dtype, 15, "CHIMP")
        self.wide = _wide(self.kind)
        self.buf = as_byte_view(data)
        chimp_init(&self.st, _ptr(self.buf), <size_t>self.buf.shape[0], _endv(self.kind))
        self.pending = False

    def has_next(self):
        cdef int rc
        if self.pending:
            return True
        rc = chimp_next64(&self.st, &self.value) if self.wide else chimp_next32(&self.st, &self.value)
        if rc < 0:
            serial_raise(rc, chimp_consumed(&self.st), self.buf.shape[0],
                         f"CHIMP {serial_kind_name(self.kind)}")
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

    @property
    def bytes_consumed(self):
        """Bytes of the page used so far (after the end marker: including its padded byte)."""
        return chimp_consumed(&self.st)


def encode(values, dtype=None):
    """Encode a page of values as CHIMP, exactly as the official writers do (the end value is
    appended). ``dtype``: as for :func:`decode`; None = from the values' numpy dtype.

    Values equal to the end marker (MIN_VALUE, canonical NaN) are stored like any other; readers
    that know the page's value count (file readers do) decode them, a count-less decode stops there.
    """
    arr, kind = serial_values(values, dtype, 15, "CHIMP")
    cdef int W = 64 if _wide(kind) else 32
    cdef size_t n = arr.shape[0]
    cdef uint64_t endv = _endv(kind)
    out = np.empty(chimp_encode_bound(n, W), dtype=np.uint8)
    cdef const void *src = cnp.PyArray_DATA(<cnp.ndarray>arr)
    cdef uint8_t *dst = <uint8_t *>cnp.PyArray_DATA(<cnp.ndarray>out)
    cdef ptrdiff_t size
    with nogil:
        size = chimp_encode_generic(src, n, W, endv, dst)
    if size < 0:
        raise MemoryError
    return out[:size].tobytes()


cdef class ChimpEncoder:
    """Streaming encoder: ``encode(value)`` buffers a value, ``flush()`` returns the page bytes and
    starts a new page."""

    cdef object _dtype
    cdef list _values

    def __init__(self, dtype):
        serial_kind(dtype, 15, "CHIMP")
        self._dtype = dtype
        self._values = []

    def encode(self, value):
        self._values.append(value)

    def flush(self):
        data = encode(np.asarray(self._values), self._dtype)
        self._values = []
        return data
