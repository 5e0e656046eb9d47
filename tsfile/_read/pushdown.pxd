# C-level entry points of the pushdown kernels, for the reader's page loop.
#
# tsfile_prefix (include/page_prefix.h): a page body decompressed only as far as it is read; the
#     `more` argument below (NULL: data[0:nbytes] is readable whole).
#
# time_window_rows(data, nbytes, more, t1, t2, path, out, cap, first_row, page_rows)
#     The timestamps of a TS_2DIFF int64 time page that lie in [t1, t2], decoding only the blocks
#     the module's block-skip plan (set_block_skip) cannot rule out, into out (room for cap
#     values). They are one run of page rows: *first_row gets its start (0 when empty),
#     *page_rows the page's timestamp count (from the block headers; -1 when a compressed page was
#     decompressed only as far as the window). Returns the run's length.
#     `path` is a PATH_* of tsfile.codecs._common. Corrupt pages (and timestamps that do not
#     increase) raise CorruptDataError naming the byte offset within the page.
#
# count_prefix(body)
#     Count a page body the reader has finished with in skip_counts() (its size and the bytes
#     decompressed, for SNAPPY / LZ4 bodies).
#
# has_row_skip(encoding, data_type) / value_rows(data_type, data, nbytes, more, start, stop, out,
#                                                path)
#     Whether value_rows() reads pages of this encoding and type (TS_2DIFF INT32 / DATE / INT64 /
#     TIMESTAMP), and values start .. stop-1 of such a page (the values only: no row count or
#     null bitmap) into out (native layout, stop - start values): blocks before `start` are passed
#     by their headers, nothing after `stop` is read. CorruptDataError names the byte offset
#     within the values.
from libc.stdint cimport int64_t, uint8_t, uint32_t


cdef extern from "page_prefix.h" nogil:
    enum:
        TSFILE_PREFIX_WHOLE
        TSFILE_PREFIX_SNAPPY
        TSFILE_PREFIX_LZ4
    ctypedef struct tsfile_prefix:
        uint8_t* dst
        size_t want
        size_t op
        int codec
        int rc
        size_t err_pos
    void tsfile_prefix_whole(tsfile_prefix* p, const uint8_t* body, size_t size)
    void tsfile_prefix_stream(tsfile_prefix* p, int codec, const uint8_t* src, size_t n,
                              size_t ip0, uint8_t* dst, size_t want)
    int tsfile_prefix_need(tsfile_prefix* p, size_t need)
    const char* tsfile_prefix_codec_name(const tsfile_prefix* p)
    const char* tsfile_prefix_strerror(const tsfile_prefix* p)
    int tsfile_snappy_length(const uint8_t* src, size_t n, uint32_t* length, size_t* pos)


cdef Py_ssize_t time_window_rows(const uint8_t* data, Py_ssize_t nbytes, tsfile_prefix* more,
                                 int64_t t1, int64_t t2, int path, int64_t* out, Py_ssize_t cap,
                                 Py_ssize_t* first_row, Py_ssize_t* page_rows) except -1 nogil
cdef bint has_row_skip(int encoding, int data_type) noexcept nogil
cdef void count_prefix(const tsfile_prefix* body) noexcept nogil
cdef int value_rows(int data_type, const uint8_t* data, Py_ssize_t nbytes, tsfile_prefix* more,
                    Py_ssize_t start, Py_ssize_t stop, uint8_t* out, int path) except -1 nogil
