# PLAIN (format notes 8.2): C-level entry points for the file reader's and writer's page loops.
#
# Each decoder decodes exactly `count` values from src[0:n] into `out`, returns the number of bytes
# consumed, and raises CorruptDataError (taking the GIL only then) if the data are truncated or
# malformed; it never reads outside src[0:n]. FLOAT/DOUBLE are copied bit-exactly.
from libc.stdint cimport uint8_t, int32_t, int64_t

cdef Py_ssize_t plain_decode_bool_c(const uint8_t *src, Py_ssize_t n, uint8_t *out,
                                    Py_ssize_t count) except -1 nogil
cdef Py_ssize_t plain_decode_i32_c(const uint8_t *src, Py_ssize_t n, int32_t *out,
                                   Py_ssize_t count) except -1 nogil
cdef Py_ssize_t plain_decode_i64_c(const uint8_t *src, Py_ssize_t n, int64_t *out,
                                   Py_ssize_t count) except -1 nogil
cdef Py_ssize_t plain_decode_f32_c(const uint8_t *src, Py_ssize_t n, float *out,
                                   Py_ssize_t count) except -1 nogil
cdef Py_ssize_t plain_decode_f64_c(const uint8_t *src, Py_ssize_t n, double *out,
                                   Py_ssize_t count) except -1 nogil
# By TSDataType code (0 BOOLEAN, 1 INT32, 2 INT64, 3 FLOAT, 4 DOUBLE, 8 TIMESTAMP, 9 DATE;
# out points at bool/int32/int64/float32/float64 storage accordingly).
cdef Py_ssize_t plain_decode_numeric_c(int ts_type, const uint8_t *src, Py_ssize_t n, void *out,
                                       Py_ssize_t count) except -1 nogil

# The same with a decode path (tsfile.codecs._common PATH_PER_VALUE / PATH_BATCH / PATH_SIMD; SIMD
# falls back to batch where this build or CPU has no kernels or the switch is off). Needs the GIL
# for PATH_PER_VALUE (it drives PlainDecoder); the others release it.
cdef Py_ssize_t plain_decode_path_c(int ts_type, const uint8_t *src, Py_ssize_t n, void *out,
                                    Py_ssize_t count, int path) except -1

# Binary values (TEXT/STRING/BLOB): start offset and length of `count` values into starts/lens;
# returns bytes consumed; CorruptDataError on negative or overlong lengths.
cdef Py_ssize_t plain_scan_binary_c(const uint8_t *src, Py_ssize_t n, int64_t *starts,
                                    int64_t *lens, Py_ssize_t count) except -1 nogil
# ... and as a numpy object array of bytes (needs the GIL).
cdef Py_ssize_t plain_decode_binary_into(const uint8_t *src, Py_ssize_t n, object out) except -1

# Encoders: write `count` values to dst, which needs plain_encode_bound(ts_type, count) bytes;
# return the bytes written.
cdef Py_ssize_t plain_encode_bound(int ts_type, Py_ssize_t count) noexcept nogil
cdef Py_ssize_t plain_encode_numeric_c(int ts_type, const void *values, Py_ssize_t count,
                                       uint8_t *dst) noexcept nogil
