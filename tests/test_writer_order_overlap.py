"""A write call written at once as its own chunk group (one device, nothing else buffered, its
rows reaching memory_threshold: the E5-2 shape) has its time order checked by the time chunk's
encode, page by page in C while the pages are in cache (ChunkEncoder(check_order=True)), not by
a pass of its own before the chunks are started (TsFileWriter._written_alone, issue 8).

Whatever the check finds is known before anything of the group is written, so a call whose times
do not rise strictly must behave exactly as the checked path does: a duplicate is refused with
nothing of that call in the file (the file stays readable), a step back is sorted, and the bytes
are those of threads=1 and of the checked path. Each for threads=None (the default: groups
streamed from one pool thread), threads=1 (every group built inline on the calling thread,
whatever its size) and threads=2.
"""

from __future__ import annotations

import numpy as np
import pytest

import tsfile
import tsfile.writer as writer_module
from tsfile._write import chunk_encode
from tsfile.schema import ColumnSchema, TableSchema
from tsfile.types import ColumnCategory, Compressor, TSDataType, TSEncoding
from tsfile.writer import TsFileTableWriter

T = TSDataType
PAGE = 1000
ROWS = 20 * PAGE


def _schema():
    cols = [ColumnSchema("device", T.STRING, ColumnCategory.TAG)]
    cols += [ColumnSchema(f"f{k}", T.INT64, ColumnCategory.FIELD) for k in range(3)]
    return TableSchema("t", cols)


def _columns(ts, device):
    return {"device": device, **{f"f{k}": ts * (k + 2) - 7 for k in range(3)}}


def _write(path, calls, *, threads, memory_threshold=1, time_compression=None):
    """Write `calls` [(device, timestamps)]; the exception of the last call (if any) is returned,
    and the writer closed (the earlier calls' rows written)."""
    with TsFileTableWriter(
        str(path),
        _schema(),
        memory_threshold,
        page_size=PAGE,
        compression=Compressor.SNAPPY,
        time_compression=time_compression,
        threads=threads,
        overwrite=True,
    ) as w:
        for k, (device, ts) in enumerate(calls):
            try:
                w.write_arrays(ts, _columns(ts, device))
            except tsfile.OutOfOrderError as exc:
                assert k == len(calls) - 1
                return exc
    return None


@pytest.fixture(params=["streamed", "inline"])
def split_everywhere(monkeypatch, request):
    # every chunk of a threads=2 group in page ranges; every group streamed (built on the pool
    # while the calling thread writes; threads=1 never streams), or, with threads=None, small
    # groups built inline
    monkeypatch.setattr(writer_module, "_RANGE_MIN_ROWS", 1)
    if request.param == "streamed":
        monkeypatch.setattr(writer_module, "_STREAM_MIN_VALUES", 0)
    else:
        monkeypatch.setattr(writer_module, "_STREAM_MIN_VALUES", 10**12)


def _faults():
    """Where a timestamp goes wrong: first pair, a page's first row (its pair straddles two
    pages), the first row of the second page range of threads=2, inside a page, the last row."""
    return [1, PAGE, ROWS // 2, ROWS // 2 + 1, 7 * PAGE + 333, ROWS - 1]


@pytest.mark.parametrize("at", _faults())
@pytest.mark.parametrize("threads", [None, 1, 2])
@pytest.mark.parametrize("time_compression", [None, Compressor.GZIP])  # C path, per-page path
def test_a_duplicate_in_a_call_written_alone_is_refused_and_nothing_of_it_is_written(
    tmp_path, split_everywhere, at, threads, time_compression
):
    first = np.arange(ROWS, dtype=np.int64) * 3
    ts = first + 10 * ROWS
    ts[at] = ts[at - 1]
    path = tmp_path / "dup.tsfile"
    exc = _write(
        path, [("a", first), ("b", ts)], threads=threads, time_compression=time_compression
    )
    assert exc is not None, "the duplicate was not refused"
    assert exc.timestamp == int(ts[at]) and exc.row == at
    got = tsfile.read_table(str(path), "t")
    assert got["time"].tolist() == first.tolist()  # the earlier call's rows, none of this one
    assert set(got["device"].tolist()) == {"a"}


@pytest.mark.parametrize("at", _faults())
@pytest.mark.parametrize("time_compression", [None, Compressor.GZIP])
def test_a_step_back_in_a_call_written_alone_is_sorted_as_the_checked_path_sorts_it(
    tmp_path, split_everywhere, at, time_compression
):
    ts = np.arange(ROWS, dtype=np.int64) * 3
    ts[at] = ts[at - 1] - 1
    calls = [("a", ts)]
    files = {}
    for threads in (None, 1, 2):
        files[threads] = tmp_path / f"t{threads}.tsfile"
        assert (
            _write(files[threads], calls, threads=threads, time_compression=time_compression)
            is None
        )
    # the checked path: the rows stay buffered (threshold not reached) and are sorted at close
    checked = tmp_path / "checked.tsfile"
    _write(checked, calls, threads=1, memory_threshold=1 << 40, time_compression=time_compression)
    want = checked.read_bytes()
    for threads, path in files.items():
        assert path.read_bytes() == want, f"threads={threads}"
    got = tsfile.read_table(str(files[2]), "t")
    assert got["time"].tolist() == np.sort(ts).tolist()
    order = np.argsort(ts, kind="stable")
    assert got["f1"].tolist() == (ts * 3 - 7)[order].tolist()


@pytest.mark.parametrize("threads", [None, 1, 2])
def test_rising_calls_written_alone_are_the_checked_paths_bytes(tmp_path, threads):
    """Several devices, each call reaching the threshold (written alone): the file of the same
    rows buffered and written by one flush at close (in device order, as the calls come)."""
    calls = [(d, np.arange(ROWS, dtype=np.int64) * 2 + k) for k, d in enumerate("abc")]
    alone, checked = tmp_path / "alone.tsfile", tmp_path / "checked.tsfile"
    _write(alone, calls, threads=threads)
    _write(checked, calls, threads=1, memory_threshold=1 << 40)
    assert alone.read_bytes() == checked.read_bytes()


def test_a_call_written_alone_makes_no_order_pass_of_its_own(tmp_path, monkeypatch):
    """The check is the encode's: neither _check_times nor the separate pass (_rising) runs."""

    def refuse(*args, **kwargs):
        raise AssertionError("a separate order check ran")

    monkeypatch.setattr(writer_module.TsFileWriter, "_rising", refuse)
    monkeypatch.setattr(writer_module.TsFileWriter, "_check_times", refuse)
    ts = np.arange(ROWS, dtype=np.int64)
    _write(tmp_path / "x.tsfile", [("a", ts), ("b", ts)], threads=2)
    assert tsfile.read_table(str(tmp_path / "x.tsfile"), "t")["time"].shape[0] == 2 * ROWS


@pytest.mark.parametrize("ranges", [1, 2, 3, 7])
def test_chunk_encoder_check_order_finds_a_fault_in_any_page_and_across_pages(ranges):
    ts = np.arange(10 * PAGE, dtype=np.int64) * 5
    bounds = list(range(0, ts.shape[0] + 1, PAGE))
    codes = (int(TSEncoding.TS_2DIFF), int(T.VECTOR), int(Compressor.SNAPPY))

    def rising(times):
        enc = chunk_encode.ChunkEncoder(
            times, bounds, *codes, times=times, ranges=ranges, check_order=True
        )
        with pytest.raises(ValueError, match="not encoded"):
            _ = enc.rising
        for r in range(enc.ranges):
            enc.encode(r)
        return enc.rising

    assert rising(ts) is True
    for at in (1, PAGE - 1, PAGE, PAGE + 1, 5 * PAGE, 10 * PAGE - 1):
        for step in (0, -1, -(10**12)):
            bad = ts.copy()
            bad[at] = bad[at - 1] + step
            assert rising(bad) is False, (at, step)
    plain = chunk_encode.ChunkEncoder(ts, bounds, *codes, times=ts)
    plain.encode(0)
    assert plain.rising is None  # not asked to check
    with pytest.raises(ValueError, match="check_order"):
        chunk_encode.ChunkEncoder(ts, bounds, *codes, check_order=True)  # no times: no check


def test_strictly_increasing_compares_across_the_whole_int64_range():
    """The check takes x < y from the sign and overflow of x - y: every pair of extreme values,
    alone, and as the one fault inside a longer rising run (the 4096-value blocks)."""
    lo, hi = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    values = [lo, lo + 1, -(2**62), -5, -1, 0, 1, 5, 2**62, hi - 1, hi]
    n = 5001
    for x in values:
        for y in values:
            pair = np.array([x, y], dtype=np.int64)
            assert chunk_encode.strictly_increasing(pair) == (x < y), (x, y)
            for at in (1, 17, 4095, 4096, 5000):
                if x - at < lo + 1 or y + (n - at) > hi - 1:
                    continue  # no room for a rising run around the pair
                run = np.empty(n, dtype=np.int64)
                run[:at] = x - np.arange(at - 1, -1, -1)  # rising to x at at - 1
                run[at:] = y + np.arange(n - at)  # rising from y at at
                assert chunk_encode.strictly_increasing(run) == (x < y), (x, y, at)


def test_a_device_whose_rows_a_ctrl_c_dropped_from_a_flush_can_be_written_again(
    tmp_path, monkeypatch
):
    """Ctrl-C while a flush writes device a's chunk group (not a call written alone: two
    devices) drops a's rows and keeps b's, whose group was started but not written, buffered.
    The writer's record of what is buffered must say so: a's rows may be written again (no stale
    span of a pointing at buffers that are gone), b's again are refused as duplicates."""
    monkeypatch.setattr(writer_module, "_STREAM_MIN_VALUES", 0)
    ts = np.arange(ROWS, dtype=np.int64)
    path = tmp_path / "interrupted.tsfile"
    w = tsfile.TsFileWriter(str(path), 1, page_size=PAGE, threads=2)
    w.register_table(_schema())
    result = writer_module._ChunkWork.result
    seen = []

    def interrupt_second_chunk(self):
        seen.append(self)
        if len(seen) == 2:
            raise KeyboardInterrupt
        return result(self)

    both = {k: np.concatenate([v, v]) for k, v in _columns(ts, "x").items() if k != "device"}
    both["device"] = np.array(["a"] * ROWS + ["b"] * ROWS, dtype=object)
    monkeypatch.setattr(writer_module._ChunkWork, "result", interrupt_second_chunk)
    with pytest.raises(KeyboardInterrupt):
        w.write_arrays("t", np.concatenate([ts, ts]), both)
    monkeypatch.setattr(writer_module._ChunkWork, "result", result)
    with pytest.raises(tsfile.OutOfOrderError):
        w.write_arrays("t", ts, _columns(ts, "b"))
    w.write_arrays("t", ts, _columns(ts, "a"))  # (and flushes b's rows)
    w.close()
    got = tsfile.read_table(str(path), "t")
    for device in "ab":
        assert got["time"][got["device"] == device].tolist() == ts.tolist()
