# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""GORILLA (TsFile's Gorilla XOR encoding, format notes 8.4) for INT32, INT64, FLOAT and DOUBLE.

Byte-identical to the TsFile writers: first value raw, XOR control bits, stored lead/trail window,
the end value, the final byte rule, MSB-first.

End values (INT32/INT64 minimum, the canonical NaN bit patterns 0x7fc00000 / 0x7ff8000000000000):
a page ends with one, so a value equal to it is ambiguous. Decoding with a ``count`` (what the
file reader does: the page's value count is known) decodes exactly that many values, as the
official C++ reader does, and returns such values like any other; ``count=None`` stops at the
first one (the only way to find the end without a count, and what Java readers do). ``encode``
refuses them with :class:`~tsfile.errors.EncodeError` naming the position (pages stay readable by
every reader), unless ``allow_end_markers=True``, which writes what the official C++ writer writes.
Any other NaN bit pattern is stored as is.

Paths: ``per_value`` (one value per C call, the streaming baseline) and ``batch`` (64-bit bit
reservoir, a branch on a 2-bit peek, runs of identical values in bulk). GORILLA is a serial bit
stream with a data-dependent branch per value, so there is no SIMD path: ``path="simd"`` raises
:class:`~tsfile.errors.SimdUnavailableError` and ``HAS_SIMD`` is False.
"""
import numpy as np

cimport numpy as cnp
from libc.stddef cimport ptrdiff_t
from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy

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
from tsfile.errors import CorruptDataError, EncodeError

cnp.import_array()

HAS_SIMD = False

cdef extern from "gorilla_scalar.h":
    uint64_t GOR_END32, GOR_END64, GOR_ENDF32, GOR_ENDF64
    int GOR_OK, GOR_ERR_TRUNCATED, GOR_ERR_WINDOW
    ctypedef struct gorilla_dec_t:
        uint64_t pos
        int done
        int err
    ctypedef struct gorilla_enc_t:
        uint8_t *out
        size_t n
    void gorilla_dec_init(gorilla_dec_t *s, const uint8_t *data, size_t nbytes) nogil
    size_t gorilla_dec_consumed(const gorilla_dec_t *s) nogil
    size_t gorilla_decode_batch32(gorilla_dec_t *s, uint64_t endv, int stop, uint32_t *out,
                                  size_t cap) nogil
    size_t gorilla_decode_batch64(gorilla_dec_t *s, uint64_t endv, int stop, uint64_t *out,
                                  size_t cap) nogil
    int gorilla_next32(gorilla_dec_t *s, uint64_t endv, int stop, uint64_t *out) nogil
    int gorilla_next64(gorilla_dec_t *s, uint64_t endv, int stop, uint64_t *out) nogil
    size_t gorilla_encode_bound(size_t count, int W) nogil
    Py_ssize_t gorilla_encode32(const uint32_t *values, size_t count, uint64_t endv, int refuse,
                                uint8_t *out) nogil
    Py_ssize_t gorilla_encode64(const uint64_t *values, size_t count, uint64_t endv, int refuse,
                                uint8_t *out) nogil
    void gorilla_enc_init(gorilla_enc_t *e, uint8_t *out) nogil
    void gorilla_enc_put32(gorilla_enc_t *e, uint64_t v) nogil
    void gorilla_enc_put64(gorilla_enc_t *e, uint64_t v) nogil
    size_t gorilla_enc_finish32(gorilla_enc_t *e, uint64_t endv) nogil
    size_t gorilla_enc_finish64(gorilla_enc_t *e, uint64_t endv) nogil


_KINDS = {
    np.dtype(np.int32): GOR_KIND_INT32,
    np.dtype(np.int64): GOR_KIND_INT64,
    np.dtype(np.float32): GOR_KIND_FLOAT,
    np.dtype(np.float64): GOR_KIND_DOUBLE,
}
_KIND_DTYPES = {v: k for k, v in _KINDS.items()}
_KIND_NAMES = {GOR_KIND_INT32: "INT32", GOR_KIND_INT64: "INT64",
               GOR_KIND_FLOAT: "FLOAT", GOR_KIND_DOUBLE: "DOUBLE"}


cdef inline bint _wide(int kind) noexcept nogil:
    return kind == GOR_KIND_INT64 or kind == GOR_KIND_DOUBLE


cdef inline uint64_t _end_value(int kind) noexcept nogil:
    if kind == GOR_KIND_INT32:
        return GOR_END32
    if kind == GOR_KIND_INT64:
        return GOR_END64
    if kind == GOR_KIND_FLOAT:
        return GOR_ENDF32
    return GOR_ENDF64


cdef int _kind_of(object dtype) except -1:
    """A dtype-like (numpy dtype, type, name, or a TSDataType) -> GOR_KIND_*."""
    from tsfile.types import TSDataType
    if isinstance(dtype, TSDataType):
        dtype = dtype.numpy_dtype
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"dtype must be int32, int64, float32 or float64, not {dtype!r}") from None
    try:
        return _KINDS[dt.newbyteorder("=")]
    except KeyError:
        raise TypeError(f"GORILLA stores int32, int64, float32 or float64, not {dt}") from None


cdef int _raise_decode_error(const gorilla_dec_t *s, Py_ssize_t got, Py_ssize_t want) except -1 with gil:
    cdef Py_ssize_t at = <Py_ssize_t>(s.pos >> 3)
    if s.err == GOR_ERR_WINDOW:
        raise CorruptDataError(
            f"GORILLA: invalid XOR window after value {got} (near byte offset {at})")
    if s.err == GOR_ERR_TRUNCATED:
        if want >= 0:
            raise CorruptDataError(
                f"GORILLA: data end at byte offset {at} after {got} of the {want} values "
                f"requested (truncated page, or it holds fewer values)")
        raise CorruptDataError(
            f"GORILLA: data end at byte offset {at} before the end value "
            f"(after {got} values; truncated page)")
    raise CorruptDataError(
        f"GORILLA: page holds {got} values, {want} requested (end value at byte offset {at})")


cdef Py_ssize_t gorilla_decode_into(const uint8_t* data, Py_ssize_t nbytes, void* out,
                                    Py_ssize_t count, int kind, int path) except -1 nogil:
    cdef gorilla_dec_t s
    cdef Py_ssize_t k = 0
    cdef int r
    cdef uint64_t v
    cdef uint64_t endv = _end_value(kind)
    cdef bint wide = _wide(kind)
    if count <= 0:
        return 0
    gorilla_dec_init(&s, data, <size_t>nbytes)
    # By count, as the official C++ reader does: values equal to the end value are values.
    if path == PATH_PER_VALUE:
        while k < count:
            r = gorilla_next64(&s, endv, 0, &v) if wide else gorilla_next32(&s, endv, 0, &v)
            if r != 1:
                break
            if out == NULL:  # a skip: walked, nothing stored
                pass
            elif wide:
                (<uint64_t*>out)[k] = v
            else:
                (<uint32_t*>out)[k] = <uint32_t>v
            k += 1
    else:
        if wide:
            k = <Py_ssize_t>gorilla_decode_batch64(&s, endv, 0, <uint64_t*>out, <size_t>count)
        else:
            k = <Py_ssize_t>gorilla_decode_batch32(&s, endv, 0, <uint32_t*>out, <size_t>count)
    if k < count:
        _raise_decode_error(&s, k, count)
    # Look one value further: when it is the end value the whole page was consumed (the usual
    # case, count = the page's value count); a decoding error there does not concern the values.
    cdef uint64_t pos_before = s.pos
    if not s.done:
        r = gorilla_next64(&s, endv, 1, &v) if wide else gorilla_next32(&s, endv, 1, &v)
        if r == 1:
            return <Py_ssize_t>((pos_before + 7) >> 3)
    if s.done:
        return <Py_ssize_t>gorilla_dec_consumed(&s)
    # count reached before the end value: the bytes holding the bits read so far
    return <Py_ssize_t>((s.pos + 7) >> 3)


cdef Py_ssize_t gorilla_encode_capacity(Py_ssize_t count, int kind) noexcept nogil:
    return <Py_ssize_t>gorilla_encode_bound(<size_t>count, 64 if _wide(kind) else 32)


cdef int _raise_encode_error(Py_ssize_t i, int kind) except -1 with gil:
    what = "the canonical NaN" if kind in (GOR_KIND_FLOAT, GOR_KIND_DOUBLE) else "the minimum integer"
    raise EncodeError(
        f"GORILLA cannot store value {i} of a {_KIND_NAMES[kind]} page: it equals {what}, "
        f"which GORILLA uses as its end marker (store this page with another encoding)")


cdef Py_ssize_t gorilla_encode_into(const void* values, Py_ssize_t count, int kind,
                                    uint8_t* out, Py_ssize_t out_cap,
                                    bint allow_end_markers) except -1 nogil:
    cdef Py_ssize_t r
    cdef int refuse = not allow_end_markers
    if out_cap < gorilla_encode_capacity(count, kind):
        with gil:
            raise ValueError("GORILLA: output buffer too small")
    if _wide(kind):
        r = gorilla_encode64(<const uint64_t*>values, <size_t>count, _end_value(kind), refuse, out)
    else:
        r = gorilla_encode32(<const uint32_t*>values, <size_t>count, _end_value(kind), refuse, out)
    if r < 0:
        _raise_encode_error(-r - 1, kind)
    return r


def _values_array(values, dtype):
    if dtype is not None:
        kind = _kind_of(dtype)
        arr = np.ascontiguousarray(values, dtype=_KIND_DTYPES[kind])
    else:
        if isinstance(values, np.ndarray):
            arr = values
        else:
            arr = np.asarray(values)
            if arr.dtype.kind == "i":
                arr = arr.astype(np.int64)
        kind = _kind_of(arr.dtype)
        arr = np.ascontiguousarray(arr, dtype=_KIND_DTYPES[kind])
    if arr.ndim != 1:
        raise ValueError(f"values must be 1-D, got shape {arr.shape}")
    return arr, kind


def encode(values, dtype=None, allow_end_markers=False):
    """Encode a page of values -> bytes (the page's value bytes).

    ``values``: a 1-D array of int32, int64, float32 or float64 (or a sequence with ``dtype``).
    Raises EncodeError naming the first value equal to GORILLA's end marker, unless
    ``allow_end_markers``: then such values are encoded like the others, as the official C++
    writer does (readers that decode by count, like the official C++ reader and this package,
    read them back; a reader that stops at the end value, like Java's, loses the rest of the page).
    """
    arr, kind = _values_array(values, dtype)
    cdef Py_ssize_t n = arr.shape[0]
    cdef Py_ssize_t cap = gorilla_encode_capacity(n, kind)
    cdef cnp.ndarray buf = np.empty(cap, dtype=np.uint8)
    cdef const uint8_t[::1] vb = arr.view(np.uint8)
    cdef const void* vp = &vb[0] if n > 0 else NULL
    cdef Py_ssize_t size
    cdef int k = kind
    cdef bint allow = bool(allow_end_markers)
    with nogil:
        size = gorilla_encode_into(vp, n, k, <uint8_t*>cnp.PyArray_DATA(buf), cap, allow)
    return buf[:size].tobytes()


cdef object _decode_all(const uint8_t* data, Py_ssize_t nbytes, int kind, int path):
    """Decode everything up to the end value into a growing array (the count is not stored)."""
    cdef gorilla_dec_t s
    cdef bint wide = _wide(kind)
    cdef uint64_t endv = _end_value(kind)
    cdef Py_ssize_t itemsize = 8 if wide else 4
    # Each value after the first takes at least one bit: 8 * nbytes bounds the count. Start from
    # a guess of one value per item size of data and double, never past the bound.
    cdef Py_ssize_t bound = 8 * nbytes + 1
    cdef Py_ssize_t cap = min(bound, max(64, nbytes // itemsize * 2))
    cdef Py_ssize_t k = 0
    cdef Py_ssize_t got
    cdef int r
    cdef uint64_t v
    cdef cnp.ndarray out = np.empty(cap, dtype=_KIND_DTYPES[kind])
    cdef char* op
    gorilla_dec_init(&s, data, <size_t>nbytes)
    while True:
        op = <char*>cnp.PyArray_DATA(out)
        with nogil:
            if path == PATH_PER_VALUE:
                while k < cap:
                    r = gorilla_next64(&s, endv, 1, &v) if wide else gorilla_next32(&s, endv, 1, &v)
                    if r != 1:
                        break
                    if wide:
                        (<uint64_t*>op)[k] = v
                    else:
                        (<uint32_t*>op)[k] = <uint32_t>v
                    k += 1
            elif wide:
                k += <Py_ssize_t>gorilla_decode_batch64(&s, endv, 1, <uint64_t*>op + k,
                                                        <size_t>(cap - k))
            else:
                k += <Py_ssize_t>gorilla_decode_batch32(&s, endv, 1, <uint32_t*>op + k,
                                                        <size_t>(cap - k))
        if s.err:
            _raise_decode_error(&s, k, -1)
        if s.done:
            break
        if cap >= bound:
            s.err = GOR_ERR_TRUNCATED
            _raise_decode_error(&s, k, -1)
        cap = min(bound, cap * 2)
        out = _grow(out, k, cap)
    # drop a mostly unused over-allocation rather than keep it alive behind a view
    return out[:k].copy() if k < out.shape[0] // 2 else out[:k]


cdef cnp.ndarray _grow(cnp.ndarray arr, Py_ssize_t used, Py_ssize_t cap):
    cdef cnp.ndarray bigger = np.empty(cap, dtype=arr.dtype)
    memcpy(cnp.PyArray_DATA(bigger), cnp.PyArray_DATA(arr), used * arr.dtype.itemsize)
    return bigger


def decode(data, dtype, count=None, path="auto"):
    """Decode a GORILLA page -> a 1-D array of ``dtype`` (int32, int64, float32 or float64).

    ``count=None`` decodes up to the first end value; otherwise exactly ``count`` values, like
    the official C++ reader (end-marker values among them are returned as values;
    CorruptDataError if the data end first). ``path``: "per_value", "batch" or "auto".
    """
    cdef int kind = _kind_of(dtype)
    cdef const unsigned char[::1] buf = as_byte_view(data)
    cdef Py_ssize_t n = check_count(count)
    cdef int p = resolve_path(path, False, "GORILLA")
    cdef Py_ssize_t nbytes = buf.shape[0]
    cdef const uint8_t* ptr = &buf[0] if nbytes > 0 else <const uint8_t*>b""
    cdef cnp.ndarray out
    if n < 0:
        return _decode_all(ptr, nbytes, kind, p)
    # A page of B bytes holds at most 8 * B values (one bit per repeat): check before allocating.
    if n > 8 * nbytes + 1:
        raise CorruptDataError(
            f"GORILLA: {n} values requested but {nbytes} bytes hold at most {8 * nbytes + 1}")
    out = np.empty(n, dtype=_KIND_DTYPES[kind])
    with nogil:
        gorilla_decode_into(ptr, nbytes, cnp.PyArray_DATA(out), n, kind, p)
    return out


def decode_into(data, out, path="auto"):
    """Decode exactly ``len(out)`` values (by count, like ``decode(count=...)``) into the 1-D
    contiguous array ``out`` (its dtype selects the type); returns the number of bytes consumed."""
    check_out_array(out)  # the shared layout check (_kinds): TypeError / ValueError
    cdef int kind = _kind_of(out.dtype)
    cdef const uint8_t* ptr
    cdef Py_ssize_t nbytes
    cdef object owner = byte_span(data, &ptr, &nbytes)  # holds the bytes during the decode
    cdef int p = resolve_path(path, False, "GORILLA")
    cdef Py_ssize_t n = out.shape[0]
    cdef void* op = cnp.PyArray_DATA(out)
    cdef Py_ssize_t used
    with nogil:
        used = gorilla_decode_into(ptr, nbytes, op, n, kind, p)
    return used


cdef inline uint64_t _bits_of(object value, int kind) except? 0xFFFFFFFFFFFFFFFF:
    if kind == GOR_KIND_INT32:
        return <uint32_t>np.array(value, dtype=np.int32).view(np.uint32)
    if kind == GOR_KIND_INT64:
        return <uint64_t>np.array(value, dtype=np.int64).view(np.uint64)
    if kind == GOR_KIND_FLOAT:
        return <uint32_t>np.array(value, dtype=np.float32).view(np.uint32)
    return <uint64_t>np.array(value, dtype=np.float64).view(np.uint64)


cdef class GorillaEncoder:
    """Streaming GORILLA encoder: ``encode(value)`` per value, ``flush()`` returns the page bytes
    and resets the encoder for the next page. ``allow_end_markers`` as in :func:`encode`."""
    cdef gorilla_enc_t _e
    cdef int _kind
    cdef bytearray _buf
    cdef Py_ssize_t _count
    cdef bint _allow

    def __init__(self, dtype, allow_end_markers=False):
        self._kind = _kind_of(dtype)
        self._allow = bool(allow_end_markers)
        self._reset()

    cdef _check_ready(self):
        # made by __new__, or by a subclass that skipped __init__: the C encoder would write
        # through a NULL output pointer
        if self._buf is None:
            raise TypeError("GorillaEncoder.__init__ was not called")

    cdef _reset(self):
        self._buf = bytearray(gorilla_encode_bound(64, 64))
        self._count = 0
        gorilla_enc_init(&self._e, <uint8_t*><char*>self._buf)

    def encode(self, value):
        """Append one value (EncodeError if it equals the end marker)."""
        self._check_ready()
        cdef uint64_t v = _bits_of(value, self._kind)
        cdef size_t need = gorilla_encode_bound(self._count + 2, 64)
        if v == _end_value(self._kind) and not self._allow:
            _raise_encode_error(self._count, self._kind)
        if <size_t>len(self._buf) < need:
            self._buf.extend(bytes(len(self._buf) + 64))
            # the storage may have moved: point the encoder at the new one (same offset)
            self._e.out = <uint8_t*><char*>self._buf
        if _wide(self._kind):
            gorilla_enc_put64(&self._e, v)
        else:
            gorilla_enc_put32(&self._e, v)
        self._count += 1

    def flush(self):
        """Finish the page (end value + final byte) and return its bytes."""
        cdef size_t n
        self._check_ready()
        if _wide(self._kind):
            n = gorilla_enc_finish64(&self._e, _end_value(self._kind))
        else:
            n = gorilla_enc_finish32(&self._e, _end_value(self._kind))
        out = bytes(self._buf[:n])
        self._reset()
        return out


cdef class GorillaDecoder:
    """Streaming GORILLA decoder over one page: ``has_next()`` / ``next()``. With ``count`` it
    yields exactly that many values (by count, end-marker values included); without, it stops at
    the first end value."""
    cdef gorilla_dec_t _s
    cdef int _kind
    cdef object _data
    cdef const unsigned char[::1] _view
    cdef bint _have
    cdef uint64_t _next
    cdef Py_ssize_t _count
    cdef Py_ssize_t _limit

    def __init__(self, data, dtype, count=None):
        self._kind = _kind_of(dtype)
        self._limit = check_count(count)
        self._view = as_byte_view(data)
        self._data = data
        cdef Py_ssize_t n = self._view.shape[0]
        gorilla_dec_init(&self._s, &self._view[0] if n > 0 else <const uint8_t*>b"", <size_t>n)
        self._have = False
        self._count = 0
        self._advance()

    cdef _advance(self):
        cdef int r
        cdef uint64_t v
        cdef int stop = self._limit < 0
        if self._limit >= 0 and self._count >= self._limit:
            self._have = False
            return
        if _wide(self._kind):
            r = gorilla_next64(&self._s, _end_value(self._kind), stop, &v)
        else:
            r = gorilla_next32(&self._s, _end_value(self._kind), stop, &v)
        if r < 0:
            _raise_decode_error(&self._s, self._count, self._limit)
        self._have = r == 1
        self._next = v if r == 1 else 0

    def has_next(self):
        return bool(self._have)

    def next(self):
        if not self._have:
            raise StopIteration
        cdef uint64_t v = self._next
        self._count += 1
        self._advance()
        if self._kind == GOR_KIND_INT32:
            return int(np.array(<uint32_t>v, dtype=np.uint32).view(np.int32))
        if self._kind == GOR_KIND_INT64:
            return int(np.array(v, dtype=np.uint64).view(np.int64))
        if self._kind == GOR_KIND_FLOAT:
            return float(np.array(<uint32_t>v, dtype=np.uint32).view(np.float32))
        return float(np.array(v, dtype=np.uint64).view(np.float64))

    def __iter__(self):
        return self

    def __next__(self):
        return self.next()

    def bytes_consumed(self):
        """Bytes of the page used so far (the whole page once the end value was read)."""
        if self._s.done:
            return gorilla_dec_consumed(&self._s)
        return <Py_ssize_t>((self._s.pos + 7) >> 3)


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
)

from tsfile.codecs._kinds cimport KIND_F32, KIND_F64, KIND_I32, KIND_I64
from tsfile.codecs._serial cimport sk_of_kind


cdef Py_ssize_t _row_decode(const uint8_t *src, Py_ssize_t n, void *out, Py_ssize_t count,
                            int kind, int path) except -1 nogil:
    return gorilla_decode_into(src, n, out, count, sk_of_kind(kind), path)


cdef Py_ssize_t _row_bound(Py_ssize_t count, int kind) noexcept nogil:
    return gorilla_encode_capacity(count, sk_of_kind(kind))


cdef Py_ssize_t _row_encode(const void *values, Py_ssize_t count, int kind, uint8_t *dst,
                            Py_ssize_t cap) except -1 nogil:
    # values equal to the end marker are written, as the writer does (tsfile._write.encoders)
    return gorilla_encode_into(values, count, sk_of_kind(kind), dst, cap, True)


cdef Py_ssize_t _row_skip(const uint8_t *src, Py_ssize_t n, Py_ssize_t k,
                          int kind) except -1 nogil:
    # The bit stream walked value by value on the per-value decoder's state, nothing stored
    # (fewer than k values is CorruptDataError).
    gorilla_decode_into(src, n, NULL, k, sk_of_kind(kind), PATH_PER_VALUE)
    return k


cdef extern from "serial_skip.h" nogil:
    # `more`: a tsfile_prefix * (include/page_prefix.h) or NULL
    ptrdiff_t gorilla_rows(const uint8_t *d, size_t n, void *more, size_t start, size_t stop,
                           int W, int per_value, uint64_t endv, void *out, gorilla_dec_t *s)


cdef int _raise_rows_error(const gorilla_dec_t *s, Py_ssize_t start,
                           Py_ssize_t stop) except -1 with gil:
    what = ("invalid XOR window" if s.err == GOR_ERR_WINDOW
            else "data end (truncated page, or it holds fewer values)")
    raise CorruptDataError(f"GORILLA: {what} near byte offset {s.pos >> 3}, reading values "
                           f"{start}..{stop - 1}")


cdef Py_ssize_t _row_rows(const uint8_t *src, Py_ssize_t n, void *more, Py_ssize_t start,
                          Py_ssize_t stop, void *out, int kind, int path) except -1 nogil:
    # The values before `start` walked on the batch decoder's state without being stored (a run
    # of repeats passed by its length), the body asked for its bytes as the walk goes, then the
    # range decoded from the same state; nothing after value stop-1 (include/serial_skip.h).
    cdef gorilla_dec_t s
    cdef int gk = sk_of_kind(kind)
    cdef ptrdiff_t r
    if stop <= start:
        return 0
    r = gorilla_rows(src, <size_t>n, more, <size_t>start, <size_t>stop, 64 if _wide(gk) else 32,
                     path == PATH_PER_VALUE, _end_value(gk), out, &s)
    if r == -2:
        raise_body_error(more, b"GORILLA")
    if r < 0:
        _raise_rows_error(&s, start, stop)
    return stop - start


cdef codec_row _ROWS[4]
cdef codec_table _TABLE
for _i, _kind in enumerate((KIND_I32, KIND_I64, KIND_F32, KIND_F64)):
    _ROWS[_i] = with_rows(
        make_row(8, _kind, b"gorilla", b"GORILLA", ROW_PER_VALUE | ROW_BATCH,
                 NULL, _row_decode, NULL, _row_skip, _row_bound, _row_encode),
        _row_rows)
CODEC_ROWS = publish_rows(&_TABLE, _ROWS, 4)
