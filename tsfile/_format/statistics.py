"""Statistics (format notes section 6), the one model the reader and the writer share: which
statistics each data type carries, how they are serialized and parsed, and how page statistics
merge into chunk and series statistics.

Statistics describe the non-null values of a page / chunk / series: count, start_time and end_time
(times of the first and last non-null value), then the typed part that LAYOUTS lists for the data
type, in file order. Statistics with count 0 serialize as zeros (C++ writes them so for all-null
series).

The writer computes numeric page statistics in C and serializes them there too
(tsfile._write._stats, for speed): that is this layout compiled for the numeric types, and
tests/test_format_layer.py checks that both give the same bytes.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from tsfile._format.bytes import Cursor, binstr, uvarint
from tsfile.types import TSDataType

T = TSDataType
VECTOR = T.VECTOR
_HEAD = struct.Struct(">qq")  # start_time, end_time (after the uvarint count)


@dataclass(frozen=True)
class StatsLayout:
    """The typed part of one data type's statistics.

    fields: the statistics it carries, in file order. fixed: the big-endian struct that holds
    them all (numeric types and BOOLEAN); None when each field is an i32-length string (TEXT,
    STRING) or there is no typed part (BLOB, the VECTOR time column)."""

    fields: tuple[str, ...]
    fixed: struct.Struct | None = None

    @property
    def has_min_max(self) -> bool:
        return "min" in self.fields

    @property
    def has_sum(self) -> bool:
        return "sum" in self.fields

    @property
    def zero(self):
        """The value each field of empty statistics is written with."""
        return 0 if self.fixed is not None else b""


_NUMBER_FIELDS = ("min", "max", "first", "last", "sum")
LAYOUTS = {
    T.BOOLEAN: StatsLayout(("first", "last", "sum"), struct.Struct(">??q")),
    T.INT32: StatsLayout(_NUMBER_FIELDS, struct.Struct(">iiiiq")),
    T.DATE: StatsLayout(_NUMBER_FIELDS, struct.Struct(">iiiiq")),
    T.INT64: StatsLayout(_NUMBER_FIELDS, struct.Struct(">qqqqd")),  # the sum is a double
    T.TIMESTAMP: StatsLayout(_NUMBER_FIELDS, struct.Struct(">qqqqd")),
    T.FLOAT: StatsLayout(_NUMBER_FIELDS, struct.Struct(">ffffd")),
    T.DOUBLE: StatsLayout(_NUMBER_FIELDS, struct.Struct(">ddddd")),
    T.TEXT: StatsLayout(("first", "last")),
    T.STRING: StatsLayout(("first", "last", "min", "max")),
    T.BLOB: StatsLayout(()),
    T.VECTOR: StatsLayout(()),  # the time column of an aligned device: count and times only
}
# Data types whose statistics are numbers (the writer computes them in C).
NUMERIC_TYPES = frozenset(t for t, lay in LAYOUTS.items() if lay.fixed is not None)

# struct format character -> the Python type a field is packed as
_COERCE = {"?": bool, "i": int, "q": int, "f": float, "d": float}


def _coercions(layout: StatsLayout) -> tuple:
    return tuple(_COERCE[c] for c in layout.fixed.format.lstrip("<>!=@"))


_FIELD_TYPES = {t: _coercions(lay) for t, lay in LAYOUTS.items() if lay.fixed is not None}
# {data type: {carried field: its zero}}; a field missing here is None
_ZEROS = {t: dict.fromkeys(lay.fields, lay.zero) for t, lay in LAYOUTS.items()}
_NONE: dict = {}
# {data type: (fixed struct, fields, fields in the constructor's order)} for read_statistics
_PARSE = {t: (lay.fixed, lay.fields, lay.fields == _NUMBER_FIELDS) for t, lay in LAYOUTS.items()}


class Statistics:
    """The statistics of one page, chunk or series of data type ``data_type``. A field the data
    type does not carry is None; a carried one defaults to its zero (empty statistics)."""

    __slots__ = (
        "data_type",
        "count",
        "start_time",
        "end_time",
        "min",
        "max",
        "first",
        "last",
        "sum",
    )

    def __init__(
        self,
        data_type,
        count=0,
        start_time=0,
        end_time=0,
        min=None,
        max=None,
        first=None,
        last=None,
        sum=None,
    ):
        self.data_type = data_type
        self.count = count
        self.start_time = start_time
        self.end_time = end_time
        self.min = min
        self.max = max
        self.first = first
        self.last = last
        self.sum = sum
        if min is None or max is None or first is None or last is None or sum is None:
            for name, zero in _ZEROS.get(data_type, _NONE).items():
                if getattr(self, name) is None:
                    setattr(self, name, zero)

    @property
    def layout(self) -> StatsLayout:
        return LAYOUTS[self.data_type]

    def merge(self, other: Statistics) -> None:
        """Fold other into self the way the official writers merge page -> chunk -> series
        statistics (first/last by time; sums added in merge order)."""
        if other.count == 0:
            return
        if self.count == 0:
            for name in Statistics.__slots__[1:]:
                setattr(self, name, getattr(other, name))
            return
        if other.start_time < self.start_time:
            self.start_time = other.start_time
            self.first = other.first
        if other.end_time >= self.end_time:
            self.end_time = other.end_time
            self.last = other.last
        self.count += other.count
        layout = self.layout
        if layout.has_min_max:
            if other.min < self.min:
                self.min = other.min
            if other.max > self.max:
                self.max = other.max
        if layout.has_sum:
            self.sum += other.sum

    def serialize(self) -> bytes:
        head = uvarint(self.count) + _HEAD.pack(self.start_time, self.end_time)
        layout = self.layout
        if layout.fixed is not None:
            kinds = _FIELD_TYPES[self.data_type]
            return head + layout.fixed.pack(
                *(
                    kind(getattr(self, name))
                    for kind, name in zip(kinds, layout.fields, strict=True)
                )
            )
        return head + b"".join(binstr(getattr(self, name)) for name in layout.fields)

    def __eq__(self, other):
        if not isinstance(other, Statistics):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in Statistics.__slots__)

    def __repr__(self):
        name = getattr(self.data_type, "name", self.data_type)
        return (
            f"Statistics({name}, count={self.count}, start_time={self.start_time}, "
            f"end_time={self.end_time}, min={self.min!r}, max={self.max!r}, "
            f"first={self.first!r}, last={self.last!r}, sum={self.sum!r})"
        )


def read_statistics(cur: Cursor, data_type: int) -> Statistics:
    """Parse statistics of ``data_type`` at the cursor (bounds-checked; CorruptDataError names
    the file offset). String fields stay bytes."""
    at = cur.pos
    parse = _PARSE.get(data_type)
    if parse is None:
        raise cur.error(f"statistics of unknown data type {data_type}", at)
    fixed, fields, positional = parse
    count = cur.uvarint("statistics count")
    cur.need(_HEAD.size, "statistics start/end time")
    start, end = _HEAD.unpack_from(cur.buf, cur.pos)
    cur.pos += _HEAD.size
    if fixed is not None:
        cur.need(fixed.size, "statistics")
        values = fixed.unpack_from(cur.buf, cur.pos)
        cur.pos += fixed.size
    else:
        values = [cur.binstr_bytes(f"statistics {name}") for name in fields]
    if positional:
        return Statistics(data_type, count, start, end, *values)
    st = Statistics(data_type, count, start, end)
    for name, value in zip(fields, values, strict=True):
        setattr(st, name, value)
    return st


def check_data_type(cur: Cursor, code: int, at: int) -> int:
    if code == T.UNKNOWN or code > T.STRING:
        raise cur.error(f"unknown data type {code}", at)
    return code


__all__ = [
    "LAYOUTS",
    "NUMERIC_TYPES",
    "StatsLayout",
    "Statistics",
    "read_statistics",
    "check_data_type",
    "TSDataType",
]
