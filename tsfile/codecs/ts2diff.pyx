# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""TS_2DIFF: the block delta encoding of TsFile's INT32 / INT64 / DATE / TIMESTAMP columns.

Three decode paths over the same block-header parsing (include/ts2diff_scalar.h):

* ``"per_value"``: a stateful streaming decoder driven one value per C-level call, reading bits
  through its own cursor (the classic decoder design; also public as :class:`Ts2DiffDecoder`);
* ``"batch"``: one block per call from a raw pointer, scalar C;
* ``"simd"``: the best block kernels for the current ISA level (AVX-512, AVX2, NEON; see
  :func:`implementations` and :func:`tsfile.set_simd`), chosen from the table in
  include/ts2diff_impls.h.

All paths return identical values; bad bytes raise :class:`tsfile.CorruptDataError` naming the
problem and the byte offset. :func:`encode` writes exactly what Apache TsFile writes (paths
"batch" and "simd" write the same bytes); :class:`Ts2DiffEncoder` encodes one value per call.
The C-level entry points for Cython callers are declared in ts2diff.pxd.
"""
import numpy as np

cimport numpy as cnp
from cpython.object cimport PyObject
from cpython.ref cimport Py_DECREF
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc

from tsfile.codecs._impl_table cimport ImplTable, impl_table
from tsfile.codecs._kinds cimport check_out_array
from tsfile.codecs._common cimport (
    PATH_BATCH,
    PATH_PER_VALUE,
    PATH_SIMD,
    as_byte_view,
    byte_span,
    check_count,
    resolve_path,
)

from tsfile.errors import CorruptDataError

cnp.import_array()

cdef extern from "Python.h":
    PyObject* PyBytes_FromStringAndSize(const char *v, Py_ssize_t len) except NULL
    char* PyBytes_AS_STRING(PyObject *o)

from tsfile.codecs.ts2diff_kernels cimport (
    TS2DIFF_E_COUNT_LIMIT,
    TS2DIFF_E_DATA_TRUNC,
    TS2DIFF_E_HEADER_TRUNC,
    TS2DIFF_E_NEG_COUNT,
    TS2DIFF_E_SHORT,
    TS2DIFF_E_WIDTH,
    TS2DIFF_MAX_BLOCK_DELTAS,
    TS2DIFF_N_IMPLS,
    ts2diff_block,
    ts2diff_block_count,
    ts2diff_block_fn_i32,
    ts2diff_block_fn_i64,
    ts2diff_blockinfo,
    ts2diff_count_values_c,
    ts2diff_decode_buffer_i32,
    ts2diff_decode_buffer_i64,
    ts2diff_decode_i32_scalar,
    ts2diff_decode_i64_scalar,
    ts2diff_encode_block_i32,
    ts2diff_encode_block_i64,
    ts2diff_encode_bound,
    ts2diff_error,
    ts2diff_impl,
    ts2diff_impls,
    ts2diff_parse_block,
    ts2diff_pick_impl,
    ts2diff_set_error,
    ts2diff_stream,
    ts2diff_stream_has_next,
    ts2diff_stream_init,
    ts2diff_stream_next_i32,
    ts2diff_stream_next_i64,
)

# Named so that cythonize tracks them as dependencies (a changed kernel header rebuilds the module).
cdef extern from "bitpack_msb_plan.h":
    pass
cdef extern from "ts2diff_avx2.h":
    pass
cdef extern from "ts2diff_avx512.h":
    pass
cdef extern from "ts2diff_encode_avx2.h":
    pass
cdef extern from "ts2diff_encode_avx512.h":
    pass
cdef extern from "ts2diff_neon.h":
    pass

# ---- SIMD dispatch: the implementation table (include/ts2diff_impls.h, idiom of tsfile_isa.h) ---
cdef void _init_rows():
    cdef size_t i
    for i in range(TS2DIFF_N_IMPLS):
        ts2diff_impls[i].init()


_init_rows()

# The row each ISA level runs (tsfile/codecs/_impl_table.pyx), chosen once at import.
cdef ImplTable _impls = impl_table(
    "ts2diff", ts2diff_impls, sizeof(ts2diff_impl), TS2DIFF_N_IMPLS, ts2diff_pick_impl)
implementations = _impls.implementations
active_implementation = _impls.active_implementation
#: True when this build carries SIMD kernels for TS_2DIFF (whether the CPU can run them is
#: :func:`tsfile.simd_info`'s business; ``path="simd"`` checks both).
HAS_SIMD = _impls.has_simd


cdef inline const ts2diff_impl *_active_impl() noexcept nogil:
    """The row ``path="simd"`` runs now (the scalar row when the level is scalar)."""
    return <const ts2diff_impl *>_impls.row()


cdef inline const ts2diff_impl *_scalar_impl() noexcept nogil:
    """The scalar row (the one every CPU runs at level scalar): path="batch"."""
    return <const ts2diff_impl *>_impls.at_level[0]


#: Largest delta count accepted in one block (writers use 128).
MAX_BLOCK_DELTAS = TS2DIFF_MAX_BLOCK_DELTAS
#: The block size Apache TsFile writers use.
DEFAULT_BLOCK_SIZE = 128


cdef object _corrupt(const ts2diff_error* e):
    cdef int c = e.code
    off = e.offset
    if c == TS2DIFF_E_HEADER_TRUNC:
        msg = f"truncated block header at byte {off}: needs {e.value} bytes, {e.extra} left"
    elif c == TS2DIFF_E_NEG_COUNT:
        msg = f"negative delta count {e.value} in the block header at byte {off}"
    elif c == TS2DIFF_E_COUNT_LIMIT:
        msg = f"delta count {e.value} above the limit {e.extra} in the block header at byte {off}"
    elif c == TS2DIFF_E_WIDTH:
        msg = f"bit width {e.value} outside 0..{e.extra} in the block header at byte {off}"
    elif c == TS2DIFF_E_DATA_TRUNC:
        msg = (f"block at byte {off} needs {e.value} bytes of packed deltas, "
               f"only {e.extra} present")
    elif c == TS2DIFF_E_SHORT:
        msg = f"data end at byte {off} after {e.value} values, {e.extra} requested"
    else:
        msg = f"error {c} at byte {off}"
    return CorruptDataError("TS_2DIFF: " + msg)


cdef int _raise_corrupt(const ts2diff_error* e) except -1 nogil:
    with gil:
        raise _corrupt(e)


# ---- C-level entry points (see ts2diff.pxd) ------------------------------------------------------

ctypedef fused _word:
    int32_t
    int64_t


cdef int64_t _per_value(const uint8_t* data, size_t nbytes, _word* out, size_t count,
                        ts2diff_error* err) noexcept nogil:
    cdef ts2diff_stream st
    cdef size_t i
    cdef int rc
    ts2diff_stream_init(&st, data, nbytes, 1 if _word is int64_t else 0)
    for i in range(count):
        if _word is int64_t:
            rc = ts2diff_stream_next_i64(&st, &out[i])
        else:
            rc = ts2diff_stream_next_i32(&st, &out[i])
        if rc != 1:
            if rc == 0:
                ts2diff_set_error(err, TS2DIFF_E_SHORT, nbytes, <int64_t>i, <int64_t>count)
            else:
                err[0] = st.err
            return -1
    return <int64_t>st.pos


# One body for both widths; the fused type is resolved at compile time (two C functions, the
# same code as hand-written twins).
cdef Py_ssize_t _decode_into(const uint8_t* data, Py_ssize_t nbytes, _word* out,
                             Py_ssize_t count, int path) except -1 nogil:
    cdef ts2diff_error err
    cdef int64_t used
    if count <= 0 or nbytes < 0:
        if count < 0 or nbytes < 0:
            with gil:
                raise ValueError(f"negative count {count} or size {nbytes}")
        return 0
    if path == PATH_PER_VALUE:
        used = _per_value(data, <size_t>nbytes, out, <size_t>count, &err)
    elif _word is int64_t:
        if path == PATH_SIMD:
            used = ts2diff_decode_buffer_i64(data, <size_t>nbytes, out, <size_t>count,
                                             _active_impl().decode_i64, &err)
        else:
            used = ts2diff_decode_buffer_i64(data, <size_t>nbytes, out, <size_t>count,
                                             ts2diff_decode_i64_scalar, &err)
    else:
        if path == PATH_SIMD:
            used = ts2diff_decode_buffer_i32(data, <size_t>nbytes, out, <size_t>count,
                                             _active_impl().decode_i32, &err)
        else:
            used = ts2diff_decode_buffer_i32(data, <size_t>nbytes, out, <size_t>count,
                                             ts2diff_decode_i32_scalar, &err)
    if used < 0:
        _raise_corrupt(&err)
    return <Py_ssize_t>used


cdef Py_ssize_t ts2diff_decode_into_i64(const uint8_t* data, Py_ssize_t nbytes, int64_t* out,
                                        Py_ssize_t count, int path) except -1 nogil:
    return _decode_into(data, nbytes, out, count, path)


cdef Py_ssize_t ts2diff_decode_into_i32(const uint8_t* data, Py_ssize_t nbytes, int32_t* out,
                                        Py_ssize_t count, int path) except -1 nogil:
    return _decode_into(data, nbytes, out, count, path)


cdef Py_ssize_t ts2diff_count_values(const uint8_t* data, Py_ssize_t nbytes,
                                     bint is_int64) except -1 nogil:
    cdef ts2diff_error err
    cdef int64_t n
    if nbytes <= 0:
        return 0
    n = ts2diff_count_values_c(data, <size_t>nbytes, is_int64, &err)
    if n < 0:
        _raise_corrupt(&err)
    return <Py_ssize_t>n


cdef Py_ssize_t ts2diff_skip_values(const uint8_t* data, Py_ssize_t nbytes, Py_ssize_t k,
                                    bint is_int64) except -1 nogil:
    # Whole blocks stepped over by their headers (delta count, bit width): nothing is unpacked.
    # Only the blocks holding the first k values are read, as a decode of k values would.
    cdef ts2diff_error err
    cdef ts2diff_block b
    cdef size_t pos = 0
    cdef int64_t done = 0
    while done < k:
        if pos >= <size_t>nbytes:
            ts2diff_set_error(&err, TS2DIFF_E_SHORT, pos, done, k)
            _raise_corrupt(&err)
        if ts2diff_parse_block(data, <size_t>nbytes, pos, is_int64, &b, &err) < 0:
            _raise_corrupt(&err)
        done += b.n + 1
        pos = b.data_off + b.data_len
    return k


# ---- Python API ----------------------------------------------------------------------------------

cdef bint _is_int64(object dtype) except -1:
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"dtype must be int32 or int64, not {dtype!r}") from None
    if dt == np.dtype(np.int64):
        return True
    if dt == np.dtype(np.int32):
        return False
    raise TypeError(f"TS_2DIFF decodes int32 or int64, not {dt}")


cdef inline const uint8_t* _ptr(const unsigned char[::1] view) noexcept nogil:
    if view.shape[0] == 0:
        return NULL
    return <const uint8_t*>&view[0]


def count_values(data, dtype):
    """The number of values in ``data`` (consecutive TS_2DIFF blocks), from the block headers."""
    cdef bint is64 = _is_int64(dtype)
    cdef const unsigned char[::1] view = as_byte_view(data)
    cdef const uint8_t* p = _ptr(view)
    cdef Py_ssize_t n = view.shape[0]
    with nogil:
        n = ts2diff_count_values(p, n, is64)
    return n


cdef void _check_out(cnp.ndarray out) except *:
    check_out_array(out)  # the shared layout check (_kinds): non-native byte order is ValueError


def decode_into(data, out, path="auto"):
    """Decode exactly ``len(out)`` values into ``out`` (1-D contiguous int32 or int64 array).

    Returns the number of bytes consumed (up to the end of the last block used).
    Raises CorruptDataError if the data are corrupt or hold fewer values.
    """
    if not isinstance(out, np.ndarray):
        raise TypeError(f"out must be a numpy array, not {type(out).__name__}")
    cdef cnp.ndarray arr = out
    cdef int typenum = cnp.PyArray_TYPE(arr)
    cdef Py_ssize_t size = cnp.PyArray_ITEMSIZE(arr)
    cdef bint is64
    # by C type and size, not one type number per width: int64 has two where long and long long
    # are both 64-bit (np.longlong, dtype 'q': NPY_LONGLONG, not NPY_INT64 = NPY_LONG here), as
    # int32 has where long is 32-bit (Windows)
    if (typenum == cnp.NPY_INT or typenum == cnp.NPY_LONG or typenum == cnp.NPY_LONGLONG) \
            and (size == 8 or size == 4):
        is64 = size == 8
    else:
        raise TypeError(f"out must be int32 or int64, not {arr.dtype}")
    _check_out(arr)
    cdef int p = resolve_path(path, HAS_SIMD, "ts2diff")
    cdef const uint8_t* src
    cdef Py_ssize_t nbytes
    cdef object owner = byte_span(data, &src, &nbytes)  # holds the bytes during the decode
    cdef Py_ssize_t count = cnp.PyArray_DIM(arr, 0)
    cdef void* dst = cnp.PyArray_DATA(arr)
    cdef Py_ssize_t used
    with nogil:
        if is64:
            used = ts2diff_decode_into_i64(src, nbytes, <int64_t*>dst, count, p)
        else:
            used = ts2diff_decode_into_i32(src, nbytes, <int32_t*>dst, count, p)
    return used


def decode(data, dtype, count=None, path="auto"):
    """Decode TS_2DIFF blocks into a new int32 or int64 array.

    ``count`` None decodes every value in ``data``; otherwise exactly ``count`` values (the data
    may hold more). ``path``: "per_value", "batch", "simd" or "auto".
    """
    cdef bint is64 = _is_int64(dtype)
    resolve_path(path, HAS_SIMD, "ts2diff")  # argument errors before any work
    cdef const unsigned char[::1] view = as_byte_view(data)
    cdef Py_ssize_t n = check_count(count)
    cdef Py_ssize_t nbytes = view.shape[0]
    cdef Py_ssize_t hdr = 24 if is64 else 16
    if n < 0:
        with nogil:
            n = ts2diff_count_values(_ptr(view), nbytes, is64)
    elif n > (nbytes // hdr) * (TS2DIFF_MAX_BLOCK_DELTAS + 1):
        # more values than any valid data of this size can hold: refuse before allocating
        raise CorruptDataError(
            f"TS_2DIFF: {nbytes} bytes cannot hold {n} values (at most "
            f"{(nbytes // hdr) * (TS2DIFF_MAX_BLOCK_DELTAS + 1)})"
        )
    out = np.empty(n, dtype=np.int64 if is64 else np.int32)
    decode_into(view, out, path)
    return out


def encode(values, block_size=DEFAULT_BLOCK_SIZE, path="auto", prev_min_delta=0):
    """Encode a 1-D int32 or int64 array as TS_2DIFF blocks of up to ``block_size`` deltas.

    The bytes are what Apache TsFile writes for the same values (block size 128 there).
    ``path``: "batch" (scalar), "simd" (the active implementation row: the pass that finds each
    block's minimum and maximum delta runs on AVX2 / AVX-512 / NEON, and the bit packing on
    AVX-512; the other rows pack with the scalar code) or "auto"; every path writes the same
    bytes. The one-value-at-a-time encoder is :class:`Ts2DiffEncoder`.

    A block holding a single value (no deltas) is written with width 0 and the min_delta of the
    block before it, as the official writer does; ``prev_min_delta`` is that min_delta for a page
    that starts with such a block: the official encoder keeps it across the pages of a chunk, so
    pass :func:`last_min_delta` of the chunk's previous page (0, the default, for a chunk's first
    page). Readers ignore the field there; it only matters for byte-identical pages.
    """
    cdef int p = resolve_path(path, HAS_SIMD, "ts2diff")
    if p == PATH_PER_VALUE:
        raise ValueError("encode() has no per_value path: Ts2DiffEncoder encodes value by value")
    if not isinstance(values, np.ndarray):
        raise TypeError(f"values must be a numpy int32 or int64 array, not {type(values).__name__}")
    if values.ndim != 1:
        raise ValueError(f"values must be 1-D, got shape {values.shape}")
    _check_block_size(block_size)
    cdef bint is64 = _int_array_is64(values)
    cdef uint64_t carried_min = _min_delta_bits(prev_min_delta, is64)
    cdef cnp.ndarray arr = np.ascontiguousarray(values, dtype=values.dtype.newbyteorder("="))
    cdef size_t length = <size_t>cnp.PyArray_DIM(arr, 0)
    cdef size_t bs = <size_t>block_size
    cdef const void* src = cnp.PyArray_DATA(arr)
    cdef size_t nblocks = ts2diff_block_count(length, bs)
    # the row that plans and writes (both passes the same one, whatever set_simd does meanwhile)
    cdef const ts2diff_impl *impl = _active_impl() if p == PATH_SIMD else _scalar_impl()
    cdef ts2diff_blockinfo* info = <ts2diff_blockinfo*>malloc(
        (nblocks if nblocks else 1) * sizeof(ts2diff_blockinfo))
    if info == NULL:
        raise MemoryError()
    cdef size_t total, written
    cdef PyObject* res
    cdef uint8_t* dst
    try:
        # pass 1 decides every block and gives the exact size: the result is allocated once
        with nogil:
            if is64:
                total = impl.plan_i64(<const int64_t*>src, length, bs, carried_min, info)
            else:
                total = impl.plan_i32(<const int32_t*>src, length, bs, carried_min, info)
        res = PyBytes_FromStringAndSize(NULL, <Py_ssize_t>total)
        result = <object>res
        Py_DECREF(result)  # drop the reference PyBytes_FromStringAndSize gave us
        dst = <uint8_t*>PyBytes_AS_STRING(res)
        with nogil:
            if is64:
                written = impl.write_i64(<const int64_t*>src, length, bs, info, dst)
            else:
                written = impl.write_i32(<const int32_t*>src, length, bs, info, dst)
    finally:
        free(info)
    if written != total:  # cannot happen: both passes use the same block decisions
        raise AssertionError(f"TS_2DIFF encoder wrote {written} bytes, planned {total}")
    return result


cdef int _check_block_size(block_size) except -1:
    """TypeError / ValueError unless block_size is an int in 1..TS2DIFF_MAX_BLOCK_DELTAS."""
    if isinstance(block_size, bool) or not isinstance(block_size, (int, np.integer)):
        raise TypeError(f"block_size must be an int, not {type(block_size).__name__}")
    if not 1 <= block_size <= TS2DIFF_MAX_BLOCK_DELTAS:
        raise ValueError(f"block_size must be in 1..{TS2DIFF_MAX_BLOCK_DELTAS}, got {block_size}")
    return 0


cdef bint _int_array_is64(values) except -1:
    """True for an int64 array, False for int32; TypeError otherwise."""
    if values.dtype.kind == "i" and values.dtype.itemsize == 8:
        return True
    if values.dtype.kind == "i" and values.dtype.itemsize == 4:
        return False
    raise TypeError(f"TS_2DIFF encodes int32 or int64 arrays, not {values.dtype}")


cdef uint64_t _min_delta_bits(value, bint is64) except? 0xFFFFFFFFFFFFFFFF:
    """A min_delta given as a Python int, as the encoder's header field (two's complement bits;
    int32 pages keep only the low half). It must fit the values' type."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"prev_min_delta must be an int, not {type(value).__name__}")
    bits = 64 if is64 else 32
    if not -(1 << (bits - 1)) <= value < (1 << (bits - 1)):
        raise OverflowError(f"prev_min_delta {value} does not fit in int{bits}")
    return <uint64_t>(int(value) & 0xFFFFFFFFFFFFFFFF)


def last_min_delta(values, block_size=DEFAULT_BLOCK_SIZE, prev_min_delta=0):
    """The min_delta that :func:`encode` (same arguments) leaves for the page after this one: the
    min_delta of the page's last block that has deltas, or ``prev_min_delta`` when no block has
    (a page of one value). Chain it page by page through a chunk to write what the official writer
    writes (see :func:`encode`)."""
    if not isinstance(values, np.ndarray) or values.ndim != 1:
        raise TypeError("values must be a 1-D numpy int32 or int64 array")
    _check_block_size(block_size)
    cdef bint is64 = _int_array_is64(values)
    _min_delta_bits(prev_min_delta, is64)
    cdef Py_ssize_t length = values.shape[0]
    cdef Py_ssize_t span = block_size + 1
    cdef Py_ssize_t start = (length - 1) // span * span if length else 0
    if length - start < 2:  # the last block holds one value (or the page none)
        if start == 0:
            return int(prev_min_delta)
        start -= span  # the block before it is full
    # wrapping differences in the values' own type, as the encoder computes them
    return int(np.min(np.diff(values[start:start + span])))


cdef class Ts2DiffEncoder:
    """Streaming encoder: ``encode(value)`` one value at a time, ``flush()`` returns the bytes.

    ``flush()`` ends the current block and the page: the bytes equal ``encode(values,
    prev_min_delta=m)`` of the values given since the previous flush, where ``m`` is the
    :func:`last_min_delta` of the pages flushed before (0 for the first). Like the official
    encoder, one instance carries that min_delta across the pages of a chunk: use a new instance
    for a new chunk.
    """
    cdef int64_t* _buf
    cdef uint8_t* _scratch  # one encoded block
    cdef size_t _bs
    cdef size_t _n
    cdef bint _is64
    cdef uint64_t _carried_min  # min_delta of the last block with deltas (kept across pages)
    cdef bytearray _out
    cdef object _dtype

    def __cinit__(self, dtype="int64", block_size=DEFAULT_BLOCK_SIZE):
        self._buf = NULL
        self._scratch = NULL

    def __init__(self, dtype="int64", block_size=DEFAULT_BLOCK_SIZE):
        self._is64 = _is_int64(dtype)
        self._dtype = np.dtype(np.int64 if self._is64 else np.int32)
        _check_block_size(block_size)
        self._bs = block_size
        free(self._buf)
        free(self._scratch)
        self._buf = <int64_t*>malloc(sizeof(int64_t) * (self._bs + 1))
        self._scratch = <uint8_t*>malloc(24 + sizeof(int64_t) * (self._bs + 1))
        if self._buf == NULL or self._scratch == NULL:
            raise MemoryError()
        self._n = 0
        self._carried_min = 0
        self._out = bytearray()

    def __dealloc__(self):
        free(self._buf)
        free(self._scratch)

    @property
    def dtype(self):
        return self._dtype

    cdef _emit_block(self):
        cdef uint8_t* tmp = self._scratch
        cdef int32_t* v32
        cdef uint8_t* end
        cdef size_t i
        if self._n == 0:
            return
        if self._is64:
            end = ts2diff_encode_block_i64(self._buf, self._n, tmp, &self._carried_min)
        else:
            v32 = <int32_t*>self._buf  # narrow in place: slot i (4 bytes) never passes slot i (8)
            for i in range(self._n):
                v32[i] = <int32_t>self._buf[i]
            end = ts2diff_encode_block_i32(v32, self._n, tmp, &self._carried_min)
        self._out += (<char*>tmp)[:end - tmp]
        self._n = 0

    def encode(self, value):
        """Add one value (an int in the dtype's range)."""
        if self._buf == NULL:
            # made by __new__, or by a subclass that skipped __init__: no value buffer to write
            raise TypeError("Ts2DiffEncoder.__init__ was not called")
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"expected an int, not {type(value).__name__}")
        if self._is64:
            if not -(1 << 63) <= value < (1 << 63):
                raise OverflowError(f"{value} does not fit in int64")
        elif not -(1 << 31) <= value < (1 << 31):
            raise OverflowError(f"{value} does not fit in int32")
        self._buf[self._n] = <int64_t>value
        self._n += 1
        if self._n == self._bs + 1:
            self._emit_block()

    def flush(self):
        """Write the pending block and return all bytes since the previous flush."""
        if self._buf == NULL:
            raise TypeError("Ts2DiffEncoder.__init__ was not called")
        self._emit_block()
        out = bytes(self._out)
        self._out = bytearray()
        return out


cdef class Ts2DiffDecoder:
    """Streaming decoder over ``data``: ``has_next()`` / ``next()``, or iterate.

    The same C decoder as the ``per_value`` path. ``next()`` raises StopIteration at the end and
    CorruptDataError on bad bytes.
    """
    cdef ts2diff_stream _st
    cdef const unsigned char[::1] _view
    cdef object _data
    cdef bint _is64

    def __init__(self, data, dtype="int64"):
        self._is64 = _is_int64(dtype)
        self._data = data  # keep the buffer alive
        self._view = as_byte_view(data)
        ts2diff_stream_init(&self._st, _ptr(self._view), <size_t>self._view.shape[0], self._is64)

    def has_next(self):
        """True while values (or undecoded bytes) remain."""
        return bool(ts2diff_stream_has_next(&self._st))

    def next(self):
        """The next value as a Python int."""
        cdef int64_t v64
        cdef int32_t v32
        cdef int rc
        if self._is64:
            rc = ts2diff_stream_next_i64(&self._st, &v64)
        else:
            rc = ts2diff_stream_next_i32(&self._st, &v32)
            v64 = v32
        if rc == 1:
            return v64
        if rc == 0:
            raise StopIteration
        raise _corrupt(&self._st.err)

    def __iter__(self):
        return self

    def __next__(self):
        return self.next()


# ---- the codec contract (tsfile/codecs/_contract.pxd) -------------------------------------------

from tsfile.codecs._contract cimport (
    ROW_BATCH,
    ROW_PER_VALUE,
    ROW_SIMD,
    codec_row,
    codec_table,
    make_row,
    publish_rows,
)
from tsfile.codecs._kinds cimport KIND_I32, KIND_I64


cdef Py_ssize_t _row_count(const uint8_t *src, Py_ssize_t n, int kind) except -2 nogil:
    return ts2diff_count_values(src, n, kind == KIND_I64)


cdef Py_ssize_t _row_skip(const uint8_t *src, Py_ssize_t n, Py_ssize_t k,
                          int kind) except -1 nogil:
    return ts2diff_skip_values(src, n, k, kind == KIND_I64)


cdef Py_ssize_t _row_decode(const uint8_t *src, Py_ssize_t n, void *out, Py_ssize_t count,
                            int kind, int path) except -1 nogil:
    if kind == KIND_I64:
        return _decode_into(src, n, <int64_t *>out, count, path)
    return _decode_into(src, n, <int32_t *>out, count, path)


# ---- whole-page encoding without the GIL (the writer's chunk encoder, the contract's encode_into) --

cdef enum:
    _WRITER_BLOCK = 128  # DEFAULT_BLOCK_SIZE, the block size of the format's writers


cdef Py_ssize_t ts2diff_page_bound(Py_ssize_t count, bint is64) noexcept nogil:
    return <Py_ssize_t>ts2diff_encode_bound(<size_t>count, _WRITER_BLOCK, is64)


cdef extern from *:
    """
    /* A hint that the line at p is read soon: fetched into L2 and up (prefetcht1), never a
     * fault (a no-op for compilers without the builtin). */
    #if defined(__GNUC__) || defined(__clang__)
    #define TS2DIFF_PREFETCH_L2(p) __builtin_prefetch((const void *)(p), 0, 2)
    #else
    #define TS2DIFF_PREFETCH_L2(p) ((void)(p))
    #endif
    """
    void TS2DIFF_PREFETCH_L2(const void *p) noexcept nogil


cdef Py_ssize_t ts2diff_encode_page(const void *values, Py_ssize_t count, bint is64,
                                    uint64_t *carried_min, uint8_t *dst, const uint8_t *ahead,
                                    Py_ssize_t ahead_len) noexcept nogil:
    # Block by block, each planned (its SIMD min/max pass) and written (its SIMD bit packing) by
    # the active implementation row: the same decisions and bytes as encode(), without its size
    # pass or buffer. Each block also asks for a slice of `ahead` (the chunk's next page, which
    # the writer reads next for its statistics): the first read of a page from memory was its
    # statistics pass's wait (memory-bound: the hardware prefetchers stop at every 4 KiB page);
    # spread over the blocks, the lines arrive while this page is encoded and compressed.
    cdef ts2diff_blockinfo info
    cdef const ts2diff_impl *impl = _active_impl()
    cdef size_t bs = _WRITER_BLOCK
    cdef size_t n = <size_t>count
    cdef size_t s = 0
    cdef size_t m
    cdef uint8_t *o = dst
    cdef Py_ssize_t nblocks = <Py_ssize_t>ts2diff_block_count(n, bs)
    # bytes of `ahead` per block: whole 64-byte lines, all of them by the page's last block
    cdef Py_ssize_t per_block = 0, line
    if ahead != NULL and ahead_len > 0 and nblocks > 0:
        per_block = ((ahead_len + nblocks - 1) // nblocks + 63) & ~(<Py_ssize_t>63)
    while s < n:
        m = n - s if n - s < bs + 1 else bs + 1
        if per_block:
            line = 0
            while line < per_block and line < ahead_len:
                TS2DIFF_PREFETCH_L2(ahead + line)
                line += 64
            ahead += line
            ahead_len -= line
            if ahead_len <= 0:
                per_block = 0
        if is64:
            impl.plan_i64(<const int64_t *>values + s, m, bs, carried_min[0], &info)
            o += impl.write_i64(<const int64_t *>values + s, m, bs, &info, o)
        else:
            impl.plan_i32(<const int32_t *>values + s, m, bs, carried_min[0], &info)
            o += impl.write_i32(<const int32_t *>values + s, m, bs, &info, o)
        carried_min[0] = info.min_delta  # a block without deltas carried it unchanged
        s += m
    return o - dst


cdef uint64_t ts2diff_page_carry(const void *values, Py_ssize_t count, bint is64,
                                 uint64_t carried_in) noexcept nogil:
    # Only the page's last block with deltas decides what it carries on: plan that block alone.
    cdef ts2diff_blockinfo info
    cdef const ts2diff_impl *impl = _active_impl()
    cdef size_t bs = _WRITER_BLOCK
    cdef size_t n = <size_t>count
    cdef size_t s, m
    if n < 2:
        return carried_in
    s = (n - 2) // (bs + 1) * (bs + 1)  # blocks of bs + 1 values: the last with 2 or more
    m = n - s if n - s < bs + 1 else bs + 1
    if is64:
        impl.plan_i64(<const int64_t *>values + s, m, bs, carried_in, &info)
    else:
        impl.plan_i32(<const int32_t *>values + s, m, bs, carried_in, &info)
    return info.min_delta


cdef Py_ssize_t _row_bound(Py_ssize_t count, int kind) noexcept nogil:
    return ts2diff_page_bound(count, kind == KIND_I64)


cdef Py_ssize_t _row_encode(const void *values, Py_ssize_t count, int kind, uint8_t *dst,
                            Py_ssize_t cap) except -1 nogil:
    # a page that starts a chunk (min_delta carried in: 0), as encode(values) writes it
    cdef uint64_t carried = 0
    if cap < ts2diff_page_bound(count, kind == KIND_I64):
        with gil:
            raise ValueError(f"TS_2DIFF encode_into: {cap} bytes of room for {count} values")
    return ts2diff_encode_page(values, count, kind == KIND_I64, &carried, dst, NULL, 0)


cdef codec_row _ROWS[2]
cdef codec_table _TABLE
_ROWS[0] = make_row(4, KIND_I32, b"ts2diff", b"TS_2DIFF",
                    ROW_PER_VALUE | ROW_BATCH | (ROW_SIMD if HAS_SIMD else 0),
                    _row_count, _row_decode, NULL, _row_skip, _row_bound, _row_encode)
_ROWS[1] = _ROWS[0]
_ROWS[1].kind = KIND_I64
CODEC_ROWS = publish_rows(&_TABLE, _ROWS, 2)
