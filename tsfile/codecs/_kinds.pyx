# cython: language_level=3
"""Value kinds of the PLAIN, RLE, ZIGZAG and DICTIONARY modules and their error messages.

Decoded values are numpy arrays: BOOLEAN -> bool, INT32/DATE -> int32, INT64/TIMESTAMP -> int64,
FLOAT -> float32, DOUBLE -> float64, TEXT/STRING/BLOB -> object array of ``bytes`` (the file reader
turns TEXT/STRING into ``str`` itself; the codecs never guess a character set).
"""
from cpython.bytes cimport PyBytes_CheckExact

cimport numpy as cnp

import numpy as np

from tsfile.errors import CorruptDataError, UnsupportedError
from tsfile.types import TSDataType

cnp.import_array()

_TS_KINDS = {
    TSDataType.BOOLEAN: KIND_BOOL,
    TSDataType.INT32: KIND_I32,
    TSDataType.DATE: KIND_I32,
    TSDataType.INT64: KIND_I64,
    TSDataType.TIMESTAMP: KIND_I64,
    TSDataType.VECTOR: KIND_I64,
    TSDataType.FLOAT: KIND_F32,
    TSDataType.DOUBLE: KIND_F64,
    TSDataType.TEXT: KIND_BIN,
    TSDataType.STRING: KIND_BIN,
    TSDataType.BLOB: KIND_BIN,
}
_DTYPES = (
    np.dtype(np.bool_),
    np.dtype(np.int32),
    np.dtype(np.int64),
    np.dtype(np.float32),
    np.dtype(np.float64),
    np.dtype(object),
)
_NAMES = ("BOOLEAN", "INT32", "INT64", "FLOAT", "DOUBLE", "binary")
_NP_KINDS = {dt: k for k, dt in enumerate(_DTYPES)}

_MESSAGES = {
    1: "data truncated",
    2: "malformed varint (too long or overflowing its type)",
    3: "negative length of a binary value",
    4: "bit width too large for the type",
    5: "bad bit-packed run header (last group count outside 1..8)",
    6: "run or value crosses the end of its block",
    7: "count larger than the data can hold",
    8: "block not consumed exactly by its values",
    9: "dictionary index out of range",
    10: "more values than allowed",
}


cdef int resolve_kind(object dtype) except -1:
    if isinstance(dtype, TSDataType):
        k = _TS_KINDS.get(dtype)
        if k is None:
            raise TypeError(f"data type {dtype.name} has no values to decode")
        return k
    if isinstance(dtype, (bool, int, float)) or dtype is None:
        raise TypeError(f"dtype must be a TSDataType or a numpy dtype, not {dtype!r}")
    try:
        dt = np.dtype(dtype)
    except (TypeError, ValueError):
        raise TypeError(f"dtype must be a TSDataType or a numpy dtype, not {dtype!r}") from None
    if dt.kind == "S":
        return KIND_BIN
    if dt.byteorder not in ("=", "|"):  # '>i8' and the like: values come out native anyway
        dt = dt.newbyteorder("=")
    k = _NP_KINDS.get(dt)
    if k is None:
        raise TypeError(f"no TsFile value type decodes to numpy dtype {dt}")
    return k


cdef int check_out_array(object out) except -1:
    # numpy's C API for every test (flag bits, not the `flags`/`dtype` attribute objects): this
    # check runs on every decode_into call, where the attribute lookups took ~0.3 us of a 1 us call
    if not cnp.PyArray_Check(out):
        raise TypeError(f"out must be a numpy array, not {type(out).__name__}")
    cdef cnp.ndarray a = <cnp.ndarray>out
    cdef int flags = cnp.PyArray_FLAGS(a)
    if (cnp.PyArray_NDIM(a) != 1 or not (flags & cnp.NPY_ARRAY_C_CONTIGUOUS)
            or not (flags & cnp.NPY_ARRAY_WRITEABLE)):
        raise ValueError("out must be a writeable 1-D contiguous array")
    # PyArray_ISBYTESWAPPED reads the dtype's own byte-order character, which is '|' for a
    # structured dtype whatever order its fields have; dtype.isnative looks into the fields, so
    # such dtypes (rare, off the common path) still get the byte-order error, not a TypeError
    if cnp.PyArray_ISBYTESWAPPED(a) or (cnp.PyArray_HASFIELDS(a) and not out.dtype.isnative):
        raise ValueError(f"out must have native byte order, not {out.dtype}")
    if not (flags & cnp.NPY_ARRAY_ALIGNED):
        # a view at an odd byte offset (np.frombuffer of a slice): the kernels store through
        # typed pointers, which C requires aligned
        raise ValueError(
            f"out must be aligned to its {out.dtype.itemsize}-byte items (it starts at byte "
            f"{out.ctypes.data % out.dtype.itemsize} of one); copy it into a fresh array"
        )
    return 0


cdef int kind_of_out(object out) except -1:
    check_out_array(out)
    k = _NP_KINDS.get(out.dtype)
    if k is None:
        raise TypeError(f"out has dtype {out.dtype}, which no TsFile value type decodes to")
    return k


cdef object kind_dtype(int kind):
    return _DTYPES[kind]


cdef str kind_name(int kind):
    return _NAMES[kind]


cdef int raise_corrupt_at(str what, str msg, size_t at, size_t n) except -1:
    raise CorruptDataError(f"{what}: {msg} at byte offset {at} (of {n})")


cdef int raise_kernel_error(int code, size_t at, size_t n, str what) except -1:
    return raise_corrupt_at(what, _MESSAGES.get(code, f"error {code}"), at, n)


cdef int raise_kernel_error_nogil(int code, size_t at, size_t n, const char *what) except -1 nogil:
    with gil:
        raise_kernel_error(code, at, n, what.decode("ascii"))
    return -1


cdef int check_kind_in(int kind, int allowed, str codec, str holds) except -1:
    if not (allowed >> kind) & 1:
        raise UnsupportedError(
            f"{codec}: {_NAMES[kind]} values are not supported ({codec} holds {holds})"
        )
    return 0


cdef int check_out_in(int kind, int allowed, str codec) except -1:
    if not (allowed >> kind) & 1:
        raise TypeError(f"{codec}: cannot decode into an array of {_NAMES[kind]} values")
    return 0


cdef Py_ssize_t per_value_into(per_value_fn fn, int kind, const uint8_t *src, Py_ssize_t n,
                               void *out, Py_ssize_t count) except -1:
    # `fn` fills a numpy array; give it one that views `out` itself (no buffer of its own, no
    # copy afterwards), so the per_value path writes each value straight to the caller's storage.
    dt = _DTYPES[kind]
    if count:
        arr = np.asarray(<unsigned char[:count * dt.itemsize]><unsigned char *>out).view(dt)
    else:
        arr = np.empty(0, dtype=dt)  # a zero-length pointer view cannot be made (out may be NULL)
    return fn(kind, <const unsigned char[:n]>src if n else b"", arr)


cdef object as_values(object values, int kind):
    from tsfile.errors import EncodeError

    target = _DTYPES[kind]
    arr = values if isinstance(values, np.ndarray) else np.asarray(values)
    if arr.ndim != 1:
        if arr.ndim == 0:
            raise TypeError("values must be a 1-D sequence, not a scalar")
        raise TypeError(f"values must be 1-D, got shape {arr.shape}")
    src = arr.dtype
    if src == target:
        return np.ascontiguousarray(arr)
    if arr.size == 0:
        return np.empty(0, dtype=target)
    if kind == KIND_BOOL:
        if src.kind in "biu":
            return np.ascontiguousarray(arr != 0)
    elif kind in (KIND_I32, KIND_I64):
        if src.kind == "O":
            try:
                arr = np.asarray(values, dtype=np.int64)
            except OverflowError:
                raise EncodeError(f"a value does not fit {_NAMES[kind]}") from None
            except (TypeError, ValueError):
                raise TypeError(f"cannot encode these objects as {_NAMES[kind]}") from None
            src = arr.dtype
        if src.kind in "biu":
            if src.kind != "b":
                info = np.iinfo(target)
                if arr.min() < info.min or arr.max() > info.max:
                    raise EncodeError(f"a value is outside the {_NAMES[kind]} range")
            return np.ascontiguousarray(arr.astype(target))
    elif kind in (KIND_F32, KIND_F64):
        if src.kind in "biuf" or src.kind == "O":
            try:
                return np.ascontiguousarray(arr.astype(target))
            except (TypeError, ValueError):
                raise TypeError(f"cannot encode these objects as {_NAMES[kind]}") from None
    raise TypeError(f"cannot encode {src} values as {_NAMES[kind]}")


cdef int infer_kind(object values) except -1:
    arr = values if isinstance(values, np.ndarray) else np.asarray(values)
    dt = arr.dtype
    if dt.kind in "OSU":
        return KIND_BIN
    if dt.kind == "b":
        return KIND_BOOL
    if dt.kind in "iu":
        # by size, not dtype equality: '>i4' is an int32 too (it inferred INT64 before)
        return KIND_I32 if dt.itemsize < 4 or (dt.itemsize == 4 and dt.kind == "i") else KIND_I64
    if dt.kind == "f":
        return KIND_F32 if dt.itemsize <= 4 else KIND_F64
    raise TypeError(f"cannot infer a TsFile type for dtype {dt}; pass dtype=")


cdef list as_binary_list(object values):
    if isinstance(values, (bytes, bytearray, str)):
        raise TypeError("values must be a sequence of bytes/str, not a single bytes/str")
    out = []
    for v in values:
        if isinstance(v, bytes):
            out.append(v)
        elif isinstance(v, str):
            out.append(v.encode("utf-8"))
        elif isinstance(v, (bytearray, memoryview, np.bytes_)):
            out.append(bytes(v))
        else:
            raise TypeError(f"binary values must be bytes or str, not {type(v).__name__}")
    return out


cdef list binary_items(object values):
    cdef Py_ssize_t i, n
    cdef list lst
    if type(values) is list:
        lst = <list>values
        n = len(lst)
        for i in range(n):
            if not PyBytes_CheckExact(lst[i]):
                return as_binary_list(values)
        return lst
    return as_binary_list(values)
