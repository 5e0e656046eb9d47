"""Review of engine.run_time_batches: "every batch given is spent (it runs at most once, as with
run())". A batch named twice in one call passed the checks (each made before any batch is marked
started) and ran twice: its page plan, completed by the first run, was fed back to the second as a
row restriction, and its result came back twice."""

from __future__ import annotations

import numpy as np
import pytest
from test_read_ahead import _prepared, _write  # tests/ is on sys.path (rootdir conftest)

from tsfile._read import engine


def test_a_batch_named_twice_in_one_call_is_refused_and_not_run(tmp_path):
    path = _write(tmp_path / "p.tsfile", 0, 600)
    r, groups, starts, total = _prepared(path)
    with r:
        out = np.zeros(total, np.int64)
        tmin, tmax = np.iinfo(np.int64).min, np.iinfo(np.int64).max
        batch = r._time_batch(groups, out, starts, tmin, tmax, 0)
        with pytest.raises(ValueError, match="once"):
            engine.run_time_batches([batch, batch], engine.new_scratch())
        assert not out.any()  # refused before anything was decoded
