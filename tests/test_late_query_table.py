"""Late materialisation of the streaming value-filtered queries (TsFileReader._late_blocks):
``query_table(value_filter=...)`` and ``query_table_by_row(value_filter=...)`` decode the time and
filter columns of a block first and the other columns only over the page runs of selected rows.

Randomized equivalence over seeds, selectivities, page sizes, compressions, encodings, run
geometries and decode paths: the blocks handed out equal, one by one, those of decode-then-mask
(reader._LATE_QUERIES off: every column decoded, then predicate.filter_block), and their rows
equal the unfiltered query masked with numpy (NULL never matches, NaN matches no ordering).
Every field of the files is a function of its row's timestamp or checked against the unfiltered
rows, so a dropped, duplicated or misplaced row shows.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_late_materialisation import CASES, PATHS, _threshold, assert_same, write_random_file

import tsfile
from tsfile import Compressor
from tsfile import reader as reader_mod
from tsfile._read import engine, late
from tsfile.reader import TsFileReader

SELECTIVITIES = (0.0, 0.002, 0.05, 0.3, 0.7, 1.0)
COLUMNS = ("i64", "f64", "i32", "stamp", "f32")


def late_names():
    """The field columns of write_random_file's table."""
    return ["i32", "i64", "f32", "f64", "stamp", "day", "txt", "flag"]


@pytest.fixture(params=["default", "runs", "many_runs"])
def run_shape(request, monkeypatch):
    """The defaults (these small blocks decode their other columns whole), the default run
    geometry on blocks of any size, and many short runs a page (blocks of 16 rows, up to 5
    runs, dense pages never decoded whole) on every chunk, compressed or not."""
    if request.param != "default":
        monkeypatch.setattr(reader_mod, "_RUNS_MIN_VALUES", 0)
    if request.param == "many_runs":
        monkeypatch.setattr(late, "BLOCK_ROWS", 16)
        monkeypatch.setattr(late, "MAX_RUNS", 5)
        monkeypatch.setattr(late, "MERGE_GAP", 0)
        monkeypatch.setattr(late, "DENSE", 1.1)
        monkeypatch.setattr(late, "runs_a_page", lambda reader, g, j, plan: late.MAX_RUNS)
    return request.param


def _blocks(file, late_on, monkeypatch, **kw):
    """The TsBlocks of query_table (or query_table_by_row when ``offset`` is given)."""
    monkeypatch.setattr(reader_mod, "_LATE_QUERIES", late_on)
    with TsFileReader(file) as r:
        if "offset" in kw:
            rs = r.query_table_by_row("t", kw.pop("columns", None), **kw)
        else:
            rs = r.query_table("t", kw.pop("columns", None), **kw)
        with rs:
            out = []
            while (b := rs.get_next_tsblock()) is not None:
                out.append(b)
    monkeypatch.setattr(reader_mod, "_LATE_QUERIES", True)
    return out


def _as_table(blocks, names):
    """Blocks as read_table's dict: {name: array, masked where a block has nulls}."""
    out = {"time": np.concatenate([b.timestamps for b in blocks]) if blocks else np.empty(0)}
    for name in names:
        vals = [b.columns[name] for b in blocks]
        masks = [b.nulls.get(name, np.zeros(len(b), np.bool_)) for b in blocks]
        v = np.concatenate(vals) if vals else np.empty(0, object)
        m = np.concatenate(masks) if masks else np.empty(0, np.bool_)
        out[name] = np.ma.array(v, mask=m) if m.any() else v
    return out


def assert_same_blocks(got, want):
    """The same blocks: lengths, timestamps, columns (values where not null), null maps and
    types, one by one."""
    assert [len(b) for b in got] == [len(b) for b in want]
    for a, b in zip(got, want, strict=True):
        assert np.array_equal(a.timestamps, b.timestamps)
        assert list(a.columns) == list(b.columns)
        assert sorted(a.nulls) == sorted(b.nulls)
        assert list(a.types) == list(b.types)
        for name in b.columns:
            nulls = b.nulls.get(name, np.zeros(len(b), np.bool_))
            if name in b.nulls:
                assert np.array_equal(a.nulls[name], nulls), name
            va, vb = a.columns[name][~nulls], b.columns[name][~nulls]
            assert va.dtype == vb.dtype, name
            if vb.dtype.kind == "f":
                assert np.array_equal(va, vb, equal_nan=True), name
            else:
                assert np.array_equal(va, vb), name


def _keep(full, column, op, q):
    v = full[column]
    nulls = np.ma.getmaskarray(v)
    with np.errstate(invalid="ignore"):
        data = np.ma.getdata(v).astype(np.float64)  # q may be 1e300: no int overflow
        hit = {">": data > q, "<=": data <= q}[op]
    return hit & ~nulls


def _masked(full, keep):
    return {k: v[keep] for k, v in full.items()}


# Every seed with the default run geometry; the run shapes on the seeds whose pages differ most
# (7, 129 and 100,000 rows, GZIP/GORILLA): the other three repeated those paths in a suite that
# must stay within CI's 15 minutes.
SHAPED = [(c, "default") for c in CASES] + [
    (c, shape) for c in CASES if c[0] in (1, 3, 6, 7) for shape in ("runs", "many_runs")
]


@pytest.mark.parametrize(
    "case, run_shape", SHAPED, indirect=["run_shape"], ids=[f"{s}-seed{c[0]}" for c, s in SHAPED]
)
def test_query_table_equals_decode_then_mask(tmp_path, monkeypatch, case, run_shape):
    seed, page_size, compression, encoding = case
    path = write_random_file(tmp_path / "f.tsfile", seed, page_size, compression, encoding)
    names = ["dev", *late_names()]
    full = _as_table(_blocks(path, True, monkeypatch, columns=names, batch_size=0), names)
    rng = np.random.default_rng(seed)
    for column in COLUMNS:
        for sel in SELECTIVITIES:
            # 0 %: "> 1e300" selects nothing; 100 %: "<= 1e300" every non-null, non-NaN row
            q = _threshold(full, column, sel) if 0 < sel < 1 else 1e300
            op = ">" if sel < 1 else "<="
            dpath = PATHS[int(rng.integers(len(PATHS)))]
            batch = int(rng.choice([0, 1, 100, 1024, 5000]))
            kw = dict(columns=names, value_filter=[(column, op, q)], path=dpath, batch_size=batch)
            got = _blocks(path, True, monkeypatch, **kw)
            assert_same_blocks(got, _blocks(path, False, monkeypatch, **kw))
            assert_same(_as_table(got, names), _masked(full, _keep(full, column, op, q)))


@pytest.mark.parametrize("dpath", PATHS)
def test_combined_filters_unasked_filter_columns_and_time(tmp_path, monkeypatch, dpath, run_shape):
    path = write_random_file(tmp_path / "f.tsfile", 11, 50, Compressor.SNAPPY, None)
    names = ["dev", *late_names()]
    full = _as_table(_blocks(path, True, monkeypatch, columns=names, batch_size=0), names)
    q64, q32 = _threshold(full, "i64", 0.05), _threshold(full, "i32", 0.02)
    keep = _keep(full, "i64", ">", q64) | _keep(full, "i32", "<=", -q32)
    vf = [[("i64", ">", q64)], [("i32", "<=", -q32)]]
    # the filter columns not asked for: decoded first, then left out of the blocks
    for cols in (names, ["dev", "txt", "flag"], ["f64"]):
        kw = dict(columns=cols, value_filter=vf, path=dpath, batch_size=300)
        got = _blocks(path, True, monkeypatch, **kw)
        assert_same_blocks(got, _blocks(path, False, monkeypatch, **kw))
        assert_same(_as_table(got, cols), {k: full[k][keep] for k in ["time", *cols]})
    # a filter on time only: every field column decoded late
    t = full["time"]
    vf = (tsfile.col("time") > int(t[len(t) // 3])) & (tsfile.col("time") < int(t[-len(t) // 4]))
    got = _blocks(path, True, monkeypatch, columns=names, value_filter=vf, path=dpath)
    want = _masked(full, (t > t[len(t) // 3]) & (t < t[-len(t) // 4]))
    assert_same(_as_table(got, names), want)


@pytest.mark.parametrize("seed", [3, 6])
def test_query_table_by_row_offsets_count_filtered_rows(tmp_path, monkeypatch, seed, run_shape):
    case = next(c for c in CASES if c[0] == seed)
    path = write_random_file(tmp_path / "f.tsfile", *case)
    names = ["dev", *late_names()]
    full = _as_table(_blocks(path, True, monkeypatch, columns=names, batch_size=0), names)
    q = _threshold(full, "f64", 0.1)
    want = _masked(full, _keep(full, "f64", ">", q))
    n = len(want["time"])
    rng = np.random.default_rng(seed)
    for offset, limit in [(0, -1), (0, 0), (n, 5), (n + 3, -1)] + [
        (int(rng.integers(0, n + 1)), int(rng.integers(-1, n))) for _ in range(6)
    ]:
        kw = dict(columns=names, value_filter=[("f64", ">", q)], offset=offset, limit=limit)
        kw["batch_size"] = int(rng.choice([0, 7, 500]))
        got = _blocks(path, True, monkeypatch, **kw)
        assert_same_blocks(got, _blocks(path, False, monkeypatch, **kw))
        stop = n if limit < 0 else offset + limit
        assert_same(_as_table(got, names), {k: v[offset:stop] for k, v in want.items()})


def _drain(path, api, late_on, monkeypatch, vf):
    """Everything a result set hands out through one API: Arrow batches, data frames or rows."""
    monkeypatch.setattr(reader_mod, "_LATE_QUERIES", late_on)
    out = []
    with TsFileReader(path) as r, r.query_table("t", None, value_filter=vf, batch_size=97) as rs:
        if api == "arrow":
            while (b := rs.read_arrow_batch()) is not None:
                out.append(b.to_pydict())
        elif api == "frame":
            while len(df := rs.read_data_frame(max_row_num=113)):
                out.append(df.to_dict("list"))
        else:
            while rs.next():
                out.append(rs.get_row())
    monkeypatch.setattr(reader_mod, "_LATE_QUERIES", True)
    return out


@pytest.mark.parametrize("api", ["arrow", "frame", "rows"])
def test_result_set_apis_hand_out_the_same(tmp_path, monkeypatch, api, run_shape):
    path = write_random_file(tmp_path / "f.tsfile", 4, 300, Compressor.LZ4, None)
    for vf in ([("f64", ">", 0.8)], [("i64", "<=", -5000)], [("i32", ">", 10**6)]):
        got = _drain(path, api, True, monkeypatch, vf)
        want = _drain(path, api, False, monkeypatch, vf)
        # NaN != NaN: compare their reprs (the row values, None for NULL, in order)
        assert repr(got) == repr(want)


def test_blocks_selecting_nothing_decode_no_other_column(tmp_path, monkeypatch):
    """The point of it: a block whose statistics may match but whose rows do not (f32 holds
    multiples of 1/8, never 1/16, and 1/16 lies inside every page's min..max) decodes only its
    time and filter column; decode-then-mask decodes every column of it."""
    path = write_random_file(tmp_path / "f.tsfile", 5, 40, Compressor.UNCOMPRESSED, None)
    vf = [("f32", "==", 0.0625)]

    def pages(late_on):
        engine.reset_path_counts()
        got = _blocks(path, late_on, monkeypatch, value_filter=vf)
        assert got == []
        return sum(engine.path_counts().values())

    late_pages, all_pages = pages(True), pages(False)
    assert late_pages < 0.4 * all_pages, (late_pages, all_pages)
