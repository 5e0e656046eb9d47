"""Create (idempotently) the virtualenv of the official Apache `tsfile` 2.5.0 package.

    python3 tests/interop/official_env.py      # prints the path of the venv's python

Location: $TSFILE_OFFICIAL_VENV or /tmp/tsfile-official-venv. The package is installed from PyPI
with pip (it pulls numpy, pandas, pyarrow). A marker file is written only after `import tsfile`
succeeds in the venv, so a half-made venv is rebuilt on the next run. Progress goes to stderr; the
only stdout line is the python path (for `export TSFILE_OFFICIAL_PYTHON=$(...)`). Exit status 1
and the pip error on stderr when the package cannot be installed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

REQUIREMENT = "tsfile==2.5.0"
DEFAULT_VENV = "/tmp/tsfile-official-venv"
READY_MARKER = ".tsfile-official-ready"  # keep in sync with official.py

CHECK = (
    "import tsfile, importlib.metadata as m; "
    "assert m.version('tsfile') == '2.5.0', m.version('tsfile'); "
    "import tsfile.tsfile_reader, tsfile.tsfile_writer; print(tsfile.__file__)"
)


def log(msg: str) -> None:
    print(f"[official_env] {msg}", file=sys.stderr, flush=True)


def ensure_venv(venv: Path) -> Path:
    py = venv / "bin" / "python"
    marker = venv / READY_MARKER
    if marker.exists() and py.exists() and _check(py):
        return py
    if venv.exists():
        log(f"rebuilding incomplete venv {venv}")
        shutil.rmtree(venv)
    t0 = time.monotonic()
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, stdout=sys.stderr)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    proc = subprocess.run(
        [str(py), "-m", "pip", "install", "--disable-pip-version-check", "-q", REQUIREMENT],
        env=env,
        stdout=sys.stderr,
        stderr=subprocess.PIPE,
        text=True,
    )
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise SystemExit(
            f"[official_env] pip install {REQUIREMENT} failed (exit {proc.returncode})"
        )
    if not _check(py, verbose=True):
        raise SystemExit(f"[official_env] {REQUIREMENT} installed but does not import")
    marker.write_text(REQUIREMENT + "\n")
    log(f"made {venv} in {time.monotonic() - t0:.1f} s")
    return py


def _check(py: Path, verbose: bool = False) -> bool:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    proc = subprocess.run(
        [str(py), "-I", "-c", CHECK], env=env, capture_output=True, text=True, cwd="/"
    )
    if proc.returncode != 0 and verbose:
        sys.stderr.write(proc.stderr)
    return proc.returncode == 0


def main() -> int:
    venv = Path(os.environ.get("TSFILE_OFFICIAL_VENV") or DEFAULT_VENV)
    print(ensure_venv(venv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
