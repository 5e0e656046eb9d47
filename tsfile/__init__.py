"""tsfile: read and write Apache TsFile files, and decode their columns at memory speed."""

from tsfile._simd import is_simd_enabled, set_simd, set_simd_enabled, simd_available, simd_info
from tsfile.errors import (
    ClosedError,
    CorruptDataError,
    SimdUnavailableError,
    TsFileNotFoundError,
    UnsupportedError,
    WriterClosedError,
)
from tsfile.exceptions import *  # noqa: F403 (the official package exports every class)
from tsfile.exceptions import __all__ as _exception_names

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
    "TIME_COLUMN": "tsfile.constants",
    "FileReadBackend": "tsfile.constants",
    "dataframe_to_tsfile": "tsfile.utils",
    "get_tsfile_config": "tsfile.config",
    "set_tsfile_config": "tsfile.config",
    "get_file_read_backend": "tsfile.config",
    "set_file_read_backend": "tsfile.config",
    "ResultSetMetaData": "tsfile._read.resultset",
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
    *_exception_names,
    "CorruptDataError",
    "ClosedError",
    "WriterClosedError",
    "TsFileNotFoundError",
    "UnsupportedError",
    "SimdUnavailableError",
]
