"""Review of engine.run_time_batches: "every batch given is spent (it runs at most once, as with
run())". A batch named twice in one call passed the checks (each made before any batch is marked
started) and ran twice: its page plan, completed by the first run, was fed back to the second as a
row restriction, and its result came back twice."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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


# Each probe runs in a child: before the fix, a None where the engine takes a FileView, a Chunk or
# a TimeBatch was read as one (Cython lets None through a typed argument or variable): fv=None
# crashed the interpreter (SIGSEGV) when the batch ran; a None chunk or batch had its fields read
# from None's memory (here that garbage happened to raise another error).
_PROBE = """
import sys
import numpy as np
from test_read_ahead import _prepared, _write
from tsfile._read import engine

r, groups, starts, total = _prepared(_write(sys.argv[1], 0, 600))
out = np.zeros(total, np.int64)
lo, hi = np.iinfo(np.int64).min, np.iinfo(np.int64).max
args = ([g.time_chunk for g in groups], lo, hi, 0, out, starts, [g.rows for g in groups],
        [g.inside for g in groups], [g.page_lo for g in groups], [g.page_hi for g in groups])
probe = sys.argv[2]
try:
    if probe == "fv":
        engine.prepare_time_chunks(None, *args).run(engine.new_scratch())
    elif probe == "fv-old":
        engine.read_time_chunks(None, *args, engine.new_scratch())
    elif probe == "chunk":
        engine.prepare_time_chunks(r._fv, [None], lo, hi, 0, out, [0], [1], [False], [0], [-1])
    else:
        engine.run_time_batches([None], engine.new_scratch())
except TypeError:
    print("REFUSED")
"""


@pytest.mark.parametrize("probe", ["fv", "fv-old", "chunk", "batch"])
def test_a_none_for_an_engine_object_is_refused_not_read(tmp_path, probe):
    tests = Path(__file__).resolve().parent
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tests.parent), str(tests), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(tmp_path / "p.tsfile"), probe],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert done.returncode == 0, f"the child died (rc {done.returncode}): {done.stderr[-500:]}"
    assert done.stdout.strip() == "REFUSED", done.stdout + done.stderr[-500:]
