# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""ZIGZAG encoding (format notes 8.6) for INT32/DATE and INT64/TIMESTAMP.

Value bytes are blocks of ``uvarint encoded_len, uvarint value_count`` followed by that many zigzag
LEB128 varints (32-bit zigzag for INT32, 64-bit for INT64) filling exactly ``encoded_len`` bytes;
writers emit one block per page, decoders read any number. The encoder writes one block, like the
official C++ writer (``00 00`` for no values).

Paths: ``per_value`` (:class:`ZigzagDecoder`, one value per C-level call) and ``batch`` (scalar
kernels of ``include/zigzag_scalar.h``); varints are serial, so there is no SIMD path.
"""
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t

import numpy as np

from tsfile.codecs._common cimport PATH_PER_VALUE, as_byte_view, check_count, resolve_path
from tsfile.codecs._kinds cimport (
    KIND_I32,
    KIND_I64,
    as_values,
    check_kind_in,
    check_out_in,
    infer_kind,
    kernel_result,
    kind_dtype,
    kind_name,
    kind_of_out,
    raise_kernel_error,
    raise_kernel_error_nogil,
    resolve_kind,
)

from tsfile.errors import EncodeError, UnsupportedError

HAS_SIMD = False

# Headers included by the kernel headers, named so that cythonize rebuilds this module when
# they change.
cdef extern from "varint_scalar.h":
    pass

cdef extern from "zigzag_scalar.h" nogil:
    enum:
        TSC_ERR_TRUNCATED
    ctypedef struct zigzag_stream:
        size_t pos
        size_t block_end
        size_t err_at
    void zigzag_stream_init(zigzag_stream *s, const uint8_t *src, size_t n, int is64)
    int zigzag_stream_fill(zigzag_stream *s)
    int zigzag_stream_next(zigzag_stream *s, uint64_t *v)
    ptrdiff_t zigzag_count_scalar(const uint8_t *src, size_t n, size_t *total, size_t *err_at)
    int zigzag_parse_block(const uint8_t *src, size_t n, size_t pos, size_t *body, size_t *end,
                           uint32_t *nvals, size_t *err_at)
    ptrdiff_t zigzag_decode_i32_scalar(const uint8_t *src, size_t n, int32_t *out, size_t count,
                                       size_t *err_at)
    ptrdiff_t zigzag_decode_i64_scalar(const uint8_t *src, size_t n, int64_t *out, size_t count,
                                       size_t *err_at)
    size_t _c_encode_bound "zigzag_encode_bound"(size_t count, int is64)
    size_t zigzag_encode_i32_scalar(const int32_t *v, size_t count, uint8_t *dst)
    size_t zigzag_encode_i64_scalar(const int64_t *v, size_t count, uint8_t *dst)


cdef enum:
    _KINDS = (1 << KIND_I32) | (1 << KIND_I64)
    _MAX_PAGE_VALUES = 0x0FFFFFFF  # a page is one block: the most its header's count holds


cdef inline int _check_kind(int kind) except -1:
    return check_kind_in(kind, _KINDS, "ZIGZAG", "INT32/DATE and INT64/TIMESTAMP")


cdef inline int _check_out(int kind) except -1:
    return check_out_in(kind, _KINDS, "ZIGZAG")


# ---------------------------------------------------------------------------------------------
# C-level entry points (zigzag.pxd)

cdef Py_ssize_t zigzag_decode_i32_c(const uint8_t *src, Py_ssize_t n, int32_t *out,
                                    Py_ssize_t count) except -1 nogil:
    cdef size_t at = 0
    cdef ptrdiff_t r = zigzag_decode_i32_scalar(src, <size_t>n, out, <size_t>count, &at)
    return kernel_result(r, at, n, "ZIGZAG INT32")


cdef Py_ssize_t zigzag_decode_i64_c(const uint8_t *src, Py_ssize_t n, int64_t *out,
                                    Py_ssize_t count) except -1 nogil:
    cdef size_t at = 0
    cdef ptrdiff_t r = zigzag_decode_i64_scalar(src, <size_t>n, out, <size_t>count, &at)
    return kernel_result(r, at, n, "ZIGZAG INT64")


cdef Py_ssize_t zigzag_count_c(const uint8_t *src, Py_ssize_t n) except -1 nogil:
    cdef size_t at = 0, total = 0
    cdef ptrdiff_t r = zigzag_count_scalar(src, <size_t>n, &total, &at)
    if r < 0:
        raise_kernel_error_nogil(<int>-r, at, <size_t>n, "ZIGZAG")
    return <Py_ssize_t>total


cdef Py_ssize_t zigzag_encode_bound(Py_ssize_t count, bint is64) noexcept nogil:
    return <Py_ssize_t>_c_encode_bound(<size_t>count, is64)


cdef Py_ssize_t zigzag_encode_i32_c(const int32_t *values, Py_ssize_t count,
                                    uint8_t *dst) noexcept nogil:
    return zigzag_encode_i32_scalar(values, <size_t>count, dst)


cdef Py_ssize_t zigzag_encode_i64_c(const int64_t *values, Py_ssize_t count,
                                    uint8_t *dst) noexcept nogil:
    return zigzag_encode_i64_scalar(values, <size_t>count, dst)


# ---------------------------------------------------------------------------------------------
# The streaming (per-value) decoder

cdef class ZigzagDecoder:
    """Streaming ZIGZAG decoder: ``has_next()`` / ``next()`` over every value of every block.
    ``next()`` raises StopIteration at the end, CorruptDataError on malformed data."""

    cdef const unsigned char[::1] _buf
    cdef zigzag_stream _s
    cdef int _kind

    def __init__(self, data, dtype):
        cdef int kind = resolve_kind(dtype)
        _check_kind(kind)
        self._setup(as_byte_view(data), kind)

    cdef int _setup(self, const unsigned char[::1] buf, int kind) except -1:
        self._buf = buf
        self._kind = kind
        cdef Py_ssize_t n = buf.shape[0]
        zigzag_stream_init(&self._s, &buf[0] if n else NULL, <size_t>n, kind == KIND_I64)
        return 0

    # 1: a value in *v; 0: end of data; raises on corrupt data.
    cdef int next_u64(self, uint64_t *v) except -1 nogil:
        cdef int r = zigzag_stream_next(&self._s, v)
        if r < 0:
            raise_kernel_error_nogil(-r, self._s.err_at, <size_t>self._buf.shape[0], "ZIGZAG")
        return r

    cpdef bint has_next(self) except -1:
        cdef int r = zigzag_stream_fill(&self._s)
        if r < 0:
            raise_kernel_error(-r, self._s.err_at, <size_t>self._buf.shape[0], "ZIGZAG")
        return r > 0

    @property
    def position(self):
        """Offset of the next unread byte."""
        return self._s.pos

    def next(self):
        cdef uint64_t v = 0
        if self.next_u64(&v) == 0:
            raise StopIteration
        if self._kind == KIND_I32:
            return <int32_t>(<uint32_t>v)
        return <int64_t>v

    def __iter__(self):
        return self

    def __next__(self):
        return self.next()


ctypedef fused _word:
    int32_t
    int64_t


cdef int _next_values(ZigzagDecoder d, _word *out, Py_ssize_t count) except -1 nogil:
    """`count` values of the streaming decoder into `out`, one C-level call each: 1, or 0 when the
    data end first. One body for INT32 and INT64 (the fused type picks the store)."""
    cdef uint64_t v = 0
    cdef Py_ssize_t i
    for i in range(count):
        if not d.next_u64(&v):
            return 0
        if _word is int32_t:
            out[i] = <int32_t>(<uint32_t>v)
        else:
            out[i] = <int64_t>v
    return 1


cdef Py_ssize_t _decode_per_value(int kind, const unsigned char[::1] buf, object out) except -1:
    cdef ZigzagDecoder d = ZigzagDecoder.__new__(ZigzagDecoder)
    d._setup(buf, kind)
    cdef Py_ssize_t count = len(out)
    if count == 0:
        return 0
    cdef char[::1] raw = out.view(np.int8)
    cdef void *dst = &raw[0]
    cdef int got
    with nogil:
        if kind == KIND_I32:
            got = _next_values(d, <int32_t *>dst, count)
        else:
            got = _next_values(d, <int64_t *>dst, count)
    if not got:
        raise_kernel_error(TSC_ERR_TRUNCATED, buf.shape[0], buf.shape[0], "ZIGZAG")
    return <Py_ssize_t>d._s.block_end


# ---------------------------------------------------------------------------------------------
# Python API

cdef Py_ssize_t _decode_into_kind(int kind, const unsigned char[::1] buf, object out,
                                  int path) except -1:
    cdef Py_ssize_t n = buf.shape[0]
    cdef Py_ssize_t count = len(out)
    cdef const uint8_t *src = &buf[0] if n else NULL
    cdef Py_ssize_t used
    cdef int32_t[::1] oi
    cdef int64_t[::1] ol
    if count > n:  # a value takes at least one byte
        raise_kernel_error(TSC_ERR_TRUNCATED, n, n, f"ZIGZAG {kind_name(kind)}")
    if path == PATH_PER_VALUE:
        return _decode_per_value(kind, buf, out)
    if count == 0:
        return 0
    if kind == KIND_I32:
        oi = out
        with nogil:
            used = zigzag_decode_i32_c(src, n, &oi[0], count)
    else:
        ol = out
        with nogil:
            used = zigzag_decode_i64_c(src, n, &ol[0], count)
    return used


def decode(data, dtype, count=None, path="auto"):
    """Decode ZIGZAG values (INT32/DATE, INT64/TIMESTAMP); ``count`` None decodes every block."""
    cdef int kind = resolve_kind(dtype)
    _check_kind(kind)
    cdef int p = resolve_path(path, False, "ZIGZAG")
    cdef const unsigned char[::1] buf = as_byte_view(data)
    cdef Py_ssize_t c = check_count(count)
    cdef Py_ssize_t n = buf.shape[0]
    if c < 0:
        with nogil:
            c = zigzag_count_c(&buf[0] if n else NULL, n)
    elif c > n:
        raise_kernel_error(TSC_ERR_TRUNCATED, n, n, f"ZIGZAG {kind_name(kind)}")
    out = np.empty(c, dtype=kind_dtype(kind))
    _decode_into_kind(kind, buf, out, p)
    return out


def decode_into(data, out, path="auto"):
    """Decode exactly ``len(out)`` values into ``out`` (int32 / int64); return bytes consumed."""
    cdef int kind = kind_of_out(out)
    _check_out(kind)
    cdef int p = resolve_path(path, False, "ZIGZAG")
    cdef const unsigned char[::1] buf = as_byte_view(data)
    return _decode_into_kind(kind, buf, out, p)


cdef bytes _encode_kind(int kind, object values):
    arr = as_values(values, kind)
    cdef Py_ssize_t count = arr.shape[0]
    if count > _MAX_PAGE_VALUES:
        raise EncodeError("ZIGZAG: too many values for one block")
    cdef Py_ssize_t bound = zigzag_encode_bound(count, kind == KIND_I64)
    buf = PyBytes_FromStringAndSize(NULL, bound)
    cdef uint8_t *dst = <uint8_t *>PyBytes_AS_STRING(buf)
    cdef const int32_t[::1] vi
    cdef const int64_t[::1] vl
    cdef Py_ssize_t used
    if kind == KIND_I32:
        vi = arr
        with nogil:
            used = zigzag_encode_i32_c(&vi[0] if count else NULL, count, dst)
    else:
        vl = arr
        with nogil:
            used = zigzag_encode_i64_c(&vl[0] if count else NULL, count, dst)
    return buf[:used]


def encode(values, dtype=None):
    """Encode values as one ZIGZAG block (the official C++ writer's bytes)."""
    cdef int kind = infer_kind(values) if dtype is None else resolve_kind(dtype)
    _check_kind(kind)
    return _encode_kind(kind, values)


class ZigzagEncoder:
    """Streaming ZIGZAG encoder: ``encode(value)`` buffers a value (the block header holds the
    count and length); ``flush()`` returns the block of everything since the last flush."""

    def __init__(self, dtype):
        cdef int kind = resolve_kind(dtype)
        _check_kind(kind)
        self._kind = kind
        self._values = []

    def encode(self, value):
        self._values.append(value)

    def flush(self):
        values, self._values = self._values, []
        return _encode_kind(self._kind, values)


__all__ = ["HAS_SIMD", "decode", "decode_into", "encode", "ZigzagDecoder", "ZigzagEncoder"]


# ---- the codec contract (tsfile/codecs/_contract.pxd) -------------------------------------------

from tsfile.codecs._contract cimport (
    ROW_BATCH,
    ROW_PER_VALUE,
    ROW_SIMD,
    codec_row,
    codec_table,
    make_row,
    publish_rows,
    with_page_limit,
)
from libc.string cimport memcpy

cimport numpy as cnp

from tsfile.errors import CorruptDataError


cdef Py_ssize_t _row_count(const uint8_t *src, Py_ssize_t n, int kind) except -2 nogil:
    return zigzag_count_c(src, n)


cdef Py_ssize_t _row_decode(const uint8_t *src, Py_ssize_t n, void *out, Py_ssize_t count,
                            int kind, int path) except -1 nogil:
    if path == PATH_PER_VALUE:  # the streaming ZigzagDecoder, through decode()
        with gil:
            arr = decode(<const unsigned char[:n]>src if n else b"", kind_dtype(kind),
                         count=count, path="per_value")
            if len(arr) != count:
                raise CorruptDataError(f"ZIGZAG: page holds {len(arr)} values, {count} wanted")
            memcpy(out, cnp.PyArray_DATA(arr), count * (8 if kind == KIND_I64 else 4))
        return 0
    if kind == KIND_I64:
        return zigzag_decode_i64_c(src, n, <int64_t *>out, count)
    return zigzag_decode_i32_c(src, n, <int32_t *>out, count)


cdef Py_ssize_t _row_bound(Py_ssize_t count, int kind) noexcept nogil:
    return zigzag_encode_bound(count, kind == KIND_I64)


cdef Py_ssize_t _row_encode(const void *values, Py_ssize_t count, int kind, uint8_t *dst,
                            Py_ssize_t cap) except -1 nogil:
    if kind == KIND_I64:
        return zigzag_encode_i64_c(<const int64_t *>values, count, dst)
    return zigzag_encode_i32_c(<const int32_t *>values, count, dst)


cdef Py_ssize_t _row_skip(const uint8_t *src, Py_ssize_t n, Py_ssize_t k,
                          int kind) except -1 nogil:
    # By the block headers (encoded length, value count): the varints are not read.
    cdef size_t pos = 0, body = 0, end = 0, at = 0
    cdef uint32_t c = 0
    cdef Py_ssize_t done = 0
    cdef int e
    while done < k:
        if pos >= <size_t>n:
            raise_kernel_error_nogil(TSC_ERR_TRUNCATED, <size_t>n, <size_t>n, "ZIGZAG")
        e = zigzag_parse_block(src, <size_t>n, pos, &body, &end, &c, &at)
        if e:
            raise_kernel_error_nogil(e, at, <size_t>n, "ZIGZAG")
        done += c
        pos = end
    return k


cdef codec_row _ROWS[2]
cdef codec_table _TABLE
for _i, _kind in enumerate((KIND_I32, KIND_I64)):
    _ROWS[_i] = with_page_limit(
        make_row(9, _kind, b"zigzag", b"ZIGZAG", ROW_PER_VALUE | ROW_BATCH,
                 _row_count, _row_decode, NULL, _row_skip, _row_bound, _row_encode),
        _MAX_PAGE_VALUES)
CODEC_ROWS = publish_rows(&_TABLE, _ROWS, 2)
