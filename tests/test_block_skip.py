"""Block skip inside TS_2DIFF pages (include/ts2diff_blockskip.h through tsfile._read.pushdown):
plans off / A / C give the same values as decode-then-trim, skip what they claim, and refuse
corrupt pages."""

import numpy as np
import pytest

import tsfile
from tsfile._read import pushdown as pd
from tsfile.codecs import ts2diff
from tsfile.errors import CorruptDataError


@pytest.fixture(params=pd.PLANS)
def plan(request):
    before = pd.set_block_skip(request.param)
    yield request.param
    pd.set_block_skip(before)


@pytest.fixture(params=["per_value", "batch", "simd"])
def path(request):
    if request.param == "simd" and tsfile._simd.active_isa() in ("none", "scalar"):
        pytest.skip("no SIMD level active")
    return request.param


def jittered_times(blocks, width, seed=0, start=1_000_000):
    """Increasing timestamps: deltas of 1000 plus uniform jitter of `width` bits."""
    rng = np.random.default_rng(seed)
    n = blocks * 129
    jitter = rng.integers(0, 1 << width, n) if width else np.zeros(n, np.int64)
    return start + np.cumsum(1000 + jitter).astype(np.int64)


def expected(times, t1, t2):
    rows = np.flatnonzero((times >= t1) & (times <= t2))
    return times[rows], rows


def check_window(page, times, t1, t2, path):
    vals, rows, stats = pd.time_window(page, t1, t2, rows=True, path=path)
    want_vals, want_rows = expected(times, t1, t2)
    np.testing.assert_array_equal(vals, want_vals)
    np.testing.assert_array_equal(rows, want_rows)
    assert stats["rows"] == len(times)
    return stats


@pytest.mark.parametrize("width", [0, 4, 12])
def test_windows_match_decode_then_trim(width, plan, path):
    times = jittered_times(40, width, seed=width)
    times = times[: len(times) - 7]  # a partial last block
    page = ts2diff.encode(times)
    rng = np.random.default_rng(1)
    cuts = [
        (times[0], times[-1]),
        (times[0] - 10, times[0]),
        (times[-1], times[-1] + 10),
        (times[-1] + 1, times[-1] + 100),
        (0, times[0] - 1),
        (times[500], times[499]),  # t1 > t2: empty
        (np.iinfo(np.int64).min, np.iinfo(np.int64).max),
    ]
    for _ in range(30):
        a, b = sorted(rng.integers(times[0] - 5000, times[-1] + 5000, 2))
        cuts.append((int(a), int(b)))
    for t1, t2 in cuts:
        check_window(page, times, int(t1), int(t2), path)


def test_plan_c_skips_every_block_without_a_match():
    """Plan C: every decoded block holds a match (no phantoms), at every jitter width."""
    before = pd.set_block_skip("plan_c")
    try:
        for width in (0, 4, 8, 12):
            times = jittered_times(200, width, seed=width)
            page = ts2diff.encode(times)
            # the second window starts at a block's first value and ends at a block's last: the
            # block before it ends below t1 (timestamps strictly increase), no phantom there
            for r1, r2 in [(9000, 11000), (129 * 70, 129 * 80 - 1), (129 * 70 - 1, 129 * 80)]:
                t1, t2 = int(times[r1]), int(times[r2])
                stats = check_window(page, times, t1, t2, "auto")
                assert stats["plan"] == "plan_c"
                assert stats["phantom"] == 0, (width, r1, r2)
                touched = len(np.unique(np.flatnonzero((times >= t1) & (times <= t2)) // 129))
                assert stats["skipped"] == stats["blocks"] - touched
    finally:
        pd.set_block_skip(before)


def test_plan_off_decodes_everything():
    before = pd.set_block_skip("off")
    try:
        times = jittered_times(20, 4)
        page = ts2diff.encode(times)
        stats = check_window(page, times, int(times[100]), int(times[200]), "auto")
        assert stats["skipped"] == 0 and stats["blocks"] == 20
        assert stats["phantom"] == 20 - 2  # rows 100..200 lie in blocks 0 and 1
    finally:
        pd.set_block_skip(before)


def test_decreasing_values_fall_back_to_plan_a(plan):
    """A page whose values do not increase (a value page, unsorted data) is never read under
    plan C's premise: the plan that runs is A (or off), and the answer is right."""
    rng = np.random.default_rng(5)
    values = rng.integers(-(10**6), 10**6, 129 * 30).astype(np.int64)
    values[::2] = np.sort(values[::2])[::-1]
    page = ts2diff.encode(values)
    for t1, t2 in [(-1000, 1000), (0, 10**5), (-(10**7), -(10**6) + 500)]:
        stats = check_window(page, values, t1, t2, "auto")
        assert stats["plan"] == ("off" if plan == "off" else "plan_a")


def test_plan_c_premise_broken_after_the_headers_restarts_under_plan_a():
    """Headers say increasing (firsts increase, min_delta >= 0) but a block ends above the next
    block's first value: plan C would skip a block holding matches; the check on decoded
    blocks catches it and the page is read under plan A."""
    block_a = np.array([0, 10, 20, 30, 1000], np.int64)  # ends above block B's first value
    block_b = np.array([40, 50, 60], np.int64)
    page = ts2diff.encode(block_a, block_size=4) + ts2diff.encode(block_b, block_size=4)
    times = np.concatenate([block_a, block_b])
    before = pd.set_block_skip("plan_c")
    try:
        # window [25, 45] decodes block A (first 0 <= 45, next first 40 >= 25): 1000 > 40
        stats = check_window(page, times, 25, 45, "batch")
        assert stats["plan"] == "plan_a"
        # (a window that only such a block would match, e.g. [900, 1100], skips it under plan C:
        # headers cannot show the overlap, and TsFile time pages never hold it, see 5.3)
    finally:
        pd.set_block_skip(before)


def test_int64_extremes_and_wrapping_blocks(plan):
    """Blocks whose bounds overflow int64 (deltas wrap) are decoded, never skipped by a bound
    that wrapped."""
    values = np.array(
        [np.iinfo(np.int64).max - 5, np.iinfo(np.int64).min + 3, 0, -1, 2**62, -(2**62)] * 50,
        np.int64,
    )
    page = ts2diff.encode(values)
    for t1, t2 in [(-10, 10), (2**62, 2**63 - 1), (-(2**63), -(2**62))]:
        check_window(page, values, t1, t2, "batch")


def test_corrupt_pages_raise_with_the_offset():
    times = jittered_times(3, 4)
    page = ts2diff.encode(times)
    with pytest.raises(CorruptDataError, match="byte"):
        pd.time_window(page[:-3], 0, 2**40)
    bad = bytearray(page)
    bad[4:8] = (70).to_bytes(4, "big")  # width 70 > 64
    with pytest.raises(CorruptDataError, match="bit width 70"):
        pd.time_window(bytes(bad), 0, 2**40)
    with pytest.raises(CorruptDataError, match="rows"):
        pd.decode_rows(page, np.int64, 0, len(times) + 1)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_decode_rows_skips_blocks_by_header(dtype, path):
    rng = np.random.default_rng(2)
    values = rng.integers(-(10**6), 10**6, 129 * 10 + 50).astype(dtype)
    page = ts2diff.encode(values)
    for start, stop in [
        (0, 0),
        (0, 1),
        (128, 130),
        (129, 258),
        (500, 1340),
        (1339, 1340),
        (0, 1340),
    ]:
        got, skipped = pd.decode_rows(page, dtype, start, stop, path=path)
        np.testing.assert_array_equal(got, values[start:stop])
        assert skipped == (start // 129 if stop > start else 0)
    with pytest.raises(ValueError):
        pd.decode_rows(page, dtype, 5, 4)


def test_plan_switch_refuses_unknown_names():
    with pytest.raises(ValueError, match="plan_b"):
        pd.set_block_skip("plan_b")
    assert pd.block_skip() in pd.PLANS


def write_one_device(path, times, values, page_size):
    schema = tsfile.TableSchema(
        "t",
        [
            tsfile.ColumnSchema("id", tsfile.TSDataType.STRING, tsfile.ColumnCategory.TAG),
            tsfile.ColumnSchema(
                "v", tsfile.TSDataType.INT64, tsfile.ColumnCategory.FIELD, tsfile.TSEncoding.PLAIN
            ),
        ],
    )
    with tsfile.TsFileTableWriter(path, schema, page_size=page_size) as w:
        w.write_arrays(times, {"id": np.array(["d"] * len(times), object), "v": values})


@pytest.mark.parametrize("decode_path", ["per_value", "batch", "auto"])
def test_reader_reads_a_time_window_without_unpacking_other_blocks(tmp_path, plan, decode_path):
    """The reader's time chunks go through the block skip: a 1 % window of a 100 k point page
    unpacks only the blocks it overlaps (plan C), and every plan reads the same rows."""
    times = jittered_times(800, 8, seed=4)
    values = np.arange(len(times), dtype=np.int64) * 3
    path = tmp_path / "big_page.tsfile"
    write_one_device(path, times, values, page_size=len(times))
    t1, t2 = int(times[50_000]), int(times[51_000])
    pd.reset_skip_counts()
    got = tsfile.read_table(path, "t", ["v"], t1, t2, decode_path=decode_path)
    want = (times >= t1) & (times <= t2)
    np.testing.assert_array_equal(got["time"], times[want])
    np.testing.assert_array_equal(got["v"], values[want])
    counts = pd.skip_counts()
    assert counts["pages"] == 1 and counts["blocks"] == 800
    if plan == "off":
        assert counts["skipped"] == 0
    else:
        # blocks 387..395 hold rows 50,000..51,000: the other blocks stay packed
        assert counts["skipped"] == 800 - 9
        assert counts["phantom"] == 0


@pytest.mark.parametrize("decode_path", ["per_value", "batch", "auto"])
def test_reader_skips_value_blocks_before_the_window(tmp_path, decode_path):
    """TS_2DIFF value pages are read from the window's first row on: the blocks before it are
    passed by their headers (nulls included: the row -> value position comes from the bitmap)."""
    n = 60_000
    times = jittered_times(n // 129 + 1, 4, seed=8)[:n]
    rng = np.random.default_rng(8)
    values = rng.integers(-(10**6), 10**6, n).astype(np.int64)
    dates = rng.integers(0, 10**6, n).astype(np.int32)
    nulls = rng.random(n) < 0.1
    schema = tsfile.TableSchema(
        "t",
        [
            tsfile.ColumnSchema("id", tsfile.TSDataType.STRING, tsfile.ColumnCategory.TAG),
            tsfile.ColumnSchema("v", tsfile.TSDataType.INT64, tsfile.ColumnCategory.FIELD),
            tsfile.ColumnSchema("w", tsfile.TSDataType.INT32, tsfile.ColumnCategory.FIELD),
        ],
    )
    path = tmp_path / "values.tsfile"
    with tsfile.TsFileTableWriter(path, schema, page_size=n) as w:
        w.write_arrays(
            times,
            {
                "id": np.array(["d"] * n, object),
                "v": np.ma.MaskedArray(values, mask=nulls),
                "w": dates,
            },
        )
    for r1, r2 in [(30_000, 30_600), (1, 5), (0, n - 1), (n - 10, n - 1), (129 * 50, 129 * 60)]:
        t1, t2 = int(times[r1]), int(times[r2])
        pd.reset_skip_counts()
        got = tsfile.read_table(path, "t", ["v", "w"], t1, t2, decode_path=decode_path)
        np.testing.assert_array_equal(got["time"], times[r1 : r2 + 1])
        np.testing.assert_array_equal(np.ma.getmaskarray(got["v"]), nulls[r1 : r2 + 1])
        np.testing.assert_array_equal(
            np.ma.getdata(got["v"])[~nulls[r1 : r2 + 1]], values[r1 : r2 + 1][~nulls[r1 : r2 + 1]]
        )
        np.testing.assert_array_equal(got["w"], dates[r1 : r2 + 1])
        counts = pd.skip_counts()
        if r1 > 0:
            # both columns read from row r1 on: the blocks wholly before it are skipped
            present_before = int((~nulls[:r1]).sum())
            assert counts["value_pages"] == 2
            assert counts["value_blocks_skipped"] == present_before // 129 + r1 // 129
        else:
            # from row 0: nothing to skip; "v" (with nulls) is still read as a row range (its
            # page decompressed only as far as the rows need), "w" whole (every row wanted)
            assert counts["value_pages"] == 1
            assert counts["value_blocks_skipped"] == 0
