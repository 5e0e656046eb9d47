"""Many-seed run: official writer -> our reader (development tool; CI runs a few fixed seeds).

    python tests/differential/run_official_to_ours.py OUTDIR FIRST LAST [--jobs N]

Seeds FIRST..LAST (negative = tree model) are written by gen_official.py in the official venv,
then every file is checked with reader_check.check_file. Prints one line per seed and the failing
checks; exit status 1 if any seed failed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from interop.official import official_python  # noqa: E402
from reader_check import check_file  # noqa: E402


def generate(outdir: Path, seeds: list[int]) -> None:
    py = official_python()
    if py is None:
        raise SystemExit("official venv not available (tests/interop/official_env.py)")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    todo = [s for s in seeds if not (outdir / f"{s}.json").exists()]
    if todo:
        subprocess.run(
            [py, "-I", str(HERE / "gen_official.py"), str(outdir), *map(str, todo)],
            env=env,
            check=True,
        )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("first", type=int)
    ap.add_argument("last", type=int)
    a = ap.parse_args()
    outdir = Path(a.outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    seeds = list(range(a.first, a.last + 1))
    generate(outdir, seeds)
    bad = 0
    for s in seeds:
        doc = json.loads((outdir / f"{s}.json").read_text(encoding="utf-8"))
        fails = check_file(outdir / f"{s}.tsfile", doc, np.random.default_rng(abs(s) + 1))
        fx = doc["fixture"]
        note = ""
        if fx.get("unexplained"):
            note += " [official reader: unexplained disagreements]"
        if fx.get("official_reader_crash"):
            note += " [official reader crashed]"
        print(f"seed {s}: {'FAIL ' + str(len(fails)) if fails else 'ok'}{note}", flush=True)
        for check, msg in fails[:6]:
            print(f"    {check}: {msg.splitlines()[0]}")
        bad += bool(fails)
    print(f"{bad} of {len(seeds)} seeds failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
