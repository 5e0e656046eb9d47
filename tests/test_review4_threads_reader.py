"""Review of the reader's ``threads`` option as a new user sees it next to the writer's (findings
for the reader's owner, who keeps tsfile/_read/ and tsfile/reader.py): a result must not depend
on ``threads`` on the pipelined path either, and ``threads=None`` should mean the default on both
sides."""

from __future__ import annotations

import numpy as np
import pytest

import tsfile
from tsfile import DeviceSchema, Field, RowRecord, TimeseriesSchema, TsFileWriter
from tsfile.schema import ColumnSchema, TableSchema
from tsfile.types import ColumnCategory, TSDataType
from tsfile.writer import TsFileTableWriter

T = TSDataType


def _table_files(tmp_path):
    """An empty file, and one of 300 small devices (nulls, BLOBs with 0x00, a second chunk
    group for one device after a flush), pages of 100 rows."""
    schema = TableSchema(
        "w",
        [
            ColumnSchema("city", T.STRING, ColumnCategory.TAG),
            ColumnSchema("x", T.INT64, ColumnCategory.FIELD),
            ColumnSchema("y", T.FLOAT, ColumnCategory.FIELD),
            ColumnSchema("b", T.BLOB, ColumnCategory.FIELD),
        ],
    )
    empty = tmp_path / "empty.tsfile"
    with TsFileTableWriter(str(empty), schema):
        pass
    many = tmp_path / "many.tsfile"
    with TsFileTableWriter(str(many), schema, 1 << 12, page_size=100) as w:
        for k in range(300):
            ts = np.arange(50 + k, dtype=np.int64) * 3 + k
            w.write_arrays(
                ts,
                {
                    "city": f"c{k:03d}",
                    "x": ts,
                    "y": (ts / 7).astype(np.float32),
                    "b": np.array([b"\x00ab"] * ts.size, dtype=object),
                },
                null_masks={"x": ts % 5 == 0},
            )
        w.flush()
        ts = np.arange(10**6, 10**6 + 10, dtype=np.int64)
        blobs = np.array([b""] * 10, dtype=object)
        w.write_arrays(ts, {"city": "c000", "x": ts, "y": np.zeros(10, np.float32), "b": blobs})
    return str(empty), str(many)


def _tree_file(tmp_path):
    path = tmp_path / "tree.tsfile"
    w = TsFileWriter(str(path))
    w.register_timeseries("root.a.d1", TimeseriesSchema("x", T.INT32))
    w.register_device(
        DeviceSchema("root.a.d2", [TimeseriesSchema("x", T.INT32), TimeseriesSchema("y", T.INT64)]),
        aligned=True,
    )
    for k in range(3000):
        w.write_row_record(RowRecord("root.a.d1", k, [Field("x", k, T.INT32)]))
        if k % 3:
            w.write_row_record(RowRecord("root.a.d2", k, [Field("y", k, T.INT64)]))
    w.close()
    return str(path)


def test_results_do_not_depend_on_threads_on_small_and_odd_files(tmp_path):
    empty, many = _table_files(tmp_path)
    tree = _tree_file(tmp_path)
    reads = [
        (many, "w", {}),
        (many, "w", {"start_time": 100, "end_time": 200}),
        (many, "w", {"start_time": 5 * 10**6}),  # no row
        (many, "w", {"column_names": ["b"]}),
        ([many, empty], "w", {}),
        ([many, many], "w", {}),
        (many, "w", {"value_filter": [("x", ">", 400)]}),
    ]
    for src, table, kwargs in reads:
        expected = tsfile.read_arrow(src, table, threads=1, **kwargs)
        for threads in (2, 3):
            got = tsfile.read_arrow(src, table, threads=threads, **kwargs)
            assert got.equals(expected), (src, kwargs, threads)
            frame = tsfile.to_dataframe(src, table, threads=threads, **kwargs)
            assert frame.equals(tsfile.to_dataframe(src, table, threads=1, **kwargs))
    for threads in (2, 3):
        assert tsfile.to_dataframe(tree, threads=threads).equals(tsfile.to_dataframe(tree))


@pytest.mark.parametrize("read", ["read_table", "to_dataframe", "read_arrow", "read_columns"])
def test_threads_none_means_the_default_on_the_reader_side_too(tmp_path, read):
    # the writer (threads=None, its default) and TsFileDataFrame (query_workers=None) take None
    # for the library's choice; so do the reads (one thread per core), same result
    _, many = _table_files(tmp_path)
    if read == "read_columns":
        with tsfile.TsFileReader(many) as r:
            got = r.read_columns("w", threads=None)
            want = r.read_columns("w", threads=1)
        assert got[2].tolist() == want[2].tolist()
        assert {k: v.tolist() for k, v in got[3].items()} == {
            k: v.tolist() for k, v in want[3].items()
        }
    else:
        got = getattr(tsfile, read)(many, "w", threads=None)
        want = getattr(tsfile, read)(many, "w", threads=1)
        if read == "read_table":
            assert {k: np.asarray(v).tolist() for k, v in got.items()} == {
                k: np.asarray(v).tolist() for k, v in want.items()
            }
        else:
            assert got.equals(want)
