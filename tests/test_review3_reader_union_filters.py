"""Review 3 of the read side: filters over files whose columns differ (schema="union").

schema="union" reads the rows of a file lacking a column as NULL there. A tag or value filter
naming such a column made that file's reader refuse the query (ColumnNotExistError naming the
file), so the read failed, or with on_error="skip" silently lost every row of the file. Each
file's rows must be filtered as if its column were all NULL (a value comparison never matches
NULL; a tag test matches NULL only for IS NULL, ~ negating it), with every thread count, and a
filter column that no file holds must still be refused."""

import warnings

import numpy as np
import pytest

import tsfile
from tsfile import ColumnCategory, ColumnSchema, TableSchema, TSDataType, col, tag_eq, tag_is_null
from tsfile._dataset.scan import Scanner


def _write(path, columns, times, values):
    with tsfile.TsFileTableWriter(str(path), TableSchema("t", columns)) as w:
        w.write_arrays(np.asarray(times, dtype=np.int64), values)
    return str(path)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("union_filters")
    tag = ColumnCategory.TAG
    field = ColumnCategory.FIELD
    dev = ColumnSchema("dev", TSDataType.STRING, tag)
    site = ColumnSchema("site", TSDataType.STRING, tag)
    v = ColumnSchema("v", TSDataType.INT64, field)
    x = ColumnSchema("x", TSDataType.DOUBLE, field)
    a = _write(
        d / "a.tsfile",
        [dev, site, v, x],
        range(10),
        {"dev": "d1", "site": "s1", "v": np.arange(10), "x": np.arange(10) * 1.0},
    )
    # b lacks the TAG column site and the FIELD column x
    b = _write(d / "b.tsfile", [dev, v], range(10, 20), {"dev": "d1", "v": np.arange(10, 20)})
    c = _write(
        d / "c.tsfile",
        [site, dev, v, x],
        range(20, 30),
        {"dev": "d2", "site": "s2", "v": np.arange(20, 30), "x": np.arange(10) * 2.0},
    )
    return [a, b, c]


# (tag_filter, value_filter) -> the times expected (v == time in every file)
CASES = [
    (None, col("x") > 3, [*range(4, 10), *range(22, 30)]),
    (None, col("x") != 3, [*range(0, 3), *range(4, 10), *range(20, 30)]),
    (None, (col("x") > 8) | (col("v") >= 15), [9, *range(15, 30)]),
    (None, [[("x", "<", 1)], [("v", "in", [12, 21])]], [0, 12, 20, 21]),
    (tag_eq("site", "s1"), None, list(range(10))),
    (tag_is_null("site"), None, list(range(10, 20))),
    (~tag_eq("site", "s1"), None, list(range(10, 30))),
    (tag_is_null("site") | tag_eq("dev", "d2"), None, list(range(10, 30))),
    (tag_eq("dev", "d1"), col("x") >= 0, list(range(10))),
]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_union_filters_read_a_lacking_column_as_null(files, threads, case):
    tag_filter, value_filter, expected = CASES[case]
    kw = {
        "schema": "union",
        "threads": threads,
        "tag_filter": tag_filter,
        "value_filter": value_filter,
    }
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # on_error="skip" must not drop a file either
        got = tsfile.read_table(files, "t", **kw)
        frame = tsfile.to_dataframe(files, "t", on_error="skip", **kw)
        arrow = tsfile.read_arrow(files, "t", on_error="skip", **kw)
    assert got["time"].tolist() == expected
    assert got["v"].tolist() == expected
    assert frame["time"].tolist() == expected
    assert arrow.column("time").to_pylist() == expected
    # the rows of b (10..19) hold NULL in the columns it lacks
    in_b = (got["time"] >= 10) & (got["time"] < 20)
    assert np.ma.getmaskarray(got["x"])[in_b].all()
    assert all(s is None for s in got["site"][in_b])


@pytest.mark.parametrize("case", range(len(CASES)))
def test_union_filters_in_the_arrow_stream(files, case):
    tag_filter, value_filter, expected = CASES[case]
    scan = Scanner(files, "t", schema="union", tag_filter=tag_filter, value_filter=value_filter)
    times = [t for batch in scan.to_batches() for t in batch.column("time").to_pylist()]
    assert times == expected


def test_union_filters_in_dask(files):
    pytest.importorskip("dask.dataframe")
    from tsfile.dask import read_tsfile

    frame = read_tsfile(
        files,
        "t",
        value_filter=col("x") > 3,
        tag_filter=~tag_eq("site", "s2"),
        schema="union",
        index=None,
    ).compute()
    assert frame["time"].tolist() == list(range(4, 10))


@pytest.mark.parametrize("threads", [1, 2])
def test_union_filter_on_a_column_of_no_file_is_refused(files, threads):
    with pytest.raises(tsfile.ColumnNotExistError, match="nope"):
        tsfile.read_table(files, "t", schema="union", threads=threads, value_filter=col("nope") > 1)
    with pytest.raises(tsfile.ColumnNotExistError, match="nope"):
        tsfile.read_table(
            files, "t", schema="union", threads=threads, tag_filter=tag_is_null("nope")
        )
    with pytest.raises(tsfile.ColumnNotExistError, match="nope"):
        Scanner(files, "t", schema="union", value_filter=col("nope") > 1)


def test_strict_schema_still_refuses_files_that_differ(files):
    # (the reader of b refuses the filter before the schemas are compared)
    with pytest.raises((tsfile.InvalidSchemaError, tsfile.ColumnNotExistError)):
        tsfile.read_table(files, "t", value_filter=col("x") > 3)
