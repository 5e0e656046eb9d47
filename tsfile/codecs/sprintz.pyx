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
    cdef bint wide = serial_wide(kind)
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
            if out == NULL:  # a skip: walked, nothing stored
                pass
            elif wide:
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


cdef SerialCodec _CODEC = serial_codec(
    "SPRINTZ", None, None, 15, False, COUNT_EXACT, False, sprintz_count_values,
    sprintz_decode_raw, sprintz_decode_raw
)


def decode(data, dtype, count=None, path="auto"):
    """Decode an SPRINTZ page into a numpy array (int32, int64, float32 or float64).

    ``dtype``: a :class:`~tsfile.types.TSDataType` (INT32, INT64, FLOAT, DOUBLE) or
    a numpy dtype. ``count``: the number of values to decode, None = all values of the page.
    """
    return _CODEC.decode(data, dtype, count, path)


def decode_into(data, out, path="auto"):
    """Decode exactly ``len(out)`` values into ``out``; return the bytes consumed.

    The type follows ``out``'s dtype: int32 (INT32/DATE), int64 (INT64/TIMESTAMP), float32, float64.
    """
    return _CODEC.decode_into(data, out, path)


cdef class SprintzDecoder(SerialDecoder):
    """Streaming decoder: ``has_next()`` / ``next()`` one value at a time (also an iterator)."""

    cdef sprintz_state st

    def __init__(self, data, dtype):
        cdef const uint8_t *p = self._open(data, dtype, 15, "SPRINTZ")
        sprintz_init(&self.st, p, <size_t>self.buf.shape[0], self.kind)

    cdef int _step(self, uint64_t *v) noexcept:
        return sprintz_next(&self.st, v)

    cdef size_t _error_at(self) noexcept:
        return self.st.pos


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


cdef class SprintzEncoder(SerialEncoder):
    """Streaming encoder: ``encode(value)`` buffers a value, ``flush()`` returns the page bytes and
    starts a new page."""

    def __init__(self, dtype):
        serial_kind(dtype, 15, "SPRINTZ")
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
    return sprintz_count_values(src, n, sk_of_kind(kind))


cdef Py_ssize_t _row_decode(const uint8_t *src, Py_ssize_t n, void *out, Py_ssize_t count,
                            int kind, int path) except -1 nogil:
    check_decoded(sprintz_decode_raw(src, n, out, count, sk_of_kind(kind), path, NULL), count, b"SPRINTZ")
    return 0


cdef Py_ssize_t _row_skip(const uint8_t *src, Py_ssize_t n, Py_ssize_t k,
                          int kind) except -1 nogil:
    # The page's count first (its headers walked and checked, as decode does before decoding),
    # then the bit stream walked value by value on the per-value decoder's state, nothing stored.
    check_skip(sprintz_count_values(src, n, sk_of_kind(kind)), k, b"SPRINTZ")
    check_skip(sprintz_decode_raw(src, n, NULL, k, sk_of_kind(kind), PATH_PER_VALUE, NULL), k,
               b"SPRINTZ")
    return k


cdef extern from "serial_skip.h" nogil:
    int64_t sprintz_take32(sprintz_state *s, int64_t k, void *out)
    int64_t sprintz_take64(sprintz_state *s, int64_t k, void *out)


# serial_take_fn's exact signature over the typed take functions: calling them through a cast
# function pointer would be undefined behaviour in C.
cdef int64_t _take32(void *s, int64_t k, void *out) noexcept nogil:
    return sprintz_take32(<sprintz_state *>s, k, out)


cdef int64_t _take64(void *s, int64_t k, void *out) noexcept nogil:
    return sprintz_take64(<sprintz_state *>s, k, out)


cdef Py_ssize_t _row_rows(const uint8_t *src, Py_ssize_t n, void *more, Py_ssize_t start,
                          Py_ssize_t stop, void *out, int kind, int path) except -1 nogil:
    # The range from the opened decoder state (_serial.serial_take_rows). The body is
    # decompressed whole: where a value lies is known only by walking the stream.
    cdef sprintz_state st
    cdef int sk = sk_of_kind(kind)
    cdef serial_take_fn take = _take64 if serial_wide(sk) else _take32
    cdef Py_ssize_t r
    if stop <= start:
        return 0
    rows_readable(more, src, n, n, b"SPRINTZ")
    sprintz_init(&st, src if n > 0 else _EMPTY, <size_t>n, sk)
    r = serial_take_rows(&st, take, start, stop, out)
    if r < 0:
        serial_raise_nogil(<int>r, st.pos, n, "SPRINTZ", sk)
    return r


cdef codec_row _ROWS[4]
cdef codec_table _TABLE
for _i, _kind in enumerate((KIND_I32, KIND_I64, KIND_F32, KIND_F64)):
    _ROWS[_i] = with_rows(
        make_row(12, _kind, b"sprintz", b"SPRINTZ", ROW_PER_VALUE | ROW_BATCH,
                 _row_count, _row_decode, NULL, _row_skip, NULL, NULL),
        _row_rows)
CODEC_ROWS = publish_rows(&_TABLE, _ROWS, 4)
