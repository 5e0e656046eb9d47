"""value_filter= on query_table, query_table_by_row, read_table, to_dataframe and read_arrow:
tsfile.col predicates and pyarrow's DNF lists, on every numeric type and time, with nulls and
NaN. Every result equals decoding everything and testing each row in Python (exact comparisons,
NULL never matches, NaN only != / not in), on every decode path; bad filters raise before any
data is read; chunk groups whose statistics cannot match are not decoded."""

from __future__ import annotations

import datetime
import math

import numpy as np
import pytest

import tsfile
from tsfile import col, writer
from tsfile._read import engine, predicate
from tsfile.types import ColumnCategory, TSDataType

N = 1200  # rows per device
DEVICES = ["x", "y"]
FIELDS = {
    "i32": TSDataType.INT32,
    "i64": TSDataType.INT64,
    "f32": TSDataType.FLOAT,
    "f64": TSDataType.DOUBLE,
    "ts": TSDataType.TIMESTAMP,
    "day": TSDataType.DATE,
    "txt": TSDataType.STRING,
    "flag": TSDataType.BOOLEAN,
}
PATHS = ["per_value", "batch"] + (["simd"] if tsfile.is_simd_enabled() else [])


def _device_data(rng, k):
    walk = np.cumsum(rng.normal(size=N))
    days = np.datetime64("2020-01-01") + rng.integers(0, 3000, N).astype("timedelta64[D]")
    ymd = [d.astype(datetime.date) for d in days]
    f64 = np.round(walk * 10, 1)
    f64[rng.random(N) < 0.03] = np.nan
    f32 = (rng.normal(size=N) * 5).astype(np.float32)
    f32[rng.random(N) < 0.03] = np.nan
    data = {
        "i32": rng.integers(-50, 50, N).astype(np.int32),
        "i64": (rng.integers(-(2**40), 2**40, N) // 1000 * 1000).astype(np.int64),
        "f32": f32,
        "f64": f64,
        "ts": (np.arange(N, dtype=np.int64) * 1000 + k),
        "day": np.array([d.year * 10000 + d.month * 100 + d.day for d in ymd], np.int32),
        "txt": np.array([f"s{v}" for v in rng.integers(0, 9, N)], dtype=object),
        "flag": rng.random(N) < 0.5,
    }
    masks = {name: rng.random(N) < 0.1 for name in data}
    return data, masks


@pytest.fixture(scope="module")
def vf_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("vf") / "vf.tsfile"
    cols = [tsfile.ColumnSchema("dev", TSDataType.STRING, ColumnCategory.TAG)]
    cols += [tsfile.ColumnSchema(n, t, ColumnCategory.FIELD) for n, t in FIELDS.items()]
    w = writer.TsFileWriter(str(path), page_size=150)
    w.register_table(tsfile.TableSchema("t", cols))
    rng = np.random.default_rng(42)
    for k, dev in enumerate(DEVICES):
        data, masks = _device_data(rng, k)
        ts = np.arange(N, dtype=np.int64) * 3 + k
        for part in (slice(0, 500), slice(500, N)):  # two chunk groups per device
            columns = {"dev": dev, **{n: v[part] for n, v in data.items()}}
            w.write_arrays("t", ts[part], columns, {n: m[part] for n, m in masks.items()})
            w.flush()
    w.close()
    return str(path)


@pytest.fixture(scope="module")
def everything(vf_file):
    """The whole table decoded without a filter: {name: list of Python values, None = null}."""
    out = tsfile.read_table(vf_file, "t")
    rows = {}
    for name, values in out.items():
        mask = np.ma.getmaskarray(values) if isinstance(values, np.ma.MaskedArray) else None
        data = np.ma.getdata(values) if mask is not None else values
        rows[name] = [
            None if (mask is not None and mask[i]) else _py(data[i]) for i in range(len(data))
        ]
    return rows


def _py(v):
    if isinstance(v, np.floating):
        return float(v)  # exact: float32 widens to the double it is
    if isinstance(v, np.integer):
        return int(v)
    return v


def _date_int(v):
    if isinstance(v, datetime.date):
        return v.year * 10000 + v.month * 100 + v.day
    return v


def _row_matches(cell, op, value):
    """The reference: one row, in Python. NULL never matches; NaN is IEEE (Python) NaN."""
    if cell is None:
        return False
    if op in ("in", "not in"):
        hit = any(cell == _date_int(x) for x in value)
        return hit if op == "in" else not hit
    value = _date_int(value)
    return {
        "=": cell == value,
        "==": cell == value,
        "!=": cell != value,
        "<": cell < value,
        "<=": cell <= value,
        ">": cell > value,
        ">=": cell >= value,
    }[op]


def _expected_rows(everything, dnf):
    """Row indices of the full table matching a DNF list (list of tuples or list of lists)."""
    clauses = dnf if isinstance(dnf[0], list) else [dnf]
    n = len(everything["time"])
    return [
        i
        for i in range(n)
        if any(
            all(_row_matches(everything[c.lower()][i], op, v) for c, op, v in cl) for cl in clauses
        )
    ]


DNF_CASES = [
    [("f64", ">", 30.0)],
    [("f64", "<=", -12.5)],
    [("f64", "!=", 0.0)],
    [("f64", "==", float("nan"))],
    [("f64", "!=", float("nan"))],
    [("f32", ">", 1.5)],
    [("f32", "==", 0.1)],  # no float32 value equals the double 0.1
    [("f32", "in", [0.0, 1.0, float("nan")])],
    [("f32", "not in", [1.0])],
    [("i32", "=", 7)],
    [("i32", ">", 2.5)],  # a fraction against an integer column
    [("i32", "<", -2.5)],
    [("i32", "==", 3.5)],
    [("i32", "!=", 3.5)],
    [("i32", "<", 2**40)],  # beyond INT32
    [("i32", ">", -(2**40))],
    [("i32", "<=", float("inf"))],
    [("i32", ">", float("-inf"))],
    [("i32", "in", [1, 2, 3.5, 2**40])],
    [("i32", "not in", [0, 1])],
    [("I64", ">=", 0)],  # names are case-insensitive
    [("i64", "<", 2**63 + 5)],
    [("ts", ">=", 600_000)],
    [("day", "<", datetime.date(2021, 6, 1))],
    [("day", "in", [20200101, datetime.date(2022, 2, 2)])],
    [("time", ">=", 1000), ("time", "<", 2000)],
    [("time", "in", [3, 4, 3000])],
    [("time", "!=", 0), ("f64", ">", 10.0)],
    [[("f64", ">", 40.0)], [("i32", "==", -50)]],
    [[("time", "<", 100)], [("time", ">", 3500), ("f32", "<", 0.0)]],
    [("f64", "<=", 2**1100)],  # ints no double equals: compared exactly
    [("f64", ">=", -(2**1100))],
    [("f32", ">", 2**1100)],
    [("f64", "==", 2**53 + 1)],
    [("f64", "<", 2**53 + 1)],
    [("f64", "in", [2**53 + 1, 2**1100])],
    [("f64", ">", 1e9)],  # nothing matches
    [("i64", ">", 0), ("i64", "<", 0)],
]


def _ids(cases):
    return [repr(c) for c in cases]


@pytest.mark.parametrize("dnf", DNF_CASES, ids=_ids(DNF_CASES))
def test_read_table_equals_decode_then_test_each_row(vf_file, everything, dnf):
    want = _expected_rows(everything, dnf)
    got = tsfile.read_table(vf_file, "t", value_filter=dnf)
    assert got["time"].tolist() == [everything["time"][i] for i in want]
    for name in FIELDS:
        values = got[name]
        mask = np.ma.getmaskarray(values) if isinstance(values, np.ma.MaskedArray) else None
        data = np.ma.getdata(values) if mask is not None else values
        cells = [None if (mask is not None and mask[j]) else _py(data[j]) for j in range(len(data))]
        exp = [everything[name][i] for i in want]
        assert len(cells) == len(exp)
        assert all(a == b or (a != a and b != b) for a, b in zip(cells, exp, strict=True)), name


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("dnf", DNF_CASES[::3], ids=_ids(DNF_CASES[::3]))
def test_query_table_every_path_and_batch_size(vf_file, everything, dnf, path):
    want = [everything["time"][i] for i in _expected_rows(everything, dnf)]
    with tsfile.TsFileReader(vf_file) as r:
        for batch_size in (0, 100):
            with r.query_table(
                "t", ["f64", "dev"], path=path, batch_size=batch_size, value_filter=dnf
            ) as rs:
                assert rs.get_metadata().get_column_list() == ["time", "f64", "dev"]
                got = [row[0] for row in rs]
            assert got == want


def test_predicate_objects_mean_the_same_as_dnf(vf_file):
    pairs = [
        ((col("f64") > 30.0) | (col("i32") == -50), [[("f64", ">", 30.0)], [("i32", "==", -50)]]),
        (
            col("time").between(1000, 1999) & col("i32").isin([1, 2, 3]),
            [("time", ">=", 1000), ("time", "<=", 1999), ("i32", "in", [3, 1, 2])],
        ),
        (
            col("i64").not_in([0]) & (col("day") >= datetime.date(2022, 1, 1)),
            [("i64", "not in", [0]), ("day", ">=", datetime.date(2022, 1, 1))],
        ),
        ((col("ts") < 5000) & [("i32", ">", 0)], [("ts", "<", 5000), ("i32", ">", 0)]),
    ]
    for obj, dnf in pairs:
        a = tsfile.read_table(vf_file, "t", ["i32"], value_filter=obj)
        b = tsfile.read_table(vf_file, "t", ["i32"], value_filter=dnf)
        assert a["time"].tolist() == b["time"].tolist() and len(a["time"]) > 0


def test_filter_columns_not_asked_for_are_not_returned(vf_file, everything):
    dnf = [("f32", ">", 2.0)]
    want = _expected_rows(everything, dnf)
    out = tsfile.read_table(vf_file, "t", ["dev"], value_filter=dnf)
    assert list(out) == ["time", "dev"]
    assert out["dev"].tolist() == [everything["dev"][i] for i in want]
    arrow = tsfile.read_arrow(vf_file, "t", ["i64"], value_filter=dnf)
    assert arrow.column_names == ["time", "i64"] and arrow.num_rows == len(want)
    df = tsfile.to_dataframe(vf_file, "t", ["i32"], value_filter=dnf)
    assert list(df.columns) == ["time", "i32"] and len(df) == len(want)
    empty = tsfile.read_table(vf_file, "t", ["i32"], value_filter=[("f64", ">", 1e9)])
    assert len(empty["time"]) == 0 and len(empty["i32"]) == 0


def test_tag_and_value_filter_together(vf_file, everything):
    dnf = [("f64", "<", 0.0)]
    want = [i for i in _expected_rows(everything, dnf) if everything["dev"][i] == "y"]
    out = tsfile.read_table(
        vf_file, "t", ["f64"], tag_filter=tsfile.tag_eq("dev", "y"), value_filter=dnf
    )
    assert out["time"].tolist() == [everything["time"][i] for i in want]


@pytest.mark.parametrize(
    "bad,error,column",
    [
        ([("nope", ">", 1)], tsfile.ColumnNotExistError, "nope"),
        ([("dev", "==", "x")], tsfile.InvalidFilterError, "dev"),  # a TAG as value
        ([("txt", "==", "s1")], tsfile.InvalidFilterError, "txt"),  # not numeric
        ([("flag", "==", 1)], tsfile.InvalidFilterError, "flag"),
        ([("i64", ">", "5")], tsfile.TypeMismatchError, "i64"),  # string vs INT64
        ([("i64", ">", True)], tsfile.TypeMismatchError, "i64"),
        ([("f64", ">", None)], tsfile.TypeMismatchError, "f64"),
        ([("i32", "in", [1, "2"])], tsfile.TypeMismatchError, "i32"),
        ([("i32", "in", 5)], tsfile.InvalidFilterError, "i32"),
        ([("i32", "like", 5)], tsfile.InvalidFilterError, "i32"),
        ([("time", ">", 1.5j)], tsfile.TypeMismatchError, "time"),
        ([[("f64", ">", 0)], [("i32", ">", 0), ("zz", "<", 1)]], tsfile.ColumnNotExistError, "zz"),
    ],
)
def test_bad_filters_raise_before_any_data_is_read(vf_file, monkeypatch, bad, error, column):
    calls = []
    real = engine.read_chunk
    monkeypatch.setattr(engine, "read_chunk", lambda *a: calls.append(a) or real(*a))
    with tsfile.TsFileReader(vf_file) as r:
        with pytest.raises(error, match=repr(column)):
            r.query_table("t", ["i32"], value_filter=bad)
        with pytest.raises(error, match=repr(column)):
            r.query_table_by_row("t", ["i32"], 0, 5, value_filter=bad)
    with pytest.raises(error, match=repr(column)):
        tsfile.read_table(vf_file, "t", value_filter=bad)
    assert calls == []


def test_malformed_filters():
    for bad in ([], [("a", ">")], "a > 1", [[("a", ">", 1)], ("b", "<", 2)], 5):
        with pytest.raises(tsfile.InvalidFilterError):
            predicate.as_predicate(bad)
    with pytest.raises(TypeError):
        bool(col("a") > 1)  # `1 < col("a") < 5` would silently drop a comparison


# -- pruning by statistics -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def walk_file(tmp_path_factory):
    """One device, 20 chunk groups of 100 rows of an increasing column (matches cluster)."""
    path = tmp_path_factory.mktemp("walk") / "walk.tsfile"
    cols = [
        tsfile.ColumnSchema("dev", TSDataType.STRING, ColumnCategory.TAG),
        tsfile.ColumnSchema("v", TSDataType.INT64, ColumnCategory.FIELD),
        tsfile.ColumnSchema("w", TSDataType.DOUBLE, ColumnCategory.FIELD),
    ]
    w = writer.TsFileWriter(str(path))
    w.register_table(tsfile.TableSchema("t", cols))
    for g in range(20):
        ts = np.arange(100, dtype=np.int64) + 100 * g
        w.write_arrays("t", ts, {"dev": "a", "v": ts * 2, "w": ts * 0.5})
        w.flush()
    w.close()
    return str(path)


def _pages(fn):
    engine.reset_path_counts()
    fn()
    return sum(engine.path_counts().values())


def test_chunk_groups_that_cannot_match_are_not_decoded(walk_file):
    def read(dnf):
        return lambda: tsfile.read_table(walk_file, "t", ["w"], value_filter=dnf)

    full = _pages(read([("v", ">=", 0)]))
    assert full == 20 * 3  # time, v and w pages of every group
    # v in [1000, 1100): rows 500..549 of group 5 only
    assert _pages(read([("v", ">=", 1000), ("v", "<", 1100)])) == 3
    assert _pages(read([("v", "in", [10, 3990])])) == 6  # groups 0 and 19
    assert _pages(read([[("v", "<", 0)], [("w", ">", 1e6)]])) == 0
    out = tsfile.read_table(
        walk_file, "t", ["w"], value_filter=[("v", ">=", 1000), ("v", "<", 1100)]
    )
    assert out["time"].tolist() == list(range(500, 550))
    # a time predicate narrows the time range like start_time/end_time
    assert _pages(read([("time", ">=", 1950)])) == 2  # the last group: its time and w pages
    with (
        tsfile.TsFileReader(walk_file) as r,
        r.query_table("t", ["v"], value_filter=col("w") > 974.5) as rs,
    ):
        assert [row[0] for row in rs] == list(range(1950, 2000))


def test_statistics_pruning_keeps_nan_and_null_chunks_correct():
    """may_match: NaN in min/max bounds nothing; all-NULL chunks match no comparison."""
    schema = tsfile.TableSchema(
        "t",
        [
            tsfile.ColumnSchema("f", TSDataType.DOUBLE, ColumnCategory.FIELD),
            tsfile.ColumnSchema("i", TSDataType.INT32, ColumnCategory.FIELD),
        ],
    )
    b = predicate.bind([("f", ">", 5.0)], schema, "t")
    assert predicate.may_match(b, {"f": (math.nan, 1.0)})
    assert not predicate.may_match(b, {"f": (0.0, 5.0)})
    assert not predicate.may_match(b, {"f": None})
    assert predicate.may_match(b, {})
    ne = predicate.bind([("i", "!=", 3)], schema, "t")
    assert not predicate.may_match(ne, {"i": (3, 3)}) and predicate.may_match(ne, {"i": (3, 4)})
    always = predicate.bind([("i", "<", 2**40)], schema, "t")
    assert not predicate.may_match(always, {"i": None}) and predicate.may_match(
        always, {"i": (0, 1)}
    )
    assert predicate.time_range(
        predicate.bind([("time", ">", 5), ("time", "<=", 9)], schema, "t")
    ) == (6, 9)


def test_evaluate_is_the_mask_step():
    """evaluate(bound, {name: (values, nulls)}) -> bool mask: the plug-in point of SIMD kernels."""
    schema = tsfile.TableSchema(
        "t", [tsfile.ColumnSchema("f", TSDataType.FLOAT, ColumnCategory.FIELD)]
    )
    b = predicate.bind((col("f") >= 1.0) | col("time").isin([7]), schema, "t")
    values = np.array([0.5, 1.0, np.nan, 2.0, 0.0], np.float32)
    nulls = np.array([False, False, False, True, False])
    ts = np.array([1, 2, 3, 4, 7], np.int64)
    mask = predicate.evaluate(b, {"f": (values, nulls), "time": (ts, None)})
    assert mask.tolist() == [False, True, False, False, True]


@pytest.mark.parametrize(
    "data_type", [TSDataType.FLOAT, TSDataType.DOUBLE, TSDataType.INT32, TSDataType.INT64]
)
def test_evaluate_equals_exact_python_comparison_on_edge_values(data_type):
    """Every operator and awkward constant against awkward values, row by row in Python."""
    dtype = engine.numpy_dtype(data_type)
    if dtype.kind == "f":
        info = np.finfo(dtype)
        raw = [
            0.0,
            -0.0,
            0.1,
            1.0,
            2.5,
            float(info.max),
            -float(info.max),
            math.inf,
            -math.inf,
            math.nan,
            2.0**53,
        ]
    else:
        info = np.iinfo(dtype)
        raw = [0, 1, -1, 2, 3, int(info.max), int(info.min), int(info.max) - 1]
    values = np.array(raw, dtype)
    nulls = np.zeros(len(values), np.bool_)
    nulls[1] = True
    cells = [None if nulls[i] else _py(values[i]) for i in range(len(values))]
    constants = [
        0,
        1,
        2.5,
        -2.5,
        0.1,
        2**53 + 1,
        2**63,
        -(2**63) - 1,
        2**31,
        2**1100,
        -(2**1100),
        math.inf,
        -math.inf,
        math.nan,
        float(np.float32(0.1)),
    ]
    schema = tsfile.TableSchema("t", [tsfile.ColumnSchema("c", data_type, ColumnCategory.FIELD)])
    ts = np.arange(len(values), dtype=np.int64)
    for op in ("==", "!=", "<", "<=", ">", ">="):
        for c in constants:
            b = predicate.bind([("c", op, c)], schema, "t")
            got = predicate.evaluate(b, {"c": (values, nulls), "time": (ts, None)}).tolist()
            want = [_row_matches(cell, op, c) for cell in cells]
            assert got == want, (op, c)
    for op in ("in", "not in"):
        b = predicate.bind([("c", op, constants)], schema, "t")
        got = predicate.evaluate(b, {"c": (values, nulls), "time": (ts, None)}).tolist()
        assert got == [_row_matches(cell, op, constants) for cell in cells], op


def test_bench_filter_section_runs(capsys, tmp_path):
    """``python -m tsfile bench filter`` at a tiny size: it checks its results equal
    decode-then-mask before timing, and prints one line per column and selectivity."""
    import re

    from tsfile.__main__ import main

    argv = ["bench", "filter", "--devices", "20", "--device-rows", "50", "--rows", "4000"]
    assert main([*argv, "--group-rows", "100", "--repeat", "1", "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "tag_eq (1 device)" in out
    for label in ("random walk f0", "random f7"):
        for sel in ("0.1", "1", "10", "50"):
            assert re.search(rf"^{label}\s+{re.escape(sel)}\s", out, re.M), out
