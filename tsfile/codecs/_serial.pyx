# cython: language_level=3
"""Helpers shared by the serial bit-stream codecs (CHIMP, SPRINTZ, RLBE, CAMEL): dtype arguments and
error messages, and the decode()/decode_into()/streaming wrappers their modules share. Kernel
status codes are the TSF_E_* values of include/bitreader_msb.h."""
import numpy as np

cimport cython
cimport numpy as cnp
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.string cimport memcpy

from tsfile.codecs._common cimport PATH_PER_VALUE, as_byte_view, check_count, resolve_path
from tsfile.codecs._contract cimport check_skip, rows_readable
from tsfile.codecs._kinds cimport check_out_array, raise_corrupt_at

from tsfile.errors import CorruptDataError
from tsfile.types import TSDataType

_TS = {
    TSDataType.INT32: SK_I32,
    TSDataType.DATE: SK_I32,
    TSDataType.INT64: SK_I64,
    TSDataType.TIMESTAMP: SK_I64,
    TSDataType.VECTOR: SK_I64,
    TSDataType.FLOAT: SK_F32,
    TSDataType.DOUBLE: SK_F64,
}
_DTYPES = (np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.float32), np.dtype(np.float64))
_NP = {dt: k for k, dt in enumerate(_DTYPES)}
_NAMES = ("INT32", "INT64", "FLOAT", "DOUBLE")
_MESSAGES = {
    -1: "data truncated",
    -2: "corrupt field",
    -3: "count or length out of range",
}

cnp.import_array()


cdef int _check_allowed(int k, int allowed, str codec) except -1:
    if not (allowed >> k) & 1:
        _refuse_kind(k, allowed, codec)
    return k


# Apart from _check_allowed: its generator expression would make every call allocate a closure.
cdef int _refuse_kind(int k, int allowed, str codec) except -1:
    ok = ", ".join(_NAMES[i] for i in range(4) if (allowed >> i) & 1)
    raise TypeError(f"{codec} does not encode {_NAMES[k]} values (only {ok})")


cdef int serial_kind(object dtype, int allowed, str codec) except -1:
    cdef int k
    if isinstance(dtype, TSDataType):
        if dtype not in _TS:
            raise TypeError(f"{codec} does not encode {dtype.name} values")
        return _check_allowed(_TS[dtype], allowed, codec)
    if dtype is None or isinstance(dtype, (bool, int, float)):
        raise TypeError(f"dtype must be a TSDataType or a numpy dtype, not {dtype!r}")
    try:
        dt = np.dtype(dtype)
    except (TypeError, ValueError):
        raise TypeError(f"dtype must be a TSDataType or a numpy dtype, not {dtype!r}") from None
    if dt not in _NP:
        raise TypeError(f"{codec} cannot decode to numpy dtype {dt}")
    return _check_allowed(_NP[dt], allowed, codec)


cdef int serial_kind_of_out(object out, int allowed, str codec) except -1:
    check_out_array(out)
    if out.dtype not in _NP:
        raise TypeError(f"{codec} cannot decode into an array of dtype {out.dtype}")
    return _check_allowed(_NP[out.dtype], allowed, codec)


cdef object serial_dtype(int kind):
    return _DTYPES[kind]


cdef str serial_kind_name(int kind):
    return _NAMES[kind]


cdef int serial_raise(int status, size_t at, size_t n, str what) except -1:
    # the serial kernels' own status codes, raised the one way (_kinds.raise_corrupt_at)
    return raise_corrupt_at(what, _MESSAGES.get(status, f"error {status}"), at, n)


cdef int serial_raise_nogil(int status, size_t at, size_t n, const char *codec,
                            int kind) except -1 nogil:
    with gil:
        serial_raise(status, at, n, f"{codec.decode('ascii')} {_NAMES[kind]}")
    return -1


cdef tuple serial_values(object values, object dtype, int allowed, str codec):
    from tsfile.errors import EncodeError

    cdef int k
    arr = values if isinstance(values, np.ndarray) else np.asarray(values)
    if arr.ndim != 1:
        raise TypeError(f"values must be 1-D, got shape {arr.shape}")
    if dtype is None:
        # values in another byte order are values all the same (as in every codec's encode)
        native = arr.dtype if arr.dtype.isnative else arr.dtype.newbyteorder("=")
        if native not in _NP:
            raise TypeError(f"{codec}: pass dtype= for values of numpy dtype {arr.dtype}")
        k = _check_allowed(_NP[native], allowed, codec)
    else:
        k = serial_kind(dtype, allowed, codec)
    target = _DTYPES[k]
    if arr.dtype == target:
        return np.ascontiguousarray(arr), k
    if arr.size == 0:
        return np.empty(0, dtype=target), k
    src = arr.dtype.kind
    if target.kind == "i":
        if src == "O":
            try:
                arr = np.asarray(values, dtype=np.int64)
            except (OverflowError, TypeError, ValueError):
                raise TypeError(f"{codec}: cannot encode these objects as {_NAMES[k]}") from None
            src = "i"
        if src not in "biu":
            raise TypeError(f"{codec}: cannot encode {arr.dtype} values as {_NAMES[k]}")
        info = np.iinfo(target)
        if arr.min() < info.min or arr.max() > info.max:
            raise EncodeError(f"{codec}: a value is outside the {_NAMES[k]} range")
        return np.ascontiguousarray(arr.astype(target)), k
    if src not in "biufO":
        raise TypeError(f"{codec}: cannot encode {arr.dtype} values as {_NAMES[k]}")
    try:
        return np.ascontiguousarray(arr.astype(target)), k
    except (TypeError, ValueError):
        raise TypeError(f"{codec}: cannot encode these objects as {_NAMES[k]}") from None


# ---- decode() / decode_into() / streaming classes of the serial codec modules -------------------

cdef uint8_t _EMPTY[1]


cdef const uint8_t *serial_ptr(const unsigned char[::1] buf) noexcept:
    return &buf[0] if buf.shape[0] > 0 else _EMPTY


cdef class SerialCodec:
    # (&buf[0] is taken only when the view is not empty)
    @cython.boundscheck(False)
    @cython.wraparound(False)
    cdef object decode(self, object data, object dtype, object count, object path):
        cdef int kind = serial_kind(dtype, self.allowed, self.type_codec)
        cdef int p = resolve_path(path, self.has_simd, self.path_codec)
        cdef const unsigned char[::1] buf = as_byte_view(data)
        cdef Py_ssize_t want = check_count(count)
        cdef Py_ssize_t nb = buf.shape[0]
        cdef Py_ssize_t total, cap, got
        cdef const uint8_t *src = &buf[0] if nb > 0 else _EMPTY
        cdef serial_decode_fn fn = self.decode_all if want < 0 else self.decode_exact
        cdef void *dst
        with nogil:
            total = self.count(src, nb, kind)
        if want > total:
            if self.count_mode == COUNT_BOUND:
                raise CorruptDataError(f"{self._what(kind)}: {nb} bytes cannot hold {want} values")
            raise CorruptDataError(
                f"{self._what(kind)}: the page holds {total} values, {want} requested"
            )
        cap = total if want < 0 else want
        out = np.empty(cap, dtype=_DTYPES[kind])
        dst = cnp.PyArray_DATA(<cnp.ndarray>out)
        with nogil:
            got = fn(src, nb, dst, cap, kind, p, NULL)
        if self.count_mode == COUNT_EXACT:
            if got != cap:  # cannot happen after a successful count; kept as a guard
                raise CorruptDataError(f"{self._what(kind)}: decoded {got} of {cap} values")
            return out
        if want >= 0 and got < want:
            raise CorruptDataError(
                f"{self._what(kind)}: the page holds {got} values, {want} requested"
            )
        if self.end_marker and want < 0 and got == cap and nb > 0:
            # the bound counts the end marker as a value: reaching it means the marker is missing
            serial_raise(-1, nb, nb, self._what(kind))
        if got < cap:
            out = out[:got].copy() if got < cap // 2 else out[:got]
        return out

    @cython.boundscheck(False)
    @cython.wraparound(False)
    cdef object decode_into(self, object data, object out, object path):
        cdef int kind = serial_kind_of_out(out, self.allowed, self.type_codec)
        cdef int p = resolve_path(path, self.has_simd, self.path_codec)
        cdef const unsigned char[::1] buf = as_byte_view(data)
        cdef Py_ssize_t nb = buf.shape[0]
        cdef Py_ssize_t want = out.shape[0]
        cdef Py_ssize_t got, used = 0
        cdef const uint8_t *src = &buf[0] if nb > 0 else _EMPTY
        cdef void *dst = cnp.PyArray_DATA(<cnp.ndarray>out)
        with nogil:
            got = self.decode_exact(src, nb, dst, want, kind, p, &used)
        if got < want:
            raise CorruptDataError(
                f"{self._what(kind)}: the page holds {got} values, {want} requested"
            )
        return used

    cdef str _what(self, int kind):
        return f"{self.name} {_NAMES[kind]}"


cdef SerialCodec serial_codec(str name, str type_codec, str path_codec, int allowed,
                              bint has_simd, int count_mode, bint end_marker,
                              serial_count_fn count, serial_decode_fn decode_all,
                              serial_decode_fn decode_exact):
    cdef SerialCodec c = SerialCodec.__new__(SerialCodec)
    c.name = name
    c.type_codec = name if type_codec is None else type_codec
    c.path_codec = name if path_codec is None else path_codec
    c.allowed = allowed
    c.has_simd = has_simd
    c.count_mode = count_mode
    c.end_marker = end_marker
    c.count = count
    c.decode_all = decode_all
    c.decode_exact = decode_exact
    return c


cdef object serial_as_python(uint64_t v, int kind):
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


cdef class SerialDecoder:
    """Streaming decoder: ``has_next()`` / ``next()`` one value at a time (also an iterator)."""

    cdef int _start(self, const serial_ops *ops, object data, object dtype) except -1:
        # both arguments checked before anything is replaced: a refused __init__ again leaves the
        # decoder on its page, its kind and its state together
        cdef int kind = serial_kind(dtype, ops.allowed, ops.name.decode("ascii"))
        cdef const unsigned char[::1] buf = as_byte_view(data)
        self.kind = kind
        self.buf = buf
        self.pending = False
        if self.state == NULL:  # the first __init__; __init__ again reopens the state in place
            self.state = PyMem_Malloc(SERIAL_STATE_WORDS * 8)
            if self.state == NULL:
                raise MemoryError
        self.ops = ops
        ops.open(self.state, serial_ptr(self.buf), <size_t>self.buf.shape[0], self.kind, False)
        return 0

    def __dealloc__(self):
        PyMem_Free(self.state)

    cdef bint _advance(self) except -1:
        cdef int rc
        if self.pending:
            return True
        if self.ops == NULL:  # made by __new__ without __init__: no state to step
            raise TypeError(f"{type(self).__name__} was not initialised (call it with data, dtype)")
        rc = self.ops.next(self.state, self.kind, &self.value)
        if rc < 0:
            serial_raise(rc, self.ops.error_at(self.state), self.buf.shape[0],
                         f"{self.ops.name.decode('ascii')} {_NAMES[self.kind]}")
        self.pending = rc == 1
        return self.pending

    def has_next(self):
        return self._advance()

    def next(self):
        if not self._advance():
            raise StopIteration
        self.pending = False
        return serial_as_python(self.value, self.kind)

    def __iter__(self):
        return self

    def __next__(self):
        return self.next()


cdef class SerialEncoder:
    """Streaming encoder: ``encode(value)`` buffers a value, ``flush()`` returns the page bytes and
    starts a new page."""

    cdef int _bind(self, const serial_ops *ops, object dtype, object encode_page) except -1:
        cdef int kind = serial_kind(dtype, ops.allowed, ops.name.decode("ascii"))
        self._dtype = dtype
        # a codec of one kind (CAMEL) takes the values as that dtype; the others take the values'
        # own dtype, so that encode() range-checks them (EncodeError, not a numpy overflow)
        self._value_dtype = _DTYPES[kind] if ops.allowed == 1 << kind else None
        self._encode_page = encode_page
        self._values = []
        return 0

    def encode(self, value):
        self._values.append(value)

    def flush(self):
        data = self._encode_page(np.asarray(self._values, dtype=self._value_dtype), self._dtype)
        self._values = []
        return data


# ---- one serial codec from its serial_ops (the shared body of _serial_codec.pxi) ----------------

cdef serial_ops make_serial_ops(const char *name, const char *module, int encoding, int allowed,
                                int flags, size_t state_size, serial_open_fn open,
                                serial_next_fn next, serial_finish_fn finish,
                                serial_error_at_fn error_at, serial_batch_fn batch,
                                serial_size_fn size, serial_walk_fn take,
                                serial_bound_fn encode_bound, serial_encode_fn encode) except *:
    cdef serial_ops o
    if state_size > SERIAL_STATE_WORDS * 8:
        # the shared walks keep the state on the stack: a codec's state must fit
        raise ValueError(f"{name.decode()}: a {state_size}-byte decoder state exceeds "
                         f"{SERIAL_STATE_WORDS * 8} bytes (SERIAL_STATE_WORDS)")
    o.name = name
    o.module = module
    o.encoding = encoding
    o.allowed = allowed
    o.count_mode = COUNT_BOUND if flags & SERIAL_COUNT_BOUND else COUNT_EXACT
    o.end_marker = (flags & SERIAL_END_MARKER) != 0
    o.short_is_truncated = (flags & SERIAL_SHORT_IS_TRUNCATED) != 0
    o.state_size = state_size
    o.open = open
    o.next = next
    o.finish = finish
    o.error_at = error_at
    o.batch = batch
    o.size = size
    o.take = take
    o.encode_bound = encode_bound
    o.encode = encode
    o.per_value = NULL  # _serial_codec.pxi's loop
    return o


# The codec's state on the stack, aligned for any of its fields.
ctypedef uint64_t serial_state_t[SERIAL_STATE_WORDS]


cdef Py_ssize_t serial_size(const serial_ops *ops, const uint8_t *data, Py_ssize_t nbytes,
                            int sk) except -1 nogil:
    cdef size_t pos = 0
    cdef int64_t n
    if data == NULL:
        data = _EMPTY
        nbytes = 0
    n = ops.size(data, <size_t>nbytes, sk, &pos)
    if n < 0:
        serial_raise_nogil(<int>n, pos, nbytes, ops.name, sk)
    return <Py_ssize_t>n


cdef Py_ssize_t serial_decode(const serial_ops *ops, const uint8_t *data, Py_ssize_t nbytes,
                              void *out, Py_ssize_t cap, int sk, int path, bint exact,
                              Py_ssize_t *consumed) except -1 nogil:
    cdef size_t pos = 0
    cdef int64_t n
    cdef serial_state_t st
    if data == NULL:
        data = _EMPTY
        nbytes = 0
    if path == PATH_PER_VALUE:
        ops.open(st, data, <size_t>nbytes, sk, exact)
        n = ops.per_value(st, cap, sk, out, nbytes)
        pos = ops.finish(st, sk)
    else:
        n = ops.batch(data, <size_t>nbytes, sk, exact, out, cap, &pos)
        if n < 0:
            serial_raise_nogil(<int>n, pos, nbytes, ops.name, sk)
    if exact and ops.short_is_truncated and n < cap:
        serial_raise_nogil(-1, pos, nbytes, ops.name, sk)
    if consumed != NULL:
        consumed[0] = <Py_ssize_t>pos
    return <Py_ssize_t>n


cdef Py_ssize_t serial_skip(const serial_ops *ops, const uint8_t *src, Py_ssize_t n, Py_ssize_t k,
                            int sk) except -1 nogil:
    if ops.count_mode == COUNT_EXACT:
        # the page's count first (its headers walked and checked, as decode does before decoding)
        check_skip(serial_size(ops, src, n, sk), k, ops.name)
    check_skip(serial_decode(ops, src, n, NULL, k, sk, PATH_PER_VALUE, True, NULL), k, ops.name)
    return k


cdef Py_ssize_t serial_rows(const serial_ops *ops, const uint8_t *src, Py_ssize_t n, void *more,
                            Py_ssize_t start, Py_ssize_t stop, void *out, int sk) except -1 nogil:
    cdef serial_state_t st
    cdef int64_t r
    if stop <= start:
        return 0
    rows_readable(more, src, n, n, ops.name)
    ops.open(st, src if n > 0 else _EMPTY, <size_t>n, sk, True)
    r = ops.take(st, sk, start, NULL)
    if r == start:
        r = ops.take(st, sk, stop - start, out)
        if r == stop - start:
            return <Py_ssize_t>r
    serial_raise_nogil(<int>r if r < 0 else -1, ops.error_at(st), n, ops.name, sk)
    return -1


cdef bytes serial_encode(const serial_ops *ops, object values, object dtype):
    arr, kind = serial_values(values, dtype, ops.allowed, ops.name.decode("ascii"))
    cdef int sk = kind
    cdef size_t n = arr.shape[0]
    out = np.empty(ops.encode_bound(n, sk), dtype=np.uint8)
    cdef const void *src = cnp.PyArray_DATA(<cnp.ndarray>arr)
    cdef uint8_t *dst = <uint8_t *>cnp.PyArray_DATA(<cnp.ndarray>out)
    cdef ptrdiff_t size
    with nogil:
        size = ops.encode(src, n, sk, dst)
    if size < 0:
        raise MemoryError
    return out[:size].tobytes()
