# The body every serial bit-stream codec module shares (CHIMP, SPRINTZ, RLBE, CAMEL), included at
# the top of the module. The module describes its kernels in `cdef serial_ops _kernels() except *`
# (_serial.make_serial_ops over its adapters); this gives it the cimports they need, HAS_SIMD,
# decode_into() and the codec object `_CODEC` its decode() calls, and its contract rows
# (CODEC_ROWS, one per kind the codec holds), all running the shared code of _serial.pyx. The
# functions here only bind _OPS: the contract's row functions take no context pointer.
from libc.stddef cimport ptrdiff_t
from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t

from tsfile.codecs._contract cimport (
    ROW_BATCH,
    ROW_PER_VALUE,
    check_decoded,
    codec_row,
    codec_table,
    count_fn,
    make_row,
    publish_rows,
    with_rows,
)
from tsfile.codecs._serial cimport (
    COUNT_EXACT,
    SERIAL_COUNT_BOUND,
    SERIAL_END_MARKER,
    SERIAL_SHORT_IS_TRUNCATED,
    SK_F32,
    SK_F64,
    SK_I32,
    SK_I64,
    SerialCodec,
    SerialDecoder,
    SerialEncoder,
    make_serial_ops,
    serial_codec,
    serial_decode,
    serial_encode,
    serial_ops,
    serial_raise_nogil,
    serial_rows,
    serial_size,
    serial_skip,
    serial_wide,
    sk_of_kind,
)

# a serial bit stream: every value's position depends on the ones before it, so no SIMD path
# ("simd" raises SimdUnavailableError)
HAS_SIMD = False

cdef serial_ops _OPS = _kernels()


# The per-value path's loop: here, not in _serial.pyx, so that the codec's step (_next, inlined)
# is the one out-of-line call a value the path promises, not a second call through _OPS.next.
cdef int64_t _per_value(void *st, int64_t cap, int sk, void *out, Py_ssize_t nbytes) except -1 nogil:
    cdef int64_t n = 0
    cdef int rc
    cdef uint64_t v
    cdef bint wide = serial_wide(sk)
    while n < cap:
        rc = _next(st, sk, &v)
        if rc != 1:
            if rc < 0:
                serial_raise_nogil(rc, _error_at(st), nbytes, _OPS.name, sk)
            break
        if out == NULL:  # a skip: walked, nothing stored
            pass
        elif wide:
            (<uint64_t *>out)[n] = v
        else:
            (<uint32_t *>out)[n] = <uint32_t>v
        n += 1
    return n


_OPS.per_value = _per_value


cdef Py_ssize_t _page_size(const uint8_t *data, Py_ssize_t nbytes, int sk) except -1 nogil:
    return serial_size(&_OPS, data, nbytes, sk)


# count=None: stop at the end of the page (CHIMP: at its end marker)
cdef Py_ssize_t _decode_all(const uint8_t *data, Py_ssize_t nbytes, void *out, Py_ssize_t cap,
                            int sk, int path, Py_ssize_t *consumed) except -1 nogil:
    return serial_decode(&_OPS, data, nbytes, out, cap, sk, path, False, consumed)


# exactly `cap` values wanted (CHIMP: end-marker words are values)
cdef Py_ssize_t _decode_exact(const uint8_t *data, Py_ssize_t nbytes, void *out, Py_ssize_t cap,
                              int sk, int path, Py_ssize_t *consumed) except -1 nogil:
    return serial_decode(&_OPS, data, nbytes, out, cap, sk, path, True, consumed)


cdef SerialCodec _CODEC = serial_codec(
    _OPS.name.decode("ascii"), None, None, _OPS.allowed, False, _OPS.count_mode, _OPS.end_marker,
    _page_size, _decode_all, _decode_exact
)


# ---- the codec contract (tsfile/codecs/_contract.pxd) -------------------------------------------

cdef Py_ssize_t _row_count(const uint8_t *src, Py_ssize_t n, int kind) except -2 nogil:
    return serial_size(&_OPS, src, n, sk_of_kind(kind))


cdef Py_ssize_t _row_decode(const uint8_t *src, Py_ssize_t n, void *out, Py_ssize_t count,
                            int kind, int path) except -1 nogil:
    check_decoded(serial_decode(&_OPS, src, n, out, count, sk_of_kind(kind), path, True, NULL),
                  count, _OPS.name)
    return 0


cdef Py_ssize_t _row_skip(const uint8_t *src, Py_ssize_t n, Py_ssize_t k,
                          int kind) except -1 nogil:
    return serial_skip(&_OPS, src, n, k, sk_of_kind(kind))


cdef Py_ssize_t _row_rows(const uint8_t *src, Py_ssize_t n, void *more, Py_ssize_t start,
                          Py_ssize_t stop, void *out, int kind, int path) except -1 nogil:
    return serial_rows(&_OPS, src, n, more, start, stop, out, sk_of_kind(kind))


cdef codec_row _ROWS[4]
cdef codec_table _TABLE
cdef Py_ssize_t _n_rows = 0
# a page that stores no count (COUNT_BOUND) has no count operation: the engine decodes it whole
cdef count_fn _rows_count = _row_count if _OPS.count_mode == COUNT_EXACT else <count_fn>NULL
for _sk in range(4):
    if (_OPS.allowed >> _sk) & 1:
        # one row a word kind the codec holds (KIND_* = SK_* + 1)
        _ROWS[_n_rows] = with_rows(
            make_row(_OPS.encoding, _sk + 1, _OPS.module, _OPS.name, ROW_PER_VALUE | ROW_BATCH,
                     _rows_count, _row_decode, NULL, _row_skip, NULL, NULL),
            _row_rows)
        _n_rows += 1
CODEC_ROWS = publish_rows(&_TABLE, _ROWS, _n_rows)


def decode_into(data, out, path="auto"):
    """Decode exactly ``len(out)`` values into ``out``; return the bytes consumed.

    The type follows ``out``'s dtype (one the codec holds, see :func:`decode`): int32 (INT32/DATE),
    int64 (INT64/TIMESTAMP), float32 (FLOAT), float64 (DOUBLE).
    """
    return _CODEC.decode_into(data, out, path)
