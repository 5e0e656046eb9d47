"""Whole chunks in one engine call: the page plan, the nogil page loops, read_table(threads=N).

The engine decodes each chunk's planned pages (engine.plan_pages: which pages, which of their
rows, where they go) in one call that holds the GIL only to raise, to build TEXT/STRING/BLOB
objects and for compressions without a C decoder; tsfile.read_table(..., threads=N) decodes chunk
groups and columns on N threads. These tests check the values against what was written (every
codec, every compression, time ranges that cut pages, nulls, tree-model chunks), that any number
of threads gives the same result, and that errors raised inside the GIL-free loops still name
the page's file offset.
"""

from __future__ import annotations

import re
import shutil

import numpy as np
import pytest
from interop.expected import fixture_path, load_expected

import tsfile
from tsfile import CorruptDataError
from tsfile._read import engine
from tsfile.types import ColumnCategory, Compressor, TSDataType, TSEncoding

ROWS = 2500
PAGE = 300  # rows per page: every chunk has several pages, most ranges cut some
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

# column -> (data type, encoding); one column per codec (and each of its value kinds used here)
COLUMNS = {
    "i64_2diff": (TSDataType.INT64, TSEncoding.TS_2DIFF),
    "i32_rle": (TSDataType.INT32, TSEncoding.RLE),
    "i64_zigzag": (TSDataType.INT64, TSEncoding.ZIGZAG),
    "i64_sprintz": (TSDataType.INT64, TSEncoding.SPRINTZ),
    "i64_rlbe": (TSDataType.INT64, TSEncoding.RLBE),
    "f64_gorilla": (TSDataType.DOUBLE, TSEncoding.GORILLA),
    "f64_chimp": (TSDataType.DOUBLE, TSEncoding.CHIMP),
    "f64_alp": (TSDataType.DOUBLE, TSEncoding.ALP),
    "f64_camel": (TSDataType.DOUBLE, TSEncoding.CAMEL),
    "f32_plain": (TSDataType.FLOAT, TSEncoding.PLAIN),
    "bool_plain": (TSDataType.BOOLEAN, TSEncoding.PLAIN),
    "date_plain": (TSDataType.DATE, TSEncoding.PLAIN),
    "txt_dict": (TSDataType.TEXT, TSEncoding.DICTIONARY),
    "str_plain": (TSDataType.STRING, TSEncoding.PLAIN),
    "blob_plain": (TSDataType.BLOB, TSEncoding.PLAIN),
}
# pages decoded without the GIL (UNCOMPRESSED, SNAPPY, LZ4) and with it (GZIP, ZSTD, LZMA2)
COMPRESSIONS = ("UNCOMPRESSED", "SNAPPY", "LZ4", "GZIP", "ZSTD")
DEVICES = ("a", "b")


def _values(data_type, rng, n):
    if data_type == TSDataType.INT64:
        return np.cumsum(rng.integers(-50, 50, n)).astype(np.int64)
    if data_type == TSDataType.INT32:
        return rng.integers(0, 20, n).astype(np.int32)
    if data_type == TSDataType.DOUBLE:
        return np.round(np.cumsum(rng.normal(size=n)), 2)
    if data_type == TSDataType.FLOAT:
        return rng.normal(size=n).astype(np.float32)
    if data_type == TSDataType.BOOLEAN:
        return rng.random(n) < 0.5
    if data_type == TSDataType.DATE:
        return (20240101 + rng.integers(0, 28, n)).astype(np.int32)
    if data_type == TSDataType.BLOB:
        return np.array([bytes([int(x)]) * 3 for x in rng.integers(0, 255, n)], dtype=object)
    return np.array([f"s{int(x)}" for x in rng.integers(0, 40, n)], dtype=object)


def _data(device_index):
    """(timestamps, {column: values}, {column: null mask}) of one device (deterministic)."""
    rng = np.random.default_rng(11 + device_index)
    ts = np.cumsum(rng.integers(1, 4, ROWS)).astype(np.int64) + 1000 * device_index
    vals = {c: _values(t, rng, ROWS) for c, (t, _e) in COLUMNS.items()}
    nulls = {c: rng.random(ROWS) < 0.15 for c in COLUMNS}
    nulls["i64_2diff"][:] = False  # a column without nulls: whole pages straight into the result
    nulls["f64_gorilla"][PAGE : 2 * PAGE] = True  # a page that is all null
    for c in nulls:
        if vals[c].dtype == object:
            vals[c][nulls[c]] = None
    return ts, vals, nulls


def _write(path, compression, time_encoding=TSEncoding.TS_2DIFF):
    from tsfile import writer

    cols = [tsfile.ColumnSchema("dev", TSDataType.STRING, ColumnCategory.TAG)]
    cols += [
        tsfile.ColumnSchema(c, t, ColumnCategory.FIELD, encoding=e) for c, (t, e) in COLUMNS.items()
    ]
    w = writer.TsFileWriter(
        str(path),
        compression=Compressor[compression],
        page_size=PAGE,
        time_encoding=time_encoding,
    )
    w.register_table(tsfile.TableSchema("t", cols))
    for d, dev in enumerate(DEVICES):
        ts, vals, nulls = _data(d)
        half = ROWS // 2  # two chunk groups per device
        for a, b in ((0, half), (half, ROWS)):
            w.write_arrays(
                "t",
                ts[a:b],
                {"dev": dev, **{c: v[a:b] for c, v in vals.items()}},
                {c: m[a:b] for c, m in nulls.items()},
            )
            w.flush()
    w.close()


def _expected(t1, t2):
    """The rows in [t1, t2] as written: (timestamps, {column: values}, {column: nulls})."""
    parts = [_data(d) for d in range(len(DEVICES))]
    keep = [(ts >= t1) & (ts <= t2) for ts, _v, _n in parts]
    ts = np.concatenate([p[0][k] for p, k in zip(parts, keep, strict=True)])
    vals = {
        c: np.concatenate([p[1][c][k] for p, k in zip(parts, keep, strict=True)]) for c in COLUMNS
    }
    nulls = {
        c: np.concatenate([p[2][c][k] for p, k in zip(parts, keep, strict=True)]) for c in COLUMNS
    }
    return ts, vals, nulls


def _ranges():
    ts0, _v, _n = _data(0)
    ts1, _v, _n = _data(1)
    return {
        "all": (INT64_MIN, INT64_MAX),
        "cut": (int(ts0[137]), int(ts1[1777])),  # starts and ends inside pages
        "one-page": (int(ts0[PAGE + 20]), int(ts0[PAGE + 40])),
        "gap": (int(ts0[500]) + 0, int(ts0[2100]) - 1),
        "empty": (int(ts1[-1]) + 1, INT64_MAX),
    }


RANGES = _ranges()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("plan")
    out = {}
    for comp in COMPRESSIONS:
        out[comp] = d / f"{comp}.tsfile"
        _write(out[comp], comp)
    out["PLAIN-time"] = d / "plain_time.tsfile"
    _write(out["PLAIN-time"], "SNAPPY", TSEncoding.PLAIN)
    return out


def _check(names, ts, cols, nulls, t1, t2):
    e_ts, e_vals, e_nulls = _expected(t1, t2)
    assert names == ["time", *COLUMNS]
    np.testing.assert_array_equal(ts, e_ts)
    for c, (t, _e) in COLUMNS.items():
        got_nulls = nulls.get(c, np.zeros(len(ts), np.bool_))
        np.testing.assert_array_equal(got_nulls, e_nulls[c], err_msg=c)
        present = ~e_nulls[c]
        want = e_vals[c][present]
        got = cols[c][present]
        if t in (TSDataType.TEXT, TSDataType.STRING, TSDataType.BLOB):
            assert got.tolist() == want.tolist(), c
        else:
            assert got.dtype == want.dtype, c
            np.testing.assert_array_equal(got, want, err_msg=c)


@pytest.mark.parametrize("rng_name", list(RANGES))
@pytest.mark.parametrize("comp", [*COMPRESSIONS, "PLAIN-time"])
def test_values_are_the_written_ones(files, comp, rng_name):
    """Every codec and compression, time ranges cutting pages, nulls (all-null pages too)."""
    t1, t2 = RANGES[rng_name]
    with tsfile.TsFileReader(files[comp]) as r:
        names, _types, ts, cols, nulls = r.read_columns("t", list(COLUMNS), t1, t2)
    _check(names, ts, cols, nulls, t1, t2)


@pytest.mark.parametrize("path", ["per_value", "batch", "auto"])
def test_decode_paths_give_the_written_values(files, path):
    t1, t2 = RANGES["cut"]
    with tsfile.TsFileReader(files["SNAPPY"]) as r:
        names, _types, ts, cols, nulls = r.read_columns("t", list(COLUMNS), t1, t2, path=path)
    _check(names, ts, cols, nulls, t1, t2)


@pytest.mark.parametrize("rng_name", ["all", "cut", "gap", "empty"])
@pytest.mark.parametrize("threads", [2, 3, 8])
def test_threads_give_the_one_thread_result(files, threads, rng_name):
    """Same arrays (values, dtypes, null masks), and the same pages on the same codec paths."""
    t1, t2 = RANGES[rng_name]
    path = files["LZ4"]
    engine.reset_path_counts()
    one = tsfile.read_table(path, "t", None, t1, t2, threads=1)
    hits_one = engine.path_counts()
    engine.reset_path_counts()
    many = tsfile.read_table(path, "t", None, t1, t2, threads=threads)
    assert engine.path_counts() == hits_one
    assert list(one) == list(many)
    for c in one:
        a, b = one[c], many[c]
        assert type(a) is type(b) and a.dtype == b.dtype, c
        if isinstance(a, np.ma.MaskedArray):
            np.testing.assert_array_equal(a.mask, b.mask)
            a, b = a.data, b.data
        assert a.tolist() == b.tolist(), c


def test_threads_pass_through_dataframe_and_arrow(files):
    pytest.importorskip("pandas")
    t1, t2 = RANGES["cut"]
    path = files["SNAPPY"]
    one = tsfile.to_dataframe(str(path), "t", start_time=t1, end_time=t2)
    two = tsfile.to_dataframe(str(path), "t", start_time=t1, end_time=t2, threads=2)
    assert one.equals(two)
    pytest.importorskip("pyarrow")
    assert tsfile.read_arrow(path, "t", None, t1, t2, threads=2).equals(
        tsfile.read_arrow(path, "t", None, t1, t2)
    )


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", True])
def test_threads_argument_is_checked(files, bad):
    with pytest.raises((TypeError, ValueError), match="threads"):
        tsfile.read_table(files["LZ4"], "t", threads=bad)


def test_tree_nonaligned_chunks_in_a_time_range():
    """Non-aligned chunks (TS_2DIFF times + values per page) go through their own page loop."""
    name = "tree_nonaligned"
    if not fixture_path(name).exists():
        pytest.skip(f"fixture {name} not present")
    exp = load_expected(name)
    checked = 0
    with tsfile.TsFileReader(fixture_path(name)) as r:
        for dname, series in exp.devices.items():
            times = series.values["time"]
            if len(times) < 4:
                continue
            t1, t2 = int(times[len(times) // 4]), int(times[3 * len(times) // 4]) - 1
            keep = (times >= t1) & (times <= t2)
            for col in series.columns[1:]:
                sensor = col.split(".")[-1]
                with r.query_timeseries(dname, [sensor], t1, t2) as rs:
                    blk = rs.get_next_tsblock()
                present = keep & ~series.nulls[col]
                want_ts = times[present]
                if blk is None:
                    assert len(want_ts) == 0
                    continue
                got_nulls = blk.nulls.get(col, np.zeros(len(blk), np.bool_))
                np.testing.assert_array_equal(blk.timestamps[~got_nulls], want_ts, err_msg=col)
                got = blk.columns[col][~got_nulls]
                assert got.tolist() == series.values[col][present].tolist(), col
                checked += 1
    assert checked >= 5


# -- the plan ---------------------------------------------------------------------------------


def _first_group(r):
    _n, _t, _f, _tags, tasks = r._plan_table("t", ["i64_2diff", "txt_dict"], INT64_MIN, INT64_MAX)
    return tasks[0], tasks[0].groups[0]


def test_a_plan_restricts_the_rows_of_a_page(files):
    """PLAN_END >= 0 keeps rows [PLAN_FROM, PLAN_END) of a page (the hook for row offsets and
    selections): the time chunk and the value chunks that follow the plan agree."""
    FROM, END, ROWS_, OUT = (engine.PLAN_COLUMNS[k] for k in ("from", "end", "rows", "out"))
    ts, vals, _nulls = _data(0)
    with tsfile.TsFileReader(files["SNAPPY"]) as r:
        task, g = _first_group(r)
        plan = engine.plan_pages(g.time_chunk, INT64_MIN, INT64_MAX)
        assert plan.shape == (g.time_chunk.n_pages, 4)
        plan[:, FROM] = -1
        plan[1, FROM], plan[1, END] = 10, 25  # rows 10..24 of the second page
        plan[3, FROM], plan[3, END] = 0, 5
        out_ts = np.zeros(g.rows, np.int64)
        s = engine.new_scratch()
        rows, done = engine.read_time_chunk(
            r._fv, g.time_chunk, INT64_MIN, INT64_MAX, 1, out_ts, 0, s, g.inside, plan=plan
        )
        assert done is plan and rows == 15 + 5
        want = np.concatenate([ts[PAGE + 10 : PAGE + 25], ts[3 * PAGE : 3 * PAGE + 5]])
        np.testing.assert_array_equal(out_ts[:rows], want)
        assert plan[1].tolist() == [10, 25, PAGE, 0] and plan[3].tolist() == [0, 5, PAGE, 15]
        assert plan[0, FROM] == -1 and plan[0, ROWS_] == PAGE and plan[0, OUT] == -1
        out_v = np.zeros(g.rows, np.int64)
        out_n = np.zeros(g.rows, np.bool_)
        vch = r._chunk(g.values[0])
        assert (
            engine.read_value_chunk(r._fv, vch, plan, int(TSDataType.INT64), 1, out_v, out_n, 0, s)
            == 0
        )
        v = vals["i64_2diff"]
        np.testing.assert_array_equal(
            out_v[:rows], np.concatenate([v[PAGE + 10 : PAGE + 25], v[3 * PAGE : 3 * PAGE + 5]])
        )


def test_a_plan_that_is_not_one_is_refused(files):
    with tsfile.TsFileReader(files["SNAPPY"]) as r:
        _task, g = _first_group(r)
        s = engine.new_scratch()
        out = np.zeros(g.rows, np.int64)
        args = (r._fv, g.time_chunk, INT64_MIN, INT64_MAX, 1, out, 0, s)
        with pytest.raises(ValueError, match="page plan"):
            engine.read_time_chunk(*args, plan=np.zeros((g.time_chunk.n_pages, 3), np.int64))
        with pytest.raises(ValueError, match="pages"):
            engine.read_time_chunk(*args, plan=np.zeros((g.time_chunk.n_pages + 1, 4), np.int64))


# -- errors raised inside the GIL-free page loops ---------------------------------------------


def _value_page(path, column, page):
    """(file offset of the body, stored size) of page ``page`` of ``column``'s first chunk."""
    with tsfile.TsFileReader(path) as r:
        _n, _t, _f, _tags, tasks = r._plan_table("t", [column], INT64_MIN, INT64_MAX)
        ch = r._chunk(tasks[0].groups[0].values[0])
        body, _usize, csize, *_rest = ch.page_info()[page]
    return body, csize


def _damaged(tmp_path, src, at, data):
    dst = tmp_path / "damaged.tsfile"
    shutil.copyfile(src, dst)
    with open(dst, "r+b") as f:
        f.seek(at)
        f.write(data)
    return dst


@pytest.mark.parametrize("threads", [1, 2])
def test_codec_error_in_the_loop_names_the_page(files, tmp_path, threads):
    """A TS_2DIFF page whose bit width is impossible: the codec raises inside the nogil loop;
    the error is the page's CorruptDataError with its file offset, on any number of threads."""
    body, _csize = _value_page(files["UNCOMPRESSED"], "i64_2diff", 2)
    bitmap = (PAGE + 7) // 8
    # page body: row count (4), bitmap, then the TS_2DIFF block: count (4), bit width (4), ...
    bad = _damaged(tmp_path, files["UNCOMPRESSED"], body + 4 + bitmap + 4, b"\x00\x00\x00\x7f")
    with pytest.raises(CorruptDataError, match=rf"TS_2DIFF page: .* at file offset {body}$"):
        tsfile.read_table(bad, "t", ["i64_2diff"], threads=threads)


@pytest.mark.parametrize("threads", [1, 2])
def test_snappy_error_in_the_loop_names_the_page(files, tmp_path, threads):
    body, csize = _value_page(files["SNAPPY"], "f64_gorilla", 3)
    # the stream after its length preamble: a copy reaching before the start of the output
    bad = _damaged(tmp_path, files["SNAPPY"], body + 2, b"\x06\xff\xff" * 4)
    with pytest.raises(CorruptDataError, match=rf"SNAPPY page body: .* at file offset {body}$"):
        tsfile.read_table(bad, "t", ["f64_gorilla"], threads=threads)
    assert csize > 14


def test_bench_read_threads_runs(capsys, tmp_path):
    """``python -m tsfile bench read --threads`` runs end to end at a tiny size (no timing)."""
    from tsfile.__main__ import main

    args = ["bench", "read", "--threads", "--rows", "5000", "--repeat", "1"]
    assert main([*args, "--cache-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    for case in ("read_table, 1 thread", "read_table(threads=2)", "2 files, 2 threads"):
        assert re.search(rf"^{re.escape(case)}\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+[\d.]+x$", out, re.M)
    assert re.search(r"^2 files, 2 threads vs one file read twice, 1 thread\s+[\d.]+x$", out, re.M)


@pytest.mark.parametrize("threads", [1, 2])
def test_page_header_error_in_the_header_loop_names_the_page(files, tmp_path, threads):
    """The page headers are parsed without the GIL too: an impossible uncompressed size in the
    first page header of a value chunk is still the CorruptDataError naming that header."""
    src = files["UNCOMPRESSED"]
    with tsfile.TsFileReader(src) as r:
        _n, _t, _f, _tags, tasks = r._plan_table("t", ["i64_2diff"], INT64_MIN, INT64_MAX)
        header = r._chunk(tasks[0].groups[0].values[0]).data_start
    raw = src.read_bytes()
    width = 1
    while raw[header + width - 1] & 0x80:
        width += 1
    assert width >= 2  # a page of 300 int64 values: a usize of at least 128 bytes
    huge = b"\xff" * (width - 1) + b"\x7f"  # the largest usize of the same length
    bad = _damaged(tmp_path, src, header, huge)
    with pytest.raises(
        CorruptDataError, match=rf"impossible for \d+ stored bytes at file offset {header}$"
    ):
        tsfile.read_table(bad, "t", ["i64_2diff"], threads=threads)


# -- one engine call per chunk group (engine.read_value_chunks) -------------------------------


def _group_of_every_column(r):
    names = list(COLUMNS)
    _n, _t, _f, _tags, tasks = r._plan_table("t", names, INT64_MIN, INT64_MAX)
    return names, tasks[0], tasks[0].groups[0]


def _time_plan(r, g, t1):
    """(rows, plan) of the group's time chunk from ``t1`` on (read_time_chunk completes it)."""
    plan = engine.plan_pages(g.time_chunk, t1, INT64_MAX)
    out_ts = np.zeros(g.rows, np.int64)
    return engine.read_time_chunk(
        r._fv, g.time_chunk, t1, INT64_MAX, 1, out_ts, 0, engine.new_scratch(), False, plan=plan
    )


def _outputs(names, rows):
    vals = [np.empty(rows + 3, engine.numpy_dtype(int(COLUMNS[n][0]))) for n in names]
    return vals, [np.zeros(rows + 3, np.bool_) for _ in names]


@pytest.mark.parametrize("comp", COMPRESSIONS)
@pytest.mark.parametrize("cut", [False, True])
def test_read_value_chunks_equals_a_call_per_column(files, comp, cut):
    """Every column of a chunk group (numeric and TEXT/STRING/BLOB, nulls, an all-null page)
    decoded by one read_value_chunks call: the values, null masks and null counts of one
    read_value_chunk call per column, at an output position inside the arrays."""
    with tsfile.TsFileReader(files[comp]) as r:
        names, task, g = _group_of_every_column(r)
        t1 = g.time_chunk.page_info()[1][5] + 10 if cut else INT64_MIN
        rows, plan = _time_plan(r, g, t1)
        chunks = [r._chunk(off) for off in g.values]
        types = [int(t) for t in task.types]
        one_vals, one_nulls = _outputs(names, rows)
        s = engine.new_scratch()
        one_counts = [
            engine.read_value_chunk(r._fv, ch, plan, t, 1, v, m, 3, s)
            for ch, t, v, m in zip(chunks, types, one_vals, one_nulls, strict=True)
        ]
        vals, nulls = _outputs(names, rows)
        counts = engine.read_value_chunks(
            r._fv, g.time_chunk, plan, list(g.values), types, 1, vals, nulls, 3, s
        )
    assert counts == one_counts and sum(counts) > 0
    for name, a, b, ma, mb in zip(names, vals, one_vals, nulls, one_nulls, strict=True):
        np.testing.assert_array_equal(ma[3:], mb[3:], err_msg=name)
        np.testing.assert_array_equal(a[3:][~ma[3:]], b[3:][~mb[3:]], err_msg=name)


def test_read_value_chunks_checks_every_chunk_before_decoding(files):
    """A chunk of another type than the series', an offset outside the data area, a list of
    the wrong length, an output position past the arrays: refused before anything is
    written."""
    with tsfile.TsFileReader(files["SNAPPY"]) as r:
        names, task, g = _group_of_every_column(r)
        rows, plan = _time_plan(r, g, INT64_MIN)
        offsets = list(g.values)
        types = [int(t) for t in task.types]
        s = engine.new_scratch()
        vals, nulls = _outputs(names, rows)
        for v in vals:
            v[:] = None if v.dtype == object else 0
        bad = list(types)
        bad[-1] = int(TSDataType.INT32)  # the last column is BLOB
        with pytest.raises(CorruptDataError, match=rf"at file offset {offsets[-1]}$"):
            engine.read_value_chunks(r._fv, g.time_chunk, plan, offsets, bad, 1, vals, nulls, 0, s)
        # nothing decoded, no column before the last one either: the checks run first (the
        # first column, i64_2diff, has no null: its mask alone would stay clear regardless)
        for name, v, m in zip(names, vals, nulls, strict=True):
            assert not m.any(), name
            assert all(x is None for x in v) if v.dtype == object else not v.any(), name
        with pytest.raises(ValueError, match="a type and two result arrays per chunk"):
            engine.read_value_chunks(
                r._fv, g.time_chunk, plan, offsets, types[:-1], 1, vals, nulls, 0, s
            )
        for off in (-5, r._fv.data_end, r._fv.size + 10**9):  # never touched, never read
            with pytest.raises(CorruptDataError, match="chunk offset outside the data area"):
                engine.read_value_chunks(
                    r._fv, g.time_chunk, plan, [*offsets[:-1], off], types, 1, vals, nulls, 0, s
                )
        with pytest.raises(ValueError, match="output position"):
            engine.read_value_chunks(
                r._fv, g.time_chunk, plan, offsets, types, 1, vals, nulls, rows + 4, s
            )


def test_read_table_decodes_a_chunk_group_in_one_engine_call(files, monkeypatch):
    """read_table over files (tsfile._read.columns) makes one engine call per field job for
    its field columns (engine.read_value_groups: every column of each of the job's chunk
    groups), none per column nor per group: the per-column Python and GIL hand-overs were the
    GIL-held work that kept two threads from scaling (issue 12). Each file's groups are few
    values here: one job, one call per file."""
    calls = []
    batched = engine.read_value_groups

    def count(fv, groups, *args):
        calls.append([len(g[2]) for g in groups])
        return batched(fv, groups, *args)

    def refused(*_args):
        raise AssertionError("a value chunk decoded outside read_value_groups")

    monkeypatch.setattr(engine, "read_value_groups", count)
    monkeypatch.setattr(engine, "read_value_chunks", refused)
    monkeypatch.setattr(engine, "read_value_chunk", refused)
    paths = [str(files["SNAPPY"]), str(files["LZ4"])]
    got = tsfile.read_table(paths, "t", threads=2)
    monkeypatch.undo()
    want = tsfile.read_table(paths, "t", threads=1)
    per_file = len(DEVICES) * 2  # two chunk groups per device
    assert calls == [[len(COLUMNS)] * per_file] * len(paths)
    for k in want:
        np.testing.assert_array_equal(got[k], want[k], err_msg=k)


def test_touch_offsets_reads_only_inside_the_data_area(files):
    """engine.touch_offsets (the planner maps a chunk group's pages without the GIL before it
    parses the headers): None, negative offsets and offsets at or past the data area are left
    alone, never read; a closed reader's view is refused."""
    r = tsfile.TsFileReader(files["SNAPPY"])
    fv = r._fv
    _task, g = _first_group(r)
    engine.touch_offsets(fv, [g.time_chunk.offset, None, -1, fv.data_end, 2**62, *g.values])
    engine.touch_offsets(fv, [])
    r.close()
    with pytest.raises(tsfile.errors.ClosedError):
        engine.touch_offsets(fv, [g.time_chunk.offset])


def test_result_arrays_of_another_item_size_are_refused(files):
    """The page loops write through raw pointers at the chunk type's item size: an int32 array
    for INT64 values (the values would have been written as 8-byte items into 4-byte slots), a
    non-contiguous or read-only array, a non-bool null mask are refused, never written."""
    with tsfile.TsFileReader(files["SNAPPY"]) as r:
        task, g = _first_group(r)
        rows, plan = _time_plan(r, g, INT64_MIN)
        off, t = g.values[0], int(task.types[0])  # i64_2diff
        vch = r._chunk(off)
        s = engine.new_scratch()
        nulls = np.zeros(2 * rows, np.bool_)
        wide = np.zeros(4 * rows, np.int64)
        bad = [
            (np.zeros(2 * rows, np.int32), nulls),  # room for the bytes, not the items
            (wide[::2], nulls),  # not contiguous
            (np.zeros(2 * rows, np.int64), np.zeros(2 * rows, np.uint8)),
            (np.zeros((2, rows), np.int64), nulls),
        ]
        ro = np.zeros(2 * rows, np.int64)
        ro.flags.writeable = False
        bad.append((ro, nulls))
        for vals, mask in bad:
            with pytest.raises(TypeError, match="result arrays of a value chunk"):
                engine.read_value_chunk(r._fv, vch, plan, t, 1, vals, mask, 0, s)
            with pytest.raises(TypeError, match="result arrays of a value chunk"):
                engine.read_value_chunks(
                    r._fv, g.time_chunk, plan, [off], [t], 1, [vals], [mask], 0, s
                )
            assert not vals.any() and not mask.any()


def test_a_chunk_group_split_into_blocks_parses_its_value_chunks_once(files, monkeypatch):
    """query_table(batch_size=...) decodes a chunk group of several pages in blocks (runs of
    pages): its value chunks are parsed and checked at the first block, and the later blocks
    reuse them (engine.read_value_chunks' ``checked``). Parsing every page header of every
    column again per block made a batched read quadratic in pages (2000 pages of ten INT64
    columns: 1.6-2.2 s instead of about 0.1 s). The blocks are still the unbatched rows."""
    calls = []
    real = engine.read_value_chunks

    def spy(fv, tch, plan, offsets, types, path, vals, nulls, pos, s, checked=None, names=None):
        calls.append((tch.offset, checked is not None and len(checked) > 0))
        return real(fv, tch, plan, offsets, types, path, vals, nulls, pos, s, checked, names)

    def blocks(batch_size):
        with (
            tsfile.TsFileReader(files["LZ4"]) as r,
            r.query_table("t", list(COLUMNS), batch_size=batch_size) as rs,
        ):
            out = []
            while (b := rs.get_next_tsblock()) is not None:
                out.append(b)
            return out

    whole = blocks(None)
    monkeypatch.setattr(engine, "read_value_chunks", spy)
    split = blocks(PAGE)
    groups = len(DEVICES) * 2
    assert len(calls) == len(split) > groups  # several blocks per chunk group
    assert sum(not reused for _o, reused in calls) == groups  # parsed at each first block only
    assert len({o for o, _r in calls}) == groups
    assert _rows_of(split) == _rows_of(whole)


def _rows_of(blocks):
    """{column: [value or None per row]} of a list of TsBlocks, the timestamps under "time"."""
    out = {"time": [int(t) for b in blocks for t in b.timestamps]}
    for name in COLUMNS:
        out[name] = []
        for b in blocks:
            nulls = b.nulls[name].tolist() if name in b.nulls else [False] * len(b)
            vals = b.columns[name].tolist()
            out[name] += [None if m else v for v, m in zip(vals, nulls, strict=True)]
    return out


def test_checked_value_chunks_are_reused_only_where_they_fit(files):
    """engine.read_value_chunks(..., checked): an empty list gets the checked chunks; given back
    they decode what a fresh call decodes; a list of other chunks, another expected type or a
    plan of more pages than a chunk has are refused, never decoded."""
    with tsfile.TsFileReader(files["SNAPPY"]) as r:
        names, task, g = _group_of_every_column(r)
        rows, plan = _time_plan(r, g, INT64_MIN)
        offsets, types = list(g.values), [int(t) for t in task.types]
        s = engine.new_scratch()
        checked = []
        vals, nulls = _outputs(names, rows)
        counts = engine.read_value_chunks(
            r._fv, g.time_chunk, plan, offsets, types, 1, vals, nulls, 0, s, checked
        )
        assert [c.offset for c in checked] == offsets
        again, again_nulls = _outputs(names, rows)
        kept = list(checked)
        assert (
            engine.read_value_chunks(
                r._fv, g.time_chunk, plan, offsets, types, 1, again, again_nulls, 0, s, checked
            )
            == counts
        )
        assert checked == kept  # used, not filled again
        for name, a, b, ma, mb in zip(names, vals, again, nulls, again_nulls, strict=True):
            a, b, ma, mb = a[:rows], b[:rows], ma[:rows], mb[:rows]  # (3 rows of room after)
            np.testing.assert_array_equal(ma, mb, err_msg=name)
            np.testing.assert_array_equal(a[~ma], b[~mb], err_msg=name)
        fresh, fresh_nulls = _outputs(names, rows)
        for bad_checked in (checked[::-1], checked[:-1], [*checked[:-1], offsets[-1]]):
            with pytest.raises(ValueError, match="checked: the chunks an earlier call parsed"):
                engine.read_value_chunks(
                    r._fv,
                    g.time_chunk,
                    plan,
                    offsets,
                    types,
                    1,
                    fresh,
                    fresh_nulls,
                    0,
                    s,
                    bad_checked,
                )
        bad = list(types)
        bad[-1] = int(TSDataType.INT32)  # the last column is BLOB
        with pytest.raises(CorruptDataError, match=rf"at file offset {offsets[-1]}$"):
            engine.read_value_chunks(
                r._fv, g.time_chunk, plan, offsets, bad, 1, fresh, fresh_nulls, 0, s, checked
            )
        longer = np.concatenate([plan, plan])  # more pages than the value chunks have
        with pytest.raises(CorruptDataError, match="pages, its time chunk"):
            engine.read_value_chunks(
                r._fv, g.time_chunk, longer, offsets, types, 1, fresh, fresh_nulls, 0, s, checked
            )
        assert not fresh_nulls[0].any() and not any(m.any() for m in fresh_nulls)


# -- one engine call per time job (engine.read_time_chunks) ------------------------------------


def _time_groups(r):
    _n, _t, _f, _tags, tasks = r._plan_table("t", list(COLUMNS), INT64_MIN, INT64_MAX)
    return [g for task in tasks for g in task.groups]


@pytest.mark.parametrize("comp", COMPRESSIONS)
@pytest.mark.parametrize("rng", ["all", "cut", "one-page", "empty"])
def test_read_time_chunks_equals_a_call_per_chunk(files, comp, rng):
    """Every time chunk of a file in one read_time_chunks call, each at its own start with a
    gap between them: the rows, the completed plans and the timestamps of one read_time_chunk
    call per chunk; the gaps are left alone."""
    t1, t2 = _ranges()[rng]
    with tsfile.TsFileReader(files[comp]) as r:
        groups = _time_groups(r)
        assert len(groups) == 4
        starts, at = [], 5
        for g in groups:
            starts.append(at)
            at += g.rows + 7
        one = np.full(at, -1, np.int64)
        s = engine.new_scratch()
        want = [
            engine.read_time_chunk(
                r._fv, g.time_chunk, t1, t2, 1, one, p, s, g.inside, g.page_lo, g.page_hi
            )
            for g, p in zip(groups, starts, strict=True)
        ]
        many = np.full(at, -1, np.int64)
        got = r._decode_times_many(groups, many, starts, t1, t2, 1, s)
    assert [n for n, _p in got] == [n for n, _p in want]
    for (_n, a), (_m, b) in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(many, one)
    expected_ts, _v, _nl = _expected(t1, t2)
    got_ts = np.concatenate([many[p : p + n] for p, (n, _pl) in zip(starts, got, strict=True)])
    np.testing.assert_array_equal(got_ts, expected_ts)


def test_read_time_chunks_checks_its_arguments_and_each_chunks_room(files):
    """Lists of different lengths, a start or room outside the result, a value chunk instead of
    a time chunk: refused before anything is written. A room smaller than a chunk's rows (its
    statistics lied): CorruptDataError, the chunks before it decoded."""
    with tsfile.TsFileReader(files["SNAPPY"]) as r:
        groups = _time_groups(r)[:2]
        fv, s = r._fv, engine.new_scratch()
        chunks = [g.time_chunk for g in groups]
        rows = [g.rows for g in groups]
        out = np.zeros(sum(rows), np.int64)
        starts = [0, rows[0]]
        flags, los, his = [True, True], [0, 0], [-1, -1]

        def call(chunks=chunks, out=out, starts=starts, caps=rows, flags=flags):
            return engine.read_time_chunks(
                fv, chunks, INT64_MIN, INT64_MAX, 1, out, starts, caps, flags, los, his, s
            )

        with pytest.raises(ValueError, match="a start, a room"):
            call(starts=starts[:1])
        with pytest.raises(ValueError, match="outside the"):
            call(starts=[0, rows[0] + 1])
        with pytest.raises(ValueError, match="outside the"):
            call(starts=[-1, rows[0]])
        with pytest.raises(ValueError, match="int64 array"):
            call(out=out.astype(np.int32))
        value_chunk = r._chunk(groups[0].values[0])
        with pytest.raises(CorruptDataError, match="expected a time chunk"):
            call(chunks=[chunks[0], value_chunk])
        assert not out.any()
        got = call()
        assert [n for n, _p in got] == rows
        with pytest.raises(CorruptDataError, match="more rows than its statistics say"):
            call(caps=[rows[0], rows[1] - 1])


@pytest.mark.parametrize("comp", COMPRESSIONS)
@pytest.mark.parametrize("rng", ["all", "cut"])
def test_read_value_groups_equals_a_call_per_group(files, comp, rng):
    """Every chunk group of a file (numeric and TEXT/STRING/BLOB columns, nulls) decoded by one
    read_value_groups call (TsFileReader._decode_fields_many): the values, null masks and null
    counts of one read_value_chunks call per group, each group at its own position."""
    t1, t2 = _ranges()[rng]
    names = list(COLUMNS)
    with tsfile.TsFileReader(files[comp]) as r:
        _n, _t, _f, _tags, tasks = r._plan_table("t", names, t1, t2)
        items, pos = [], 2
        s = engine.new_scratch()
        for task in tasks:
            for g in task.groups:
                ts = np.empty(g.rows, np.int64)
                rows, plan = engine.read_time_chunk(
                    r._fv, g.time_chunk, t1, t2, 1, ts, 0, s, g.inside, g.page_lo, g.page_hi
                )
                items.append((task, g, plan, rows, pos))
                pos += rows + 5
        assert len(items) == 4 and all(g.page_hi < 0 for _t, g, _p, _r, _q in items)
        one_vals, one_nulls = _outputs(names, pos)
        vals, nulls = _outputs(names, pos)
        for v in (*vals, *one_vals):
            v[:] = None if v.dtype == object else 0
        want = [
            r._decode_fields(task, g, plan, rows, one_vals, one_nulls, at, 1, s)
            for task, g, plan, rows, at in items
        ]
        got = r._decode_fields_many(items, vals, nulls, 1, s)
    assert got == want and sum(map(sum, got)) > 0
    for name, a, b, ma, mb in zip(names, vals, one_vals, nulls, one_nulls, strict=True):
        np.testing.assert_array_equal(ma, mb, err_msg=name)
        np.testing.assert_array_equal(a[~ma], b[~mb], err_msg=name)


def test_read_value_groups_checks_every_group_before_decoding(files):
    """A bad chunk type in the second group: CorruptDataError naming its chunk, and nothing of
    the first group decoded (every group is checked before the nogil loop)."""
    names = list(COLUMNS)
    with tsfile.TsFileReader(files["SNAPPY"]) as r:
        _n, _t, _f, _tags, tasks = r._plan_table("t", names, INT64_MIN, INT64_MAX)
        groups = tasks[0].groups[:2]
        s = engine.new_scratch()
        batch, pos = [], 0
        vals, nulls = _outputs(names, sum(g.rows for g in groups))
        for v in vals:
            v[:] = None if v.dtype == object else 0
        for k, g in enumerate(groups):
            ts = np.empty(g.rows, np.int64)
            _rows, plan = engine.read_time_chunk(
                r._fv, g.time_chunk, INT64_MIN, INT64_MAX, 1, ts, 0, s
            )
            types = [int(t) for t in tasks[0].types]
            if k == 1:
                types[-1] = int(TSDataType.INT32)  # the last column is BLOB
            batch.append((g.time_chunk, plan, list(g.values), types, vals, nulls, pos, None))
            pos += g.rows
        with pytest.raises(CorruptDataError, match=rf"at file offset {groups[1].values[-1]}$"):
            engine.read_value_groups(r._fv, batch, 1, s)
        for name, v, m in zip(names, vals, nulls, strict=True):
            assert not m.any(), name
            assert all(x is None for x in v) if v.dtype == object else not v.any(), name
