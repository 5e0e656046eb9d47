"""Run one snippet of Python against this package and against the official tsfile 2.5 wheel.

The official package has the same import name, so both runs are subprocesses: ours with the
repository on PYTHONPATH, the official one isolated in its venv (``python -I``, see
tests/interop/official.py). A snippet gets ``tmp`` (a fresh directory, also the working
directory) and leaves its observations in a dict ``out`` of JSON values; ``observe(code)``
returns {"ours": out, "official": out}. A snippet never catches an error it does not name: an
uncaught one fails the run with the snippet's traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
from interop.official import official_python

REPO = Path(__file__).resolve().parents[2]

_PRELUDE = """
import json, os, sys
tmp = os.getcwd()
out = {}
def error_of(fn, *args, **kwargs):
    '''The class names (MRO) of what fn raises, or None when it returns.'''
    try:
        fn(*args, **kwargs)
    except Exception as exc:  # the snippet records which classes it is an instance of
        return [c.__name__ for c in type(exc).__mro__]
    return None
"""

_EPILOGUE = """
sys.stdout.write("\\n@@OUT@@" + json.dumps(out, default=repr))
"""


def _run(python: list[str], env: dict, code: str, timeout: float) -> dict:
    script = _PRELUDE + textwrap.dedent(code) + _EPILOGUE
    with tempfile.TemporaryDirectory(prefix="tsfile-compat-") as cwd:
        proc = subprocess.run(
            [*python, "-c", script],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    if proc.returncode != 0 or "@@OUT@@" not in proc.stdout:
        raise AssertionError(
            f"snippet failed (exit code {proc.returncode}) with {python[0]}:\n{proc.stderr[-4000:]}"
        )
    return json.loads(proc.stdout.rsplit("@@OUT@@", 1)[1])


def _clean_env() -> dict:
    return {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}


def run_ours(code: str, timeout: float = 300) -> dict:
    """``out`` of the snippet run with this repository's tsfile."""
    env = _clean_env()
    env["PYTHONPATH"] = str(REPO)
    return _run([sys.executable], env, code, timeout)


def run_official(code: str, timeout: float = 300) -> dict:
    """``out`` of the snippet run with the official wheel (skips when its venv is missing)."""
    py = official_python()
    if py is None:
        pytest.skip("official tsfile venv not available (run tests/interop/official_env.py)")
    return _run([py, "-I"], _clean_env(), code, timeout)


def same_on_both(code: str, timeout: float = 300) -> dict:
    """Run the snippet on both packages, assert they observed the same, return ours."""
    ours = run_ours(code, timeout)
    official = run_official(code, timeout)
    assert ours == official, _diff(ours, official)
    return ours


def _diff(ours: dict, official: dict) -> str:
    lines = ["ours and the official package differ:"]
    for key in sorted(set(ours) | set(official)):
        a, b = ours.get(key, "<missing>"), official.get(key, "<missing>")
        if a != b:
            lines.append(f"  {key}: ours={a!r} official={b!r}")
    return "\n".join(lines)
