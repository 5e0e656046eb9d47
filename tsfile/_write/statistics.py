"""Computing the statistics of the writer's pages and chunks (format notes section 6) for whole
chunks at once: numeric types in one C pass (see _stats.pyx), text types here. What the
statistics of each type are, how they merge and serialize: tsfile._format.statistics."""

from __future__ import annotations

import numpy as np

from tsfile._format.statistics import NUMERIC_TYPES, Statistics
from tsfile._write._stats import numeric_chunk_stats
from tsfile.types import TSDataType

T = TSDataType
# The dtype the C pass reads each numeric type's values as (BOOLEAN as its bytes).
_STAT_VIEW = {t: np.dtype(np.uint8) if t == T.BOOLEAN else t.numpy_dtype for t in NUMERIC_TYPES}


def time_page_statistics(times: np.ndarray, bounds) -> list[Statistics]:
    """Statistics of the time pages of an aligned chunk: bounds = row index boundaries."""
    out = []
    for a, b in zip(bounds[:-1], bounds[1:], strict=False):
        out.append(Statistics(T.VECTOR, b - a, int(times[a]), int(times[b - 1])))
    return out


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
    segs = write_segments(dt, segments, present)
    if segs is not None:
        seg_off, seg_batch = segs
    pages, chunk = numeric_chunk_stats(
        arr, np.ascontiguousarray(times), off, page_bytes, seg_off, seg_batch
    )
    return pages, chunk_statistics(dt, chunk)


def value_statistics(
    data_type, values, times, offsets, page_bytes: bool, segments=None, present=None
):
    """(serialized statistics of each page, None for a page without values, chunk Statistics) of
    a value chunk of any type: numeric_value_statistics for numeric and BOOLEAN chunks, else
    value_page_statistics merged. page_bytes false: the pages' statistics are not serialized."""
    if is_numeric(data_type):
        return numeric_value_statistics(
            data_type, values, times, offsets, page_bytes, segments, present
        )
    page_stats = value_page_statistics(data_type, values, times, offsets)
    pages = [None if not page_bytes or s.count == 0 else s.serialize() for s in page_stats]
    return pages, merged(data_type, page_stats)


def write_segments(data_type, segments, present):
    """(value offsets, batch flags) of the write segments for the statistics sums of an INT64 /
    DOUBLE chunk (see _stats.numeric_chunk_stats), or None: no segments, or a type whose sums do
    not depend on them. segments: row boundaries; present: the rows' not-null mask or None."""
    if segments is None or data_type not in (T.INT64, T.TIMESTAMP, T.DOUBLE) or len(segments) < 2:
        return None
    rows = np.asarray(segments, dtype=np.int64)
    if present is None:
        return rows, np.ones(rows.shape[0] - 1, dtype=np.uint8)
    counts = np.add.reduceat(present, rows[:-1], dtype=np.int64)
    return np.concatenate(([0], np.cumsum(counts))), (counts == np.diff(rows)).astype(np.uint8)


def chunk_statistics(data_type, chunk) -> Statistics:
    """The Statistics of a chunk from the C pass's (count, start, end, min, max, first, last,
    sum), None for a chunk without values."""
    if chunk is None:
        return Statistics(data_type)
    count, start, end, mn, mx, first, last, total = chunk
    return Statistics(data_type, count, start, end, mn, mx, first, last, total)


def is_numeric(data_type) -> bool:
    return TSDataType(data_type) in _STAT_VIEW


def value_page_statistics(data_type, values, times, offsets) -> list[Statistics]:
    """Statistics of each value page of a TEXT/STRING/BLOB column (numeric and BOOLEAN columns:
    numeric_value_statistics, in C). values: the chunk's non-null values in row order (bytes);
    times: their timestamps; offsets: P + 1 indexes into values delimiting the pages."""
    dt = TSDataType(data_type)
    npages = len(offsets) - 1
    out = []
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
