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


cdef Py_ssize_t sprintz_count_values(const uint8_t *data, Py_ssize_t nbytes, int kind) except -1 nogil:
    cdef size_t pos = 0
    cdef int64_t n
    if data == NULL:
        data = _EMPTY
        nbytes = 0
    n = sprintz_count(data, <size_t>nbytes, kind, &pos)
    if n < 0:
        serial_raise_nogil(<int>n, pos, nbytes, "SPRINTZ", kind)
    return <Py_ssize_t>n


cdef Py_ssize_t sprintz_decode_raw(const uint8_t *data, Py_ssize_t nbytes, void *out, Py_ssize_t cap,
                                int kind, int path, Py_ssize_t *consumed) except -1 nogil:
    cdef size_t pos = 0
    cdef int64_t n = 0
    cdef int rc
    cdef uint64_t v
    cdef sprintz_state st
    cdef bint wide = _wide(kind)
    if data == NULL:
        data = _EMPTY
        nbytes = 0
    if path == PATH_PER_VALUE:
        sprintz_init(&st, data, <size_t>nbytes, kind)
        while n < cap:
            rc = sprintz_next(&st, &v)
            if rc != 1:
                if rc < 0:
                    serial_raise_nogil(rc, st.pos, nbytes, "SPRINTZ", kind)
                break
            if wide:
                (<uint64_t *>out)[n] = v
            else:
                (<uint32_t *>out)[n] = <uint32_t>v
            n += 1
        pos = st.pos
    else:
        n = sprintz_decode(data, <size_t>nbytes, kind, out, cap, &pos)
        if n < 0:
            serial_raise_nogil(<int>n, pos, nbytes, "SPRINTZ", kind)
    if consumed != NULL:
        consumed[0] = <Py_ssize_t>pos
    return <Py_ssize_t>n


cdef inline const uint8_t *_ptr(const unsigned char[::1] buf) noexcept:
    return &buf[0] if buf.shape[0] > 0 else _EMPTY


def decode(data, dtype, count=None, path="auto"):
    """Decode an SPRINTZ page into a numpy array (int32, int64, float32 or float64).

    ``dtype``: a :class:`~tsfile.types.TSDataType` (INT32, INT64, FLOAT, DOUBLE) or
    a numpy dtype. ``count``: the number of values to decode, None = all values of the page.
    """
    cdef int kind = serial_kind(dtype, 15, "SPRINTZ")
    cdef int p = resolve_path(path, False, "SPRINTZ")
    cdef const unsigned char[::1] buf = as_byte_view(data)
    cdef Py_ssize_t want = check_count(count)
    cdef Py_ssize_t nb = buf.shape[0]
    cdef Py_ssize_t cap, got, total
    cdef const uint8_t *src = _ptr(buf)
    cdef void *dst
    with nogil:
        total = sprintz_count_values(src, nb, kind)
    if want > total:
        raise CorruptDataError(
            f"SPRINTZ {serial_kind_name(kind)}: the page holds {total} values, {want} requested"
        )
    cap = total if want < 0 else want
    out = np.empty(cap, dtype=serial_dtype(kind))
    dst = cnp.PyArray_DATA(<cnp.ndarray>out)
    with nogil:
        got = sprintz_decode_raw(src, nb, dst, cap, kind, p, NULL)
    if got != cap:  # cannot happen after a successful count; kept as a guard
        raise CorruptDataError(f"SPRINTZ {serial_kind_name(kind)}: decoded {got} of {cap} values")
    return out


def decode_into(data, out, path="auto"):
    """Decode exactly ``len(out)`` values into ``out``; return the bytes consumed.

    The type follows ``out``'s dtype: int32 (INT32/DATE), int64 (INT64/TIMESTAMP), float32, float64.
    """
    cdef int kind = serial_kind_of_out(out, 15, "SPRINTZ")
    cdef int p = resolve_path(path, False, "SPRINTZ")
    cdef const unsigned char[::1] buf = as_byte_view(data)
    cdef Py_ssize_t nb = buf.shape[0]
    cdef Py_ssize_t want = out.shape[0]
    cdef Py_ssize_t got, used = 0
    cdef const uint8_t *src = _ptr(buf)
    cdef void *dst = cnp.PyArray_DATA(<cnp.ndarray>out)
    with nogil:
        got = sprintz_decode_raw(src, nb, dst, want, kind, p, &used)
    if got < want:
        raise CorruptDataError(
            f"SPRINTZ {serial_kind_name(kind)}: the page holds {got} values, {want} requested"
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


cdef class SprintzDecoder:
    """Streaming decoder: ``has_next()`` / ``next()`` one value at a time (also an iterator)."""

    cdef sprintz_state st
    cdef const unsigned char[::1] buf
    cdef int kind
    cdef bint wide
    cdef bint pending
    cdef uint64_t value

    def __init__(self, data, dtype):
        self.kind = serial_kind(dtype, 15, "SPRINTZ")
        self.wide = _wide(self.kind)
        self.buf = as_byte_view(data)
        sprintz_init(&self.st, _ptr(self.buf), <size_t>self.buf.shape[0], self.kind)
        self.pending = False

    def has_next(self):
        cdef int rc
        if self.pending:
            return True
        rc = sprintz_next(&self.st, &self.value)
        if rc < 0:
            serial_raise(rc, self.st.pos, self.buf.shape[0],
                         f"SPRINTZ {serial_kind_name(self.kind)}")
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
    """Encode a page of values as SPRINTZ, as the official C++ writer does (9-value blocks with
    the Fire predictor, an RLE / GORILLA tail). ``dtype``: as for :func:`decode`; None = from the
    values' numpy dtype.

    Caveats of the format (notes 8.9): the official 2.5 reader misreads FLOAT/DOUBLE pages and
    INT32/INT64 pages with large steps; a value whose prediction error is exactly -2**(W-1) (e.g.
    FLOAT -0.0 right after 0.0) is lost by every writer. Prefer another encoding when writing.
    """
    arr, kind = serial_values(values, dtype, 15, "SPRINTZ")
    cdef size_t n = arr.shape[0]
    out = np.empty(sprintz_encode_bound(n), dtype=np.uint8)
    cdef const void *src = cnp.PyArray_DATA(<cnp.ndarray>arr)
    cdef uint8_t *dst = <uint8_t *>cnp.PyArray_DATA(<cnp.ndarray>out)
    cdef size_t size
    cdef int k = kind
    with nogil:
        size = sprintz_encode(src, n, k, dst)
    return out[:size].tobytes()


cdef class SprintzEncoder:
    """Streaming encoder: ``encode(value)`` buffers a value, ``flush()`` returns the page bytes and
    starts a new page."""

    cdef object _dtype
    cdef list _values

    def __init__(self, dtype):
        serial_kind(dtype, 15, "SPRINTZ")
        self._dtype = dtype
        self._values = []

    def encode(self, value):
        self._values.append(value)

    def flush(self):
        data = encode(np.asarray(self._values), self._dtype)
        self._values = []
        return data
