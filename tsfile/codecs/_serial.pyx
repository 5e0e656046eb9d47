# cython: language_level=3
"""Helpers shared by the serial bit-stream codecs (CHIMP, SPRINTZ, RLBE, CAMEL): dtype arguments and
error messages. Kernel status codes are the TSF_E_* values of include/bitreader_msb.h."""
import numpy as np

from tsfile.errors import CorruptDataError
from tsfile.types import TSDataType

_TS = {
    TSDataType.INT32: SK_I32,
    TSDataType.DATE: SK_I32,
    TSDataType.INT64: SK_I64,
    TSDataType.TIMESTAMP: SK_I64,
    TSDataType.VECTOR: SK_I64,
    TSDataType.FLOAT: SK_F32,
    TSDataType.DOUBLE: SK_F64,
}
_DTYPES = (np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.float32), np.dtype(np.float64))
_NP = {dt: k for k, dt in enumerate(_DTYPES)}
_NAMES = ("INT32", "INT64", "FLOAT", "DOUBLE")
_MESSAGES = {
    -1: "data truncated",
    -2: "corrupt field",
    -3: "count or length out of range",
}


cdef int _check_allowed(int k, int allowed, str codec) except -1:
    if not (allowed >> k) & 1:
        ok = ", ".join(_NAMES[i] for i in range(4) if (allowed >> i) & 1)
        raise TypeError(f"{codec} does not encode {_NAMES[k]} values (only {ok})")
    return k


cdef int serial_kind(object dtype, int allowed, str codec) except -1:
    cdef int k
    if isinstance(dtype, TSDataType):
        if dtype not in _TS:
            raise TypeError(f"{codec} does not encode {dtype.name} values")
        return _check_allowed(_TS[dtype], allowed, codec)
    if dtype is None or isinstance(dtype, (bool, int, float)):
        raise TypeError(f"dtype must be a TSDataType or a numpy dtype, not {dtype!r}")
    try:
        dt = np.dtype(dtype)
    except (TypeError, ValueError):
        raise TypeError(f"dtype must be a TSDataType or a numpy dtype, not {dtype!r}") from None
    if dt not in _NP:
        raise TypeError(f"{codec} cannot decode to numpy dtype {dt}")
    return _check_allowed(_NP[dt], allowed, codec)


cdef int serial_kind_of_out(object out, int allowed, str codec) except -1:
    if not isinstance(out, np.ndarray):
        raise TypeError(f"out must be a numpy array, not {type(out).__name__}")
    if out.ndim != 1 or not out.flags.c_contiguous or not out.flags.writeable:
        raise TypeError("out must be a writeable 1-D contiguous array")
    if out.dtype not in _NP:
        raise TypeError(f"{codec} cannot decode into an array of dtype {out.dtype}")
    return _check_allowed(_NP[out.dtype], allowed, codec)


cdef object serial_dtype(int kind):
    return _DTYPES[kind]


cdef str serial_kind_name(int kind):
    return _NAMES[kind]


cdef int serial_raise(int status, size_t at, size_t n, str what) except -1:
    msg = _MESSAGES.get(status, f"error {status}")
    raise CorruptDataError(f"{what}: {msg} at byte offset {at} (of {n})")


cdef int serial_raise_nogil(int status, size_t at, size_t n, const char *codec,
                            int kind) except -1 nogil:
    with gil:
        serial_raise(status, at, n, f"{codec.decode('ascii')} {_NAMES[kind]}")
    return -1


cdef tuple serial_values(object values, object dtype, int allowed, str codec):
    from tsfile.errors import EncodeError

    cdef int k
    arr = values if isinstance(values, np.ndarray) else np.asarray(values)
    if arr.ndim != 1:
        raise TypeError(f"values must be 1-D, got shape {arr.shape}")
    if dtype is None:
        if arr.dtype not in _NP:
            raise TypeError(f"{codec}: pass dtype= for values of numpy dtype {arr.dtype}")
        k = _check_allowed(_NP[arr.dtype], allowed, codec)
    else:
        k = serial_kind(dtype, allowed, codec)
    target = _DTYPES[k]
    if arr.dtype == target:
        return np.ascontiguousarray(arr), k
    if arr.size == 0:
        return np.empty(0, dtype=target), k
    src = arr.dtype.kind
    if target.kind == "i":
        if src == "O":
            try:
                arr = np.asarray(values, dtype=np.int64)
            except (OverflowError, TypeError, ValueError):
                raise TypeError(f"{codec}: cannot encode these objects as {_NAMES[k]}") from None
            src = "i"
        if src not in "biu":
            raise TypeError(f"{codec}: cannot encode {arr.dtype} values as {_NAMES[k]}")
        info = np.iinfo(target)
        if arr.min() < info.min or arr.max() > info.max:
            raise EncodeError(f"{codec}: a value is outside the {_NAMES[k]} range")
        return np.ascontiguousarray(arr.astype(target)), k
    if src not in "biufO":
        raise TypeError(f"{codec}: cannot encode {arr.dtype} values as {_NAMES[k]}")
    try:
        return np.ascontiguousarray(arr.astype(target)), k
    except (TypeError, ValueError):
        raise TypeError(f"{codec}: cannot encode these objects as {_NAMES[k]}") from None
