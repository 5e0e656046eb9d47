"""tsfile: read and write Apache TsFile files, and decode their columns at memory speed."""

from typing import TYPE_CHECKING

from tsfile._simd import is_simd_enabled, set_simd, set_simd_enabled, simd_available, simd_info
from tsfile.errors import (
    ClosedError,
    CorruptDataError,
    InvalidFilterError,
    MissingDependencyError,
    NoCurrentRowError,
    SimdUnavailableError,
    TsFileNotFoundError,
    UnsupportedError,
    ValueOutOfRangeError,
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
    "TimeseriesSchema": "tsfile.schema",
    "DeviceSchema": "tsfile.schema",
    "RowRecord": "tsfile.tree",
    "Field": "tsfile.tree",
    "TimeseriesStatistic": "tsfile.tree",
    "IntTimeseriesStatistic": "tsfile.tree",
    "FloatTimeseriesStatistic": "tsfile.tree",
    "BoolTimeseriesStatistic": "tsfile.tree",
    "StringTimeseriesStatistic": "tsfile.tree",
    "TextTimeseriesStatistic": "tsfile.tree",
    "TimeseriesMetadata": "tsfile.tree",
    "DeviceID": "tsfile.tree",
    "DeviceTimeseriesMetadataGroup": "tsfile.tree",
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
    "TIME_COLUMN": "tsfile.constants",
    "FileReadBackend": "tsfile.constants",
    "dataframe_to_tsfile": "tsfile.utils",
    "get_tsfile_config": "tsfile.config",
    "set_tsfile_config": "tsfile.config",
    "get_file_read_backend": "tsfile.config",
    "set_file_read_backend": "tsfile.config",
    "ResultSetMetaData": "tsfile._read.resultset",
    "set_memory_retention": "tsfile._mem.pool",
    "release_memory": "tsfile._mem.pool",
    "memory_info": "tsfile._mem.pool",
}


if TYPE_CHECKING:  # the lazy names, for type checkers and IDEs (module __getattr__ is Any)
    from tsfile._mem.pool import memory_info, release_memory, set_memory_retention  # noqa: F401
    from tsfile._read.predicate import col  # noqa: F401
    from tsfile._read.resultset import ResultSetMetaData  # noqa: F401
    from tsfile.config import (  # noqa: F401
        get_file_read_backend,
        get_tsfile_config,
        set_file_read_backend,
        set_tsfile_config,
    )
    from tsfile.constants import TIME_COLUMN, FileReadBackend  # noqa: F401
    from tsfile.dataframe import read_arrow, read_table, to_dataframe  # noqa: F401
    from tsfile.dataset import (  # noqa: F401
        AlignedTimeseries,
        Scanner,
        SeriesPath,
        Timeseries,
        TsFileDataFrame,
    )
    from tsfile.filters import (  # noqa: F401
        TagFilter,
        tag_between,
        tag_eq,
        tag_gt,
        tag_gteq,
        tag_is_not_null,
        tag_is_null,
        tag_lt,
        tag_lteq,
        tag_neq,
        tag_not_between,
        tag_not_regexp,
        tag_regexp,
    )
    from tsfile.reader import ResultSet, TsFileReader  # noqa: F401
    from tsfile.schema import ColumnSchema, DeviceSchema, TableSchema, TimeseriesSchema  # noqa: F401
    from tsfile.tablet import Tablet  # noqa: F401
    from tsfile.tree import (  # noqa: F401
        BoolTimeseriesStatistic,
        DeviceID,
        DeviceTimeseriesMetadataGroup,
        Field,
        FloatTimeseriesStatistic,
        IntTimeseriesStatistic,
        RowRecord,
        StringTimeseriesStatistic,
        TextTimeseriesStatistic,
        TimeseriesMetadata,
        TimeseriesStatistic,
    )
    from tsfile.types import AUTO, ColumnCategory, Compressor, TSDataType, TSEncoding  # noqa: F401
    from tsfile.utils import dataframe_to_tsfile  # noqa: F401
    from tsfile.writer import TsFileTableWriter, TsFileWriter  # noqa: F401


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
    "InvalidFilterError",
    "NoCurrentRowError",
    "WriterClosedError",
    "TsFileNotFoundError",
    "MissingDependencyError",
    "UnsupportedError",
    "SimdUnavailableError",
    "ValueOutOfRangeError",
]
