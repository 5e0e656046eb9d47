# C-level entry points of the CHIMP codec, for Cython callers (the file reader's page loop).
#
#   from tsfile.codecs.chimp cimport chimp_decode_raw, chimp_max_values_of
#   from tsfile.codecs._serial cimport SK_I32, SK_I64, SK_F32, SK_F64
#
# chimp_decode_raw(data, nbytes, out, cap, kind, path, exact, consumed)
#     Decode the CHIMP page in data[0:nbytes] into `out` (int32/uint32 slots for SK_I32/SK_F32,
#     int64/uint64 slots for SK_I64/SK_F64: FLOAT/DOUBLE come out as their exact IEEE bits).
#     exact = True (the page's value count is known, e.g. from the null bitmap): decode exactly
#     `cap` values, end-marker words included (the writer stores MIN_VALUE / canonical NaN values
#     like any other and the official reader, which knows the count, returns them); only an end
#     value whose padded byte ends the buffer ends the page, so pass the page's exact byte range;
#     fewer values -> CorruptDataError.
#     exact = False: stop at the end marker or after `cap` values; returns the number written.
#     `path` is PATH_PER_VALUE or PATH_BATCH (tsfile.codecs._common; anything else runs batch).
#     *consumed (if not NULL) receives the bytes used: the whole page (end marker and its padded
#     byte) when the end marker was reached or directly follows the `cap`-th value.
#     Truncated or corrupt data raise CorruptDataError (the GIL is taken only to raise).
#     To decode everything without knowing the count, size `out` with chimp_max_values_of().
#
# chimp_max_values_of(nbytes, kind)
#     Upper bound of the values nbytes of CHIMP data can hold (about 7 per byte for W = 64).
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


cdef Py_ssize_t chimp_decode_raw(const uint8_t *data, Py_ssize_t nbytes, void *out, Py_ssize_t cap,
                                 int kind, int path, bint exact,
                                 Py_ssize_t *consumed) except -1 nogil
cdef Py_ssize_t chimp_max_values_of(Py_ssize_t nbytes, int kind) noexcept nogil
