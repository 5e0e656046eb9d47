"""tsfile: read and write Apache TsFile files, and decode their columns at memory speed."""

from tsfile._simd import is_simd_enabled, set_simd_enabled, simd_available, simd_info
from tsfile.errors import (
    ColumnNotExistError,
    CorruptDataError,
    DeviceNotExistError,
    EncodeError,
    SimdUnavailableError,
    TableNotExistError,
    TsFileError,
    UnsupportedError,
)

__version__ = "0.1.0"

__all__ = [
    "simd_info",
    "simd_available",
    "is_simd_enabled",
    "set_simd_enabled",
    "TsFileError",
    "CorruptDataError",
    "UnsupportedError",
    "SimdUnavailableError",
    "EncodeError",
    "TableNotExistError",
    "ColumnNotExistError",
    "DeviceNotExistError",
]
