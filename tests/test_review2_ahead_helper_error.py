"""Review of the read-ahead (tsfile._read.ahead): "Nothing decoded ahead raises". An error of the
helper outside its engine call (here its scratch buffer, _SCRATCH.take(), refused once: a
MemoryError) ended the helper's thread, and TimesAhead.stop() re-raised it from the read
(Future.result()), so a read that threads=1 completes failed on two threads; the time phase could
decode every job the helper left."""

from __future__ import annotations

import threading

import numpy as np
from test_read_ahead import _one_by_one, _write  # tests/ is on sys.path (rootdir conftest)

import tsfile
from tsfile import reader as reader_module
from tsfile._read import ahead


def test_a_helper_error_outside_the_engine_leaves_the_jobs_to_the_time_phase(tmp_path, monkeypatch):
    paths = [_write(tmp_path / f"p{k}.tsfile", k, 600) for k in range(5)]
    monkeypatch.setattr(ahead, "_WAKE_VALUES", 1)
    monkeypatch.setattr(ahead, "_RESERVE_MIN_EXTRA", 0)
    pool = reader_module._SCRATCH
    original_take = pool.take
    refused = []

    def take():
        # the ahead's helper asks first (the pool's threads run no other job during planning)
        if not refused and threading.current_thread() is not threading.main_thread():
            refused.append(True)
            raise MemoryError("scratch refused once")
        return original_take()

    monkeypatch.setattr(pool, "take", take)
    got = tsfile.read_table(paths, "m", threads=2)
    assert refused == [True]  # the helper did meet the error
    want = _one_by_one(paths)
    assert list(got) == list(want)
    for key in want:
        assert np.asarray(got[key]).tolist() == want[key].tolist(), key
