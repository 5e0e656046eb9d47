# The CAMEL kernels (include/camel_scalar.h) as camel.pyx describes them to the shared serial code
# (tsfile/codecs/_serial.pxd, serial_ops). Other modules reach the codec through its contract rows
# (tsfile.codecs._registry), not through these declarations.
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

