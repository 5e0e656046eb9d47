"""Late materialisation of value-filtered whole-table reads (tsfile/_read/late.py): the filter
columns decoded first, the other columns only over the row runs that hold a selected row.

Randomized equivalence: over seeds, selectivities, page sizes, compressions, encodings, block
sizes of the selection, decode paths and thread counts, ``read_table(value_filter=...)`` equals
decoding everything and masking with numpy (nulls never match, NaN matches no ordering), for one
file and several. A dropped, duplicated or misaligned row changes a column against its time
(every field is a function of its row's timestamp here), so the comparisons catch it.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tsfile
from tsfile import Compressor, TSEncoding, writer
from tsfile._read import engine, late, pushdown
from tsfile.errors import CorruptDataError
from tsfile.reader import TsFileReader
from tsfile.types import ColumnCategory, TSDataType

FIELDS = {
    "i32": TSDataType.INT32,
    "i64": TSDataType.INT64,
    "f32": TSDataType.FLOAT,
    "f64": TSDataType.DOUBLE,
    "stamp": TSDataType.TIMESTAMP,
    "day": TSDataType.DATE,
    "txt": TSDataType.STRING,
    "flag": TSDataType.BOOLEAN,
}
PATHS = ["per_value", "batch"] + (["simd"] if tsfile.is_simd_enabled() else [])
SELECTIVITIES = (0.001, 0.01, 0.1, 0.3, 0.5, 0.9)


def _values(ts, rng):
    """Every field as a function of the row's timestamp (a misplaced row shows), plus noise
    columns that are not: i64 a random walk (matches cluster), f64 random (they spread)."""
    n = len(ts)
    f64 = rng.normal(size=n)
    f64[rng.random(n) < 0.03] = np.nan
    return {
        "i32": (ts % 1000).astype(np.int32) - 500,
        "i64": np.cumsum(rng.integers(-100, 101, n)).astype(np.int64),
        "f32": (ts % 97).astype(np.float32) / 8,
        "f64": f64,
        "stamp": ts * 7,
        "day": (20200101 + ts % 28).astype(np.int32),
        "txt": np.array([f"s{t}" for t in ts], dtype=object),
        "flag": ts % 3 == 0,
    }


def write_random_file(path, seed, page_size, compression, encoding):
    """Devices "a".."c", each 1-3 chunk groups of random sizes; ~8 % nulls per column, a
    column missing from some chunk groups (not given: no value there), a device without the
    txt column."""
    rng = np.random.default_rng(seed)
    cols = [tsfile.ColumnSchema("dev", TSDataType.STRING, ColumnCategory.TAG)]
    cols += [tsfile.ColumnSchema(n, t, ColumnCategory.FIELD) for n, t in FIELDS.items()]
    encodings = None
    if encoding is not None:
        encodings = {TSDataType.INT64: encoding, TSDataType.INT32: encoding}
    w = writer.TsFileWriter(
        str(path), page_size=page_size, compression=compression, encodings=encodings
    )
    w.register_table(tsfile.TableSchema("t", cols))
    t0 = 0
    for dev in ("a", "b", "c"):
        for _ in range(int(rng.integers(1, 4))):
            n = int(rng.integers(1, 1500))
            ts = t0 + np.cumsum(rng.integers(1, 4, n)).astype(np.int64)
            t0 = int(ts[-1]) + 1
            data = _values(ts, rng)
            gone = rng.choice(list(FIELDS), size=int(rng.integers(0, 3)), replace=False)
            if dev == "b":
                gone = [*gone, "txt"]
            columns = {"dev": dev, **{k: v for k, v in data.items() if k not in gone}}
            masks = {k: rng.random(n) < 0.08 for k in columns if k != "dev"}
            w.write_arrays("t", ts, columns, masks)
            w.flush()
    w.close()
    return str(path)


def _mask_of(full, column, op, q):
    """decode-then-mask: the rows of ``full`` (read_table without a filter) where ``column op
    q`` holds, NULL never matching."""
    v = full[column]
    nulls = np.ma.getmaskarray(v) if isinstance(v, np.ma.MaskedArray) else np.zeros(len(v), bool)
    data = np.ma.getdata(v)
    with np.errstate(invalid="ignore"):
        hit = {">": data > q, "<=": data <= q, "!=": data != q}[op]
    return hit & ~nulls


def _masked(full, keep):
    return {k: v[keep] for k, v in full.items()}


def assert_same(got, want):
    assert list(got) == list(want)
    for name in want:
        a, b = got[name], want[name]
        assert len(a) == len(b), name
        ma, mb = np.ma.getmaskarray(a), np.ma.getmaskarray(b)
        # a column without a null left is a plain array (decode-then-mask keeps the mask)
        assert np.array_equal(ma, mb), name
        da, db = np.ma.getdata(a)[~ma], np.ma.getdata(b)[~mb]
        if da.dtype.kind == "f":
            assert np.array_equal(da, db, equal_nan=True), name
        else:
            assert np.array_equal(da, db), name


def _threshold(full, column, selectivity):
    data = full[column]
    present = np.ma.getdata(data)[~np.ma.getmaskarray(data)]
    present = present[~np.isnan(present)] if present.dtype.kind == "f" else present
    return float(np.quantile(present, 1 - selectivity)) if len(present) else 0.0


@pytest.fixture(params=["small_blocks", "default", "many_runs"])
def run_shape(request, monkeypatch):
    """The selection's block geometry: blocks of a few rows (every run boundary falls inside a
    TS_2DIFF block and inside null runs), the defaults, and many runs a page even on compressed
    pages with dense pages never decoded whole."""
    if request.param == "small_blocks":
        monkeypatch.setattr(late, "BLOCK_ROWS", 3)
        monkeypatch.setattr(late, "MERGE_GAP", 0)
    elif request.param == "many_runs":
        monkeypatch.setattr(late, "BLOCK_ROWS", 16)
        monkeypatch.setattr(late, "MAX_RUNS", 5)
        monkeypatch.setattr(late, "DENSE", 1.1)
        monkeypatch.setattr(late, "_runs_a_page", lambda d, item: late.MAX_RUNS)
    return request.param


CASES = [
    # seed, page size, compression, encoding of the integer columns
    (1, 7, Compressor.UNCOMPRESSED, None),
    (2, 128, Compressor.SNAPPY, TSEncoding.TS_2DIFF),
    (3, 129, Compressor.UNCOMPRESSED, TSEncoding.TS_2DIFF),
    (4, 300, Compressor.LZ4, TSEncoding.PLAIN),
    (5, 1000, Compressor.UNCOMPRESSED, TSEncoding.PLAIN),
    (6, 100_000, Compressor.UNCOMPRESSED, TSEncoding.TS_2DIFF),
    (7, 64, Compressor.GZIP, TSEncoding.GORILLA),
]


@pytest.mark.parametrize("case", CASES, ids=[f"seed{c[0]}" for c in CASES])
def test_filtered_read_equals_decode_then_mask(tmp_path, case, run_shape):
    seed, page_size, compression, encoding = case
    path = write_random_file(tmp_path / "f.tsfile", seed, page_size, compression, encoding)
    full = tsfile.read_table(path, "t")
    rng = np.random.default_rng(seed)
    for column in ("i64", "f64", "i32", "stamp"):
        for sel in SELECTIVITIES:
            q = _threshold(full, column, sel)
            want = _masked(full, _mask_of(full, column, ">", q))
            dpath = PATHS[int(rng.integers(len(PATHS)))]
            threads = int(rng.integers(1, 4))
            got = tsfile.read_table(
                path, "t", value_filter=[(column, ">", q)], decode_path=dpath, threads=threads
            )
            assert_same(got, want)


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("dpath", PATHS)
def test_every_path_and_thread_count_and_combined_filters(tmp_path, dpath, threads, run_shape):
    path = write_random_file(tmp_path / "f.tsfile", 11, 50, Compressor.SNAPPY, None)
    full = tsfile.read_table(path, "t")
    q64, q32 = _threshold(full, "i64", 0.05), _threshold(full, "i32", 0.02)
    keep = _mask_of(full, "i64", ">", q64) | _mask_of(full, "i32", "<=", -q32)
    vf = [[("i64", ">", q64)], [("i32", "<=", -q32)]]
    got = tsfile.read_table(path, "t", value_filter=vf, decode_path=dpath, threads=threads)
    assert_same(got, _masked(full, keep))
    # the filter columns not asked for: only the other columns decoded late, then returned
    got = tsfile.read_table(
        path, "t", ["dev", "txt", "flag"], value_filter=vf, decode_path=dpath, threads=threads
    )
    assert_same(got, {k: full[k][keep] for k in ("time", "dev", "txt", "flag")})
    # a filter on time only: every field column is decoded late
    t = full["time"]
    vf = tsfile.col("time") > int(t[len(t) // 3])
    got = tsfile.read_table(path, "t", value_filter=vf, decode_path=dpath, threads=threads)
    assert_same(got, _masked(full, t > t[len(t) // 3]))
    # nothing selected, everything selected
    none = tsfile.read_table(path, "t", value_filter=[("i64", ">", 10**12)], threads=threads)
    assert all(len(v) == 0 for v in none.values()) and list(none) == list(full)
    every = tsfile.read_table(path, "t", value_filter=[("i64", ">", -(10**12))], threads=threads)
    assert_same(every, _masked(full, ~np.ma.getmaskarray(full["i64"])))


@pytest.mark.parametrize("threads", [1, 3])
def test_several_files(tmp_path, threads, run_shape):
    paths = [
        write_random_file(tmp_path / f"p{k}.tsfile", 20 + k, ps, comp, None)
        for k, (ps, comp) in enumerate(
            [(40, Compressor.SNAPPY), (1000, Compressor.UNCOMPRESSED), (9, Compressor.LZ4)]
        )
    ]
    full = tsfile.read_table(paths, "t")
    for sel in (0.005, 0.2, 0.7):
        q = _threshold(full, "f64", sel)
        got = tsfile.read_table(paths, "t", value_filter=[("f64", ">", q)], threads=threads)
        assert_same(got, _masked(full, _mask_of(full, "f64", ">", q)))


@pytest.mark.parametrize("threads", [1, 2])
def test_dataframe_and_arrow_equal_decode_then_mask(tmp_path, threads, run_shape):
    pytest.importorskip("pandas")
    pa = pytest.importorskip("pyarrow")
    path = write_random_file(tmp_path / "f.tsfile", 41, 33, Compressor.SNAPPY, None)
    full = tsfile.read_table(path, "t")
    q = _threshold(full, "i32", 0.03)
    keep = _mask_of(full, "i32", ">", q)
    vf = [("i32", ">", q)]
    frame = tsfile.to_dataframe(path, "t", value_filter=vf, threads=threads)
    whole = tsfile.to_dataframe(path, "t", threads=threads)
    want = whole[keep].reset_index(drop=True)
    assert frame.reset_index(drop=True).equals(want)
    table = tsfile.read_arrow(path, "t", value_filter=vf, threads=threads)
    want = tsfile.read_arrow(path, "t", threads=threads).filter(pa.array(keep))
    assert table.schema.equals(want.schema)
    assert repr(table.to_pydict()) == repr(want.to_pydict())  # repr: NaN equals NaN


def _small_file(path, fields, t0, seed):
    """Table t, tag dev, the DOUBLE ``fields``; 3 chunk groups of 400 rows from time t0."""
    rng = np.random.default_rng(seed)
    cols = [tsfile.ColumnSchema("dev", TSDataType.STRING, ColumnCategory.TAG)]
    cols += [tsfile.ColumnSchema(n, TSDataType.DOUBLE, ColumnCategory.FIELD) for n in fields]
    w = writer.TsFileWriter(str(path), page_size=64)
    w.register_table(tsfile.TableSchema("t", cols))
    for k in range(3):
        ts = t0 + np.arange(400, dtype=np.int64) + 400 * k
        w.write_arrays("t", ts, {"dev": "a", **{n: rng.normal(size=400) for n in fields}})
        w.flush()
    w.close()
    return str(path)


@pytest.mark.parametrize("threads", [1, 2])
def test_files_lacking_the_late_columns(tmp_path, threads, run_shape):
    """schema="union": a file holding only the filter column (nothing of it is decoded late)
    between files that hold the others; each file's selected rows stay in its place."""
    paths = [
        _small_file(tmp_path / "p0.tsfile", ["v", "x"], 0, 1),
        _small_file(tmp_path / "p1.tsfile", ["v"], 10_000, 2),
        _small_file(tmp_path / "p2.tsfile", ["v", "x", "y"], 20_000, 3),
    ]
    full = tsfile.read_table(paths, "t", schema="union", threads=threads)
    for q in (0.0, 1.5):
        keep = _mask_of(full, "v", ">", q)
        got = tsfile.read_table(
            paths, "t", schema="union", value_filter=[("v", ">", q)], threads=threads
        )
        assert_same(got, _masked(full, keep))


def _damage_value_page(path, column):
    """Overwrite the start of the first page body of ``column``'s value chunk of the first
    chunk group: the file plans and fails while decoding that column."""
    with TsFileReader(path) as r:
        read = r._plan_columns("t", [column], None, None, "auto", None, None)
        _task, group = read.groups[0]
        body = engine.read_chunk(r._fv, group.values[0]).page_info()[0][0]
    with open(path, "r+b") as f:
        f.seek(body)
        f.write(b"\xff" * 8)


@pytest.mark.parametrize("threads", [1, 2])
def test_a_file_failing_in_a_late_column_is_skipped(tmp_path, threads):
    """A file whose column decoded late (not the filter's) is corrupt: raised naming it, or with
    on_error="skip" its selected rows dropped from every column."""
    paths = [
        write_random_file(tmp_path / f"p{k}.tsfile", 30 + k, 100, Compressor.UNCOMPRESSED, None)
        for k in range(3)
    ]
    good = tsfile.read_table([paths[0], paths[2]], "t")
    _damage_value_page(paths[1], "i32")
    vf = [("f64", ">", -10.0)]  # every present, non-NaN value: rows everywhere
    with pytest.raises(CorruptDataError, match="p1"):
        tsfile.read_table(str(tmp_path), "t", value_filter=vf, threads=threads)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = tsfile.read_table(
            str(tmp_path), "t", value_filter=vf, threads=threads, on_error="skip"
        )
    assert any("p1" in str(w.message) for w in caught)
    assert_same(got, _masked(good, _mask_of(good, "f64", ">", -10.0)))


def _walk_file(path, compression):
    """One device, one chunk group of 20,000 rows in pages of 5,000 (TS_2DIFF integers): v
    rises then falls (large values in the middle, small ones at both ends), w and x follow the
    row."""
    cols = [
        tsfile.ColumnSchema("dev", TSDataType.STRING, ColumnCategory.TAG),
        tsfile.ColumnSchema("v", TSDataType.INT64, ColumnCategory.FIELD),
        tsfile.ColumnSchema("w", TSDataType.INT64, ColumnCategory.FIELD),
        tsfile.ColumnSchema("x", TSDataType.INT64, ColumnCategory.FIELD),
    ]
    w = writer.TsFileWriter(
        str(path),
        compression=compression,
        encodings={TSDataType.INT64: TSEncoding.TS_2DIFF},
        page_size=5_000,
    )
    w.register_table(tsfile.TableSchema("t", cols))
    ts = np.arange(20_000, dtype=np.int64)
    v = np.where(ts < 10_000, ts, 20_000 - ts)
    w.write_arrays("t", ts, {"dev": "a", "v": v, "w": ts * 3, "x": ts * ts})
    w.close()
    return str(path)


@pytest.mark.parametrize("compression", [Compressor.UNCOMPRESSED, Compressor.SNAPPY])
def test_other_columns_skip_the_blocks_without_a_selected_row(tmp_path, compression):
    """v > 9,900 selects rows 9,901..10,099: the last rows of page 1 and the first of page 2
    (pages 0 and 3 drop out by their statistics). w and x are decoded over the 128-row blocks
    of those rows only: page 1 from its block 38 on (the blocks before skipped by their
    headers), page 2 up to its block 0 (nothing after it read); decoding them whole skips
    nothing."""
    path = _walk_file(tmp_path / "walk.tsfile", compression)
    pushdown.reset_skip_counts()
    got = tsfile.read_table(path, "t", value_filter=[("v", ">", 9_900)])
    counts = pushdown.skip_counts()
    ts = np.arange(9_901, 10_100)
    assert got["time"].tolist() == ts.tolist() and got["dev"].tolist() == ["a"] * len(ts)
    assert got["w"].tolist() == (ts * 3).tolist() and got["x"].tolist() == (ts * ts).tolist()
    assert counts["value_pages"] == 4  # w and x, pages 1 and 2, each as a row range
    assert counts["value_blocks_skipped"] >= 2 * (4_900 // 129)


@pytest.mark.parametrize(
    ("encoding", "data_type"),
    [
        (TSEncoding.GORILLA, TSDataType.DOUBLE),
        (TSEncoding.GORILLA, TSDataType.INT64),
        (TSEncoding.CHIMP, TSDataType.DOUBLE),
        (TSEncoding.RLBE, TSDataType.INT32),
        (TSEncoding.CAMEL, TSDataType.DOUBLE),
        (TSEncoding.SPRINTZ, TSDataType.INT64),
        (TSEncoding.DICTIONARY, TSDataType.STRING),
    ],
)
def test_codecs_repeating_work_a_run_are_read_in_one_run_a_page(encoding, data_type):
    """Their row-range decoders walk every value before a range (include/serial_skip.h) or read
    the page's whole dictionary (DICTIONARY): a page read in several runs would repeat that
    once per run, so it is read in one."""
    assert engine.reads_row_ranges(int(encoding), int(data_type))  # a row-range decoder...
    assert not late.skips_by_position(encoding, data_type)  # ...that repeats work a run


@pytest.mark.parametrize(
    ("encoding", "data_type"),
    [
        (TSEncoding.ALP, TSDataType.DOUBLE),
        (TSEncoding.RLE, TSDataType.INT64),
        (TSEncoding.PLAIN, TSDataType.DOUBLE),
        (TSEncoding.TS_2DIFF, TSDataType.INT64),
        (TSEncoding.TS_2DIFF, TSDataType.DOUBLE),
        (TSEncoding.PLAIN, TSDataType.STRING),
    ],
)
def test_codecs_passing_blocks_by_their_headers_take_several_runs(encoding, data_type):
    assert late.skips_by_position(encoding, data_type)


def test_a_gorilla_page_is_planned_as_one_run(tmp_path, monkeypatch):
    """An uncompressed GORILLA column read late: its pages are planned in one run each."""
    path = tmp_path / "gor.tsfile"
    n = 20_000
    ts = np.arange(n, dtype=np.int64)
    cols = [tsfile.ColumnSchema("dev", TSDataType.STRING, ColumnCategory.TAG)]
    cols += [tsfile.ColumnSchema(c, TSDataType.DOUBLE, ColumnCategory.FIELD) for c in "kv"]
    w = writer.TsFileWriter(
        str(path),
        page_size=5_000,
        compression=Compressor.UNCOMPRESSED,
        encodings={TSDataType.DOUBLE: TSEncoding.GORILLA},
    )
    w.register_table(tsfile.TableSchema("t", cols))
    w.write_arrays("t", ts, {"dev": "a", "k": (ts % 1000).astype(float), "v": ts * 0.5})
    w.close()
    seen = []
    group_plans = late._group_plans

    def spy(plan, sel, max_runs):
        seen.append(max_runs)
        return group_plans(plan, sel, max_runs)

    monkeypatch.setattr(late, "_group_plans", spy)
    got = tsfile.read_table(str(path), "t", value_filter=[("k", "<", 2)])
    want = ts[ts % 1000 < 2]
    assert got["time"].tolist() == want.tolist()
    assert got["v"].tolist() == (want * 0.5).tolist()
    assert seen and set(seen) == {1}


# -- the run planning on its own -----------------------------------------------------------------


def _covered(runs, lo, hi, sel):
    rows = np.zeros(hi, bool)
    for a, b in runs:
        assert lo <= a < b <= hi
        assert not rows[a:b].any(), "runs overlap"
        rows[a:b] = True
    picked = np.flatnonzero(sel) + lo
    return bool(rows[picked].all())


def test_page_runs_cover_every_selected_row_and_nothing_twice():
    rng = np.random.default_rng(0)
    for _ in range(3000):
        lo = int(rng.integers(0, 400))
        hi = lo + int(rng.integers(1, 2000))
        sel = rng.random(hi - lo) < rng.choice([0.0005, 0.005, 0.05, 0.3, 0.8])
        if rng.random() < 0.3:  # clustered
            a = int(rng.integers(0, hi - lo))
            sel[:] = False
            sel[a : a + int(rng.integers(1, 300))] = True
        max_runs = int(rng.integers(1, 6))
        runs = late._page_runs(sel, lo, hi, max_runs)
        if not sel.any():
            assert runs == []
            continue
        assert runs == sorted(runs) and len(runs) <= max_runs
        assert _covered(runs, lo, hi, sel)
        if runs != [(lo, hi)]:
            assert sum(b - a for a, b in runs) <= late.DENSE * (hi - lo)


def test_group_plans_put_each_selected_row_where_the_time_plan_put_it():
    """Each restricted plan keeps a page's rows at the output rows of the time plan, so the
    values of a selected row land at its timestamp's row."""
    rng = np.random.default_rng(1)
    f, e, n_, o = (engine.PLAN_COLUMNS[k] for k in ("from", "end", "rows", "out"))
    for _ in range(500):
        pages = int(rng.integers(1, 6))
        plan = np.zeros((pages, 4), np.int64)
        out = 0
        for p in range(pages):
            rows = int(rng.integers(1, 700))
            plan[p, n_] = rows
            if rng.random() < 0.2:
                plan[p, [f, e, o]] = -1  # a skipped page
                continue
            a = int(rng.integers(0, rows))
            b = int(rng.integers(a + 1, rows + 1))
            plan[p, [f, e, o]] = a, b, out
            out += b - a
        if out == 0:
            continue
        sel = rng.random(out) < rng.choice([0.001, 0.01, 0.2, 0.9])
        plans = late._group_plans(plan, sel, int(rng.integers(1, 5)))
        if plans is None:
            continue  # dense: the plan itself
        written = np.zeros(out, np.int64)
        for q in plans:
            assert np.array_equal(q[:, n_], plan[:, n_])
            for p in np.flatnonzero(q[:, f] >= 0):
                a, b, at = q[p, f], q[p, e], q[p, o]
                assert plan[p, f] <= a < b <= plan[p, e]
                assert at == plan[p, o] + (a - plan[p, f])
                written[at : at + b - a] += 1
        assert (written[sel] == 1).all() and written.max() <= 1


@pytest.mark.parametrize("threads", [1, 2])
def test_a_filtered_read_makes_its_tag_column_over_the_selected_rows_only(
    tmp_path, threads, monkeypatch
):
    """The tag column of a value-filtered read is made after the selection, of the selected
    rows; none of the planned rows is made (and cleared by the time jobs) for nothing."""
    from tsfile._read import tagfill

    path = write_random_file(tmp_path / "f.tsfile", 3, 129, Compressor.UNCOMPRESSED, None)
    full = tsfile.read_table(path, "t")
    q = _threshold(full, "i32", 0.01)
    made = []
    empty_column = tagfill.empty_column
    monkeypatch.setattr(
        tagfill, "empty_column", lambda n, *a, **k: made.append(n) or empty_column(n, *a, **k)
    )
    got = tsfile.read_table(path, "t", value_filter=[("i32", ">", q)], threads=threads)
    assert_same(got, _masked(full, _mask_of(full, "i32", ">", q)))
    assert 0 < len(got["time"]) < len(full["time"]) // 10
    assert made == [len(got["time"])]
