# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""RLE: TsFile's RLE / bit-packing hybrid (format notes 8.5), for BOOLEAN, INT32/DATE and
INT64/TIMESTAMP.

Decoding reads both run kinds (bit-packed runs MSB-first; RLE runs with the value little-endian for
INT32/BOOLEAN and big-endian for INT64, as Java writes them) and any number of blocks. BOOLEAN is
INT32 RLE of 0/1 (any non-zero value decodes as true).

Encoding writes what the official C++ 2.5 writer writes for the same values, byte for byte: one
block per call, width = max(1, bit length) (32 / 64 as soon as a value is negative), bit-packed runs
only (at most 63 groups each), nothing at all for zero values. RLE runs would compress repeated
values better, but byte-identical output keeps files comparable with the official writer's, and
every reader (including the official C++ one, which reads INT64 RLE-run values with the wrong byte
order) reads bit-packed runs correctly.

``count=None`` decodes every block. RLE runs and width-0 runs expand without bound, so without a
count at most ``MAX_IMPLICIT_VALUES + 8 * len(data)`` values are accepted (CorruptDataError
beyond); pass ``count`` (the page's value count) to decode more.

Paths: ``per_value`` (:class:`RleDecoder`, one value per C-level call), ``batch`` (scalar block
kernels of ``include/rle_scalar.h``), ``simd`` (bit-packed runs unpacked by the best row of the
implementation table ``include/rle_impls.h`` at the current ISA level: AVX-512 ``vpermb``
(``rle_avx512.h``), AVX2 / NEON shuffles on the plans of ``bitpack_msb_plan.h``; BOOLEAN output and
RLE runs stay scalar). ``HAS_SIMD`` says whether this build has SIMD rows;
:func:`implementations` lists the rows this CPU runs, :func:`active_implementation` the one in use.

``count`` and ``skip`` (the codec contract) walk the block and run headers only: nothing is
unpacked or stored.
"""
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from cpython.pyport cimport PY_SSIZE_T_MAX

import numpy as np

from tsfile.codecs._impl_table cimport ImplTable, impl_table, tsfile_impl_head
from tsfile.codecs._common cimport (
    PATH_BATCH,
    PATH_PER_VALUE,
    PATH_SIMD,
    as_byte_view,
    check_count,
    resolve_path,
)
from tsfile.codecs._kinds cimport (
    KIND_BOOL,
    KIND_I32,
    KIND_I64,
    as_values,
    check_kind_in,
    check_out_in,
    infer_kind,
    kernel_result,
    kind_dtype,
    kind_of_out,
    per_value_into,
    raise_kernel_error,
    raise_kernel_error_nogil,
    resolve_kind,
)

from tsfile.errors import CorruptDataError, EncodeError, UnsupportedError

cdef enum:
    _MAX_IMPLICIT = 1 << 22
    _MAX_PAGE_VALUES = 0x7FFFFFF  # a page is one block: its header holds the count in 27 bits

MAX_IMPLICIT_VALUES = _MAX_IMPLICIT

# Headers included by the kernel headers, named so that cythonize rebuilds this module when
# they change.
cdef extern from "varint_scalar.h":
    pass
cdef extern from "bitpack_msb_plan.h":
    pass
cdef extern from "rle_avx2.h":
    pass
cdef extern from "rle_avx512.h":
    pass
cdef extern from "rle_neon.h":
    pass

# ---- SIMD dispatch: the implementation table (include/rle_impls.h, idiom of tsfile_isa.h) -------
cdef extern from "rle_impls.h" nogil:
    ctypedef ptrdiff_t (*rle_decode_i32_fn)(const uint8_t *, size_t, int32_t *, size_t, size_t *)
    ctypedef ptrdiff_t (*rle_decode_i64_fn)(const uint8_t *, size_t, int64_t *, size_t, size_t *)
    ctypedef struct rle_impl:
        tsfile_impl_head head
        rle_decode_i32_fn decode_i32
        rle_decode_i64_fn decode_i64
    const rle_impl *rle_impls
    size_t RLE_N_IMPLS
    void rle_init_impls()
    size_t rle_pick_impl(int level, unsigned features)

rle_init_impls()  # the rows' shuffle plans, built once before any kernel runs

# The row each ISA level runs (tsfile/codecs/_impl_table.pyx), chosen once at import; the module's
# implementations() and active_implementation() are the table's.
cdef ImplTable _impls = impl_table(
    "rle", rle_impls, sizeof(rle_impl), RLE_N_IMPLS, rle_pick_impl)
HAS_SIMD = _impls.publish(globals())


# the row path="simd" runs now (the scalar row when the level is scalar)
cdef inline const rle_impl *_active_impl() noexcept nogil:
    return <const rle_impl *>_impls.row()


# Row-range decoders (include/rle_skip.h), one row per ISA as rle_impls.
cdef extern from "rle_skip.h" nogil:
    enum:
        RLE_E_STREAM
    # `more`: a tsfile_prefix * (include/page_prefix.h) or NULL
    ctypedef ptrdiff_t (*rle_rows_i32_fn)(const uint8_t *src, size_t n, void *more, size_t start,
                                          size_t stop, int32_t *out, size_t *err_at)
    ctypedef ptrdiff_t (*rle_rows_i64_fn)(const uint8_t *src, size_t n, void *more, size_t start,
                                          size_t stop, int64_t *out, size_t *err_at)
    ctypedef struct rle_rows_impl:
        tsfile_impl_head head
        rle_rows_i32_fn rows_i32
        rle_rows_i64_fn rows_i64
    const rle_rows_impl *rle_rows_impls
    size_t RLE_ROWS_N_IMPLS
    size_t rle_rows_pick_impl(int level, unsigned features)
    ptrdiff_t rle_rows_i32_scalar(const uint8_t *src, size_t n, void *more, size_t start,
                                  size_t stop, int32_t *out, size_t *err_at)
    ptrdiff_t rle_rows_i64_scalar(const uint8_t *src, size_t n, void *more, size_t start,
                                  size_t stop, int64_t *out, size_t *err_at)
    ptrdiff_t rle_rows_bool(const uint8_t *src, size_t n, void *more, size_t start, size_t stop,
                            uint8_t *out, size_t *err_at)

# The row-range decoders' own table of the same ISA rows (codec None: not registered again; the
# rows above name RLE's implementation in tsfile.simd_info()).
cdef ImplTable _rows = impl_table(
    None, rle_rows_impls, sizeof(rle_rows_impl), RLE_ROWS_N_IMPLS, rle_rows_pick_impl)

cdef extern from "rle_scalar.h" nogil:
    enum:
        TSC_ERR_TRUNCATED
    void rle_stream_init(rle_stream *s, const uint8_t *src, size_t n, int is64)
    int rle_stream_fill(rle_stream *s)
    int rle_stream_next(rle_stream *s, uint64_t *v)
    ptrdiff_t rle_count_scalar(const uint8_t *src, size_t n, int is64, uint64_t limit,
                               uint64_t *total, size_t *err_at)
    ptrdiff_t rle_skip_scalar(const uint8_t *src, size_t n, int is64, uint64_t k, size_t *err_at)
    ptrdiff_t rle_decode_i32_scalar(const uint8_t *src, size_t n, int32_t *out, size_t count,
                                    size_t *err_at)
    ptrdiff_t rle_decode_i64_scalar(const uint8_t *src, size_t n, int64_t *out, size_t count,
                                    size_t *err_at)
    ptrdiff_t rle_decode_bool_scalar(const uint8_t *src, size_t n, uint8_t *out, size_t count,
                                     size_t *err_at)
    size_t _c_encode_bound "rle_encode_bound"(size_t count)
    size_t rle_encode_i32_scalar(const int32_t *v, size_t count, int w, uint8_t *dst)
    size_t rle_encode_i64_scalar(const int64_t *v, size_t count, int w, uint8_t *dst)
    size_t rle_encode_bool_scalar(const uint8_t *v, size_t count, int w, uint8_t *dst)
    int rle_width_i32(const int32_t *v, size_t count)
    int rle_width_i64(const int64_t *v, size_t count)
    int rle_width_bool(const uint8_t *v, size_t count)


cdef enum:
    _KINDS = (1 << KIND_BOOL) | (1 << KIND_I32) | (1 << KIND_I64)


cdef inline int _check_kind(int kind) except -1:
    return check_kind_in(kind, _KINDS, "RLE", "BOOLEAN, INT32/DATE and INT64/TIMESTAMP")


cdef inline const char *_what(int kind) noexcept nogil:
    if kind == KIND_BOOL:
        return "RLE BOOLEAN"
    if kind == KIND_I32:
        return "RLE INT32"
    return "RLE INT64"


cdef inline int _check_out(int kind) except -1:
    return check_out_in(kind, _KINDS, "RLE")


# ---------------------------------------------------------------------------------------------
# C-level entry points (rle.pxd)

cdef Py_ssize_t rle_decode_i32_c(const uint8_t *src, Py_ssize_t n, int32_t *out,
                                 Py_ssize_t count) except -1 nogil:
    cdef size_t at = 0
    cdef ptrdiff_t r = rle_decode_i32_scalar(src, <size_t>n, out, <size_t>count, &at)
    return kernel_result(r, at, n, "RLE INT32")


cdef Py_ssize_t rle_decode_i64_c(const uint8_t *src, Py_ssize_t n, int64_t *out,
                                 Py_ssize_t count) except -1 nogil:
    cdef size_t at = 0
    cdef ptrdiff_t r = rle_decode_i64_scalar(src, <size_t>n, out, <size_t>count, &at)
    return kernel_result(r, at, n, "RLE INT64")


cdef Py_ssize_t rle_decode_bool_c(const uint8_t *src, Py_ssize_t n, uint8_t *out,
                                  Py_ssize_t count) except -1 nogil:
    cdef size_t at = 0
    cdef ptrdiff_t r = rle_decode_bool_scalar(src, <size_t>n, out, <size_t>count, &at)
    return kernel_result(r, at, n, "RLE BOOLEAN")


cdef Py_ssize_t _decode_simd(int kind, const uint8_t *src, Py_ssize_t n, void *out,
                             Py_ssize_t count) except -1 nogil:
    cdef size_t at = 0
    cdef ptrdiff_t r
    if kind == KIND_I32:
        r = _active_impl().decode_i32(src, <size_t>n, <int32_t *>out, <size_t>count, &at)
    elif kind == KIND_I64:
        r = _active_impl().decode_i64(src, <size_t>n, <int64_t *>out, <size_t>count, &at)
    else:
        return rle_decode_bool_c(src, n, <uint8_t *>out, count)
    return kernel_result(r, at, n, _what(kind))


cdef Py_ssize_t _decode_kind(int kind, const uint8_t *src, Py_ssize_t n, void *out,
                             Py_ssize_t count) except -1 nogil:
    if kind == KIND_BOOL:
        return rle_decode_bool_c(src, n, <uint8_t *>out, count)
    if kind == KIND_I32:
        return rle_decode_i32_c(src, n, <int32_t *>out, count)
    if kind == KIND_I64:
        return rle_decode_i64_c(src, n, <int64_t *>out, count)
    with gil:
        raise UnsupportedError(f"RLE: no decoder for kind {kind}")


cdef Py_ssize_t rle_count_c(const uint8_t *src, Py_ssize_t n, bint is64,
                            Py_ssize_t limit) except -1 nogil:
    cdef size_t at = 0
    cdef uint64_t total = 0
    cdef ptrdiff_t r = rle_count_scalar(src, <size_t>n, is64, <uint64_t>limit, &total, &at)
    if r < 0:
        raise_kernel_error_nogil(<int>-r, at, <size_t>n, "RLE INT64" if is64 else "RLE INT32")
    return <Py_ssize_t>total


cdef Py_ssize_t rle_encode_bound(Py_ssize_t count) noexcept nogil:
    return <Py_ssize_t>_c_encode_bound(<size_t>count)


cdef Py_ssize_t rle_encode_i32_c(const int32_t *values, Py_ssize_t count,
                                 uint8_t *dst) noexcept nogil:
    return rle_encode_i32_scalar(values, count, rle_width_i32(values, count), dst)


cdef Py_ssize_t rle_encode_i64_c(const int64_t *values, Py_ssize_t count,
                                 uint8_t *dst) noexcept nogil:
    return rle_encode_i64_scalar(values, count, rle_width_i64(values, count), dst)


cdef Py_ssize_t rle_encode_bool_c(const uint8_t *values, Py_ssize_t count,
                                  uint8_t *dst) noexcept nogil:
    return rle_encode_bool_scalar(values, count, rle_width_bool(values, count), dst)


cdef Py_ssize_t rle_encode_i32_width_c(const int32_t *values, Py_ssize_t count, int width,
                                       uint8_t *dst) noexcept nogil:
    return rle_encode_i32_scalar(values, count, width, dst)


# ---------------------------------------------------------------------------------------------
# The streaming (per-value) decoder

cdef class RleDecoder:
    """Streaming RLE decoder: ``has_next()`` / ``next()`` over every value of every block in
    ``data`` (BOOLEAN, INT32/DATE or INT64/TIMESTAMP). ``next()`` raises StopIteration at the end,
    CorruptDataError on malformed data (``has_next()`` too, when the next header is bad)."""

    def __init__(self, data, dtype):
        cdef int kind = resolve_kind(dtype)
        _check_kind(kind)
        self._setup(as_byte_view(data), kind)

    cdef int _setup(self, const unsigned char[::1] buf, int kind) except -1:
        self._buf = buf
        self._kind = kind
        cdef Py_ssize_t n = buf.shape[0]
        rle_stream_init(&self._s, &buf[0] if n else NULL, <size_t>n, kind == KIND_I64)
        return 0

    # 1: a value in *v; 0: end of data; raises on corrupt data.
    cdef int next_u64(self, uint64_t *v) except -1 nogil:
        cdef int r = rle_stream_next(&self._s, v)
        if r < 0:
            raise_kernel_error_nogil(-r, self._s.err_at, <size_t>self._buf.shape[0],
                                     _what(self._kind))
        return r

    cpdef bint has_next(self) except -1:
        cdef int r = rle_stream_fill(&self._s)
        if r < 0:
            raise_kernel_error(-r, self._s.err_at, <size_t>self._buf.shape[0],
                               _what(self._kind).decode())
        return r > 0

    @property
    def position(self):
        """Offset of the next unread header byte."""
        return self._s.pos

    def next(self):
        cdef uint64_t v = 0
        if self.next_u64(&v) == 0:
            raise StopIteration
        if self._kind == KIND_BOOL:
            return v != 0
        if self._kind == KIND_I32:
            return <int32_t>(<uint32_t>v)
        return <int64_t>v

    def __iter__(self):
        return self

    def __next__(self):
        return self.next()


cdef int _truncated(int kind, Py_ssize_t n) except -1:
    raise_kernel_error(TSC_ERR_TRUNCATED, <size_t>n, <size_t>n, _what(kind).decode())
    return -1


ctypedef fused _word:
    uint8_t
    int32_t
    int64_t


cdef int _next_values(RleDecoder d, _word *out, Py_ssize_t count) except -1 nogil:
    """`count` values of the streaming decoder into `out`, one C-level call each: 1, or 0 when the
    data end first. One body for BOOLEAN, INT32 and INT64 (the fused type picks the store)."""
    cdef uint64_t v = 0
    cdef Py_ssize_t i
    for i in range(count):
        if not d.next_u64(&v):
            return 0
        if _word is uint8_t:
            out[i] = (<uint32_t>v) != 0
        elif _word is int32_t:
            out[i] = <int32_t>(<uint32_t>v)
        else:
            out[i] = <int64_t>v
    return 1


cdef Py_ssize_t _decode_per_value(int kind, const unsigned char[::1] buf, object out) except -1:
    cdef RleDecoder d = RleDecoder.__new__(RleDecoder)
    d._setup(buf, kind)
    cdef Py_ssize_t count = len(out)
    if count == 0:
        return 0
    cdef char[::1] raw = out.view(np.int8)
    cdef void *dst = &raw[0]
    cdef int got
    with nogil:
        if kind == KIND_BOOL:
            got = _next_values(d, <uint8_t *>dst, count)
        elif kind == KIND_I32:
            got = _next_values(d, <int32_t *>dst, count)
        else:
            got = _next_values(d, <int64_t *>dst, count)
    if not got:
        _truncated(kind, buf.shape[0])
    # like the batch path: the rest of the block holding the last value counts as consumed
    return <Py_ssize_t>d._s.block_end


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
    if path == PATH_PER_VALUE:
        return _decode_per_value(kind, buf, out)
    if count == 0:
        return 0
    raw = out.view(np.int8)
    dst = <void *>&raw[0]
    if path == PATH_SIMD:
        with nogil:
            used = _decode_simd(kind, src, n, dst, count)
    else:
        with nogil:
            used = _decode_kind(kind, src, n, dst, count)
    return used


def decode(data, dtype, count=None, path="auto"):
    """Decode RLE values (BOOLEAN, INT32/DATE, INT64/TIMESTAMP) into a numpy array.

    ``count``: values to decode (None: all blocks in ``data``, bounded as the module says).
    """
    cdef int kind = resolve_kind(dtype)
    _check_kind(kind)
    cdef int p = resolve_path(path, HAS_SIMD, "RLE")
    cdef const unsigned char[::1] buf = as_byte_view(data)
    cdef Py_ssize_t c = check_count(count)
    cdef Py_ssize_t n = buf.shape[0]
    cdef Py_ssize_t limit = MAX_IMPLICIT_VALUES + 8 * n
    cdef Py_ssize_t total
    if c < 0:
        with nogil:
            c = rle_count_c(&buf[0] if n else NULL, n, kind == KIND_I64, limit)
    elif c > 8 * n:
        # more values than bit-packing can hold: only RLE runs can supply them, which the header
        # walk (no allocation) confirms before the output array is made
        with nogil:
            total = rle_count_c(&buf[0] if n else NULL, n, kind == KIND_I64, PY_SSIZE_T_MAX)
        if total < c:
            raise CorruptDataError(
                f"{_what(kind).decode()}: data hold {total} values, fewer than the {c} asked for "
                f"(data truncated at byte offset {n})"
            )
    out = np.empty(c, dtype=kind_dtype(kind))
    _decode_into_kind(kind, buf, out, p)
    return out


def decode_into(data, out, path="auto"):
    """Decode exactly ``len(out)`` values into ``out`` (bool / int32 / int64); return the bytes
    consumed (through the end of the block holding the last value)."""
    cdef int kind = kind_of_out(out)
    _check_out(kind)
    cdef int p = resolve_path(path, HAS_SIMD, "RLE")
    cdef const unsigned char[::1] buf = as_byte_view(data)
    return _decode_into_kind(kind, buf, out, p)


cdef bytes _encode_kind(int kind, object values):
    arr = as_values(values, kind)
    cdef Py_ssize_t count = arr.shape[0]
    if count == 0:
        return b""
    if count > _MAX_PAGE_VALUES:
        raise EncodeError("RLE: more than 2**27 values in one block")
    cdef Py_ssize_t bound = rle_encode_bound(count)
    buf = PyBytes_FromStringAndSize(NULL, bound)
    cdef uint8_t *dst = <uint8_t *>PyBytes_AS_STRING(buf)
    cdef const char[::1] raw = arr.view(np.int8)
    cdef const void *src = &raw[0]
    cdef Py_ssize_t used
    with nogil:
        if kind == KIND_BOOL:
            used = rle_encode_bool_c(<const uint8_t *>src, count, dst)
        elif kind == KIND_I32:
            used = rle_encode_i32_c(<const int32_t *>src, count, dst)
        else:
            used = rle_encode_i64_c(<const int64_t *>src, count, dst)
    return buf[:used]


def encode(values, dtype=None):
    """Encode values as one RLE block, byte-identical to the official C++ writer's page bytes."""
    cdef int kind = infer_kind(values) if dtype is None else resolve_kind(dtype)
    _check_kind(kind)
    return _encode_kind(kind, values)


class RleEncoder:
    """Streaming RLE encoder: ``encode(value)`` buffers a value (the block width depends on all of
    them); ``flush()`` returns the block of everything since the last flush (b"" if none)."""

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


__all__ = [
    "HAS_SIMD",
    "MAX_IMPLICIT_VALUES",
    "decode",
    "decode_into",
    "encode",
    "RleDecoder",
    "RleEncoder",
]


# ---- the codec contract (tsfile/codecs/_contract.pxd) -------------------------------------------

from tsfile.codecs._contract cimport (
    ROW_BATCH,
    ROW_PER_VALUE,
    ROW_SIMD,
    codec_row,
    codec_table,
    make_row,
    publish_rows,
    raise_body_error,
    with_rows,
    with_page_limit,
)



cdef Py_ssize_t _row_decode(const uint8_t *src, Py_ssize_t n, void *out, Py_ssize_t count,
                            int kind, int path) except -1 nogil:
    if path == PATH_PER_VALUE:  # RleDecoder, writing straight into `out`
        with gil:
            return per_value_into(_decode_per_value, kind, src, n, out, count)
    if path == PATH_SIMD:  # the active row (the scalar row at level scalar)
        return _decode_simd(kind, src, n, out, count)
    return _decode_kind(kind, src, n, out, count)


cdef Py_ssize_t _row_count(const uint8_t *src, Py_ssize_t n, int kind) except -2 nogil:
    # The header walk, bounded as decode(count=None) is: a few bytes of RLE run can claim 2^31
    # values, and the engine allocates what count says.
    return rle_count_c(src, n, kind == KIND_I64, _MAX_IMPLICIT + 8 * n)


cdef Py_ssize_t _row_skip(const uint8_t *src, Py_ssize_t n, Py_ssize_t k,
                          int kind) except -1 nogil:
    # By the block and run headers alone: whole runs are stepped over by their value counts.
    cdef size_t at = 0
    cdef ptrdiff_t r = rle_skip_scalar(src, <size_t>n, kind == KIND_I64, <uint64_t>k, &at)
    if r < 0:
        raise_kernel_error_nogil(<int>-r, at, <size_t>n, _what(kind))
    return k


cdef Py_ssize_t _row_rows(const uint8_t *src, Py_ssize_t n, void *more, Py_ssize_t start,
                          Py_ssize_t stop, void *out, int kind, int path) except -1 nogil:
    # Runs before `start` passed by their headers, groups before it by their length, whole groups
    # of the range unpacked by the active ISA's group kernel on "simd" (scalar otherwise),
    # nothing after value stop-1 read (include/rle_skip.h).
    cdef size_t at = 0
    cdef ptrdiff_t r
    cdef const rle_rows_impl *impl = <const rle_rows_impl *>_rows.row()
    if kind == KIND_BOOL:
        r = rle_rows_bool(src, <size_t>n, more, <size_t>start, <size_t>stop, <uint8_t *>out, &at)
    elif kind == KIND_I32:
        r = (impl.rows_i32 if path == PATH_SIMD else rle_rows_i32_scalar)(
            src, <size_t>n, more, <size_t>start, <size_t>stop, <int32_t *>out, &at)
    else:
        r = (impl.rows_i64 if path == PATH_SIMD else rle_rows_i64_scalar)(
            src, <size_t>n, more, <size_t>start, <size_t>stop, <int64_t *>out, &at)
    if r == -RLE_E_STREAM:
        raise_body_error(more, b"RLE")
    if r < 0:
        raise_kernel_error_nogil(<int>-r, at, <size_t>n, _what(kind))
    return stop - start


cdef Py_ssize_t _row_bound(Py_ssize_t count, int kind) noexcept nogil:
    return rle_encode_bound(count)


cdef Py_ssize_t _row_encode(const void *values, Py_ssize_t count, int kind, uint8_t *dst,
                            Py_ssize_t cap) except -1 nogil:
    if kind == KIND_BOOL:
        return rle_encode_bool_c(<const uint8_t *>values, count, dst)
    if kind == KIND_I32:
        return rle_encode_i32_c(<const int32_t *>values, count, dst)
    return rle_encode_i64_c(<const int64_t *>values, count, dst)


cdef codec_row _ROWS[3]
cdef codec_table _TABLE
for _i, _kind in enumerate((KIND_BOOL, KIND_I32, KIND_I64)):
    _ROWS[_i] = with_page_limit(with_rows(
        make_row(2, _kind, b"rle", b"RLE",
                 ROW_PER_VALUE | ROW_BATCH | (ROW_SIMD if HAS_SIMD else 0),
                 _row_count, _row_decode, NULL, _row_skip, _row_bound, _row_encode),
        _row_rows), _MAX_PAGE_VALUES)
CODEC_ROWS = publish_rows(&_TABLE, _ROWS, 3)
