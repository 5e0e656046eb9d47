# cython: language_level=3
"""Argument handling shared by all codec modules (see _common.pxd), and the codecs' error convention.

C kernels return status codes; the codec module turns a code into the package's exception in one
place (_kinds.raise_kernel_error / _serial.serial_raise for page bytes, _kinds.check_out_array for
output arrays, _kinds.as_values for values to encode). The same fault raises the same class in
every codec (tests/test_codec_contract.py checks each row of the registry):

=====================================================  ==========================================
fault                                                  exception
=====================================================  ==========================================
dtype no TsFile type decodes to / the codec does not   TypeError
hold (decode, decode_into ``out``)
``out`` not a numpy array                              TypeError
``out`` not 1-D, not C-contiguous, or read-only        ValueError
``out`` in non-native byte order                       ValueError
value outside the type's range (encode)                EncodeError
value the encoding cannot store (e.g. a GORILLA end    EncodeError
marker where refused)
bytes that are not a valid page / hold fewer values    CorruptDataError (message: codec, type and
than asked                                             byte offset in the page)
encoding or (encoding, type) with no codec             UnsupportedError
unknown ``path=`` name / negative ``count``            ValueError
``path="simd"`` without SIMD kernels                   SimdUnavailableError
=====================================================  ==========================================

Values to encode in non-native byte order are accepted and encoded by value in every codec.
"""
import numpy as np

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_CheckExact, PyBytes_GET_SIZE
from cpython.pyport cimport PY_SSIZE_T_MAX

from tsfile._simd cimport simd_active
from tsfile.errors import SimdUnavailableError

_PATHS = {"per_value": PATH_PER_VALUE, "batch": PATH_BATCH, "simd": PATH_SIMD}
PATH_NAMES = ("per_value", "batch", "simd", "auto")


cdef int resolve_path(object path, bint codec_has_simd, str codec) except -1:
    if not isinstance(path, str):
        raise TypeError(f"path must be a str, not {type(path).__name__}")
    if path == "auto":
        return PATH_SIMD if (codec_has_simd and simd_active()) else PATH_BATCH
    try:
        p = _PATHS[path]
    except KeyError:
        raise ValueError(
            f"unknown decode path {path!r}; expected one of {', '.join(map(repr, PATH_NAMES))}"
        ) from None
    if p == PATH_SIMD:
        if not codec_has_simd:
            raise SimdUnavailableError(f"{codec} has no SIMD path; use 'batch' or 'per_value'")
        if not simd_active():
            from tsfile._simd import simd_info
            raise SimdUnavailableError(
                f"{codec}: SIMD kernels are not available or switched off ({simd_info()})"
            )
    return p


cdef const unsigned char[::1] as_byte_view(object data):
    if isinstance(data, (bytes, bytearray)):
        return data
    if isinstance(data, np.ndarray):
        if data.ndim != 1 or data.dtype.itemsize != 1 or data.dtype.kind not in "ui":
            raise TypeError(f"expected a 1-D uint8 array, got {data.dtype} with shape {data.shape}")
        return np.ascontiguousarray(data).view(np.uint8)
    if isinstance(data, memoryview):
        if not data.c_contiguous:
            data = data.tobytes()
        elif data.format != "B" or data.ndim != 1:
            data = data.cast("B")
        return data
    if isinstance(data, str):
        raise TypeError("expected a bytes-like object, not str")
    try:
        mv = memoryview(data)
    except TypeError:
        raise TypeError(f"expected a bytes-like object, not {type(data).__name__}") from None
    return as_byte_view(mv)


cdef object byte_span(object data, const uint8_t **ptr, Py_ssize_t *n):
    if PyBytes_CheckExact(data):
        ptr[0] = <const uint8_t*>PyBytes_AS_STRING(data)
        n[0] = PyBytes_GET_SIZE(data)
        return data
    cdef const unsigned char[::1] view = as_byte_view(data)
    n[0] = view.shape[0]
    ptr[0] = &view[0] if n[0] > 0 else <const uint8_t*>b""
    return view


cdef Py_ssize_t check_count(object count) except -2:
    if count is None:
        return -1
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)):
        raise TypeError(f"count must be an int or None, not {type(count).__name__}")
    if count < 0:
        raise ValueError(f"count must be >= 0, got {count}")
    if count > PY_SSIZE_T_MAX:  # else an OverflowError from the conversion, naming nothing
        raise ValueError(f"count {count} is more values than an array can hold")
    return <Py_ssize_t>count
