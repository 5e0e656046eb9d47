"""tsfile.dask.read_tsfile (issue 12 item 5): one partition per file, or per run of chunk groups
of a file larger than partition_rows; meta from the schemas without reading data, filters in
every partition, divisions from time statistics when they are known; the same rows as the
one-machine reader on the local scheduler and on a 2-worker LocalCluster.
CI needs ``pip install "dask[dataframe]" distributed`` for these tests to run."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from dataset_shards import write_shard, write_shards

import tsfile
import tsfile.dask as tdask  # imports without dask: an error in it fails here, not skips
from tsfile.reader import TsFileReader

dd = pytest.importorskip("dask.dataframe")
dask = pytest.importorskip("dask")


def _rows(df):
    """A frame's rows in one order, text as object (dask converts object text to its string
    dtype), time as a column."""
    if df.index.name == "time":
        df = df.reset_index()
    df = df.copy()
    for c in df.columns:
        if str(df[c].dtype) in ("string", "str") or isinstance(df[c].dtype, pd.StringDtype):
            df[c] = df[c].astype(object).where(df[c].notna(), None)
    return df.sort_values(["time", "id"], kind="stable").reset_index(drop=True)


@pytest.fixture
def shards(tmp_path):
    return write_shards(tmp_path, files=4, rows=30, null_every=4)


def test_one_partition_per_file_with_divisions_and_no_data_read_to_plan(
    tmp_path, shards, monkeypatch
):
    read = []
    original = TsFileReader.read_columns
    monkeypatch.setattr(
        TsFileReader,
        "read_columns",
        lambda self, *a, **k: read.append(1) or original(self, *a, **k),
    )
    ddf = tdask.read_tsfile(str(tmp_path), "m")
    assert read == []  # meta and divisions from the metadata only
    assert ddf.npartitions == 4
    assert ddf.divisions == (0, 100, 200, 300, 329)
    assert list(ddf.columns) == ["id", "x", "ts"] and ddf.index.name == "time"
    assert str(ddf.dtypes["x"]) == "Float64" and str(ddf.dtypes["ts"]) == "Int64"


def test_equal_to_the_one_machine_reader_with_filters_pushed(tmp_path, shards):
    kw = dict(start_time=20, end_time=215, tag_filter=tsfile.tag_eq("id", "b"))
    ddf = tdask.read_tsfile(str(tmp_path), "m", ["x", "id"], **kw)
    assert ddf.npartitions == 3  # the last file is pruned by its time range
    assert ddf.divisions == (20, 100, 200, 215)
    got = ddf.compute(scheduler="sync")
    ref = tsfile.to_dataframe(str(tmp_path), "m", ["x", "id"], **kw)
    pd.testing.assert_frame_equal(_rows(got), _rows(ref)[list(_rows(got).columns)])
    vf = tdask.read_tsfile(str(tmp_path), "m", value_filter=tsfile.col("x") > 250.0)
    # only the last file holds x > 250 (times 300..329); x is null where (t - 300) % 4 == 1
    assert set(vf.compute(scheduler="threads").index) == {
        t for t in range(300, 330) if (t - 300) % 4 != 1
    }


def test_overlapping_files_get_unknown_divisions(tmp_path):
    write_shard(tmp_path / "a.tsfile", 0, 10)
    write_shard(tmp_path / "b.tsfile", 5, 10, devices=("c",))
    ddf = tdask.read_tsfile(str(tmp_path), "m")
    assert not ddf.known_divisions and ddf.index.name != "time"
    assert len(ddf.compute()) == 30
    indexed = tdask.read_tsfile(str(tmp_path), "m", index="time")
    assert indexed.index.name == "time" and not indexed.known_divisions


def test_union_schema_and_errors(tmp_path):
    write_shard(tmp_path / "a.tsfile", 0, 10)
    write_shard(tmp_path / "b.tsfile", 100, 10, extra="y")
    with pytest.raises(tsfile.InvalidSchemaError):
        tdask.read_tsfile(str(tmp_path), "m")
    got = tdask.read_tsfile(str(tmp_path), "m", schema="union").compute()
    assert str(got["y"].dtype) == "Int32" and int(got["y"].isna().sum()) == 20
    with pytest.raises(ValueError, match="index"):
        tdask.read_tsfile(str(tmp_path), "m", index="device")


def test_no_file_in_the_time_range_is_an_empty_frame_with_the_columns(tmp_path, shards):
    ddf = tdask.read_tsfile(str(tmp_path), "m", start_time=10_000)
    got = ddf.compute()
    assert len(got) == 0 and list(got.columns) == ["id", "x", "ts"]


def test_same_rows_on_a_two_worker_local_cluster(tmp_path, shards):
    distributed = pytest.importorskip("distributed")
    kw = dict(start_time=20, end_time=300, value_filter=tsfile.col("x") > 50.0)
    # partition_rows=30: every file split by device, so the pickled partitions carry device
    # sets (DeviceSetTagFilter) and time ranges to the workers
    ddf = tdask.read_tsfile(str(tmp_path), "m", partition_rows=30, **kw)
    assert ddf.npartitions == 8
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster),
    ):
        got = ddf.compute()
    ref = tsfile.to_dataframe(str(tmp_path), "m", **kw)
    pd.testing.assert_frame_equal(_rows(got), _rows(ref)[list(_rows(got).columns)])
    assert np.all(got["x"].to_numpy(dtype=float) > 50.0)


# -- large files: partitions along chunk groups ---------------------------------------------------


def _write_groups(path, devices, groups, rows, t0=0, overlap=0):
    """Table ``m`` (TAG id, FIELD x DOUBLE, FIELD ts TIMESTAMP): every device in ``groups``
    chunk groups of ``rows`` rows (a flush after each round); group g of a device holds times
    t0 + g * (rows - overlap) ... (x null every 7th row)."""
    cols = [
        tsfile.ColumnSchema("id", tsfile.TSDataType.STRING, tsfile.ColumnCategory.TAG),
        tsfile.ColumnSchema("x", tsfile.TSDataType.DOUBLE, tsfile.ColumnCategory.FIELD),
        tsfile.ColumnSchema("ts", tsfile.TSDataType.TIMESTAMP, tsfile.ColumnCategory.FIELD),
    ]
    w = tsfile.TsFileWriter(str(path), overwrite=True)
    w.register_table(tsfile.TableSchema("m", cols))
    for g in range(groups):
        times = np.arange(rows, dtype=np.int64) + t0 + g * (rows - overlap)
        for k, dev in enumerate(devices):
            x = np.ma.MaskedArray(times + 0.25 * k, mask=(times % 7) == 3)
            w.write_arrays("m", times, {"id": dev, "x": x, "ts": times * 10})
        w.flush()
    w.close()
    return str(path)


def _plain(df):
    """A partition's or frame's rows with time as a column, text as object, a fresh index."""
    if df.index.name == "time":
        df = df.reset_index()
    df = df.reset_index(drop=True)
    for c in df.columns:
        if str(df[c].dtype) in ("string", "str") or isinstance(df[c].dtype, pd.StringDtype):
            df[c] = df[c].astype(object).where(df[c].notna(), None)
    return df


def test_a_large_file_is_split_along_chunk_groups_in_the_one_file_order(tmp_path, monkeypatch):
    _write_groups(tmp_path / "big.tsfile", ("a", "b", "c"), groups=3, rows=100)
    read = []
    original = TsFileReader.read_columns
    monkeypatch.setattr(
        TsFileReader,
        "read_columns",
        lambda self, *a, **k: read.append(1) or original(self, *a, **k),
    )
    ddf = tdask.read_tsfile(str(tmp_path), "m", partition_rows=250)
    assert read == []  # planned from the metadata only
    # pieces of 100 rows packed by at most 250: [a a] [a b] [b b] [c c] [c]
    assert ddf.npartitions == 5
    assert not ddf.known_divisions and ddf.index.name != "time"  # devices overlap in time
    got = [_plain(ddf.get_partition(i).compute(scheduler="sync")) for i in range(5)]
    assert [len(p) for p in got] == [200, 200, 200, 200, 100]
    assert [sorted(set(p["id"])) for p in got] == [["a"], ["a", "b"], ["b"], ["c"], ["c"]]
    ref = _plain(tsfile.to_dataframe(str(tmp_path), "m"))
    pd.testing.assert_frame_equal(_plain(pd.concat(got)), ref)  # same rows, same order
    assert tdask.read_tsfile(str(tmp_path), "m").npartitions == 1  # 900 rows < the default
    assert tdask.read_tsfile(str(tmp_path), "m", partition_rows=None).npartitions == 1


def test_split_partitions_with_a_time_range_a_tag_filter_and_a_value_filter(tmp_path):
    _write_groups(tmp_path / "big.tsfile", ("a", "b", "c"), groups=4, rows=50)
    _write_groups(tmp_path / "small.tsfile", ("a", "c"), groups=1, rows=20, t0=1000)
    kw = dict(
        start_time=60,
        end_time=1010,
        tag_filter=tsfile.tag_eq("id", "a") | tsfile.tag_eq("id", "b"),
        value_filter=tsfile.col("x") > 70.0,
    )
    ddf = tdask.read_tsfile(str(tmp_path), "m", ["x", "id"], partition_rows=120, **kw)
    # big: a and b each have 3 chunk groups meeting [60, 1010] (50 + 50 + 50 planned rows);
    # small: 20 rows of a (c left out by the tag filter)
    assert ddf.npartitions == 4
    got = _plain(ddf.compute(scheduler="sync"))
    ref = _plain(tsfile.to_dataframe(str(tmp_path), "m", ["x", "id"], **kw))
    pd.testing.assert_frame_equal(got, ref[list(got.columns)])
    assert set(got["id"]) == {"a", "b"} and got["time"].min() == 70  # b: x = t + 0.25


def test_one_device_split_by_time_has_divisions_and_overlapping_groups_stay_together(tmp_path):
    _write_groups(tmp_path / "one.tsfile", ("a",), groups=5, rows=100)
    ddf = tdask.read_tsfile(str(tmp_path), "m", partition_rows=200)
    assert ddf.npartitions == 3 and ddf.index.name == "time"
    assert ddf.divisions == (0, 200, 400, 499)
    got = ddf.compute(scheduler="sync")
    assert list(got.index) == list(range(500))
    # a chunk group larger than the limit is a partition of its own, never cut
    assert tdask.read_tsfile(str(tmp_path), "m", partition_rows=30).npartitions == 5
    # chunk groups of one device that overlap in time cannot be told apart by a time range
    _write_groups(tmp_path / "one.tsfile", ("a",), groups=4, rows=100, overlap=50)
    over = tdask.read_tsfile(str(tmp_path), "m", partition_rows=100)
    assert over.npartitions == 1
    assert over.index.name == "time"  # one partition: sorted by time
    ref = tsfile.to_dataframe(str(tmp_path), "m").sort_values("time", kind="stable")
    pd.testing.assert_frame_equal(_plain(over.compute(scheduler="sync")), _plain(ref))


def test_partition_rows_is_checked(tmp_path, shards):
    with pytest.raises(ValueError, match="partition_rows"):
        tdask.read_tsfile(str(tmp_path), "m", partition_rows=0)
    with pytest.raises(TypeError, match="partition_rows"):
        tdask.read_tsfile(str(tmp_path), "m", partition_rows=True)
    with pytest.raises(TypeError, match="partition_rows"):
        tdask.read_tsfile(str(tmp_path), "m", partition_rows=1.5)


def test_device_set_tag_filter_picks_devices_by_their_tag_tuples(tmp_path, shards):
    with TsFileReader(shards[0]) as r:
        ids = r.read_columns("m", ["id"], tag_filter=tsfile.filters.DeviceSetTagFilter([("b",)]))
        assert set(ids[3]["id"]) == {"b"} and len(ids[2]) == 30
        with pytest.raises(tsfile.InvalidFilterError, match="1 TAG columns"):
            r.read_columns("m", ["id"], tag_filter=tsfile.filters.DeviceSetTagFilter([("b", "x")]))


def test_whole_devices_of_a_split_file_are_read_together(tmp_path, monkeypatch):
    _write_groups(tmp_path / "wide.tsfile", tuple("abcdefg"), groups=1, rows=100)
    filters = []
    original = TsFileReader.read_columns
    monkeypatch.setattr(
        TsFileReader,
        "read_columns",
        lambda self, *a, **k: filters.append(k["tag_filter"]) or original(self, *a, **k),
    )
    ddf = tdask.read_tsfile(str(tmp_path), "m", partition_rows=250)
    assert ddf.npartitions == 4  # [a b] [c d] [e f] [g]
    got = _plain(ddf.compute(scheduler="sync"))
    assert len(filters) == 4  # one read per partition
    assert sorted(sorted(f.tag_tuples) for f in filters) == [
        [("a",), ("b",)],
        [("c",), ("d",)],
        [("e",), ("f",)],
        [("g",)],
    ]
    pd.testing.assert_frame_equal(got, _plain(tsfile.to_dataframe(str(tmp_path), "m")))
