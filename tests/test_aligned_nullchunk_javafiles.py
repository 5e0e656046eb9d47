"""Aligned (tree-model) files of the Java writer: a column that is null in every row of a chunk
group is written by Java as a value chunk with no bytes at all (header 0x45, data size 0), where
the C++ writer writes one empty page per time page. Our reader refused such a chunk ("value
chunk has 0 pages, its time chunk 5"), so any query naming that column failed; the official
2.5 reader crashes the process on it."""

from __future__ import annotations

import javafix
import numpy as np
import pytest
from interop.chunk_scan import scan_chunks

import tsfile

NAME = "java_tree_aligned"
DEVICES = ["root.sg1.vd1", "root.sg1.vd2"]
COLUMNS = ["s_allnull", "s_bool", "s_d", "s_f", "s_i32", "s_i64", "s_t"]


def _zero_size_value_chunks(path):
    """(offset, name) of every value chunk whose data size is 0, from a sequential scan."""
    with open(path, "rb") as fh:
        chunks = scan_chunks(fh.read())
    return [
        (c["offset"], c["measurement"])
        for c in chunks
        if c["kind"] == "value" and c["data_size"] == 0
    ]


def test_fixture_has_java_empty_value_chunks():
    empty = _zero_size_value_chunks(javafix.path(NAME))
    # s_d is null in every row (i * 7 % 7 == 0), s_allnull too: both chunk groups of both devices
    assert sorted({n for _, n in empty}) == ["s_allnull", "s_d"]
    assert len(empty) == 8


@pytest.mark.parametrize("path", ["per_value", "batch", "auto"])
@pytest.mark.parametrize("device", DEVICES)
def test_all_columns_with_empty_chunks(device, path):
    exp = javafix.expected(NAME)
    with tsfile.TsFileReader(javafix.path(NAME)) as r:
        assert r.get_timeseries_names(device) == COLUMNS
        rs = r.query_timeseries(device, COLUMNS, start_time=0, end_time=10**12, path=path)
        rows = []
        while rs.next():
            rows.append(rs.get_row())
        rs.close()
    assert len(rows) == 900
    assert [t for t, *_ in rows] == list(range(1000, 1000 + 900 * 10, 10))
    for j, col in enumerate(COLUMNS, start=1):
        want = exp.get((device, col), {})
        got = {row[0]: row[j] for row in rows if row[j] is not None}
        assert got.keys() == want.keys(), col
        lossy = col == "s_f"  # FLOAT TS_2DIFF
        for t, v in want.items():
            assert javafix.same(got[t], v, lossy), (col, t, got[t], v)
    assert all(row[1] is None and row[3] is None for row in rows)


@pytest.mark.parametrize("t1, t2, n", [(3000, 3500, 51), (1010, 1010, 1), (5000, 9000, 401)])
def test_time_ranges_over_empty_chunks(t1, t2, n):
    with tsfile.TsFileReader(javafix.path(NAME)) as r:
        rs = r.query_timeseries("root.sg1.vd2", COLUMNS, start_time=t1, end_time=t2)
        rows = []
        while rs.next():
            rows.append(rs.get_row())
    assert len(rows) == n
    assert all(row[1] is None and row[3] is None for row in rows)
    assert any(row[5] is not None for row in rows)


# The table model: field z (DOUBLE) and s (TEXT) null in every row of the first chunk group of
# each device (java_table_nullgroup.tsfile: 2 devices x 2 chunk groups of 50 rows, a = row,
# z = 1.5 * row and s = "t<row>" from row 50 on). Every table API failed on it.
TABLE = "java_table_nullgroup"


def test_table_read_table():
    for threads in (1, 2):
        cols = tsfile.read_table(javafix.path(TABLE), "g", threads=threads)
        assert len(cols["time"]) == 200
        z, s, a = cols["z"], cols["s"], np.ma.getdata(cols["a"])
        present = a >= 50
        assert list(np.ma.getmaskarray(z)) == list(~present)
        assert list(np.ma.getdata(z)[present]) == [1.5 * x for x in a[present]]
        assert [v is None for v in s] == list(~present)
        assert [v for v in s if v is not None] == [f"t{x}" for x in a[present]]


def test_table_dataframe_and_arrow():
    df = tsfile.to_dataframe(javafix.path(TABLE), "g")
    assert len(df) == 200 and int(df["z"].isna().sum()) == 100 and float(df["z"].sum()) == 11175.0
    pytest.importorskip("pyarrow")
    assert tsfile.read_arrow(javafix.path(TABLE), "g").column("z").null_count == 100


def test_table_rows_and_ranges():
    with tsfile.TsFileReader(javafix.path(TABLE)) as r:
        rs = r.query_table("g", ["dev", "a", "z", "s"], start_time=40, end_time=60)
        rows = []
        while rs.next():
            rows.append(
                (rs.get_value_by_name("a"), rs.get_value_by_name("z"), rs.get_value_by_name("s"))
            )
        rs = r.query_table_by_row("g", ["dev", "z"], offset=45, limit=10)
        by_row = []
        while rs.next():
            by_row.append(rs.get_value_by_name("z"))
    assert len(rows) == 42
    assert all((z is None) == (a < 50) and (s is None) == (a < 50) for a, z, s in rows)
    assert by_row == [None] * 5 + [1.5 * x for x in range(50, 55)]
