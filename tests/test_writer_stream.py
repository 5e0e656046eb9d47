"""Large chunk groups are written chunk by chunk while their later chunks are built
(TsFileWriter._stream_chunk_group, issue 8 item 4): the file's bytes must not depend on it (nor on
the thread count), a chunk that cannot be built must leave the file as it was, and a failed write
must still leave a file that close() completes.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import tsfile
import tsfile.writer as writer_module
from tsfile.errors import EncodeError
from tsfile.schema import ColumnSchema, TableSchema
from tsfile.types import ColumnCategory, Compressor, TSDataType, TSEncoding
from tsfile.writer import TsFileTableWriter

T = TSDataType
E = TSEncoding
FIELD = ColumnCategory.FIELD


def _schema():
    cols = [
        ColumnSchema("device", T.STRING, ColumnCategory.TAG),
        ColumnSchema("i64", T.INT64, FIELD),
        ColumnSchema("i32", T.INT32, FIELD, E.TS_2DIFF),
        ColumnSchema("dbl", T.DOUBLE, FIELD, E.GORILLA),
        ColumnSchema("flt", T.FLOAT, FIELD),
        ColumnSchema("ok", T.BOOLEAN, FIELD),
        ColumnSchema("txt", T.STRING, FIELD),
        ColumnSchema("rle", T.INT32, FIELD, E.RLE),
        ColumnSchema("never", T.INT64, FIELD),  # never given: all-null chunks
    ]
    return TableSchema("t", cols)


def _calls(rows, seed):
    """(timestamps, columns, null_masks) of a few write calls: two devices, nulls in some
    columns, text, one device written twice (its buffered rows join in one chunk group)."""
    rng = np.random.default_rng(seed)
    out = []
    start = 0
    for dev in ("b", "a", "b"):
        ts = start + np.cumsum(rng.integers(1, 3, rows)).astype(np.int64)
        start = int(ts[-1]) + 1
        cols = {
            "device": dev,
            "i64": np.cumsum(rng.integers(-99, 100, rows)),
            "i32": rng.integers(-1000, 1000, rows).astype(np.int32),
            "dbl": rng.normal(size=rows),
            "flt": rng.normal(size=rows).astype(np.float32),
            "ok": rng.random(rows) < 0.5,
            "txt": np.array([f"s{k % 37}" for k in range(rows)], dtype=object),
            "rle": (np.arange(rows) // 50).astype(np.int32),
        }
        masks = {"i64": rng.random(rows) < 0.1, "txt": rng.random(rows) < 0.3}
        out.append((ts, cols, masks))
    return out


def _write(
    path, calls, *, threads=1, compression=Compressor.SNAPPY, page_size=700, flush_each=False
):
    with TsFileTableWriter(
        str(path),
        _schema(),
        compression=compression,
        page_size=page_size,
        threads=threads,
        overwrite=True,
    ) as w:
        for ts, cols, masks in calls:
            w.write_arrays(ts, cols, null_masks=masks)
            if flush_each:
                w.flush()


@pytest.mark.parametrize(
    "compression", [Compressor.UNCOMPRESSED, Compressor.SNAPPY, Compressor.LZ4, Compressor.GZIP]
)
@pytest.mark.parametrize("rows", [1, 500, 5000])
def test_streamed_chunk_groups_are_the_built_then_written_bytes(
    tmp_path, monkeypatch, compression, rows
):
    """Every thread count, streamed or not: the same file (one page and many, nulls, text,
    encodings taken by the C chunk encoder and by the per-page path)."""
    calls = _calls(rows, seed=rows)
    monkeypatch.setattr(writer_module, "_STREAM_MIN_VALUES", 10**18)  # never streamed
    _write(tmp_path / "ref.tsfile", calls, compression=compression)
    ref = (tmp_path / "ref.tsfile").read_bytes()
    monkeypatch.setattr(writer_module, "_STREAM_MIN_VALUES", 0)  # always streamed
    monkeypatch.setattr(writer_module, "_RANGE_MIN_ROWS", 100)  # chunks in page ranges too
    for threads in (None, 1, 2, 3):
        path = tmp_path / f"s{threads}.tsfile"
        _write(path, calls, threads=threads, compression=compression)
        assert path.read_bytes() == ref, f"threads={threads}"
    got = tsfile.read_table(str(tmp_path / "s2.tsfile"), "t")
    assert len(got["time"]) == 3 * rows


def test_a_large_chunk_group_is_written_while_its_last_chunk_is_being_built(tmp_path, monkeypatch):
    """The first chunks of a large group reach the file before its last chunk is built (the
    writer used to build every chunk of the group first, then write them in one call)."""
    calls = _calls(40_000, seed=3)[:1]
    written = threading.Event()
    real_run = writer_module._run_chunk_job
    seen = {}

    def last_waits_for_a_write(dev, name, job):
        if name == "never":  # the group's last chunk, built on the pool
            seen["written before the last chunk was built"] = written.wait(timeout=20)
        return real_run(dev, name, job)

    monkeypatch.setattr(writer_module, "_run_chunk_job", last_waits_for_a_write)
    path = tmp_path / "f.tsfile"
    w = TsFileTableWriter(str(path), _schema(), compression=Compressor.SNAPPY)
    real_file = w._writer._file

    class Watched:
        def writelines(self, parts):
            real_file.writelines(parts)
            written.set()

        def __getattr__(self, name):
            return getattr(real_file, name)

    w._writer._file = Watched()
    ts, cols, masks = calls[0]
    w.write_arrays(ts, cols, null_masks=masks)
    w.close()
    assert seen == {"written before the last chunk was built": True}
    assert len(tsfile.read_table(str(path), "t")["time"]) == 40_000


@pytest.mark.parametrize("threads", [None, 1, 2])  # None: the default, one pool thread
def test_a_chunk_failing_after_others_were_written_leaves_the_file_as_it_was(
    tmp_path, monkeypatch, threads
):
    """A streamed group whose 4th chunk cannot be built: its first chunks were in the file
    already; they are cut off again, the writer goes on, and the file is byte for byte the one
    written without the failing call."""
    monkeypatch.setattr(writer_module, "_STREAM_MIN_VALUES", 0)
    calls = _calls(3000, seed=9)
    ref = tmp_path / "ref.tsfile"
    _write(ref, [calls[0], calls[1]], threads=threads, flush_each=True)

    real_run = writer_module._run_chunk_job
    fail = {"on": False}

    def dbl_fails(dev, name, job):  # (a job on the pool: the chunks before it are written)
        if fail["on"] and name == "dbl":
            raise EncodeError("column 'dbl' refused (test)")
        return real_run(dev, name, job)

    monkeypatch.setattr(writer_module, "_run_chunk_job", dbl_fails)
    path = tmp_path / "f.tsfile"
    w = TsFileTableWriter(
        str(path), _schema(), compression=Compressor.SNAPPY, page_size=700, threads=threads
    )
    ts, cols, masks = calls[0]
    w.write_arrays(ts, cols, null_masks=masks)
    w.flush()
    fail["on"] = True
    ts2, cols2, masks2 = calls[2]
    w.write_arrays(ts2 + 10**9, {**cols2, "device": "c"}, null_masks=masks2)
    with pytest.raises(EncodeError, match="'dbl'"):
        w.flush()
    fail["on"] = False
    ts, cols, masks = calls[1]
    w.write_arrays(ts, cols, null_masks=masks)
    w.close()
    assert path.read_bytes() == ref.read_bytes()


def test_a_write_failing_part_way_through_a_streamed_group_tears_only_that_group(
    tmp_path, monkeypatch
):
    """The OS takes the group's header and first chunk, then the disk is full: flush raises,
    the writer refuses more rows, and close() ends the file after the last complete group."""
    monkeypatch.setattr(writer_module, "_STREAM_MIN_VALUES", 0)
    calls = _calls(2000, seed=4)
    ref = tmp_path / "ref.tsfile"
    _write(ref, calls[:1])
    path = tmp_path / "f.tsfile"
    w = TsFileTableWriter(str(path), _schema(), compression=Compressor.SNAPPY, page_size=700)
    ts, cols, masks = calls[0]
    w.write_arrays(ts, cols, null_masks=masks)
    w.flush()
    real_file = w._writer._file

    class FullAfterOne:
        writes = 0

        def writelines(self, parts):
            self.writes += 1
            if self.writes > 1:
                raise OSError(28, "No space left on device")
            real_file.writelines(parts)

        def __getattr__(self, name):
            return getattr(real_file, name)

    w._writer._file = FullAfterOne()
    ts, cols, masks = calls[1]
    w.write_arrays(ts, cols, null_masks=masks)
    with pytest.raises(OSError, match="No space left"):
        w.flush()
    with pytest.raises(tsfile.TsFileError, match="failed part way"):
        w.write_arrays(ts + 10**9, cols, null_masks=masks)
    w._writer._file = real_file
    w.close()
    assert path.read_bytes() == ref.read_bytes()


def test_rows_out_of_time_order_across_calls_are_still_sorted_at_flush(tmp_path):
    """Flush sorts only devices whose buffered rows are out of time order (the order is known
    from the write calls' checks): a device whose later call goes back in time, one whose call
    is descending, and one in order all come out as if written sorted in one call."""
    schema = TableSchema(
        "t", [ColumnSchema("device", T.STRING, ColumnCategory.TAG), ColumnSchema("v", T.INT64)]
    )
    calls = {
        "back": [np.arange(100, 200), np.arange(0, 100)],  # the second call is earlier
        "desc": [np.arange(300, 0, -1)],
        "fine": [np.arange(0, 50), np.arange(50, 400)],
    }

    def write(path, per_device):
        with TsFileTableWriter(str(path), schema, page_size=64) as w:
            for dev, parts in per_device.items():
                for ts in parts:
                    w.write_arrays(ts.astype(np.int64), {"device": dev, "v": ts * 3})

    write(tmp_path / "calls.tsfile", calls)
    write(tmp_path / "sorted.tsfile", {d: [np.sort(np.concatenate(p))] for d, p in calls.items()})
    assert (tmp_path / "calls.tsfile").read_bytes() == (tmp_path / "sorted.tsfile").read_bytes()
    got = tsfile.read_table(str(tmp_path / "calls.tsfile"), "t")
    assert got["time"].tolist()[:200] == list(range(200))


def test_a_second_interrupt_while_the_builders_are_awaited_still_leaves_a_readable_file(
    tmp_path, monkeypatch
):
    """Ctrl-C while a streamed group is being built (its first chunks are in the file), and
    Ctrl-C again while the writer waits for the chunks still being built, before it could cut
    the group off: close() must still end the file after the last complete group, not index
    the next groups at offsets that the written part of the interrupted group has moved."""
    monkeypatch.setattr(writer_module, "_STREAM_MIN_VALUES", 0)
    calls = _calls(2000, seed=6)
    real_run = writer_module._run_chunk_job
    fail = {"on": False}

    def dbl_interrupted(dev, name, job):
        if fail["on"] and name == "dbl":
            raise KeyboardInterrupt  # the first Ctrl-C, met where this chunk is awaited
        return real_run(dev, name, job)

    real_wait = writer_module.wait

    def wait_interrupted(futures):
        real_wait(futures)
        raise KeyboardInterrupt  # the second Ctrl-C

    monkeypatch.setattr(writer_module, "_run_chunk_job", dbl_interrupted)
    path = tmp_path / "f.tsfile"
    w = TsFileTableWriter(str(path), _schema(), compression=Compressor.SNAPPY, page_size=700)
    ts, cols, masks = calls[0]
    w.write_arrays(ts, cols, null_masks=masks)
    w.flush()
    fail["on"] = True
    monkeypatch.setattr(writer_module, "wait", wait_interrupted)
    ts, cols, masks = calls[1]
    w.write_arrays(ts, {**cols, "device": "c"}, null_masks=masks)
    with pytest.raises(KeyboardInterrupt):
        w.flush()
    fail["on"] = False
    monkeypatch.setattr(writer_module, "wait", real_wait)
    ts, cols, masks = calls[2]
    with pytest.raises(tsfile.TsFileError):
        w.write_arrays(ts + 10**9, {**cols, "device": "d"}, null_masks=masks)
    w.close()
    ref = tmp_path / "ref.tsfile"
    _write(ref, calls[:1])
    assert path.read_bytes() == ref.read_bytes()


@pytest.mark.parametrize("stream_min", [0, 10**18], ids=["streamed", "one-writev"])
def test_an_interrupt_after_a_groups_bytes_are_written_but_before_it_is_indexed(
    tmp_path, monkeypatch, stream_min
):
    """Ctrl-C met just after the OS took a chunk group's last bytes, before the writer recorded
    them: close() must end the file after the last indexed group (the group's bytes would
    otherwise stay in the file, unindexed, and shift every later group from its offset)."""
    monkeypatch.setattr(writer_module, "_STREAM_MIN_VALUES", stream_min)
    calls = _calls(2000, seed=7)
    ref = tmp_path / "ref.tsfile"
    _write(ref, calls[:1])
    path = tmp_path / "f.tsfile"
    w = TsFileTableWriter(str(path), _schema(), compression=Compressor.SNAPPY, page_size=700)
    ts, cols, masks = calls[0]
    w.write_arrays(ts, cols, null_masks=masks)
    w.flush()
    real_index = writer_module.TsFileWriter._index_chunk_group

    def interrupted(self, *args):
        monkeypatch.setattr(writer_module.TsFileWriter, "_index_chunk_group", real_index)
        raise KeyboardInterrupt

    monkeypatch.setattr(writer_module.TsFileWriter, "_index_chunk_group", interrupted)
    ts, cols, masks = calls[1]
    w.write_arrays(ts, {**cols, "device": "c"}, null_masks=masks)
    with pytest.raises(KeyboardInterrupt):
        w.flush()
    w.close()
    assert path.read_bytes() == ref.read_bytes()


def test_the_next_chunk_group_is_built_while_the_last_one_is_written(tmp_path, monkeypatch):
    """Two large groups in one flush, one builder thread: the second group's chunks are started
    before the first group is indexed (the builders go on from one group to the next instead of
    waiting for the writes; the writer used to start a group only after the last was indexed)."""
    calls = _calls(40_000, seed=5)[:2]  # devices "b" and "a": one group each
    second_started = threading.Event()
    real_time_chunk = writer_module.time_chunk_build
    real_index = writer_module.TsFileWriter._index_chunk_group
    builds, seen = [], []

    def counted_time_chunk(*args, **kw):
        builds.append(1)
        if len(builds) == 2:
            second_started.set()
        return real_time_chunk(*args, **kw)

    def index_waits(self, dev, *rest):
        if not seen:
            seen.append(second_started.wait(timeout=20))
        return real_index(self, dev, *rest)

    monkeypatch.setattr(writer_module, "time_chunk_build", counted_time_chunk)
    monkeypatch.setattr(writer_module.TsFileWriter, "_index_chunk_group", index_waits)
    path = tmp_path / "f.tsfile"
    _write(path, calls, page_size=10_000)
    assert seen == [True]
    monkeypatch.undo()
    ref = tmp_path / "ref.tsfile"
    monkeypatch.setattr(writer_module, "_STREAM_MIN_VALUES", 10**18)  # built then written
    _write(ref, calls, page_size=10_000)
    assert path.read_bytes() == ref.read_bytes()


@pytest.mark.parametrize("threads", [None, 1, 2])  # None: the default, one pool thread
def test_a_group_failing_while_the_next_is_built_ahead_leaves_only_the_next(
    tmp_path, monkeypatch, threads
):
    """Devices "a" and "b" in one flush: "b" is started while "a" is written; a's chunk that
    cannot be built cuts "a" off again, "b" is still written, and the flush raises a's error."""
    monkeypatch.setattr(writer_module, "_STREAM_MIN_VALUES", 0)
    calls = _calls(3000, seed=6)
    b_call = calls[0]  # device "b"
    a_call = (calls[1][0] + 10**9, calls[1][1], calls[1][2])  # device "a"
    ref = tmp_path / "ref.tsfile"
    _write(ref, [b_call], threads=threads)

    real_run = writer_module._run_chunk_job

    def a_dbl_fails(dev, name, job):
        if dev[1:] == ("a",) and name == "dbl":
            raise EncodeError("column 'dbl' refused (test)")
        return real_run(dev, name, job)

    monkeypatch.setattr(writer_module, "_run_chunk_job", a_dbl_fails)
    path = tmp_path / "f.tsfile"
    w = TsFileTableWriter(
        str(path), _schema(), compression=Compressor.SNAPPY, page_size=700, threads=threads
    )
    for ts, cols, masks in (b_call, a_call):
        w.write_arrays(ts, cols, null_masks=masks)
    with pytest.raises(EncodeError, match="'dbl'"):
        w.flush()
    w.close()
    assert path.read_bytes() == ref.read_bytes()


def test_a_write_failing_while_the_next_group_is_built_ahead_drops_that_group(
    tmp_path, monkeypatch
):
    """The disk fills while "a" is written and "b" is being built: "b" is not written (no
    chunk of it reaches the file, its builds are awaited), close() ends the file after the
    last complete group."""
    monkeypatch.setattr(writer_module, "_STREAM_MIN_VALUES", 0)
    calls = _calls(2000, seed=7)
    ref = tmp_path / "ref.tsfile"
    _write(ref, calls[:1])
    path = tmp_path / "f.tsfile"
    w = TsFileTableWriter(str(path), _schema(), compression=Compressor.SNAPPY, page_size=700)
    ts, cols, masks = calls[0]
    w.write_arrays(ts, cols, null_masks=masks)
    w.flush()
    real_file = w._writer._file
    writes = []

    class FullAfterOne:
        def writelines(self, parts):
            writes.append(1)
            if len(writes) > 1:
                raise OSError(28, "No space left on device")
            real_file.writelines(parts)

        def __getattr__(self, name):
            return getattr(real_file, name)

    w._writer._file = FullAfterOne()
    ts_a, cols_a, masks_a = calls[1]  # device "a", then "b" again
    w.write_arrays(ts_a, cols_a, null_masks=masks_a)
    ts_b, cols_b, masks_b = calls[2]
    w.write_arrays(ts_b, cols_b, null_masks=masks_b)
    with pytest.raises(OSError, match="No space left"):
        w.flush()
    assert len(writes) == 2  # a's first chunk, then the failing write: nothing of "b"
    w._writer._file = real_file
    w.close()
    assert path.read_bytes() == ref.read_bytes()


def test_a_failure_in_a_chunks_second_page_range_leaves_the_earlier_groups(tmp_path, monkeypatch):
    """threads=2 encodes every chunk of a large group in two page ranges, one per thread: the
    second range of a chunk failing (on the other thread, after the group's first chunks were
    written) cuts the group off again, flush raises an EncodeError naming table, device and
    column, and close() completes a file with the earlier groups: byte for byte the file
    written without the failing group."""
    monkeypatch.setattr(writer_module, "_STREAM_MIN_VALUES", 0)
    monkeypatch.setattr(writer_module, "_RANGE_MIN_ROWS", 500)
    calls = _calls(3000, seed=12)
    ref = tmp_path / "ref.tsfile"
    _write(ref, [calls[0], calls[1]], threads=2, flush_each=True)

    real_run = writer_module._run_chunk_job
    fail = {"on": False}
    ranges_seen = set()

    def refused():
        raise EncodeError("column 'i32': a page refused (test)")

    def second_range_fails(dev, name, job):
        if name == "i32":
            ranges_seen.add(getattr(job, "args", None))
            if fail["on"] and job.args == (1,):
                return real_run(dev, name, refused)
        return real_run(dev, name, job)

    monkeypatch.setattr(writer_module, "_run_chunk_job", second_range_fails)
    path = tmp_path / "f.tsfile"
    w = TsFileTableWriter(
        str(path), _schema(), compression=Compressor.SNAPPY, page_size=700, threads=2
    )
    ts, cols, masks = calls[0]
    w.write_arrays(ts, cols, null_masks=masks)
    w.flush()
    assert ranges_seen == {(0,), (1,)}  # the chunk was built in two ranges
    fail["on"] = True
    ts2, cols2, masks2 = calls[2]
    w.write_arrays(ts2 + 10**9, {**cols2, "device": "c"}, null_masks=masks2)
    with pytest.raises(EncodeError, match=r"table 't', device \('c',\), column 'i32'"):
        w.flush()
    fail["on"] = False
    ts, cols, masks = calls[1]
    w.write_arrays(ts, cols, null_masks=masks)
    w.close()
    assert path.read_bytes() == ref.read_bytes()
    got = tsfile.read_table(str(path), "t")
    assert len(got["time"]) == 6000


def test_strictly_increasing_finds_a_fault_anywhere():
    from tsfile._write.chunk_encode import strictly_increasing

    lo, hi = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    assert strictly_increasing(np.zeros(0, np.int64))
    assert strictly_increasing(np.array([hi], np.int64))
    assert strictly_increasing(np.array([lo, hi], np.int64))
    assert not strictly_increasing(np.array([hi, lo], np.int64))
    base = np.arange(10_000, dtype=np.int64) * 3
    assert strictly_increasing(base)
    for at in (1, 2, 4095, 4096, 4097, 8192, 9999):  # around the 4096-value blocks
        for fault in (0, -1):  # equal to, or below, the value before
            bad = base.copy()
            bad[at] = bad[at - 1] + fault
            assert not strictly_increasing(bad), (at, fault)


@pytest.mark.parametrize("threads", [2, 3])
def test_a_duplicate_timestamp_where_the_order_check_splits_is_refused(
    tmp_path, monkeypatch, threads
):
    """A large call's timestamps are checked in `threads` parts at once: a pair straddling two
    parts is compared too (a duplicate there is refused, a step back there is sorted)."""
    monkeypatch.setattr(writer_module, "_SPLIT_CHECK_MIN_ROWS", 100)
    rows = 1000
    schema = TableSchema(
        "t", [ColumnSchema("device", T.STRING, ColumnCategory.TAG), ColumnSchema("v", T.INT64)]
    )
    for cut in (k * rows // threads for k in range(1, threads)):
        ts = np.arange(rows, dtype=np.int64) * 2
        ts[cut] = ts[cut - 1]  # the first value of a part repeats the last of the one before
        with TsFileTableWriter(
            str(tmp_path / "d.tsfile"), schema, threads=threads, overwrite=True
        ) as w:
            with pytest.raises(tsfile.OutOfOrderError):
                w.write_arrays(ts, {"device": "a", "v": ts})
        ts[cut] = ts[cut - 1] - 1  # a step back: the rows are sorted
        path = tmp_path / "s.tsfile"
        with TsFileTableWriter(str(path), schema, threads=threads, overwrite=True) as w:
            w.write_arrays(ts, {"device": "a", "v": ts})
        assert tsfile.read_table(str(path), "t")["time"].tolist() == np.sort(ts).tolist()


def test_jobs_run_in_order_by_few_runners_and_cancelled_ones_are_skipped():
    """_run_in_order (the pool tasks of a chunk group's jobs): calls taken in order, a Future
    each, an error carried by its Future, a call cancelled before it is taken never runs."""
    from concurrent.futures import ThreadPoolExecutor
    from concurrent.futures import wait as wait_all

    gate = threading.Event()
    ran = []

    def boom():
        raise ZeroDivisionError("job failed (test)")

    calls = [lambda: gate.wait(20)] + [lambda k=k: ran.append(k) for k in range(5)] + [boom]
    with ThreadPoolExecutor(1) as pool:
        futures = writer_module._run_in_order(pool, 2, calls)
        assert futures[3].cancel()  # not taken yet: the first call holds the only thread
        gate.set()
        wait_all(futures)
    assert ran == [0, 1, 3, 4]
    assert futures[0].result() is True and futures[3].cancelled()
    with pytest.raises(ZeroDivisionError, match="test"):
        futures[-1].result()


def test_a_writev_that_takes_nothing_raises_instead_of_looping(tmp_path, monkeypatch):
    """os.writev returning 0 for a non-empty write (nothing taken) is an error: calling it again
    would loop for ever. A partial write still goes on from where the OS stopped."""
    calls = []
    real_writev = writer_module.os.writev

    def takes_one_byte_then_nothing(fd, buffers):
        calls.append(sum(len(b) for b in buffers))
        if len(calls) == 1:
            return real_writev(fd, [bytes(buffers[0][:1])])
        if len(calls) == 2:
            return 0
        raise AssertionError("writev called again after it took nothing")

    with open(tmp_path / "f", "xb", buffering=0) as raw:
        out = writer_module._Output(raw)
        monkeypatch.setattr(writer_module.os, "writev", takes_one_byte_then_nothing)
        with pytest.raises(OSError, match="none of the bytes"):
            out.writelines([b"abc", b"de"])
        monkeypatch.undo()
    assert calls == [5, 4]  # the second call got the 4 bytes left
    assert (tmp_path / "f").read_bytes() == b"a"
