# The C kernels of TS_2DIFF (include/ts2diff_*.h) as Cython sees them: declared once here and
# cimported by every module that calls them (tsfile/codecs/ts2diff.pyx, ts2diff_float.pyx and the
# reader's tsfile/_read/pushdown.pyx), so that a kernel's signature is written in one place.
# Declarations only (no module of its own).
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t

from tsfile.codecs._impl_table cimport tsfile_impl_head

cdef extern from "ts2diff_scalar.h" nogil:
    enum:
        TS2DIFF_MAX_BLOCK_DELTAS
        TS2DIFF_E_HEADER_TRUNC
        TS2DIFF_E_NEG_COUNT
        TS2DIFF_E_COUNT_LIMIT
        TS2DIFF_E_WIDTH
        TS2DIFF_E_DATA_TRUNC
        TS2DIFF_E_SHORT

    ctypedef struct ts2diff_error:
        int code
        int64_t offset
        int64_t value
        int64_t extra

    ctypedef struct ts2diff_stream:
        size_t pos
        ts2diff_error err

    # A block kernel: the first nd + 1 values of one block (ts2diff_scalar.h).
    ctypedef void (*ts2diff_block_fn_i64)(const uint8_t*, const uint8_t*, int, uint64_t, uint64_t,
                                          int64_t*, size_t)
    ctypedef void (*ts2diff_block_fn_i32)(const uint8_t*, const uint8_t*, int, uint32_t, uint32_t,
                                          int32_t*, size_t)

    ctypedef struct ts2diff_block:
        int64_t n
        int width
        size_t data_off
        size_t data_len

    void ts2diff_set_error(ts2diff_error* e, int code, size_t offset, int64_t value, int64_t extra)
    int ts2diff_parse_block(const uint8_t* buf, size_t nbytes, size_t pos, int is64,
                            ts2diff_block* b, ts2diff_error* e)
    int64_t ts2diff_count_values_c(const uint8_t* buf, size_t nbytes, int is64, ts2diff_error* e)
    void ts2diff_decode_i64_scalar(const uint8_t*, const uint8_t*, int, uint64_t, uint64_t,
                                   int64_t*, size_t)
    void ts2diff_decode_i32_scalar(const uint8_t*, const uint8_t*, int, uint32_t, uint32_t,
                                   int32_t*, size_t)
    int64_t ts2diff_decode_buffer_i64(const uint8_t* buf, size_t nbytes, int64_t* out,
                                      size_t count, ts2diff_block_fn_i64 kernel, ts2diff_error* e)
    int64_t ts2diff_decode_buffer_i32(const uint8_t* buf, size_t nbytes, int32_t* out,
                                      size_t count, ts2diff_block_fn_i32 kernel, ts2diff_error* e)

    void ts2diff_stream_init(ts2diff_stream* d, const uint8_t* buf, size_t nbytes, int is64)
    int ts2diff_stream_has_next(const ts2diff_stream* d)
    int ts2diff_stream_next_i64(ts2diff_stream* d, int64_t* v)
    int ts2diff_stream_next_i32(ts2diff_stream* d, int32_t* v)

    ctypedef struct ts2diff_blockinfo:
        uint64_t min_delta
        int32_t n
        int32_t width

    size_t ts2diff_encode_bound(size_t length, size_t bs, int is64)
    size_t ts2diff_block_count(size_t length, size_t bs)
    size_t ts2diff_plan_i64(const int64_t* v, size_t length, size_t bs, uint64_t carried_min,
                            ts2diff_blockinfo* info)
    size_t ts2diff_plan_i32(const int32_t* v, size_t length, size_t bs, uint64_t carried_min,
                            ts2diff_blockinfo* info)
    size_t ts2diff_write_i64(const int64_t* v, size_t length, size_t bs,
                             const ts2diff_blockinfo* info, uint8_t* out)
    size_t ts2diff_write_i32(const int32_t* v, size_t length, size_t bs,
                             const ts2diff_blockinfo* info, uint8_t* out)
    uint8_t* ts2diff_encode_block_i64(const int64_t* v, size_t m, uint8_t* o,
                                      uint64_t* carried_min)
    uint8_t* ts2diff_encode_block_i32(const int32_t* v, size_t m, uint8_t* o,
                                      uint64_t* carried_min)

# The implementation table (include/ts2diff_impls.h, idiom of tsfile_isa.h).
cdef extern from "ts2diff_impls.h" nogil:
    ctypedef size_t (*ts2diff_plan_fn_i64)(const int64_t*, size_t, size_t, uint64_t,
                                           ts2diff_blockinfo*)
    ctypedef size_t (*ts2diff_plan_fn_i32)(const int32_t*, size_t, size_t, uint64_t,
                                           ts2diff_blockinfo*)
    ctypedef size_t (*ts2diff_write_fn_i64)(const int64_t*, size_t, size_t,
                                            const ts2diff_blockinfo*, uint8_t*)
    ctypedef size_t (*ts2diff_write_fn_i32)(const int32_t*, size_t, size_t,
                                            const ts2diff_blockinfo*, uint8_t*)
    ctypedef struct ts2diff_impl:
        tsfile_impl_head head
        void (*init)()
        ts2diff_block_fn_i64 decode_i64
        ts2diff_block_fn_i32 decode_i32
        ts2diff_plan_fn_i64 plan_i64
        ts2diff_plan_fn_i32 plan_i32
        ts2diff_write_fn_i64 write_i64
        ts2diff_write_fn_i32 write_i32
    const ts2diff_impl* ts2diff_impls
    size_t TS2DIFF_N_IMPLS
    size_t ts2diff_pick_impl(int level, unsigned features)

# Row ranges of a page by its block headers (include/ts2diff_blockskip.h). `more`: a
# tsfile_prefix * (include/page_prefix.h) or NULL.
cdef extern from "ts2diff_blockskip.h" nogil:
    enum:
        TS2DIFF_E_OUT_CAP
        TS2DIFF_E_ROWS
        TS2DIFF_E_STREAM
    # The thread's scratch block for ts2diff_decode_rows_* (made once per thread, reused).
    ctypedef union ts2diff_rows_scratch_t:
        int64_t i64[1]
        int32_t i32[1]
    ts2diff_rows_scratch_t* ts2diff_rows_scratch()
    int ts2diff_decode_rows_i64(const uint8_t* buf, size_t nbytes, void* more, int64_t r0,
                                int64_t r1, ts2diff_block_fn_i64 kernel, int64_t* scratch,
                                int64_t* out, int64_t* skipped, ts2diff_error* e)
    int ts2diff_decode_rows_i32(const uint8_t* buf, size_t nbytes, void* more, int64_t r0,
                                int64_t r1, ts2diff_block_fn_i32 kernel, int32_t* scratch,
                                int32_t* out, int64_t* skipped, ts2diff_error* e)
