# C level of the writer's statistics (tsfile/_write/_stats.pyx), for the chunk encoder
# (chunk_encode.pyx), which computes each page's statistics while the page is in cache.
from libc.stdint cimport int64_t, uint8_t, uint64_t

cdef enum:
    STATS_MAX_BYTES = 64  # serialized statistics of one numeric page: 5 + 16 + 40 at most

# The statistics of a chunk so far (pages merged in order) and the write segments' cursor.
# min, max, first and last are stored in the value type's own bytes at the start of the slot.
cdef struct stats_acc:
    Py_ssize_t count
    int64_t start
    int64_t end
    uint64_t lo
    uint64_t hi
    uint64_t first
    uint64_t last
    int64_t isum
    double dsum
    bint first_page
    bint emulate
    const int64_t *segs
    Py_ssize_t nseg
    Py_ssize_t k
    const uint8_t *batch

# Start a chunk; segs / batch: the write segments (INT64 and DOUBLE sums in the official
# writer's order, see numeric_chunk_stats), or NULL.
cdef void stats_acc_init(stats_acc *acc, const int64_t *segs, Py_ssize_t nseg,
                         const uint8_t *batch) noexcept nogil

# Page values[a:b] (b > a) of `kind` (KIND_*; BOOLEAN as its bytes): merged into acc and, unless
# out is NULL, serialized at out (at most STATS_MAX_BYTES). Returns the bytes written.
cdef Py_ssize_t stats_page(int kind, const void *values, const int64_t *times, Py_ssize_t a,
                           Py_ssize_t b, stats_acc *acc, unsigned char *out) noexcept nogil

# Merge into acc the statistics `part` of pages that come after acc's (a stats_acc started with
# stats_acc_init and fed by stats_page; its segment cursor is not merged): acc then holds what
# feeding acc those pages would have given, bit for bit.
cdef void stats_acc_merge(stats_acc *acc, const stats_acc *part, int kind) noexcept nogil

# The chunk's (count, start, end, min, max, first, last, sum), or None without values.
cdef object stats_acc_result(stats_acc *acc, int kind)
