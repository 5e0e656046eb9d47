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
from libc.stdint cimport uint8_t


cdef Py_ssize_t ts2diff_float_count_values(const uint8_t *data, Py_ssize_t nbytes,
                                           int kind) except -1 nogil
cdef Py_ssize_t ts2diff_float_decode_raw(const uint8_t *data, Py_ssize_t nbytes, void *out,
                                         Py_ssize_t cap, int kind, int path,
                                         Py_ssize_t *consumed) except -1 nogil
