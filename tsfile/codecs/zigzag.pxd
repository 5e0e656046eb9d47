# ZIGZAG (format notes 8.6): C-level entry points for the reader's and writer's page loops.
#
# Decoders decode exactly `count` values from src[0:n] and return the bytes consumed (through the
# end of the block holding the last value); CorruptDataError (GIL taken only then) on bad data.
from libc.stdint cimport int32_t, int64_t, uint8_t

cdef Py_ssize_t zigzag_decode_i32_c(const uint8_t *src, Py_ssize_t n, int32_t *out,
                                    Py_ssize_t count) except -1 nogil
cdef Py_ssize_t zigzag_decode_i64_c(const uint8_t *src, Py_ssize_t n, int64_t *out,
                                    Py_ssize_t count) except -1 nogil
# Number of values in the whole buffer (block headers checked).
cdef Py_ssize_t zigzag_count_c(const uint8_t *src, Py_ssize_t n) except -1 nogil

# Encoders: one block, as the C++ writer writes it; dst needs zigzag_encode_bound(count, is64).
cdef Py_ssize_t zigzag_encode_bound(Py_ssize_t count, bint is64) noexcept nogil
cdef Py_ssize_t zigzag_encode_i32_c(const int32_t *values, Py_ssize_t count,
                                    uint8_t *dst) noexcept nogil
cdef Py_ssize_t zigzag_encode_i64_c(const int64_t *values, Py_ssize_t count,
                                    uint8_t *dst) noexcept nogil
