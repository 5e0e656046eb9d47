# Shared run-time ISA level: codec modules cimport these to pick their kernels.
# simd_active(): the level is above scalar (codecs with only AVX2/NEON kernels use this);
# simd_level() / simd_cpu_features(): for codecs with an implementation table (tsfile_isa.h).
cdef bint simd_active() noexcept nogil
cdef int simd_level() noexcept nogil
cdef unsigned simd_cpu_features() noexcept nogil
