"""Review 4 of one file read on several threads (TsFileReader._read_columns_ahead).

* The reservation's estimate went by the devices KEPT by a tag filter against the table's every
  device: a filter keeping 4 devices of 40 reserved rows for 40 kept ones, the read never took
  the reserved arrays, and everything decoded ahead was decoded again (or, for a large file, a
  reservation many times the result was asked of the pool).
* A reader closed by another thread while read_columns(threads=2) runs: a ClosedError or the
  whole result, never a crash or a partial result.

Results are checked against one thread, exactly."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from test_read_one_file_ahead import _as_lists, _write  # tests/ is on sys.path

import tsfile
from tsfile._read import ahead
from tsfile.errors import ClosedError
from tsfile.reader import TsFileReader


@pytest.fixture
def adopted(monkeypatch):
    seen = {}
    original = ahead.TimesAhead.adopt_times

    def adopt_times(self, cap):
        ts = original(self, cap)
        seen.update(cap=cap, kept=self._kept, groups=len(self._values_done))
        return ts

    monkeypatch.setattr(ahead.TimesAhead, "adopt_times", adopt_times)
    return seen


def test_a_tag_filter_estimates_by_the_devices_looked_at(tmp_path, adopted):
    path = _write(tmp_path / "f.tsfile", [20_000] * 40)
    keep = tsfile.tag_eq("id", "d003") | tsfile.tag_eq("id", "d017")
    keep = keep | tsfile.tag_eq("id", "d018") | tsfile.tag_eq("id", "d031")
    got = _as_lists(tsfile.read_table(path, "m", tag_filter=keep, threads=2))
    assert adopted["cap"] == 80_000
    assert adopted["kept"] and adopted["groups"] > 0  # before: a tenfold reservation, dropped
    assert got == _as_lists(tsfile.read_table(path, "m", tag_filter=keep, threads=1))
    assert sorted(set(got["id"])) == ["d003", "d017", "d018", "d031"]


@pytest.mark.parametrize("delay", [0.0, 0.002, 0.01, 0.03])
def test_a_reader_closed_by_another_thread_during_a_read_on_two_threads(tmp_path, delay):
    path = _write(tmp_path / "f.tsfile", [30_000] * 12)
    with TsFileReader(path) as r:
        want = r.read_columns("m", threads=1)
    for _ in range(3):
        r = TsFileReader(path)
        out = {}

        def read(r=r, out=out):
            try:
                out["got"] = r.read_columns("m", threads=2)
            except ClosedError as exc:
                out["closed"] = exc

        t = threading.Thread(target=read)
        t.start()
        time.sleep(delay)
        r.close()
        t.join(timeout=120)
        assert not t.is_alive()  # no hang
        assert set(out) in ({"got"}, {"closed"})
        if "got" in out:
            names, types, ts, cols, nulls = out["got"]
            assert names == want[0] and np.array_equal(ts, want[2])
            for n in names[1:]:
                assert np.array_equal(cols[n], want[3][n]), n
            assert list(nulls) == list(want[4])
            for n in nulls:
                assert np.array_equal(nulls[n], want[4][n]), n


@pytest.mark.parametrize("where", ["prepare_time_chunks", "prepare_value_groups"])
def test_ctrl_c_while_a_portion_is_prepared_leaves_the_reader_closable(
    tmp_path, monkeypatch, where
):
    """offer() prepares a portion's jobs inside an operation of the reader: a KeyboardInterrupt
    there must end that operation (else close() waits for it for ever) and stop the helper."""
    from tsfile import reader as reader_mod
    from tsfile._read import engine

    monkeypatch.setattr(reader_mod, "_PORTION_ROWS", 1)  # a portion per device
    monkeypatch.setattr(ahead, "_WAKE_VALUES", 1)
    path = _write(tmp_path / "f.tsfile", [3_000] * 8)
    want = _as_lists(tsfile.read_table(path, "m", threads=1))
    original = getattr(engine, where)
    calls = []

    def interrupted(*args):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return original(*args)

    monkeypatch.setattr(engine, where, interrupted)
    r = TsFileReader(path)
    with pytest.raises(KeyboardInterrupt):
        r.read_columns("m", threads=2)
    closer = threading.Thread(target=r.close)
    closer.start()
    closer.join(timeout=30)
    assert not closer.is_alive()  # no operation left open
    monkeypatch.setattr(engine, where, original)
    assert _as_lists(tsfile.read_table(path, "m", threads=2)) == want
