# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""FLOAT/DOUBLE RLE: the lossy fixed-point form of RLE that only the Java writer produces.

Java's FloatEncoder scales FLOAT/DOUBLE values to integers whatever its base encoding: with
TS_2DIFF it is the page layout of :mod:`tsfile.codecs.ts2diff_float`, with RLE (IoTDB's own
examples declare FLOAT series ``encoding=RLE``) the same prefix (``uvarint p``, or the overflow
forms 2/3 with their bitmaps) followed by INT32 (FLOAT) or INT64 (DOUBLE) RLE blocks
(:mod:`tsfile.codecs.rle`; INT64 run values big-endian, as Java writes them) of the scaled
integers. Value i is ``x / 10**p`` (double division, then float32 for FLOAT), ``x`` as is when
its scaled bit is clear, or ``x``'s IEEE bits when its raw bit is set.

The official C++ 2.5 reader has no such decoder; the writer here does not produce it either
(tsfile._write.encoders), only this reader reads it.
"""
from cpython.pyport cimport PY_SSIZE_T_MAX
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t

from tsfile.codecs._common cimport byte_span
from tsfile.codecs._serial cimport (
    COUNT_EXACT,
    SK_F32,
    SK_F64,
    SerialCodec,
    serial_codec,
    serial_kind,
    serial_kind_name,
    sk_of_kind,
)
from tsfile.codecs.rle cimport rle_count_c, rle_decode_i32_c, rle_decode_i64_c
from tsfile.codecs.ts2diff_float cimport (
    FLOAT_PREFIX_E_MISMATCH,
    FLOAT_PREFIX_E_TRUNC,
    float_prefix,
    float_prefix_parse,
    float_prefix_raise,
    float_prefix_scale,
    float_prefix_uvarint,
)

from tsfile.codecs import rle as _rle
from tsfile.codecs import ts2diff_float as _ts2diff_float

HAS_SIMD = False
DEFAULT_MAX_POINT_NUMBER = 2

cdef enum:
    _ALLOWED = (1 << SK_F32) | (1 << SK_F64)

# the base encoding's name in this module's error messages (the prefix is parsed by
# tsfile.codecs.ts2diff_float, whose layout Java's FloatEncoder writes before either base)
cdef const char *_NAME = b"RLE"


cdef Py_ssize_t _segment(const uint8_t *data, Py_ssize_t nbytes, Py_ssize_t at,
                         float_prefix *h, Py_ssize_t *block_end, int kind) except -1 nogil:
    """Parse the segment at data[at:]: its prefix into h (offsets relative to data + at) and the
    end (relative to data) of its one RLE block; returns the block's value count. A Java page is
    one segment (FloatEncoder writes the prefix, then its base encoder's one block, per page);
    pages made of several (as encoders called more than once on a page write them) read too."""
    cdef const uint8_t *p = data + at
    cdef Py_ssize_t n = nbytes - at, pos, total
    cdef uint32_t blen
    float_prefix_parse(p, n, h, kind, _NAME)
    pos = h.blocks_at
    float_prefix_uvarint(p, n, &pos, &blen, kind, _NAME)
    if <Py_ssize_t>blen > n - pos:
        float_prefix_raise(FLOAT_PREFIX_E_TRUNC, 0, 0, at + h.blocks_at, nbytes, kind, _NAME)
    block_end[0] = at + pos + blen
    total = rle_count_c(p + h.blocks_at, pos + blen - h.blocks_at, kind == SK_F64, PY_SSIZE_T_MAX)
    if h.form != 1 and total != <Py_ssize_t>h.n:
        float_prefix_raise(FLOAT_PREFIX_E_MISMATCH, h.n, total, at, nbytes, kind, _NAME)
    return total


cdef Py_ssize_t rle_float_count_values(const uint8_t *data, Py_ssize_t nbytes,
                                       int kind) except -1 nogil:
    cdef float_prefix h
    cdef Py_ssize_t at = 0, total = 0, end
    while at < nbytes:
        total += _segment(data, nbytes, at, &h, &end, kind)
        at = end
    return total


cdef Py_ssize_t rle_float_decode_raw(const uint8_t *data, Py_ssize_t nbytes, void *out,
                                     Py_ssize_t cap, int kind, int path,
                                     Py_ssize_t *consumed) except -1 nogil:
    cdef float_prefix h
    cdef Py_ssize_t at = 0, done = 0, end, k, m
    cdef Py_ssize_t size = 8 if kind == SK_F64 else 4
    cdef uint8_t *o = <uint8_t *>out
    cdef const uint8_t *seg
    while at < nbytes and done < cap:
        k = _segment(data, nbytes, at, &h, &end, kind)
        m = k if k < cap - done else cap - done
        seg = data + at
        if m > 0:
            if kind == SK_F64:
                rle_decode_i64_c(seg + h.blocks_at, end - at - h.blocks_at,
                                 <int64_t *>(o + done * size), m)
            else:
                rle_decode_i32_c(seg + h.blocks_at, end - at - h.blocks_at,
                                 <int32_t *>(o + done * size), m)
            float_prefix_scale(seg, &h, o + done * size, 0, m, kind)
        done += m
        at = end
    if consumed != NULL:
        consumed[0] = at
    return done


def count_values(data, dtype):
    """The number of values in a FLOAT/DOUBLE RLE page."""
    cdef int kind = serial_kind(dtype, _ALLOWED, "RLE (lossy float)")
    cdef const uint8_t *src
    cdef Py_ssize_t nbytes, n
    cdef object owner = byte_span(data, &src, &nbytes)  # holds the bytes while they are read
    with nogil:
        n = rle_float_count_values(src, nbytes, kind)
    return n


cdef SerialCodec _CODEC = serial_codec(
    "RLE", "RLE (lossy float)", None, _ALLOWED, HAS_SIMD, COUNT_EXACT, False,
    rle_float_count_values, rle_float_decode_raw, rle_float_decode_raw
)


def decode(data, dtype, count=None, path="auto"):
    """Decode a FLOAT (float32) or DOUBLE (float64) RLE page (Java's FloatEncoder layout).

    ``count``: the number of values, None = all. Every path decodes the same way."""
    return _CODEC.decode(data, dtype, count, path)


def decode_into(data, out, path="auto"):
    """Decode exactly ``len(out)`` values into a float32/float64 array; return the bytes used."""
    return _CODEC.decode_into(data, out, path)


def encode(values, dtype=None, max_point_number=DEFAULT_MAX_POINT_NUMBER):
    """Encode FLOAT (float32) or DOUBLE (float64) values as Java's FloatEncoder does with an RLE
    base (values * 10**p rounded; forms 2/3 for overflow and NaN, as for TS_2DIFF): for tests and
    fixtures; the file writer does not use it."""
    ints, prefix = _ts2diff_float.encode_prefix(values, dtype, max_point_number)
    return prefix + _rle.encode(ints)


class RleFloatDecoder:
    """Per-value decoder of a FLOAT/DOUBLE RLE page: ``has_next()`` / ``next()`` (the page is
    decoded whole on construction: its RLE blocks hold one page's values)."""

    def __init__(self, data, dtype):
        self._values = decode(data, dtype)
        self._i = 0

    def has_next(self):
        return self._i < len(self._values)

    def next(self):
        v = self._values[self._i]
        self._i += 1
        return v

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
    check_decoded,
    check_skip,
    codec_row,
    codec_table,
    make_row,
    publish_rows,
)
from tsfile.codecs._kinds cimport KIND_F32, KIND_F64


cdef Py_ssize_t _row_count(const uint8_t *src, Py_ssize_t n, int kind) except -2 nogil:
    return rle_float_count_values(src, n, sk_of_kind(kind))


cdef Py_ssize_t _row_skip(const uint8_t *src, Py_ssize_t n, Py_ssize_t k,
                          int kind) except -1 nogil:
    check_skip(_row_count(src, n, kind), k, b"RLE")
    return k


cdef Py_ssize_t _row_decode(const uint8_t *src, Py_ssize_t n, void *out, Py_ssize_t count,
                            int kind, int path) except -1 nogil:
    check_decoded(rle_float_decode_raw(src, n, out, count, sk_of_kind(kind), path, NULL),
                  count, b"RLE")
    return 0


cdef codec_row _ROWS[2]
cdef codec_table _TABLE
for _i, _kind in enumerate((KIND_F32, KIND_F64)):
    _ROWS[_i] = make_row(2, _kind, b"rle_float", b"RLE", ROW_PER_VALUE | ROW_BATCH,
                         _row_count, _row_decode, NULL, _row_skip, NULL, NULL)
CODEC_ROWS = publish_rows(&_TABLE, _ROWS, 2)
