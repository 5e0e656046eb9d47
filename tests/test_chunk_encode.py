"""Whole chunks encoded and compressed in C (tsfile._write.chunk_encode), issue 8 item 4.

The C path must write exactly the bytes of the page-by-page path it replaces (which is kept, and
switched on by chunk.WHOLE_CHUNKS_IN_C = False): every encoding / type / compressor it takes, with
and without nulls, one page and many; its Snappy must be cramjam's byte for byte; the TS_2DIFF
encode_into row must be ts2diff.encode; and writers in threads must write the files one thread
writes.
"""

from __future__ import annotations

import glob
import os
import threading

import cramjam
import numpy as np
import pytest

import tsfile
from tsfile._write import chunk, chunk_encode, encoders
from tsfile.codecs import _registry, ts2diff
from tsfile.errors import EncodeError
from tsfile.types import Compressor, TSDataType, TSEncoding

T = TSDataType
E = TSEncoding
HERE = os.path.dirname(__file__)


# -- Snappy: the bytes of cramjam.snappy.compress_raw ---------------------------------------------


def _snappy_inputs():
    rng = np.random.default_rng(7)
    for n in [*range(0, 40), 59, 60, 61, 64, 65, 68, 100, 255, 256, 257, 4095, 4096, 65535]:
        yield rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        yield rng.integers(0, 3, n, dtype=np.uint8).tobytes()
        yield bytes(n)
    for n in (65536, 65537, 65536 + 16, 65536 + 17, 200_000, 1 << 20):
        yield rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        yield rng.integers(0, 5, n, dtype=np.uint8).tobytes()
        yield (b"0123456789abcdef" * (n // 16 + 1))[:n]  # long copies: the 64/60-byte splits
        yield np.cumsum(rng.integers(-100, 101, n // 8)).astype(">i8").tobytes()
    for _ in range(150):  # repeats with noise: copies of every length and offset
        n = int(rng.integers(0, 150_000))
        base = rng.integers(0, 256, int(rng.integers(1, 5000)), dtype=np.uint8).tobytes()
        s = bytearray((base * (n // len(base) + 1))[:n])
        for i in rng.integers(0, max(n, 1), 40):
            if n:
                s[i] = int(rng.integers(0, 256))
        yield bytes(s)
    for _ in range(100):  # TS_2DIFF pages, what the writer compresses
        n = int(rng.integers(1, 20_000))
        step = int(rng.integers(1, 1000))
        yield ts2diff.encode(np.cumsum(rng.integers(-step, step + 1, n)).astype(np.int64))
    for path in sorted(glob.glob(os.path.join(HERE, "fixtures", "**", "*.tsfile"), recursive=True)):
        with open(path, "rb") as f:
            yield f.read()


def test_snappy_is_cramjams_byte_for_byte():
    count = 0
    for data in _snappy_inputs():
        want = bytes(cramjam.snappy.compress_raw(data))
        assert chunk_encode.snappy_compress_raw(data) == want, f"{len(data)} bytes"
        count += 1
    assert count > 450


needs_lz4 = pytest.mark.skipif(
    not chunk_encode.lz4_available(), reason="no liblz4 with the per-page path's bytes"
)


@needs_lz4
def test_lz4_is_the_per_page_paths_byte_for_byte():
    from tsfile.compression import compress

    count = 0
    for data in _snappy_inputs():
        want = compress(Compressor.LZ4, data)
        assert want == bytes(cramjam.lz4.compress_block(data, store_size=False))
        assert chunk_encode.lz4_compress_raw(data) == want, f"{len(data)} bytes"
        count += 1
    assert count > 450


@needs_lz4
def test_lz4_refuses_an_input_beyond_liblz4s_int_sizes():
    """liblz4 takes int sizes: 4 GiB + 10 bytes must be refused, not compressed as the first 10
    (np.zeros maps zero pages: nothing of it is touched)."""
    try:
        data = np.zeros(2**32 + 10, dtype=np.uint8)
    except MemoryError:  # a machine whose overcommit policy refuses 4 GiB of address space
        pytest.skip("this machine does not map 4 GiB of zeros (overcommit policy)")
    with pytest.raises(ValueError, match="too large for LZ4"):
        chunk_encode.lz4_compress_raw(data)


def test_an_lz4_that_differs_on_a_probe_is_not_used(monkeypatch):
    """liblz4 is used only where it gives the per-page path's bytes: a per-page LZ4 that differs
    on a probe input leaves LZ4 chunks to the per-page path (supports() is False)."""
    import tsfile.compression as compression

    real = compression.compress

    def other_bytes(code, data):
        out = real(code, data)
        return out + b"\0" if code == Compressor.LZ4 and len(data) > 1000 else out

    monkeypatch.setattr(compression, "compress", other_bytes)
    try:
        chunk_encode._load_lz4()
        assert not chunk_encode.lz4_available()
        assert not chunk_encode.supports(int(E.TS_2DIFF), int(T.INT64), int(Compressor.LZ4))
        with pytest.raises(RuntimeError, match="no liblz4"):
            chunk_encode.lz4_compress_raw(b"abc")
    finally:
        monkeypatch.setattr(compression, "compress", real)
        chunk_encode._load_lz4()
    assert chunk_encode.supports(int(E.TS_2DIFF), int(T.INT64), int(Compressor.LZ4)) == (
        chunk_encode.lz4_available()
    )


# -- TS_2DIFF encode_into (the codec contract row) -------------------------------------------------


def _int_shapes(dtype):
    rng = np.random.default_rng(3)
    info = np.iinfo(dtype)
    for n in (0, 1, 2, 3, 127, 128, 129, 130, 131, 258, 259, 1000):
        yield rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        yield np.cumsum(rng.integers(-3, 4, n)).astype(dtype)
        yield np.full(n, info.min, dtype=dtype)
    yield np.array([info.min, info.max] * 200, dtype=dtype)  # full-width deltas
    for width in range(np.dtype(dtype).itemsize * 8):  # every delta width
        yield (np.arange(300) % 2 * ((1 << width) - 1)).astype(dtype)
    yield np.cumsum(rng.integers(-100, 101, 1_000_000)).astype(dtype)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_ts2diff_encode_into_is_encode(dtype):
    for values in _int_shapes(dtype):
        assert _registry.encode(int(E.TS_2DIFF), values, dtype) == ts2diff.encode(values), len(
            values
        )


# -- whole chunks: the bytes of the page-by-page path ---------------------------------------------


@pytest.fixture
def per_page_path(monkeypatch):
    def build(fn, *args, **kw):
        monkeypatch.setattr(chunk, "WHOLE_CHUNKS_IN_C", False)
        try:
            return fn(*args, **kw)
        finally:
            monkeypatch.setattr(chunk, "WHOLE_CHUNKS_IN_C", True)

    return build


def _same_chunk(a, b):
    assert b"".join(a.parts) == b"".join(b.parts)
    assert a.size == b.size
    assert a.statistics.serialize() == b.statistics.serialize()  # NaN sums: compare bytes
    assert a.encoding == b.encoding


_VALUE_DTYPES = {
    T.BOOLEAN: np.bool_,
    T.INT32: np.int32,
    T.DATE: np.int32,
    T.INT64: np.int64,
    T.TIMESTAMP: np.int64,
    T.FLOAT: np.float32,
    T.DOUBLE: np.float64,
}
_COMPRESSORS = (Compressor.UNCOMPRESSED, Compressor.SNAPPY, Compressor.LZ4)
# Every pair the writer encodes that the C path takes (the rest keep the per-page path).
_C_PAIRS = [
    (enc, dt)
    for enc, types in encoders.SUPPORTED.items()
    for dt in types
    if dt in _VALUE_DTYPES and chunk_encode.supports(int(enc), int(dt), int(Compressor.SNAPPY))
]


def test_the_writers_default_pairs_take_the_c_path():
    for dt in (T.BOOLEAN, T.INT32, T.INT64, T.DATE, T.TIMESTAMP, T.FLOAT, T.DOUBLE):
        assert (encoders.DEFAULT_ENCODING[dt], dt) in _C_PAIRS
    assert chunk_encode.supports(int(E.TS_2DIFF), int(T.VECTOR), int(Compressor.SNAPPY))
    # LZ4 (the default compression) wherever liblz4 gives the per-page path's bytes
    lz4 = chunk_encode.supports(int(E.TS_2DIFF), int(T.INT64), int(Compressor.LZ4))
    assert lz4 == chunk_encode.lz4_available()
    assert not chunk_encode.supports(int(E.TS_2DIFF), int(T.INT64), int(Compressor.GZIP))
    assert not chunk_encode.supports(int(E.SPRINTZ), int(T.INT64), int(Compressor.SNAPPY))


def _values(rng, dt, n):
    dtype = _VALUE_DTYPES[dt]
    if dt == T.BOOLEAN:
        return rng.random(n) < 0.3
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        v = np.cumsum(rng.integers(-1000, 1001, n)).astype(dtype)
        if n > 4:
            v[1], v[3] = info.min, info.max  # extremes: full-width deltas
        return v
    v = np.round(rng.normal(0, 100, n), 2).astype(dtype)
    if n > 4:
        v[2] = np.nan
        v[4] = np.finfo(dtype).min  # GORILLA's end marker: written, as before
    return v


@pytest.mark.parametrize("compressor", _COMPRESSORS, ids=lambda c: c.name)
@pytest.mark.parametrize(("encoding", "data_type"), _C_PAIRS, ids=lambda x: x.name)
def test_value_chunks_are_the_per_page_bytes(per_page_path, encoding, data_type, compressor):
    rng = np.random.default_rng(int(encoding) * 100 + int(data_type))
    for rows, page_size in ((1, 100), (5, 100), (1000, 129), (2000, 1000), (3001, 1000)):
        times = np.cumsum(rng.integers(1, 3, rows)).astype(np.int64)
        bounds = chunk.page_bounds(rows, page_size)
        for null_rate in (None, 0.3, 1.0):
            values = _values(rng, data_type, rows)
            present = None
            if null_rate is not None:
                present = rng.random(rows) >= null_rate
                if rows > page_size:  # one page with every row null
                    present[:page_size] = False
                values = values[present]
            args = ("s", data_type, encoding, compressor, values, present, times, bounds)
            _same_chunk(chunk.value_chunk(*args), per_page_path(chunk.value_chunk, *args))


@pytest.mark.parametrize("encoding", [E.TS_2DIFF, E.PLAIN], ids=lambda e: e.name)
@pytest.mark.parametrize("compressor", _COMPRESSORS, ids=lambda c: c.name)
def test_time_chunks_are_the_per_page_bytes(per_page_path, compressor, encoding):
    rng = np.random.default_rng(11)
    # a block without deltas (page lengths 1 mod 129) repeats the last min_delta, on the next
    # page too when that page holds one value (1001 rows, pages of 1000)
    cases = ((1, 10), (2, 10), (130, 129), (1000, 130), (1001, 1000), (2001, 1000), (20_000, 259))
    for rows, page_size in cases:
        times = np.cumsum(rng.integers(-5, 60, rows)).astype(np.int64)
        bounds = chunk.page_bounds(rows, page_size)
        args = (times, bounds, compressor, encoding)
        _same_chunk(chunk.time_chunk(*args), per_page_path(chunk.time_chunk, *args))


@pytest.mark.parametrize("compressor", _COMPRESSORS, ids=lambda c: c.name)
def test_a_stored_size_of_another_uvarint_length_than_the_body_is_placed_right(
    per_page_path, compressor
):
    """The encoder puts a compressed page right after a header sized for a stored size as long
    (in uvarint bytes) as the body's; these pages' stored sizes are longer (random 126-byte
    bodies: Snappy adds 3 bytes, 129 needs two uvarint bytes) or shorter (zeros compress below
    128) than that, on both sides of the page statistics."""
    rng = np.random.default_rng(5)
    rows = 15 * 7  # INT64 PLAIN, 15 rows a page: 4 + 2 + 120 = 126-byte bodies
    times = np.arange(rows, dtype=np.int64)
    bounds = chunk.page_bounds(rows, 15)
    noise = rng.integers(-(2**62), 2**62, rows, dtype=np.int64)
    for values in (noise, np.zeros(rows, np.int64), np.where(times % 30 < 15, noise, 0)):
        args = ("s", T.INT64, E.PLAIN, compressor, values, None, times, bounds)
        _same_chunk(chunk.value_chunk(*args), per_page_path(chunk.value_chunk, *args))


def test_encode_pages_refuses_what_it_does_not_handle():
    values = np.arange(10, dtype=np.int64)
    with pytest.raises(ValueError, match="not handled"):
        chunk_encode.encode_pages(values, [0, 10], int(E.TS_2DIFF), int(T.INT64), 3)
    with pytest.raises(ValueError, match="offsets"):
        chunk_encode.encode_pages(values, [0, 9], int(E.TS_2DIFF), int(T.INT64), 0)
    with pytest.raises(ValueError, match="offsets"):
        chunk_encode.encode_pages(values, [0, 6, 4, 10], int(E.TS_2DIFF), int(T.INT64), 0)
    with pytest.raises(TypeError, match="int32"):  # never a silent cast
        chunk_encode.encode_pages(values, [0, 10], int(E.TS_2DIFF), int(T.INT32), 0)
    with pytest.raises(ValueError, match="value_times"):
        chunk_encode.encode_pages(
            values, [0, 5, 10], int(E.TS_2DIFF), int(T.INT64), 0, value_times=values[:9]
        )
    with pytest.raises(ValueError, match="segments"):
        chunk_encode.encode_pages(
            values,
            [0, 5, 10],
            int(E.TS_2DIFF),
            int(T.INT64),
            0,
            value_times=values,
            segments=([0, 4], [1]),
        )


# -- files: threads, errors ------------------------------------------------------------------------


def _schema():
    from tsfile.schema import ColumnSchema, TableSchema
    from tsfile.types import ColumnCategory

    cols = [ColumnSchema("device", T.STRING, ColumnCategory.TAG)]
    cols += [ColumnSchema(f"f{i}", T.INT64, ColumnCategory.FIELD) for i in range(3)]
    cols += [ColumnSchema("d", T.DOUBLE, ColumnCategory.FIELD)]
    return TableSchema("t", cols)


def _write(path, seed, rows=50_000):
    from tsfile.writer import TsFileTableWriter

    rng = np.random.default_rng(seed)
    with TsFileTableWriter(
        str(path), _schema(), compression=Compressor.SNAPPY, overwrite=True
    ) as w:
        for dev in ("a", "b"):
            ts = np.cumsum(rng.integers(1, 3, rows)).astype(np.int64)
            cols = {f"f{i}": np.cumsum(rng.integers(-9, 10, rows)) for i in range(3)}
            cols["d"] = rng.normal(size=rows)
            w.write_arrays(ts, {"device": dev, **cols})


def test_writers_in_two_threads_write_the_one_thread_files(tmp_path, per_page_path):
    for seed in (1, 2):
        per_page_path(_write, tmp_path / f"ref{seed}.tsfile", seed)
    errors = []

    def run(seed):
        try:
            _write(tmp_path / f"t{seed}.tsfile", seed)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(s,)) for s in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for seed in (1, 2):
        got = (tmp_path / f"t{seed}.tsfile").read_bytes()
        assert got == (tmp_path / f"ref{seed}.tsfile").read_bytes()


def test_a_refused_column_still_names_column_and_row_and_leaves_a_readable_file(tmp_path):
    from tsfile.schema import ColumnSchema, TableSchema
    from tsfile.types import ColumnCategory
    from tsfile.writer import TsFileTableWriter

    schema = TableSchema(
        "t",
        [
            ColumnSchema("device", T.STRING, ColumnCategory.TAG),
            ColumnSchema("ok", T.INT64, ColumnCategory.FIELD),  # the C path
            ColumnSchema("bad", T.INT64, ColumnCategory.FIELD, E.SPRINTZ),  # refuses MIN_VALUE
        ],
    )
    path = tmp_path / "f.tsfile"
    ts = np.arange(1000, dtype=np.int64)
    good = np.arange(1000, dtype=np.int64)
    bad = np.zeros(1000, dtype=np.int64)
    bad[500] = np.iinfo(np.int64).min  # its prediction error is MIN_VALUE (format notes 8.9)
    with TsFileTableWriter(str(path), schema, compression=Compressor.SNAPPY) as w:
        w.write_arrays(ts, {"device": "a", "ok": good, "bad": good})
        w.flush()
        with pytest.raises(EncodeError, match=r"column 'bad'.*at time 1500"):
            w.write_arrays(ts + 1000, {"device": "b", "ok": good, "bad": bad})
        w.write_arrays(ts + 2000, {"device": "c", "ok": good, "bad": good})
    got = tsfile.read_table(str(path), "t")  # the refused call left nothing behind
    assert got["ok"].tolist() == good.tolist() * 2
    assert got["time"].tolist() == ts.tolist() + (ts + 2000).tolist()


def test_threads_option_writes_the_one_thread_file(tmp_path):
    from tsfile.writer import TsFileTableWriter

    rng = np.random.default_rng(5)
    rows = 30_000
    ts = np.cumsum(rng.integers(1, 3, rows)).astype(np.int64)
    cols = {f"f{i}": np.cumsum(rng.integers(-9, 10, rows)) for i in range(3)}
    cols["d"] = rng.normal(size=rows)
    files = []
    for threads in (1, 2, 3):
        path = tmp_path / f"t{threads}.tsfile"
        with TsFileTableWriter(
            str(path), _schema(), compression=Compressor.SNAPPY, page_size=1000, threads=threads
        ) as w:
            for dev in ("a", "b", "c"):
                w.write_arrays(ts, {"device": dev, **cols})
        files.append(path.read_bytes())
    assert files[0] == files[1] == files[2]


def test_threads_option_raises_the_first_failing_column_of_the_group(tmp_path, monkeypatch):
    import tsfile.writer as writer_module

    path = tmp_path / "f.tsfile"
    w = writer_module.TsFileTableWriter(str(path), _schema(), threads=2)
    ts = np.arange(100, dtype=np.int64)
    row = {"device": "a", **{f"f{i}": ts for i in range(3)}, "d": ts * 0.5}
    w.write_arrays(ts, row)
    real = writer_module._value_chunk

    def f1_and_f2_fail(dev, table, column, *rest):
        if column.column_name in ("f1", "f2"):
            raise EncodeError(f"column {column.column_name!r} refused")
        return real(dev, table, column, *rest)

    monkeypatch.setattr(writer_module, "_value_chunk", f1_and_f2_fail)
    with pytest.raises(EncodeError, match="'f1'"):  # as one thread meets them: f1 first
        w.flush()
    monkeypatch.setattr(writer_module, "_value_chunk", real)
    w.write_arrays(ts + 100, row)
    w.close()
    got = tsfile.read_table(str(path), "t")  # the refused group is not in the file
    assert got["time"].tolist() == (ts + 100).tolist()


@pytest.mark.parametrize("threads", [0, -1, 1.5, True])
def test_threads_option_is_checked(tmp_path, threads):
    from tsfile.writer import TsFileTableWriter

    with pytest.raises((TypeError, ValueError)):
        TsFileTableWriter(str(tmp_path / "x.tsfile"), _schema(), threads=threads)
    assert not (tmp_path / "x.tsfile").exists()


# -- the chunks' output memory: pooled, reused once a chunk is dropped ----------------------------


def _a_chunk(rows=50_000, seed=0):
    values = np.cumsum(np.random.default_rng(seed).integers(-100, 101, rows)).astype(np.int64)
    bounds = chunk.page_bounds(rows, 10_000)
    data, _ = chunk_encode.encode_pages(
        values,
        bounds,
        int(E.TS_2DIFF),
        int(T.INT64),
        int(Compressor.SNAPPY),
        bounds=bounds,
        value_times=np.arange(rows, dtype=np.int64),
    )
    return data


def test_chunk_data_is_bytes_like_and_its_memory_is_reused():
    chunk_encode.release_pool()
    data = _a_chunk()
    expect = bytes(data)
    assert len(data) == len(expect) and b"".join([data]) == expect
    assert memoryview(data).readonly
    assert chunk_encode.pool_info() == (0, 0)
    del data  # its memory goes to the pool ...
    assert chunk_encode.pool_info()[0] == 1
    again = _a_chunk()  # ... and the next chunk takes it
    assert chunk_encode.pool_info() == (0, 0)
    assert bytes(again) == expect
    del again
    chunk_encode.release_pool()
    assert chunk_encode.pool_info() == (0, 0)


def test_chunk_data_still_exported_is_not_reused():
    """A view of the data (the writer's writev) keeps the memory out of the pool."""
    data = _a_chunk(seed=1)
    expect = bytes(data)
    view = memoryview(data)
    del data
    others = [_a_chunk(seed=2) for _ in range(3)]
    assert view.tobytes() == expect
    del others, view


def test_the_pool_keeps_a_bounded_amount_of_memory():
    chunk_encode.release_pool()
    datas = [_a_chunk(rows=rows) for rows in (10, 1000, 50_000, 300_000, 2_000_000) * 3]
    del datas
    blocks, held = chunk_encode.pool_info()
    assert blocks <= 8 and held <= 128 << 20
    assert blocks >= 1
    chunk_encode.release_pool()


def test_page_limits_come_from_the_codec_rows():
    """One definition: the most values a page may hold on the C path is the codec row's
    max_page_values (RLE and ZIGZAG block headers, ALP's 32-bit count), set where each codec
    refuses a larger page in its encode(); no limit for the others."""
    assert chunk_encode.page_limit(int(E.RLE), int(T.INT32)) == 0x7FFFFFF
    assert chunk_encode.page_limit(int(E.RLE), int(T.BOOLEAN)) == 0x7FFFFFF
    assert chunk_encode.page_limit(int(E.ZIGZAG), int(T.INT64)) == 0x0FFFFFFF
    assert chunk_encode.page_limit(int(E.ALP), int(T.DOUBLE)) == 0xFFFFFFFF
    assert chunk_encode.page_limit(int(E.TS_2DIFF), int(T.INT64)) is None
    assert chunk_encode.page_limit(int(E.PLAIN), int(T.DOUBLE)) is None
    assert chunk_encode.page_limit(int(E.RLE), int(T.STRING)) is None  # no such row


@pytest.mark.parametrize("encoding", [E.RLE, E.ZIGZAG, E.ALP], ids=lambda e: e.name)
def test_a_page_beyond_the_codecs_limit_takes_the_per_page_path(monkeypatch, encoding):
    """RLE / ZIGZAG / ALP refuse pages beyond their block headers' counts in encode(); the C path
    takes only pages within chunk_encode.page_limit(), so the refusal stays the per-page path's."""
    data_type = T.DOUBLE if encoding == E.ALP else T.INT64
    values = np.arange(20).astype(_VALUE_DTYPES[data_type])
    times = np.arange(20, dtype=np.int64)
    calls = []
    real = chunk_encode.ChunkEncoder

    def counted(*args, **kw):
        calls.append(1)
        return real(*args, **kw)

    monkeypatch.setattr(chunk_encode, "ChunkEncoder", counted)
    monkeypatch.setattr(chunk_encode, "page_limit", lambda enc, dt: 10)
    for page_size, in_c in ((10, True), (11, False)):
        calls.clear()
        bounds = chunk.page_bounds(20, page_size)
        args = ("s", data_type, encoding, Compressor.SNAPPY, values, None, times, bounds)
        built = chunk.value_chunk(*args)
        assert bool(calls) == in_c
        monkeypatch.setattr(chunk, "WHOLE_CHUNKS_IN_C", False)
        _same_chunk(built, chunk.value_chunk(*args))
        monkeypatch.setattr(chunk, "WHOLE_CHUNKS_IN_C", True)


# -- a chunk's pages in several ranges (ChunkEncoder, writer threads) ------------------------------


def _run_ranges(build, order="forward"):
    """Run a ChunkBuild's jobs in some order (reversed, or all at once on threads)."""
    jobs = list(build.jobs)
    if order == "threads":
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(len(jobs)) as pool:
            for f in [pool.submit(job) for job in jobs]:
                f.result()
    else:
        for job in reversed(jobs) if order == "reversed" else jobs:
            job()
    return build.finish()


# page lengths where TS_2DIFF's carried min_delta matters: 1 mod 129 (a last block without
# deltas), pages of one value (the carry passes through them), pages of 129 + 1 values
_RANGE_CASES = ((1, 10), (7, 1), (1001, 1000), (2001, 1000), (1300, 130), (3000, 259), (9000, 700))


@pytest.mark.parametrize("compressor", _COMPRESSORS, ids=lambda c: c.name)
@pytest.mark.parametrize("encoding", [E.TS_2DIFF, E.PLAIN], ids=lambda e: e.name)
def test_time_chunks_in_page_ranges_are_the_per_page_bytes(per_page_path, compressor, encoding):
    rng = np.random.default_rng(21)
    # LZ4 chunks take the C path only with a liblz4 that gives the per-page bytes (a system
    # library, not a dependency): without it, one job on the per-page path, same bytes
    in_c = chunk_encode.supports(int(encoding), int(T.VECTOR), int(compressor))
    assert in_c or compressor == Compressor.LZ4
    for rows, page_size in _RANGE_CASES:
        times = np.cumsum(rng.integers(-5, 60, rows)).astype(np.int64)
        bounds = chunk.page_bounds(rows, page_size)
        want = per_page_path(chunk.time_chunk, times, bounds, compressor, encoding)
        for ranges in (1, 2, 3, 5, 64):
            for order in ("forward", "reversed", "threads"):
                build = chunk.time_chunk_build(times, bounds, compressor, encoding, ranges=ranges)
                assert len(build.jobs) == (min(ranges, len(bounds) - 1) if in_c else 1)
                _same_chunk(_run_ranges(build, order), want)


@pytest.mark.parametrize("compressor", _COMPRESSORS, ids=lambda c: c.name)
@pytest.mark.parametrize(("encoding", "data_type"), _C_PAIRS, ids=lambda x: x.name)
def test_value_chunks_in_page_ranges_are_the_per_page_bytes(
    per_page_path, encoding, data_type, compressor
):
    """Bytes and chunk statistics (sums merged page by page in order, the write segments' sums
    in the official writer's order) whatever the ranges and the order they run in."""
    rng = np.random.default_rng(int(encoding) * 7 + int(data_type))
    for rows, page_size in _RANGE_CASES:
        times = np.cumsum(rng.integers(1, 3, rows)).astype(np.int64)
        bounds = chunk.page_bounds(rows, page_size)
        # write segments inside pages and across their bounds (sums in two lanes per segment)
        runs = np.unique(np.r_[0, rng.integers(0, rows, 6)]).astype(np.int64)
        segments = np.union1d(np.asarray(bounds, dtype=np.int64), runs)
        for null_rate in (None, 0.3):
            values = _values(rng, data_type, rows)
            present = None
            if null_rate is not None:
                present = rng.random(rows) >= null_rate
                if rows > page_size:  # one page with every row null
                    present[:page_size] = False
                values = values[present]
            args = ("s", data_type, encoding, compressor, values, present, times, bounds)
            want = per_page_path(chunk.value_chunk, *args, segments)
            for ranges in (1, 2, 3, 64):
                for order in ("reversed", "threads"):
                    build = chunk.value_chunk_build(*args, segments, ranges=ranges)
                    _same_chunk(_run_ranges(build, order), want)


def test_a_range_is_encoded_once_and_the_result_needs_every_range():
    values = np.arange(5000, dtype=np.int64)
    bounds = chunk.page_bounds(5000, 1000)
    enc = chunk_encode.ChunkEncoder(
        values,
        bounds,
        int(E.TS_2DIFF),
        int(T.INT64),
        0,
        bounds=bounds,
        value_times=values,
        ranges=2,
    )
    assert enc.ranges == 2
    enc.encode(1)
    with pytest.raises(ValueError, match="range 1 was encoded"):
        enc.encode(1)
    with pytest.raises(ValueError, match="range 0 is not encoded"):
        enc.result()
    with pytest.raises(IndexError):
        enc.encode(2)
    with pytest.raises(ValueError, match="ranges"):
        chunk_encode.ChunkEncoder(values, bounds, int(E.TS_2DIFF), int(T.INT64), 0, ranges=0)
    enc.encode(0)
    data, stats = enc.result()
    one, one_stats = chunk_encode.encode_pages(
        values, bounds, int(E.TS_2DIFF), int(T.INT64), 0, bounds=bounds, value_times=values
    )
    assert b"".join(bytes(d) for d in data) == bytes(one) and stats == one_stats
    with pytest.raises(ValueError, match="taken"):  # handed over: the encoder keeps none
        enc.result()


def test_an_encoder_is_initialized_once():
    """__init__ again (Python allows the call) would point the job at other arrays and drop the
    ones a range being encoded on another thread reads without the GIL, and leak the range
    tables: refused, the encoder keeps its chunk."""
    values = np.arange(5000, dtype=np.int64)
    bounds = chunk.page_bounds(5000, 1000)
    args = (int(E.TS_2DIFF), int(T.INT64), 0)
    enc = chunk_encode.ChunkEncoder(values, bounds, *args, ranges=2)
    enc.encode(0)
    with pytest.raises(TypeError, match="once"):
        enc.__init__(values[:10], [0, 10], *args, ranges=1)
    assert enc.ranges == 2
    enc.encode(1)
    data, _ = enc.result()
    one, _ = chunk_encode.encode_pages(values, bounds, *args)
    assert b"".join(bytes(d) for d in data) == bytes(one)


def test_written_chunk_data_goes_back_to_the_pool_while_its_group_is_built():
    """The encoder hands its data over (result()): once the writer drops a written chunk's
    parts, their memory is pooled for the next chunk, even while the build (jobs, encoder)
    is still referenced by its group."""
    chunk_encode.release_pool()
    rows = 50_000
    values = np.cumsum(np.random.default_rng(4).integers(-100, 101, rows)).astype(np.int64)
    bounds = chunk.page_bounds(rows, 10_000)
    build = chunk.value_chunk_build(
        "s", T.INT64, E.TS_2DIFF, Compressor.SNAPPY, values, None, values, bounds, ranges=2
    )
    built = build.run()
    built.parts = None  # written (TsFileWriter._stream_chunk_group)
    assert chunk_encode.pool_info()[0] == 2  # both ranges' memory, with `build` alive
    del build
    chunk_encode.release_pool()
