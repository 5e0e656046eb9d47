"""Hostile files: mutate valid TsFiles and require a clean failure from our reader.

    python tests/differential/hostile.py SEED COUNT FILE [FILE ...]      # parent: mutate + check

Every mutant (flipped bytes in the header, the data or the metadata tail; truncation; a splice
of one region over another; a huge varint / int32 / int64 written over some bytes) is read by a
CHILD process (`hostile.py --child`, one child reads many mutants in turn) with an address-space
cap (resource.setrlimit RLIMIT_AS) and a per-file timeout. Allowed outcomes: the file reads (a
mutation may well give other values without any check noticing), or a tsfile.TsFileError
subclass whose message names an offset. Anything else is a finding: another exception type
(MemoryError = a huge allocation), a crash (signal), a hang (timeout), an error without offset.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
# Address space of the child: a valid read of these (<= 2 MB) files peaks at ~170 MB of it
# (VmPeak, numpy single-threaded); an allocation sized from a hostile count hits the cap and
# shows up as a MemoryError finding.
AS_LIMIT = 1 << 30
TIMEOUT = 20.0  # seconds per mutant (the files are small: a read takes milliseconds)
# the word alone is not enough: the message must give the offset, e.g. "at offset 1234"
OFFSET_RE = re.compile(r"offset\D{0,20}\d", re.I)


# ------------------------------------------------------------------------------------------------
# mutations
# ------------------------------------------------------------------------------------------------


def _varint_huge(rng):
    return bytes([0xFF] * int(rng.integers(4, 10)) + [0x7F])


def mutate(data: bytes, rng) -> tuple[bytes, str]:
    """One random mutation of DATA; returns (mutant, description)."""
    n = len(data)
    kind = int(rng.integers(0, 9))
    b = bytearray(data)
    tail = max(0, n - max(64, n // 5))  # the metadata area is at the end of the file
    if kind == 0:  # flip bits anywhere
        k = int(rng.integers(1, 9))
        pos = sorted(int(p) for p in rng.integers(0, n, k))
        for p in pos:
            b[p] ^= 1 << int(rng.integers(0, 8))
        return bytes(b), f"flip bits at {pos}"
    if kind == 1:  # flip bits in the metadata tail
        k = int(rng.integers(1, 4))
        pos = sorted(int(p) for p in rng.integers(tail, n, k))
        for p in pos:
            b[p] ^= 1 << int(rng.integers(0, 8))
        return bytes(b), f"flip tail bits at {pos}"
    if kind == 2:  # truncate
        cut = int(rng.integers(0, n))
        return bytes(b[:cut]), f"truncate to {cut}"
    if kind == 3:  # random bytes in the header / first chunk header
        p = int(rng.integers(0, min(n, 64)))
        b[p] = int(rng.integers(0, 256))
        return bytes(b), f"byte {p} = {b[p]}"
    if kind == 4:  # huge varint somewhere (sizes, counts and lengths are varints)
        p = int(rng.integers(0, n))
        v = _varint_huge(rng)
        b[p : p + len(v)] = v
        return bytes(b[:n]), f"huge varint at {p}"
    if kind == 5:  # huge int32 / int64 (offsets, sizes, statistics, metadata size)
        p = int(rng.integers(tail if rng.random() < 0.7 else 0, n))
        v = rng.choice(
            [
                b"\x7f\xff\xff\xff",
                b"\xff\xff\xff\xff",
                b"\x80\x00\x00\x00",
                b"\x7f\xff\xff\xff\xff\xff\xff\xff",
                b"\x00\x00\x00\x00",
            ]
        )
        b[p : p + len(v)] = v
        return bytes(b[:n]), f"int {v.hex()} at {p}"
    if kind == 6:  # splice: copy one region over another
        ln = int(rng.integers(1, max(2, min(256, n // 4))))
        src, dst = (int(x) for x in rng.integers(0, max(1, n - ln), 2))
        b[dst : dst + ln] = data[src : src + ln]
        return bytes(b), f"splice {ln} bytes {src}->{dst}"
    if kind == 7:  # the metadata size (int32 before the tail magic) set to a random value
        if n >= 10:
            v = int(rng.integers(0, 2**32)).to_bytes(4, "big")
            b[n - 10 : n - 6] = v
        return bytes(b), "metadata size"
    # zero a range
    p = int(rng.integers(0, n))
    ln = int(rng.integers(1, 32))
    b[p : p + ln] = bytes(min(ln, n - p))
    return bytes(b), f"zero {ln} bytes at {p}"


# ------------------------------------------------------------------------------------------------
# child: read files, report one JSON line each
# ------------------------------------------------------------------------------------------------


def read_everything(path: str) -> int:
    """Read every table and tree device of PATH on two decode paths; return cells read."""
    sys.path.insert(0, str(ROOT))
    import tsfile

    cells = 0
    with tsfile.TsFileReader(path) as r:
        schemas = r.get_all_table_schemas()
        for t in schemas:
            for p in ("batch", "per_value"):
                names, _, ts, cols, _n = r.read_columns(t, None, path=p)
                cells += len(ts) * len(names)
            with r.query_table(t, None) as rs:
                k = 0
                while rs.next() and k < 2000:
                    for i in range(1, len(names) + 1):
                        rs.get_value_by_index(i)
                    k += 1
        for d in r.get_all_devices():
            if d.table_name in schemas:
                continue
            sensors = r.get_timeseries_names(d)
            with r.query_timeseries(d, sensors) as rs:
                while (b := rs.get_next_tsblock()) is not None:
                    cells += len(b.timestamps)
    return cells


def child_main(paths: list[str]) -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (AS_LIMIT, AS_LIMIT))
    sys.path.insert(0, str(ROOT))
    import tsfile

    for p in paths:
        print(json.dumps({"start": p}), flush=True)
        try:
            n = read_everything(p)
            res = {"file": p, "result": "read", "cells": n}
        except tsfile.TsFileError as e:
            msg = str(e)
            res = {"file": p, "result": "error", "type": type(e).__name__, "msg": msg[:300]}
            if not OFFSET_RE.search(msg):
                res["result"] = "error-without-offset"
        except BaseException as e:  # noqa: BLE001 - anything else is a finding
            res = {
                "file": p,
                "result": "bad-exception",
                "type": type(e).__name__,
                "msg": str(e)[:300],
            }
        print(json.dumps(res), flush=True)


# ------------------------------------------------------------------------------------------------
# parent
# ------------------------------------------------------------------------------------------------


def run_children(paths: list[str], timeout: float = TIMEOUT) -> dict:
    """{path: result dict}; crashes and hangs attributed to the file being read."""
    results: dict = {}
    todo = list(paths)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    # BLAS thread pools reserve address space per core: keep the child's baseline small
    env.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    while todo:
        proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--child", *todo],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        current = None
        deadline = time.monotonic() + timeout
        import selectors

        sel = selectors.DefaultSelector()
        sel.register(proc.stdout, selectors.EVENT_READ)
        hung = False
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                hung = True
                proc.kill()
                break
            if not sel.select(timeout=left):
                continue
            line = proc.stdout.readline()
            if not line:
                break
            msg = json.loads(line)
            if "start" in msg:
                current = msg["start"]
                deadline = time.monotonic() + timeout
            else:
                results[msg["file"]] = msg
                current = None
        proc.wait()
        err = proc.stderr.read()
        sel.close()
        if current is not None:
            what = "hang" if hung else f"crash (exit status {proc.returncode})"
            results[current] = {"file": current, "result": what, "stderr": err[-500:]}
        done = set(results)
        todo = [p for p in todo if p not in done]
        if current is None and todo:  # the child died between files: should not happen
            for p in todo:
                results[p] = {"file": p, "result": f"child died ({proc.returncode})"}
            break
    return results


OK_RESULTS = ("read", "error")


def fuzz(files: list[Path], seed: int, count: int, workdir: Path) -> list[dict]:
    """COUNT mutants of FILES (round robin); returns the findings (results not in OK_RESULTS)."""
    import numpy as np

    rng = np.random.default_rng([3, seed])
    workdir.mkdir(parents=True, exist_ok=True)
    desc = {}
    paths = []
    for i in range(count):
        src = files[i % len(files)]
        data = src.read_bytes()
        mut, how = mutate(data, rng)
        p = workdir / f"m{seed}_{i}.tsfile"
        p.write_bytes(mut)
        desc[str(p)] = f"{src.name}: {how}"
        paths.append(str(p))
    res = run_children(paths)
    bad = []
    for p in paths:
        r = res.get(p, {"result": "missing"})
        if r["result"] not in OK_RESULTS:
            bad.append({**r, "mutation": desc[p]})
        else:
            os.unlink(p)
    return bad


def main(argv: list[str]) -> int:
    if argv[1:2] == ["--child"]:
        child_main(argv[2:])
        return 0
    seed, count = int(argv[1]), int(argv[2])
    files = [Path(f) for f in argv[3:]]
    bad = fuzz(files, seed, count, Path("/tmp/tsfile-hostile"))
    for b in bad:
        print(json.dumps(b, ensure_ascii=False))
    print(f"{len(bad)} findings in {count} mutants")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
