# C-level entry points of the CAMEL codec (DOUBLE only), for Cython callers (the file reader).
#
#   from tsfile.codecs.camel cimport camel_decode_raw, camel_max_values_of
#
# camel_decode_raw(data, nbytes, out, cap, path, consumed)
#     Decode the CAMEL page in data[0:nbytes] (one or more blocks) into `out` (float64 or uint64
#     slots: the IEEE bits of each value). Stops at the end of the data or after `cap` values;
#     returns the number of values written. `path` is PATH_PER_VALUE or PATH_BATCH
#     (tsfile.codecs._common; anything else runs batch). *consumed (if not NULL) receives the
#     bytes used (whole blocks). Truncated or corrupt data raise CorruptDataError (the GIL is
#     taken only to raise). To decode exactly `count` values pass cap = count and check the result.
#
# camel_max_values_of(nbytes)
#     Upper bound of the values nbytes of CAMEL data can hold (8 * nbytes / 3 + 1), for sizing the
#     output of a decode-everything call (a CAMEL page stores no value count).
from libc.stdint cimport int64_t, uint8_t, uint64_t


cdef extern from "camel_scalar.h" nogil:
    ctypedef struct camel_state:
        size_t pos
        size_t bits_left
    void camel_init(camel_state *s, const uint8_t *src, size_t len)
    int camel_next(camel_state *s, uint64_t *out)
    size_t camel_error_offset(const camel_state *s, int at_header)
    int64_t camel_decode(const uint8_t *src, size_t len, uint64_t *out, int64_t cap, size_t *pos)
    int64_t camel_max_values(size_t len)
    size_t camel_encode_bound(size_t n)
    size_t camel_encode(const double *values, size_t n, uint8_t *out, uint8_t *scratch)


cdef Py_ssize_t camel_decode_raw(const uint8_t *data, Py_ssize_t nbytes, void *out, Py_ssize_t cap,
                                 int path, Py_ssize_t *consumed) except -1 nogil
cdef Py_ssize_t camel_max_values_of(Py_ssize_t nbytes) noexcept nogil
