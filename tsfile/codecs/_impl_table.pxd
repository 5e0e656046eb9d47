# The per-ISA implementation table every SIMD codec keeps (include/tsfile_isa.h idiom), written
# once. A codec builds its ImplTable at import from its C rows (one per ISA compiled in, every row
# struct starting with a tsfile_impl_head) and its *_pick_impl:
#
#   cdef ImplTable _impls = impl_table("rle", rle_impls, sizeof(rle_impl), RLE_N_IMPLS,
#                                      rle_pick_impl)
#   HAS_SIMD = _impls.publish(globals())  # and implementations(), active_implementation()
#
# and casts `_impls.row()` to its own row type in its kernels' callers (a level switch,
# tsfile.set_simd, is then an array lookup). Passing a codec name registers the table's
# active_implementation for tsfile.simd_info(); tables that are no codec's pass None.
# ImplTable is made of the three inline helpers below, which remain for code that keeps its own
# `const tsfile_impl_head *at_level[IMPL_LEVELS]`.
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


cdef class ImplTable:
    # at_level[level]: the row run at ISA `level` on this CPU, chosen once when the table is built
    cdef const tsfile_impl_head *at_level[IMPL_LEVELS]
    # the build carries SIMD rows (whether the CPU can run them is tsfile.simd_info's business)
    cdef readonly bint has_simd

    # The row path="simd" and path="auto" run at the current ISA level (scalar when it is scalar).
    cdef inline const tsfile_impl_head *row(self) noexcept nogil:
        return self.at_level[simd_level()]


cdef ImplTable impl_table(str codec, const void *rows, size_t stride, size_t n_rows,
                          impl_pick_fn pick)
