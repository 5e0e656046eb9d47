# C-level entry points of the TS_2DIFF codec, for Cython callers (the file reader's page loop).
#
#   from tsfile.codecs.ts2diff cimport ts2diff_decode_into_i64, ts2diff_count_values
#
# Stable interface (other modules cimport it; do not change these signatures):
#
# ts2diff_decode_into_i64 / _i32(data, nbytes, out, count, path)
#     Decode exactly `count` values from the `nbytes` bytes at `data` (consecutive TS_2DIFF blocks
#     of any block size) into `out`, which must have room for `count` values. `path` is one of
#     PATH_PER_VALUE / PATH_BATCH / PATH_SIMD from tsfile.codecs._common (resolve "auto" with
#     resolve_path() first); PATH_SIMD runs the batch kernel when SIMD is not active at the time of
#     the call (the values are identical). Returns the number of bytes consumed: the offset just
#     past the last block from which a value was taken (a block is consumed whole even when
#     `count` ends inside it). count == 0 returns 0 without reading (a negative count or size
#     raises ValueError). Every block header is checked
#     against the bytes present before anything is read; corrupt or short data raise
#     CorruptDataError (the GIL is taken only to raise) naming the problem and the byte offset.
#
# ts2diff_count_values(data, nbytes, is_int64)
#     The number of values held by the whole buffer, found by walking the block headers (each
#     header and its packed bytes are checked, the packed bits are not decoded). Needed for pages
#     that store no value count (non-aligned time pages). The buffer must end exactly at a block
#     end, otherwise CorruptDataError.
#
# ts2diff_skip_values(data, nbytes, k, is_int64)
#     Advance over the first k values by the block headers alone (whole blocks stepped over by
#     their delta count and bit width, nothing unpacked); returns k. Fewer values, or a bad header
#     among the blocks holding them, is CorruptDataError. Nothing is allocated.
#
# Limits: a block's delta count n must be in 0..TS2DIFF_MAX_BLOCK_DELTAS (4096; the format's
# writers use 128), width in 0..32 (int32) / 0..64 (int64), so a buffer of B bytes holds at most
# about 256 * B values: callers may allocate from ts2diff_count_values() without further checks.
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t

cdef Py_ssize_t ts2diff_decode_into_i64(const uint8_t* data, Py_ssize_t nbytes, int64_t* out,
                                        Py_ssize_t count, int path) except -1 nogil
cdef Py_ssize_t ts2diff_decode_into_i32(const uint8_t* data, Py_ssize_t nbytes, int32_t* out,
                                        Py_ssize_t count, int path) except -1 nogil
cdef Py_ssize_t ts2diff_count_values(const uint8_t* data, Py_ssize_t nbytes,
                                     bint is_int64) except -1 nogil
cdef Py_ssize_t ts2diff_skip_values(const uint8_t* data, Py_ssize_t nbytes, Py_ssize_t k,
                                    bint is_int64) except -1 nogil

# ts2diff_encode_page(values, count, is64, carried_min, dst, ahead, ahead_len)
#     Encode `count` int64 (is64) or int32 values as one page, exactly the bytes of
#     encode(values, prev_min_delta=carried_min[0]), into `dst`, which has room for
#     ts2diff_page_bound(count, is64) bytes. Returns the bytes written and leaves in carried_min
#     the min_delta for the chunk's next page (last_min_delta()). Never fails; no GIL needed.
#     `ahead` (NULL: none): ahead_len bytes the caller reads next (the chunk's next page), fetched
#     into the cache a slice per block meanwhile (prefetch hints only: never read, never fault).
cdef Py_ssize_t ts2diff_page_bound(Py_ssize_t count, bint is64) noexcept nogil
cdef Py_ssize_t ts2diff_encode_page(const void *values, Py_ssize_t count, bint is64,
                                    uint64_t *carried_min, uint8_t *dst, const uint8_t *ahead,
                                    Py_ssize_t ahead_len) noexcept nogil

# ts2diff_page_carry(values, count, is64, carried_in)
#     What ts2diff_encode_page leaves in carried_min for the same page (whose own carried_min
#     was carried_in): the min_delta of its last block with deltas, or carried_in when it has
#     none (a page of one value). Plans one block, writes nothing; no GIL needed. (A chunk's
#     pages encoded from the middle on start with the carry of the pages before.)
cdef uint64_t ts2diff_page_carry(const void *values, Py_ssize_t count, bint is64,
                                 uint64_t carried_in) noexcept nogil
