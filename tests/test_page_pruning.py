"""value_filter= prunes pages, not only chunk groups: the pages of a chunk group whose page
statistics (time range, min/max of the filtered fields) cannot match are never decompressed nor
decoded, and the answer equals decode-everything-then-mask (NULL pages, NaN, OR, time ranges)."""

import numpy as np
import pytest

import tsfile
from tsfile import col, writer
from tsfile._read import engine
from tsfile.types import ColumnCategory, TSDataType

ROWS, PAGE = 2000, 100  # one chunk group of 20 pages


@pytest.fixture(scope="module")
def paged_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("pages") / "paged.tsfile"
    cols = [
        tsfile.ColumnSchema("dev", TSDataType.STRING, ColumnCategory.TAG),
        tsfile.ColumnSchema("v", TSDataType.INT64, ColumnCategory.FIELD),
        tsfile.ColumnSchema("w", TSDataType.DOUBLE, ColumnCategory.FIELD),
        tsfile.ColumnSchema("f", TSDataType.FLOAT, ColumnCategory.FIELD),
    ]
    ts = np.arange(ROWS, dtype=np.int64)
    v = ts * 2  # increasing: page k holds 200k .. 200k + 198
    w = ts * 0.5
    f = np.zeros(ROWS, np.float32)
    f[::7] = np.nan  # NaN in every page: min/max leave it out
    f[::PAGE] = 0.0  # (a page whose first value is NaN gets NaN statistics: bound nothing)
    f[1000:1100] = 3.0
    masks = {"v": np.zeros(ROWS, bool), "w": np.zeros(ROWS, bool), "f": np.zeros(ROWS, bool)}
    masks["w"][300:400] = True  # page 3 of w: all NULL
    masks["v"][::13] = True
    w_ = writer.TsFileWriter(str(path), page_size=PAGE)
    w_.register_table(tsfile.TableSchema("t", cols))
    w_.write_arrays("t", ts, {"dev": "a", "v": v, "w": w, "f": f}, masks)
    w_.close()
    return str(path), ts, {"v": v, "w": w, "f": f}, masks


def _pages_decoded(fn):
    engine.reset_path_counts()
    out = fn()
    return sum(engine.path_counts().values()), out


def _expected(ts, data, masks, keep):
    return {
        "time": ts[keep],
        **{n: np.ma.MaskedArray(data[n][keep], mask=masks[n][keep]) for n in data},
    }


def _check(got, want):
    np.testing.assert_array_equal(got["time"], want["time"])
    for n in ("v", "w", "f"):
        np.testing.assert_array_equal(np.ma.getmaskarray(got[n]), np.ma.getmaskarray(want[n]))
        m = ~np.ma.getmaskarray(want[n])
        np.testing.assert_array_equal(np.ma.getdata(got[n])[m], np.ma.getdata(want[n])[m])


def test_pages_that_cannot_match_are_not_decoded(paged_file):
    path, ts, data, masks = paged_file

    def read(dnf, **kw):
        return lambda: tsfile.read_table(path, "t", ["v", "w", "f"], value_filter=dnf, **kw)

    full, _ = _pages_decoded(read([("v", ">=", 0)]))
    assert full == 20 * 4 - 1  # time, v, w and f pages (w's all-NULL page is empty: no decode)
    # v in [1000, 1100): rows 500..549, page 5 only
    n, got = _pages_decoded(read([("v", ">=", 1000), ("v", "<", 1100)]))
    assert n == 4
    keep = ~masks["v"] & (data["v"] >= 1000) & (data["v"] < 1100)
    _check(got, _expected(ts, data, masks, keep))
    # an OR of two fields: pages 0 (v) and 19 (w)
    n, got = _pages_decoded(read([[("v", "<", 10)], [("w", ">", 995.0)]]))
    assert n == 8
    keep = (~masks["v"] & (data["v"] < 10)) | (~masks["w"] & (data["w"] > 995.0))
    _check(got, _expected(ts, data, masks, keep))
    # a page of w that is all NULL matches no comparison; page 3's rows are 300..399
    n, got = _pages_decoded(read([("w", ">=", 150.0), ("w", "<", 200.0)]))
    assert n == 0 and len(got["time"]) == 0


def test_nan_pages_are_kept_and_answers_equal_the_mask(paged_file):
    """f holds NaN in every page (its statistics leave NaN out): != and not in keep every page;
    the comparisons drop the pages whose min/max cannot match."""
    path, ts, data, masks = paged_file
    f = data["f"]
    for dnf, keep, pages in [
        ([("f", "!=", 0.0)], ~(f == 0.0), 79),
        ([("f", "==", 3.0)], f == 3.0, 4),
        ([("f", ">", 1.0), ("time", "<", 1050)], (f > 1.0) & (ts < 1050), 4),
        ([("f", "not in", [0.0])], ~np.isin(f, [0.0]), 79),
    ]:
        for path_name in ("per_value", "batch", "auto"):
            n, got = _pages_decoded(
                lambda dnf=dnf, p=path_name: tsfile.read_table(
                    path, "t", ["v", "w", "f"], value_filter=dnf, decode_path=p
                )
            )
            _check(got, _expected(ts, data, masks, keep & ~masks["f"]))
            assert n == pages, (dnf, path_name)


def test_query_table_blocks_over_pruned_pages(paged_file):
    """The reader's block path (query_table, small batches) serves the same rows."""
    path, ts, data, masks = paged_file
    keep = ~masks["v"] & (((data["v"] >= 400) & (data["v"] < 500)) | (data["v"] > 3900))
    with (
        tsfile.TsFileReader(path) as r,
        r.query_table(
            "t",
            ["v"],
            value_filter=((col("v") >= 400) & (col("v") < 500)) | (col("v") > 3900),
            batch_size=37,
        ) as rs,
    ):
        got = [row[0] for row in rs]
    assert got == ts[keep].tolist()
