# C-level entry points of FLOAT/DOUBLE TS_2DIFF (lossy fixed point; format notes 8.3), for Cython
# callers (the file reader's page loop).
#
#   from tsfile.codecs.ts2diff_float cimport ts2diff_float_decode_raw, ts2diff_float_count_values
#   from tsfile.codecs._serial cimport SK_F32, SK_F64
#
# ts2diff_float_count_values(data, nbytes, kind)
#     The number of values in the page (prefix parsed, block headers walked); CorruptDataError
#     on a bad prefix or blocks. kind is SK_F32 (FLOAT) or SK_F64 (DOUBLE).
#
# ts2diff_float_decode_raw(data, nbytes, out, cap, kind, path, consumed)
#     Decode min(cap, page count) values into `out` (float32 slots for SK_F32, float64 for SK_F64)
#     and return that number. Forms 1-3: prefix (p, or the overflow marker, count and LSB-first
#     bitmaps), then INT32 (FLOAT) / INT64 (DOUBLE) TS_2DIFF blocks decoded by
#     tsfile.codecs.ts2diff with `path` (PATH_PER_VALUE / PATH_BATCH / PATH_SIMD), then scaled:
#     x / 10^p, x as is (scaled bit clear), or x's bits (form 3 raw bit). *consumed (if not NULL)
#     receives the bytes used. CorruptDataError on bad data (the GIL is taken only to raise).
from libc.stdint cimport uint8_t, uint32_t

# The page prefix (forms 1-3, see the module docstring), shared with FLOAT/DOUBLE RLE
# (tsfile.codecs.rle_float), whose Java writer (FloatEncoder) puts the same prefix before RLE
# blocks of the scaled integers.
ctypedef struct float_prefix:
    int form                   # 1, 2 or 3
    uint32_t n                 # forms 2/3: the values the bitmaps describe
    Py_ssize_t scaled_at       # byte offset of the scaled bitmap
    Py_ssize_t raw_at          # byte offset of the raw bitmap (form 3)
    Py_ssize_t blocks_at       # byte offset of the first integer block
    double divisor             # 10 ** p (1 when p == 0 or p does not fit an int, as C++ does)

# Parse the prefix at p[0:n] into h; CorruptDataError "<base> FLOAT|DOUBLE: <what> at byte offset
# <at> (of <n>)" when it is truncated or malformed (`base`: the encoding after the prefix, for the
# message). The uvarint reader and the error raiser it uses are shared too; `what` is a
# FLOAT_PREFIX_E_* code, `a` and `b` the counts its message names.
cdef enum:
    FLOAT_PREFIX_E_TRUNC = 0      # prefix truncated
    FLOAT_PREFIX_E_VARINT = 1     # malformed varint
    FLOAT_PREFIX_E_BITMAPS = 2    # bitmaps of `a` values truncated
    FLOAT_PREFIX_E_MISMATCH = 3   # the bitmaps describe `a` values, the blocks hold `b`
cdef int float_prefix_parse(const uint8_t *p, Py_ssize_t n, float_prefix *h, int kind,
                            const char *base) except -1 nogil
cdef int float_prefix_uvarint(const uint8_t *p, Py_ssize_t n, Py_ssize_t *pos, uint32_t *out,
                              int kind, const char *base) except -1 nogil
cdef int float_prefix_raise(int what, Py_ssize_t a, Py_ssize_t b, Py_ssize_t at, Py_ssize_t n,
                            int kind, const char *base) except -1 with gil

# Rewrite out[0:m], the scaled integers of values first..first+m-1 of a page with prefix h, as
# those values (kind SK_F32 / SK_F64; float and integer slots have the same size).
cdef void float_prefix_scale(const uint8_t *data, const float_prefix *h, void *out,
                             Py_ssize_t first, Py_ssize_t m, int kind) noexcept nogil


cdef Py_ssize_t ts2diff_float_count_values(const uint8_t *data, Py_ssize_t nbytes,
                                           int kind) except -1 nogil
cdef Py_ssize_t ts2diff_float_decode_raw(const uint8_t *data, Py_ssize_t nbytes, void *out,
                                         Py_ssize_t cap, int kind, int path,
                                         Py_ssize_t *consumed) except -1 nogil
