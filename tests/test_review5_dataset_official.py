"""TsFileDataFrame over shards written by the OFFICIAL package that differ from one another
(tests/fixtures/dataset_official/make.py: two TAG columns, null and empty and unicode tags, a
device in some shards only, shards out of time order and overlapping in time, null fields, an
empty shard), compared with the official view on the same directory.

The finding: the official view lists a numeric field as a series of a device only in the shards
where the device holds a value of it. Ours listed every device x schema field in every shard: a
field never written was a phantom all-NaN series, and a shard whose cells of a field are all
null added its rows to the series as NaN (counts, timestamps, positions and ``.loc`` rows all
differed from the official view's)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from interop.official import official_python

from tsfile import TsFileDataFrame

HERE = Path(__file__).resolve().parent
SHARDS = HERE / "fixtures" / "dataset_official" / "shards"
REPO = HERE.parent


@pytest.fixture
def shards(tmp_path):
    """A copy of the committed shards (the index is written beside them)."""
    out = tmp_path / "shards"
    shutil.copytree(SHARDS, out)
    return out


def _open(path, **kw):
    return TsFileDataFrame(str(path), show_progress=False, **kw)


@pytest.mark.parametrize("use_index", [False, True])
def test_a_field_is_a_series_only_where_the_device_holds_a_value(shards, use_index):
    if use_index:  # the second opening reads the index: the same view
        _open(shards, use_index=True).close()
    with _open(shards, use_index=use_index) as df:
        names = [str(n) for n in df.list_timeseries()]
        # first seen order, files in path order (a_late, b_mid, c_empty, z_first)
        assert names == [
            "plant.north.u1.temp",
            "plant.north.u1.n",
            "plant.north.u1.ok",
            "plant.süd\\.ost.n",
            "plant.süd\\.ost.f",
            "plant.\\N.u2.temp",
            "plant.\\N.u2.n",
            "plant.\\N.u2.ok",
            "plant.\\N.u2.f",
            "plant..u3.temp",
            "plant..u3.n",
            "plant..u3.ok",
            "plant..u3.f",
            "plant.north.u1.f",  # first holds a value in b_mid
            "plant.süd\\.ost.temp",  # first holds a value in z_first
            "plant.süd\\.ost.ok",
        ]
        ok = df["plant.north.u1.ok"]  # all null in b_mid: b_mid's rows are no rows of it
        assert len(ok) == 8
        assert ok.timestamps.tolist() == [0, 1, 2, 3, 4, 11, 13, 20]
        assert ok[:].tolist() == [1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0]
        assert ok[5] == 1.0
        f = df["plant.north.u1.f"]  # all null in a_late
        assert f.timestamps.tolist() == [0, 1, 2, 3, 4, 10, 12, 14]
        assert df["plant.süd\\.ost.temp"].stats == {"start_time": 0, "end_time": 2, "count": 3}
        meta = df.list_timeseries_metadata()
        assert meta.loc["plant.süd\\.ost.n", "count"] == 2
        with pytest.raises(KeyError):
            df["plant.süd\\.ost.note"]  # a STRING field: never a series
        got = df.loc[0:30, ["plant.north.u1.ok", "plant.süd\\.ost.n"]]
        assert got.timestamps.tolist() == [0, 1, 2, 3, 4, 11, 13, 20, 21]
        assert np.isnan(got.values[:5, 1]).all() and got.values[-2:, 1].tolist() == [3.0, 3.0]


_SNIPPET = textwrap.dedent(
    """
    import json, math, sys
    import tsfile
    d = sys.argv[1]
    out = {}
    df = tsfile.TsFileDataFrame(d, show_progress=False)
    names = [str(n) for n in df.list_timeseries()]
    out["names"] = names
    meta = df.list_timeseries_metadata()
    out["meta"] = {
        n: [str(meta.loc[n, c]) for c in meta.columns] for n in names
    }
    out["columns"] = list(meta.columns)
    clean = lambda v: [None if math.isnan(x) else x for x in v]
    out["series"] = {
        n: [df[n].timestamps.tolist(), clean(df[n][:].tolist()), len(df[n])] for n in names
    }
    out["positions"] = {n: [clean([df[n][i]])[0] for i in range(len(df[n]))] for n in names}
    got = df.loc[0:30, names]
    out["loc"] = [got.timestamps.tolist(), [clean(r) for r in got.values.tolist()]]
    got = df.loc[11:13, names[::-1]]
    out["loc2"] = [got.timestamps.tolist(), [clean(r) for r in got.values.tolist()]]
    print("@@" + json.dumps(out))
    """
)


def _observe(python, env, cwd, directory):
    proc = subprocess.run(
        [*python, "-c", _SNIPPET, str(directory)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.rsplit("@@", 1)[1])


def test_the_view_equals_the_official_views_on_the_same_shards(shards, tmp_path):
    official = official_python()
    if official is None:
        pytest.skip("the official tsfile venv is not available")
    ours = _observe(
        [sys.executable],
        {**os.environ, "PYTHONPATH": str(REPO)},
        str(REPO),
        shards,
    )
    theirs = _observe([official, "-I"], {"PATH": os.environ.get("PATH", "")}, "/", shards)
    assert ours["names"] == theirs["names"]
    assert ours["columns"] == theirs["columns"]
    assert ours["meta"] == theirs["meta"]
    assert ours["series"] == theirs["series"]
    assert ours["positions"] == theirs["positions"]
    assert ours["loc"] == theirs["loc"]
    assert ours["loc2"] == theirs["loc2"]


def test_a_device_the_compact_index_declines_counts_its_values_too(tmp_path):
    # non-ASCII field names: the compact device index (tsfile._format.devindex) declines the
    # device, the values are counted from its series metadata instead
    import tsfile
    from tsfile.types import ColumnCategory, TSDataType
    from tsfile.writer import TsFileWriter

    cols = [
        tsfile.ColumnSchema("id", TSDataType.STRING, ColumnCategory.TAG),
        tsfile.ColumnSchema("température", TSDataType.DOUBLE, ColumnCategory.FIELD),
        tsfile.ColumnSchema("ü", TSDataType.INT32, ColumnCategory.FIELD),
    ]
    for k, with_u in enumerate((False, True)):
        w = TsFileWriter(str(tmp_path / f"p{k}.tsfile"))
        w.register_table(tsfile.TableSchema("m", cols))
        t = np.arange(3, dtype=np.int64) + 10 * k
        u = np.ma.MaskedArray(t.astype(np.int32), mask=np.full(3, not with_u))
        w.write_arrays("m", t, {"id": "a", "température": t + 0.5, "ü": u})
        w.close()
    with _open(tmp_path) as df:
        assert [str(n) for n in df.list_timeseries()] == ["m.a.température", "m.a.ü"]
        assert df["m.a.ü"].timestamps.tolist() == [10, 11, 12]
        assert len(df["m.a.température"]) == 6
