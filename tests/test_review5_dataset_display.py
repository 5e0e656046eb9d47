"""Displaying a TsFileDataFrame, a Timeseries or a ``.loc`` result whose times pandas cannot
hold as Timestamps (beyond about 1677..2262 in milliseconds: times written in nanoseconds, or at
the int64 bounds). repr/show raised pandas' OutOfBoundsDatetime (a REPL could not print the
object) and int64's least time showed as NaT; the official view prints such a time as its int."""

from __future__ import annotations

import numpy as np
import pytest

import tsfile
from tsfile import TsFileDataFrame
from tsfile.types import ColumnCategory, TSDataType
from tsfile.writer import TsFileWriter

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
NS_TIME = 1_700_000_000_000_000_000  # a time in nanoseconds, read as milliseconds


def _write(path, times):
    cols = [
        tsfile.ColumnSchema("id", TSDataType.STRING, ColumnCategory.TAG),
        tsfile.ColumnSchema("x", TSDataType.DOUBLE, ColumnCategory.FIELD),
    ]
    w = TsFileWriter(str(path))
    w.register_table(tsfile.TableSchema("m", cols))
    w.write_arrays("m", np.array(times, np.int64), {"id": "a", "x": np.arange(len(times)) + 0.5})
    w.close()


def test_times_at_the_int64_bounds_are_shown_as_ints(tmp_path, capsys):
    _write(tmp_path / "a.tsfile", [INT64_MIN, -1, 0, INT64_MAX])
    with TsFileDataFrame(str(tmp_path), show_progress=False) as df:
        text = repr(df)
        assert str(INT64_MIN) in text and str(INT64_MAX) in text and "NaT" not in text
        assert repr(df["m.a.x"]) == (
            f"Timeseries('m.a.x', count=4, start={INT64_MIN}, end={INT64_MAX})"
        )
        got = df.loc[INT64_MIN:INT64_MAX, ["m.a.x"]]
        assert got.timestamps.tolist() == [INT64_MIN, -1, 0, INT64_MAX]
        lines = repr(got).splitlines()
        assert lines[0] == "AlignedTimeseries(4 rows, 1 series)"
        assert lines[2].split() == [str(INT64_MIN), "0.5"]
        assert lines[3].split()[:2] == ["1969-12-31", "23:59:59.999000"]
        assert lines[5].split() == [str(INT64_MAX), "3.5"]
        df.show()
        got.show()
        assert str(INT64_MAX) in capsys.readouterr().out
        # the listing keeps pandas Timestamps, and raises where pandas has none (as the
        # official view's does)
        with pytest.raises(ValueError):
            df.list_timeseries_metadata()


def test_nanosecond_times_are_shown_and_in_range_times_stay_timestamps(tmp_path):
    _write(tmp_path / "a.tsfile", [NS_TIME, NS_TIME + 1])
    _write(tmp_path / "b.tsfile", [0, 1500])
    df = TsFileDataFrame([str(tmp_path / "a.tsfile")], show_progress=False)
    assert repr(df["m.a.x"]).endswith(f"start={NS_TIME}, end={NS_TIME + 1})")
    assert str(NS_TIME + 1) in repr(df.loc[:, ["m.a.x"]])
    df.close()
    with TsFileDataFrame([str(tmp_path / "b.tsfile")], show_progress=False) as df:
        assert (
            repr(df["m.a.x"])
            == "Timeseries('m.a.x', count=2, start=1970-01-01 00:00:00, end=1970-01-01 00:00:01.5)"
        )
        assert "1970-01-01 00:00:01.500" in repr(df.loc[:, ["m.a.x"]])
        assert str(df.list_timeseries_metadata().loc["m.a.x", "end_time"]) == (
            "1970-01-01 00:00:01.500000"
        )
