# The CHIMP kernels (include/chimp_scalar.h) as chimp.pyx describes them to the shared serial code
# (tsfile/codecs/_serial.pxd, serial_ops). Other modules reach the codec through its contract rows
# (tsfile.codecs._registry), not through these declarations.
from libc.stddef cimport ptrdiff_t
from libc.stdint cimport int64_t, uint8_t, uint64_t


cdef extern from "chimp_scalar.h" nogil:
    ctypedef struct chimp_state:
        int done
        int stop_at_end
    void chimp_init(chimp_state *s, const uint8_t *src, size_t len, uint64_t endv)
    int chimp_next32(chimp_state *s, uint64_t *out)
    int chimp_next64(chimp_state *s, uint64_t *out)
    size_t chimp_consumed(const chimp_state *s)
    void chimp_try_end32(chimp_state *s)
    void chimp_try_end64(chimp_state *s)
    int64_t chimp_decode_u32(const uint8_t *src, size_t len, uint64_t endv, int stop_at_end,
                             void *out, int64_t cap, size_t *pos)
    int64_t chimp_decode_u64(const uint8_t *src, size_t len, uint64_t endv, int stop_at_end,
                             void *out, int64_t cap, size_t *pos)
    int64_t chimp_max_values(size_t len, int W)
    size_t chimp_encode_bound(size_t n, int W)
    ptrdiff_t chimp_encode_generic(const void *values, size_t n, int W, uint64_t endv,
                                   uint8_t *out)

