# Shared run-time SIMD switch: codec modules cimport simd_active() to pick their "auto" path.
cdef bint simd_active() noexcept nogil
