# Helpers shared by every codec module: argument checking done the same way everywhere.

from libc.stdint cimport uint8_t

cdef enum:
    PATH_PER_VALUE = 0
    PATH_BATCH = 1
    PATH_SIMD = 2

# "per_value" / "batch" / "simd" / "auto" -> PATH_*; raises ValueError, TypeError or
# SimdUnavailableError. `codec_has_simd` says whether the codec has a SIMD path at all.
cdef int resolve_path(object path, bint codec_has_simd, str codec) except -1

# Any bytes-like object (bytes, bytearray, memoryview, 1-D uint8/int8 ndarray) as a contiguous
# read-only byte view; TypeError for anything else (str included).
cdef const unsigned char[::1] as_byte_view(object data)

# The same bytes as a pointer and length, without building a memoryview when `data` is exactly
# `bytes` (immutable, so the pointer stays valid while the caller holds `data`; the view costs
# about 0.2 us of a decode_into call). Returns the object that owns the bytes: hold it while
# *ptr is in use. *ptr is never NULL (an empty buffer points at a static empty string).
cdef object byte_span(object data, const uint8_t **ptr, Py_ssize_t *n)

# None -> -1; a non-negative int -> itself; TypeError / ValueError otherwise.
cdef Py_ssize_t check_count(object count) except -2
