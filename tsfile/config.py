"""The official package's process-wide configuration: ``get_tsfile_config()`` /
``set_tsfile_config(dict)`` with the official keys, and ``get_file_read_backend()`` /
``set_file_read_backend()``.

Here the configuration holds the process-wide DEFAULTS of the writers: a TsFileWriter or
TsFileTableWriter created afterwards uses the configured encoding of each data type,
compressions, points per page, index degree and bloom filter error rate for every option it is
not given (its keyword options and a ColumnSchema's own encoding/compression still win, per
writer and per column). As in the official package, every writer reports its
``memory_threshold`` as ``chunk_group_size_threshold_``.

Keys with no effect here are kept for code written for the official package:
``tsblock_*``, ``record_count_for_next_mem_check_``, ``time_data_type_`` (always INT64),
``encrypt_flag_`` (encryption is not written) and ``file_read_backend_`` (files are always
memory-mapped).

Values are checked (unlike the official package, an unknown key is refused too): a value of the
wrong kind or out of range is TypeMismatchError (a TypeError and a ValueError), an encoding or
compression this library cannot write for that key is UnsupportedError (the official
NotSupportedError)."""

from __future__ import annotations

import copy
import operator
import threading
from enum import IntEnum
from typing import Any

from tsfile import compression as _compression
from tsfile.constants import FileReadBackend
from tsfile.errors import TypeMismatchError, UnsupportedError
from tsfile.types import Compressor, TSDataType, TSEncoding

# key -> the data types whose default encoding it sets (first: the type it is checked with)
ENCODING_KEYS: dict[str, tuple[TSDataType, ...]] = {
    "boolean_encoding_type_": (TSDataType.BOOLEAN,),
    "int32_encoding_type_": (TSDataType.INT32, TSDataType.DATE),
    "int64_encoding_type_": (TSDataType.INT64, TSDataType.TIMESTAMP),
    "float_encoding_type_": (TSDataType.FLOAT,),
    "double_encoding_type_": (TSDataType.DOUBLE,),
    "string_encoding_type_": (TSDataType.STRING, TSDataType.TEXT, TSDataType.BLOB),
}
COMPRESSION_KEYS = ("time_compress_type_", "default_compression_type_")
# integer key -> smallest valid value
INT_KEYS: dict[str, int] = {
    "tsblock_mem_inc_step_size_": 1,
    "tsblock_max_memory_": 1,
    "page_writer_max_point_num_": 1,
    "page_writer_max_memory_bytes_": 1,
    "max_degree_of_index_node_": 2,
    "chunk_group_size_threshold_": 0,
    "record_count_for_next_mem_check_": 1,
}
# integer key -> largest value: the official package's C++ field is uint32 (int32 for the two
# below), and it refuses a value beyond that instead of storing it
INT_KEY_MAX: dict[str, int] = {key: 2**32 - 1 for key in INT_KEYS}
INT_KEY_MAX["chunk_group_size_threshold_"] = 2**31 - 1
INT_KEY_MAX["record_count_for_next_mem_check_"] = 2**31 - 1
# The page compressions (SDT, PAA and PLA are lossy series transforms, not page compressions).
_PAGE_COMPRESSIONS = frozenset(
    {
        Compressor.UNCOMPRESSED,
        Compressor.SNAPPY,
        Compressor.GZIP,
        Compressor.LZO,
        Compressor.LZ4,
        Compressor.ZSTD,
        Compressor.LZMA2,
    }
)

DEFAULTS: dict[str, Any] = {
    "tsblock_mem_inc_step_size_": 8000,
    "tsblock_max_memory_": 2097152,
    "page_writer_max_point_num_": 10000,
    "page_writer_max_memory_bytes_": 131072,
    "max_degree_of_index_node_": 256,
    "tsfile_index_bloom_filter_error_percent_": 0.05,
    "time_encoding_type_": TSEncoding.TS_2DIFF,
    "time_data_type_": TSDataType.INT64,
    "time_compress_type_": Compressor.LZ4,
    "chunk_group_size_threshold_": 128 * 1024 * 1024,
    "record_count_for_next_mem_check_": 100,
    "encrypt_flag_": False,
    "boolean_encoding_type_": TSEncoding.PLAIN,
    "int32_encoding_type_": TSEncoding.TS_2DIFF,
    "int64_encoding_type_": TSEncoding.TS_2DIFF,
    "float_encoding_type_": TSEncoding.GORILLA,
    "double_encoding_type_": TSEncoding.GORILLA,
    "string_encoding_type_": TSEncoding.PLAIN,
    "default_compression_type_": Compressor.LZ4,
    "file_read_backend_": FileReadBackend.PREAD,
}
"""The official package's values of a fresh process."""

_lock = threading.Lock()
_config: dict[str, Any] = dict(DEFAULTS)


def _enum_value(key, value, enum_type):
    """``value`` as a member of ``enum_type``: a member, or a plain int naming one. A member of
    another enum (e.g. a TSDataType for a compression) is a mistake, not a number."""
    if isinstance(value, enum_type):
        return value
    if isinstance(value, (IntEnum, bool)) or not isinstance(value, int):
        raise TypeMismatchError(
            f"{key} must be a {enum_type.__name__}, got {type(value).__name__} {value!r}"
        )
    try:
        return enum_type(value)
    except ValueError:
        raise TypeMismatchError(f"{key}: {value!r} is not a {enum_type.__name__}") from None


def _check_int(key, value):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeMismatchError(f"{key} must be an int, got {type(value).__name__} {value!r}")
    value = operator.index(value)
    if value < INT_KEYS[key]:
        raise TypeMismatchError(f"{key} must be >= {INT_KEYS[key]}, got {value}")
    if value > INT_KEY_MAX[key]:
        raise TypeMismatchError(f"{key} must be <= {INT_KEY_MAX[key]}, got {value}")
    return value


def _check_encoding(key, value):
    from tsfile._write import encoders

    encoding = _enum_value(key, value, TSEncoding)
    if key == "time_encoding_type_":
        if encoding not in (TSEncoding.TS_2DIFF, TSEncoding.PLAIN):
            raise UnsupportedError(f"{key}: timestamps are written with TS_2DIFF or PLAIN")
        return encoding
    encoders.check_supported(encoding, ENCODING_KEYS[key][0])  # UnsupportedError
    return encoding


def _check_compression(key, value):
    code = _enum_value(key, value, Compressor)
    if code not in _PAGE_COMPRESSIONS:
        raise UnsupportedError(f"{key}: {code.name} is not a page compression")
    if not _compression.available(code):
        raise UnsupportedError(f"{key}: {code.name} needs an optional package to be written")
    return code


def _check_value(key, value):
    """The value stored for ``key``, or the error for a bad key or value."""
    if key in ENCODING_KEYS or key == "time_encoding_type_":
        return _check_encoding(key, value)
    if key in COMPRESSION_KEYS:
        return _check_compression(key, value)
    if key in INT_KEYS:
        return _check_int(key, value)
    if key == "tsfile_index_bloom_filter_error_percent_":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeMismatchError(f"{key} must be a float, got {type(value).__name__}")
        if not 0.0 < value < 1.0:
            raise TypeMismatchError(f"{key} must be in (0, 1), got {value!r}")
        return float(value)
    if key == "time_data_type_":
        if _enum_value(key, value, TSDataType) != TSDataType.INT64:
            raise UnsupportedError(f"{key}: timestamps are INT64")
        return TSDataType.INT64
    if key == "encrypt_flag_":
        if not isinstance(value, bool):
            raise TypeMismatchError(f"{key} must be a bool, got {type(value).__name__}")
        if value:
            raise UnsupportedError("encrypted TsFiles are not written by this library")
        return False
    if key == "file_read_backend_":
        return _enum_value(key, value, FileReadBackend)
    raise TypeMismatchError(f"unknown config key {key!r}; the keys are {sorted(DEFAULTS)}")


def get_tsfile_config() -> dict[str, Any]:
    """A copy of the process-wide configuration (the official keys and value types)."""
    with _lock:
        return copy.copy(_config)


def set_tsfile_config(config: dict[str, Any]) -> None:
    """Change the process-wide configuration: every key of ``config`` is checked first, then all
    are applied together (a bad key or value changes nothing). Writers created afterwards use
    the new defaults; writers already open keep theirs."""
    if not isinstance(config, dict):
        raise TypeError(f"set_tsfile_config needs a dict, got {type(config).__name__}")
    checked = {key: _check_value(key, value) for key, value in config.items()}
    with _lock:
        _config.update(checked)


def get_file_read_backend() -> FileReadBackend:
    """The configured ``file_read_backend_`` (files are memory-mapped whatever it says)."""
    with _lock:
        return _config["file_read_backend_"]


def set_file_read_backend(backend) -> None:
    """Set ``file_read_backend_`` (kept for the official API; reading always memory-maps)."""
    set_tsfile_config({"file_read_backend_": backend})


def writer_defaults() -> dict[str, Any]:
    """The TsFileWriter options the configuration gives (tsfile.writer applies them to every
    option a writer is not given)."""
    with _lock:
        cfg = dict(_config)
    encodings = {}
    for key, types in ENCODING_KEYS.items():
        for data_type in types:
            encodings[data_type] = cfg[key]
    return {
        "page_size": cfg["page_writer_max_point_num_"],
        "compression": cfg["default_compression_type_"],
        "time_compression": cfg["time_compress_type_"],
        "encodings": encodings,
        "time_encoding": cfg["time_encoding_type_"],
        "index_degree": cfg["max_degree_of_index_node_"],
        "bloom_error_rate": cfg["tsfile_index_bloom_filter_error_percent_"],
    }


def record_memory_threshold(memory_threshold: int) -> None:
    """What every official writer does on creation: its memory threshold becomes the reported
    ``chunk_group_size_threshold_``, capped at what the key holds (the official package wraps
    a larger one around to a negative number) so that the configuration still round-trips
    through set_tsfile_config."""
    cap = INT_KEY_MAX["chunk_group_size_threshold_"]
    with _lock:
        _config["chunk_group_size_threshold_"] = min(int(memory_threshold), cap)


__all__ = [
    "get_tsfile_config",
    "set_tsfile_config",
    "get_file_read_backend",
    "set_file_read_backend",
]
