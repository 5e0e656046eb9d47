"""Review of the bench's two-process ceiling (tsfile._bench.ceiling.lockstep): a job that fails
in one process (a file it cannot read, an import error) left the other processes waiting at the
round's barrier and the parent waiting 600 s for a result that never came (queue.Empty, with no
word of the failure), then up to 60 s more per stuck process. It should fail at once, saying a
process failed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

TESTS = Path(__file__).resolve().parent


class _Failing:
    def run(self):
        raise RuntimeError("this job fails")


def failing_job(fail):
    """A ceiling job whose run() fails in the process given ``fail`` True."""
    if fail:
        return _Failing()
    from tsfile._bench.ceiling import fill_job

    return fill_job(1 << 16)


_CHILD = textwrap.dedent(
    """
    from tsfile._bench import ceiling
    try:
        ceiling.lockstep("test_review2_ceiling:failing_job", [(False,), (True,)], 2)
    except Exception as exc:
        print("RAISED", type(exc).__name__, exc)
    """
)


def test_a_failing_ceiling_job_fails_the_run_at_once():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS.parent), str(TESTS), env.get("PYTHONPATH", "")])
    # its own process group: on a timeout the stuck ceiling processes go with it
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    try:
        out, err = child.communicate(timeout=45)
    except subprocess.TimeoutExpired as exc:
        os.killpg(child.pid, signal.SIGKILL)
        child.communicate()
        raise AssertionError("lockstep still waiting 45 s after a job failed") from exc
    done = subprocess.CompletedProcess(child.args, child.returncode, out, err)
    assert "RAISED" in done.stdout, done.stdout + done.stderr[-1500:]
    assert "failed" in done.stdout  # it says a process failed (not a bare queue.Empty)
