"""Statistics of pages, chunks and series (format notes section 6): computing them for whole
chunks at once (numeric types in one C pass, see _stats.pyx), merging, serializing.

A Statistics object describes the non-null values of a page / chunk / series: count, start_time and
end_time (times of the first and last non-null value), and the typed part (min, max, first, last,
sum as the data type stores them). Statistics with count 0 serialize as zeros (C++ writes them so
for all-null series).
"""

from __future__ import annotations

import struct

import numpy as np

from tsfile._format.bytes import binstr, uvarint
from tsfile._write._stats import numeric_chunk_stats, page_min_max_sum
from tsfile.types import TSDataType

T = TSDataType
_TIME = struct.Struct(">qq")
_BOOL = struct.Struct(">BBq")
_I32 = struct.Struct(">iiiiq")
_I64 = struct.Struct(">qqqqd")
_F32 = struct.Struct(">ffffd")
_F64 = struct.Struct(">ddddd")
_NUMERIC = {
    T.INT32: _I32,
    T.DATE: _I32,
    T.INT64: _I64,
    T.TIMESTAMP: _I64,
    T.FLOAT: _F32,
    T.DOUBLE: _F64,
}
_ZERO = {T.BOOLEAN: 0, T.TEXT: b"", T.STRING: b"", T.BLOB: None, T.VECTOR: None}


class Statistics:
    __slots__ = ("data_type", "count", "start", "end", "min", "max", "first", "last", "sum")

    def __init__(
        self,
        data_type,
        count=0,
        start=0,
        end=0,
        mn=None,
        mx=None,
        first=None,
        last=None,
        total=None,
    ):
        self.data_type = data_type
        self.count = count
        self.start = start
        self.end = end
        zero = _ZERO.get(data_type, 0)
        self.min = zero if mn is None else mn
        self.max = zero if mx is None else mx
        self.first = zero if first is None else first
        self.last = zero if last is None else last
        self.sum = 0 if total is None else total

    def merge(self, other: Statistics) -> None:
        """Fold other into self the way the official writers merge page -> chunk -> series
        statistics (first/last by time; sums added in merge order)."""
        if other.count == 0:
            return
        if self.count == 0:
            for name in Statistics.__slots__[1:]:
                setattr(self, name, getattr(other, name))
            return
        dt = self.data_type
        if other.start < self.start:
            self.start = other.start
            self.first = other.first
        if other.end >= self.end:
            self.end = other.end
            self.last = other.last
        self.count += other.count
        if dt in _NUMERIC or dt == T.STRING:
            if other.min < self.min:
                self.min = other.min
            if other.max > self.max:
                self.max = other.max
        if dt in _NUMERIC or dt == T.BOOLEAN:
            self.sum += other.sum

    def serialize(self) -> bytes:
        dt = self.data_type
        head = uvarint(self.count) + _TIME.pack(self.start, self.end)
        fmt = _NUMERIC.get(dt)
        if fmt is not None:
            if fmt is _I32 or fmt is _I64:
                s = self.sum if fmt is _I32 else float(self.sum)
                return head + fmt.pack(
                    int(self.min), int(self.max), int(self.first), int(self.last), s
                )
            return head + fmt.pack(self.min, self.max, self.first, self.last, float(self.sum))
        if dt == T.BOOLEAN:
            return head + _BOOL.pack(int(self.first), int(self.last), int(self.sum))
        if dt == T.TEXT:
            return head + binstr(self.first) + binstr(self.last)
        if dt == T.STRING:
            return (
                head + binstr(self.first) + binstr(self.last) + binstr(self.min) + binstr(self.max)
            )
        return head  # BLOB and the VECTOR time column: no typed part

    def __repr__(self):
        return (
            f"Statistics({self.data_type.name}, count={self.count}, start={self.start}, "
            f"end={self.end}, min={self.min!r}, max={self.max!r}, first={self.first!r}, "
            f"last={self.last!r}, sum={self.sum!r})"
        )


def time_page_statistics(times: np.ndarray, bounds) -> list[Statistics]:
    """Statistics of the time pages of an aligned chunk: bounds = row index boundaries."""
    out = []
    for a, b in zip(bounds[:-1], bounds[1:], strict=False):
        out.append(Statistics(T.VECTOR, b - a, int(times[a]), int(times[b - 1])))
    return out


_STAT_VIEW = {
    T.BOOLEAN: np.uint8,
    T.INT32: np.int32,
    T.DATE: np.int32,
    T.INT64: np.int64,
    T.TIMESTAMP: np.int64,
    T.FLOAT: np.float32,
    T.DOUBLE: np.float64,
}


def numeric_value_statistics(
    data_type, values, times, offsets, page_bytes: bool, segments=None, present=None
):
    """(serialized statistics of each page or None, chunk Statistics) of a numeric or BOOLEAN
    value chunk, computed in C (see _stats.numeric_chunk_stats).

    segments: row boundaries of the write segments (runs of rows of one write call, split at page
    boundaries) and present the not-null mask of the rows (None: no nulls): with them INT64 and
    DOUBLE sums follow the official writer's order (see _stats.numeric_chunk_stats)."""
    dt = TSDataType(data_type)
    view = _STAT_VIEW[dt]
    arr = np.ascontiguousarray(values)
    arr = arr.view(np.uint8) if dt == T.BOOLEAN else arr.astype(view, copy=False)
    off = np.asarray(offsets, dtype=np.int64)
    seg_off = seg_batch = None
    if segments is not None and dt in (T.INT64, T.TIMESTAMP, T.DOUBLE) and len(segments) > 1:
        rows = np.asarray(segments, dtype=np.int64)
        if present is None:
            seg_off = rows
            seg_batch = np.ones(rows.shape[0] - 1, dtype=np.uint8)
        else:
            counts = np.add.reduceat(present, rows[:-1], dtype=np.int64)
            seg_off = np.concatenate(([0], np.cumsum(counts)))
            seg_batch = (counts == np.diff(rows)).astype(np.uint8)
    pages, chunk = numeric_chunk_stats(
        arr, np.ascontiguousarray(times), off, page_bytes, seg_off, seg_batch
    )
    if chunk is None:
        return pages, Statistics(dt)
    count, start, end, mn, mx, first, last, total = chunk
    return pages, Statistics(dt, count, start, end, mn, mx, first, last, total)


def is_numeric(data_type) -> bool:
    return TSDataType(data_type) in _STAT_VIEW


def value_page_statistics(data_type, values, times, offsets) -> list[Statistics]:
    """Statistics of each value page. values: the chunk's non-null values in row order (numpy
    array for numeric types and BOOLEAN, a list of bytes for TEXT/STRING/BLOB); times: their
    timestamps; offsets: P + 1 indexes into values delimiting the pages."""
    dt = TSDataType(data_type)
    npages = len(offsets) - 1
    out = []
    view = _STAT_VIEW.get(dt)
    if view is not None:
        arr = np.ascontiguousarray(values).view(view) if dt == T.BOOLEAN else values
        off = np.ascontiguousarray(offsets, dtype=np.int64)
        mins, maxs, sums = page_min_max_sum(np.ascontiguousarray(arr, dtype=view), off)
        mins, maxs, sums = mins.tolist(), maxs.tolist(), sums.tolist()
        vals = arr
        for p in range(npages):
            a, b = int(off[p]), int(off[p + 1])
            if b <= a:
                out.append(Statistics(dt))
                continue
            out.append(
                Statistics(
                    dt,
                    b - a,
                    int(times[a]),
                    int(times[b - 1]),
                    mins[p],
                    maxs[p],
                    vals[a].item(),
                    vals[b - 1].item(),
                    sums[p],
                )
            )
        return out
    for p in range(npages):
        a, b = int(offsets[p]), int(offsets[p + 1])
        if b <= a:
            out.append(Statistics(dt))
            continue
        page = values[a:b]
        if dt == T.STRING:
            out.append(
                Statistics(
                    dt,
                    b - a,
                    int(times[a]),
                    int(times[b - 1]),
                    min(page),
                    max(page),
                    page[0],
                    page[-1],
                )
            )
        elif dt == T.TEXT:
            out.append(
                Statistics(
                    dt, b - a, int(times[a]), int(times[b - 1]), first=page[0], last=page[-1]
                )
            )
        else:
            out.append(Statistics(dt, b - a, int(times[a]), int(times[b - 1])))
    return out


def merged(data_type, stats) -> Statistics:
    total = Statistics(TSDataType(data_type))
    for s in stats:
        total.merge(s)
    return total
