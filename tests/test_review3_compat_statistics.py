"""get_timeseries_metadata: a series whose statistics count no value still has statistics.

A TimeseriesMetadata record of the format always carries a statistics block; for a table-model
field a device wrote only nulls, that block counts 0 values. The official 2.5 reader reports it
as ``has_statistic=True, row_count=0`` (its dataset view then skips the series by row_count);
ours said ``has_statistic=False``, as if the file had no statistics for the series. The file is
written by each package itself (byte-identical writers) and read by the same package.
"""

from __future__ import annotations

from compat.both import run_official

SNIPPET = """
import tsfile
from tsfile import ColumnCategory, ColumnSchema, TableSchema, Tablet, TSDataType as T
schema = TableSchema("t", [ColumnSchema("dev", T.STRING, ColumnCategory.TAG),
                           ColumnSchema("a", T.DOUBLE, ColumnCategory.FIELD),
                           ColumnSchema("b", T.INT64, ColumnCategory.FIELD),
                           ColumnSchema("s", T.STRING, ColumnCategory.FIELD)])
with tsfile.TsFileTableWriter("p.tsfile", schema) as w:
    for dev, full in (("d1", False), ("d2", True)):
        tab = Tablet(["dev", "a", "b", "s"], [T.STRING, T.DOUBLE, T.INT64, T.STRING], 3)
        for i in range(3):
            tab.add_timestamp(i, 10 + i)
            tab.add_value_by_index(0, i, dev)
            tab.add_value_by_index(1, i, i / 2)
            if full:
                tab.add_value_by_index(2, i, i)
                tab.add_value_by_index(3, i, "x")
        w.write_table(tab)
with tsfile.TsFileReader("p.tsfile") as r:
    for key, group in sorted(r.get_timeseries_metadata().items(), key=lambda kv: str(kv[0])):
        for tsm in group.timeseries:
            s, tl = tsm.statistic, tsm.timeline_statistic
            out[f"{group.segments[1]}.{tsm.measurement_name}"] = [
                s.has_statistic, s.row_count, tl.has_statistic, tl.row_count, tl.start_time,
                tl.end_time]
"""


def test_a_series_of_nulls_has_statistics_counting_zero(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    scope = {"out": {}}
    exec(SNIPPET, scope)  # ours, in this process
    out = scope["out"]
    assert out["d1.b"][:2] == [True, 0]
    assert out["d1.s"][:2] == [True, 0]
    assert out["d1.a"] == [True, 3, True, 3, 10, 12]
    assert out["d2.b"] == [True, 3, True, 3, 10, 12]
    assert run_official(SNIPPET) == out  # skips where the official venv is missing
