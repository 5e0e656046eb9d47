"""query_table_by_row / query_tree_by_row: the official offset/limit semantics (offset counts rows
across devices in index order; a negative offset is 0, a negative limit no limit), whole chunk
groups and pages before the offset skipped by their statistics counts (never decoded), nothing
decoded after the last row."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest
from interop.expected import fixture_path
from interop.official import skip_unless_official

import tsfile
from tsfile import writer
from tsfile._read import engine
from tsfile.types import ColumnCategory, TSDataType

ROWS = 900  # per device, written in two flushes (two chunk groups), pages of ~100 rows
DEVS = ["b", None, "a"]


@pytest.fixture(scope="module")
def table_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("byrow") / "byrow.tsfile"
    cols = [
        tsfile.ColumnSchema("dev", TSDataType.STRING, ColumnCategory.TAG),
        tsfile.ColumnSchema("i", TSDataType.INT64, ColumnCategory.FIELD),
        tsfile.ColumnSchema("d", TSDataType.DOUBLE, ColumnCategory.FIELD),
    ]
    w = writer.TsFileWriter(str(path), page_size=100)
    w.register_table(tsfile.TableSchema("t", cols))
    rng = np.random.default_rng(3)
    for k, dev in enumerate(DEVS):
        ts = np.arange(ROWS, dtype=np.int64) * 2 + k
        i = ts * 7 + k
        d = rng.normal(size=ROWS)
        nulls = rng.random(ROWS) < 0.1
        for part in (slice(0, 500), slice(500, ROWS)):
            w.write_arrays(
                "t", ts[part], {"dev": dev, "i": i[part], "d": d[part]}, {"d": nulls[part]}
            )
            w.flush()
    w.close()
    return str(path)


def _rows(rs):
    return [tuple(row) for row in rs]


def _all_rows(path, columns, **kw):
    with tsfile.TsFileReader(path) as r, r.query_table("t", columns, **kw) as rs:
        return _rows(rs)


WINDOWS = [
    (0, -1),
    (0, 0),
    (0, 1),
    (3, 5),
    (499, 2),  # across two chunk groups of one device
    (899, 2),  # across two devices
    (950, 500),
    (1799, 10),
    (2699, 5),  # the last row
    (2700, 5),  # past the end
    (10**9, 1),
    (-7, 4),  # negative offset: 0
    (5, -3),  # negative limit: no limit
]


@pytest.mark.parametrize("offset,limit", WINDOWS)
@pytest.mark.parametrize("batch_size", [0, 64])
def test_window_of_the_full_query(table_file, offset, limit, batch_size):
    full = _all_rows(table_file, ["dev", "i", "d"])
    start = max(offset, 0)
    want = full[start:] if limit < 0 else full[start : start + limit]
    with (
        tsfile.TsFileReader(table_file) as r,
        r.query_table_by_row("t", ["dev", "i", "d"], offset, limit, batch_size=batch_size) as rs,
    ):
        assert rs.get_metadata().get_column_list() == ["time", "dev", "i", "d"]
        got = _rows(rs)
    assert got == want


@pytest.mark.parametrize("path", ["per_value", "batch", "simd"])
def test_every_decode_path(table_file, path):
    if path == "simd" and not tsfile.is_simd_enabled():
        pytest.skip("no SIMD")
    full = _all_rows(table_file, ["i", "d"])
    with (
        tsfile.TsFileReader(table_file) as r,
        r.query_table_by_row("t", ["i", "d"], 1234, 321, path=path) as rs,
    ):
        assert _rows(rs) == full[1234 : 1234 + 321]


def _pages_decoded(fn):
    engine.reset_path_counts()
    fn()
    return sum(engine.path_counts().values())


def test_groups_and_pages_before_the_offset_are_not_decoded(table_file):
    with tsfile.TsFileReader(table_file) as r:
        # the file has what the test needs: several pages per chunk, with statistics
        info = r._chunk(
            r._plan_table("t", ["i"], -(2**63), 2**63 - 1)[4][0].groups[0].time_chunk.offset
        ).page_info()
        assert len(info) > 2 and all(p[3] for p in info)

        def one_row_near_the_end():
            with r.query_table_by_row("t", ["i", "d"], 2 * ROWS + 700, 1) as rs:
                assert len(_rows(rs)) == 1

        def whole_query():
            with r.query_table("t", ["i", "d"]) as rs:
                _rows(rs)

        full = _pages_decoded(whole_query)
        one = _pages_decoded(one_row_near_the_end)
    # one time page and one page of each value column: no page of the groups, devices and
    # pages before it, none after it
    assert one == 3, (one, full)
    assert full > 30


def test_limit_stops_decoding(table_file):
    with tsfile.TsFileReader(table_file) as r:

        def first_rows():
            with r.query_table_by_row("t", ["i"], 0, 10) as rs:
                assert len(_rows(rs)) == 10

        assert _pages_decoded(first_rows) == 2  # the first time page and its value page


def test_tag_filter_and_offset(table_file):
    f = tsfile.tag_is_not_null("dev")
    full = _all_rows(table_file, ["dev", "i"], tag_filter=f)
    assert len(full) == 2 * ROWS
    with (
        tsfile.TsFileReader(table_file) as r,
        r.query_table_by_row("t", ["dev", "i"], 880, 40, f) as rs,
    ):
        assert _rows(rs) == full[880:920]


def test_value_filter_offset_counts_matching_rows(table_file):
    vf = [("d", ">", 0.5)]
    full = _all_rows(table_file, ["i"], value_filter=vf)
    assert 0 < len(full) < ROWS
    with (
        tsfile.TsFileReader(table_file) as r,
        r.query_table_by_row("t", ["i"], 100, 50, value_filter=vf) as rs,
    ):
        assert _rows(rs) == full[100:150]


def test_bad_arguments(table_file):
    with tsfile.TsFileReader(table_file) as r:
        with pytest.raises(TypeError):
            r.query_table_by_row("t", ["i"], 1.5, 3)
        with pytest.raises(tsfile.ColumnNotExistError):
            r.query_table_by_row("t", ["nope"], 0, 3)
        with pytest.raises(tsfile.TableNotExistError):
            r.query_table_by_row("nope", ["i"], 0, 3)


# -- tree model ----------------------------------------------------------------------------------

TREE = fixture_path("tree_nonaligned")


def _joined(r, devices, measurements):
    """The outer join of every device's query_timeseries on time, as rows."""
    table = {}
    width = len(devices) * len(measurements)
    for k, dev in enumerate(devices):
        with r.query_timeseries(dev, measurements) as rs:
            for row in rs:
                cells = table.setdefault(row[0], [None] * width)
                cells[k * len(measurements) : (k + 1) * len(measurements)] = row[1:]
    return [(t, *table[t]) for t in sorted(table)]


TREE_QUERIES = [
    (["root.a", "root.a.b.c.d"], ["v"]),
    (["root.sg1.d1"], ["s_i64", "s_f64", "s_txt", "s_bool"]),
    (["root.sg1.d1", "root.sg1.d2", "root.sg2.dev"], []),
]


@pytest.mark.parametrize("devices,measurements", TREE_QUERIES)
@pytest.mark.parametrize("offset,limit", [(0, -1), (2, 3), (0, 0), (-1, 4), (10**6, 2)])
def test_tree_window_of_the_join(devices, measurements, offset, limit):
    with tsfile.TsFileReader(TREE) as r:
        full = _joined(r, devices, measurements)
        start = max(offset, 0)
        want = full[start:] if limit < 0 else full[start : start + limit]
        with r.query_tree_by_row(devices, measurements, offset, limit) as rs:
            names = rs.get_metadata().get_column_list()
            got = _rows(rs)
    assert names == ["time"] + [f"{d}.{m}" for d in devices for m in measurements]
    assert got == want
    if measurements and offset == 0 and limit < 0:
        assert len(got) > 3


def test_tree_missing_series():
    # as the official 2.5 reader (checked against its wheel on its own tree file): a pair the
    # file lacks is no column; with none left, the time column alone and no rows
    with tsfile.TsFileReader(TREE) as r:
        with r.query_tree_by_row(["root.a"], ["v", "no_such_sensor"], 0, 5) as rs:
            assert rs.get_metadata().get_column_list() == ["time", "root.a.v"]
            with r.query_tree_by_row(["root.a"], ["v"], 0, 5) as alone:
                assert _rows(rs) == _rows(alone) != []
        for devices, measurements in ((["root.no.such"], ["s"]), (["root.a"], ["no_such"])):
            with r.query_tree_by_row(devices, measurements, 0, 5) as rs:
                assert rs.get_metadata().get_column_list() == ["time"]
                assert not rs.next()
        with r.query_tree_by_row(["root.no.such", "root.a"], ["v"], 0, 5) as rs:
            assert rs.get_metadata().get_column_list() == ["time", "root.a.v"]


def test_same_rows_as_official(table_file):
    py = skip_unless_official()
    windows = [(3, 5), (899, 2), (2699, 5), (-7, 4), (5, -3), (0, 0)]
    script = (
        "import json, sys\n"
        "from tsfile import TsFileReader\n"
        "out = []\n"
        "with TsFileReader(sys.argv[1]) as r:\n"
        "    for off, lim in json.loads(sys.argv[2]):\n"
        "        rs = r.query_table_by_row('t', ['dev', 'i'], off, lim)\n"
        "        rows = []\n"
        "        while rs.next():\n"
        "            rows.append([rs.get_value_by_index(k) for k in (1, 2, 3)])\n"
        "        rs.close()\n"
        "        out.append(rows)\n"
        "print(json.dumps(out))\n"
    )
    proc = subprocess.run(
        [py, "-I", "-c", script, table_file, json.dumps(windows)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd="/",
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    with tsfile.TsFileReader(table_file) as r:
        for (off, lim), rows in zip(windows, json.loads(proc.stdout), strict=True):
            with r.query_table_by_row("t", ["dev", "i"], off, lim) as rs:
                assert [list(row) for row in rs] == rows, (off, lim)
