# Shared run-time ISA level: codec modules cimport these to pick their kernels.
# simd_active(): the level is above scalar (what path="auto" asks: codecs._common.resolve_path,
# and the read engine); simd_level() / simd_cpu_features(): for the codecs' implementation tables
# (tsfile_isa.h, tsfile/codecs/_impl_table.pxd).
cdef bint simd_active() noexcept nogil
cdef int simd_level() noexcept nogil
cdef unsigned simd_cpu_features() noexcept nogil
