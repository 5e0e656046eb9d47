"""Tag filters (tsfile.tag_eq ... tag_is_not_null, &, |, ~): the official 2.5 semantics (NULL tags
match no comparison, regexp searches, ~ is plain negation, names case-insensitive), decided per
device from the index before any chunk or series metadata is read, on query_table,
query_table_by_row, read_table, to_dataframe and read_arrow."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest
from interop.official import skip_unless_official

import tsfile
from tsfile import writer
from tsfile._read import engine
from tsfile.types import ColumnCategory, TSDataType

# (region, dev) per device; value v = 10 * device number + row
DEVICES = [("north", "a"), ("north", None), (None, "c"), ("south", "d"), ("east", None), ("", "e")]
ROWS = 3


@pytest.fixture(scope="module")
def tag_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("tags") / "tags.tsfile"
    cols = [
        tsfile.ColumnSchema("region", TSDataType.STRING, ColumnCategory.TAG),
        tsfile.ColumnSchema("dev", TSDataType.STRING, ColumnCategory.TAG),
        tsfile.ColumnSchema("v", TSDataType.INT64, ColumnCategory.FIELD),
    ]
    w = writer.TsFileWriter(str(path))
    w.register_table(tsfile.TableSchema("t", cols))
    for k, (region, dev) in enumerate(DEVICES):
        ts = np.arange(ROWS, dtype=np.int64) + 10 * k
        w.write_arrays("t", ts, {"region": region, "dev": dev, "v": ts})
    w.close()
    return str(path)


def _devices(path, tag_filter, **kw):
    """{(region, dev)} of the rows a query with ``tag_filter`` returns; checks rows per device."""
    with (
        tsfile.TsFileReader(path) as r,
        r.query_table("t", ["region", "dev", "v"], tag_filter=tag_filter, **kw) as rs,
    ):
        rows = list(rs)
    got = {(row[1], row[2]) for row in rows}
    for key in got:
        assert sum(1 for row in rows if (row[1], row[2]) == key) == ROWS
    return got


def _where(pred):
    return {d for d in DEVICES if pred(*d)}


# What the official 2.5 reader returns for these filters on this file (checked against its
# wheel, see test_same_devices_as_official): NULL never satisfies a comparison, between or
# regexp (not even the negated ones); ~ negates plainly; regexp is a search.
CASES = [
    (tsfile.tag_eq("region", "north"), _where(lambda r, d: r == "north")),
    (tsfile.tag_neq("region", "north"), _where(lambda r, d: r is not None and r != "north")),
    (tsfile.tag_lt("region", "north"), _where(lambda r, d: r is not None and r < "north")),
    (tsfile.tag_lteq("region", "north"), _where(lambda r, d: r is not None and r <= "north")),
    (tsfile.tag_gt("region", "east"), _where(lambda r, d: r is not None and r > "east")),
    (tsfile.tag_gteq("region", "east"), _where(lambda r, d: r is not None and r >= "east")),
    (tsfile.tag_between("region", "a", "o"), _where(lambda r, d: r in ("east", "north"))),
    (tsfile.tag_not_between("region", "f", "z"), _where(lambda r, d: r in ("", "east"))),
    (tsfile.tag_regexp("region", "o"), _where(lambda r, d: r in ("north", "south"))),
    (tsfile.tag_regexp("region", "^n"), _where(lambda r, d: r == "north")),
    (tsfile.tag_not_regexp("region", "^n"), _where(lambda r, d: r in ("", "east", "south"))),
    (tsfile.tag_is_null("region"), _where(lambda r, d: r is None)),
    (tsfile.tag_is_not_null("dev"), _where(lambda r, d: d is not None)),
    (tsfile.tag_eq("region", ""), {("", "e")}),
    (~tsfile.tag_eq("region", "north"), _where(lambda r, d: r != "north")),
    (~tsfile.tag_is_null("dev"), _where(lambda r, d: d is not None)),
    (tsfile.tag_eq("REGION", "north") & tsfile.tag_is_null("Dev"), {("north", None)}),
    (
        (tsfile.tag_eq("region", "north") & tsfile.tag_eq("dev", "a"))
        | tsfile.tag_eq("region", "east"),
        {("north", "a"), ("east", None)},
    ),
]


@pytest.mark.parametrize("tag_filter,expect", CASES, ids=[repr(c[0]) for c in CASES])
def test_official_semantics(tag_file, tag_filter, expect):
    assert _devices(tag_file, tag_filter) == expect


def test_same_devices_as_official(tag_file):
    py = skip_unless_official()
    # Each filter built in both packages from the same constructor call.
    calls = [
        'tag_eq("region", "north")',
        'tag_neq("region", "north")',
        'tag_lt("region", "north")',
        'tag_between("region", "a", "o")',
        'tag_not_between("region", "f", "z")',
        'tag_regexp("region", "o")',
        'tag_not_regexp("region", "^n")',
        'tag_is_null("region")',
        'tag_is_not_null("dev")',
        '~tag_eq("region", "north")',
        'tag_eq("REGION", "north") & tag_is_null("Dev")',
    ]
    script = (
        "import json, sys\n"
        "from tsfile import *\n"
        "out = []\n"
        "with TsFileReader(sys.argv[1]) as r:\n"
        "    for call in json.loads(sys.argv[2]):\n"
        "        rs = r.query_table('t', ['region', 'dev', 'v'], tag_filter=eval(call))\n"
        "        rows = []\n"
        "        while rs.next():\n"
        "            rows.append([rs.get_value_by_name(c) for c in ('region', 'dev')])\n"
        "        rs.close()\n"
        "        out.append(rows)\n"
        "print(json.dumps(out))\n"
    )
    proc = subprocess.run(
        [py, "-I", "-c", script, tag_file, json.dumps(calls)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd="/",
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    official = json.loads(proc.stdout)
    for call, rows in zip(calls, official, strict=True):
        ours = _devices(tag_file, eval(call, vars(tsfile)))
        assert ours == {tuple(row) for row in rows}, call


def test_filter_objects_match_the_official_classes():
    f = tsfile.tag_eq("region", "x")
    assert isinstance(f, tsfile.TagFilter)
    assert (f.column_name, f.value, f.op) == ("region", "x", 0)
    assert repr(f) == "TagFilter(region == 'x')"
    assert repr(tsfile.tag_is_null("r")) == "TagFilter(r IS NULL)"
    b = tsfile.tag_not_between("r", "a", "b")
    assert (b.lower, b.upper, b.is_not) == ("a", "b", True)
    both = f & b
    assert (both.left, both.right) == (f, b)
    assert repr(~f) == "NOT(TagFilter(region == 'x'))"
    assert repr(f | b) == "(TagFilter(region == 'x') OR TagFilter(r NOT BETWEEN 'a' AND 'b'))"


def test_bad_filters_raise_before_reading(tag_file, monkeypatch):
    calls = []
    real = engine.read_chunk
    monkeypatch.setattr(engine, "read_chunk", lambda *a: calls.append(a) or real(*a))
    with tsfile.TsFileReader(tag_file) as r:
        with pytest.raises(tsfile.ColumnNotExistError, match="'nope'"):
            r.query_table("t", ["v"], tag_filter=tsfile.tag_eq("nope", "x"))
        with pytest.raises(tsfile.ColumnNotExistError, match="'v'"):  # a FIELD, not a TAG
            r.query_table("t", ["v"], tag_filter=tsfile.tag_eq("v", "1"))
        with pytest.raises(tsfile.InvalidFilterError, match="'region'.*regular expression"):
            r.query_table("t", ["v"], tag_filter=tsfile.tag_regexp("region", "["))
        with pytest.raises(tsfile.InvalidFilterError, match="'region'"):
            r.query_table("t", ["v"], tag_filter=tsfile.tag_gt("region", 5))
        with pytest.raises(tsfile.InvalidFilterError):
            r.query_table("t", ["v"], tag_filter="region = 'x'")
        # a bad filter deep inside a combination is found before anything is read
        bad = tsfile.tag_eq("region", "north") | ~tsfile.tag_not_regexp("dev", "(")
        with pytest.raises(tsfile.InvalidFilterError, match="'dev'"):
            r.query_table("t", ["v"], tag_filter=bad)
    assert calls == []


def test_one_of_a_thousand_devices_reads_one_devices_chunks(tmp_path, monkeypatch):
    path = tmp_path / "many.tsfile"
    cols = [
        tsfile.ColumnSchema("id", TSDataType.STRING, ColumnCategory.TAG),
        tsfile.ColumnSchema("x", TSDataType.DOUBLE, ColumnCategory.FIELD),
    ]
    w = writer.TsFileWriter(str(path))
    w.register_table(tsfile.TableSchema("m", cols))
    n = 1000
    ids = np.repeat(np.array([f"d{i:04d}" for i in range(n)], dtype=object), 4)
    ts = np.tile(np.arange(4, dtype=np.int64), n)
    w.write_arrays("m", ts, {"id": ids, "x": np.arange(4 * n, dtype=np.float64)})
    w.close()
    chunks, series = [], []
    real_chunk = engine.read_chunk
    monkeypatch.setattr(
        engine, "read_chunk", lambda fv, off, *a: chunks.append(off) or real_chunk(fv, off, *a)
    )
    real_values = engine.read_value_chunks  # parses a chunk group's value chunks itself

    def value_chunks(fv, tch, plan, offsets, *a):
        chunks.extend(offsets)
        return real_values(fv, tch, plan, offsets, *a)

    monkeypatch.setattr(engine, "read_value_chunks", value_chunks)
    with tsfile.TsFileReader(str(path)) as r:
        real_series, real_index = r._series, r._device_index
        monkeypatch.setattr(
            r, "_series", lambda key, rng: series.append(rng) or real_series(key, rng)
        )
        # the planner reads a device's series index compiled (tsfile._format.devindex)
        monkeypatch.setattr(r, "_device_index", lambda rng: series.append(rng) or real_index(rng))
        with r.query_table("m", ["id", "x"], tag_filter=tsfile.tag_eq("id", "d0777")) as rs:
            rows = list(rs)
    assert [row[2] for row in rows] == [4 * 777 + i for i in range(4)]
    assert len(series) == 1  # one device's series metadata
    assert len(set(chunks)) == 2  # its time chunk and its value chunk


def test_dataframe_functions_take_tag_filter(tag_file):
    f = tsfile.tag_eq("region", "north")
    table = tsfile.read_table(tag_file, "t", ["dev", "v"], tag_filter=f)
    assert sorted(table["v"].tolist()) == [0, 1, 2, 10, 11, 12]
    df = tsfile.to_dataframe(tag_file, "t", ["region", "v"], tag_filter=f)
    assert set(df["region"]) == {"north"} and len(df) == 6
    arrow = tsfile.read_arrow(tag_file, "t", ["v"], tag_filter=~f)
    assert arrow.num_rows == 12
    nothing = tsfile.read_table(tag_file, "t", ["v"], tag_filter=tsfile.tag_eq("region", "x"))
    assert len(nothing["time"]) == 0 and len(nothing["v"]) == 0


def test_tag_filter_with_time_range(tag_file):
    with (
        tsfile.TsFileReader(tag_file) as r,
        r.query_table("t", ["v"], 1, 11, tag_filter=tsfile.tag_eq("region", "north")) as rs,
    ):
        assert sorted(row[1] for row in rs) == [1, 2, 10, 11]
