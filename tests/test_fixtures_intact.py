"""The committed official-writer fixtures are complete and still mean what their expected data say.

Quick structural checks always run; the comparison with the official reader runs only where its
virtualenv exists (tests/interop/official_env.py; CI makes it) and is skipped otherwise.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from interop import (  # noqa: E402
    chunk_scan,
    official,  # noqa: E402
    pages,
    typed_json,
)
from interop import expected as ex  # noqa: E402

README = ex.FIXTURE_DIR / "README.md"


def readme_fixtures() -> list[str]:
    names = []
    for cell in re.findall(r"^\| (`[^|]+) \|", README.read_text(encoding="utf-8"), re.M):
        names += re.findall(r"`([A-Za-z0-9_]+)`", cell)
    return names


def test_readme_lists_every_fixture_once():
    listed = readme_fixtures()
    assert listed, "README lists no fixtures"
    assert len(listed) == len(set(listed))
    on_disk = sorted(p.stem for p in ex.FIXTURE_DIR.glob("*.tsfile"))
    assert sorted(listed) == on_disk
    assert sorted(listed) == ex.list_fixtures()


@pytest.mark.parametrize("name", readme_fixtures())
def test_fixture_file_and_expected(name):
    data = ex.fixture_path(name).read_bytes()
    assert data[:7] == b"TsFile\x04"
    assert data[-6:] == b"TsFile"
    # The i32 before the tail magic is the size of TsFileMetadata (format notes 2).
    meta_size = int.from_bytes(data[-10:-6], "big", signed=True)
    assert 0 < meta_size < len(data) - 17
    exp = ex.load_expected(name)
    assert exp.meta["name"] == name
    # Every chunk header is where and what it was when the fixture was made.
    assert chunk_scan.scan_chunks(data) == exp.meta["chunks"]
    assert exp.meta["file_size"] == len(data)
    assert exp.meta["model"] in ("table", "tree")
    assert (exp.tables if exp.meta["model"] == "table" else exp.devices) or name == "empty_table"
    for s in exp.series.values():
        n = s.num_rows
        assert s.columns[0] == "time" and s.types[0] == "INT64"
        for c in s.columns:
            assert len(s.values[c]) == n and len(s.nulls[c]) == n
        assert not s.nulls["time"].any()
    for d in exp.meta["official_reader_disagreements"]:
        assert d["reason"] and d["series"] in exp.series
        if d["kind"] == "cells":
            assert d["count"] == len(d["rows"]) == len(d["official"]) > 0
        else:
            assert d["kind"] == "series" and d["rows_written"] == exp.series[d["series"]].num_rows


def _official_view_of_truth(exp: ex.Dataset) -> dict:
    """The expected cells with the recorded official-reader disagreements applied."""
    docs = {}
    for s in exp.series.values():
        docs[s.name] = {c: list(s.cells[c]) for c in s.columns}
    for d in exp.meta["official_reader_disagreements"]:
        if d["kind"] == "series":  # the official reader loses/misplaces rows: its whole result
            docs[d["series"]] = dict(d["official"]["data"])
            continue
        col = docs[d["series"]][d["column"]]
        for i, cell in zip(d["rows"], d["official"], strict=True):
            col[i] = cell
    return docs


# A few fixtures that cover both models and recorded disagreements; the full set is checked when
# make_fixtures.py regenerates them.
OFFICIAL_CHECKED = [
    "ts2diff_uncompressed",
    "gorilla_end_markers",
    "tree_nonaligned",
    "enc_sprintz",
    "missing_value_chunk",
    "unicode",
]


@pytest.mark.parametrize("name", [n for n in OFFICIAL_CHECKED if n in readme_fixtures()])
def test_official_reader_still_agrees(name):
    official.skip_unless_official()
    exp = ex.load_expected(name)
    got = official.read_with_official_arrays(ex.fixture_path(name))
    assert sorted(got.tables) == sorted(exp.tables)
    assert sorted(got.devices) == sorted(exp.devices)
    want = _official_view_of_truth(exp)
    for sname, s in got.series.items():
        assert set(s.columns) == set(want[sname])
        for c in s.columns:
            assert s.cells[c] == want[sname][c], f"{name}: {sname}.{c}"


def test_loader_types_and_masks():
    # The loader's typed arrays against the raw JSON cells of one fixture.
    exp = ex.load_expected("ts2diff_uncompressed")
    s = next(iter(exp.tables.values()))
    dtypes = {"INT32": np.int32, "DATE": np.int32, "INT64": np.int64, "TIMESTAMP": np.int64}
    for c, t in zip(s.columns, s.types, strict=True):
        if t in dtypes:
            assert s.values[c].dtype == dtypes[t]
            assert s.values[c].tolist() == s.cells[c]


def test_typed_json_round_trip():
    cases = {
        "BOOLEAN": [True, False],
        "INT32": [-(2**31), 2**31 - 1],
        "INT64": [-(2**63), 2**63 - 1],
        "TIMESTAMP": [0, -1],
        "DATE": [10000101, 99991231],
        "TEXT": ["", "é東😀"],
        "STRING": ["a"],
        "BLOB": [b"", b"\x00\xff"],
    }
    for t, vals in cases.items():
        for v in vals:
            cell = typed_json.encode_value(t, v)
            back = typed_json.decode_value(t, cell)
            if t == "DATE":
                back = typed_json.encode_value(t, back)
            assert back == v and type(back) is type(v)
    for bits in (0x7FF8000000000001, 0xFFF8000000000000, 0x8000000000000000, 0x1):
        v = typed_json.float64_from_bits(bits)
        assert typed_json.encode_value("DOUBLE", v) == f"0x{bits:016x}"
        assert (
            typed_json.encode_value("DOUBLE", typed_json.decode_value("DOUBLE", f"0x{bits:016x}"))
            == f"0x{bits:016x}"
        )
    for bits in (0x7FC00001, 0xFFC00000, 0x80000000, 0x1, 0x7F800000):
        cell = f"0x{bits:08x}"
        assert typed_json.encode_value("FLOAT", typed_json.decode_value("FLOAT", cell)) == cell
        vals, nulls = ex.column_array("FLOAT", [cell, None])
        assert vals.view(np.uint32)[0] == bits and nulls.tolist() == [False, True]


def test_official_order_restores_fixture_row_order():
    # unicode: devices with non-ASCII, "", null and supplementary-plane tags; the expected rows
    # are in the official reader's order, which official_order() must reproduce from a shuffle.
    s = ex.load_expected("unicode").tables["mesures_é"]
    rng = np.random.default_rng(1)
    perm = rng.permutation(s.num_rows)
    tags = [s.values[c][perm] for c, k in zip(s.columns, s.categories, strict=True) if k == "TAG"]
    idx = ex.official_order(s.values["time"][perm], *tags)
    assert (perm[idx] == np.arange(s.num_rows)).all()


def test_assert_official_table_equals_on_fixture():
    official.skip_unless_official()
    s = ex.load_expected("allnull_single_page").tables["t"]
    cols = {c: s.values[c] for c in s.columns}
    official.assert_official_table_equals(
        ex.fixture_path("allnull_single_page"), "t", cols, nulls=s.nulls
    )
    bad = dict(cols, y=s.values["y"].copy())
    bad["y"][0] += 1.0
    with pytest.raises(AssertionError):
        official.assert_official_table_equals(
            ex.fixture_path("allnull_single_page"), "t", bad, nulls=s.nulls
        )


def test_official_to_dataframe_matches_recorded_summary():
    official.skip_unless_official()
    got = {}
    for name in ("time_column", "alltypes_multipage"):  # a result and an official error
        exp = ex.load_expected(name)
        (table,) = exp.tables
        got[name] = official.official_to_dataframe(ex.fixture_path(name), table_name=table)
        rec = exp.meta["official_to_dataframe"][table]
        assert {k: got[name].get(k) for k in rec} == rec
    s = ex.load_expected("time_column").tables["tc"]
    data = got["time_column"]["data"]
    assert data["ts"] == s.cells["time"] and data["v"] == s.cells["v"]


UNCOMPRESSED_TABLE_FIXTURES = [
    "ts2diff_uncompressed",
    "gorilla_uncompressed",
    "gorilla_end_markers",
    "comp_uncompressed",
] + [n for n in ex.list_fixtures() if n.startswith("enc_")]


@pytest.mark.parametrize("name", UNCOMPRESSED_TABLE_FIXTURES)
def test_page_helpers_cover_every_row(name):
    # value_pages() checks each page's row count and null bitmap against the expected nulls;
    # here every FIELD column's pages must together hold exactly its non-null values.
    exp = ex.load_expected(name)
    for tname, s in exp.tables.items():
        tp = pages.time_pages(name, tname)
        assert sum(p.row_count for p in tp) == s.num_rows
        for c, k in zip(s.columns, s.categories, strict=True):
            if k != "FIELD":
                continue
            vp = pages.value_pages(name, tname, c)
            assert sum(p.row_count for p in vp) == s.num_rows
            assert sum(len(p.values) for p in vp) == int((~s.nulls[c]).sum())
            assert all(p.value_bytes for p in vp if len(p.values))


def test_tree_page_helper():
    s = ex.load_expected("tree_nonaligned").devices["root.sg1.d2"]
    pg = pages.tree_pages("tree_nonaligned", "root.sg1.d2", "s_ts")
    assert sum(p.row_count for p in pg) == int((~s.nulls["root.sg1.d2.s_ts"]).sum())
    assert pg[0].time_bytes and pg[0].value_bytes and pg[0].encoding == "GORILLA"
    with pytest.raises(ValueError):
        pages.value_pages("two_tables_flushed", "alpha", "i64")  # LZ4 and several chunk groups
