# The RLBE kernels (include/rlbe_scalar.h) as rlbe.pyx describes them to the shared serial code
# (tsfile/codecs/_serial.pxd, serial_ops). Other modules reach the codec through its contract
# rows (tsfile.codecs._registry), not through these declarations.
from libc.stdint cimport int64_t, uint8_t, uint64_t


cdef extern from "rlbe_scalar.h" nogil:
    ctypedef struct rlbe_state:
        int seg_len
    void rlbe_init(rlbe_state *s, const uint8_t *src, size_t len)
    int rlbe_next32(rlbe_state *s, uint64_t *out)
    int rlbe_next64(rlbe_state *s, uint64_t *out)
    size_t rlbe_consumed(const rlbe_state *s)
    int64_t rlbe_decode_u32(const uint8_t *src, size_t len, void *out, int64_t cap, size_t *pos)
    int64_t rlbe_decode_u64(const uint8_t *src, size_t len, void *out, int64_t cap, size_t *pos)
    int64_t rlbe_count(const uint8_t *src, size_t len, int W, size_t *pos)
    size_t rlbe_encode_bound(size_t n, int W)
    size_t rlbe_encode_generic(const void *values, size_t n, int W, uint8_t *out)
