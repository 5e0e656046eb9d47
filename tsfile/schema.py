"""Table and column schemas, with the official package's names and behaviour (names lower-cased)."""

from __future__ import annotations

from tsfile._format.device import text_utf8
from tsfile.errors import ColumnNotExistError
from tsfile.types import ColumnCategory, Compressor, TSDataType, TSEncoding, encoding_or_auto


def check_name(what, text) -> None:
    """A name the file stores as UTF-8 (table and column names) must encode to it: a str with a
    lone surrogate is refused here, at the call that gives it, instead of as a bare
    UnicodeEncodeError when the metadata is written (which would leave the file without a tail)."""
    if not text.isascii():
        text_utf8(text, what)


class ColumnSchema:
    """One column of a table: name (lower-cased), data type, category, and optionally the encoding
    and compression its chunks use (None: the writer's defaults). encoding may also be "auto"
    (tsfile.types.AUTO; FLOAT and DOUBLE only): the writer picks ALP or GORILLA per chunk."""

    __slots__ = ("column_name", "data_type", "category", "encoding", "compression")

    def __init__(
        self, column_name, data_type, category=ColumnCategory.FIELD, encoding=None, compression=None
    ):
        if not isinstance(column_name, str) or not column_name:
            raise TypeError("column_name must be a non-empty str")
        check_name("column name", column_name)
        self.column_name = column_name.lower()
        self.data_type = TSDataType(data_type)
        self.category = ColumnCategory(category)
        self.encoding = None if encoding is None else encoding_or_auto(encoding)
        self.compression = None if compression is None else Compressor(compression)
        if self.category == ColumnCategory.TAG and self.data_type not in (
            TSDataType.STRING,
            TSDataType.TEXT,
        ):
            raise ValueError(f"TAG column {self.column_name!r} must be STRING or TEXT")
        if self.category == ColumnCategory.TIME and self.data_type not in (
            TSDataType.INT64,
            TSDataType.TIMESTAMP,
        ):
            raise ValueError(f"TIME column {self.column_name!r} must be INT64 or TIMESTAMP")

    def get_column_name(self):
        return self.column_name

    def get_data_type(self):
        return self.data_type

    def get_category(self):
        return self.category

    def __eq__(self, other):
        if not isinstance(other, ColumnSchema):
            return NotImplemented
        return (self.column_name, self.data_type, self.category) == (
            other.column_name,
            other.data_type,
            other.category,
        )

    def __hash__(self):
        return hash((self.column_name, self.data_type, self.category))

    def __repr__(self):
        # the official text (name unquoted, member names); the encoding and compression are
        # attributes, shown only for encoding="auto", which the official package lacks
        extra = f", encoding={self.encoding!r}" if isinstance(self.encoding, str) else ""
        return (
            f"ColumnSchema({self.column_name}, {self.data_type.name}, {self.category.name}{extra})"
        )


class TableSchema:
    """A table: its name (lower-cased) and columns in declaration order."""

    def __init__(self, table_name, columns):
        if not isinstance(table_name, str) or not table_name:
            raise TypeError("table_name must be a non-empty str")
        check_name("table name", table_name)
        self.table_name = table_name.lower()
        self.columns = []
        self._by_name = {}
        for column in columns:
            self.add_column(column)

    def add_column(self, column):
        if not isinstance(column, ColumnSchema):
            raise TypeError(f"expected a ColumnSchema, got {type(column).__name__}")
        if column.column_name in self._by_name:
            raise ValueError(
                f"duplicate column {column.column_name!r} in table {self.table_name!r}"
            )
        self.columns.append(column)
        self._by_name[column.column_name] = column

    def get_table_name(self):
        return self.table_name

    def get_columns(self):
        return list(self.columns)

    def get_column(self, name):
        try:
            return self._by_name[name.lower()]
        except KeyError:
            raise ColumnNotExistError(f"table {self.table_name!r} has no column {name!r}") from None

    def has_column(self, name):
        return name.lower() in self._by_name

    def get_time_column(self):
        for c in self.columns:
            if c.category == ColumnCategory.TIME:
                return c
        return None

    def get_column_names(self):
        return [c.column_name for c in self.columns]

    def get_tag_columns(self):
        return [c for c in self.columns if c.category == ColumnCategory.TAG]

    def get_field_columns(self):
        return [c for c in self.columns if c.category == ColumnCategory.FIELD]

    def __eq__(self, other):
        if not isinstance(other, TableSchema):
            return NotImplemented
        return self.table_name == other.table_name and self.columns == other.columns

    def __repr__(self):
        cols = ", ".join(repr(c) for c in self.columns)
        return f"TableSchema({self.table_name}, [{cols}])"  # the official text


class TimeseriesSchema:
    """One series (measurement) of a tree-model device: its name, data type, and the encoding and
    compression of its chunks. The defaults are the official package's (PLAIN, UNCOMPRESSED), so
    a schema given to both writers gives the same chunks. Unlike table column names, measurement
    names keep their case (the tree model is case-sensitive)."""

    __slots__ = ("timeseries_name", "data_type", "encoding_type", "compression_type")

    def __init__(
        self,
        timeseries_name,
        data_type,
        encoding_type=TSEncoding.PLAIN,
        compression_type=Compressor.UNCOMPRESSED,
    ):
        if not isinstance(timeseries_name, str) or not timeseries_name:
            raise TypeError("timeseries_name must be a non-empty str")
        check_name("timeseries name", timeseries_name)
        self.timeseries_name = timeseries_name
        self.data_type = TSDataType(data_type)
        if self.data_type in (TSDataType.VECTOR, TSDataType.UNKNOWN):
            raise ValueError(f"a series cannot be of type {self.data_type.name}")
        self.encoding_type = TSEncoding(encoding_type)
        self.compression_type = Compressor(compression_type)

    def get_timeseries_name(self):
        return self.timeseries_name

    def get_data_type(self):
        return self.data_type

    def get_encoding_type(self):
        return self.encoding_type

    def get_compression_type(self):
        return self.compression_type

    def __eq__(self, other):
        if not isinstance(other, TimeseriesSchema):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def _key(self):
        return (self.timeseries_name, self.data_type, self.encoding_type, self.compression_type)

    def __repr__(self):
        # the official text: names without quotes, enum member names
        return (
            f"TimeseriesSchema({self.timeseries_name}, {self.data_type.name}, "
            f"{self.encoding_type.name}, {self.compression_type.name})"
        )


class DeviceSchema:
    """A tree-model device: its path (e.g. "root.sg1.d1") and its series, in the order given."""

    __slots__ = ("device_name", "timeseries_list")

    def __init__(self, device_name, timeseries_list):
        if not isinstance(device_name, str) or not device_name:
            raise TypeError("device_name must be a non-empty str")
        check_name("device name", device_name)
        self.device_name = device_name
        self.timeseries_list = list(timeseries_list)
        for ts in self.timeseries_list:
            if not isinstance(ts, TimeseriesSchema):
                raise TypeError(f"expected a TimeseriesSchema, got {type(ts).__name__}")

    def get_device_name(self):
        return self.device_name

    def get_timeseries_list(self):
        return list(self.timeseries_list)

    def __eq__(self, other):
        if not isinstance(other, DeviceSchema):
            return NotImplemented
        return (self.device_name, self.timeseries_list) == (
            other.device_name,
            other.timeseries_list,
        )

    def __repr__(self):
        return f"DeviceSchema({self.device_name}, {self.timeseries_list})"


# The official package defines its metadata classes in tsfile.schema; they live in tsfile.tree.
from tsfile.tree import (  # noqa: E402
    BoolTimeseriesStatistic,
    DeviceID,
    DeviceTimeseriesMetadataGroup,
    FloatTimeseriesStatistic,
    IntTimeseriesStatistic,
    StringTimeseriesStatistic,
    TextTimeseriesStatistic,
    TimeseriesMetadata,
    TimeseriesStatistic,
)

__all__ = [
    "ColumnSchema",
    "TableSchema",
    "TimeseriesSchema",
    "DeviceSchema",
    "check_name",
    "TimeseriesStatistic",
    "IntTimeseriesStatistic",
    "FloatTimeseriesStatistic",
    "BoolTimeseriesStatistic",
    "StringTimeseriesStatistic",
    "TextTimeseriesStatistic",
    "TimeseriesMetadata",
    "DeviceID",
    "DeviceTimeseriesMetadataGroup",
]
