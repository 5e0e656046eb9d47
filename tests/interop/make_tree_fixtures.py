"""Write the tree-model fixtures with the official Apache `tsfile` 2.5.0 package.

Run with the official venv's python (never the project's: same import name):

    $(python3 tests/interop/official_env.py) -I tests/interop/make_tree_fixtures.py [NAME ...]

For every case NAME of tests/interop/tree_cases.py it writes tests/fixtures/tree/NAME.tsfile.
The cases are deterministic, so re-running gives the same files; tests/test_tree_model.py writes
each case with our writer and compares the bytes, and reads the official files back.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import tree_cases  # noqa: E402

OUT_DIR = HERE.parent / "fixtures" / "tree"


def main(argv: list[str]) -> int:
    import tsfile

    if not hasattr(tsfile, "tsfile_writer"):
        raise SystemExit("run this with the official venv's python (official_env.py)")
    names = argv[1:] or list(tree_cases.CASES)
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    for name in names:
        path = OUT_DIR / f"{name}.tsfile"
        if path.exists():
            os.remove(path)
        tree_cases.write_case(tsfile, tree_cases.CASES[name](), str(path), official=True)
        print(f"wrote {path} ({path.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
