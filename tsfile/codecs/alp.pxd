# C-level entry points of the ALP codec (TsFile encoding 15), for Cython callers (the file
# reader's page loop and the writer).
#
#   from tsfile.codecs.alp cimport alp_decode_into_f64, alp_page_value_count, alp_encode_into_f64
#
# alp_decode_into_f64 / _f32(data, nbytes, out, count, path)
#     Decode the first `count` values of the ALP page at `data` (`nbytes` bytes: the page's value
#     bytes; the page must be of the matching type) into `out`. `path` is PATH_PER_VALUE /
#     PATH_BATCH / PATH_SIMD from tsfile.codecs._common (PATH_SIMD falls back to the batch kernel
#     when SIMD is not active; values are identical). Returns the bytes consumed (to the end of
#     the last block read; the whole page when count is the page's value count). count == 0
#     returns 0 without reading. Corrupt or short data raise CorruptDataError (GIL taken to raise).
#
# alp_page_value_count(data, nbytes, is64)
#     The value count from the page header, after checking the header against the bytes present
#     (CorruptDataError otherwise). A page of B bytes holds at most about 37 * B values.
#
# alp_encode_capacity(count, is64) / alp_encode_into_f64 / _f32(values, count, out, cap, path)
#     Encode one page of `count` values into `out` (cap >= alp_encode_capacity); returns the size.
#     path PATH_SIMD uses the SIMD value loop when active; the bytes are identical on every path.
from libc.stdint cimport uint8_t

cdef Py_ssize_t alp_decode_into_f64(const uint8_t* data, Py_ssize_t nbytes, double* out,
                                    Py_ssize_t count, int path) except -1 nogil
cdef Py_ssize_t alp_decode_into_f32(const uint8_t* data, Py_ssize_t nbytes, float* out,
                                    Py_ssize_t count, int path) except -1 nogil
cdef Py_ssize_t alp_page_value_count(const uint8_t* data, Py_ssize_t nbytes,
                                     bint is64) except -1 nogil
cdef Py_ssize_t alp_encode_capacity(Py_ssize_t count, bint is64) noexcept nogil
cdef Py_ssize_t alp_encode_into_f64(const double* values, Py_ssize_t count, uint8_t* out,
                                    Py_ssize_t cap, int path) except -1 nogil
cdef Py_ssize_t alp_encode_into_f32(const float* values, Py_ssize_t count, uint8_t* out,
                                    Py_ssize_t cap, int path) except -1 nogil
