# C-level entry points of the pushdown kernels, for the reader's page loop.
#
# time_window_rows(data, nbytes, t1, t2, path, out, cap, first_row, page_rows)
#     The timestamps of a TS_2DIFF int64 time page that lie in [t1, t2], decoding only the blocks
#     the module's block-skip plan (set_block_skip) cannot rule out, into out (room for cap
#     values). They are one run of page rows: *first_row gets its start (0 when empty),
#     *page_rows the page's timestamp count (from the block headers). Returns the run's length.
#     `path` is a PATH_* of tsfile.codecs._common. Corrupt pages (and timestamps that do not
#     increase) raise CorruptDataError naming the byte offset within the page.
#
# has_row_skip(encoding, data_type) / value_rows(data_type, data, nbytes, start, stop, out, path)
#     Whether value_rows() reads pages of this encoding and type (TS_2DIFF INT32 / DATE / INT64 /
#     TIMESTAMP), and values start .. stop-1 of such a page (the values only: no row count or
#     null bitmap) into out (native layout, stop - start values): blocks before `start` are passed
#     by their headers, nothing after `stop` is read. CorruptDataError names the byte offset
#     within the values.
from libc.stdint cimport int64_t, uint8_t

cdef Py_ssize_t time_window_rows(const uint8_t* data, Py_ssize_t nbytes, int64_t t1, int64_t t2,
                                 int path, int64_t* out, Py_ssize_t cap, Py_ssize_t* first_row,
                                 Py_ssize_t* page_rows) except -1 nogil
cdef bint has_row_skip(int encoding, int data_type) noexcept nogil
cdef int value_rows(int data_type, const uint8_t* data, Py_ssize_t nbytes, Py_ssize_t start,
                    Py_ssize_t stop, uint8_t* out, int path) except -1 nogil
