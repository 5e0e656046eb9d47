# RLE / bit-packing hybrid (format notes 8.5): C-level entry points for the reader's and writer's
# page loops (and for DICTIONARY, whose indices are an INT32 RLE stream).
#
# Decoders decode exactly `count` values from src[0:n] into `out` and return the bytes consumed
# (up to the end of the RLE block holding the last value); on truncated or malformed data they
# raise CorruptDataError (taking the GIL only then). INT32/DATE and BOOLEAN run values are read
# little-endian, INT64/TIMESTAMP run values big-endian (as Java writes them).
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t

cdef extern from "rle_scalar.h" nogil:
    ctypedef struct rle_stream:
        size_t pos
        size_t block_end
        size_t err_at


# The streaming decoder (the "per_value" path). Cython callers: d = RleDecoder.__new__(RleDecoder);
# d._setup(byte_view, kind) with kind from tsfile.codecs._kinds (KIND_BOOL / KIND_I32 / KIND_I64);
# then d.next_u64(&v) per value: 1 = a value (the type's bit pattern), 0 = end of data; raises
# CorruptDataError. d._s.block_end after the last value = bytes consumed.
cdef class RleDecoder:
    cdef const unsigned char[::1] _buf
    cdef rle_stream _s
    cdef int _kind
    cdef int _setup(self, const unsigned char[::1] buf, int kind) except -1
    cdef int next_u64(self, uint64_t *v) except -1 nogil
    cpdef bint has_next(self) except -1

cdef Py_ssize_t rle_decode_i32_c(const uint8_t *src, Py_ssize_t n, int32_t *out,
                                 Py_ssize_t count) except -1 nogil
cdef Py_ssize_t rle_decode_i64_c(const uint8_t *src, Py_ssize_t n, int64_t *out,
                                 Py_ssize_t count) except -1 nogil
cdef Py_ssize_t rle_decode_bool_c(const uint8_t *src, Py_ssize_t n, uint8_t *out,
                                  Py_ssize_t count) except -1 nogil
# Numeric values by value kind and decode path: the module's contract rows (CODEC_ROWS,
# tsfile/codecs/_contract.pxd), read through tsfile.codecs._registry.

# Number of values in the whole buffer (every block and run header checked); CorruptDataError
# if malformed or if more than `limit` values.
cdef Py_ssize_t rle_count_c(const uint8_t *src, Py_ssize_t n, bint is64,
                            Py_ssize_t limit) except -1 nogil

# Encoders: one block as the official C++ writer writes it (bit-packed runs only, width
# max(1, bit length), 32/64 for negatives); nothing for count == 0. dst needs
# rle_encode_bound(count) bytes; returns the bytes written.
cdef Py_ssize_t rle_encode_bound(Py_ssize_t count) noexcept nogil
cdef Py_ssize_t rle_encode_i32_c(const int32_t *values, Py_ssize_t count,
                                 uint8_t *dst) noexcept nogil
cdef Py_ssize_t rle_encode_i64_c(const int64_t *values, Py_ssize_t count,
                                 uint8_t *dst) noexcept nogil
cdef Py_ssize_t rle_encode_bool_c(const uint8_t *values, Py_ssize_t count,
                                  uint8_t *dst) noexcept nogil
# INT32 values with a given width (0..32; values must fit it), e.g. DICTIONARY indices.
cdef Py_ssize_t rle_encode_i32_width_c(const int32_t *values, Py_ssize_t count, int width,
                                       uint8_t *dst) noexcept nogil
