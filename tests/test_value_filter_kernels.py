"""Value filters run their comparisons on the predicate kernels of tsfile._read.pushdown, on the
query's own decode path (issue 10 part 4: per_value tests value by value, batch with scalar C,
simd with the ISA kernels), with the same rows as numpy's comparison."""

import numpy as np
import pytest

import tsfile
from tsfile._read import pushdown
from tsfile.types import ColumnCategory, TSDataType

PATHS = ["per_value", "batch"] + (["simd"] if tsfile.is_simd_enabled() else [])


@pytest.fixture(scope="module")
def walk_file(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("vfk") / "walk.tsfile")
    schema = tsfile.TableSchema(
        "t",
        [
            tsfile.ColumnSchema("dev", TSDataType.STRING, ColumnCategory.TAG),
            tsfile.ColumnSchema("i", TSDataType.INT64, ColumnCategory.FIELD),
            tsfile.ColumnSchema("f", TSDataType.DOUBLE, ColumnCategory.FIELD),
        ],
    )
    rng = np.random.default_rng(3)
    n = 5000
    f = rng.normal(size=n)
    f[rng.random(n) < 0.05] = np.nan
    with tsfile.TsFileTableWriter(path, schema) as w:
        w.write_arrays(
            np.arange(n, dtype=np.int64),
            {"dev": "d", "i": rng.integers(-1000, 1000, n), "f": f},
        )
    return path


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(
    "flt", [[("i", "<", 10)], [("f", ">=", 0.5)], [("f", "!=", 0.0)], [("i", "==", 7)]]
)
def test_the_kernels_run_on_the_query_path_and_select_numpys_rows(
    walk_file, monkeypatch, path, flt
):
    calls = []
    real = pushdown.select

    def spy(values, op, operand, *args, **kw):
        calls.append(kw.get("path"))
        return real(values, op, operand, *args, **kw)

    monkeypatch.setattr(pushdown, "select", spy)
    with tsfile.TsFileReader(walk_file) as r:
        names, _types, ts, cols, _nulls = r.read_columns(
            "t", ["i", "f"], path=path, value_filter=flt
        )
        with r.query_table("t", ["i", "f"], path=path, value_filter=flt) as rs:
            rows = 0
            while (blk := rs.get_next_tsblock()) is not None:
                rows += len(blk)
    assert calls and set(calls) == {path}
    whole = tsfile.read_table(walk_file, "t")
    name, op, value = flt[0]
    data = np.ma.getdata(whole[name])
    expect = {"<": data < value, ">=": data >= value, "!=": data != value, "==": data == value}[op]
    assert np.array_equal(ts, whole["time"][expect])
    assert rows == int(expect.sum())
