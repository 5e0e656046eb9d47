# C-level entry points of the GORILLA codec, for Cython callers (the file reader's page loop).
#
#   from tsfile.codecs.gorilla cimport gorilla_decode_into, gorilla_encode_into, GOR_KIND_DOUBLE
#
# gorilla_decode_into(data, nbytes, out, count, kind, path)
#     Decode exactly `count` values of type `kind` (GOR_KIND_*: the output element is int32, int64,
#     float32 or float64) from the `nbytes` bytes at `data` into `out`, by count like the official
#     C++ reader (values equal to the end marker, which that writer stores, are returned as values). `path` is PATH_PER_VALUE or
#     PATH_BATCH from tsfile.codecs._common (PATH_SIMD is treated as PATH_BATCH: GORILLA has no SIMD
#     kernel). Returns the bytes consumed: up to and including the final byte after the end value
#     when the end value was reached, else the byte holding the last bit read. Raises
#     CorruptDataError (taking the GIL) when the data hold fewer than `count` values or are corrupt.
#     count == 0 returns 0 without reading.
#
# gorilla_encode_into(values, count, kind, out, out_cap, allow_end_markers)
#     Encode a page into `out` (at least gorilla_encode_capacity(count, kind) bytes). Returns the
#     size, or raises EncodeError naming the position of the first value equal to the end marker
#     (unless allow_end_markers: then such values are encoded as the official C++ writer does).
from libc.stdint cimport uint8_t

# GORILLA's kinds are the serial word kinds (_serial SK_* = _kinds KIND_* - 1), by their old names.
from tsfile.codecs._serial cimport SK_F32, SK_F64, SK_I32, SK_I64

cdef enum:
    GOR_KIND_INT32 = SK_I32
    GOR_KIND_INT64 = SK_I64
    GOR_KIND_FLOAT = SK_F32
    GOR_KIND_DOUBLE = SK_F64

cdef Py_ssize_t gorilla_decode_into(const uint8_t* data, Py_ssize_t nbytes, void* out,
                                    Py_ssize_t count, int kind, int path) except -1 nogil
cdef Py_ssize_t gorilla_encode_capacity(Py_ssize_t count, int kind) noexcept nogil
cdef Py_ssize_t gorilla_encode_into(const void* values, Py_ssize_t count, int kind,
                                    uint8_t* out, Py_ssize_t out_cap,
                                    bint allow_end_markers) except -1 nogil
