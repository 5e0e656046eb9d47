"""``tsfile.dask.read_tsfile``: a table of many files as a ``dask.dataframe`` (needs
``dask[dataframe]``; ``distributed`` for a cluster).

One partition per file, built with ``dask.dataframe.from_map``. The plan comes from the files'
metadata only (tsfile._dataset.scan.Scanner): files whose time statistics miss the query are not
partitions at all, the columns and their dtypes (the meta) come from the schemas, and every
partition reads its file with the query's columns, time range, tag filter and value filter. A
partition is what ``tsfile.to_dataframe`` gives for its file (``time`` column, nullable dtypes),
with the columns a file lacks as nulls under ``schema="union"``.

``index="auto"`` (the default): when the files are time-partitioned (their time ranges, in path
order, do not overlap) each partition is indexed by ``time`` in time order and the divisions come
from the time statistics; otherwise partitions keep a default index and the divisions are
unknown. ``index="time"`` always indexes by time (divisions only when time-partitioned);
``index=None`` never does.

Text columns are object columns of str in each partition, as tsfile.to_dataframe gives them;
dask itself turns them into its string dtype unless ``dask.config.set({"dataframe.convert-string":
False})``. The partition function and its arguments pickle, so the frame runs on any scheduler,
``dask.distributed`` included.
"""

from __future__ import annotations

import numpy as np

from tsfile._dataset.scan import Scanner, null_column


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


class _ReadFile:
    """The partition function (pickled to the workers): one file's rows as a pandas DataFrame."""

    def __init__(self, table, columns, missing, query, by_time):
        self.table = table
        self.columns = columns
        self.missing = missing
        self.query = query
        self.by_time = by_time

    def __call__(self, path):
        from tsfile.reader import TsFileReader

        absent = {c[0] for c in self.missing.get(path, ())}
        present = [c[0] for c in self.columns if c[0] not in absent]
        with TsFileReader(path) as r:
            _n, _t, ts, cols, nulls = r.read_columns(self.table, present, **self.query)
        for name, dtype, _cat in self.columns:
            if name in absent:
                col = null_column(dtype, len(ts))
                if isinstance(col, np.ma.MaskedArray):
                    cols[name], nulls[name] = col.data, col.mask
                else:
                    cols[name] = col
        names = ["time", *[c[0] for c in self.columns]]
        types = [2, *[c[1] for c in self.columns]]
        df = _frame(names, types, ts, cols, nulls)
        if self.by_time:
            df = df.sort_values("time", kind="stable").set_index("time")
        return df


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
):
    """A ``dask.dataframe.DataFrame`` of ``table`` over the files ``paths`` names (a file, a
    list, a directory, a glob). See the module's documentation."""
    import dask.dataframe as dd

    if index not in ("auto", "time", None):
        raise ValueError(f"index must be 'auto', 'time' or None, not {index!r}")
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
    query = {
        "start_time": scan.t1,
        "end_time": scan.t2,
        "tag_filter": tag_filter,
        "value_filter": value_filter,
    }
    spans = [scan.spans[p] for p in scan.files]
    partitioned = _time_partitioned(spans)
    by_time = index == "time" or (index == "auto" and partitioned)
    meta = _empty_meta(scan.columns)
    if by_time:
        meta = meta.set_index("time")
    fn = _ReadFile(scan.table, scan.columns, scan._missing, query, by_time)
    files = scan.files
    if not files:
        return dd.from_pandas(meta, npartitions=1)
    divisions = None
    if by_time and partitioned:
        divisions = tuple([s[0] for s in spans] + [spans[-1][1]])
    return dd.from_map(fn, files, meta=meta, divisions=divisions, enforce_metadata=False)


__all__ = ["read_tsfile"]
