"""``python -m tsfile bench read``: the E5-2 end-to-end read benchmark (issue 3, section 4).

The file: table ``bench``, TAG ``device`` (10 devices), 8 INT64 FIELDs ``f0..f7``, timestamps
1 ms apart with small jitter (5 % of the steps are 2 ms), values random walks with integer steps
uniform in [-100, 100] (numpy ``default_rng(42)``), TS_2DIFF + SNAPPY for time and values. It is
written once by the official package (in its virtualenv, a subprocess) and, where our writer
exists, once by ours; both are cached in ``~/.cache/tsfile-bench`` (``--cache-dir``).

Measured here (medians of ``--repeat`` runs, one process, single thread):

* ours: time-range queries of 1, 10, 50, 90 and 100 % selectivity, each read row by row on
  per-value decoders (``next()`` + ``get_value_by_index`` for all 10 columns), batch on batch
  decoders and batch on SIMD decoders (``get_next_tsblock`` until None), plus ``read_table``
  (whole result into one set of arrays) and ``to_dataframe``; the peak memory of a full
  ``read_table`` against the size of its result arrays (tracemalloc).
* the official package on the same file, in a subprocess in the same run: ``read_arrow_batch``
  (batch_size 1,000,000) for every selectivity, and on the first ``--official-rows`` rows the
  row-by-row loop and ``to_dataframe`` (which run at ~0.1 M rows/s: the whole file would take
  minutes; the rate is what is compared).

``--rows`` sets the total row count (default 20,000,000 = 10 x 2 M); smaller values make quick runs.

``--threads``: instead, the thread comparison on our file (issue 8, item 4): ``read_table`` of
the whole file on one thread against ``read_table(threads=2)``, and two files (the file and a
copy) read one after the other on one thread against the two read at once on two threads; wall
time, process CPU time (all threads) and their ratio (near 2 when two threads really run at
once on an otherwise idle 2-core machine), medians of ``--repeat`` runs in one run.

``--pool both`` (the default with ``--threads``; or ``on`` / ``off``): every variant is timed with
the result memory pool (tsfile._mem.pool) on and off, interleaved round after round. "pool on"
times reads after the first (the pool holds the blocks the previous round's results freed: a
program reading again and again); "pool cold" times a read right after release_memory() (the
first read of a program: fresh memory, as with the pool off); "pool off" reads with numpy's own
allocator. For the run the pool's decay is raised, so that the blocks kept do not expire during
the "off" rounds between two "on" rounds (back-to-back reads do not wait a second).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

DEVICES = 10
FIELDS = 8
SELECTIVITIES = (1, 10, 50, 90, 100)

# Runs inside the official package's virtualenv: writes the benchmark file.
_GEN_SCRIPT = r"""
import sys, numpy as np, pyarrow as pa
import tsfile
from tsfile import (TsFileWriter, TableSchema, ColumnSchema, TSDataType, ColumnCategory,
                    TSEncoding, Compressor, set_tsfile_config)
path, per_dev = sys.argv[1], int(sys.argv[2])
w = TsFileWriter(path)
set_tsfile_config({"int64_encoding_type_": TSEncoding.TS_2DIFF,
                   "time_encoding_type_": TSEncoding.TS_2DIFF,
                   "default_compression_type_": Compressor.SNAPPY,
                   "time_compress_type_": Compressor.SNAPPY})
cols = [ColumnSchema("device", TSDataType.STRING, ColumnCategory.TAG)]
cols += [ColumnSchema(f"f{i}", TSDataType.INT64, ColumnCategory.FIELD) for i in range(@FIELDS@)]
w.register_table(TableSchema("bench", cols))
rng = np.random.default_rng(42)
step = 1_000_000
for d in range(@DEVICES@):
    steps = np.where(rng.random(per_dev) < 0.05, 2, 1).astype(np.int64)
    ts = np.cumsum(steps) - steps[0]
    vals = [np.cumsum(rng.integers(-100, 101, per_dev)).astype(np.int64) for _ in range(@FIELDS@)]
    for a in range(0, per_dev, step):
        b = min(per_dev, a + step)
        arrays = [pa.array(ts[a:b], pa.int64()), pa.array([f"d{d:02d}"] * (b - a), pa.string())]
        arrays += [pa.array(v[a:b], pa.int64()) for v in vals]
        names = ["time", "device"] + [f"f{i}" for i in range(@FIELDS@)]
        w.write_arrow_batch("bench", pa.RecordBatch.from_arrays(arrays, names=names), 0)
w.close()
""".replace("@FIELDS@", str(FIELDS)).replace("@DEVICES@", str(DEVICES))

# Runs inside the official package's virtualenv: times its read paths, prints JSON.
_OFFICIAL_SCRIPT = r"""
import json, sys, time, statistics
import tsfile
from tsfile import TsFileReader, to_dataframe
path, repeat, row_cap = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ranges = json.loads(sys.argv[4])
clock = time.process_time if sys.argv[5] == "cpu" else time.perf_counter
cols = ["device"] + [f"f{i}" for i in range(@FIELDS@)]
out = {"arrow": {}, "rows": None, "to_dataframe": None}
def arrow(t1, t2):
    n = 0
    with TsFileReader(path) as r:
        rs = r.query_table("bench", cols, t1, t2, batch_size=1_000_000)
        while True:
            t = rs.read_arrow_batch()
            if t is None:
                break
            n += t.num_rows
        rs.close()
    return n
for sel, (t1, t2) in ranges.items():
    times, n = [], 0
    for _ in range(repeat):
        t0 = clock(); n = arrow(t1, t2); times.append(clock() - t0)
    out["arrow"][sel] = [statistics.median(times), n]
# row by row on the first row_cap rows
times = []
for _ in range(max(1, repeat // 2)):
    with TsFileReader(path) as r:
        rs = r.query_table("bench", cols)
        t0 = clock(); n = 0
        while n < row_cap and rs.next():
            for i in range(1, 11):
                rs.get_value_by_index(i)
            n += 1
        times.append(clock() - t0)
        rs.close()
out["rows"] = [statistics.median(times), n]
times = []
for _ in range(max(1, repeat // 2)):
    t0 = clock()
    df = to_dataframe(path, "bench", max_row_num=row_cap)
    times.append(clock() - t0)
out["to_dataframe"] = [statistics.median(times), len(df)]
print(json.dumps(out))
""".replace("@FIELDS@", str(FIELDS))


def official_python():
    env = os.environ.get("TSFILE_OFFICIAL_PYTHON")
    if env and Path(env).exists():
        return env
    venv = os.environ.get("TSFILE_OFFICIAL_VENV", "/tmp/tsfile-official-venv")
    py = Path(venv) / "bin" / "python"
    return str(py) if py.exists() else None


def _run_script(py, script, args, timeout):
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(script)
        name = f.name
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
        proc = subprocess.run(
            [py, "-I", name, *map(str, args)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
        )
    finally:
        os.unlink(name)
    if proc.returncode != 0:
        raise RuntimeError(f"official script failed:\n{proc.stderr[-2000:]}")
    return proc.stdout


def make_official_file(cache: Path, rows: int) -> Path | None:
    per_dev = rows // DEVICES
    path = cache / f"e52_official_{per_dev * DEVICES}.tsfile"
    if path.exists():
        return path
    py = official_python()
    if py is None:
        return None
    cache.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    print(f"[bench read] writing {path} with the official package ...", file=sys.stderr)
    _run_script(py, _GEN_SCRIPT, [tmp, per_dev], timeout=3600)
    tmp.rename(path)
    return path


def bench_device_data(per_dev: int):
    """The same data as _GEN_SCRIPT, one device at a time: (timestamps, [f0..f7])."""
    import numpy as np

    rng = np.random.default_rng(42)
    for _ in range(DEVICES):
        steps = np.where(rng.random(per_dev) < 0.05, 2, 1).astype(np.int64)
        ts = np.cumsum(steps) - steps[0]
        vals = [np.cumsum(rng.integers(-100, 101, per_dev)).astype(np.int64) for _ in range(FIELDS)]
        yield ts, vals


def make_our_file(cache: Path, rows: int) -> Path | None:
    per_dev = rows // DEVICES
    path = cache / f"e52_ours_{per_dev * DEVICES}.tsfile"
    if path.exists():
        return path
    try:
        import tsfile
        from tsfile.writer import TsFileWriter
    except ImportError:
        return None
    try:
        cols = [tsfile.ColumnSchema("device", tsfile.TSDataType.STRING, tsfile.ColumnCategory.TAG)]
        cols += [
            tsfile.ColumnSchema(f"f{i}", tsfile.TSDataType.INT64, tsfile.ColumnCategory.FIELD)
            for i in range(FIELDS)
        ]
        cache.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        w = TsFileWriter(
            str(tmp),
            overwrite=True,  # a .tmp left by an interrupted run
            compression=tsfile.Compressor.SNAPPY,
            encodings={tsfile.TSDataType.INT64: tsfile.TSEncoding.TS_2DIFF},
        )
        w.register_table(tsfile.TableSchema("bench", cols))
        for d, (ts, vals) in enumerate(bench_device_data(per_dev)):
            columns = {"device": f"d{d:02d}", **{f"f{i}": v for i, v in enumerate(vals)}}
            w.write_arrays("bench", ts, columns)
        w.close()
        tmp.rename(path)
        return path
    except Exception as exc:  # our writer is another module; report, do not fail the bench
        print(f"[bench read] our writer could not write the file: {exc!r}", file=sys.stderr)
        return None


def time_ranges(path):
    """Selectivity (%) -> [t1, t2] over the common time span of the devices."""
    import tsfile

    with tsfile.TsFileReader(path) as r:
        names, _, ts, _, _ = r.read_columns("bench", ["device"], path="batch")
    lo, hi = int(ts.min()), int(ts.max())
    return {s: [lo, lo + (hi - lo) * s // 100] for s in SELECTIVITIES}, len(ts)


CLOCK = time.perf_counter  # --clock cpu: time.process_time (robust on a loaded machine)


def _median(fn, repeat):
    times, result = [], None
    for _ in range(repeat):
        t0 = CLOCK()
        result = fn()
        times.append(CLOCK() - t0)
    return statistics.median(times), result


COLS = ["device"] + [f"f{i}" for i in range(FIELDS)]


def ours_rows(path, t1, t2, cap=None):
    import tsfile

    n = 0
    with tsfile.TsFileReader(path) as r, r.query_table("bench", COLS, t1, t2, "per_value") as rs:
        get = rs.get_value_by_index
        nxt = rs.next
        while nxt():
            get(1), get(2), get(3), get(4), get(5), get(6), get(7), get(8), get(9), get(10)
            n += 1
            if cap is not None and n >= cap:
                break
    return n


def ours_blocks(path, t1, t2, dpath):
    import tsfile

    n = 0
    with tsfile.TsFileReader(path) as r, r.query_table("bench", COLS, t1, t2, dpath) as rs:
        while (blk := rs.get_next_tsblock()) is not None:
            n += len(blk)
    return n


def ours_read_table(path, t1, t2):
    import tsfile

    res = tsfile.read_table(path, "bench", COLS, t1, t2)
    return len(res["time"])


def ours_to_dataframe(path):
    import tsfile

    return len(tsfile.to_dataframe(str(path), "bench"))


def peak_memory(path):
    """Peak traced allocation of a full read_table, against the bytes of its result arrays."""
    import tracemalloc

    import tsfile

    tracemalloc.start()
    tracemalloc.reset_peak()
    res = tsfile.read_table(path, "bench", COLS)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    size = sum(a.nbytes for a in res.values())
    return peak, size


def _wall_and_cpu(variants, repeat):
    """{name: (median wall time, median process CPU time of every thread)} of each ``variants``
    {name: fn} over ``repeat`` rounds, the variants run in turn in every round (a change of the
    machine's load during the run hits them alike)."""
    return _pool_rounds([(name, fn, "on") for name, fn in variants.items()], repeat)


def _read_concurrently(paths):
    """read_table of each path, each on a thread of its own, at once."""
    import threading

    import tsfile

    errors = []

    def one(p):
        try:
            tsfile.read_table(p, "bench", COLS)
        except Exception as exc:  # reported below: a benchmark must not hide a failure
            errors.append(exc)

    threads = [threading.Thread(target=one, args=(p,)) for p in paths]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


POOL_MODES = {"both": ("on", "off"), "on": ("on",), "off": ("off",)}
# seconds the pool keeps idle blocks during an interleaved run (see the module docstring)
BENCH_DECAY = 120.0


@contextlib.contextmanager
def pool_mode(mode):
    """Reads inside run with the result pool ``mode``: "on" (as it is), "cold" (released
    first, outside the caller's timing if entered before it starts) or "off" (numpy's
    allocator; what the pool keeps stays for the next "on" round)."""
    from tsfile._mem import pool

    if mode == "cold":
        pool.release_memory()
    if mode == "off":
        with pool.bypassed():
            yield
    else:
        yield


@contextlib.contextmanager
def bench_decay():
    """The pool's decay raised to BENCH_DECAY for an interleaved run, restored after."""
    from tsfile._mem import pool

    before = pool.memory_info()["decay_seconds"]
    pool.set_memory_retention(decay=BENCH_DECAY)
    try:
        yield
    finally:
        pool.set_memory_retention(decay=before)


def pool_labels(name, modes):
    """[(label, mode)] of a variant, one per pool mode: ``name`` for the default (pool on, or
    the one mode timed), ``name [pool off]`` beside it."""
    if len(modes) == 1:
        return [(name, modes[0])]
    return [(name if m == "on" else f"{name} [pool {m}]", m) for m in modes]


def _pool_rounds(variants, repeat):
    """{label: (median wall, median process CPU)} of ``variants`` [(label, fn, pool mode)],
    run in turn round after round; a mode is set up before its timing starts."""
    walls = {v[0]: [] for v in variants}
    cpus = {v[0]: [] for v in variants}
    for _ in range(repeat):
        for label, fn, mode in variants:
            with pool_mode(mode):
                w0, c0 = time.perf_counter(), time.process_time()
                fn()
                walls[label].append(time.perf_counter() - w0)
                cpus[label].append(time.process_time() - c0)
    return {n: (statistics.median(walls[n]), statistics.median(cpus[n])) for n in walls}


def thread_comparison(path: Path, repeat: int, pool: str = "both") -> dict:
    """The --threads measurements on ``path`` (and a copy of it beside it), each with the
    result pool on and/or off (``pool``: both, on or off); prints a table."""
    import shutil

    import tsfile

    twin = path.with_name(path.stem + ".copy" + path.suffix)
    if not twin.exists() or twin.stat().st_size != path.stat().st_size:
        shutil.copyfile(path, twin)
    modes = POOL_MODES[pool]
    one_file = [
        ("read_table, 1 thread", partial(tsfile.read_table, path, "bench", COLS, threads=1)),
        ("read_table(threads=2)", partial(tsfile.read_table, path, "bench", COLS, threads=2)),
    ]
    two_files = [
        ("2 files, 1 thread", lambda: [tsfile.read_table(p, "bench", COLS) for p in (path, twin)]),
        ("2 files, 2 threads", partial(_read_concurrently, [path, twin])),
    ]
    res = {}
    print("(medians; the variants of each group interleaved, round after round)")
    if "on" in modes:
        print(
            "(no tag = pool on: reads after the first, the pool holding the blocks the previous"
            " round's results freed;\n pool cold: the first read, right after release_memory();"
            " pool off: numpy's allocator)"
        )
    print(f"{'':<40} {'wall ms':>9} {'cpu ms':>9} {'cpu/wall':>9} {'speed-up':>9}")
    with bench_decay():
        for cases in (one_file, two_files):
            variants = [(lbl, fn, m) for name, fn in cases for lbl, m in pool_labels(name, modes)]
            if "on" in modes and cases is one_file:  # the first read of a program
                variants.append((f"{cases[0][0]} [pool cold]", cases[0][1], "cold"))
            for _label, fn, mode in variants:
                with pool_mode(mode):
                    fn()  # warm: page cache, pools
            timed = _pool_rounds(variants, max(1, repeat))
            base = {m: timed[lbl][0] for lbl, m in pool_labels(cases[0][0], modes)}
            for label, _fn, mode in variants:
                wall, cpu = timed[label]
                ref = base.get(mode, base[modes[-1]])
                print(
                    f"{label:<40} {wall * 1e3:>9.1f} {cpu * 1e3:>9.1f} {cpu / wall:>9.2f} "
                    f"{ref / wall:>8.2f}x",
                    flush=True,
                )
                res[label] = {"wall_s": wall, "cpu_s": cpu}
    # the thread figure for two files: against reading one file twice on one thread (the
    # "2 files, 1 thread" row above is timed, but is not that baseline on every machine)
    for (one, m), (two, _m) in zip(
        pool_labels("read_table, 1 thread", modes),
        pool_labels("2 files, 2 threads", modes),
        strict=True,
    ):
        suffix = "" if len(modes) == 1 or m == "on" else f" [pool {m}]"
        print(
            f"{'2 files, 2 threads vs one file read twice, 1 thread' + suffix:<64} "
            f"{2 * res[one]['wall_s'] / res[two]['wall_s']:>8.2f}x",
            flush=True,
        )
    if len(modes) == 2:
        for name, _fn in one_file + two_files:
            (on, _), (off, _) = pool_labels(name, modes)
            wall = res[off]["wall_s"] / res[on]["wall_s"]
            cpu = res[off]["cpu_s"] / res[on]["cpu_s"]
            print(f"{'pool on vs off, ' + name:<64} wall {wall:5.2f}x  cpu {cpu:5.2f}x", flush=True)
    return res


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tsfile bench read", description=__doc__)
    ap.add_argument("--rows", type=int, default=20_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cache-dir", default=os.path.expanduser("~/.cache/tsfile-bench"))
    ap.add_argument("--official-rows", type=int, default=300_000)
    ap.add_argument(
        "--row-cap",
        type=int,
        default=2_000_000,
        help="rows read per row-by-row measurement (a rate; 0 = all rows)",
    )
    ap.add_argument(
        "--no-official",
        action="store_true",
        help="leave the official package out: neither its file nor its read timings",
    )
    ap.add_argument("--json", default=None, help="also write the results here")
    ap.add_argument(
        "--clock",
        choices=["wall", "cpu"],
        default="wall",
        help="wall time (default) or process CPU time (less sensitive to other load)",
    )
    ap.add_argument(
        "--threads",
        action="store_true",
        help="only the thread comparison (read_table threads=1 vs 2, two files on 1 vs 2 threads)",
    )
    ap.add_argument(
        "--pool",
        choices=sorted(POOL_MODES),
        default="both",
        help="--threads: time with the result memory pool on, off or both (interleaved)",
    )
    args = ap.parse_args(argv)
    if args.threads:
        return _main_threads(args)
    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter

    import tsfile

    cache = Path(args.cache_dir)
    files = {}
    off = None if args.no_official else make_official_file(cache, args.rows)
    if off is not None:
        files["official-written"] = off
    ours = make_our_file(cache, args.rows)
    if ours is not None:
        files["ours-written"] = ours
    if not files:
        print("[bench read] no benchmark file: neither the official venv nor our writer exists")
        return 1
    cpu = _cpu_model()
    print(f"# E5-2 read benchmark: {args.rows:,} rows, {cpu}, Python {platform.python_version()}")
    print(f"# SIMD: {tsfile.simd_info()}; medians of {args.repeat} runs, {args.clock} clock")
    print(f"# load average at start: {os.getloadavg()} on {os.cpu_count()} CPUs (a shared machine)")
    results = {"cpu": cpu, "rows": args.rows, "files": {}}
    for label, path in files.items():
        ranges, total = time_ranges(path)
        print(f"\n## file written by {label[:-8]}: {path} ({path.stat().st_size / 1e6:.1f} MB)")
        res = {}
        rows_hdr = f"{'sel %':>6} {'rows':>11} | {'row/per_value':>14} {'batch':>10} "
        rows_hdr += f"{'simd':>10} {'read_table':>11}"
        off_res = None
        if label == "official-written" and not args.no_official and official_python():
            out = _run_script(
                official_python(),
                _OFFICIAL_SCRIPT,
                [path, args.repeat, args.official_rows, json.dumps(ranges), args.clock],
                timeout=3600,
            )
            off_res = json.loads(out)
            rows_hdr += f" | {'official arrow':>14} {'simd/off':>9}"
        print("M rows/s:")
        simd_on = tsfile.is_simd_enabled()
        if not simd_on:
            print("# SIMD is off (TSFILE_SIMD=off, or not available): the simd column is nan")
        print(rows_hdr)
        for sel in SELECTIVITIES:
            t1, t2 = ranges[sel]
            reps = max(1, args.repeat)
            t_rows, n_rows = _median(partial(ours_rows, path, t1, t2, args.row_cap or None), reps)
            t_b, n = _median(partial(ours_blocks, path, t1, t2, "batch"), reps)
            if simd_on:
                t_s, n_s = _median(partial(ours_blocks, path, t1, t2, "simd"), reps)
            else:  # TSFILE_SIMD=off or no SIMD build: no simd column to time
                t_s, n_s = float("nan"), n
            t_rt, n_rt = _median(partial(ours_read_table, path, t1, t2), reps)
            assert n == n_s == n_rt, (n, n_s, n_rt)
            line = (
                f"{sel:>6} {n:>11,} | {n_rows / t_rows / 1e6:>14.2f} {n / t_b / 1e6:>10.1f} "
                f"{n / t_s / 1e6:>10.1f} {n / t_rt / 1e6:>11.1f}"
            )
            entry = {
                "rows": n,
                "row_by_row_s": t_rows,
                "row_by_row_rows": n_rows,
                "batch_s": t_b,
                "simd_s": t_s,
                "read_table_s": t_rt,
            }
            if off_res is not None:
                ta, na = off_res["arrow"][str(sel)]
                assert na == n, (na, n)
                line += f" | {na / ta / 1e6:>14.1f} {ta / t_s:>8.1f}x"
                entry["official_arrow_s"] = ta
            print(line, flush=True)
            res[sel] = entry
        full = res[100]
        pct = res[1]["simd_s"] / full["simd_s"] * 100
        print(f"1 % query / full scan (batch + simd): {pct:.1f} % of the time")
        t_df, df_n = _median(partial(ours_to_dataframe, path), args.repeat)
        print(f"to_dataframe (ours, whole file): {df_n / t_df / 1e6:.2f} M rows/s")
        res["to_dataframe_s"] = t_df
        if off_res is not None:
            tr, nr = off_res["rows"]
            td, nd = off_res["to_dataframe"]
            t_our_r, n_our_r = _median(partial(ours_rows, path, None, None, nr), args.repeat)
            ours_rate, off_rate = n_our_r / t_our_r, nr / tr
            print(
                f"row by row, first {nr:,} rows: ours {ours_rate / 1e6:.2f} M rows/s, official "
                f"{off_rate / 1e6:.3f} M rows/s ({ours_rate / off_rate:.1f}x)"
            )
            print(
                f"to_dataframe: ours {df_n / t_df / 1e6:.2f} M rows/s (whole file), official "
                f"{nd / td / 1e6:.3f} M rows/s (first {nd:,} rows): "
                f"{(df_n / t_df) / (nd / td):.0f}x"
            )
            res["official"] = off_res
        peak, size = peak_memory(path)
        print(
            f"peak traced memory of a full read_table: {peak / 1e6:.0f} MB for {size / 1e6:.0f} MB "
            f"of result arrays ({peak / size:.2f}x)"
        )
        res["peak_bytes"], res["result_bytes"] = peak, size
        results["files"][label] = res
    print(f"\n# load average at the end: {os.getloadavg()}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1, default=str))
    return 0


def _main_threads(args):
    """``--threads``: the thread comparison on our file."""
    import tsfile

    path = make_our_file(Path(args.cache_dir), args.rows)
    if path is None:
        print("[bench read] no benchmark file: our writer is not available")
        return 1
    print(f"# E5-2 read, threads: {args.rows:,} rows, {_cpu_model()}, {os.cpu_count()} CPUs")
    print(f"# SIMD: {tsfile.simd_info()}; medians of {args.repeat} runs")
    print(f"# load average at start: {os.getloadavg()} (other load makes wall times meaningless)")
    res = thread_comparison(path, args.repeat, args.pool)
    print(f"# load average at the end: {os.getloadavg()}")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": args.rows, "threads": res}, indent=1))
    return 0


def _cpu_model():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


if __name__ == "__main__":
    sys.exit(main())
