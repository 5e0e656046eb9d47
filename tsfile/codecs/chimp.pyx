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
from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t

from tsfile.codecs._common cimport PATH_PER_VALUE
from tsfile.codecs._serial cimport (
    COUNT_BOUND,
    SK_F32,
    SK_I32,
    SK_I64,
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


cdef Py_ssize_t chimp_max_values_of(Py_ssize_t nbytes, int kind) noexcept nogil:
    return <Py_ssize_t>chimp_max_values(<size_t>nbytes, 64 if serial_wide(kind) else 32)


cdef Py_ssize_t chimp_decode_raw(const uint8_t *data, Py_ssize_t nbytes, void *out, Py_ssize_t cap,
                                 int kind, int path, bint exact,
                                 Py_ssize_t *consumed) except -1 nogil:
    cdef size_t pos = 0
    cdef int64_t n = 0
    cdef int rc
    cdef uint64_t v
    cdef chimp_state st
    cdef bint wide = serial_wide(kind)
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
            if out == NULL:  # a skip: walked, nothing stored
                pass
            elif wide:
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


# Adapters to the shared wrappers' signatures: the bound sizes a count-less decode, which stops
# at the end marker; with a count the page's values are decoded exactly, end-marker words included.
cdef Py_ssize_t _bound(const uint8_t *data, Py_ssize_t nbytes, int kind) except -1 nogil:
    return chimp_max_values_of(nbytes, kind)


cdef Py_ssize_t _decode_all(const uint8_t *data, Py_ssize_t nbytes, void *out, Py_ssize_t cap,
                            int kind, int path, Py_ssize_t *consumed) except -1 nogil:
    return chimp_decode_raw(data, nbytes, out, cap, kind, path, False, consumed)


cdef Py_ssize_t _decode_exact(const uint8_t *data, Py_ssize_t nbytes, void *out, Py_ssize_t cap,
                              int kind, int path, Py_ssize_t *consumed) except -1 nogil:
    return chimp_decode_raw(data, nbytes, out, cap, kind, path, True, consumed)


cdef SerialCodec _CODEC = serial_codec(
    "CHIMP", None, None, 15, False, COUNT_BOUND, True, _bound, _decode_all, _decode_exact
)


def decode(data, dtype, count=None, path="auto"):
    """Decode a CHIMP page into a numpy array (int32, int64, float32 or float64).

    ``dtype``: a :class:`~tsfile.types.TSDataType` (INT32, DATE, INT64, TIMESTAMP, FLOAT, DOUBLE) or
    a numpy dtype. ``count``: the number of values to decode, None = up to the end marker. With a
    count, values equal to the end marker (MIN_VALUE, canonical NaN) are decoded as data, as the
    official reader does (it knows each page's count); without one the first such value ends the
    page.
    """
    return _CODEC.decode(data, dtype, count, path)


def decode_into(data, out, path="auto"):
    """Decode exactly ``len(out)`` values into ``out``; return the bytes consumed.

    The type follows ``out``'s dtype: int32 (INT32/DATE), int64 (INT64/TIMESTAMP), float32, float64.
    """
    return _CODEC.decode_into(data, out, path)


cdef class ChimpDecoder(SerialDecoder):
    """Streaming decoder: ``has_next()`` / ``next()`` one value at a time (also an iterator)."""

    cdef chimp_state st
    cdef bint wide

    def __init__(self, data, dtype):
        cdef const uint8_t *p = self._open(data, dtype, 15, "CHIMP")
        self.wide = serial_wide(self.kind)
        chimp_init(&self.st, p, <size_t>self.buf.shape[0], _endv(self.kind))

    cdef int _step(self, uint64_t *v) noexcept:
        return chimp_next64(&self.st, v) if self.wide else chimp_next32(&self.st, v)

    cdef size_t _error_at(self) noexcept:
        return chimp_consumed(&self.st)

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
    cdef int W = 64 if serial_wide(kind) else 32
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


cdef class ChimpEncoder(SerialEncoder):
    """Streaming encoder: ``encode(value)`` buffers a value, ``flush()`` returns the page bytes and
    starts a new page."""

    def __init__(self, dtype):
        serial_kind(dtype, 15, "CHIMP")
        self._open(dtype, None, encode)


# ---- the codec contract (tsfile/codecs/_contract.pxd) -------------------------------------------

from tsfile.codecs._contract cimport (
    ROW_BATCH,
    ROW_PER_VALUE,
    ROW_SIMD,
    check_decoded,
    codec_row,
    codec_table,
    make_row,
    publish_rows,
    rows_readable,
    with_rows,
)

from tsfile.codecs._kinds cimport KIND_F32, KIND_F64, KIND_I32, KIND_I64
from tsfile.codecs._serial cimport sk_of_kind


cdef Py_ssize_t _row_decode(const uint8_t *src, Py_ssize_t n, void *out, Py_ssize_t count,
                            int kind, int path) except -1 nogil:
    check_decoded(chimp_decode_raw(src, n, out, count, sk_of_kind(kind), path, True, NULL), count, b"CHIMP")
    return 0


cdef Py_ssize_t _row_skip(const uint8_t *src, Py_ssize_t n, Py_ssize_t k,
                          int kind) except -1 nogil:
    # The bit stream walked value by value on the per-value decoder's state, nothing stored
    # (fewer than k values is CorruptDataError).
    chimp_decode_raw(src, n, NULL, k, sk_of_kind(kind), PATH_PER_VALUE, True, NULL)
    return k


cdef extern from "serial_skip.h" nogil:
    int64_t chimp_take32(chimp_state *s, int64_t k, void *out)
    int64_t chimp_take64(chimp_state *s, int64_t k, void *out)


# serial_take_fn's exact signature over the typed take functions: calling them through a cast
# function pointer would be undefined behaviour in C.
cdef int64_t _take32(void *s, int64_t k, void *out) noexcept nogil:
    return chimp_take32(<chimp_state *>s, k, out)


cdef int64_t _take64(void *s, int64_t k, void *out) noexcept nogil:
    return chimp_take64(<chimp_state *>s, k, out)


cdef Py_ssize_t _row_rows(const uint8_t *src, Py_ssize_t n, void *more, Py_ssize_t start,
                          Py_ssize_t stop, void *out, int kind, int path) except -1 nogil:
    # The range from the opened decoder state (_serial.serial_take_rows). The body is
    # decompressed whole: where a value lies is known only by walking the stream.
    cdef chimp_state st
    cdef int sk = sk_of_kind(kind)
    cdef serial_take_fn take = _take64 if serial_wide(sk) else _take32
    cdef Py_ssize_t r
    if stop <= start:
        return 0
    rows_readable(more, src, n, n, b"CHIMP")
    chimp_init(&st, src if n > 0 else _EMPTY, <size_t>n, _endv(sk))
    st.stop_at_end = 0  # by count: an end-marker word is a value
    r = serial_take_rows(&st, take, start, stop, out)
    if r < 0:
        serial_raise_nogil(<int>r, chimp_consumed(&st), n, "CHIMP", sk)
    return r


cdef codec_row _ROWS[4]
cdef codec_table _TABLE
for _i, _kind in enumerate((KIND_I32, KIND_I64, KIND_F32, KIND_F64)):
    _ROWS[_i] = with_rows(
        make_row(11, _kind, b"chimp", b"CHIMP", ROW_PER_VALUE | ROW_BATCH,
                 NULL, _row_decode, NULL, _row_skip, NULL, NULL),
        _row_rows)
CODEC_ROWS = publish_rows(&_TABLE, _ROWS, 4)
