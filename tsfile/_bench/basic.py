"""``python -m tsfile bench basic``: decode speed of PLAIN, RLE, ZIGZAG and DICTIONARY.

1 M values per case (``--count``), decoded with ``decode_into`` into a preallocated array, so the
figure is the decoder's alone. Each figure is the median of several timed samples (CPU time of this
thread; ``--wall`` for wall time), in M values/s. Same-run baselines: for the fixed-width PLAIN
types, numpy's own big-endian -> native conversion of the same bytes into the same kind of array
(``np.copyto(out, np.frombuffer(data, ">i8"))``); for every codec, its ``per_value`` path.

Data: INT64 a random walk (steps in [-100, 100], seed 0); DOUBLE its cumulative normal sum;
INT32 uniform in [0, 2**11) (RLE width 11) and in [-1000, 1000) (svarint 1-2 bytes; RLE width 32,
as the C++ writer widens any negative value); DICTIONARY 100 distinct words.
"""

from __future__ import annotations

import argparse
import statistics
import time
from functools import partial

import numpy as np

CLOCK = time.thread_time


def _median_rate(fn, count: int, repeat: int = 7, min_time: float = 0.05) -> float:
    fn()
    loops = 1
    while True:
        t0 = CLOCK()
        for _ in range(loops):
            fn()
        if CLOCK() - t0 >= min_time or loops >= 1 << 16:
            break
        loops *= 2
    samples = []
    for _ in range(repeat):
        t0 = CLOCK()
        for _ in range(loops):
            fn()
        samples.append((CLOCK() - t0) / loops)
    return count / statistics.median(samples) / 1e6


def _cases(n: int):
    from tsfile.codecs import dictionary, plain, rle, zigzag

    rng = np.random.default_rng(0)
    walk = np.cumsum(rng.integers(-100, 101, n)).astype(np.int64)
    dbl = np.cumsum(rng.standard_normal(n))
    small = rng.integers(0, 1 << 11, n).astype(np.int32)
    signed = rng.integers(-1000, 1000, n).astype(np.int32)
    words = np.array([f"word-{i}" for i in range(100)], dtype=object)
    text = words[rng.integers(0, 100, n)].tolist()

    def np_be(data, code):
        src = np.frombuffer(data, code)
        return lambda out: np.copyto(out, src)

    pi64 = plain.encode(walk)
    pf64 = plain.encode(dbl)
    return [
        ("PLAIN INT64", plain, pi64, np.int64, np_be(pi64, ">i8"), True),
        ("PLAIN DOUBLE", plain, pf64, np.float64, np_be(pf64, ">f8"), True),
        ("PLAIN INT32 (svarint, |v| < 1000)", plain, plain.encode(signed), np.int32, None, False),
        ("RLE INT32 (width 11)", rle, rle.encode(small), np.int32, None, True),
        ("RLE INT32 (width 32, negatives)", rle, rle.encode(signed), np.int32, None, True),
        ("RLE INT64 (width 11)", rle, rle.encode(small.astype(np.int64)), np.int64, None, True),
        ("ZIGZAG INT64 (walk)", zigzag, zigzag.encode(walk), np.int64, None, False),
        ("DICTIONARY TEXT (100 words)", dictionary, dictionary.encode(text), object, None, False),
    ]


def main(argv=None) -> None:
    global CLOCK
    ap = argparse.ArgumentParser(prog="python -m tsfile bench basic", description=__doc__)
    ap.add_argument("--count", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--wall", action="store_true", help="wall time instead of thread CPU time")
    args = ap.parse_args(argv)
    if args.wall:
        CLOCK = time.perf_counter
    n = args.count
    from tsfile import is_simd_enabled

    print(f"decode into a preallocated array, {n:,} values, median of {args.repeat} (M values/s)")
    print(
        f"{'case':36} {'batch':>9} {'simd':>9} {'per_value':>10} {'numpy':>9} "
        f"{'batch/pv':>9} {'simd/batch':>10} {'batch/np':>9} {'simd/np':>8}"
    )
    for name, mod, data, dtype, baseline, has_kernel in _cases(n):
        out = np.empty(n, dtype=dtype)
        batch = _median_rate(partial(mod.decode_into, data, out, path="batch"), n, args.repeat)
        pv = _median_rate(partial(mod.decode_into, data, out, path="per_value"), n, args.repeat)
        simd = None
        if has_kernel and mod.HAS_SIMD and is_simd_enabled():
            simd = _median_rate(partial(mod.decode_into, data, out, path="simd"), n, args.repeat)
        base = None
        if baseline is not None:
            base = _median_rate(partial(baseline, np.empty(n, dtype=dtype)), n, args.repeat)
        dash = "-"
        line = f"{name:36} {batch:9.1f} " + (f"{simd:9.1f}" if simd else f"{dash:>9}")
        line += f" {pv:10.1f} " + (f"{base:9.1f}" if base else f"{dash:>9}")
        line += f" {batch / pv:9.2f} " + (f"{simd / batch:10.2f}" if simd else f"{dash:>10}")
        line += f" {batch / base:9.2f}" if base else f" {dash:>9}"
        line += f" {simd / base:8.2f}" if base and simd else f" {dash:>8}"
        print(line, flush=True)
    _print_isa_rows(_cases(n), n, args.repeat)


def _print_isa_rows(cases, n: int, repeat: int) -> None:
    """The SIMD cases once per implementation row of the codec's table (rle/plain
    implementations()), each against the AVX2 row in the same run; the level is set around each
    row's samples, not per call."""
    import tsfile

    rows = {}
    for name, mod, data, dtype, _baseline, has_kernel in cases:
        if not has_kernel or not hasattr(mod, "implementations"):
            continue
        out = np.empty(n, dtype=dtype)
        rates = {}
        for row in mod.implementations():
            previous = tsfile.set_simd(row)
            try:
                path = "batch" if row == "scalar" else "simd"
                rates[row] = _median_rate(partial(mod.decode_into, data, out, path=path), n, repeat)
            finally:
                tsfile.set_simd(previous)
        rows[name] = rates
    if not rows:
        return
    names = sorted(
        {row for rates in rows.values() for row in rates},
        key=["avx512", "avx2", "neon", "scalar"].index,
    )
    print("\nper implementation row (M values/s; ratio to the avx2 row)")
    print(f"{'case':36} " + " ".join(f"{r:>9}" for r in names) + f" {'avx512/avx2':>12}")
    for name, rates in rows.items():
        line = f"{name:36} " + " ".join(
            f"{rates[r]:9.1f}" if r in rates else f"{'-':>9}" for r in names
        )
        if "avx512" in rates and "avx2" in rates:
            line += f" {rates['avx512'] / rates['avx2']:12.2f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
