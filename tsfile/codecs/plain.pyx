# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""PLAIN encoding (format notes 8.2): values concatenated, no header and no count.

BOOLEAN one byte (non-zero = true); INT32/DATE svarint; INT64/TIMESTAMP big-endian i64;
FLOAT/DOUBLE big-endian IEEE bits (bit-exact: NaN payloads and -0.0 survive); TEXT/STRING/BLOB
svarint length + bytes. Binary values decode to an object array of ``bytes``; the file reader turns
TEXT/STRING into ``str`` (strictly: bytes that are not UTF-8 are CorruptDataError). A negative
length is rejected: the null marker -1 of the format's varstr never appears among PLAIN values
(nulls live in the page's bitmap), and Java's reader fails on it.

Paths: ``per_value`` drives :class:`PlainDecoder` one value per C-level call; ``batch`` runs the
scalar kernels of ``include/plain_scalar.h`` over the whole buffer; ``simd`` byte-swaps the
fixed-width types (INT64/TIMESTAMP, FLOAT, DOUBLE) with the best row of the implementation table
``include/plain_impls.h`` at the current ISA level (AVX-512 / AVX2 ``vpshufb``, NEON ``rev``) and
takes the batch code for the others. ``HAS_SIMD`` says whether this build has SIMD rows;
:func:`implementations` lists the rows this CPU runs, :func:`active_implementation` the one in use.

``count`` and ``skip`` (the codec contract): fixed-width kinds by arithmetic, INT32 by walking the
svarints, binary values by their length prefixes; nothing is stored.
"""
cimport cython
from cpython.bytes cimport (
    PyBytes_AS_STRING,
    PyBytes_CheckExact,
    PyBytes_FromStringAndSize,
    PyBytes_GET_SIZE,
)
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy

import numpy as np

from tsfile.codecs._impl_table cimport ImplTable, impl_table, tsfile_impl_head
from tsfile.codecs._common cimport (
    PATH_PER_VALUE,
    PATH_SIMD,
    as_byte_view,
    check_count,
    resolve_path,
)
from tsfile.codecs._kinds cimport (
    KIND_BIN,
    KIND_BOOL,
    KIND_F32,
    KIND_F64,
    KIND_I32,
    KIND_I64,
    binary_items,
    as_values,
    infer_kind,
    kind_dtype,
    kind_name,
    kind_of_out,
    kernel_result,
    per_value_into,
    raise_kernel_error,
    raise_kernel_error_nogil,
    resolve_kind,
    uvarint_len,
    write_uvarint,
)

from tsfile.errors import CorruptDataError

# Headers included by the kernel headers, named so that cythonize rebuilds this module when
# they change.
cdef extern from "varint_scalar.h":
    pass

cdef extern from "plain_avx2.h":
    pass
cdef extern from "plain_avx512.h":
    pass
cdef extern from "plain_neon.h":
    pass

# ---- SIMD dispatch: the implementation table (include/plain_impls.h, idiom of tsfile_isa.h) -----
cdef extern from "plain_impls.h" nogil:
    ctypedef void (*plain_bswap64_fn)(const uint8_t *, uint64_t *, size_t)
    ctypedef void (*plain_bswap32_fn)(const uint8_t *, uint32_t *, size_t)
    ctypedef struct plain_impl:
        tsfile_impl_head head
        plain_bswap64_fn bswap64
        plain_bswap32_fn bswap32
    const plain_impl *plain_impls
    size_t PLAIN_N_IMPLS
    size_t plain_pick_impl(int level, unsigned features)

# The row each ISA level runs (tsfile/codecs/_impl_table.pyx), chosen once at import; the module's
# implementations() and active_implementation() are the table's.
cdef ImplTable _impls = impl_table(
    "plain", plain_impls, sizeof(plain_impl), PLAIN_N_IMPLS, plain_pick_impl)
HAS_SIMD = _impls.publish(globals())


# the row path="simd" runs now (the scalar row when the level is scalar)
cdef inline const plain_impl *_active_impl() noexcept nogil:
    return <const plain_impl *>_impls.row()

cdef extern from "plain_scalar.h" nogil:
    enum:
        TSC_ERR_TRUNCATED
    int plain_next_bool(const uint8_t *p, size_t n, size_t *pos, uint8_t *out)
    int plain_next_i32(const uint8_t *p, size_t n, size_t *pos, int32_t *out)
    int plain_next_i64(const uint8_t *p, size_t n, size_t *pos, int64_t *out)
    int plain_next_u32bits(const uint8_t *p, size_t n, size_t *pos, uint32_t *out)
    int plain_next_binary(const uint8_t *p, size_t n, size_t *pos, size_t *start, size_t *length)
    ptrdiff_t plain_decode_bool_scalar(const uint8_t *src, size_t n, uint8_t *out, size_t count,
                                       size_t *err_at)
    ptrdiff_t plain_decode_i32_scalar(const uint8_t *src, size_t n, int32_t *out, size_t count,
                                      size_t *err_at)
    ptrdiff_t plain_decode_i64_scalar(const uint8_t *src, size_t n, int64_t *out, size_t count,
                                      size_t *err_at)
    ptrdiff_t plain_decode_f32_scalar(const uint8_t *src, size_t n, uint32_t *out, size_t count,
                                      size_t *err_at)
    ptrdiff_t plain_count_i32_scalar(const uint8_t *src, size_t n, size_t *count, size_t *err_at)
    ptrdiff_t plain_skip_i32_scalar(const uint8_t *src, size_t n, size_t k, size_t *err_at)
    ptrdiff_t plain_scan_binary_scalar(const uint8_t *src, size_t n, size_t count, int64_t *starts,
                                       int64_t *lens, size_t *count_out, size_t *err_at)
    size_t plain_encoded_bound_i32(size_t count)
    size_t plain_encode_i32_scalar(const int32_t *v, size_t count, uint8_t *dst)
    size_t plain_encode_i64_scalar(const int64_t *v, size_t count, uint8_t *dst)
    size_t plain_encode_u32bits_scalar(const uint32_t *v, size_t count, uint8_t *dst)
    size_t plain_encode_bool_scalar(const uint8_t *v, size_t count, uint8_t *dst)
    const size_t SIZE_MAX

# Fixed width per value (bytes) of each kind; 0 = variable (INT32 svarint, binary).
cdef int _WIDTH[6]
_WIDTH[:] = [1, 0, 8, 4, 8, 0]


# ---------------------------------------------------------------------------------------------
# C-level entry points (plain.pxd)

cdef inline const char *_what(int kind) noexcept nogil:
    if kind == KIND_BOOL:
        return "PLAIN BOOLEAN"
    if kind == KIND_I32:
        return "PLAIN INT32"
    if kind == KIND_I64:
        return "PLAIN INT64"
    if kind == KIND_F32:
        return "PLAIN FLOAT"
    return "PLAIN DOUBLE"


cdef Py_ssize_t _decode_kind(int kind, const uint8_t *src, Py_ssize_t n, void *out,
                             Py_ssize_t count) except -1 nogil:
    # One entry for every numeric kind (the per-type twins it replaces differed only in the
    # kernel): FLOAT is copied as its IEEE bits, DOUBLE as int64 bits.
    cdef size_t at = 0
    cdef ptrdiff_t r
    if kind == KIND_BOOL:
        r = plain_decode_bool_scalar(src, <size_t>n, <uint8_t *>out, <size_t>count, &at)
    elif kind == KIND_I32:
        r = plain_decode_i32_scalar(src, <size_t>n, <int32_t *>out, <size_t>count, &at)
    elif kind == KIND_I64 or kind == KIND_F64:
        r = plain_decode_i64_scalar(src, <size_t>n, <int64_t *>out, <size_t>count, &at)
    elif kind == KIND_F32:
        r = plain_decode_f32_scalar(src, <size_t>n, <uint32_t *>out, <size_t>count, &at)
    else:
        with gil:
            raise TypeError(f"PLAIN: no numeric decoder for kind {kind}")
    return kernel_result(r, at, n, _what(kind))


cdef Py_ssize_t _decode_simd(int kind, const uint8_t *src, Py_ssize_t n, void *out,
                             Py_ssize_t count) except -1 nogil:
    # the SIMD byte swaps do not check lengths: check here, as the scalar kernels do
    if kind == KIND_I64 or kind == KIND_F64:
        if count > n // 8:
            return _decode_kind(kind, src, n, out, count)  # raises the truncation error
        _active_impl().bswap64(src, <uint64_t *>out, <size_t>count)
        return count * 8
    if kind == KIND_F32:
        if count > n // 4:
            return _decode_kind(kind, src, n, out, count)
        _active_impl().bswap32(src, <uint32_t *>out, <size_t>count)
        return count * 4
    return _decode_kind(kind, src, n, out, count)


cdef Py_ssize_t plain_scan_binary_c(const uint8_t *src, Py_ssize_t n, int64_t *starts,
                                    int64_t *lens, Py_ssize_t count) except -1 nogil:
    cdef size_t at = 0, found = 0
    cdef ptrdiff_t r = plain_scan_binary_scalar(src, <size_t>n, <size_t>count, starts, lens,
                                                &found, &at)
    return kernel_result(r, at, n, "PLAIN binary")


cdef Py_ssize_t plain_decode_binary_into(const uint8_t *src, Py_ssize_t n, object out) except -1:
    cdef object[::1] o = out
    cdef Py_ssize_t count = o.shape[0], i
    if count > n:  # every value takes at least its length byte
        raise_kernel_error(TSC_ERR_TRUNCATED, <size_t>n, <size_t>n, "PLAIN binary")
    starts = np.empty(count, dtype=np.int64)
    lens = np.empty(count, dtype=np.int64)
    cdef int64_t[::1] s = starts
    cdef int64_t[::1] ln = lens
    cdef Py_ssize_t used
    with nogil:
        used = plain_scan_binary_c(src, n, &s[0] if count else NULL,
                                   &ln[0] if count else NULL, count)
    for i in range(count):
        o[i] = PyBytes_FromStringAndSize(<const char *>src + s[i], ln[i])
    return used


cdef Py_ssize_t _encode_kind(int kind, const void *values, Py_ssize_t count,
                             uint8_t *dst) noexcept nogil:
    if kind == KIND_BOOL:
        return plain_encode_bool_scalar(<const uint8_t *>values, count, dst)
    if kind == KIND_I32:
        return plain_encode_i32_scalar(<const int32_t *>values, count, dst)
    if kind == KIND_I64 or kind == KIND_F64:
        return plain_encode_i64_scalar(<const int64_t *>values, count, dst)
    if kind == KIND_F32:
        return plain_encode_u32bits_scalar(<const uint32_t *>values, count, dst)
    return 0


# ---------------------------------------------------------------------------------------------
# The streaming (per-value) decoder

# No automatic pickling: Cython would copy the raw pointer below as a NUL-terminated string,
# so a copy.copy() of this object pointed into a temporary while keeping the whole length
# (reads of freed memory); copy and pickle are a TypeError instead.
@cython.auto_pickle(False)
cdef class PlainDecoder:
    """Streaming PLAIN decoder: ``has_next()`` / ``next()`` over the values in ``data``.

    ``next()`` returns a Python bool / int / float / bytes and raises StopIteration at the end of
    the data, CorruptDataError on malformed data.
    """

    cdef const unsigned char[::1] _buf
    cdef const uint8_t *_p
    cdef size_t _n
    cdef size_t _pos
    cdef int _kind

    def __init__(self, data, dtype):
        self._kind = resolve_kind(dtype)
        self._buf = as_byte_view(data)
        self._n = <size_t>self._buf.shape[0]
        self._p = &self._buf[0] if self._n else NULL
        self._pos = 0

    cdef int _fail(self, int code) except -1 nogil:
        return raise_kernel_error_nogil(code, self._pos, self._n, "PLAIN")

    # One value per call into *out: the per-value baseline of the "per_value" path. Not inline, so
    # every value is a real (vtable) call, like a classic decoder's read_int64().
    cdef int next_bool(self, uint8_t *out) except -1 nogil:
        cdef int e = plain_next_bool(self._p, self._n, &self._pos, out)
        if e:
            self._fail(e)
        return 0

    cdef int next_i32(self, int32_t *out) except -1 nogil:
        cdef int e = plain_next_i32(self._p, self._n, &self._pos, out)
        if e:
            self._fail(e)
        return 0

    cdef int next_i64(self, int64_t *out) except -1 nogil:
        cdef int e = plain_next_i64(self._p, self._n, &self._pos, out)
        if e:
            self._fail(e)
        return 0

    cdef int next_u32bits(self, uint32_t *out) except -1 nogil:
        cdef int e = plain_next_u32bits(self._p, self._n, &self._pos, out)
        if e:
            self._fail(e)
        return 0

    cdef int next_binary(self, size_t *start, size_t *length) except -1 nogil:
        cdef int e = plain_next_binary(self._p, self._n, &self._pos, start, length)
        if e:
            self._fail(e)
        return 0

    cpdef bint has_next(self):
        return self._pos < self._n

    @property
    def position(self):
        """Bytes consumed so far."""
        return self._pos

    def next(self):
        cdef uint8_t b = 0
        cdef int32_t i32 = 0
        cdef int64_t i64 = 0
        cdef uint32_t u32 = 0
        cdef size_t s = 0, ln = 0
        if self._pos >= self._n:
            raise StopIteration
        k = self._kind
        if k == KIND_BOOL:
            self.next_bool(&b)
            return bool(b)
        if k == KIND_I32:
            self.next_i32(&i32)
            return i32
        if k == KIND_I64:
            self.next_i64(&i64)
            return i64
        if k == KIND_F32:
            self.next_u32bits(&u32)
            return float(np.uint32(u32).view(np.float32))
        if k == KIND_F64:
            self.next_i64(&i64)
            return float(np.int64(i64).view(np.float64))
        self.next_binary(&s, &ln)
        return PyBytes_FromStringAndSize(<const char *>self._p + s, ln)

    def __iter__(self):
        return self

    def __next__(self):
        return self.next()


cdef Py_ssize_t _decode_per_value(int kind, const unsigned char[::1] buf, object out) except -1:
    dec = PlainDecoder.__new__(PlainDecoder)
    cdef PlainDecoder d = <PlainDecoder>dec
    d._buf = buf
    d._n = <size_t>buf.shape[0]
    d._p = &buf[0] if d._n else NULL
    d._pos = 0
    d._kind = kind
    cdef Py_ssize_t i, count = len(out)
    cdef size_t s = 0, ln = 0
    cdef uint8_t[::1] ob
    cdef int32_t[::1] oi
    cdef int64_t[::1] ol
    cdef uint32_t[::1] of
    cdef object[::1] oo
    if kind == KIND_BOOL:
        ob = out.view(np.uint8)
        with nogil:
            for i in range(count):
                d.next_bool(&ob[i])
    elif kind == KIND_I32:
        oi = out
        with nogil:
            for i in range(count):
                d.next_i32(&oi[i])
    elif kind == KIND_I64 or kind == KIND_F64:
        ol = out.view(np.int64)
        with nogil:
            for i in range(count):
                d.next_i64(&ol[i])
    elif kind == KIND_F32:
        of = out.view(np.uint32)
        with nogil:
            for i in range(count):
                d.next_u32bits(&of[i])
    else:
        oo = out
        for i in range(count):
            d.next_binary(&s, &ln)
            oo[i] = PyBytes_FromStringAndSize(<const char *>d._p + s, ln)
    return <Py_ssize_t>d._pos


# ---------------------------------------------------------------------------------------------
# Python API

cdef Py_ssize_t _decode_into_kind(int kind, const unsigned char[::1] buf, object out,
                                  int path) except -1:
    cdef Py_ssize_t n = buf.shape[0]
    cdef Py_ssize_t count = len(out)
    cdef const uint8_t *src = &buf[0] if n else NULL
    cdef Py_ssize_t used
    cdef char[::1] raw
    cdef void *dst
    # Refuse before any work when the data cannot hold `count` values.
    cdef Py_ssize_t w = _WIDTH[kind] if _WIDTH[kind] else 1
    if count > n // w:
        raise CorruptDataError(
            f"PLAIN {kind_name(kind)}: {n} bytes cannot hold {count} values "
            f"(data truncated at byte offset {n})"
        )
    if path == PATH_PER_VALUE:
        return _decode_per_value(kind, buf, out)
    if kind == KIND_BIN:
        return plain_decode_binary_into(src, n, out)
    if count == 0:
        return 0
    raw = out.view(np.int8)
    dst = <void *>&raw[0]
    with nogil:
        if path == PATH_SIMD:
            used = _decode_simd(kind, src, n, dst, count)
        else:
            used = _decode_kind(kind, src, n, dst, count)
    return used


def decode(data, dtype, count=None, path="auto"):
    """Decode PLAIN values.

    ``dtype``: a TSDataType or numpy dtype-like. ``count``: number of values (None: all the data).
    Returns a numpy array (object array of ``bytes`` for TEXT/STRING/BLOB).
    """
    cdef int kind = resolve_kind(dtype)
    cdef int p = resolve_path(path, HAS_SIMD, "PLAIN")
    cdef const unsigned char[::1] buf = as_byte_view(data)
    cdef Py_ssize_t c = check_count(count)
    cdef Py_ssize_t n = buf.shape[0]
    cdef size_t found = 0, at = 0
    cdef ptrdiff_t r
    if c < 0:
        if kind == KIND_BIN:
            with nogil:
                r = plain_scan_binary_scalar(&buf[0] if n else NULL, <size_t>n, SIZE_MAX,
                                             NULL, NULL, &found, &at)
            if r < 0:
                raise_kernel_error(<int>-r, at, <size_t>n, "PLAIN binary")
            c = <Py_ssize_t>found
        elif kind == KIND_I32:
            with nogil:
                r = plain_count_i32_scalar(&buf[0] if n else NULL, <size_t>n, &found, &at)
            if r < 0:
                raise_kernel_error(<int>-r, at, <size_t>n, "PLAIN INT32")
            c = <Py_ssize_t>found
        else:
            w = _WIDTH[kind]
            if n % w:
                raise CorruptDataError(
                    f"PLAIN {kind_name(kind)}: {n} bytes is not a whole number of {w}-byte "
                    f"values (data truncated at byte offset {n - n % w})"
                )
            c = n // w
    elif c > n // (_WIDTH[kind] if _WIDTH[kind] else 1):
        raise CorruptDataError(
            f"PLAIN {kind_name(kind)}: {n} bytes cannot hold {c} values "
            f"(data truncated at byte offset {n})"
        )
    out = np.empty(c, dtype=kind_dtype(kind))
    _decode_into_kind(kind, buf, out, p)
    return out


def decode_into(data, out, path="auto"):
    """Decode exactly ``len(out)`` values into ``out``; return the number of bytes consumed."""
    cdef int kind = kind_of_out(out)
    cdef int p = resolve_path(path, HAS_SIMD, "PLAIN")
    cdef const unsigned char[::1] buf = as_byte_view(data)
    return _decode_into_kind(kind, buf, out, p)


cdef bytes _encode_binary(list items):
    cdef Py_ssize_t total = 0, k = 0, i, n = len(items)
    cdef Py_ssize_t ln
    cdef object b
    for i in range(n):
        ln = PyBytes_GET_SIZE(items[i])
        if ln > 0x7FFFFFFF:
            from tsfile.errors import EncodeError
            raise EncodeError("a binary value is longer than 2**31 - 1 bytes")
        total += uvarint_len((<uint32_t>ln) << 1) + ln
    res = PyBytes_FromStringAndSize(NULL, total)
    cdef uint8_t *dst = <uint8_t *>PyBytes_AS_STRING(res)
    for i in range(n):
        b = items[i]
        ln = PyBytes_GET_SIZE(b)
        k += write_uvarint(dst + k, (<uint32_t>ln) << 1)
        memcpy(dst + k, PyBytes_AS_STRING(b), ln)
        k += ln
    return res


cdef bytes _encode_kind_py(int kind, object values):
    if kind == KIND_BIN:
        return _encode_binary(binary_items(values))
    arr = as_values(values, kind)
    cdef Py_ssize_t count = arr.shape[0]
    cdef Py_ssize_t bound = count * (5 if kind == KIND_I32 else _WIDTH[kind])
    if count == 0:
        return b""
    cdef const char[::1] raw = arr.view(np.int8)
    buf = PyBytes_FromStringAndSize(NULL, bound)
    cdef uint8_t *dst = <uint8_t *>PyBytes_AS_STRING(buf)
    cdef Py_ssize_t used
    with nogil:
        used = _encode_kind(kind, &raw[0], count, dst)
    return buf if used == bound else buf[:used]


def encode(values, dtype=None):
    """Encode values with PLAIN; ``dtype`` (TSDataType or numpy dtype) defaults to the values'."""
    cdef int kind = infer_kind(values) if dtype is None else resolve_kind(dtype)
    return _encode_kind_py(kind, values)


class PlainEncoder:
    """Streaming PLAIN encoder: ``encode(value)`` appends one value, ``flush()`` returns the bytes
    of everything encoded since the last flush and starts over."""

    def __init__(self, dtype):
        self._kind = resolve_kind(dtype)
        self._dtype = dtype
        self._values = []

    def encode(self, value):
        self._values.append(value)

    def flush(self):
        values, self._values = self._values, []
        if self._kind == KIND_BIN:
            return _encode_kind_py(KIND_BIN, values)
        return _encode_kind_py(self._kind, np.asarray(values) if values else [])


__all__ = ["HAS_SIMD", "decode", "decode_into", "encode", "PlainDecoder", "PlainEncoder"]


# ---- the codec contract (tsfile/codecs/_contract.pxd) -------------------------------------------

from tsfile.codecs._contract cimport (
    ROW_BATCH,
    ROW_PER_VALUE,
    ROW_SIMD,
    codec_row,
    codec_table,
    make_row,
    publish_rows,
    rows_readable,
    with_object_rows,
    with_rows,
)

from tsfile.types import TSDataType as _TSDataType


cdef Py_ssize_t _row_count(const uint8_t *src, Py_ssize_t n, int kind) except -2 nogil:
    cdef size_t c = 0, at = 0
    if kind == KIND_BIN:  # the length prefixes, walked
        kernel_result(plain_scan_binary_scalar(src, <size_t>n, SIZE_MAX, NULL, NULL, &c, &at),
                      at, n, "PLAIN string length")
        return <Py_ssize_t>c
    if kind == KIND_I32:  # one svarint per value: a scan
        kernel_result(plain_count_i32_scalar(src, <size_t>n, &c, &at), at, n, "PLAIN INT32")
        return <Py_ssize_t>c
    if n % _WIDTH[kind]:
        with gil:
            raise CorruptDataError(
                f"PLAIN {kind_name(kind)}: {n} bytes are not whole {_WIDTH[kind]}-byte values")
    return n // _WIDTH[kind]


cdef Py_ssize_t _row_skip(const uint8_t *src, Py_ssize_t n, Py_ssize_t k, int kind) except -1 nogil:
    # fixed-width kinds: k values are k * width bytes; INT32 walks k svarints and binary values k
    # length prefixes (each checked against the page, nothing stored)
    cdef size_t at = 0, found = 0
    if kind == KIND_I32:
        kernel_result(plain_skip_i32_scalar(src, <size_t>n, <size_t>k, &at), at, n, "PLAIN INT32")
    elif kind == KIND_BIN:
        kernel_result(plain_scan_binary_scalar(src, <size_t>n, <size_t>k, NULL, NULL, &found, &at),
                      at, n, "PLAIN string length")
    elif k > n // _WIDTH[kind]:
        raise_kernel_error_nogil(TSC_ERR_TRUNCATED, <size_t>n, <size_t>n, _what(kind))
    return k


# svarints walked per step of the INT32 skip: the body is asked for 5 bytes a value (the longest
# svarint) a step ahead, so a compressed page is decompressed little beyond the range.
cdef enum:
    _I32_STEP = 4096
    _I32_MAX_BYTES = 5


cdef Py_ssize_t _skip_i32(const uint8_t *src, Py_ssize_t n, void *more,
                          Py_ssize_t k) except -1 nogil:
    """The byte offset of svarint k: the first k walked (each checked, nothing stored)."""
    cdef Py_ssize_t pos = 0, step, ready
    cdef size_t at = 0
    cdef ptrdiff_t r
    while k > 0:
        step = min(k, <Py_ssize_t>_I32_STEP)
        ready = rows_readable(more, src, n, pos + step * _I32_MAX_BYTES, b"PLAIN INT32")
        r = plain_skip_i32_scalar(src + pos, <size_t>(ready - pos), <size_t>step, &at)
        if r < 0:  # offsets from the page's values
            raise_kernel_error_nogil(<int>-r, at + <size_t>pos, <size_t>n, "PLAIN INT32")
        pos += r
        k -= step
    return pos


cdef Py_ssize_t _row_rows(const uint8_t *src, Py_ssize_t n, void *more, Py_ssize_t start,
                          Py_ssize_t stop, void *out, int kind, int path) except -1 nogil:
    # Fixed-width values found by offset; INT32 svarints before `start` walked without storing
    # (_skip_i32). The body is read only as far as value stop-1.
    cdef Py_ssize_t w, pos, ready, count = stop - start
    cdef size_t at = 0
    cdef ptrdiff_t r
    if count <= 0:
        return 0
    if kind == KIND_I32:
        pos = _skip_i32(src, n, more, start)
        ready = rows_readable(more, src, n, pos + count * _I32_MAX_BYTES, b"PLAIN INT32")
        r = plain_decode_i32_scalar(src + pos, <size_t>(ready - pos), <int32_t *>out,
                                    <size_t>count, &at)
        if r < 0:
            raise_kernel_error_nogil(<int>-r, at + <size_t>pos, <size_t>n, "PLAIN INT32")
        return count
    w = _WIDTH[kind]
    if stop > n // w:  # fewer values than asked: the decoders' truncation error
        raise_kernel_error_nogil(TSC_ERR_TRUNCATED, <size_t>n, <size_t>n, _what(kind))
    rows_readable(more, src, n, stop * w, _what(kind))
    if path == PATH_SIMD:
        _decode_simd(kind, src + start * w, count * w, out, count)
    else:
        _decode_kind(kind, src + start * w, count * w, out, count)
    return count


cdef Py_ssize_t _row_decode(const uint8_t *src, Py_ssize_t n, void *out, Py_ssize_t count,
                            int kind, int path) except -1 nogil:
    if path == PATH_PER_VALUE:  # PlainDecoder, writing straight into `out`
        with gil:
            return per_value_into(_decode_per_value, kind, src, n, out, count)
    if path == PATH_SIMD:  # the active row (the scalar row at level scalar)
        return _decode_simd(kind, src, n, out, count)
    return _decode_kind(kind, src, n, out, count)


cdef object _text_of(bytes value, str type_name, Py_ssize_t i, Py_ssize_t body_pos):
    """A TEXT/STRING value as str; invalid UTF-8 is CorruptDataError naming the value and, when
    known (body_pos >= 0), its first bad byte in the page's values (the reader's text policy)."""
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError as exc:
        where = "" if body_pos < 0 else f"; byte {body_pos + exc.start} of the page's values"
        raise CorruptDataError(
            f"invalid UTF-8 in PLAIN {type_name} value {i} ({exc.reason}{where}) in the page"
        ) from None


cdef Py_ssize_t _row_objects(const uint8_t *p, Py_ssize_t n, object out, Py_ssize_t at,
                             Py_ssize_t count, int path, bint text, str type_name) except -1:
    cdef Py_ssize_t i
    cdef object[::1] o = out
    if path == PATH_PER_VALUE:  # PlainDecoder, then the same text policy
        vals = decode(<const unsigned char[:n]>p if n else b"", _TSDataType.BLOB, count=count,
                      path="per_value")
        for i in range(count):
            o[at + i] = _text_of(vals[i], type_name, i, -1) if text else vals[i]
        return 0
    return _build_objects(p, n, 0, 0, out, at, count, text, type_name)


cdef Py_ssize_t _build_objects(const uint8_t *p, Py_ssize_t n, size_t pos, Py_ssize_t first,
                               object out, Py_ssize_t at, Py_ssize_t count, bint text,
                               str type_name) except -1:
    """Values first .. first+count-1 of a page, the first of them at byte `pos`, into out[at:]
    (str or bytes); returns the byte offset after them."""
    cdef size_t start = 0, ln = 0
    cdef Py_ssize_t i
    cdef int rc
    cdef object[::1] o = out
    cdef bytes v
    for i in range(first, first + count):
        rc = plain_next_binary(p, <size_t>n, &pos, &start, &ln)
        if rc:
            raise_kernel_error(rc, pos, <size_t>n, f"PLAIN string length of {type_name} value {i}")
        v = (<const char *>p + start)[:ln]
        o[at + i - first] = _text_of(v, type_name, i, <Py_ssize_t>start) if text else v
    return pos


cdef Py_ssize_t _row_objects_rows(const uint8_t *p, Py_ssize_t n, Py_ssize_t start,
                                  Py_ssize_t stop, object out, Py_ssize_t at, int path,
                                  bint text, str type_name) except -1:
    # the values before `start` passed by their length prefixes (no object built), then the
    # range built
    cdef size_t found = 0, err_at = 0
    cdef Py_ssize_t pos
    if stop <= start:
        return 0
    with nogil:
        pos = kernel_result(plain_scan_binary_scalar(p, <size_t>n, <size_t>start, NULL, NULL,
                                                     &found, &err_at),
                            err_at, n, "PLAIN string length")
    return _build_objects(p, n, <size_t>pos, start, out, at, stop - start, text, type_name)


cdef Py_ssize_t _row_bound(Py_ssize_t count, int kind) noexcept nogil:
    if kind == KIND_I32:
        return <Py_ssize_t>plain_encoded_bound_i32(<size_t>count)
    return count * _WIDTH[kind]


cdef Py_ssize_t _row_encode(const void *values, Py_ssize_t count, int kind, uint8_t *dst,
                            Py_ssize_t cap) except -1 nogil:
    return _encode_kind(kind, values, count, dst)


cdef codec_row _ROWS[6]
cdef codec_table _TABLE
for _i, _kind in enumerate((KIND_BOOL, KIND_I32, KIND_I64, KIND_F32, KIND_F64)):
    _ROWS[_i] = with_rows(
        make_row(0, _kind, b"plain", b"PLAIN",
                 ROW_PER_VALUE | ROW_BATCH | (ROW_SIMD if HAS_SIMD else 0),
                 _row_count, _row_decode, NULL, _row_skip, _row_bound, _row_encode),
        _row_rows)
# binary values take the scalar scan on the simd path (path= counts it as the module's simd path)
_ROWS[5] = with_object_rows(
    make_row(0, KIND_BIN, b"plain", b"PLAIN",
             ROW_PER_VALUE | ROW_BATCH | (ROW_SIMD if HAS_SIMD else 0),
             _row_count, NULL, _row_objects, _row_skip, NULL, NULL),
    _row_objects_rows)
CODEC_ROWS = publish_rows(&_TABLE, _ROWS, 6)
