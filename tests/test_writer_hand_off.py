"""A write call written on its own as a chunk group (rows reaching memory_threshold) leaves its
last chunk's write to a pool thread and returns (TsFileWriter._stream_chunk_group, hand_off):
the file must be the same, the group indexed before anything else touches the file, and a
failure of that write must surface (next call, flush, close) and leave a readable file.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import tsfile
import tsfile.writer as writer_module
from tsfile.schema import ColumnSchema, TableSchema
from tsfile.types import ColumnCategory, Compressor, TSDataType
from tsfile.writer import TsFileTableWriter

ROWS = 3000


def _schema():
    cols = [ColumnSchema("device", TSDataType.STRING, ColumnCategory.TAG)]
    cols += [ColumnSchema(f"f{k}", TSDataType.INT64, ColumnCategory.FIELD) for k in range(3)]
    return TableSchema("t", cols)


def _call(device, start):
    ts = np.arange(start, start + ROWS, dtype=np.int64)
    return ts, {"device": device, **{f"f{k}": ts * (k + 2) - 5 for k in range(3)}}


def _writer(path, threads, memory_threshold=1):
    return TsFileTableWriter(
        str(path),
        _schema(),
        memory_threshold,
        compression=Compressor.SNAPPY,
        page_size=500,
        threads=threads,
    )


@pytest.fixture(autouse=True)
def _streamed(monkeypatch):
    monkeypatch.setattr(writer_module, "_STREAM_MIN_VALUES", 0)  # every group on the pool


class _FailsOffTheCaller:
    """The file, but a write from another thread than the one that made this (the handed-off
    last chunk) fails with ENOSPC, once."""

    def __init__(self, real):
        self.real = real
        self.caller = threading.get_ident()
        self.failed = 0

    def writelines(self, parts):
        if threading.get_ident() != self.caller and not self.failed:
            self.failed += 1
            raise OSError(28, "No space left on device")
        self.real.writelines(parts)

    def __getattr__(self, name):
        return getattr(self.real, name)


@pytest.mark.parametrize("threads", [None, 2, 4])  # None: the default, one pool thread
def test_calls_written_alone_hand_off_their_last_write_and_give_the_same_file(tmp_path, threads):
    calls = [_call(d, 1000 * k) for k, d in enumerate("abc")]  # device order: as a flush
    ref = tmp_path / "ref.tsfile"
    with _writer(ref, 1, memory_threshold=1 << 40) as w:  # all buffered, one flush at close
        for ts, cols in calls:
            w.write_arrays(ts, cols)
    path = tmp_path / "alone.tsfile"
    with _writer(path, threads) as w:
        for ts, cols in calls:
            w.write_arrays(ts, cols)
            assert w._writer._pending is not None  # its last chunk was handed to the pool
    assert path.read_bytes() == ref.read_bytes()


def test_flush_settles_a_handed_off_write_and_indexes_its_group(tmp_path):
    path = tmp_path / "f.tsfile"
    w = _writer(path, 2)
    w.write_arrays(*_call("a", 0))
    w.flush()
    assert w._writer._pending is None
    assert ("t", "a") in w._writer._devices
    w.close()
    assert tsfile.read_table(str(path), "t")["time"].shape[0] == ROWS


@pytest.mark.parametrize("then", ["write", "flush", "close"])
def test_a_failed_handed_off_write_is_raised_later_and_the_file_ends_before_its_group(
    tmp_path, then
):
    """The last chunk of "b" (written alone) cannot be written: the next call that writes,
    flush() or close() raises the OSError naming "b"; close() cuts the file back to the end of
    "a" (written before) and completes it."""
    ref = tmp_path / "ref.tsfile"
    with _writer(ref, 2) as w:
        w.write_arrays(*_call("a", 0))
    path = tmp_path / "f.tsfile"
    w = _writer(path, 2)
    w.write_arrays(*_call("a", 0))
    real = w._writer._file
    w._writer._file = _FailsOffTheCaller(real)
    w.write_arrays(*_call("b", 0))  # returns while its last chunk is being written (and fails)
    if then == "write":
        with pytest.raises(OSError, match="No space left") as info:
            w.write_arrays(*_call("c", 0))
        assert any("'b'" in note for note in info.value.__notes__)
        with pytest.raises(tsfile.TsFileError, match="failed part way"):
            w.write_arrays(*_call("d", 0))
    elif then == "flush":
        with pytest.raises(OSError, match="No space left") as info:
            w.flush()
        assert any("'b'" in note for note in info.value.__notes__)
    with pytest.raises(OSError, match="No space left") if then == "close" else _nothing():
        w.close()
    assert w._writer._file.failed == 1
    assert real.closed
    assert path.read_bytes() == ref.read_bytes()


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@pytest.mark.parametrize("threads", [2, 3])
def test_a_groups_last_chunk_is_encoded_in_shorter_runs(tmp_path, monkeypatch, threads):
    """threads > 1: each chunk in `threads` page runs, the group's last one in threads x
    _LAST_CHUNK_SPLIT (the threads finish the group together); the bytes are threads=1's."""
    from tsfile._write import chunk_encode

    monkeypatch.setattr(writer_module, "_RANGE_MIN_ROWS", 100)
    calls = [_call(d, 0) for d in "ab"]
    one = tmp_path / "one.tsfile"
    with _writer(one, 1) as w:
        for ts, cols in calls:
            w.write_arrays(ts, cols)
    made = []
    real_encoder = chunk_encode.ChunkEncoder

    def recorded(*args, **kw):
        enc = real_encoder(*args, **kw)
        made.append(enc.ranges)
        return enc

    monkeypatch.setattr(chunk_encode, "ChunkEncoder", recorded)
    path = tmp_path / "more.tsfile"
    with _writer(path, threads) as w:
        for ts, cols in calls:
            w.write_arrays(ts, cols)
    # time, f0, f1 in `threads` runs, f2 (last) in more: 6 pages of 500 rows each
    last = min(threads * writer_module._LAST_CHUNK_SPLIT, ROWS // 500)
    assert made == [threads, threads, threads, last] * 2
    assert last > threads
    assert path.read_bytes() == one.read_bytes()


def test_the_series_paths_are_hashed_while_groups_are_built_not_at_close(tmp_path, monkeypatch):
    """The bloom filter's hashes of a streamed group's series are computed while the group is
    built (the caller waits then); close() hashes nothing, and the file is the same."""
    from tsfile._write import bloom

    calls = [_call(d, 0) for d in "ab"]
    ref = tmp_path / "ref.tsfile"
    with _writer(ref, 1, memory_threshold=1 << 40) as w:
        for ts, cols in calls:
            w.write_arrays(ts, cols)
    path = tmp_path / "f.tsfile"
    w = _writer(path, 2)
    for ts, cols in calls:
        w.write_arrays(ts, cols)

    def no_hashing(*args):
        raise AssertionError("close() hashed a path again")

    monkeypatch.setattr(bloom, "entry_hashes", no_hashing)
    monkeypatch.setattr(bloom, "murmur128_java", no_hashing)
    w.close()
    assert path.read_bytes() == ref.read_bytes()


def test_series_metadata_serialized_ahead_is_redone_after_another_chunk(tmp_path):
    """Series.serialize is kept from one call to the next (a writer serializes while later
    groups are built) but never outlives a new chunk: a device written again after its
    metadata was serialized gets both chunks in the index."""
    from tsfile._write.metadata import Series

    ref = tmp_path / "ref.tsfile"
    with _writer(ref, 1, memory_threshold=1 << 40) as w:
        w.write_arrays(*_call("a", 0))
        w.flush()
        w.write_arrays(*_call("b", 0))
        w.flush()
        w.write_arrays(*_call("a", 10_000))
    path = tmp_path / "f.tsfile"
    with _writer(path, 2) as w:
        w.write_arrays(*_call("a", 0))
        w.write_arrays(*_call("b", 0))  # serializes a's series while b is built
        series = w._writer._devices[("t", "a")]["f0"]
        assert series._serialized is not None
        w.write_arrays(*_call("a", 10_000))
    assert path.read_bytes() == ref.read_bytes()
    got = tsfile.read_table(str(path), "t")
    assert got["time"].shape[0] == 3 * ROWS
    fresh = Series(series.data_type)
    for offset, stats in series.chunks:
        fresh.add_chunk(offset, stats)
    assert len(series.chunks) == 2
    assert series.serialize("f0") == fresh.serialize("f0")


def test_a_build_failing_after_the_first_chunks_jobs_started_stops_them_first(
    tmp_path, monkeypatch
):
    """The time chunk's jobs are handed to the pool before the value chunks are built: when a
    value chunk's build fails, the call raises only once no job of the group is running any
    more (they read the caller's arrays), and nothing of the group is in the file."""
    import time

    from tsfile.errors import EncodeError

    running = []
    real_run = writer_module._run_chunk_job

    def slow(dev, name, job):
        running.append(name)
        time.sleep(0.05)  # still running when the build below fails
        try:
            return real_run(dev, name, job)
        finally:
            running.remove(name)

    real_value_chunk = writer_module._value_chunk

    def fails_on_f1(dev, table, column, *args):
        if column.column_name == "f1":
            raise EncodeError("column 'f1': refused by the test")
        return real_value_chunk(dev, table, column, *args)

    monkeypatch.setattr(writer_module, "_run_chunk_job", slow)
    monkeypatch.setattr(writer_module, "_value_chunk", fails_on_f1)
    ref = tmp_path / "ref.tsfile"
    with _writer(ref, 2) as w:
        pass
    path = tmp_path / "f.tsfile"
    w = _writer(path, 2)
    with pytest.raises(EncodeError, match="refused by the test"):
        w.write_arrays(*_call("a", 0))
    assert running == []
    w.close()
    assert path.read_bytes() == ref.read_bytes()
