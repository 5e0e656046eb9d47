"""``tsfile.dask.read_tsfile``: a table of many files as a ``dask.dataframe`` (needs
``dask[dataframe]``; ``distributed`` for a cluster).

Built with ``dask.dataframe.from_map``: one partition per file, or, for a file whose planned
rows exceed ``partition_rows`` (default 1,000,000), one per run of its chunk groups
(tsfile._dataset.partitions: devices, and a device's chunk groups by their time ranges, packed
so that no partition exceeds ``partition_rows`` unless one chunk group does);
``partition_rows=None`` keeps one partition per file. The plan comes from the files' metadata
only (tsfile._dataset.scan.Scanner): files whose time statistics miss the query are not
partitions at all, the columns and their dtypes (the meta) come from the schemas, and every
partition reads its file with the query's columns, time range, tag filter and value filter. A
partition is what ``tsfile.to_dataframe`` gives for its rows (``time`` column, nullable dtypes),
with the columns a file lacks as nulls under ``schema="union"``.

Row order: the partitions one after another hold the rows of the one-machine reader
(``tsfile.to_dataframe`` over the same paths) in its order: files in path order, in a file
devices in index order, a device's rows in time order.

``index="auto"`` (the default): when the partitions are time-partitioned (their time ranges by
the statistics, in partition order, do not overlap: files split by time, or a large file of one
device split by its chunk groups) each partition is indexed by ``time`` in time order and the
divisions come from the time statistics; otherwise partitions keep a default index and the
divisions are unknown. ``index="time"`` always indexes by time (divisions only when
time-partitioned); ``index=None`` never does. A large file of several devices split by device
makes partitions whose times overlap: ``partition_rows=None`` keeps the divisions of files split
by time, one partition per file.

Text columns are object columns of str in each partition, as tsfile.to_dataframe gives them;
dask itself turns them into its string dtype unless ``dask.config.set({"dataframe.convert-string":
False})``. The partition function and its arguments pickle, so the frame runs on any scheduler,
``dask.distributed`` included.
"""

from __future__ import annotations

import numpy as np

from tsfile._dataset.partitions import check_partition_rows, plan_partitions
from tsfile._dataset.scan import Scanner, null_column

# Rows above which a file is split along its chunk groups: partitions of a few tens to a few
# hundreds of MB for typical tables, dask's advice, while a file of the common shapes (IoTDB's
# time partitions, the benchmark's 200 k rows) stays one partition.
DEFAULT_PARTITION_ROWS = 1_000_000


def _frame(names, types, ts, cols, nulls):
    from tsfile.dataframe import _frame as one_file_frame

    return one_file_frame(names, types, ts, cols, nulls)


def _empty_meta(columns):
    names = ["time", *[c[0] for c in columns]]
    types = [2, *[c[1] for c in columns]]  # TSDataType.INT64 for the time column
    cols, nulls = {}, {}
    for name, dtype, _cat in columns:
        col = null_column(dtype, 0)
        cols[name] = col.data if isinstance(col, np.ma.MaskedArray) else col
    return _frame(names, types, np.empty(0, np.int64), cols, nulls)


def _concat_reads(parts, names):
    """One (timestamps, columns, null masks) from several read_columns results of one file."""
    if len(parts) == 1:
        return parts[0]
    ts = np.concatenate([p[0] for p in parts])
    cols, nulls = {}, {}
    for name in names:
        cols[name] = np.concatenate([p[1][name] for p in parts])
        if any(name in p[2] for p in parts):
            nulls[name] = np.concatenate(
                [p[2].get(name, np.zeros(len(p[0]), np.bool_)) for p in parts]
            )
    return ts, cols, nulls


class _ReadPartition:
    """The partition function (pickled to the workers): one Partition's rows (a file, or some
    of its devices and time ranges) as a pandas DataFrame."""

    def __init__(self, table, columns, missing, filters, by_time):
        self.table = table
        self.columns = columns
        self.missing = missing
        self.filters = filters  # path -> (tag_filter, value_filter) (Scanner.file_filters)
        self.by_time = by_time

    def _read(self, reader, part, present):
        from tsfile.filters import DeviceSetTagFilter

        parts = []
        file_tag_filter, value_filter = self.filters[part.path]
        for read in part.reads:
            tag_filter = file_tag_filter
            if read.tags is not None:  # devices the plan chose (with the tag filter)
                tag_filter = DeviceSetTagFilter(read.tags)
            _n, _t, ts, cols, nulls = reader.read_columns(
                self.table,
                present,
                start_time=read.start,
                end_time=read.end,
                tag_filter=tag_filter,
                value_filter=value_filter,
            )
            parts.append((ts, cols, nulls))
        return _concat_reads(parts, present)

    def __call__(self, part):
        from tsfile.reader import TsFileReader

        absent = {c[0] for c in self.missing.get(part.path, ())}
        present = [c[0] for c in self.columns if c[0] not in absent]
        with TsFileReader(part.path) as r:
            ts, cols, nulls = self._read(r, part, present)
        for name, dtype, _cat in self.columns:
            if name in absent:
                col = null_column(dtype, len(ts))
                if isinstance(col, np.ma.MaskedArray):
                    cols[name], nulls[name] = col.data, col.mask
                else:
                    cols[name] = col
        names = ["time", *[c[0] for c in self.columns]]
        types = [2, *[c[1] for c in self.columns]]
        if self.by_time:
            ts, cols, nulls = _in_time_order(ts, cols, nulls)
            return _frame(names, types, ts, cols, nulls).set_index("time")
        return _frame(names, types, ts, cols, nulls)


def _in_time_order(ts, cols, nulls):
    """The arrays in time order (stable: a device's rows keep their order among equal times).
    Sorted here rather than with DataFrame.sort_values: one argsort and a take per array,
    where pandas takes every column again through its nullable dtypes (about twice the time)."""
    if len(ts) < 2 or not np.any(ts[1:] < ts[:-1]):
        return ts, cols, nulls
    order = np.argsort(ts, kind="stable")
    return (
        ts[order],
        {name: col[order] for name, col in cols.items()},
        {name: mask[order] for name, mask in nulls.items()},
    )


def _time_partitioned(spans):
    return all(a[1] < b[0] for a, b in zip(spans, spans[1:], strict=False))


def read_tsfile(
    paths,
    table=None,
    columns=None,
    start_time=None,
    end_time=None,
    tag_filter=None,
    value_filter=None,
    *,
    index="auto",
    schema="strict",
    on_error="raise",
    partition_rows=DEFAULT_PARTITION_ROWS,
):
    """A ``dask.dataframe.DataFrame`` of ``table`` over the files ``paths`` names (a file, a
    list, a directory, a glob; local, or fsspec URLs as tsfile.read_table takes them, each
    partition reading its file by ranges). ``partition_rows``: the most rows planned for a
    partition (a larger file is split along its chunk groups), None for one partition per
    file. See the module's documentation."""
    import dask.dataframe as dd

    if index not in ("auto", "time", None):
        raise ValueError(f"index must be 'auto', 'time' or None, not {index!r}")
    partition_rows = check_partition_rows(partition_rows)
    scan = Scanner(
        paths,
        table,
        columns,
        start_time,
        end_time,
        tag_filter,
        value_filter,
        on_error=on_error,
        schema=schema,
    )
    filters = {path: scan.file_filters(path) for path in scan.files}
    parts = plan_partitions(scan, partition_rows)
    spans = [p.span for p in parts]
    partitioned = _time_partitioned(spans)
    by_time = index == "time" or (index == "auto" and partitioned)
    meta = _empty_meta(scan.columns)
    if by_time:
        meta = meta.set_index("time")
    if not parts:
        return dd.from_pandas(meta, npartitions=1)
    fn = _ReadPartition(scan.table, scan.columns, scan._missing, filters, by_time)
    divisions = None
    if by_time and partitioned:
        divisions = tuple([s[0] for s in spans] + [spans[-1][1]])
    return dd.from_map(fn, parts, meta=meta, divisions=divisions, enforce_metadata=False)


__all__ = ["read_tsfile", "DEFAULT_PARTITION_ROWS"]
