"""tsfile: read and write Apache TsFile files, and decode their columns at memory speed."""

from tsfile._simd import is_simd_enabled, set_simd, set_simd_enabled, simd_available, simd_info
from tsfile.errors import (
    AlreadyExistsError,
    ClosedError,
    ColumnNotExistError,
    CorruptDataError,
    DeviceNotExistError,
    EncodeError,
    InvalidSchemaError,
    OutOfOrderError,
    SimdUnavailableError,
    TableNotExistError,
    TsFileError,
    TypeMismatchError,
    UnsupportedError,
)

__version__ = "0.1.0"

# Public names that live in submodules, imported on first use (keeps `import tsfile` light and lets
# the reader, writer and pandas helpers load only when asked for).
_LAZY = {
    "TSDataType": "tsfile.types",
    "TSEncoding": "tsfile.types",
    "Compressor": "tsfile.types",
    "ColumnCategory": "tsfile.types",
    "AUTO": "tsfile.types",
    "ColumnSchema": "tsfile.schema",
    "TableSchema": "tsfile.schema",
    "TsFileReader": "tsfile.reader",
    "ResultSet": "tsfile.reader",
    "TsFileTableWriter": "tsfile.writer",
    "TsFileWriter": "tsfile.writer",
    "Tablet": "tsfile.tablet",
    "read_table": "tsfile.dataframe",
    "to_dataframe": "tsfile.dataframe",
    "read_arrow": "tsfile.dataframe",
    "TagFilter": "tsfile.filters",
    "tag_eq": "tsfile.filters",
    "tag_neq": "tsfile.filters",
    "tag_lt": "tsfile.filters",
    "tag_lteq": "tsfile.filters",
    "tag_gt": "tsfile.filters",
    "tag_gteq": "tsfile.filters",
    "tag_between": "tsfile.filters",
    "tag_not_between": "tsfile.filters",
    "tag_regexp": "tsfile.filters",
    "tag_not_regexp": "tsfile.filters",
    "tag_is_null": "tsfile.filters",
    "tag_is_not_null": "tsfile.filters",
    "col": "tsfile._read.predicate",
    "TsFileDataFrame": "tsfile.dataset",
    "Timeseries": "tsfile.dataset",
    "AlignedTimeseries": "tsfile.dataset",
    "SeriesPath": "tsfile.dataset",
    "Scanner": "tsfile.dataset",
    "InvalidFilterError": "tsfile.errors",
}


def __getattr__(name):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'tsfile' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    *_LAZY,
    "simd_info",
    "simd_available",
    "is_simd_enabled",
    "set_simd",
    "set_simd_enabled",
    "TsFileError",
    "CorruptDataError",
    "TypeMismatchError",
    "AlreadyExistsError",
    "ClosedError",
    "UnsupportedError",
    "SimdUnavailableError",
    "EncodeError",
    "TableNotExistError",
    "ColumnNotExistError",
    "DeviceNotExistError",
    "InvalidSchemaError",
    "OutOfOrderError",
]
