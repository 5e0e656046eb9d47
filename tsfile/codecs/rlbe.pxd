# C-level entry points of the RLBE codec, for Cython callers (the file reader's page loop).
#
#   from tsfile.codecs.rlbe cimport rlbe_decode_raw, rlbe_count_values
#   from tsfile.codecs._serial cimport SK_I32, SK_I64, SK_F32, SK_F64
#
# rlbe_decode_raw(data, nbytes, out, cap, kind, path, consumed)
#     Decode the RLBE page in data[0:nbytes] into `out` (int32/uint32 slots for SK_I32/SK_F32,
#     int64/uint64 slots for SK_I64/SK_F64: FLOAT/DOUBLE come out as their exact IEEE bits).
#     Stops at the end of the data or after `cap` values; returns the number of values written.
#     `path` is PATH_PER_VALUE or PATH_BATCH (tsfile.codecs._common; anything else runs batch).
#     *consumed (if not NULL) receives the bytes used. Truncated or corrupt data raise
#     CorruptDataError (the GIL is taken only to raise). To decode exactly `count` values pass
#     cap = count and check the result.
#
# rlbe_count_values(data, nbytes, kind)
#     The exact number of values in the page (walks the block and segment headers, skipping the
#     value bits); CorruptDataError when the headers are bad. At most 8 * nbytes.
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


cdef Py_ssize_t rlbe_decode_raw(const uint8_t *data, Py_ssize_t nbytes, void *out, Py_ssize_t cap,
                                int kind, int path, Py_ssize_t *consumed) except -1 nogil
cdef Py_ssize_t rlbe_count_values(const uint8_t *data, Py_ssize_t nbytes, int kind) except -1 nogil
