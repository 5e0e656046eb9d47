"""The tree model's row and metadata classes, with the official package's names and accessors.

``Field(field_name, value=None, data_type=None)``: one value of a row (None = null), with the
official typed accessors (``get_int_value`` ... ``get_object_value``);
``RowRecord(device_id, timestamp, field_list=None)``: one row of one device, what
``TsFileWriter.write_row_record`` takes.

Per-series statistics, as ``TsFileReader.get_timeseries_metadata`` returns them (frozen
dataclasses, one per kind of data type, all with ``has_statistic``, ``row_count``,
``start_time`` and ``end_time``): ``IntTimeseriesStatistic`` (INT32, DATE, INT64, TIMESTAMP),
``FloatTimeseriesStatistic`` (FLOAT, DOUBLE), ``BoolTimeseriesStatistic``,
``StringTimeseriesStatistic`` (STRING: min/max and first/last), ``TextTimeseriesStatistic``
(TEXT: first/last), and ``TimeseriesStatistic`` for a BLOB series (nothing beyond the common
fields). ``TimeseriesMetadata`` describes one series, ``DeviceTimeseriesMetadataGroup`` one
device.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

import numpy as np

from tsfile.exceptions import DateTimeParseException, NoneDataTypeException
from tsfile.types import TSDataType

T = TSDataType
_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1
_FLOAT32_MAX = float(np.finfo(np.float32).max)
_NUMBERS = (T.INT32, T.INT64, T.FLOAT, T.DOUBLE)


def _date_of(value):
    """A DATE value as a datetime.date: given as a date, or as the int yyyyMMdd of the format."""
    if isinstance(value, datetime.date):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        v = int(value)
        try:
            return datetime.date(v // 10000, v // 100 % 100, v % 100)
        except ValueError:
            raise DateTimeParseException(f"{v} is not a date in the form yyyyMMdd") from None
    raise TypeError(f"a DATE value is a datetime.date or an int yyyyMMdd, not {type(value)}")


def _date_int(value) -> int:
    d = _date_of(value)
    return d.year * 10000 + d.month * 100 + d.day


class Field:
    """One named value of a tree-model row; ``value`` None is a null."""

    __slots__ = ("field_name", "value", "data_type")

    def __init__(self, field_name, value=None, data_type=None):
        self.field_name = field_name
        self.value = value
        self.data_type = None if data_type is None else TSDataType(data_type)

    def get_field_name(self):
        return self.field_name

    def get_data_type(self):
        return self.data_type

    def set_data_type(self, data_type):
        self.data_type = None if data_type is None else TSDataType(data_type)

    def get_value(self):
        return self.value

    def set_value(self, value):
        self.value = value

    def is_null(self):
        return self.value is None

    def _typed(self, accepted, what):
        """The checks every accessor shares: None for a null, else the data type must be set and
        one of `accepted` (TypeError naming what the accessor needs; the official
        NoneDataTypeException, also a TypeError, when no data type is set)."""
        if self.data_type is None:
            raise NoneDataTypeException(f"field {self.field_name!r} has no data type")
        if self.data_type not in accepted:
            raise TypeError(
                f"field {self.field_name!r}: {what} needs a "
                f"{'/'.join(t.name for t in accepted)} field, not {self.data_type.name}"
            )

    def get_bool_value(self):
        if self.value is None:
            return None
        self._typed((T.BOOLEAN,), "get_bool_value")
        if not isinstance(self.value, (bool, np.bool_)):
            raise TypeError(f"field {self.field_name!r}: {self.value!r} is not a bool")
        return bool(self.value)

    def get_int_value(self):
        """INT32 (and DATE as yyyyMMdd); numbers must fit an int32 (OverflowError)."""
        if self.value is None:
            return None
        self._typed((*_NUMBERS, T.DATE), "get_int_value")
        if self.data_type == T.DATE:
            return _date_int(self.value)
        if not _INT32_MIN <= self.value <= _INT32_MAX:
            raise OverflowError(f"field {self.field_name!r}: {self.value} does not fit an int32")
        return np.int32(self.value)

    def get_long_value(self):
        if self.value is None:
            return None
        self._typed(_NUMBERS, "get_long_value")
        return np.int64(self.value)

    def get_timestamp_value(self):
        if self.value is None:
            return None
        self._typed((T.TIMESTAMP, T.INT64), "get_timestamp_value")
        return np.int64(self.value)

    def get_float_value(self):
        if self.value is None:
            return None
        self._typed(_NUMBERS, "get_float_value")
        if not -_FLOAT32_MAX <= self.value <= _FLOAT32_MAX and not np.isnan(self.value):
            raise OverflowError(f"field {self.field_name!r}: {self.value} does not fit a float32")
        return np.float32(self.value)

    def get_double_value(self):
        if self.value is None:
            return None
        self._typed(_NUMBERS, "get_double_value")
        return np.float64(self.value)

    def get_date_value(self):
        if self.value is None:
            return None
        self._typed((T.DATE, T.INT64), "get_date_value")
        return _date_of(self.value)

    def get_string_value(self):
        """TEXT/STRING as str, BLOB as its bytes, other types as the text of their value."""
        if self.value is None:
            return None
        self._typed(tuple(T), "get_string_value")
        if self.data_type in (T.TEXT, T.STRING):
            return str(self.value)
        if self.data_type == T.BLOB:
            return self.value
        return str(self.get_object_value(self.data_type))

    def get_bytes_value(self):
        if self.value is None:
            return None
        self._typed((T.BLOB,), "get_bytes_value")
        return self.value

    def get_object_value(self, data_type):
        """The value converted to the Python/numpy type of `data_type`."""
        if self.value is None:
            return None
        data_type = TSDataType(data_type)
        convert = _OBJECT_CONVERSIONS.get(data_type)
        if convert is None:
            raise TypeError(f"no value conversion for data type {data_type.name}")
        return convert(self.value)

    def __str__(self):
        text = self.get_string_value()
        return "None" if text is None else str(text)

    def __repr__(self):
        dt = None if self.data_type is None else self.data_type.name
        return f"Field({self.field_name!r}, {self.value!r}, {dt})"


_OBJECT_CONVERSIONS = {
    T.BOOLEAN: bool,
    T.INT32: np.int32,
    T.INT64: np.int64,
    T.TIMESTAMP: np.int64,
    T.FLOAT: np.float32,
    T.DOUBLE: np.float64,
    T.DATE: _date_of,
    T.TEXT: lambda v: v,
    T.STRING: lambda v: v,
    T.BLOB: lambda v: v,
}


class RowRecord:
    """One row of a tree-model device: the device path, a timestamp and its fields."""

    __slots__ = ("_device_id", "_timestamp", "_fields")

    def __init__(self, device_id, timestamp, field_list=None):
        self._device_id = device_id
        self._timestamp = timestamp
        self._fields = [] if field_list is None else list(field_list)

    def add_field(self, field_name, value, data_type):
        self._fields.append(Field(field_name, value, data_type))

    def get_device_id(self):
        return self._device_id

    def set_device_id(self, device_id):
        self._device_id = device_id

    def get_timestamp(self):
        return self._timestamp

    def set_timestamp(self, timestamp):
        self._timestamp = timestamp

    def get_fields(self):
        return self._fields

    def set_fields(self, field_list):
        self._fields = list(field_list)

    def set_field(self, index, field):
        self._fields[index] = field

    def get_fields_num(self):
        return len(self._fields)

    def __str__(self):
        # the official layout: the timestamp, then each field after two tabs
        return "".join([str(self._timestamp), *(f"\t\t{f}" for f in self._fields)])

    def __repr__(self):
        return f"RowRecord({self._device_id!r}, {self._timestamp!r}, {self._fields!r})"


# -- statistics -----------------------------------------------------------------------------


@dataclass(frozen=True)
class TimeseriesStatistic:
    """What every series has: whether statistics exist, the point count, first and last time."""

    has_statistic: bool
    row_count: int
    start_time: int
    end_time: int


@dataclass(frozen=True)
class IntTimeseriesStatistic(TimeseriesStatistic):
    """INT32, DATE, INT64, TIMESTAMP series."""

    sum: float
    min_int64: int
    max_int64: int
    first_int64: int
    last_int64: int


@dataclass(frozen=True)
class FloatTimeseriesStatistic(TimeseriesStatistic):
    """FLOAT, DOUBLE series."""

    sum: float
    min_float64: float
    max_float64: float
    first_float64: float
    last_float64: float


@dataclass(frozen=True)
class BoolTimeseriesStatistic(TimeseriesStatistic):
    """BOOLEAN series (sum = the number of true values)."""

    sum: float
    first_bool: bool
    last_bool: bool


@dataclass(frozen=True)
class StringTimeseriesStatistic(TimeseriesStatistic):
    """STRING series: min/max by code point, first/last by time."""

    str_min: str | None
    str_max: str | None
    str_first: str | None
    str_last: str | None


@dataclass(frozen=True)
class TextTimeseriesStatistic(TimeseriesStatistic):
    """TEXT series: first/last by time (the format keeps no min/max for TEXT)."""

    str_first: str | None
    str_last: str | None


@dataclass(frozen=True)
class TimeseriesMetadata:
    """One series of a device: name, type, number of chunks and its statistics
    (timeline_statistic: of the time column for an aligned device, else the same).

    Where its records are, as the official package reports them (for readers that go to the
    index directly): value_metadata_offset / _length, the file offset and size of the series'
    TimeseriesMetadata; for an aligned device time_metadata_offset / _length and
    time_chunk_meta_count of its time column's (else 0); layout 1 for an aligned device, 0
    for a non-aligned one; locator_flags 1 when the series' chunks can be read through these
    records (always, except an aligned series whose chunk count differs from its time
    column's)."""

    measurement_name: str
    data_type: TSDataType
    chunk_meta_count: int
    statistic: TimeseriesStatistic
    timeline_statistic: TimeseriesStatistic
    value_metadata_offset: int = 0
    value_metadata_length: int = 0
    time_metadata_offset: int = 0
    time_metadata_length: int = 0
    time_chunk_meta_count: int = 0
    layout: int = 0
    locator_flags: int = 0


@dataclass(frozen=True)
class DeviceID:
    """A device as the official package names one: its path, table name and segments (None for
    a null tag). TsFileReader.get_timeseries_metadata takes these too: by segments when they
    are given, else by path (a tree-model path such as "root.sg1.d1")."""

    path: str | None
    table_name: str | None
    segments: tuple


@dataclass(frozen=True)
class DeviceTimeseriesMetadataGroup:
    """One device's series, with its table name (tree model: the first path segment) and path
    segments."""

    table_name: str | None
    segments: tuple
    timeseries: list


def _text(value):
    if value is None:
        return None
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "replace")
    return str(value)


def _fields(stats, sum_type, *value_types):
    """sum, min, max, first, last of numeric statistics, converted to the given types."""
    values = (stats.min, stats.max, stats.first, stats.last)
    return (
        sum_type(stats.sum),
        *(convert(v) for convert, v in zip(value_types, values, strict=True)),
    )


def _common_fields(stats):
    """has_statistic, row_count, start_time, end_time of a series' statistics. A
    TimeseriesMetadata record always carries its statistics block, so has_statistic is True
    even when the block counts no value (a table-model field a device wrote only nulls): as
    the official reader reports it; a count of 0 is row_count's to say."""
    return (True, int(stats.count), int(stats.start_time), int(stats.end_time))


def statistic_of(data_type, stats) -> TimeseriesStatistic:
    """The official statistic object of a series of `data_type` from the file's statistics
    (tsfile._format.statistics.Statistics)."""
    data_type = TSDataType(data_type)
    common = _common_fields(stats)
    if data_type in (T.INT32, T.DATE, T.INT64, T.TIMESTAMP):
        return IntTimeseriesStatistic(*common, *_fields(stats, float, int, int, int, int))
    if data_type in (T.FLOAT, T.DOUBLE):
        return FloatTimeseriesStatistic(*common, *_fields(stats, float, float, float, float, float))
    if data_type == T.BOOLEAN:
        return BoolTimeseriesStatistic(
            *common, float(stats.sum), bool(stats.first), bool(stats.last)
        )
    if data_type == T.STRING:
        return StringTimeseriesStatistic(
            *common, _text(stats.min), _text(stats.max), _text(stats.first), _text(stats.last)
        )
    if data_type == T.TEXT:
        return TextTimeseriesStatistic(*common, _text(stats.first), _text(stats.last))
    return TimeseriesStatistic(*common)


__all__ = [
    "Field",
    "RowRecord",
    "TimeseriesStatistic",
    "IntTimeseriesStatistic",
    "FloatTimeseriesStatistic",
    "BoolTimeseriesStatistic",
    "StringTimeseriesStatistic",
    "TextTimeseriesStatistic",
    "TimeseriesMetadata",
    "DeviceID",
    "DeviceTimeseriesMetadataGroup",
    "statistic_of",
]


# -- reading: the official objects from the file's metadata ----------------------------------


def metadata_group(dev_id, series: dict, record_length) -> DeviceTimeseriesMetadataGroup:
    """The DeviceTimeseriesMetadataGroup of one device from its {measurement: TimeseriesMeta}:
    its series in measurement order; an aligned device's time column ("") is not a series, its
    statistics are every series' timeline_statistic. record_length(tsm): the size in bytes of
    a series' TimeseriesMetadata record."""
    time_column = series.get("")
    time_at = time_len = time_chunks = 0
    if time_column is not None:
        time_at, time_len = time_column.at, record_length(time_column)
        time_chunks = len(time_column.chunks)
    timeseries = []
    for name in sorted(series, key=lambda s: s.encode("utf-8")):
        if name == "":
            continue
        tsm = series[name]
        stats = statistic_of(tsm.data_type, tsm.statistics)
        timeline = _common(time_column.statistics if time_column is not None else tsm.statistics)
        readable = time_column is None or len(tsm.chunks) == time_chunks
        timeseries.append(
            TimeseriesMetadata(
                name,
                TSDataType(tsm.data_type),
                len(tsm.chunks),
                stats,
                timeline,
                tsm.at,
                record_length(tsm),
                time_at,
                time_len,
                time_chunks,
                int(time_column is not None),
                int(readable),
            )
        )
    return DeviceTimeseriesMetadataGroup(dev_id.table_name, tuple(dev_id.segments), timeseries)


def _common(stats) -> TimeseriesStatistic:
    return TimeseriesStatistic(*_common_fields(stats))


def path_nodes(path: str) -> list:
    """The nodes of a tree device path (backquoted nodes may hold dots)."""
    from tsfile._format.device import split_tree_path

    return split_tree_path(path)


__all__ += ["metadata_group", "path_nodes"]


class PreparedSeries:
    """One series located by an index (TsFileReader.prepare_series): its TimeseriesMetadata,
    and for an aligned device the time column's, parsed once; query_prepared /
    query_prepared_multi read it without walking the file's index."""

    __slots__ = ("name", "data_type", "series", "time_series", "at", "closed")

    def __init__(self, series, time_series):
        self.series = series
        self.time_series = time_series
        self.name = series.measurement
        self.data_type = TSDataType(series.data_type)
        self.at = series.at
        self.closed = False

    @property
    def aligned(self) -> bool:
        return self.time_series is not None

    def close(self) -> None:
        self.closed = True

    def __repr__(self):
        kind = "aligned" if self.aligned else "non-aligned"
        return f"PreparedSeries({self.name!r}, {self.data_type.name}, {kind}, at={self.at})"


# The locator tuple of prepare_series, as the official dataset layer builds it.
LOCATOR_FIELDS = (
    "index_id",
    "file_id",
    "file_size",
    "file_fingerprint",
    "locator_id",
    "locator_flags",
    "layout",
    "value_metadata_offset",
    "value_metadata_length",
    "time_metadata_offset",
    "time_metadata_length",
)

__all__ += ["PreparedSeries", "LOCATOR_FIELDS"]
