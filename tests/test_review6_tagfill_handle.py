"""Review 6: a tag column being written (tagfill.empty_column(cleared=False)) holds slots nothing
wrote yet: whatever the memory held before (the result pool hands out the memory of dropped
results: pointers to objects since freed). A read that fails half way keeps that column in its
state (columns._Decode.values), which the exception's traceback reaches: a debugger's post-mortem
(``p self.values``), a traceback printer showing locals, any repr of it dereferenced the garbage
and crashed the process. The column handed out before settle() is now a handle of no rows."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from tsfile._read import tagfill

TESTS = Path(__file__).parent

SCRIPT = textwrap.dedent(
    """
    import sys, warnings
    sys.path.insert(0, {tests!r})
    from pathlib import Path
    import tsfile
    from tsfile._read import columns
    from test_review6_tagfill_reads import _write
    from test_review4_ahead_skip import _break, _write as write_two
    d = Path({tmp!r})
    paths = [_write(d / "a.tsfile", 0), write_two(d / "b.tsfile", 1)]
    _break(paths[1])
    import numpy as np
    from tsfile._mem import pool
    # memory that held other data (here invalid pointers), freed where the read's arrays of
    # its capacity (3600 + 800 rows) come from: numpy's allocator and the result pool
    junk = [np.full(4400, 0x10, np.intp) for _ in range(16)]
    with pool.pooled():
        junk += [np.full(4400, 0x10, np.intp) for _ in range(16)]
    del junk
    try:
        tsfile.read_table(paths, "m", schema="union", threads={threads})
    except tsfile.TsFileError as exc:
        tb, seen = exc.__traceback__, 0
        while tb is not None:  # what a post-mortem debugger shows
            for v in list(tb.tb_frame.f_locals.values()):
                if isinstance(v, columns._Decode):
                    for col in v.values.values():
                        col.tolist()  # every slot, as a debugger's p would
                        seen += 1
            tb = tb.tb_next
        print("looked at", seen)
    else:
        raise SystemExit("the read of a broken file did not fail")
    """
)


@pytest.mark.parametrize("threads", [1, 2])
def test_a_failed_reads_state_shows_no_unwritten_slot(tmp_path, threads):
    code = SCRIPT.format(tests=str(TESTS), tmp=str(tmp_path), threads=threads)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr  # -11: the repr crashed
    assert "looked at" in proc.stdout and "looked at 0" not in proc.stdout


def test_the_handle_has_no_rows_until_settled():
    # memory that held other data: every slot not written an invalid pointer
    junk = np.full(64, 0x10, np.intp)
    del junk
    v = "".join(["de", "v"])
    before = sys.getrefcount(v)
    col = tagfill.empty_column(64, cleared=False)
    assert col.shape == (0,) and repr(col)  # nothing to read
    tagfill.fill_runs(col, [0, 40], [40, 64], [v, None])
    assert col.shape == (0,)
    out = tagfill.settle(col, 64)
    assert out.tolist() == [v] * 40 + [None] * 24
    assert col.shape == (0,)  # the handle stays empty; writes through it now refused
    with pytest.raises(IndexError):
        tagfill.fill(col, 0, 1, v)
    with pytest.raises(ValueError, match="settled"):
        tagfill.clear(col, 0, 0)
    del col, out
    assert sys.getrefcount(v) == before


def test_two_threads_writing_overlapping_rows_are_refused_counts_exact():
    """Two threads writing overlapping ranges of one column at once (never done by a read, whose
    jobs' rows are disjoint by the plan): settle() refuses the column, and dropping it gives back
    exactly the references both counted, without reading a slot."""
    import threading

    v, w = "".join(["o", "ne"]), "".join(["tw", "o"])
    before = sys.getrefcount(v), sys.getrefcount(w)
    for _ in range(20):
        col = tagfill.empty_column(200_000, cleared=False)
        go = threading.Barrier(2)

        def write(value, lo, hi, col=col, go=go):
            go.wait()
            for k in range(lo, hi, 10_000):
                tagfill.fill_runs(col, [k], [min(hi, k + 10_000)], [value])

        threads = [
            threading.Thread(target=write, args=(v, 0, 120_000)),
            threading.Thread(target=write, args=(w, 80_000, 200_000)),
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        with pytest.raises(ValueError, match="written twice"):
            tagfill.settle(col, 200_000)
        assert col.shape == (0,)
        del col, write, threads, go  # (the function's default held the column)
    assert (sys.getrefcount(v), sys.getrefcount(w)) == before
