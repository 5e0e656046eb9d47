"""Compressed pages read only as far as a query needs (include/page_prefix.h): the resumable
SNAPPY / LZ4 decoders, the TS_2DIFF window and row-range walks over a prefix that grows on
demand, and the reader's time and value pages. Every answer equals the whole-page decode;
hostile streams and headers raise CorruptDataError, never read past what was decompressed."""

import numpy as np
import pytest

import tsfile
from tsfile import compression
from tsfile._read import engine
from tsfile._read import pushdown as pd
from tsfile.codecs import ts2diff
from tsfile.errors import CorruptDataError

CODECS = {"lz4": compression.LZ4, "snappy": compression.SNAPPY}


def compressed(name, body):
    if not compression.available(CODECS[name]):
        pytest.skip(f"{name} not available")
    return compression.compress(CODECS[name], bytes(body))


@pytest.fixture(params=pd.PLANS)
def plan(request):
    before = pd.set_block_skip(request.param)
    yield request.param
    pd.set_block_skip(before)


@pytest.fixture(params=sorted(CODECS))
def codec(request):
    return request.param


def jittered_times(n, width, seed=0):
    rng = np.random.default_rng(seed)
    jitter = rng.integers(0, 1 << width, n) if width else np.zeros(n, np.int64)
    return 1_000_000 + np.cumsum(1000 + jitter).astype(np.int64)


def test_resumable_decoders_equal_the_whole_decompression(codec):
    rng = np.random.default_rng(0)
    for body in (
        b"",
        b"x",
        bytes(100_000),
        rng.integers(0, 4, 300_000, dtype=np.uint8).tobytes(),
        ts2diff.encode(jittered_times(50_000, 8)),
    ):
        stream = compressed(codec, body)
        assert engine.c_decompress(int(CODECS[codec]), stream, len(body)) == body


@pytest.mark.parametrize("width", [0, 4, 8, 12, 30])
def test_windows_over_a_compressed_page_equal_the_whole_page(width, plan, codec):
    times = jittered_times(129 * 120 - 17, width, seed=width)  # a partial last block
    page = ts2diff.encode(times)
    stream = compressed(codec, page)
    rng = np.random.default_rng(width)
    first_of = lambda b: int(times[b * 129])  # noqa: E731
    cuts = [
        (times[0], times[-1]),  # everything
        (times[0], times[0]),  # the page's first value
        (times[-1], times[-1]),  # its last
        (first_of(5), int(times[5 * 129 + 128])),  # exactly one block
        (int(times[700]) + 1, int(times[705])),  # inside one block
        (0, times[0] - 1),  # before the page
        (times[-1] + 1, times[-1] + 10),  # after it
        (first_of(3), first_of(2)),  # t1 > t2: empty
    ]
    for _ in range(25):
        a, b = sorted(rng.integers(times[0] - 5000, times[-1] + 5000, 2))
        cuts.append((int(a), int(b)))
    for t1, t2 in cuts:
        want_rows = np.flatnonzero((times >= t1) & (times <= t2))
        vals, rows, st = pd.time_window(
            stream, int(t1), int(t2), rows=True, compression=codec, size=len(page)
        )
        np.testing.assert_array_equal(vals, times[want_rows])
        np.testing.assert_array_equal(rows, want_rows)
        assert st["decompressed"] <= len(page)
        if st["rows"] >= 0:
            assert st["rows"] == len(times)


def test_plan_c_decompresses_only_up_to_the_window(codec):
    """A 1 % window in the first tenth of a page: plan C stops after the window, and the page
    is decompressed only that far (plus the decoder's slack); plan A reads it all."""
    times = jittered_times(400_000, 8, seed=3)
    page = ts2diff.encode(times)
    stream = compressed(codec, page)
    t1, t2 = int(times[20_000]), int(times[24_000])
    before = pd.set_block_skip("plan_c")
    try:
        vals, _, st = pd.time_window(stream, t1, t2, compression=codec, size=len(page))
        np.testing.assert_array_equal(vals, times[20_000:24_001])
        assert st["decompressed"] < len(page) * 0.1
        assert st["rows"] == -1  # the rest of the page was never read
        pd.set_block_skip("plan_a")
        _, _, st = pd.time_window(stream, t1, t2, compression=codec, size=len(page))
        assert st["decompressed"] == len(page) and st["rows"] == len(times)
    finally:
        pd.set_block_skip(before)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_row_ranges_of_a_compressed_page(dtype, codec):
    rng = np.random.default_rng(4)
    values = rng.integers(-(10**6), 10**6, 129 * 300 + 50).astype(dtype)
    page = ts2diff.encode(values)
    stream = compressed(codec, page)
    n = len(values)
    ranges = [(0, 0), (0, 1), (128, 130), (129, 258), (n - 1, n), (0, n), (5000, 5100)]
    for _ in range(20):
        a, b = sorted(rng.integers(0, n + 1, 2))
        ranges.append((int(a), int(b)))
    for start, stop in ranges:
        got, skipped, done = pd.decode_rows(
            stream, dtype, start, stop, compression=codec, size=len(page), stats=True
        )
        np.testing.assert_array_equal(got, values[start:stop])
        # never decompressed past the block holding row stop - 1, plus the prefix's slack and
        # the last copy (random values compress to runs of literals, stopped inside)
        block_end = (stop // 129 + 1) * (16 + 4 * 129 + 8)
        assert done <= min(len(page), block_end + 16384 + 64)
    _, _, done = pd.decode_rows(stream, dtype, 0, 10, compression=codec, size=len(page), stats=True)
    assert done < len(page) // 4


def test_a_stream_damaged_after_the_prefix(codec):
    """A stream cut short: a window near the page's start reads (the damage is never reached);
    one that reaches it raises the decompressor's error, naming where."""
    times = jittered_times(200_000, 8, seed=5)
    page = ts2diff.encode(times)
    stream = compressed(codec, page)
    cut = stream[: len(stream) * 3 // 5]
    before = pd.set_block_skip("plan_c")
    try:
        t1, t2 = int(times[1000]), int(times[2000])
        kw = {"compression": codec, "size": len(page), "cap": len(times)}
        vals, _, _ = pd.time_window(cut, t1, t2, **kw)
        np.testing.assert_array_equal(vals, times[1000:2001])
        got, _ = pd.decode_rows(cut, np.int64, 0, 2000, compression=codec, size=len(page))
        np.testing.assert_array_equal(got, times[:2000])
        with pytest.raises(CorruptDataError, match=f"{codec.upper()} page body: truncated"):
            pd.time_window(cut, int(times[-10]), int(times[-1]), **kw)
        with pytest.raises(CorruptDataError, match="truncated"):
            pd.decode_rows(cut, np.int64, 190_000, 190_010, compression=codec, size=len(page))
    finally:
        pd.set_block_skip(before)


def _block_offsets(page, count):
    """Byte offsets of the first `count` int64 block headers of a TS_2DIFF page."""
    pos, out = 0, []
    while len(out) < count:
        out.append(pos)
        n = int.from_bytes(page[pos : pos + 4], "big")
        w = int.from_bytes(page[pos + 4 : pos + 8], "big")
        pos += 24 + (n * w + 7) // 8
    return out


@pytest.mark.parametrize(
    "field, value, match",
    [
        ("width", 70, "bit width 70"),  # wider than int64
        ("count", 5000, "count"),  # more deltas than a block may hold
        ("count", 200, "byte"),  # a count whose bits run past the page's end (last block)
    ],
)
def test_hostile_headers_in_a_compressed_page(field, value, match, codec, plan):
    times = jittered_times(129 * 40, 8, seed=6)
    page = bytearray(ts2diff.encode(times))
    offsets = _block_offsets(page, 40)
    at = offsets[-1] if value == 200 else offsets[20]
    field_at = at + (4 if field == "width" else 0)
    page[field_at : field_at + 4] = value.to_bytes(4, "big")
    stream = compressed(codec, page)
    t_last = int(times[-1])
    with pytest.raises(CorruptDataError, match=match):
        pd.time_window(stream, int(times[0]), t_last, compression=codec, size=len(page))
    with pytest.raises(CorruptDataError, match=match):
        pd.decode_rows(stream, np.int64, 0, len(times), compression=codec, size=len(page))


@pytest.mark.parametrize("codec", ["lz4", "snappy"])
def test_a_body_size_the_stream_cannot_produce_is_refused_before_allocating(codec):
    """``size`` beyond what the stored bytes can decode to (255x for LZ4; for SNAPPY also not the
    size its preamble states) raises CorruptDataError instead of allocating it: 2**50 bytes
    here, which np.empty could not provide (MemoryError) if it were asked."""
    page = ts2diff.encode(np.arange(1000, dtype=np.int64))
    stream = compressed(codec, page)
    for fn in (
        lambda: pd.time_window(stream, 0, 10, compression=codec, size=2**50),
        lambda: pd.decode_rows(stream, np.int64, 0, 10, compression=codec, size=2**50),
    ):
        with pytest.raises(CorruptDataError, match="impossible"):
            fn()


# ---- the reader ---------------------------------------------------------------------------------

COLUMNS = [
    ("i64", tsfile.TSDataType.INT64, tsfile.TSEncoding.TS_2DIFF),
    ("i32", tsfile.TSDataType.INT32, tsfile.TSEncoding.TS_2DIFF),
    ("p64", tsfile.TSDataType.INT64, tsfile.TSEncoding.PLAIN),
    ("pdbl", tsfile.TSDataType.DOUBLE, tsfile.TSEncoding.PLAIN),
    ("pflt", tsfile.TSDataType.FLOAT, tsfile.TSEncoding.PLAIN),
    ("pi32", tsfile.TSDataType.INT32, tsfile.TSEncoding.PLAIN),
    ("gdbl", tsfile.TSDataType.DOUBLE, tsfile.TSEncoding.GORILLA),
    ("txt", tsfile.TSDataType.STRING, tsfile.TSEncoding.PLAIN),
]
N = 60_000


@pytest.fixture(scope="module", params=["LZ4", "SNAPPY", "UNCOMPRESSED"])
def one_page_file(request, tmp_path_factory):
    comp = getattr(tsfile.Compressor, request.param)
    if not compression.available(comp):
        pytest.skip(f"{request.param} not available")
    rng = np.random.default_rng(7)
    times = jittered_times(N, 6, seed=7)
    data, masks = {}, {}
    for name, t, _ in COLUMNS:
        if t == tsfile.TSDataType.STRING:
            vals = np.array([f"s{i % 97}" for i in range(N)], object)
        else:
            vals = rng.integers(-(10**6), 10**6, N).astype(t.numpy_dtype)
        # nulls: none in some columns, scattered in others, a null run in one
        mask = np.zeros(N, bool)
        if name in ("i64", "pdbl", "gdbl"):
            mask = rng.random(N) < 0.05
        if name == "p64":
            mask[30_000:30_500] = True
        data[name], masks[name] = vals, mask
    schema = tsfile.TableSchema(
        "t",
        [tsfile.ColumnSchema("id", tsfile.TSDataType.STRING, tsfile.ColumnCategory.TAG)]
        + [tsfile.ColumnSchema(n, t, tsfile.ColumnCategory.FIELD, e) for n, t, e in COLUMNS],
    )
    path = tmp_path_factory.mktemp("prefix") / f"{request.param}.tsfile"
    with tsfile.TsFileTableWriter(path, schema, page_size=N, compression=comp) as w:
        cols = {"id": np.array(["d"] * N, object)}
        for name, _, _ in COLUMNS:
            cols[name] = (
                np.ma.MaskedArray(data[name], mask=masks[name]) if masks[name].any() else data[name]
            )
        w.write_arrays(times, cols)
    return path, request.param, times, data, masks


def check_read(path, times, data, masks, t1, t2, decode_path="auto"):
    names = [n for n, _, _ in COLUMNS]
    got = tsfile.read_table(path, "t", names, t1, t2, decode_path=decode_path)
    want = (times >= t1) & (times <= t2)
    np.testing.assert_array_equal(got["time"], times[want])
    for name in names:
        col = got[name]
        mask = masks[name][want]
        np.testing.assert_array_equal(np.ma.getmaskarray(col), mask, err_msg=name)
        vals = np.ma.getdata(col) if isinstance(col, np.ma.MaskedArray) else np.asarray(col)
        np.testing.assert_array_equal(vals[~mask], data[name][want][~mask], err_msg=name)


def test_reader_windows_equal_the_whole_page(one_page_file, plan):
    path, _, times, data, masks = one_page_file
    rng = np.random.default_rng(8)
    rows = [(0, 0), (0, 999), (N - 1, N - 1), (N - 500, N - 1), (29_900, 30_600), (1, N - 2)]
    rows += [(129 * 10, 129 * 11 - 1), (129 * 10 + 3, 129 * 10 + 7)]
    for _ in range(6):
        a, b = sorted(rng.integers(0, N, 2))
        rows.append((int(a), int(b)))
    for r1, r2 in rows:
        check_read(path, times, data, masks, int(times[r1]), int(times[r2]))
    for decode_path in ("per_value", "batch"):
        check_read(path, times, data, masks, int(times[100]), int(times[2000]), decode_path)


def test_reader_decompresses_only_what_a_window_near_the_start_needs(one_page_file):
    """Rows 1000..1600 of a 60,000 row page: the time page and the value pages read through a
    row-range decoder (TS_2DIFF, PLAIN by offset or by walking svarints, GORILLA walked as its
    bytes are decompressed) are decompressed only about that far (plus the decoder's slack);
    text pages, decoded from their start, whole."""
    path, comp, times, data, masks = one_page_file
    t1, t2 = int(times[1000]), int(times[1600])
    want = (times >= t1) & (times <= t2)
    before = pd.set_block_skip("plan_c")
    try:
        for name, _, _ in COLUMNS:
            pd.reset_skip_counts()
            got = tsfile.read_table(path, "t", [name], t1, t2)
            mask = masks[name][want]
            np.testing.assert_array_equal(np.ma.getmaskarray(got[name]), mask)
            counts = pd.skip_counts()
            if comp == "UNCOMPRESSED":
                assert counts["prefix_pages"] == 0
                continue
            assert counts["prefix_pages"] == 2, name  # the time page and the value page
            share = counts["prefix_decompressed"] / counts["prefix_bytes"]
            if name == "txt":
                assert share > 0.5, (name, counts)
            else:
                assert share < 0.5, (name, counts)
    finally:
        pd.set_block_skip(before)


@pytest.mark.parametrize("comp_name", ["LZ4", "SNAPPY"])
@pytest.mark.parametrize("pages", [1, 2])
def test_reader_damage_past_the_prefix_fails_only_queries_that_reach_it(tmp_path, comp_name, pages):
    """The last quarter of the stored stream of the time chunk's first page overwritten: with
    page statistics (2 pages), a window near the page's start is answered (that part is never
    decompressed) and one that reaches the damage raises CorruptDataError naming the page's file
    offset; a one-page chunk's page has no statistics to count its rows, so it is read whole and
    every query of it fails the same way."""
    from interop.chunk_scan import _Buf, _skip_statistics, scan_chunks

    comp = getattr(tsfile.Compressor, comp_name)
    if not compression.available(comp):
        pytest.skip(f"{comp_name} not available")
    n = 200_000
    times = jittered_times(n, 8, seed=11)
    values = np.cumsum(np.random.default_rng(11).integers(-100, 101, n))
    schema = tsfile.TableSchema(
        "t",
        [
            tsfile.ColumnSchema("id", tsfile.TSDataType.STRING, tsfile.ColumnCategory.TAG),
            tsfile.ColumnSchema("v", tsfile.TSDataType.INT64, tsfile.ColumnCategory.FIELD),
        ],
    )
    path = tmp_path / "damaged.tsfile"
    with tsfile.TsFileTableWriter(path, schema, page_size=n // pages, compression=comp) as w:
        w.write_arrays(times, {"id": np.array(["d"] * n, object), "v": values})
    data = bytearray(path.read_bytes())
    (chunk,) = [c for c in scan_chunks(bytes(data)) if c["kind"] == "time"]
    assert chunk["pages"] == pages
    b = _Buf(bytes(data), chunk["offset"] + 1)
    b.varstr()  # measurement
    b.uvarint()  # data size
    b.skip(3)  # type, compression, encoding
    b.uvarint()  # the first page's uncompressed size
    csize = b.uvarint()
    if pages > 1:
        _skip_statistics(b, chunk["type"])
    body = b.p
    data[body + csize * 3 // 4 : body + csize] = b"\xff" * (csize - csize * 3 // 4)
    path.write_bytes(bytes(data))
    early = (int(times[100]), int(times[200]))
    late = (int(times[n // pages - 100]), int(times[n // pages - 1]))
    error = f"{comp_name} page body.*file offset {body}"
    if pages > 1:
        got = tsfile.read_table(path, "t", ["v"], *early)
        np.testing.assert_array_equal(got["time"], times[100:201])
        np.testing.assert_array_equal(got["v"], values[100:201])
    else:
        with pytest.raises(CorruptDataError, match=error):
            tsfile.read_table(path, "t", ["v"], *early)
    with pytest.raises(CorruptDataError, match=error):
        tsfile.read_table(path, "t", ["v"], *late)
    with pytest.raises(CorruptDataError, match=f"file offset {body}"):
        tsfile.read_table(path, "t", ["v"])


def test_reader_page_statistics_counting_fewer_rows_than_the_window_reaches(tmp_path):
    """A time page read only as far as a window takes its row count from its statistics, and the
    value page is read by that count (its bitmap sized from it). Statistics that count 200 of
    the page's 1000 timestamps (the value page's row count and statistics forged to agree) with
    a window at rows 500..510: CorruptDataError naming the time page, never a bitmap read past
    the rows it holds (this crashed the reader)."""
    from tsfile.reader import TsFileReader

    n, lie = 3000, 200
    times = np.arange(n, dtype=np.int64) * 10
    schema = tsfile.TableSchema(
        "t",
        [
            tsfile.ColumnSchema("id", tsfile.TSDataType.STRING, tsfile.ColumnCategory.TAG),
            tsfile.ColumnSchema(
                "v", tsfile.TSDataType.INT64, tsfile.ColumnCategory.FIELD, tsfile.TSEncoding.PLAIN
            ),
        ],
    )
    path = tmp_path / "lying.tsfile"
    comp = tsfile.Compressor.UNCOMPRESSED
    with tsfile.TsFileTableWriter(path, schema, page_size=1000, compression=comp) as w:
        w.write_arrays(times, {"id": np.array(["d"] * n, object), "v": times * 7})
    with TsFileReader(str(path)) as r:
        (group,) = r._plan_columns("t", ["v"], None, None, "auto", None, None).query.tasks[0].groups
        (t_body, _, _, _, t_count, _, _) = group.time_chunk.page_info()[0]
        (v_body, _, _, _, v_count, _, _) = r._chunk(group.values[0], -1).page_info()[0]
    assert t_count == v_count == 1000
    data = bytearray(path.read_bytes())
    old, new = bytes([0xE8, 0x07]), bytes([0xC8, 0x01])  # uvarint 1000 -> 200, same length
    # page statistics: count, start, end, then (value pages) min, max, first, last, sum
    for count_at in (t_body - 16 - 2, v_body - 40 - 16 - 2):
        assert data[count_at : count_at + 2] == old
        data[count_at : count_at + 2] = new
    assert data[v_body : v_body + 4] == (1000).to_bytes(4, "big")  # the value page's rows
    data[v_body : v_body + 4] = lie.to_bytes(4, "big")
    path.write_bytes(bytes(data))
    with pytest.raises(CorruptDataError, match=f"count {lie} timestamps.*file offset {t_body}"):
        tsfile.read_table(path, "t", ["v"], int(times[500]), int(times[510]))
