"""Review of the read-ahead (tsfile._read.ahead): a KeyboardInterrupt that reaches the calling
thread after planning, while TimesAhead.finish() runs (or between the planning and it), must not
close the readers while the helper still decodes their time chunks without the GIL (an unmap under
a nogil read is a crash), and must not leave the helper waiting for ever (the pool's close joins
it: the read would hang after Ctrl-C)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

TESTS = Path(__file__).resolve().parent

# Run in a child: with the defect the parent would hang in JobPool.close (the helper is never
# told to stop) or crash (a reader unmapped under the helper's decode).
_CHILD = textwrap.dedent(
    r"""
    import sys, threading, time
    sys.path.insert(0, sys.argv[1])
    import tsfile
    from tsfile._read import ahead, engine
    from tsfile.reader import TsFileReader
    from test_read_ahead import _write

    paths = [_write(f"{sys.argv[2]}/p{k}.tsfile", k, 600) for k in range(6)]
    ahead._WAKE_VALUES = 1  # the helper woken for every job, as in tests/test_read_ahead.py
    ahead._RESERVE_MIN_EXTRA = 0

    busy = threading.Event()  # the helper is inside an engine call of the ahead
    closed_while_busy = []
    original_run = engine.run_ahead_batches
    original_close = TsFileReader.close
    original_take = ahead.TimesAhead._take

    def slow_run(batches, values, s):
        if threading.current_thread() is threading.main_thread():
            return original_run(batches, values, s)
        busy.set()
        try:
            time.sleep(1.0)  # the nogil decode of a large file, as the caller goes on
            return original_run(batches, values, s)
        finally:
            busy.clear()

    def closing(self):
        if busy.is_set():
            closed_while_busy.append(self._path)
            print("CLOSED UNDER THE HELPER", self._path, flush=True)
        original_close(self)

    def take(self):
        # Ctrl-C reaches the calling thread in finish() while the helper decodes: the signal
        # can arrive at any bytecode of that thread; this places it deterministically
        if threading.current_thread() is threading.main_thread():
            assert busy.wait(10), "the helper never ran a job"
            raise KeyboardInterrupt
        return original_take(self)

    engine.run_ahead_batches = slow_run
    TsFileReader.close = closing
    ahead.TimesAhead._take = take
    try:
        tsfile.read_table(paths, "m", threads=2)
    except KeyboardInterrupt:
        print("INTERRUPTED")
    print("CLOSED_WHILE_BUSY", len(closed_while_busy))
    """
)


def test_ctrl_c_in_finish_stops_the_helper_before_the_readers_close(tmp_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS.parent), *filter(None, [env.get("PYTHONPATH")])])
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, str(TESTS), str(tmp_path)],
            capture_output=True,
            text=True,
            timeout=30,
            env=env,
        )
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(
            "read_table hung after a KeyboardInterrupt in TimesAhead.finish (the helper was "
            f"never stopped, and JobPool.close joins it); child output: {exc.stdout!r}"
        ) from exc
    assert done.returncode == 0, done.stderr[-2000:]
    assert "INTERRUPTED" in done.stdout, done.stdout + done.stderr[-2000:]
    assert "CLOSED_WHILE_BUSY 0" in done.stdout, (
        "readers were closed while the helper was still decoding their time chunks: " + done.stdout
    )
