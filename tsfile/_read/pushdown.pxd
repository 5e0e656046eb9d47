# C-level entry points of the pushdown kernels, for the reader's page loop.
#
# time_window_rows(data, nbytes, t1, t2, path, out, cap, first_row, page_rows)
#     The timestamps of a TS_2DIFF int64 time page that lie in [t1, t2], decoding only the blocks
#     the module's block-skip plan (set_block_skip) cannot rule out, into out (room for cap
#     values). They are one run of page rows: *first_row gets its start (0 when empty),
#     *page_rows the page's timestamp count (from the block headers). Returns the run's length.
#     `path` is a PATH_* of tsfile.codecs._common. Corrupt pages (and timestamps that do not
#     increase) raise CorruptDataError naming the byte offset within the page.
from libc.stdint cimport int64_t, uint8_t

cdef Py_ssize_t time_window_rows(const uint8_t* data, Py_ssize_t nbytes, int64_t t1, int64_t t2,
                                 int path, int64_t* out, Py_ssize_t cap, Py_ssize_t* first_row,
                                 Py_ssize_t* page_rows) except -1 nogil
