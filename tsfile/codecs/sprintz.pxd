# C-level entry points of the SPRINTZ codec, for Cython callers (the file reader's page loop).
#
#   from tsfile.codecs.sprintz cimport sprintz_decode_raw, sprintz_count_values
#   from tsfile.codecs._serial cimport SK_I32, SK_I64, SK_F32, SK_F64
#
# sprintz_decode_raw(data, nbytes, out, cap, kind, path, consumed)
#     Decode the SPRINTZ page in data[0:nbytes] into `out` (int32/uint32 slots for SK_I32/SK_F32,
#     int64/uint64 slots for SK_I64/SK_F64: FLOAT/DOUBLE come out as their exact IEEE bits).
#     Stops at the end of the data or after `cap` values; returns the number of values written.
#     `path` is PATH_PER_VALUE or PATH_BATCH (tsfile.codecs._common; anything else runs batch).
#     *consumed (if not NULL) receives the bytes used (whole blocks). Truncated or corrupt data
#     raise CorruptDataError (the GIL is taken only to raise). To decode exactly `count` values
#     pass cap = count and check the result.
#
# sprintz_count_values(data, nbytes, kind)
#     The exact number of values in the page (walks the block headers; decodes only the tail);
#     CorruptDataError when the headers are bad. At most 4.5 * nbytes.
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


cdef Py_ssize_t sprintz_decode_raw(const uint8_t *data, Py_ssize_t nbytes, void *out,
                                   Py_ssize_t cap, int kind, int path,
                                   Py_ssize_t *consumed) except -1 nogil
cdef Py_ssize_t sprintz_count_values(const uint8_t *data, Py_ssize_t nbytes,
                                     int kind) except -1 nogil
