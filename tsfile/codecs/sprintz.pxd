# The SPRINTZ kernels (include/sprintz_scalar.h) as sprintz.pyx describes them to the shared serial
# code (tsfile/codecs/_serial.pxd, serial_ops). Other modules reach the codec through its contract
# rows (tsfile.codecs._registry), not through these declarations.
from libc.stdint cimport int64_t, uint8_t, uint64_t


cdef extern from "sprintz_scalar.h" nogil:
    ctypedef struct sprintz_state:
        size_t pos
    void sprintz_init(sprintz_state *s, const uint8_t *src, size_t len, int kind)
    int sprintz_next(sprintz_state *s, uint64_t *out)
    int64_t sprintz_decode(const uint8_t *src, size_t len, int kind, void *out, int64_t cap,
                           size_t *pos)
    int64_t sprintz_count(const uint8_t *src, size_t len, int kind, size_t *pos)
    size_t sprintz_encode_bound(size_t n)
    size_t sprintz_encode(const void *values, size_t n, int kind, uint8_t *out)
