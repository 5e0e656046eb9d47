"""Many-seed run: our writer -> the official reader and ours (development tool).

    python tests/differential/run_ours_to_official.py OUTDIR FIRST LAST [--no-official] [--alp]

Each seed's file (writer_gen.write_random) is read back by our reader on every read path
(reader_check) and, unless --no-official, by the official reader (writer_check). Prints one line
per seed and the failing checks; exit status 1 if any seed failed.
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from reader_check import check_file  # noqa: E402
from writer_check import check_official  # noqa: E402
from writer_gen import write_random  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("first", type=int)
    ap.add_argument("last", type=int)
    ap.add_argument("--no-official", action="store_true")
    ap.add_argument("--alp", action="store_true", help="allow ALP (our reader only)")
    ap.add_argument(
        "--avoid-known", action="store_true", help="keep clear of the open bugs' triggers"
    )
    a = ap.parse_args()
    out = Path(a.outdir)
    out.mkdir(parents=True, exist_ok=True)
    bad = 0
    for s in range(a.first, a.last + 1):
        path = out / f"w{s}.tsfile"
        try:
            doc = write_random(str(path), s, for_official=not a.alp, avoid_known=a.avoid_known)
        except Exception as e:
            print(f"seed {s}: WRITE FAILED {type(e).__name__}: {e}")
            traceback.print_exc(limit=-4)
            bad += 1
            continue
        (out / f"w{s}.json").write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
        fails = check_file(path, doc, np.random.default_rng(s))
        if not a.no_official and not a.alp:
            off = check_official(path, doc)
            if a.avoid_known and any(
                e == "DICTIONARY" for _t, e, _c in doc["fixture"]["columns"].values()
            ):
                # open bug: DICTIONARY pages of one entry (bit width 0) derail the official reader
                off = [
                    (c, m)
                    for c, m in off
                    if "official reader" not in c and "TEXT" not in c and "STRING" not in c
                ]
            fails += [("OFFICIAL " + c, m) for c, m in off]
        print(f"seed {s}: {'FAIL ' + str(len(fails)) if fails else 'ok'}", flush=True)
        for check, msg in fails[:6]:
            print(f"    {check}: {msg.splitlines()[0][:300]}")
        bad += bool(fails)
    print(f"{bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
