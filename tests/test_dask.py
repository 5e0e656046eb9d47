"""tsfile.dask.read_tsfile (issue 12 item 5): one partition per file, meta from the schemas
without reading data, filters in every partition, divisions from time statistics; the same
rows as the one-machine reader on the local scheduler and on a 2-worker LocalCluster.
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
    ddf = tdask.read_tsfile(str(tmp_path), "m", **kw)
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
