"""The official package's ``tsfile.constants``: the name of the time column and the enums.

The enums are those of :mod:`tsfile.types` (the same classes, not copies), so
``tsfile.constants.TSDataType is tsfile.TSDataType``."""

from enum import IntEnum, unique

from tsfile.types import ColumnCategory, Compressor, TSDataType, TSEncoding

TIME_COLUMN = "time"
"""The name of the time column of query results and DataFrames."""


@unique
class FileReadBackend(IntEnum):
    """How the official C++ reader reads files (``file_read_backend_`` of the config).

    This library always memory-maps the file; the value is kept in the process-wide config
    (:func:`tsfile.set_file_read_backend`) for code written for the official package."""

    AUTO = 0
    MMAP = 1
    PREAD = 2


NUMERIC_DATASET_FIELD_TYPES = frozenset(
    {
        TSDataType.BOOLEAN,
        TSDataType.INT32,
        TSDataType.INT64,
        TSDataType.FLOAT,
        TSDataType.DOUBLE,
        TSDataType.TIMESTAMP,
    }
)
"""Field types the official numeric dataset view reads (as float64)."""

__all__ = [
    "TIME_COLUMN",
    "TSDataType",
    "TSEncoding",
    "Compressor",
    "ColumnCategory",
    "FileReadBackend",
    "NUMERIC_DATASET_FIELD_TYPES",
]
