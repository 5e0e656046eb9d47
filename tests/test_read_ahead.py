"""Time chunks decoded while a many-file read is still planning (tsfile._read.ahead): the result
is the same as with one thread whatever the reservation's estimate proves to be, a file failing in
its time chunk is named (or skipped) as without the pipeline, a planning failure stops the helper
before any reader closes, and the engine's prepared batches run once."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest

import tsfile
from tsfile._read import ahead, engine
from tsfile.errors import CorruptDataError, TsFileError
from tsfile.reader import TsFileReader
from tsfile.types import ColumnCategory, TSDataType
from tsfile.writer import TsFileWriter


def _write(path, k, rows, noisy=True, extra_column=False):
    """File ``k``: two devices, ``rows`` rows each from time k * 10**6 (several pages per chunk
    and two chunk groups per device); ``noisy``: random values (few rows per stored byte), else
    constant ones (many)."""
    cols = [
        tsfile.ColumnSchema("id", TSDataType.STRING, ColumnCategory.TAG),
        tsfile.ColumnSchema("v", TSDataType.INT64, ColumnCategory.FIELD),
    ]
    if extra_column:
        cols.append(tsfile.ColumnSchema("w", TSDataType.INT64, ColumnCategory.FIELD))
    rng = np.random.default_rng(k)
    w = TsFileWriter(str(path), overwrite=True, page_size=64)
    w.register_table(tsfile.TableSchema("m", cols))
    for half in range(2):
        for dev in ("a", "b"):
            n = rows // 2
            t = np.arange(n, dtype=np.int64) * (1 if noisy else 1) + k * 10**6 + half * n
            v = rng.integers(-(10**12), 10**12, n) if noisy else np.full(n, 7, np.int64)
            data = {"id": dev, "v": v}
            if extra_column:
                data["w"] = v
            w.write_arrays("m", t, data)
        w.flush()
    w.close()
    return str(path)


def _one_by_one(paths, **kw):
    parts = [tsfile.read_table(p, "m", **kw) for p in paths]
    return {key: np.concatenate([np.asarray(p[key]) for p in parts]) for key in parts[0]}


def _equal(got, want):
    assert list(got) == list(want)
    for key in want:
        assert np.asarray(got[key]).tolist() == want[key].tolist(), key


@pytest.fixture
def used(monkeypatch):
    """The helper woken for every job (not only every _WAKE_VALUES values), and the number of time
    jobs the read took from it (so a test can tell the pipeline ran)."""
    monkeypatch.setattr(ahead, "_WAKE_VALUES", 1)
    monkeypatch.setattr(ahead, "_RESERVE_MIN_EXTRA", 0)  # these files are small
    hits = [0]
    original = ahead.TimesAhead.result_of

    def counting(self, i, start):
        got = original(self, i, start)
        hits[0] += got is not None
        return got

    monkeypatch.setattr(ahead.TimesAhead, "result_of", counting)
    return hits


@pytest.mark.parametrize(
    "shape",
    ["alike", "first small (estimate too low)", "first dense (estimate far too high)"],
)
@pytest.mark.parametrize("threads", [2, 3])
def test_the_result_is_the_one_thread_result_whatever_the_estimate(
    tmp_path, used, monkeypatch, shape, threads
):
    specs = [(600, True)] * 6
    if shape.startswith("first small"):
        specs = [(40, True)] + [(1200, True)] * 5
    elif shape.startswith("first dense"):
        specs = [(4000, False)] + [(200, True)] * 5
    paths = [_write(tmp_path / f"p{k}.tsfile", k, n, noisy) for k, (n, noisy) in enumerate(specs)]
    want = _one_by_one(paths)
    kept = []
    original = ahead.TimesAhead.adopt_times

    def adopting(self, cap):
        reserved = self.ts
        got = original(self, cap)
        kept.append(got is reserved)
        return got

    monkeypatch.setattr(ahead.TimesAhead, "adopt_times", adopting)
    for kw in ({}, {"start_time": 10**6 + 50, "end_time": 4 * 10**6 + 90}):
        got = tsfile.read_table(paths, "m", threads=threads, **kw)
        _equal(got, _one_by_one(paths, **kw) if kw else want)
        _equal(got, tsfile.read_table(paths, "m", threads=1, **kw))
    assert used[0] > 0  # the time phase took jobs decoded while the files were planned
    # the reservation was kept when the files are alike, else the rows were copied out of it
    assert kept[0] == (shape == "alike")


def test_a_reservation_far_too_large_is_not_kept(tmp_path, used, monkeypatch):
    paths = [_write(tmp_path / "p0.tsfile", 0, 4000, noisy=False)]
    paths += [_write(tmp_path / f"p{k}.tsfile", k, 200) for k in range(1, 6)]
    reserved = []
    original = ahead.TimesAhead._reserve

    def recording(self):
        original(self)
        reserved.append(len(self.ts))

    monkeypatch.setattr(ahead.TimesAhead, "_reserve", recording)
    got = tsfile.read_table(paths, "m", threads=2)
    rows = len(got["time"])
    # the first file made the estimate far too high: more than the share a result may waste
    assert reserved and reserved[0] * ahead._KEEP_SHARE > rows
    assert got["time"].base is None or got["time"].base.size < reserved[0]
    _equal(got, _one_by_one(paths))


def _damage_a_time_page(path):
    """Overwrite the start of the first page body of the second time chunk of the file: its
    metadata intact, it is planned and fails while its timestamps are decoded."""
    with TsFileReader(path) as r:
        read = r._plan_columns("m", ["v"], None, None, "auto", None, None)
        _task, group = read.groups[1]
        body = group.time_chunk.page_info()[0][0]
    with open(path, "r+b") as f:
        f.seek(body)
        f.write(b"\xff" * 12)


@pytest.mark.parametrize("threads", [1, 2])
def test_a_file_failing_in_its_time_chunks_is_named_or_skipped(tmp_path, used, threads):
    paths = [_write(tmp_path / f"p{k}.tsfile", k, 600) for k in range(5)]
    _damage_a_time_page(paths[2])
    with pytest.raises(CorruptDataError) as one_thread:
        tsfile.read_table(paths, "m", threads=1)
    with pytest.raises(CorruptDataError) as raised:
        tsfile.read_table(paths, "m", threads=threads)
    assert paths[2] in str(raised.value)
    assert str(raised.value) == str(one_thread.value)  # the same error, the same words
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = tsfile.read_table(paths, "m", threads=threads, on_error="skip")
    assert any(paths[2] in str(w.message) for w in caught)
    _equal(got, _one_by_one(paths[:2] + paths[3:]))


def test_a_planning_failure_closes_every_reader_and_raises(tmp_path, used, monkeypatch):
    paths = [_write(tmp_path / f"p{k}.tsfile", k, 600) for k in range(4)]
    paths.append(_write(tmp_path / "p4.tsfile", 4, 600, extra_column=True))  # another schema
    live, lock = set(), threading.Lock()
    original_init, original_close = TsFileReader.__init__, TsFileReader.close

    def opening(self, path):
        original_init(self, path)
        with lock:
            live.add(id(self))

    def closing(self):
        with lock:
            live.discard(id(self))
        original_close(self)

    monkeypatch.setattr(TsFileReader, "__init__", opening)
    monkeypatch.setattr(TsFileReader, "close", closing)
    with pytest.raises(TsFileError) as raised:
        tsfile.read_table(paths, "m", threads=2)
    assert "p4.tsfile" in str(raised.value)
    assert not live  # every reader closed (after the helper stopped: read_table returned)
    assert used[0] == 0  # the read failed in planning: no time phase took anything


def _prepared(path):
    r = TsFileReader(path)
    read = r._plan_columns("m", ["v"], None, None, "auto", None, None)
    groups = [g for _task, g in read.groups]
    starts, at = [], 0
    for g in groups:
        starts.append(at)
        at += g.rows
    return r, groups, starts, at


def test_a_prepared_time_batch_runs_once_and_checks_its_room(tmp_path):
    path = _write(tmp_path / "p.tsfile", 0, 600)
    r, groups, starts, total = _prepared(path)
    out = np.empty(total, np.int64)
    with r:
        tmin, tmax = np.iinfo(np.int64).min, np.iinfo(np.int64).max
        batch = r._time_batch(groups, out, starts, tmin, tmax, 0)
        with r._op() as s:
            got = batch.run(s)
            assert [n for n, _plan in got] == [g.rows for g in groups]
            with pytest.raises(ValueError, match="once"):
                batch.run(s)
            with pytest.raises(ValueError, match="outside"):
                r._time_batch(groups, out[: total - 1], starts, tmin, tmax, 0)
    assert out.tolist() == tsfile.read_table(path, "m", threads=1)["time"].tolist()


def test_run_time_batches_returns_the_batches_before_a_failing_one(tmp_path):
    good = _write(tmp_path / "good.tsfile", 0, 600)
    bad = _write(tmp_path / "bad.tsfile", 1, 600)
    _damage_a_time_page(bad)
    out = np.empty(3 * 2 * 600, np.int64)  # two devices of 600 rows a file
    tmin, tmax = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    readers, batches, at = [], [], 0
    for path in (good, bad, good):
        r, groups, starts, total = _prepared(path)
        readers.append(r)
        batches.append(r._time_batch(groups, out, [at + s for s in starts], tmin, tmax, 0))
        at += total
    scratch = engine.new_scratch()
    try:
        got = engine.run_time_batches(batches, scratch)
        assert len(got) == 1  # the good file's batch; the damaged one ended the call
        assert sum(n for n, _plan in got[0]) == 1200
        assert out[:1200].tolist() == tsfile.read_table(good, "m")["time"].tolist()
        with pytest.raises(ValueError, match="once"):
            engine.run_time_batches(batches[2:], scratch)  # every batch given is spent
    finally:
        for r in readers:
            r.close()


@pytest.mark.parametrize("close_readers", [False, True])
def test_read_into_one_closes_each_reader_after_its_last_field_job_only_when_asked(
    tmp_path, close_readers
):
    from tsfile._read import columns

    paths = [_write(tmp_path / f"p{k}.tsfile", k, 600) for k in range(4)]
    readers = [TsFileReader(p) for p in paths]
    try:
        reads = [r._plan_columns("m", None, None, None, "auto", None, None) for r in readers]
        with columns.JobPool(2) as pool:
            got = columns.read_into_one(reads, pool, close_readers=close_readers)
        assert [r._life.closed for r in readers] == [close_readers] * len(readers)
        assert got.ts.tolist() == _one_by_one(paths)["time"].tolist()
    finally:
        for r in readers:
            r.close()


def test_a_reservation_that_cannot_be_had_leaves_the_read_to_the_time_phase(
    tmp_path, used, monkeypatch
):
    paths = [_write(tmp_path / f"p{k}.tsfile", k, 600) for k in range(4)]
    original = ahead.TimesAhead._reserve
    tried = []

    def refused(self):
        tried.append(True)
        monkeypatch.setattr(ahead, "_RESERVE_MIN_EXTRA", 1 << 62)  # np.empty refuses it
        try:
            return original(self)
        finally:
            monkeypatch.setattr(ahead, "_RESERVE_MIN_EXTRA", 0)

    monkeypatch.setattr(ahead.TimesAhead, "_reserve", refused)
    got = tsfile.read_table(paths, "m", threads=2)
    assert tried == [True] and used[0] == 0  # no second try, nothing decoded ahead
    _equal(got, _one_by_one(paths))


def test_an_interrupt_before_offer_records_its_helper_still_waits_for_it(
    tmp_path, used, monkeypatch
):
    """A KeyboardInterrupt right after the helper was started, before offer() keeps its future
    (read_each then closes the reader it was planning at once, and stop() has no future to wait
    for): no reader is unmapped while the helper's engine call reads it (the call runs inside an
    operation of each of its readers)."""
    import time

    from tsfile._read import columns

    paths = [_write(tmp_path / f"p{k}.tsfile", k, 600) for k in range(4)]
    events, running = [], threading.Event()
    original_start, original_run = columns.JobPool.start, engine.run_ahead_batches
    original_close = TsFileReader.close

    def start(self, fn):
        original_start(self, fn)
        assert running.wait(10)  # the helper is inside its engine call now
        raise KeyboardInterrupt  # before offer() records the helper's future

    def slow(batches, values, s):
        events.append("run")
        running.set()
        time.sleep(0.3)
        got = original_run(batches, values, s)
        events.append("ran")
        return got

    def close(self):
        original_close(self)  # waits for the operations of other threads on its file
        events.append("closed")

    monkeypatch.setattr(columns.JobPool, "start", start)
    monkeypatch.setattr(engine, "run_ahead_batches", slow)
    monkeypatch.setattr(TsFileReader, "close", close)
    with pytest.raises(KeyboardInterrupt):
        tsfile.read_table(paths, "m", threads=2)
    assert events[:2] == ["run", "ran"] and "closed" in events  # no file unmapped under it
