"""``python -m tsfile bench ts2diff``: TS_2DIFF decode and encode speed, with same-run baselines.

Workload W0 of the TsFile batch-read study: a random walk with integer steps uniform in
[-100, 100] (``numpy.random.default_rng(42)``). Two regimes:

* cache-resident: 64 Ki values decoded again and again into the same buffer (the decoder's own
  speed);
* large: 20 M values decoded into a preallocated 20 M buffer (bound by memory bandwidth), compared
  with a plain numpy copy of the same output array into another buffer.

Baselines measured in the same run: ``numpy.cumsum`` of the deltas over the same count (into a
preallocated output), and the copy. Figures are medians of several timed runs (M values/s);
ratios are between medians of the same run.
"""

from __future__ import annotations

import argparse
import contextlib
import platform
import statistics
import time

import numpy as np

SMALL = 64 * 1024
LARGE = 20_000_000
PER_VALUE_ENCODE_COUNT = 200_000


def w0(count: int, dtype) -> np.ndarray:
    """The W0 random walk: steps uniform in [-100, 100], seed 42."""
    steps = np.random.default_rng(42).integers(-100, 101, size=count, dtype=np.int64)
    return np.cumsum(steps).astype(dtype)


# The clock: CPU time of this thread by default. Everything timed is single-threaded, and on a
# shared (oversubscribed) machine wall time also counts the time other processes held the core;
# --wall switches to time.perf_counter.
CLOCK = time.thread_time


def _median_rate(fn, count: int, repeat: int, min_time: float) -> float:
    """Median throughput (M values/s) of `fn` over `repeat` samples of >= min_time seconds."""
    clock = CLOCK
    fn()  # warm up (page faults, caches)
    loops = 1
    while True:
        t0 = clock()
        for _ in range(loops):
            fn()
        dt = clock() - t0
        if dt >= min_time or loops >= 1 << 16:
            break
        loops *= 2
    rates = [count * loops / dt / 1e6]
    for _ in range(repeat - 1):
        t0 = clock()
        for _ in range(loops):
            fn()
        rates.append(count * loops / (clock() - t0) / 1e6)
    return statistics.median(rates)


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def isa_rows() -> list[str]:
    """The SIMD rows of the TS_2DIFF table this CPU runs, best first (e.g. avx512, avx2)."""
    from tsfile.codecs import ts2diff

    return [row for row in ts2diff.implementations() if row != "scalar"]


@contextlib.contextmanager
def _isa_of(label: str):
    """The ISA a "simd:<isa>" label names is the process-wide level inside (other labels: nothing
    changes). Set around a whole sample, never per timed call (set_simd costs about a
    microsecond, a tenth of a 64 Ki decode)."""
    if not label.startswith("simd:"):
        yield
        return
    import tsfile

    previous = tsfile.set_simd(label.split(":", 1)[1])
    try:
        yield
    finally:
        tsfile.set_simd(previous)


def _median_rates(fns: dict, count: int, repeat: int, min_time: float) -> dict:
    """Median rate of each labelled fn, the samples of the fns interleaved so that all of them
    see the same machine load (ratios between them are what the ISA comparison reports)."""
    samples = {label: [] for label in fns}
    for _ in range(repeat):
        for label, fn in fns.items():
            with _isa_of(label):
                samples[label].append(_median_rate(fn, count, 1, min_time))
    return {label: statistics.median(r) for label, r in samples.items()}


def _path_of(label: str) -> str:
    return "simd" if label.startswith("simd") else label


def _labelled(label: str, call):
    """`call(path)` as a no-argument function, for the path a label stands for."""
    path = _path_of(label)
    return lambda: call(path)


def measure(count: int, dtype, repeat: int, min_time: float, paths) -> dict:
    """Decode rates per path (a "simd:<isa>" path runs that ISA's row) plus the cumsum and copy
    baselines, for one regime and dtype."""
    from tsfile.codecs import ts2diff

    values = w0(count, dtype)
    data = ts2diff.encode(values)
    deltas = np.diff(values, prepend=values.dtype.type(0))
    out = np.empty_like(values)
    res = {"bytes_per_value": len(data) / count}
    fns = {}
    for label in paths:
        fn = _labelled(label, lambda p: ts2diff.decode_into(data, out, p))
        with _isa_of(label):
            fn()
        if not np.array_equal(out, values):
            raise AssertionError(f"ts2diff {label} decoded wrong values")
        fns[label] = fn
    res.update(_median_rates(fns, count, repeat, min_time))
    cs = np.empty_like(values)
    res["cumsum"] = _median_rate(lambda: np.cumsum(deltas, out=cs), count, repeat, min_time)
    dst = np.empty_like(values)
    res["copy"] = _median_rate(lambda: np.copyto(dst, out), count, repeat, min_time)
    return res


def measure_encode(count: int, dtype, repeat: int, min_time: float, paths) -> dict:
    """Encode rates: `encode` per path (batch / simd), and the streaming encoder driven from
    Python on the first PER_VALUE_ENCODE_COUNT values."""
    from tsfile.codecs import ts2diff

    values = w0(count, dtype)
    fns = {
        label: _labelled(label, lambda p: ts2diff.encode(values, path=p))
        for label in paths
        if label != "per_value"
    }
    res = _median_rates(fns, count, repeat, min_time)
    few = values[:PER_VALUE_ENCODE_COUNT].tolist()

    def per_value():
        enc = ts2diff.Ts2DiffEncoder(dtype)
        for v in few:
            enc.encode(v)
        enc.flush()

    res["per_value"] = _median_rate(per_value, len(few), max(3, repeat // 2), min_time)
    return res


SWEEP_WIDTHS = (0, 1, 4, 8, 12, 16, 24, 32, 48, 64)


def of_width(count: int, dtype, width: int) -> np.ndarray:
    """Values whose deltas span exactly `width` bits in every block (random in [0, 2^width))."""
    rng = np.random.default_rng(width)
    if width == 0:
        deltas = np.full(count, 3, dtype=np.uint64)
    elif width == 64:
        deltas = rng.integers(0, 1 << 63, size=count, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    else:
        deltas = rng.integers(0, 1 << width, size=count, dtype=np.uint64)
        deltas[1::129] = (1 << width) - 1
        deltas[2::129] = 0
    return np.cumsum(deltas, dtype=np.uint64).view(np.int64).astype(dtype)


def sweep(repeat: int, min_time: float, paths, count: int = 1 << 20) -> None:
    """Decode speed per delta bit width (count values, M values/s)."""
    from tsfile.codecs import ts2diff

    print(f"\nbit-width sweep, {count} values, M values/s")
    print(f"{'dtype':6} {'width':>5} {'B/val':>6} " + " ".join(f"{p:>9}" for p in paths))
    for dtype in (np.int32, np.int64):
        for width in SWEEP_WIDTHS:
            if width > np.dtype(dtype).itemsize * 8:
                continue
            values = of_width(count, dtype, width)
            data = ts2diff.encode(values)
            out = np.empty_like(values)
            rates = []
            for label in paths:
                fn = _labelled(label, lambda p, d=data, o=out: ts2diff.decode_into(d, o, p))
                with _isa_of(label):
                    fn()
                    if not np.array_equal(out, values):
                        raise AssertionError(f"ts2diff {label} decoded wrong values")
                    rates.append(_median_rate(fn, count, repeat, min_time))
            print(
                f"{np.dtype(dtype).name:6} {width:>5} {len(data) / count:6.3f} "
                + " ".join(f"{r:9.0f}" for r in rates)
            )


def _fmt(x):
    return f"{x:8.0f}" if x >= 100 else f"{x:8.1f}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tsfile bench ts2diff")
    parser.add_argument("--repeat", type=int, default=7, help="timed samples per figure (median)")
    parser.add_argument("--min-time", type=float, default=0.02, help="seconds per sample")
    parser.add_argument("--large", type=int, default=LARGE, help="values in the large regime")
    parser.add_argument("--wall", action="store_true", help="time with wall clock, not CPU time")
    parser.add_argument("--sweep", action="store_true", help="also decode per delta bit width")
    args = parser.parse_args(argv)
    global CLOCK
    if args.wall:
        CLOCK = time.perf_counter

    import tsfile
    from tsfile.codecs import ts2diff

    info = tsfile.simd_info()
    rows = isa_rows() if ts2diff.HAS_SIMD and info["active"] != "none" else []
    simd = [f"simd:{row}" for row in rows]
    paths = ["per_value", "batch"] + simd
    print(
        f"TS_2DIFF, workload W0 (random walk, steps in [-100, 100]); CPU: {_cpu_name()}; "
        f"SIMD rows: {', '.join(rows) or 'none'}"
    )
    clock = "wall clock" if args.wall else "thread CPU time"
    print(
        f"medians of {args.repeat} interleaved runs, M values/s ({clock}; ratios within this run)"
    )
    print("simd = the best row; each row also on its own; best/next = the best row over the next\n")
    best, nxt = (simd + [None, None])[:2]
    head = (
        f"{'dtype':6} {'values':>9} {'B/val':>6} {'per_val':>8} {'batch':>8} "
        + " ".join(f"{row:>8}" for row in rows)
        + f" {'cumsum':>8} {'copy':>8}  {'bat/pv':>6} {'simd/pv':>7} {'bat/cs':>6} "
        f"{'simd/cs':>7} {'simd/copy':>9} {'best/next':>9}"
    )
    print(head)
    print("-" * len(head))
    nan = float("nan")
    for count in (SMALL, args.large):
        for dtype in (np.int32, np.int64):
            r = measure(count, dtype, args.repeat, args.min_time, paths)
            top = r[best] if best else nan
            ratio = top / r[nxt] if nxt else nan
            print(
                f"{np.dtype(dtype).name:6} {count:>9} {r['bytes_per_value']:6.3f} "
                f"{_fmt(r['per_value'])} {_fmt(r['batch'])} "
                + " ".join(_fmt(r[label]) for label in simd)
                + f" {_fmt(r['cumsum'])} {_fmt(r['copy'])}  {r['batch'] / r['per_value']:6.2f} "
                f"{top / r['per_value']:7.2f} {r['batch'] / r['cumsum']:6.2f} "
                f"{top / r['cumsum']:7.2f} {top / r['copy']:9.2f} {ratio:9.2f}"
            )
    print()
    for dtype in (np.int32, np.int64):
        e = measure_encode(args.large, dtype, max(3, args.repeat // 2), args.min_time, paths)
        simd_part = "".join(f", {label[5:]} {e[label]:.0f} M/s" for label in simd)
        print(
            f"encode {np.dtype(dtype).name} ({args.large} values): batch {e['batch']:.0f} M/s"
            f"{simd_part}; per_value (Ts2DiffEncoder.encode from Python, "
            f"{PER_VALUE_ENCODE_COUNT} values) {e['per_value']:.1f} M/s"
        )
    if args.sweep:
        sweep(args.repeat, args.min_time, paths)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
