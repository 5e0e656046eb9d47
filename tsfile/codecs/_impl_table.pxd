# The per-ISA implementation table every SIMD codec keeps (include/tsfile_isa.h idiom), written
# once: a codec declares `cdef const tsfile_impl_head *_impl_at_level[IMPL_LEVELS]`, fills it at
# import with impl_table_fill() (one row per ISA level, picked by the codec's *_pick_impl) and
# casts `_impl_at_level[simd_level()]` to its own row type (every row struct starts with a
# tsfile_impl_head, so the cast is the row). A level switch (tsfile.set_simd) is then a lookup.
from tsfile._simd cimport simd_cpu_features, simd_level

cdef extern from "tsfile_isa.h" nogil:
    ctypedef struct tsfile_impl_head:
        const char *name
        int level
        unsigned need
    enum: TSFILE_LEVEL_AVX512

cdef enum:
    IMPL_LEVELS = TSFILE_LEVEL_AVX512 + 1

ctypedef size_t (*impl_pick_fn)(int level, unsigned features) noexcept nogil


cdef inline void impl_table_fill(const tsfile_impl_head **at_level, const void *rows,
                                 size_t stride, impl_pick_fn pick) noexcept:
    """Point at_level[level] at the row `pick` chooses for each level on this CPU (rows are
    `stride` bytes apart)."""
    cdef int level
    cdef unsigned features = simd_cpu_features()
    for level in range(IMPL_LEVELS):
        at_level[level] = <const tsfile_impl_head *>(
            <const char *>rows + pick(level, features) * stride)


cdef inline list impl_table_names(const tsfile_impl_head **at_level):
    """implementations(): the rows this CPU can run, best first ("scalar" last): the row chosen
    for each level that is that level's own."""
    return [at_level[level].name.decode()
            for level in range(TSFILE_LEVEL_AVX512, -1, -1)
            if at_level[level].level == level]


cdef inline str impl_table_active(const tsfile_impl_head **at_level):
    """active_implementation(): the row path="simd" and path="auto" run at the current level."""
    return at_level[simd_level()].name.decode()
