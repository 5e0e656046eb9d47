# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""ALP (Adaptive Lossless floating-Point) pages: TsFile encoding 15 for FLOAT and DOUBLE.

Page layout: ``docs/alp-format.md`` (16-byte page header; blocks of up to 1024 values with a
28-byte header; LSB-first exception bitmap, raw exceptions, LSB-first packed frame-of-reference
integers padded with 16 guard bytes to a multiple of 32; PLAIN blocks where ALP does not pay).
Lossless for every bit pattern: a value is kept as an integer only when the decoder's own
arithmetic gives it back bit for bit, otherwise it is stored raw.

Decode paths: ``per_value`` (a streaming decoder, one value per C call), ``batch`` (fused scalar
block kernel), ``simd`` (AVX2 / NEON block kernel), ``auto``. The encoder's value loop also has a
scalar and a SIMD version; every path gives identical bytes and identical values.

This is an extension of the TsFile format: the official TsFile 2.5 packages cannot read ALP pages.

Choices of this project where the draft layout is silent (pinned by tests/test_alp.py):

* Writer: full blocks of 1024 values, the last one partial; reserved bytes 0. PLAIN blocks carry
  factor = exponent = flags = 0, exception_count 0, for_base 0, bit_width 0 and body_bytes =
  value_count * value size (the draft requires that size); readers use scheme, value_count and
  body_bytes there (any other body_bytes is rejected) and ignore the rest.
* A value is kept as an integer only if ``|v * 10^e * 10^-f| <= 2^49`` (DOUBLE) / ``2^30``
  (FLOAT) and the decoder's arithmetic returns it bit for bit; rounding is half-even. Exception
  slots pack as the base (0 after the frame of reference). A width-0 block has no body
  (body_bytes 0), as the draft decoder requires; readers also accept the padded width-0 body
  (32 bytes) this encoder wrote before.
* (e, f): all pairs scored on 32 values spread over the page, the best 5 kept; per block the
  5 are scored on 32 of its values (stopping after two that do no better); a block is PLAIN when
  ALP would not be smaller.
* Readers reject: version != 1, a data type other than the requested one, counts that the bytes
  present cannot hold, block value counts outside 1..1024 or not adding up to the page's count,
  f > e or e > 18 (DOUBLE) / 10 (FLOAT), widths > 64 / 32, exception counts without flag bit 0,
  a bitmap whose population differs from exception_count or has bits past value_count, body_bytes
  smaller than the packed bits (a PLAIN block: other than the raw values' size), a FLOAT base
  outside int32. Reserved fields are not checked, and decode_into() reports the bytes used, so a
  caller can tell bytes after the last block (the draft rejects both; this encoder writes
  neither). Blocks whose integers leave
  (-2^51, 2^51) (not produced here) are decoded by the scalar kernel on every path.
"""
import numpy as np

cimport numpy as cnp
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t

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
from tsfile.codecs._impl_table cimport ImplTable, impl_table, tsfile_impl_head
from tsfile.errors import CorruptDataError

cnp.import_array()

cdef extern from "alp_scalar.h":
    int ALP_OK, ALP_E_FEWER, ALP_E_TOTAL
    int ALP_BLOCK, ALP_PAGE_HEADER, ALP_BLOCK_HEADER
    ctypedef struct alp_err_t:
        int code
        size_t offset
    ctypedef void (*alp_decode_f64_fn)(const uint8_t*, size_t, int, int64_t, double, double,
                                       double*) noexcept nogil
    ctypedef void (*alp_decode_f32_fn)(const uint8_t*, size_t, int, int32_t, float, float,
                                       float*) noexcept nogil
    ctypedef size_t (*alp_analyze_f64_fn)(const double*, size_t, double, double, double, double,
                                          int64_t*, uint8_t*, int64_t*, int64_t*) noexcept nogil
    ctypedef size_t (*alp_analyze_f32_fn)(const float*, size_t, float, float, float, float,
                                          int32_t*, uint8_t*, int32_t*, int32_t*) noexcept nogil
    ctypedef struct alp_block_t:
        int scheme, factor, exponent, width
        uint32_t count, exc_count, body_bytes
        int64_t base
        size_t size
    ctypedef struct alp_stream_t:
        size_t off
        uint32_t vc
    const char *alp_error_text(int code) nogil
    int alp_parse_page_header(const uint8_t *d, size_t nbytes, int is64, uint32_t *vc,
                              uint32_t *bc, alp_err_t *err) nogil
    int alp_parse_block(const uint8_t *p, size_t avail, int is64, alp_block_t *b) nogil
    ptrdiff_t alp_decode_page_f64(const uint8_t *d, size_t nbytes, double *out, size_t count,
                                  alp_decode_f64_fn kernel, alp_err_t *err) nogil
    ptrdiff_t alp_decode_page_f32(const uint8_t *d, size_t nbytes, float *out, size_t count,
                                  alp_decode_f32_fn kernel, alp_err_t *err) nogil
    int alp_stream_init(alp_stream_t *s, const uint8_t *d, size_t nbytes, int is64,
                        alp_err_t *err) nogil
    int alp_stream_ready(alp_stream_t *s, alp_err_t *err) nogil
    int alp_stream_next_f64(alp_stream_t *s, double *out, alp_err_t *err) nogil
    int alp_stream_next_f32(alp_stream_t *s, float *out, alp_err_t *err) nogil
    size_t alp_encode_bound(size_t n, int is64) nogil
    size_t alp_encode_page_f64(const double *v, size_t n, uint8_t *out, size_t cap,
                               alp_analyze_f64_fn an) nogil
    size_t alp_encode_page_f32(const float *v, size_t n, uint8_t *out, size_t cap,
                               alp_analyze_f32_fn an) nogil
    size_t alp_analyze_f64_scalar(const double*, size_t, double, double, double, double,
                                  int64_t*, uint8_t*, int64_t*, int64_t*) nogil
    size_t alp_analyze_f32_scalar(const float*, size_t, float, float, float, float,
                                  int32_t*, uint8_t*, int32_t*, int32_t*) nogil

cdef extern from "alp_skip.h" nogil:
    int ALP_E_STREAM
    # `more`: a tsfile_prefix * (include/page_prefix.h) or NULL
    int alp_decode_rows_f64(const uint8_t *d, size_t nbytes, void *more, size_t start,
                            size_t stop, alp_decode_f64_fn kernel, double *out, alp_err_t *err)
    int alp_decode_rows_f32(const uint8_t *d, size_t nbytes, void *more, size_t start,
                            size_t stop, alp_decode_f32_fn kernel, float *out, alp_err_t *err)

# ---- SIMD dispatch: the implementation table (include/alp_impls.h, idiom of tsfile_isa.h) -------
cdef extern from "alp_impls.h" nogil:
    ctypedef struct alp_impl:
        tsfile_impl_head head
        alp_decode_f64_fn decode_f64
        alp_decode_f32_fn decode_f32
        alp_analyze_f64_fn analyze_f64
        alp_analyze_f32_fn analyze_f32
    const alp_impl* alp_impls
    size_t ALP_N_IMPLS
    size_t alp_pick_impl(int level, unsigned features)

# The row each ISA level runs (tsfile/codecs/_impl_table.pyx), chosen once at import; the module's
# implementations() and active_implementation() are the table's.
cdef ImplTable _impls = impl_table(
    "alp", alp_impls, sizeof(alp_impl), ALP_N_IMPLS, alp_pick_impl)
HAS_SIMD = _impls.publish(globals())


# the row path="simd" runs now (the scalar row when the level is scalar)
cdef inline const alp_impl *_active_impl() noexcept nogil:
    return <const alp_impl *>_impls.row()


BLOCK_SIZE = 1024
ENCODING_CODE = 15  # TSEncoding.ALP


cdef int _raise_corrupt(const alp_err_t *err) except -1 with gil:
    raise CorruptDataError(
        f"ALP: {alp_error_text(err.code).decode()} (byte offset {err.offset})")


cdef int _is64_of(object dtype) except -1:
    from tsfile.types import TSDataType
    if isinstance(dtype, TSDataType):
        dtype = dtype.numpy_dtype
    try:
        dt = np.dtype(dtype).newbyteorder("=")
    except TypeError:
        raise TypeError(f"dtype must be float32 or float64, not {dtype!r}") from None
    if dt == np.float64:
        return 1
    if dt == np.float32:
        return 0
    raise TypeError(f"ALP stores float32 or float64, not {dt}")


# ---------------------------------------------------------------- C-level entry points

cdef Py_ssize_t alp_page_value_count(const uint8_t* data, Py_ssize_t nbytes,
                                     bint is64) except -1 nogil:
    cdef uint32_t vc, bc
    cdef alp_err_t err
    if alp_parse_page_header(data, <size_t>nbytes, is64, &vc, &bc, &err) != ALP_OK:
        _raise_corrupt(&err)
    return vc


cdef Py_ssize_t _stream_consumed(alp_stream_t *s, Py_ssize_t count) except -1 nogil:
    """Bytes used by a stream after `count` values: through the last block opened; at the page's
    value count, also check that no block is left over (as the batch driver does)."""
    cdef alp_err_t err
    if <size_t>count == s.vc and alp_stream_ready(s, &err) < 0:
        _raise_corrupt(&err)
    return <Py_ssize_t>s.off


ctypedef fused _real:
    float
    double


# One body for FLOAT and DOUBLE; the fused type is resolved at compile time (two C functions, the
# same code as hand-written twins).
cdef Py_ssize_t _decode_into(const uint8_t* data, Py_ssize_t nbytes, _real* out,
                             Py_ssize_t count, int path) except -1 nogil:
    cdef alp_err_t err
    cdef alp_stream_t s
    cdef Py_ssize_t k = 0
    cdef ptrdiff_t r
    if count <= 0:
        return 0
    if path == PATH_PER_VALUE:
        if alp_stream_init(&s, data, <size_t>nbytes, sizeof(_real) == 8, &err) != ALP_OK:
            _raise_corrupt(&err)
        while k < count:
            if _real is double:
                r = alp_stream_next_f64(&s, out + k, &err)
            else:
                r = alp_stream_next_f32(&s, out + k, &err)
            if r == 0:
                err.code = ALP_E_FEWER
                err.offset = 4
            if r != 1:
                _raise_corrupt(&err)
            k += 1
        return _stream_consumed(&s, count)
    elif _real is double:
        r = alp_decode_page_f64(data, <size_t>nbytes, out, <size_t>count,
                                _active_impl().decode_f64 if path == PATH_SIMD else NULL,
                                &err)
    else:
        r = alp_decode_page_f32(data, <size_t>nbytes, out, <size_t>count,
                                _active_impl().decode_f32 if path == PATH_SIMD else NULL,
                                &err)
    if r < 0:
        _raise_corrupt(&err)
    return r


cdef Py_ssize_t alp_decode_into_f64(const uint8_t* data, Py_ssize_t nbytes, double* out,
                                    Py_ssize_t count, int path) except -1 nogil:
    return _decode_into(data, nbytes, out, count, path)


cdef Py_ssize_t alp_decode_into_f32(const uint8_t* data, Py_ssize_t nbytes, float* out,
                                    Py_ssize_t count, int path) except -1 nogil:
    return _decode_into(data, nbytes, out, count, path)


# The most values one ALP page holds (its header's 32-bit count).
cdef Py_ssize_t _MAX_PAGE_VALUES = 0xFFFFFFFF


cdef Py_ssize_t alp_encode_capacity(Py_ssize_t count, bint is64) noexcept nogil:
    return <Py_ssize_t>alp_encode_bound(<size_t>count, is64)


cdef Py_ssize_t alp_encode_into_f64(const double* values, Py_ssize_t count, uint8_t* out,
                                    Py_ssize_t cap, int path) except -1 nogil:
    cdef alp_analyze_f64_fn an = alp_analyze_f64_scalar
    if path == PATH_SIMD:
        an = _active_impl().analyze_f64
    cdef size_t n = alp_encode_page_f64(values, <size_t>count, out, <size_t>cap, an)
    if n == 0:
        with gil:
            raise ValueError("ALP: output buffer too small or page too large")
    return <Py_ssize_t>n


cdef Py_ssize_t alp_encode_into_f32(const float* values, Py_ssize_t count, uint8_t* out,
                                    Py_ssize_t cap, int path) except -1 nogil:
    cdef alp_analyze_f32_fn an = alp_analyze_f32_scalar
    if path == PATH_SIMD:
        an = _active_impl().analyze_f32
    cdef size_t n = alp_encode_page_f32(values, <size_t>count, out, <size_t>cap, an)
    if n == 0:
        with gil:
            raise ValueError("ALP: output buffer too small or page too large")
    return <Py_ssize_t>n


# ---------------------------------------------------------------- Python API

def encode(values, dtype=None, path="auto"):
    """Encode one page of float32 or float64 values -> the page bytes.

    ``values``: a 1-D float32/float64 array (or a sequence, with ``dtype``). ``path``: "simd"
    runs the SIMD value loop, "batch"/"per_value" the scalar one ("auto": SIMD when active);
    the bytes are identical.
    """
    if dtype is not None:
        is64 = _is64_of(dtype)
        arr = np.ascontiguousarray(values, dtype=np.float64 if is64 else np.float32)
    else:
        arr = values if isinstance(values, np.ndarray) else np.asarray(values, dtype=np.float64)
        is64 = _is64_of(arr.dtype)
        arr = np.ascontiguousarray(arr, dtype=np.float64 if is64 else np.float32)
    if arr.ndim != 1:
        raise ValueError(f"values must be 1-D, got shape {arr.shape}")
    cdef int p = resolve_path(path, HAS_SIMD, "ALP")
    cdef Py_ssize_t n = arr.shape[0]
    if n > _MAX_PAGE_VALUES:
        raise ValueError("ALP: a page holds at most 2^32 - 1 values")
    cdef Py_ssize_t cap = alp_encode_capacity(n, is64)
    cdef cnp.ndarray buf = np.empty(cap, dtype=np.uint8)
    cdef cnp.ndarray a = arr
    cdef void* vp = cnp.PyArray_DATA(a)
    cdef uint8_t* op = <uint8_t*>cnp.PyArray_DATA(buf)
    cdef Py_ssize_t size
    with nogil:
        if is64:
            size = alp_encode_into_f64(<const double*>vp, n, op, cap, p)
        else:
            size = alp_encode_into_f32(<const float*>vp, n, op, cap, p)
    return buf[:size].tobytes()


cdef int _page_is64(const unsigned char[::1] buf) except -1:
    if buf.shape[0] < 2:
        raise CorruptDataError("ALP: page shorter than its 16-byte header (byte offset 0)")
    if buf[1] > 1:
        raise CorruptDataError(f"ALP: unknown page data type {buf[1]} (byte offset 1)")
    return buf[1]


def decode(data, dtype=None, count=None, path="auto"):
    """Decode an ALP page -> a 1-D float32/float64 array.

    ``dtype`` None takes the page's own type; otherwise it must match (CorruptDataError if not).
    ``count=None`` decodes the whole page, else the first ``count`` values.
    """
    cdef const unsigned char[::1] buf = as_byte_view(data)
    cdef int is64 = _is64_of(dtype) if dtype is not None else _page_is64(buf)
    cdef Py_ssize_t n = check_count(count)
    cdef int p = resolve_path(path, HAS_SIMD, "ALP")
    cdef Py_ssize_t nbytes = buf.shape[0]
    cdef const uint8_t* ptr = &buf[0] if nbytes > 0 else <const uint8_t*>b""
    cdef Py_ssize_t total = alp_page_value_count(ptr, nbytes, is64)
    if n < 0:
        n = total
    elif n > total:
        raise CorruptDataError(f"ALP: page holds {total} values, {n} requested (byte offset 4)")
    cdef cnp.ndarray out = np.empty(n, dtype=np.float64 if is64 else np.float32)
    cdef void* op = cnp.PyArray_DATA(out)
    with nogil:
        if is64:
            alp_decode_into_f64(ptr, nbytes, <double*>op, n, p)
        else:
            alp_decode_into_f32(ptr, nbytes, <float*>op, n, p)
    return out


def decode_into(data, out, path="auto"):
    """Decode the first ``len(out)`` values into ``out`` (1-D contiguous float32/float64, the
    page's type); returns the bytes consumed."""
    check_out_array(out)  # the shared layout check (_kinds): TypeError / ValueError
    cdef int typenum = cnp.PyArray_TYPE(<cnp.ndarray>out)
    cdef int is64 = (1 if typenum == cnp.NPY_DOUBLE else 0 if typenum == cnp.NPY_FLOAT
                     else _is64_of(out.dtype))  # raises the TypeError
    cdef const uint8_t* ptr
    cdef Py_ssize_t nbytes
    cdef object owner = byte_span(data, &ptr, &nbytes)  # holds the bytes during the decode
    cdef int p = resolve_path(path, HAS_SIMD, "ALP")
    cdef Py_ssize_t n = cnp.PyArray_DIM(<cnp.ndarray>out, 0)
    cdef void* op = cnp.PyArray_DATA(out)
    cdef Py_ssize_t used
    with nogil:
        if is64:
            used = alp_decode_into_f64(ptr, nbytes, <double*>op, n, p)
        else:
            used = alp_decode_into_f32(ptr, nbytes, <float*>op, n, p)
    return used


def page_info(data):
    """The page header and every block header, as dicts (validated like the decoder does)."""
    cdef const unsigned char[::1] buf = as_byte_view(data)
    cdef int is64 = _page_is64(buf)
    cdef Py_ssize_t nbytes = buf.shape[0]
    cdef const uint8_t* ptr = &buf[0]
    cdef uint32_t vc, bc
    cdef alp_err_t err
    cdef alp_block_t b
    cdef size_t off = 16
    cdef int rc
    if alp_parse_page_header(ptr, nbytes, is64, &vc, &bc, &err) != ALP_OK:
        _raise_corrupt(&err)
    blocks = []
    for _ in range(bc):
        rc = alp_parse_block(ptr + off, nbytes - off, is64, &b)
        if rc != ALP_OK:
            err.code = rc
            err.offset = off
            _raise_corrupt(&err)
        blocks.append({
            "offset": off, "scheme": "PLAIN" if b.scheme == 1 else "ALP",
            "exponent": b.exponent, "factor": b.factor, "count": b.count,
            "exceptions": b.exc_count, "body_bytes": b.body_bytes, "base": b.base,
            "bit_width": b.width, "size": b.size,
        })
        off += b.size
    return {"dtype": "float64" if is64 else "float32", "value_count": vc, "block_count": bc,
            "size": off, "blocks": blocks}


cdef class ALPEncoder:
    """Streaming ALP encoder: ``encode(value)`` buffers one value, ``flush()`` encodes the page
    (ALP needs the whole block to choose its exponents) and resets the encoder."""
    cdef object _dtype
    cdef list _values

    def __init__(self, dtype):
        self._dtype = np.float64 if _is64_of(dtype) else np.float32
        self._values = []

    def encode(self, value):
        self._values.append(float(value))

    def flush(self):
        arr = np.array(self._values, dtype=self._dtype)
        self._values = []
        return encode(arr)


cdef class ALPDecoder:
    """Streaming ALP decoder over one page (one value per C call): ``has_next()`` / ``next()``."""
    cdef alp_stream_t _s
    cdef const unsigned char[::1] _view
    cdef int _is64
    cdef bint _have
    cdef double _next64
    cdef float _next32

    def __init__(self, data, dtype=None):
        cdef alp_err_t err
        self._view = as_byte_view(data)
        self._is64 = _is64_of(dtype) if dtype is not None else _page_is64(self._view)
        cdef Py_ssize_t n = self._view.shape[0]
        if alp_stream_init(&self._s, &self._view[0] if n > 0 else <const uint8_t*>b"",
                           <size_t>n, self._is64, &err) != ALP_OK:
            _raise_corrupt(&err)
        self._advance()

    cdef _advance(self):
        cdef alp_err_t err
        cdef int r
        if self._is64:
            r = alp_stream_next_f64(&self._s, &self._next64, &err)
        else:
            r = alp_stream_next_f32(&self._s, &self._next32, &err)
        if r < 0:
            _raise_corrupt(&err)
        self._have = r == 1

    def has_next(self):
        return bool(self._have)

    def next(self):
        if not self._have:
            raise StopIteration
        v = self._next64 if self._is64 else float(np.float32(self._next32))
        self._advance()
        return v

    def __iter__(self):
        return self

    def __next__(self):
        return self.next()


# ---------------------------------------------------------------- ALP or GORILLA per page

def _gorilla_storable(arr):
    u = arr.view(np.uint64 if arr.dtype == np.float64 else np.uint32)
    marker = 0x7FF8000000000000 if arr.dtype == np.float64 else 0x7FC00000
    return not bool(np.any(u == marker))


def estimate_sizes(values, sample=2048):
    """Estimated page sizes in bytes: ``{"ALP": a, "GORILLA": g}`` (g is None when GORILLA cannot
    store the page: a canonical NaN is its end marker).

    Pages up to ``sample`` values are encoded whole (exact sizes); larger pages are estimated from
    two contiguous runs of ``sample // 2`` values (start and middle) scaled to the page length.
    """
    from tsfile.codecs import gorilla

    arr = np.asarray(values)
    if arr.dtype not in (np.float32, np.float64):
        raise TypeError(f"ALP stores float32 or float64, not {arr.dtype}")
    arr = np.ascontiguousarray(arr)
    n = len(arr)
    storable = _gorilla_storable(arr)
    if n <= sample:
        runs = [arr]
    else:
        half = max(1, sample // 2)
        mid = (n - half) // 2
        runs = [arr[:half], arr[mid : mid + half]]
    sampled = sum(len(r) for r in runs)
    scale = n / sampled if sampled else 1.0
    # page headers are paid once, blocks and values scale with the page
    alp = sum(len(encode(r)) - 16 for r in runs) * scale + 16
    gor = None
    if storable:
        gor = sum(len(gorilla.encode(r)) for r in runs) * scale
    return {"ALP": int(round(alp)), "GORILLA": None if gor is None else int(round(gor))}


def choose_encoding(values, sample=2048):
    """``TSEncoding.ALP`` or ``TSEncoding.GORILLA``: whichever is estimated smaller for this page
    (ALP when GORILLA cannot store it; GORILLA on a tie, the format's default)."""
    from tsfile.types import TSEncoding

    sizes = estimate_sizes(values, sample)
    if sizes["GORILLA"] is not None and sizes["GORILLA"] <= sizes["ALP"]:
        return TSEncoding.GORILLA
    return TSEncoding.ALP


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

from tsfile.codecs._kinds cimport KIND_F32, KIND_F64


cdef Py_ssize_t _row_count(const uint8_t *src, Py_ssize_t n, int kind) except -2 nogil:
    return alp_page_value_count(src, n, kind == KIND_F64)


cdef Py_ssize_t _row_skip(const uint8_t *src, Py_ssize_t n, Py_ssize_t k,
                          int kind) except -1 nogil:
    # By block counts: each block header is parsed and checked as the page decoder checks it (and
    # every block when k is the page's count), nothing is unpacked.
    cdef bint is64 = kind == KIND_F64
    cdef uint32_t vc, bc, blk = 0
    cdef alp_err_t err
    cdef alp_block_t b
    cdef size_t off = ALP_PAGE_HEADER
    cdef Py_ssize_t done = 0
    cdef int rc
    if alp_parse_page_header(src, <size_t>n, is64, &vc, &bc, &err) != ALP_OK:
        _raise_corrupt(&err)
    if k > <Py_ssize_t>vc:
        err.code = ALP_E_FEWER
        err.offset = 4
        _raise_corrupt(&err)
    while done < k or (k == <Py_ssize_t>vc and blk < bc):
        err.offset = off
        err.code = ALP_E_TOTAL
        if blk >= bc:
            _raise_corrupt(&err)
        rc = alp_parse_block(src + off, <size_t>n - off, is64, &b)
        if rc:
            err.code = rc
            _raise_corrupt(&err)
        if b.count > vc - <uint32_t>done:
            _raise_corrupt(&err)
        done += b.count
        off += b.size
        blk += 1
    return k


cdef Py_ssize_t _row_decode(const uint8_t *src, Py_ssize_t n, void *out, Py_ssize_t count,
                            int kind, int path) except -1 nogil:
    if kind == KIND_F64:
        return _decode_into(src, n, <double *>out, count, path)
    return _decode_into(src, n, <float *>out, count, path)


cdef Py_ssize_t _row_rows(const uint8_t *src, Py_ssize_t n, void *more, Py_ssize_t start,
                          Py_ssize_t stop, void *out, int kind, int path) except -1 nogil:
    # Blocks before `start` passed by their headers, the blocks overlapping the range decoded on
    # the path's block kernel (SIMD on "simd", scalar otherwise), nothing after value stop-1
    # read (include/alp_skip.h).
    cdef alp_err_t err
    cdef int rc
    cdef bint simd = path == PATH_SIMD
    if kind == KIND_F64:
        rc = alp_decode_rows_f64(src, <size_t>n, more, <size_t>start, <size_t>stop,
                                 _active_impl().decode_f64 if simd else NULL, <double *>out, &err)
    else:
        rc = alp_decode_rows_f32(src, <size_t>n, more, <size_t>start, <size_t>stop,
                                 _active_impl().decode_f32 if simd else NULL, <float *>out, &err)
    if rc == ALP_E_STREAM:
        raise_body_error(more, b"ALP")
    if rc != ALP_OK:
        _raise_corrupt(&err)
    return stop - start


cdef Py_ssize_t _row_bound(Py_ssize_t count, int kind) noexcept nogil:
    return alp_encode_capacity(count, kind == KIND_F64)


cdef Py_ssize_t _row_encode(const void *values, Py_ssize_t count, int kind, uint8_t *dst,
                            Py_ssize_t cap) except -1 nogil:
    if kind == KIND_F64:
        return alp_encode_into_f64(<const double *>values, count, dst, cap, PATH_SIMD)
    return alp_encode_into_f32(<const float *>values, count, dst, cap, PATH_SIMD)


cdef codec_row _ROWS[2]
cdef codec_table _TABLE
for _i, _kind in enumerate((KIND_F32, KIND_F64)):
    _ROWS[_i] = with_page_limit(with_rows(
        make_row(15, _kind, b"alp", b"ALP",
                 ROW_PER_VALUE | ROW_BATCH | (ROW_SIMD if HAS_SIMD else 0),
                 _row_count, _row_decode, NULL, _row_skip, _row_bound, _row_encode),
        _row_rows), _MAX_PAGE_VALUES)
CODEC_ROWS = publish_rows(&_TABLE, _ROWS, 2)
