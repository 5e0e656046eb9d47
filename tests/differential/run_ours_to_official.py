"""Many-seed run: our writer -> the official reader and ours (development tool).

    python tests/differential/run_ours_to_official.py OUTDIR FIRST LAST [--no-official] [--alp]

Each seed's file (writer_gen.write_random) is read back by our reader on every read path
(reader_check) and, unless --no-official, by the official reader (writer_check). Prints one line
per seed and the failing checks; exit status 1 if any seed failed.

Without --avoid-known some seeds draw SPRINTZ/CAMEL values those encodings cannot store (a
SPRINTZ prediction error of MIN_VALUE, a CAMEL NaN after a page's first value); the writer
refuses them with EncodeError naming the column and its encoding. Such seeds are counted as
"refused", not failed; any other write error (an EncodeError not naming SPRINTZ or CAMEL too)
is a failure.
"""

from __future__ import annotations

import argparse
import json
import re
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

from tsfile import EncodeError  # noqa: E402

# the writer's refusal names the column as "(TYPE, ENCODING)"
_LOSSY_REFUSAL = re.compile(r"\(\w+, (SPRINTZ|CAMEL)\)")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("first", type=int)
    ap.add_argument("last", type=int)
    ap.add_argument("--no-official", action="store_true")
    ap.add_argument("--alp", action="store_true", help="allow ALP (our reader only)")
    ap.add_argument(
        "--avoid-known",
        action="store_true",
        help="draw no SPRINTZ/CAMEL values the writer refuses (EncodeError)",
    )
    a = ap.parse_args()
    out = Path(a.outdir)
    out.mkdir(parents=True, exist_ok=True)
    bad = refused = 0
    for s in range(a.first, a.last + 1):
        path = out / f"w{s}.tsfile"
        try:
            doc = write_random(str(path), s, for_official=not a.alp, avoid_known=a.avoid_known)
        except EncodeError as e:
            if _LOSSY_REFUSAL.search(str(e)):
                print(f"seed {s}: refused (EncodeError: {str(e)[:200]})")
                refused += 1
                continue
            print(f"seed {s}: WRITE FAILED {type(e).__name__}: {e}")
            traceback.print_exc(limit=-4)
            bad += 1
            continue
        except Exception as e:
            print(f"seed {s}: WRITE FAILED {type(e).__name__}: {e}")
            traceback.print_exc(limit=-4)
            bad += 1
            continue
        (out / f"w{s}.json").write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
        fails = check_file(path, doc, np.random.default_rng(s))
        if not a.no_official and not a.alp:
            off = check_official(path, doc)
            fails += [("OFFICIAL " + c, m) for c, m in off]
        print(f"seed {s}: {'FAIL ' + str(len(fails)) if fails else 'ok'}", flush=True)
        for check, msg in fails[:6]:
            print(f"    {check}: {msg.splitlines()[0][:300]}")
        bad += bool(fails)
    print(f"{bad} failed, {refused} refused (EncodeError: SPRINTZ/CAMEL values not storable)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
