"""TsFileDataFrame (issue 12 item 1): the official 2.5 dataset view over shards. Values, names
and errors were checked against the official wheel on the same files (see test at the end)."""

from __future__ import annotations

import json
import os
import time

import numpy as np
import pytest
from dataset_shards import write_shard, write_shards

import tsfile
from tsfile import TsFileDataFrame
from tsfile._dataset import files as files_mod
from tsfile._dataset.index import INDEX_VERSION, index_path
from tsfile.errors import ClosedError, CorruptDataError
from tsfile.types import ColumnCategory, TSDataType
from tsfile.writer import TsFileWriter


@pytest.fixture
def shards(tmp_path):
    return write_shards(tmp_path, files=3, rows=20, null_every=3)


def _open(path, **kw):
    return TsFileDataFrame(str(path), show_progress=False, **kw)


def test_series_names_lengths_and_values(tmp_path, shards):
    with _open(tmp_path) as df:
        assert len(df) == 4
        assert df.list_timeseries() == ["m.a.x", "m.a.ts", "m.b.x", "m.b.ts"]
        assert df.list_timeseries("m.b") == ["m.b.x", "m.b.ts"]
        assert df.list_timeseries("m.bb") == []
        ts = df["m.a.x"]
        assert len(ts) == 60 and ts.stats == {"start_time": 0, "end_time": 219, "count": 60}
        stamps = np.concatenate([np.arange(0, 20), np.arange(100, 120), np.arange(200, 220)])
        assert np.array_equal(ts.timestamps, stamps)
        expected = stamps + 0.5
        expected[np.arange(60) % 20 % 3 == 1] = np.nan
        assert np.array_equal(ts[:], expected, equal_nan=True)
        assert np.array_equal(ts[15:45:4], expected[15:45:4], equal_nan=True)
        assert ts[-2] == expected[-2] and np.isnan(ts[1]) and np.isnan(ts[-1])
        assert ts[0:0].shape == (0,)
        assert df[2].name == "m.b.x" and df[-1].name == "m.b.ts"
        assert df["m.a.ts"][5] == 50.0  # TIMESTAMP fields are numeric series
        meta = df.list_timeseries_metadata()
        assert list(meta.columns) == ["table", "field", "start_time", "end_time", "count", "id"]
        assert meta.loc["m.b.x", "count"] == 60 and meta.loc["m.b.x", "id"] == "b"
        assert str(meta.loc["m.b.x", "end_time"]) == "1970-01-01 00:00:00.219000"


def test_positional_reads_touch_only_the_shards_holding_the_positions(tmp_path, shards):
    with _open(tmp_path) as df:
        ts = df["m.a.x"]
        read = []
        original = df._read_series

        def spy(series, picked, t1, t2):
            read.extend(sh.path for sh in picked)
            return original(series, picked, t1, t2)

        df._read_series = spy
        assert ts[25] == 105.5
        assert read == [shards[1]]


def test_loc_aligns_series_on_the_union_of_their_times(tmp_path, shards):
    write_shard(tmp_path / "extra.tsfile", 300, 5, devices=("c",))
    with _open(tmp_path) as df:
        got = df.loc[118:301, ["m.a.x", "m.c.x", 5]]
        assert got.series_names == ["m.a.x", "m.c.x", "m.b.ts"]
        assert got.timestamps.tolist() == [118, 119, 200, 201, *range(202, 220), 300, 301]
        assert got.shape == (24, 3)
        assert np.isnan(got.values[-1, 0]) and got.values[-1, 1] == 301.5
        assert got.values[0, 2] == 1180.0
        assert len(df.loc[5, "m.a.x"]) == 1
        with pytest.raises(ValueError, match="exactly 2"):
            df.loc[0:10]
        with pytest.raises(KeyError, match="Series not found"):
            df.loc[0:10, ["m.z.x"]]


def test_names_escape_dots_and_null_tags(tmp_path):
    cols = [
        tsfile.ColumnSchema("site", TSDataType.STRING, ColumnCategory.TAG),
        tsfile.ColumnSchema("unit", TSDataType.STRING, ColumnCategory.TAG),
        tsfile.ColumnSchema("v", TSDataType.INT32, ColumnCategory.FIELD),
        tsfile.ColumnSchema("note", TSDataType.STRING, ColumnCategory.FIELD),
    ]
    w = TsFileWriter(str(tmp_path / "t.tsfile"), overwrite=True)
    w.register_table(tsfile.TableSchema("w", cols))
    t = np.arange(3, dtype=np.int64)
    w.write_arrays("w", t, {"site": "a.b", "unit": None, "v": np.arange(3, dtype=np.int32)})
    w.write_arrays("w", t, {"site": None, "unit": "u", "v": np.arange(3, dtype=np.int32)})
    w.close()
    with _open(tmp_path) as df:
        names = df.list_timeseries()
        assert sorted(names) == sorted(["w.a\\.b.v", "w.\\N.u.v"])  # no STRING field series
        assert df["w.a\\.b.v"][:].tolist() == [0.0, 1.0, 2.0]
        assert df["w.\\N.u.v"][2] == 2.0
        assert df.list_timeseries("w.a\\.b") == ["w.a\\.b.v"]


def test_a_time_in_two_shards_of_a_device_is_an_error_when_opening(tmp_path):
    a = write_shard(tmp_path / "a.tsfile", 0, 10)
    b = write_shard(tmp_path / "b.tsfile", 5, 10)
    with pytest.raises(ValueError, match="Duplicate timestamp 5") as err:  # as the official
        _open(tmp_path)
    assert isinstance(err.value, CorruptDataError)
    assert a in str(err.value) and b in str(err.value)


def test_overlapping_shards_without_shared_times_merge_in_time_order(tmp_path):
    cols = [
        tsfile.ColumnSchema("id", TSDataType.STRING, ColumnCategory.TAG),
        tsfile.ColumnSchema("x", TSDataType.DOUBLE, ColumnCategory.FIELD),
    ]
    for name, times in (("a", [0, 2, 4]), ("b", [1, 3, 5])):
        w = TsFileWriter(str(tmp_path / f"{name}.tsfile"), overwrite=True)
        w.register_table(tsfile.TableSchema("m", cols))
        t = np.array(times, np.int64)
        w.write_arrays("m", t, {"id": "d", "x": t * 10.0})
        w.close()
    with _open(tmp_path) as df:
        ts = df["m.d.x"]
        assert ts[1] == 10.0 and ts[4] == 40.0
        assert ts[1:5].tolist() == [10.0, 20.0, 30.0, 40.0]
        assert ts.timestamps.tolist() == [0, 1, 2, 3, 4, 5]


def test_shards_with_different_columns_are_refused_naming_both(tmp_path):
    a = write_shard(tmp_path / "a.tsfile", 0, 5)
    b = write_shard(tmp_path / "b.tsfile", 100, 5, extra="p")
    with pytest.raises(ValueError, match="Incompatible schema for table 'm'") as err:
        _open(tmp_path)
    assert isinstance(err.value, tsfile.InvalidSchemaError)
    assert a in str(err.value) and b in str(err.value) and "'p'" in str(err.value)


def test_bad_shard_is_named(tmp_path, shards):
    bad = tmp_path / "bad.tsfile"
    bad.write_bytes(b"garbage" * 20)
    with pytest.raises(CorruptDataError, match=str(bad)):
        _open(tmp_path)


def test_index_warm_open_reads_no_file_metadata(tmp_path, shards, monkeypatch):
    with _open(tmp_path, use_index=True) as cold:
        names = cold.list_timeseries()
    where = index_path([os.path.abspath(p) for p in shards])
    assert os.path.exists(where)
    calls = []
    original = files_mod.read_file_info
    monkeypatch.setattr(
        "tsfile.dataset.read_file_info", lambda p, *a, **k: calls.append(p) or original(p, *a, **k)
    )
    with _open(tmp_path, use_index=True) as warm:
        assert warm.list_timeseries() == names
        assert warm["m.b.x"][22] == 103.5
    assert calls == []


def test_untrusted_index_rereads_only_changed_files(tmp_path, shards, monkeypatch):
    _open(tmp_path, use_index=True).close()
    time.sleep(0.01)
    write_shard(shards[1], 100, 30)  # same path, other rows: size and mtime change
    calls = []
    original = files_mod.read_file_info
    monkeypatch.setattr(
        "tsfile.dataset.read_file_info", lambda p, *a, **k: calls.append(p) or original(p, *a, **k)
    )
    with _open(tmp_path, use_index=True) as trusted:  # trusts the stale entry, as documented
        assert len(trusted["m.a.x"]) == 60
    assert calls == []
    with _open(tmp_path, use_index=True, trust_index=False) as checked:
        assert len(checked["m.a.x"]) == 70
    assert calls == [shards[1]]


def test_damaged_index_is_rebuilt(tmp_path, shards):
    _open(tmp_path, use_index=True).close()
    where = index_path([os.path.abspath(p) for p in shards])
    with open(where, "w") as f:
        f.write("{not json")
    with _open(tmp_path, use_index=True) as df:
        assert len(df) == 4
    with open(where) as f:
        assert json.load(f)["version"] == INDEX_VERSION


def test_open_files_are_bounded(tmp_path):
    write_shards(tmp_path, files=8, rows=5)
    with _open(tmp_path, use_index=True, max_open_files=2, query_workers=2) as df:
        got = df.loc[:, ["m.a.x", "m.b.x"]]
        assert got.shape == (40, 2)
        assert df._pool.open_count() <= 2
        assert np.array_equal(df["m.b.ts"].timestamps, got.timestamps)


def test_open_files_are_bounded_without_the_index_too(tmp_path, monkeypatch):
    monkeypatch.setattr("tsfile.dataset._UNINDEXED_OPEN_FILES", 3)
    write_shards(tmp_path, files=6, rows=5)
    with _open(tmp_path) as df:
        assert df.loc[:, ["m.a.x"]].shape == (30, 1)
        assert df._pool.open_count() == 3


def test_options_need_use_index_and_are_checked(tmp_path, shards):
    with pytest.raises(ValueError, match="use_index=True"):
        TsFileDataFrame(str(tmp_path), max_open_files=4)
    with pytest.raises(ValueError, match="positive"):
        TsFileDataFrame(str(tmp_path), use_index=True, max_open_files=0)
    with pytest.raises(TypeError):
        TsFileDataFrame(str(tmp_path), use_index="yes")


def test_progress_line_without_tqdm(tmp_path, shards, capsys, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_tqdm(name, *a, **k):
        if name == "tqdm":
            raise ImportError("no tqdm")
        return real_import(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_tqdm)
    TsFileDataFrame(str(tmp_path)).close()
    err = capsys.readouterr().err
    assert "Loading TsFile shards: 3/3" in err and err.endswith("done\n")
    TsFileDataFrame(str(tmp_path), show_progress=False).close()
    assert capsys.readouterr().err == ""


def test_show_repr_subset_and_close(tmp_path, shards, capsys):
    df = _open(tmp_path)
    assert repr(df).startswith("TsFileDataFrame(table model, 4 time series, 3 files)")
    df.show(2)
    assert "TsFileDataFrame(table model" in capsys.readouterr().out
    meta = df.list_timeseries_metadata()
    sub = df[meta["field"] == "x"]
    assert sub.list_timeseries() == ["m.a.x", "m.b.x"] and len(sub) == 2
    assert "subset of 4" in repr(sub)
    with pytest.raises(KeyError):
        sub["m.a.ts"]
    ts = df["m.a.x"]
    assert repr(ts).startswith("Timeseries('m.a.x', count=60, start=1970-01-01 00:00:00")
    sub.close()
    assert df["m.a.x"][0] == 0.5  # closing a subset leaves its root open
    df.close()
    with pytest.raises(RuntimeError, match="TsFileDataFrame is closed"):  # as the official
        df["m.a.x"]
    with pytest.raises(ClosedError):
        df[0]
    with pytest.raises(ClosedError):
        ts[0]
    with pytest.raises(ClosedError):
        sub["m.a.x"]


_OFFICIAL_SCRIPT = """
import json, sys
import numpy as np
from tsfile import TsFileDataFrame
df = TsFileDataFrame(sys.argv[1], show_progress=False)
names = [str(n) for n in df.list_timeseries()]
series = {n: [None if np.isnan(v) else float(v) for v in df[n][:]] for n in names}
stamps = {n: df[n].timestamps.tolist() for n in names}
a = df.loc[10:210, names]
loc = [a.timestamps.tolist(), [[None if np.isnan(v) else float(v) for v in r] for r in a.values]]
print(json.dumps([names, series, stamps, loc, len(df)]))
"""


def test_same_series_values_and_alignment_as_the_official_view(tmp_path, shards):
    import subprocess

    from interop.official import skip_unless_official

    py = skip_unless_official()
    out = subprocess.run(
        [py, "-c", _OFFICIAL_SCRIPT, str(tmp_path)], capture_output=True, text=True, check=True
    )
    names, series, stamps, loc, n = json.loads(out.stdout)
    nan_none = lambda xs: [None if np.isnan(v) else float(v) for v in xs]  # noqa: E731
    with _open(tmp_path) as df:
        assert [str(x) for x in df.list_timeseries()] == names and len(df) == n
        for name in names:
            assert nan_none(df[name][:]) == series[name]
            assert df[name].timestamps.tolist() == stamps[name]
        a = df.loc[10:210, names]
        assert [a.timestamps.tolist(), [nan_none(r) for r in a.values]] == loc


def test_slices_lists_and_listing_columns_as_in_the_official_view(tmp_path, shards):
    # checked against the official 2.5 wheel on files of the same shape
    with _open(tmp_path) as df:
        assert df[0:1].list_timeseries() == ["m.a.x"]
        assert df[::-1].list_timeseries() == ["m.b.ts", "m.b.x", "m.a.ts", "m.a.x"]
        assert df[[3, 0]].list_timeseries() == ["m.b.ts", "m.a.x"]
        assert df[[True, False]].list_timeseries() == ["m.a.ts", "m.a.x"]  # bools are ints
        sub = df[1:3]
        assert sub[0].name == "m.a.ts" and sub.loc[:, [0]].series_names == ["m.a.ts"]
        assert df["field"].tolist() == ["x", "ts", "x", "ts"]
        assert df["count"].tolist() == [60] * 4 and str(df["count"].dtype) == "int64"
        assert df["start_time"].tolist() == [0] * 4 and df["end_time"].tolist() == [219] * 4
        assert df["id"].tolist() == ["a", "a", "b", "b"]
        assert sub["field"].index.tolist() == [0, 1]
        with pytest.raises(TypeError, match="integers"):
            df[["m.a.x"]]
        with pytest.raises(TypeError, match="Unsupported key type"):
            df[np.array([True, False, True, False])]
        ts = df[0]
        assert np.array_equal(ts[::-7], ts[:][::-7], equal_nan=True)
