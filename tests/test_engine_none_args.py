"""Every engine entry point that takes a FileView, a Chunk or a Scratch refuses None with a
TypeError. Cython lets None through a typed argument; these read fields of the object they are
given, so before they said `not None` (stop 23) a None crashed the interpreter (SIGSEGV): the
engine is private, but a crash is never the answer to a wrong argument. One child probes them
all (a crash there fails the test with its output, not the whole run)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

_PROBE = """
import sys
import numpy as np
from test_read_ahead import _prepared, _write
from tsfile._read import engine

r, groups, starts, total = _prepared(_write(sys.argv[1], 0, 600))
fv, g = r._fv, groups[0]
ch, s = g.time_chunk, engine.new_scratch()
vch = r._chunk(g.values[0], -1)
out = np.zeros(total, np.int64)
vals, nulls = np.zeros(total, np.int64), np.zeros(total, np.bool_)
lo, hi = np.iinfo(np.int64).min, np.iinfo(np.int64).max
plan = engine.plan_pages(ch, lo, hi)
group = (ch, plan, [g.values[0]], [vch.data_type], [vals], [nulls], 0, None)
probes = {
    "read_chunk": lambda: engine.read_chunk(None, ch.offset),
    "plan_pages": lambda: engine.plan_pages(None, lo, hi),
    "read_time_chunk fv": lambda: engine.read_time_chunk(None, ch, lo, hi, 0, out, 0, s),
    "read_time_chunk ch": lambda: engine.read_time_chunk(fv, None, lo, hi, 0, out, 0, s),
    "read_time_chunk s": lambda: engine.read_time_chunk(fv, ch, lo, hi, 0, out, 0, None),
    "page_value_ranges fv": lambda: engine.page_value_ranges(None, vch),
    "page_value_ranges ch": lambda: engine.page_value_ranges(fv, None),
    "check_aligned_pages": lambda: engine.check_aligned_pages(fv, None, vch),
    "check_aligned_pages vch": lambda: engine.check_aligned_pages(fv, ch, None),
    "read_value_chunk": lambda: engine.read_value_chunk(
        fv, None, plan, vch.data_type, 0, vals, nulls, 0, s),
    "read_value_chunks": lambda: engine.read_value_chunks(
        fv, None, plan, [g.values[0]], [vch.data_type], 0, [vals], [nulls], 0, s),
    "read_value_groups fv": lambda: engine.read_value_groups(None, [group], 0, s),
    "read_value_groups s": lambda: engine.read_value_groups(fv, [group], 0, None),
    "read_value_groups tch": lambda: engine.read_value_groups(fv, [(None, *group[1:])], 0, s),
    "touch_offsets": lambda: engine.touch_offsets(None, [ch.offset]),
    "read_nonaligned_chunk": lambda: engine.read_nonaligned_chunk(
        None, ch, lo, hi, 0, out, vals, 0, s),
}
for name, call in probes.items():
    print(name, flush=True)
    try:
        call()
    except TypeError:
        print("REFUSED", flush=True)
    else:
        print("ACCEPTED", flush=True)
"""


def test_engine_entry_points_refuse_none_for_their_objects(tmp_path):
    tests = Path(__file__).resolve().parent
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tests.parent), str(tests), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(tmp_path / "p.tsfile")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, (done.returncode, done.stdout[-2000:], done.stderr[-2000:])
    answers = done.stdout.strip().split("\n")
    pairs = dict(zip(answers[0::2], answers[1::2], strict=True))
    assert len(pairs) == 16, done.stdout
    assert set(pairs.values()) == {"REFUSED"}, pairs
