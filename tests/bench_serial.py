"""Decode speed of the serial codecs (CHIMP, RLBE, SPRINTZ, CAMEL, FLOAT/DOUBLE TS_2DIFF), per path.

    OPENBLAS_NUM_THREADS=1 python tests/bench_serial.py [codec ...]

One page of 1,000,000 values per case (random walk ints, 2-decimal random-walk doubles), encoded
once by the reference encoders of tests/serial_ref.py (slow: the pages are cached in
$TMPDIR/tsfile_bench_serial.pkl). Each path decodes the page with decode_into into a preallocated
array; the paths are timed interleaved (per_value, batch, per_value, ...) so that load on a shared
machine hits both alike; the median of the runs is reported as M values/s. Times are the thread's
CPU time (time.thread_time), so that time spent descheduled on a busy machine does not count;
`--wall` uses wall-clock time instead.
"""

from __future__ import annotations

import os
import pickle
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent))  # the repository (in-place build)
from serial_ref import (  # noqa: E402
    END,
    camel_encode,
    chimp_encode,
    rlbe_encode,
    sprintz_encode,
    words,
)

from tsfile.codecs import camel, chimp, rlbe, sprintz, ts2diff_float  # noqa: E402

N = 1_000_000
RUNS = 11


def pages() -> dict[str, bytes]:
    cache = Path(tempfile.gettempdir()) / "tsfile_bench_serial.pkl"
    if cache.exists():
        return pickle.loads(cache.read_bytes())
    rng = np.random.default_rng(0)
    i64 = np.cumsum(rng.integers(-50, 51, N)).astype(np.int64)
    i32 = i64.astype(np.int32)
    f64 = np.round(np.cumsum(rng.normal(0, 1, N)) + 100, 2)
    f32 = f64.astype(np.float32)
    p = {
        "chimp i64": chimp_encode(words(i64), 64, END[i64.dtype]),
        "chimp i32": chimp_encode(words(i32), 32, END[i32.dtype]),
        "chimp f64": chimp_encode(words(f64), 64, END[f64.dtype]),
        "rlbe i64": rlbe_encode(words(i64), 64),
        "rlbe f64": rlbe_encode(words(f64), 64),
        "sprintz i64": sprintz_encode(words(i64), "i64", strict=False),
        "sprintz i32": sprintz_encode(words(i32), "i32", strict=False),
        "sprintz f64": sprintz_encode(words(f64), "f64", strict=False),
        "camel f64": camel_encode([float(x) for x in f64])[0],
        "ts2diff_float f64": ts2diff_float.encode(f64),
        "ts2diff_float f32": ts2diff_float.encode(f32),
    }
    cache.write_bytes(pickle.dumps(p))
    return p


def main(argv: list[str]) -> None:
    clock = time.thread_time
    if "--wall" in argv:
        argv = [a for a in argv if a != "--wall"]
        clock = time.perf_counter
    mods = {"chimp": chimp, "rlbe": rlbe, "sprintz": sprintz, "camel": camel}
    mods["ts2diff_float"] = ts2diff_float
    dts = {"i64": np.int64, "i32": np.int32, "f64": np.float64, "f32": np.float32}
    print(f"{'case':20s} {'B/value':>7s} {'per_value':>10s} {'batch':>10s}  (M values/s, median)")
    for key, data in pages().items():
        if argv and not any(key.startswith(a) for a in argv):
            continue
        codec, t = key.split()
        m = mods[codec]
        out = np.empty(N, dtype=dts[t])
        times: dict[str, list[float]] = {"per_value": [], "batch": []}
        for path in times:
            m.decode_into(data, out, path=path)  # warm up
        for _ in range(RUNS):
            for path, ts in times.items():
                t0 = clock()
                m.decode_into(data, out, path=path)
                ts.append(clock() - t0)
        speed = {p: N / statistics.median(ts) / 1e6 for p, ts in times.items()}
        print(
            f"{key:20s} {len(data) / N:7.2f} {speed['per_value']:10.1f} {speed['batch']:10.1f}"
            f"  batch/per_value {speed['batch'] / speed['per_value']:.2f}"
        )


if __name__ == "__main__":
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    main(sys.argv[1:])
