# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""FLOAT/DOUBLE TS_2DIFF: the lossy fixed-point form of TS_2DIFF (format notes 8.3).

A page is a prefix, then INT32 (FLOAT) or INT64 (DOUBLE) TS_2DIFF blocks of scaled integers:

* form 1: ``uvarint p`` — every value is ``x / 10**p``;
* form 2: ``uvarint 0x7FFFFFFF, uvarint n, scaled bitmap[n // 8 + 1], uvarint p`` — value i is
  ``x / 10**p`` when its scaled bit is set, else ``x`` (the value was only rounded);
* form 3: ``uvarint 0x7FFFFFFE, uvarint n, scaled bitmap, raw bitmap (same size), uvarint p`` —
  additionally, a set raw bit means ``x`` holds the value's IEEE bits (NaN, huge magnitudes).

Bitmaps are LSB-first. Division is in double precision, then rounded to float32 for FLOAT (as the
official decoders do). The integer blocks are decoded by :mod:`tsfile.codecs.ts2diff` on the
requested path; the scaling is one scalar pass over the output.
"""
import numpy as np

from libc.math cimport pow
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t

from tsfile.codecs._common cimport as_byte_view
from tsfile.codecs._serial cimport (
    COUNT_EXACT,
    SK_F32,
    SK_F64,
    SerialCodec,
    serial_codec,
    serial_kind,
    serial_kind_name,
)
from tsfile.codecs.ts2diff cimport (
    ts2diff_count_values,
    ts2diff_decode_into_i32,
    ts2diff_decode_into_i64,
)

from tsfile.codecs import ts2diff as _ts2diff
from tsfile.errors import CorruptDataError, EncodeError

# The integer blocks are the only vectorisable part; the scaling pass is scalar.
HAS_SIMD = bool(_ts2diff.HAS_SIMD)
DEFAULT_MAX_POINT_NUMBER = 2

cdef enum:
    _ALLOWED = (1 << SK_F32) | (1 << SK_F64)
    _MARK_SCALED = 0x7FFFFFFF  # form 2: scaled bitmap only
    _MARK_RAW = 0x7FFFFFFE     # form 3: scaled and raw bitmaps

# the base encoding's name in this module's error messages
cdef const char *_NAME = b"TS_2DIFF"


cdef int float_prefix_raise(int what, Py_ssize_t a, Py_ssize_t b, Py_ssize_t at, Py_ssize_t n,
                            int kind, const char *base) except -1 with gil:
    if what == FLOAT_PREFIX_E_TRUNC:
        msg = "prefix truncated"
    elif what == FLOAT_PREFIX_E_VARINT:
        msg = "malformed varint in the prefix"
    elif what == FLOAT_PREFIX_E_BITMAPS:
        msg = f"bitmaps of {a} values truncated"
    else:
        msg = f"the bitmaps describe {a} values but the blocks hold {b}"
    raise CorruptDataError(
        f"{base.decode()} {serial_kind_name(kind)}: {msg} at byte offset {at} (of {n})"
    )


cdef int float_prefix_uvarint(const uint8_t *p, Py_ssize_t n, Py_ssize_t *pos, uint32_t *out,
                              int kind, const char *base) except -1 nogil:
    cdef uint32_t v = 0
    cdef Py_ssize_t at = pos[0]
    cdef int i
    cdef uint8_t b
    for i in range(5):
        if pos[0] >= n:
            float_prefix_raise(FLOAT_PREFIX_E_TRUNC, 0, 0, at, n, kind, base)
        b = p[pos[0]]
        pos[0] += 1
        v |= <uint32_t>(b & 0x7F) << (7 * i)
        if not (b & 0x80):
            out[0] = v
            return 0
    float_prefix_raise(FLOAT_PREFIX_E_VARINT, 0, 0, at, n, kind, base)
    return -1


cdef int float_prefix_parse(const uint8_t *p, Py_ssize_t n, float_prefix *h, int kind,
                            const char *base) except -1 nogil:
    cdef Py_ssize_t pos = 0
    cdef uint32_t tag, pnum
    cdef Py_ssize_t bm
    float_prefix_uvarint(p, n, &pos, &tag, kind, base)
    h.form = 1
    h.n = 0
    h.scaled_at = h.raw_at = 0
    if tag == _MARK_SCALED or tag == _MARK_RAW:
        h.form = 2 if tag == _MARK_SCALED else 3
        float_prefix_uvarint(p, n, &pos, &h.n, kind, base)
        bm = h.n // 8 + 1
        if bm * (2 if h.form == 3 else 1) > n - pos:
            float_prefix_raise(FLOAT_PREFIX_E_BITMAPS, h.n, 0, pos, n, kind, base)
        h.scaled_at = pos
        pos += bm
        if h.form == 3:
            h.raw_at = pos
            pos += bm
        float_prefix_uvarint(p, n, &pos, &pnum, kind, base)
    else:
        pnum = tag
    h.blocks_at = pos
    # C++ reads p as a signed int and uses 1 for p <= 0
    h.divisor = 1.0 if (pnum == 0 or pnum > 0x7FFFFFFF) else pow(10.0, <double>pnum)
    return 0


cdef inline bint _bit(const uint8_t *bm, Py_ssize_t i) noexcept nogil:
    return (bm[i >> 3] >> (i & 7)) & 1


cdef Py_ssize_t ts2diff_float_count_values(const uint8_t *data, Py_ssize_t nbytes,
                                           int kind) except -1 nogil:
    cdef float_prefix h
    cdef Py_ssize_t total
    if nbytes <= 0:
        return 0
    float_prefix_parse(data, nbytes, &h, kind, _NAME)
    total = ts2diff_count_values(data + h.blocks_at, nbytes - h.blocks_at, kind == SK_F64)
    if h.form != 1 and total != <Py_ssize_t>h.n:
        float_prefix_raise(FLOAT_PREFIX_E_MISMATCH, h.n, total, 0, nbytes, kind, _NAME)
    return total


cdef void float_prefix_scale(const uint8_t *data, const float_prefix *h, void *out,
                             Py_ssize_t first, Py_ssize_t m, int kind) noexcept nogil:
    """Rewrite out[0:m], the scaled integers of values first..first+m-1, as those values: the
    float slot has the integer slot's size, and slot i is read before it is written."""
    cdef Py_ssize_t i
    cdef int64_t *o64 = <int64_t *>out
    cdef int32_t *o32 = <int32_t *>out
    cdef double *d64 = <double *>out
    cdef float *f32 = <float *>out
    cdef const uint8_t *sbm = data + h.scaled_at
    cdef const uint8_t *rbm = data + h.raw_at
    cdef double div = h.divisor
    cdef int64_t x64
    cdef int32_t x32
    if kind == SK_F64:
        if h.form == 1:
            for i in range(m):
                d64[i] = <double>o64[i] / div
        else:
            for i in range(m):
                x64 = o64[i]
                if h.form == 3 and _bit(rbm, first + i):
                    pass  # the slot already holds the value's bits
                elif _bit(sbm, first + i):
                    d64[i] = <double>x64 / div
                else:
                    d64[i] = <double>x64
    else:
        if h.form == 1:
            for i in range(m):
                f32[i] = <float>(<double>o32[i] / div)
        else:
            for i in range(m):
                x32 = o32[i]
                if h.form == 3 and _bit(rbm, first + i):
                    pass
                elif _bit(sbm, first + i):
                    f32[i] = <float>(<double>x32 / div)
                else:
                    f32[i] = <float>(<double>x32)


cdef Py_ssize_t ts2diff_float_decode_raw(const uint8_t *data, Py_ssize_t nbytes, void *out,
                                         Py_ssize_t cap, int kind, int path,
                                         Py_ssize_t *consumed) except -1 nogil:
    cdef float_prefix h
    cdef Py_ssize_t total, m, used
    if consumed != NULL:
        consumed[0] = 0
    if nbytes <= 0:
        return 0
    float_prefix_parse(data, nbytes, &h, kind, _NAME)
    total = ts2diff_count_values(data + h.blocks_at, nbytes - h.blocks_at, kind == SK_F64)
    if h.form != 1 and total != <Py_ssize_t>h.n:
        float_prefix_raise(FLOAT_PREFIX_E_MISMATCH, h.n, total, 0, nbytes, kind, _NAME)
    m = cap if cap < total else total
    if m <= 0:
        if consumed != NULL:
            consumed[0] = h.blocks_at
        return 0
    # Integers first (in place), then each slot is rewritten as its value (_scale)
    if kind == SK_F64:
        used = ts2diff_decode_into_i64(data + h.blocks_at, nbytes - h.blocks_at,
                                       <int64_t *>out, m, path)
    else:
        used = ts2diff_decode_into_i32(data + h.blocks_at, nbytes - h.blocks_at,
                                       <int32_t *>out, m, path)
    float_prefix_scale(data, &h, out, 0, m, kind)
    if consumed != NULL:
        consumed[0] = h.blocks_at + used
    return m


cdef inline const uint8_t *_ptr(const unsigned char[::1] buf) noexcept nogil:
    return &buf[0] if buf.shape[0] > 0 else NULL


def count_values(data, dtype):
    """The number of values in a FLOAT/DOUBLE TS_2DIFF page."""
    cdef int kind = serial_kind(dtype, _ALLOWED, "TS_2DIFF (lossy float)")
    cdef const unsigned char[::1] buf = as_byte_view(data)
    cdef Py_ssize_t n
    cdef const uint8_t *src = _ptr(buf)
    with nogil:
        n = ts2diff_float_count_values(src, buf.shape[0], kind)
    return n


cdef SerialCodec _CODEC = serial_codec(
    "TS_2DIFF", "TS_2DIFF (lossy float)", None, _ALLOWED, HAS_SIMD, COUNT_EXACT, False,
    ts2diff_float_count_values, ts2diff_float_decode_raw, ts2diff_float_decode_raw
)


def decode(data, dtype, count=None, path="auto"):
    """Decode a FLOAT (float32) or DOUBLE (float64) TS_2DIFF page (any of the three forms).

    ``count``: the number of values, None = all. ``path``: that of the integer blocks.
    """
    return _CODEC.decode(data, dtype, count, path)


def decode_into(data, out, path="auto"):
    """Decode exactly ``len(out)`` values into a float32/float64 array; return the bytes used."""
    return _CODEC.decode_into(data, out, path)


# ---- encoding (Java FloatEncoder rules) ----------------------------------------------------------

def _java_round(x):
    """floor(x + 0.5) with x + 0.5 rounded in double arithmetic, as the official C++ 2.5 writer
    rounds (format notes 8.3; not the exact half-up of Java 7+ Math.round: from 2**52 on, and
    for x just below a half, x + 0.5 rounds up first, e.g. 6042708071674649.0 -> ...650), saturating
    at the int64 range; NaN -> 0."""
    r = np.floor(x + 0.5)
    r = np.where(np.isnan(r), 0.0, r)
    lo, hi = -(2.0**63), 2.0**63
    out = np.empty(x.shape, dtype=np.int64)
    big = r >= hi
    small = r <= lo
    mid = ~(big | small)
    out[mid] = r[mid].astype(np.int64)
    out[big] = np.iinfo(np.int64).max
    out[small] = np.iinfo(np.int64).min
    return out


def _java_round_f32(v):
    """Java Math.round(float): floor(v + 1/2) in float arithmetic terms, saturating at int32."""
    x = v.astype(np.float64)  # exact widening; floor(x + 1/2) is exact in double for floats
    fl = np.floor(x)
    r = fl + ((x - fl) >= 0.5)
    r = np.where(np.isnan(r), 0.0, r)
    return np.clip(r, -(2.0**31), 2.0**31 - 1).astype(np.int64).astype(np.int32)


def encode(values, dtype=None, max_point_number=DEFAULT_MAX_POINT_NUMBER, block_size=128,
           prev_min_delta=0):
    """Encode FLOAT (float32) or DOUBLE (float64) values as a lossy TS_2DIFF page, as the official
    writers do: values * 10**p rounded (floor(x + 0.5) in double); form 2/3 when scaling overflows
    the integer type or a value is NaN/huge. Returns the page bytes.

    ``prev_min_delta``: the min_delta a leading block without deltas carries (see
    ``tsfile.codecs.ts2diff.encode``): :func:`last_min_delta` of the chunk's previous page."""
    ints, prefix = encode_prefix(values, dtype, max_point_number)
    return prefix + _ts2diff.encode(ints, block_size, prev_min_delta=prev_min_delta)


def encode_prefix(values, dtype=None, max_point_number=DEFAULT_MAX_POINT_NUMBER):
    """(the scaled integers, the page prefix before their blocks) of encode()'s arguments: the
    prefix is p's uvarint, after the form 2/3 marker, count and bitmaps when a value overflows the
    integer type or is NaN/huge. Java's FloatEncoder writes the same prefix before RLE blocks
    (tsfile.codecs.rle_float.encode)."""
    kind, pnum = _check_encode_args(values, dtype, max_point_number)
    ints, ok, raw, rounded = _scaled_ints(np.asarray(values), kind, pnum)
    head = _uvarint_bytes(pnum)
    if not (raw.any() or rounded.any()):
        return ints, head
    n = len(ints)
    scaled_bm = np.packbits(ok, bitorder="little").tobytes().ljust(n // 8 + 1, b"\0")
    out = bytearray()
    if raw.any():
        out += _uvarint_bytes(_MARK_RAW) + _uvarint_bytes(n) + scaled_bm
        out += np.packbits(raw, bitorder="little").tobytes().ljust(n // 8 + 1, b"\0")
    else:
        out += _uvarint_bytes(_MARK_SCALED) + _uvarint_bytes(n) + scaled_bm
    return ints, bytes(out) + head


def last_min_delta(values, dtype=None, max_point_number=DEFAULT_MAX_POINT_NUMBER, block_size=128,
                   prev_min_delta=0):
    """The min_delta :func:`encode` (same arguments) leaves for the chunk's next page, as
    ``tsfile.codecs.ts2diff.last_min_delta`` of the page's scaled integers."""
    kind, pnum = _check_encode_args(values, dtype, max_point_number)
    ints = _scaled_ints(np.asarray(values), kind, pnum)[0]
    return _ts2diff.last_min_delta(ints, block_size, prev_min_delta)


def _check_encode_args(values, dtype, max_point_number):
    """(serial kind, max point number) of encode()'s arguments; TypeError / EncodeError."""
    arr = np.asarray(values)
    if dtype is None:
        if not arr.dtype.isnative:  # values in another byte order are values all the same
            arr = arr.astype(arr.dtype.newbyteorder("="))
        if arr.dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
            raise TypeError("pass dtype= (FLOAT or DOUBLE) for values that are not float32/64")
        kind = SK_F32 if arr.dtype == np.float32 else SK_F64
    else:
        kind = serial_kind(dtype, _ALLOWED, "TS_2DIFF (lossy float)")
    if arr.ndim != 1:
        raise TypeError("values must be a 1-D sequence")
    if isinstance(max_point_number, bool) or not isinstance(max_point_number, (int, np.integer)):
        raise TypeError("max_point_number must be an int")
    pnum = max(int(max_point_number), 0)
    if pnum > 0x7FFFFFFD:
        raise EncodeError("max_point_number too large")
    return kind, pnum


def _scaled_ints(arr, kind, pnum):
    """(ints, ok, raw, rounded): the integers the blocks hold, and which values were scaled by
    10**pnum (ok), stored as their raw IEEE bits (raw: NaN, or beyond the integer range) or only
    rounded (scaling overflowed)."""
    scale = 10.0**pnum if pnum > 0 else 1.0
    if kind == SK_F32:
        v = arr.astype(np.float32)
        s = v.astype(np.float64) * scale
        lim_hi, lim_lo = 2147483647.0, -2147483648.0
        vf = v.astype(np.float64)
        over = (s > lim_hi) | (s < lim_lo)
        raw = (over & ((vf > 2147483648.0) | (vf < lim_lo))) | np.isnan(v)
        rounded = over & ~raw
        ints = np.empty(v.shape, dtype=np.int32)
        ok = ~(over | raw)
        ints[ok] = _java_round(s[ok]).astype(np.int32)
        ints[rounded] = _java_round_f32(v[rounded])
        ints[raw] = v[raw].view(np.int32)
        ints[np.isnan(v)] = 0x7FC00000  # Float.floatToIntBits: canonical NaN
    else:
        v = arr.astype(np.float64)
        s = v * scale
        lim = 9.223372036854775807e18
        over = (s > lim) | (s < -lim)
        raw = (over & ((v > lim) | (v < -lim))) | np.isnan(v)
        rounded = over & ~raw
        ints = np.empty(v.shape, dtype=np.int64)
        ok = ~(over | raw)
        ints[ok] = _java_round(s[ok])
        ints[rounded] = _java_round(v[rounded])
        ints[raw] = v[raw].view(np.int64)
        ints[np.isnan(v)] = 0x7FF8000000000000  # Double.doubleToLongBits: canonical NaN
    return ints, ok, raw, rounded


def _uvarint_bytes(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


class Ts2DiffFloatDecoder:
    """Streaming decoder over :class:`tsfile.codecs.ts2diff.Ts2DiffDecoder` (one integer block
    value at a time), scaling each value as it is read. ``has_next()`` / ``next()``."""

    def __init__(self, data, dtype):
        cdef int kind = serial_kind(dtype, _ALLOWED, "TS_2DIFF (lossy float)")
        cdef const unsigned char[::1] buf = as_byte_view(data)
        cdef float_prefix h
        self._f32 = kind == SK_F32
        ts2diff_float_count_values(_ptr(buf), buf.shape[0], kind)  # validates prefix and blocks
        raw = bytes(buf)
        if buf.shape[0] == 0:
            h.form = 1
            h.blocks_at = 0
            h.divisor = 1.0
        else:
            float_prefix_parse(_ptr(buf), buf.shape[0], &h, kind, _NAME)
        self._form = h.form
        self._div = h.divisor
        bm = (h.n // 8 + 1) if h.form != 1 else 0
        self._scaled = raw[h.scaled_at : h.scaled_at + bm]
        self._raw = raw[h.raw_at : h.raw_at + bm] if h.form == 3 else b""
        self._ints = _ts2diff.Ts2DiffDecoder(raw[h.blocks_at :], "int64" if not self._f32 else "int32")
        self._i = 0

    def has_next(self):
        return self._ints.has_next()

    def next(self):
        x = self._ints.next()
        i = self._i
        self._i += 1
        if self._form == 3 and (self._raw[i >> 3] >> (i & 7)) & 1:
            if self._f32:
                return np.array([x], dtype=np.int32).view(np.float32)[0]
            return float(np.array([x], dtype=np.int64).view(np.float64)[0])
        if self._form == 1 or (self._scaled[i >> 3] >> (i & 7)) & 1:
            r = x / self._div
        else:
            r = float(x)
        return np.float32(r) if self._f32 else r

    def __iter__(self):
        return self

    def __next__(self):
        if not self.has_next():
            raise StopIteration
        return self.next()


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
    raise_body_error,
    rows_readable,
    with_rows,
)

from tsfile.codecs._kinds cimport KIND_F32, KIND_F64
from tsfile.codecs._serial cimport sk_of_kind


cdef Py_ssize_t _row_count(const uint8_t *src, Py_ssize_t n, int kind) except -2 nogil:
    return ts2diff_float_count_values(src, n, sk_of_kind(kind))


cdef Py_ssize_t _row_skip(const uint8_t *src, Py_ssize_t n, Py_ssize_t k,
                          int kind) except -1 nogil:
    # The prefix and every block header, checked as decode checks them before it unpacks
    # anything; nothing is unpacked here.
    check_skip(_row_count(src, n, kind), k, b"TS_2DIFF")
    return k


cdef Py_ssize_t _row_decode(const uint8_t *src, Py_ssize_t n, void *out, Py_ssize_t count,
                            int kind, int path) except -1 nogil:
    check_decoded(ts2diff_float_decode_raw(src, n, out, count, sk_of_kind(kind), path, NULL),
                  count, b"TS_2DIFF")
    return 0


# The integer blocks' row ranges: blocks before a range passed by their headers, the body asked
# for each block's bytes (include/ts2diff_blockskip.h, as the reader's TS_2DIFF integer pages).
from tsfile.codecs.ts2diff_kernels cimport (
    TS2DIFF_E_STREAM,
    TS2DIFF_MAX_BLOCK_DELTAS,
    ts2diff_block_fn_i32,
    ts2diff_block_fn_i64,
    ts2diff_decode_i32_scalar,
    ts2diff_decode_i64_scalar,
    ts2diff_decode_rows_i32,
    ts2diff_decode_rows_i64,
    ts2diff_error,
    ts2diff_rows_scratch,
    ts2diff_rows_scratch_t,
)


cdef int _parse_readable(const uint8_t *src, Py_ssize_t n, void *more, float_prefix *h,
                         int kind) except -1 nogil:
    """float_prefix_parse on a body read as far as asked: its first 16 bytes hold the tag and
    the bitmaps' count (two uvarints), which bound the prefix's end."""
    cdef Py_ssize_t ready = rows_readable(more, src, n, 16, b"TS_2DIFF")
    cdef Py_ssize_t pos = 0, bound
    cdef uint32_t tag, count = 0
    float_prefix_uvarint(src, ready, &pos, &tag, kind, _NAME)
    if tag == _MARK_SCALED or tag == _MARK_RAW:
        float_prefix_uvarint(src, ready, &pos, &count, kind, _NAME)
    bound = pos + 2 * (<Py_ssize_t>count // 8 + 1) + 5
    rows_readable(more, src, n, bound, b"TS_2DIFF")
    float_prefix_parse(src, n, h, kind, _NAME)
    return 0


cdef Py_ssize_t _row_rows(const uint8_t *src, Py_ssize_t n, void *more, Py_ssize_t start,
                          Py_ssize_t stop, void *out, int kind, int path) except -1 nogil:
    # The prefix, then the scaled integers start..stop-1 with the blocks before them passed by
    # their headers (scalar block kernel: the range is small), scaled in place (_scale).
    cdef float_prefix h
    cdef ts2diff_error err
    cdef int64_t skipped = 0
    cdef int rc
    cdef int sk = sk_of_kind(kind)
    cdef ts2diff_rows_scratch_t *scratch
    if stop <= start:
        return 0
    if n <= 0:  # an empty page holds no value
        float_prefix_raise(FLOAT_PREFIX_E_TRUNC, 0, 0, 0, n, sk, _NAME)
    _parse_readable(src, n, more, &h, sk)
    if h.form != 1 and stop > <Py_ssize_t>h.n:  # the bitmaps describe h.n values
        float_prefix_raise(FLOAT_PREFIX_E_MISMATCH, h.n, stop, 0, n, sk, _NAME)
    scratch = ts2diff_rows_scratch()
    if sk == SK_F64:
        rc = ts2diff_decode_rows_i64(src + h.blocks_at, <size_t>(n - h.blocks_at), more, start,
                                     stop, ts2diff_decode_i64_scalar, scratch.i64,
                                     <int64_t *>out, &skipped, &err)
    else:
        rc = ts2diff_decode_rows_i32(src + h.blocks_at, <size_t>(n - h.blocks_at), more, start,
                                     stop, ts2diff_decode_i32_scalar, scratch.i32,
                                     <int32_t *>out, &skipped, &err)
    if rc < 0:
        if err.code == TS2DIFF_E_STREAM:
            raise_body_error(more, b"TS_2DIFF")
        # the codec's own message for a bad header among the blocks read (their walk finds the
        # same fault), else the blocks end before value stop-1
        rows_readable(more, src, n, n, b"TS_2DIFF")
        ts2diff_count_values(src + h.blocks_at, n - h.blocks_at, sk == SK_F64)
        with gil:
            raise CorruptDataError(
                f"TS_2DIFF {serial_kind_name(sk)}: the blocks hold fewer than {stop} values "
                f"(block at byte offset {h.blocks_at + err.offset} of {n})")
    float_prefix_scale(src, &h, out, start, stop - start, sk)
    return stop - start


cdef codec_row _ROWS[2]
cdef codec_table _TABLE
for _i, _kind in enumerate((KIND_F32, KIND_F64)):
    _ROWS[_i] = with_rows(
        make_row(4, _kind, b"ts2diff_float", b"TS_2DIFF",
                 ROW_PER_VALUE | ROW_BATCH | (ROW_SIMD if HAS_SIMD else 0),
                 _row_count, _row_decode, NULL, _row_skip, NULL, NULL),
        _row_rows)
CODEC_ROWS = publish_rows(&_TABLE, _ROWS, 2)
