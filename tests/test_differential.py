"""Differential tests: random files, the official Apache tsfile 2.5.0 package as the other side.

1. Official writer -> our reader: tests/differential/gen_official.py (run in the official venv)
   writes random table- and tree-model files (all types, random encodings and compressions from
   the support matrix, page sizes 1..20000, nulls, flushes, missing value chunks, > 256 devices)
   with their ground truth; our reader must return it on every read path and decode path, and
   for random time ranges (reader_check.py).
2. Our writer -> official reader (and ours): tests/differential/writer_gen.py writes random files
   through every write API; the official reader (writer_check.py) and ours must return them.
3. Hostile files: mutants of valid files read in child processes (hostile.py): never a crash,
   hang or stray exception; errors are TsFileError subclasses naming an offset.

The official parts skip when its venv is absent. Open bugs are xfail(strict=True): fixing one
makes its test XPASS, which fails, so the mark must then be removed.
Many-seed runs (development): tests/differential/run_official_to_ours.py, run_ours_to_official.py,
hostile.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from differential import hostile, reader_check, writer_check, writer_gen
from interop.official import official_python

import tsfile
from tsfile import ColumnCategory, ColumnSchema, Compressor, TableSchema, TSDataType, TSEncoding
from tsfile.codecs import ts2diff_float

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures" / "official"
PY = official_python()
needs_official = pytest.mark.skipif(PY is None, reason="official tsfile venv not available")

# Seeds chosen to cover (gen_official.py as of 4304ae3): several tables with page sizes 2..20000
# (2, 3, 14), missing value chunks (4, 35), value pages covering fewer rows than their time
# pages (16, 30), > 256 devices (11; 37 with pages of 1 point), > 256 field columns (16, 35),
# tree model (< 0; -12 and -14 with flushes: many chunks per series).
OFFICIAL_SEEDS = [2, 3, 4, 11, 14, 16, 30, 35, 37, -1, -3, -12, -14]

BUG_DICT = (
    "DICTIONARY encoder writes RLE bit width 0 for a page whose values are all one dictionary "
    "entry (format notes 8.5: at least 1); the official reader segfaults or misreads the page "
    "(tsfile/codecs/dictionary)"
)


# ------------------------------------------------------------------------------------------------
# 1. official writer -> our reader
# ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def official_files(tmp_path_factory):
    if PY is None:
        pytest.skip("official tsfile venv not available")
    out = tmp_path_factory.mktemp("differential-official")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    subprocess.run(
        [PY, "-I", str(HERE / "differential" / "gen_official.py"), str(out)]
        + [str(s) for s in OFFICIAL_SEEDS]
        + ["--no-official-read"],
        env=env,
        check=True,
        capture_output=True,
        timeout=300,
    )
    return out


@needs_official
@pytest.mark.parametrize("seed", OFFICIAL_SEEDS)
def test_official_writer_random_file(official_files, seed):
    doc = json.loads((official_files / f"{seed}.json").read_text(encoding="utf-8"))
    fails = reader_check.check_file(
        official_files / f"{seed}.tsfile", doc, np.random.default_rng(abs(seed) + 1)
    )
    assert not fails, "\n".join(f"{c}: {m}" for c, m in fails[:5])


@needs_official
def test_checker_catches_a_wrong_cell(official_files):
    # the comparison must be able to fail: one changed cell of the truth is reported
    doc = json.loads((official_files / "2.json").read_text(encoding="utf-8"))
    series = doc["tables"][0]
    col = next(
        c for c, k in zip(series["columns"], series["categories"], strict=True) if k == "FIELD"
    )
    cells = series["data"][col]
    i = next(i for i, v in enumerate(cells) if v is not None)
    cells[i] = None
    fails = reader_check.check_file(official_files / "2.tsfile", doc, np.random.default_rng(0))
    assert fails and all(col in m for _c, m in fails)


# Value chunks covering fewer rows than their time chunk (tests/differential/make_partial.py):
# the written data, or a clean error, never values attached to other rows' times.
PARTIAL = {
    # times 0..14; v written for the 1st and 3rd tablets of 5 rows only
    "partial_middle": {t: (1000 + t if t < 5 or t >= 10 else None) for t in range(15)},
    "partial_prefix": {t: (1000 + t if t >= 5 else None) for t in range(10)},
}
# Was an open bug: with small batch_size the first block of partial_middle paired v values with
# the wrong times (1010..1012 at times 5..7) before the next page raised. Fixed: the page headers
# of value and time chunks are checked against each other before any row is served.


@pytest.mark.parametrize(
    "name, batch_size",
    [
        ("partial_middle", 1),
        ("partial_middle", 8),
        ("partial_middle", 0),
        ("partial_prefix", 1),
        ("partial_prefix", 0),
    ],
)
def test_partial_value_chunk_never_misaligned(name, batch_size):
    truth = PARTIAL[name]
    got = []
    with tsfile.TsFileReader(HERE / "differential" / "data" / f"{name}.tsfile") as r:
        try:
            with r.query_table("t", ["a", "v"], batch_size=batch_size) as rs:
                while (blk := rs.get_next_tsblock()) is not None:
                    null = blk.nulls.get("v", np.zeros(len(blk), np.bool_))
                    got += [
                        (int(t), None if n else int(v))
                        for t, v, n in zip(blk.timestamps, blk.columns["v"], null, strict=True)
                    ]
        except tsfile.TsFileError as e:
            assert hostile.OFFSET_RE.search(str(e)), str(e)
        else:  # no error: every row, none dropped
            assert got == list(truth.items())
    wrong = [(t, v) for t, v in got if truth[t] != v]
    assert not wrong, f"rows returned with wrong values: {wrong}"


# Was an open bug: a range inside the first page ([5, 7]) returned v = 1010..1012 at times 5..7
# without error (the later page that fails was skipped). Fixed: v's first page statistics end at
# time 12, its time page at 7, which the page-header check reports.


@pytest.mark.parametrize(
    "name, start, end",
    [
        ("partial_middle", 5, 7),
        ("partial_middle", 0, 7),
        ("partial_middle", 3, 9),
        ("partial_prefix", 0, 4),
        ("partial_prefix", 6, 9),
    ],
)
def test_partial_value_chunk_time_range(name, start, end):
    truth = PARTIAL[name]
    with tsfile.TsFileReader(HERE / "differential" / "data" / f"{name}.tsfile") as r:
        try:
            _names, _types, ts, cols, nulls = r.read_columns("t", ["a", "v"], start, end)
        except tsfile.TsFileError as e:
            assert hostile.OFFSET_RE.search(str(e)), str(e)
            return
    null = nulls.get("v", np.zeros(len(ts), np.bool_))
    got = [(int(t), None if n else int(v)) for t, v, n in zip(ts, cols["v"], null, strict=True)]
    assert got == [(t, truth[t]) for t in range(start, end + 1)]


# ------------------------------------------------------------------------------------------------
# 2. our writer -> our reader and the official reader
# ------------------------------------------------------------------------------------------------

OUR_SEEDS = [0, 1, 3, 5, 8]
# seeds of writer_gen (for_official=True) with values an encoding would lose (SPRINTZ: an
# INT64 prediction error of exactly MIN_VALUE; CAMEL: a NaN after a page's first value): once
# silently lost bugs, now refused (EncodeError naming the column)
OUR_LOSSY_SEEDS = [(23, "SPRINTZ"), (33, "CAMEL")]


@pytest.mark.parametrize("seed", OUR_SEEDS)
def test_our_writer_roundtrip_all_encodings(tmp_path, seed):
    # ALP and PLAIN timestamps included: our reader only
    path = tmp_path / "w.tsfile"
    doc = writer_gen.write_random(str(path), seed, for_official=False)
    fails = reader_check.check_file(path, doc, np.random.default_rng(seed))
    assert not fails, "\n".join(f"{c}: {m}" for c, m in fails[:5])


@pytest.mark.parametrize("seed", OUR_SEEDS[:3])
def test_our_writer_roundtrip(tmp_path, seed):
    path = tmp_path / "w.tsfile"
    doc = writer_gen.write_random(str(path), seed, for_official=True)
    fails = reader_check.check_file(path, doc, np.random.default_rng(seed))
    assert not fails, "\n".join(f"{c}: {m}" for c, m in fails[:5])


@needs_official
# 22, 62: DICTIONARY pages of one entry (page sizes 7 and 1), crashed the official reader
# before 8f60ac9
@pytest.mark.parametrize("seed", [0, 1, 2, 22, 62])
def test_official_reads_our_writer(tmp_path, seed):
    path = tmp_path / "w.tsfile"
    doc = writer_gen.write_random(str(path), seed, for_official=True)
    fails = writer_check.check_official(path, doc)
    assert not fails, "\n".join(f"{c}: {m}" for c, m in fails[:5])


def _write_one_column(path, data_type, encoding, values):
    schema = TableSchema("t", [ColumnSchema("v", data_type, ColumnCategory.FIELD, encoding)])
    if data_type in (TSDataType.TEXT, TSDataType.STRING):
        arr = np.empty(len(values), object)
        arr[:] = values
    else:
        arr = np.asarray(values, dtype=data_type.numpy_dtype)
    with tsfile.TsFileTableWriter(path, schema, compression=Compressor.UNCOMPRESSED) as w:
        w.write_arrays(np.arange(len(values), dtype=np.int64), {"v": arr})
    return arr


def test_dictionary_page_of_one_entry_has_bit_width_1():
    # was an open bug (BUG_DICT), fixed in 8f60ac9
    from tsfile.codecs import dictionary

    page = dictionary.encode(["a", "a", "a"])
    # svarint entry count, varstr entries, then the RLE block: uvarint length, u8 bit width
    assert page[:3] == b"\x02\x02a"
    assert page[4] >= 1, f"bit width {page[4]} in {page.hex()}"


@needs_official
def test_official_reads_dictionary_page_of_one_entry(tmp_path):
    # BUG_DICT, fixed in 8f60ac9: the official 2.5.0 reader crashed (SIGSEGV) on width 0
    from interop.official import official_table

    path = tmp_path / "d.tsfile"
    _write_one_column(path, TSDataType.TEXT, TSEncoding.DICTIONARY, ["a", "a", "a"])
    assert official_table(path, "t")["v"] == ["a", "a", "a"]


@needs_official
def test_official_reads_series_with_a_plain_fallback_chunk(tmp_path):
    # was an open bug: the GORILLA/CHIMP end-marker fallback wrote PLAIN for one chunk while the
    # series' other chunks kept CHIMP; the official reader decodes every chunk of a series with
    # one decoder and returned 2.5754437 and 1.3832016e12 for 4.5 and 5.25. End-marker values
    # are now written like the official writer does (both readers decode them by count).
    from interop.official import official_table

    path = tmp_path / "m.tsfile"
    schema = TableSchema(
        "t", [ColumnSchema("v", TSDataType.FLOAT, ColumnCategory.FIELD, TSEncoding.CHIMP)]
    )
    first = np.array([1.0, np.nan, 2.0], np.float32)  # canonical NaN: this chunk is PLAIN
    second = np.array([3.0, 4.5, 5.25, 6.0], np.float32)
    with tsfile.TsFileTableWriter(path, schema, page_size=3) as w:
        w.write_arrays(np.arange(3, dtype=np.int64), {"v": first})
        w.flush()
        w.write_arrays(np.arange(3, 7, dtype=np.int64), {"v": second})
    got = official_table(path, "t")["v"]
    assert got[3:] == second.tolist()
    assert got[0] == 1.0 and np.isnan(got[1]) and got[2] == 2.0


@pytest.mark.parametrize("seed, encoding", OUR_LOSSY_SEEDS)
def test_our_writer_refuses_values_the_encoding_loses(tmp_path, seed, encoding):
    with pytest.raises(tsfile.EncodeError, match=rf"column '[^']+' \(\w+, {encoding}\)"):
        writer_gen.write_random(str(tmp_path / "w.tsfile"), seed, for_official=True)


def test_sprintz_error_of_min_value_not_lost(tmp_path):
    # was an open bug: the value was silently lost (read: [0, 0, 0, ...]); now refused
    path = tmp_path / "s.tsfile"
    with pytest.raises(tsfile.EncodeError, match=r"'v' \(INT32, SPRINTZ\).* at time 1 .*8\.9"):
        _write_one_column(path, TSDataType.INT32, TSEncoding.SPRINTZ, [0, -(2**31)] + [0] * 7)


def test_ts2diff_double_rounds_like_the_official_writer(tmp_path):
    # was an open bug: v * 100 was rounded half up exactly, not floor(v * 100 + 0.5) in double
    # as format notes 8.3 and the official writer (which store 60427080716746.5 here); the codec
    # still encodes as the official writer, and the writer now refuses the value it would change
    v = 60427080716746.49  # v * 100 == 6042708071674649.0; + 0.5 rounds to ...650.0
    page = ts2diff_float.encode(np.array([v, 1.0]))
    assert ts2diff_float.decode(page, np.float64)[0] == 60427080716746.5
    with pytest.raises(tsfile.EncodeError, match=r"'v' \(DOUBLE, TS_2DIFF\).* at time 0 "):
        _write_one_column(tmp_path / "r.tsfile", TSDataType.DOUBLE, TSEncoding.TS_2DIFF, [v, 1.0])


def test_camel_nan_not_lost(tmp_path):
    # was an open bug: the NaN was silently stored as 0.0 (read: [1.0, 0.0]); now refused
    path = tmp_path / "c.tsfile"
    with pytest.raises(tsfile.EncodeError, match=r"'v' \(DOUBLE, CAMEL\).* at time 1 .*NaN"):
        _write_one_column(path, TSDataType.DOUBLE, TSEncoding.CAMEL, [1.0, float("nan")])


# ------------------------------------------------------------------------------------------------
# 3. hostile files
# ------------------------------------------------------------------------------------------------

HOSTILE_SOURCES = [
    "time_column",
    "allnull_single_page",
    "missing_value_chunk",
    "unicode",
    "enc_dictionary",
    "extremes",
    "enc_camel",
    "gorilla_end_markers",
    "two_tables_flushed",
    "enc_rle",
    "enc_ts_2diff",
    "tree_nonaligned",
    "comp_lzo",
    "comp_snappy",
]


@pytest.fixture(scope="module")
def hostile_results(tmp_path_factory):
    d = tmp_path_factory.mktemp("hostile")
    ours = d / "ours.tsfile"
    writer_gen.write_random(str(ours), 3, for_official=False)
    files = [FIXTURES / f"{n}.tsfile" for n in HOSTILE_SOURCES] + [ours]
    return hostile.fuzz(files, seed=2, count=600, workdir=d / "mutants")


def test_hostile_files_never_crash_hang_or_raise_other_errors(hostile_results):
    bad = [r for r in hostile_results if r["result"] != "error-without-offset"]
    assert not bad, json.dumps(bad[:5], indent=1, ensure_ascii=False)


def test_hostile_file_errors_name_an_offset(hostile_results):
    assert not hostile_results, json.dumps(hostile_results[:5], indent=1, ensure_ascii=False)


@pytest.fixture(scope="module")
def header_results(tmp_path_factory):
    """Every value of the type, compression and encoding bytes of one chunk header per
    (type, kind) of two fixtures (format notes 5.1), each read in a child process."""
    from interop.chunk_scan import TYPE_NAMES, _Buf, scan_chunks

    d = tmp_path_factory.mktemp("headers")
    paths, desc = [], {}
    for name in ("tree_nonaligned", "alltypes_multipage"):
        data = (FIXTURES / f"{name}.tsfile").read_bytes()
        seen = set()
        for c in scan_chunks(data):
            if (c["type"], c["kind"]) in seen:
                continue
            seen.add((c["type"], c["kind"]))
            h = _Buf(data, c["offset"] + 1)  # marker, measurement varstr, data size
            h.varstr()
            h.uvarint()
            p = h.p
            assert TYPE_NAMES[data[p]] == c["type"], c  # p is the type byte
            for field, at, values in (("type", p, 12), ("comp", p + 1, 12), ("enc", p + 2, 16)):
                for v in range(values):
                    if data[at] == v:
                        continue
                    b = bytearray(data)
                    b[at] = v
                    f = d / f"{name}_{c['offset']}_{field}_{v}.tsfile"
                    f.write_bytes(bytes(b))
                    paths.append(str(f))
                    desc[str(f)] = f"{name}: chunk at {c['offset']} ({c['type']}) {field} = {v}"
    res = hostile.run_children(paths)
    return [{**r, "mutation": desc[p]} for p, r in res.items()]


def test_chunk_header_bytes_never_crash_or_hang(header_results):
    bad = [
        r
        for r in header_results
        if r["result"] not in hostile.OK_RESULTS + ("error-without-offset", "bad-exception")
    ]
    assert not bad, json.dumps(bad[:5], indent=1)
    stray = [r for r in header_results if r["result"] == "bad-exception"]
    assert all(r["type"] == "TypeError" for r in stray), json.dumps(stray[:5], indent=1)


def test_chunk_header_bytes_fail_cleanly(header_results):
    bad = [r for r in header_results if r["result"] not in hostile.OK_RESULTS]
    assert not bad, json.dumps(bad[:5], indent=1)


def _patched(tmp_path, name, patches):
    data = bytearray((FIXTURES / f"{name}.tsfile").read_bytes())
    for offset, old, new in patches:
        # the committed fixture must hold the byte the patch was found on
        assert data[offset] == old, (name, offset, data[offset])
        data[offset] = new
    path = tmp_path / f"{name}-patched.tsfile"
    path.write_bytes(bytes(data))
    return path


def _read_in_child(path):
    """hostile.read_everything in a child with the RLIMIT_AS cap: its one-line JSON result."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    proc = subprocess.run(
        [sys.executable, hostile.__file__, "--child", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert proc.returncode == 0, f"child died ({proc.returncode}): {proc.stderr[-500:]}"
    return json.loads(proc.stdout.splitlines()[-1])


# Byte patches found by hostile.py (seeds 1 and 2), reduced to the one byte that matters.
@pytest.mark.parametrize(
    "name, patches",
    [
        pytest.param(
            "tree_nonaligned",
            [(23, 0, 1)],  # encoding byte of the first chunk header: PLAIN -> DICTIONARY (INT64)
            id="chunk-encoding-type",
        ),
        pytest.param(
            "tree_nonaligned",
            [(23, 0, 15)],  # the same encoding byte: PLAIN -> ALP (15) for INT64
            id="chunk-encoding-alp-int64",
        ),
        pytest.param(
            "tree_nonaligned",
            [(23, 0, 14)],  # the same encoding byte: PLAIN -> CAMEL (14) for INT64
            id="chunk-encoding-camel-int64",
        ),
        pytest.param(
            "extremes",
            [(8360, 5, 4)],  # a column type in the table schema: TEXT -> DOUBLE
            id="schema-type",
        ),
        pytest.param(
            "extremes",
            [(916, 177, 145)],  # a PLAIN DATE value: 99991231 -> 99991198
            id="date-value",
        ),
        pytest.param(
            "extremes",
            [(7887, ord("p"), ord("P"))],  # DeviceID in the index: table segment 'plain' -> 'Plain'
            id="device-outside-its-table",
        ),
        pytest.param(
            "two_tables_flushed",
            [(17930, ord("a"), ord("A"))],  # table name in the table schema: 'alpha' -> 'Alpha'
            id="table-name-case",
        ),
        pytest.param(
            "time_column",
            [(419, ord("0"), ord(" "))],  # the encryptLevel property value
            id="encrypt-level",
        ),
    ],
)
def test_corrupt_file_error_names_offset(tmp_path, name, patches):
    res = _read_in_child(_patched(tmp_path, name, patches))
    # a mutant may read (nothing checks those bytes) or fail cleanly, nothing else
    assert res["result"] in ("read", "error"), res
