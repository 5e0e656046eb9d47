"""Enumerations of the TsFile format, with the official codes (format notes 1.4), and the mapping of
data types to numpy dtypes."""

from __future__ import annotations

import datetime
from enum import IntEnum

import numpy as np


class TSDataType(IntEnum):
    BOOLEAN = 0
    INT32 = 1
    INT64 = 2
    FLOAT = 3
    DOUBLE = 4
    TEXT = 5
    VECTOR = 6  # only the time column of an aligned device
    UNKNOWN = 7
    TIMESTAMP = 8
    DATE = 9  # int32 yyyyMMdd
    BLOB = 10
    STRING = 11

    @property
    def numpy_dtype(self) -> np.dtype:
        """The numpy dtype of decoded values (object for TEXT/STRING/BLOB; DATE as int32)."""
        return _NUMPY_DTYPES[self]

    @property
    def is_binary(self) -> bool:
        return self in (TSDataType.TEXT, TSDataType.STRING, TSDataType.BLOB)

    def to_py_type(self) -> type:
        return _PY_TYPES[self]

    def to_pandas_dtype(self) -> str:
        """The nullable pandas dtype used for this type in DataFrames."""
        return _PANDAS_DTYPES[self]

    @classmethod
    def from_pandas_datatype(cls, dtype) -> TSDataType:
        dt = np.dtype(dtype) if not hasattr(dtype, "numpy_dtype") else dtype.numpy_dtype
        kind, size = dt.kind, dt.itemsize
        if kind == "b":
            return cls.BOOLEAN
        if kind in "iu":
            return cls.INT32 if size <= 4 and not (kind == "u" and size == 4) else cls.INT64
        if kind == "f":
            return cls.FLOAT if size == 4 else cls.DOUBLE
        if kind == "M":
            return cls.TIMESTAMP
        if kind in "OUS":
            return cls.STRING
        raise TypeError(f"no TsFile data type for dtype {dtype!r}")


_NUMPY_DTYPES = {
    TSDataType.BOOLEAN: np.dtype(np.bool_),
    TSDataType.INT32: np.dtype(np.int32),
    TSDataType.INT64: np.dtype(np.int64),
    TSDataType.FLOAT: np.dtype(np.float32),
    TSDataType.DOUBLE: np.dtype(np.float64),
    TSDataType.TEXT: np.dtype(object),
    TSDataType.VECTOR: np.dtype(np.int64),
    TSDataType.UNKNOWN: np.dtype(object),
    TSDataType.TIMESTAMP: np.dtype(np.int64),
    TSDataType.DATE: np.dtype(np.int32),
    TSDataType.BLOB: np.dtype(object),
    TSDataType.STRING: np.dtype(object),
}

_PY_TYPES = {
    TSDataType.BOOLEAN: bool,
    TSDataType.INT32: int,
    TSDataType.INT64: int,
    TSDataType.FLOAT: float,
    TSDataType.DOUBLE: float,
    TSDataType.TEXT: str,
    TSDataType.VECTOR: int,
    TSDataType.UNKNOWN: object,
    TSDataType.TIMESTAMP: int,
    TSDataType.DATE: datetime.date,
    TSDataType.BLOB: bytes,
    TSDataType.STRING: str,
}

_PANDAS_DTYPES = {
    TSDataType.BOOLEAN: "boolean",
    TSDataType.INT32: "Int32",
    TSDataType.INT64: "Int64",
    TSDataType.FLOAT: "Float32",
    TSDataType.DOUBLE: "Float64",
    TSDataType.TEXT: "object",
    TSDataType.VECTOR: "Int64",
    TSDataType.UNKNOWN: "object",
    TSDataType.TIMESTAMP: "Int64",
    TSDataType.DATE: "object",
    TSDataType.BLOB: "object",
    TSDataType.STRING: "object",
}


class TSEncoding(IntEnum):
    PLAIN = 0
    DICTIONARY = 1
    RLE = 2
    DIFF = 3
    TS_2DIFF = 4
    BITMAP = 5
    GORILLA_V1 = 6
    REGULAR = 7
    GORILLA = 8
    ZIGZAG = 9
    FREQ = 10
    CHIMP = 11
    SPRINTZ = 12
    RLBE = 13
    CAMEL = 14
    # The draft TsFile ALP codec (alp-format notes): an extension the official 2.5 cannot read.
    ALP = 15


# encoding="auto": not a format code but a writer option of this library for FLOAT and DOUBLE
# columns. Each chunk is written with ALP or GORILLA, whichever its values make smaller; the chunk
# header names the encoding used (tsfile.writer documents the rules).
AUTO = "auto"


def encoding_or_auto(value) -> TSEncoding | str:
    """TSEncoding(value), or AUTO for the string "auto" (any case)."""
    if isinstance(value, str) and value.lower() == AUTO:
        return AUTO
    return TSEncoding(value)


class Compressor(IntEnum):
    UNCOMPRESSED = 0
    SNAPPY = 1
    GZIP = 2
    LZO = 3
    SDT = 4
    PAA = 5
    PLA = 6
    LZ4 = 7
    ZSTD = 8
    LZMA2 = 9


class ColumnCategory(IntEnum):
    TAG = 0
    FIELD = 1
    ATTRIBUTE = 2
    TIME = 3


def date_to_int(value: datetime.date) -> int:
    """DATE columns hold the calendar date as the decimal number yyyyMMdd."""
    return value.year * 10000 + value.month * 100 + value.day


def int_to_date(value: int) -> datetime.date:
    from tsfile.errors import CorruptDataError

    try:
        return datetime.date(value // 10000, value // 100 % 100, value % 100)
    except ValueError:
        raise CorruptDataError(f"DATE value {value} is not a valid yyyyMMdd date") from None


__all__ = [
    "TSDataType",
    "TSEncoding",
    "AUTO",
    "encoding_or_auto",
    "Compressor",
    "ColumnCategory",
    "date_to_int",
    "int_to_date",
]
