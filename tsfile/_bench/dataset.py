"""``python -m tsfile bench dataset``: many files (issue 12). Medians of ``--repeat`` runs in one
process; the machine may be shared, so the ratios of one run are what to compare.

* threads: ``--files`` files of ``--rows`` rows each (the E5-2 shape: 10 devices, INT64 fields
  f0..f7 as random walks, TS_2DIFF + SNAPPY), split by time; ``read_table(directory)`` with 1
  and 2 threads, and one file holding the same rows (target: 2 threads >= 1.8x one thread; one
  thread within 10 % of the one file). ``--pool both`` (default; or ``on`` / ``off``): every
  variant with the result memory pool on and off, interleaved (tsfile._bench.read: "pool on"
  times reads after the first, the blocks of the previous round's results kept; the pool's
  decay raised for the run; "pool cold": a read right after release_memory()).
* ceiling: the machine's two-core ceiling for the threads part's read (tsfile._bench.ceiling): the
  files split between two processes started together (each ``read_table`` of half the files, one
  thread) against one process reading them all on one thread, and ``threads=2`` in one process
  beside them; and the memory write bandwidth of two processes against one. ``threads=2`` is
  reported as a share of what two processes reach.
* plan: planning alone (``Scanner._plan_reads``: open, metadata, prune, plan every file, no
  decode) against the whole 1-thread read of the same files, interleaved.

The threads and plan parts reuse the files an earlier run left in ``--dir`` when they hold the
rows asked (they are never rewritten under a reader of another run), else write them.
* index: ``--small-files`` small files opened as a ``TsFileDataFrame(use_index=True)``: cold
  (no index yet: every file's metadata read, the index written) against warm (the index read;
  target: under 10 % of cold).
* dask: ``tsfile.dask.read_tsfile(directory).compute()`` (a partition per file) and
  ``read_tsfile(one file).compute()`` (the file of the same rows, split along its chunk groups
  into partitions of at most 1 M rows) on the threaded scheduler against
  ``tsfile.to_dataframe(directory, threads=2)``, interleaved (dask's overhead; skipped without
  dask).

* remote: a 1 % time-range query (the middle 1 % of the time span) over the threads part's files
  read as remote files, by fsspec URL through a file system that counts the bytes read
  (tsfile._bench.counting_fs): the bytes fetched against the files' (target: at most 5 %), and
  the whole read's.

``--small`` runs every part at a size for smoke tests. Results are checked equal first.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from tsfile._bench.read import (
    POOL_MODES,
    _pool_rounds,
    _wall_and_cpu,
    bench_decay,
    pool_labels,
    pool_mode,
)

DEVICES = 10
FIELDS = 8


def _median_time(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _interleaved(variants, repeat):
    """{name: (median wall s, median process CPU s)} of each ``variants`` {name: fn}, after one
    warm-up round, the variants run in turn in every round (tsfile._bench.read._wall_and_cpu), so
    that a change of the machine's load during the run hits every variant alike."""
    for fn in variants.values():
        fn()
    return _wall_and_cpu(variants, repeat)


def _writer(path):
    import tsfile
    from tsfile.writer import TsFileWriter

    cols = [tsfile.ColumnSchema("device", tsfile.TSDataType.STRING, tsfile.ColumnCategory.TAG)]
    cols += [
        tsfile.ColumnSchema(f"f{i}", tsfile.TSDataType.INT64, tsfile.ColumnCategory.FIELD)
        for i in range(FIELDS)
    ]
    w = TsFileWriter(
        str(path),
        overwrite=True,
        compression=tsfile.Compressor.SNAPPY,
        encodings={tsfile.TSDataType.INT64: tsfile.TSEncoding.TS_2DIFF},
    )
    w.register_table(tsfile.TableSchema("bench", cols))
    return w


def _device_rows(rng, rows, t0):
    steps = np.where(rng.random(rows) < 0.05, 2, 1).astype(np.int64)
    ts = t0 + np.cumsum(steps) - steps[0]
    vals = {f"f{i}": np.cumsum(rng.integers(-100, 101, rows)) for i in range(FIELDS)}
    return ts, vals


def write_split(directory, files, rows, seed=42):
    """``files`` files of ``rows`` rows (``rows // DEVICES`` per device), file k holding the
    times after file k - 1's; returns their paths."""
    rng = np.random.default_rng(seed)
    per_dev = rows // DEVICES
    span = 3 * per_dev  # steps are 1 or 2 ms: a file's times fit in this span
    paths = []
    for k in range(files):
        path = Path(directory) / f"part{k:05d}.tsfile"
        w = _writer(path)
        for d in range(DEVICES):
            ts, vals = _device_rows(rng, per_dev, k * span)
            w.write_arrays("bench", ts, {"device": f"d{d:02d}", **vals})
        w.close()
        paths.append(str(path))
    return paths


def write_one(path, parts):
    """The rows of the files ``parts`` in one file (the same values, chunk groups per part)."""
    import tsfile

    w = _writer(path)
    for part in parts:
        got = tsfile.read_table(str(part), "bench")
        for d in range(DEVICES):
            keep = got["device"] == f"d{d:02d}"
            w.write_arrays(
                "bench",
                got["time"][keep],
                {"device": f"d{d:02d}", **{f"f{i}": got[f"f{i}"][keep] for i in range(FIELDS)}},
            )
        w.flush()
    w.close()


def _rows(result):
    return len(result["time"])


def bench_threads(where, files, rows, repeat, pool="both"):
    import tsfile

    split, one = _dataset_files(where, files, rows)
    a = tsfile.read_table(str(split), "bench", threads=1)
    b = tsfile.read_table(str(split), "bench", threads=2)
    assert all(np.array_equal(a[k], b[k]) for k in a), "1 and 2 threads differ"
    assert _rows(tsfile.read_table(str(one), "bench")) == _rows(a)
    total = _rows(a)
    del a, b
    print(f"\n## read_table over {files} files x {rows:,} rows ({total:,} rows, E5-2 shape)")
    print("  (medians, variants interleaved; CPU = process CPU time of all threads)")
    names = {
        "1t": (
            f"{files} files, 1 thread",
            lambda: tsfile.read_table(str(split), "bench", threads=1),
        ),
        "2t": (
            f"{files} files, 2 threads",
            lambda: tsfile.read_table(str(split), "bench", threads=2),
        ),
        "one": ("one file, same rows", lambda: tsfile.read_table(str(one), "bench")),
        "one2t": ("one file, 2 threads", lambda: tsfile.read_table(str(one), "bench", threads=2)),
    }
    modes = POOL_MODES[pool]
    variants = [
        ((key, m), label, fn, m)
        for key, (name, fn) in names.items()
        for label, m in pool_labels(name, modes)
    ]
    if "on" in modes:  # the first read of a program
        variants.append((("1t", "cold"), f"{names['1t'][0]} [pool cold]", names["1t"][1], "cold"))
    with bench_decay():
        for *_k, fn, m in variants:
            with pool_mode(m):
                fn()  # warm-up round
        timed = _pool_rounds([(label, fn, m) for _k, label, fn, m in variants], repeat)
    res = {k: timed[label] for k, label, _fn, _m in variants}
    for _key, label, _fn, _mode in variants:
        wall, cpu = timed[label]
        print(
            f"  {label:<34} {wall * 1e3:10.1f} ms  {total / wall / 1e6:8.2f} M rows/s  "
            f"CPU {cpu * 1e3:8.1f} ms"
        )
    for m in modes:
        _print_targets({key: res[(key, m)] for key in names}, "" if len(modes) == 1 else m)
    _print_user_sys({key: names[key][1] for key in ("1t", "2t")}, repeat)
    if "on" in modes:
        print("  (no tag = pool on: the blocks of the previous round's results kept and reused)")
    if len(modes) == 2:
        for key, (name, _fn) in names.items():
            on, off = res[(key, "on")], res[(key, "off")]
            wall, cpu = off[0] / on[0], off[1] / on[1]
            print(f"  pool on vs off, {name:<22} wall {wall:5.2f}x  cpu {cpu:5.2f}x")
    return str(split)


class _ReadFiles:
    """A ceiling job (tsfile._bench.ceiling): ``read_table`` of ``paths`` on ``threads``."""

    def __init__(self, paths, threads):
        self.paths, self.threads = list(paths), threads

    def run(self):
        import tsfile

        tsfile.read_table(self.paths, "bench", threads=self.threads)


def read_files_job(paths, threads):
    return _ReadFiles(paths, threads)


def bench_ceiling(where, files, rows, repeat):
    """The threads part's read against the same read split between two processes."""
    from tsfile._bench import ceiling

    split, _one = _dataset_files(where, files, rows)
    paths = sorted(str(p) for p in split.glob("part*.tsfile"))
    half = len(paths) // 2
    job = "tsfile._bench.dataset:read_files_job"
    got = ceiling.interleaved(
        {
            "1p1t": (job, [(paths, 1)]),
            "2p": (job, [(paths[:half], 1), (paths[half:], 1)]),
            "1p2t": (job, [(paths, 2)]),
        },
        repeat,
    )
    print(f"\n## two cores' ceiling for this read ({files} files; processes started together)")
    print("  (medians of 3 x --repeat rounds, modes interleaved, each in fresh processes)")
    one, two, threads = got["1p1t"], got["2p"], got["1p2t"]
    print(f"  one process, 1 thread              {one * 1e3:10.1f} ms")
    print(f"  two processes, half the files each {two * 1e3:10.1f} ms  {one / two:5.2f}x (ceiling)")
    print(
        f"  one process, 2 threads             {threads * 1e3:10.1f} ms  {one / threads:5.2f}x "
        f"({two / threads:.0%} of the ceiling)"
    )
    # the result's bytes: 8 per row and column (timestamps, 8 INT64 fields, the tag's pointers)
    ceiling.print_memory_scaling(files * rows * 8 * (FIELDS + 2))


def _print_targets(r, mode):
    """The issue's ratios from {"1t"|"2t"|"one"|"one2t": (wall, cpu)} of one pool mode."""
    tag = f" [pool {mode}]" if mode and mode != "on" else ""
    t1, t2, t_one = r["1t"][0], r["2t"][0], r["one"][0]
    print(f"  2 threads vs 1{tag:<13} {t1 / t2:10.2f}x (target >= 1.8x)")
    # less noisy on a shared machine: the CPU the threads spend beyond one thread's (GIL
    # hand-overs, contention), and how many cores the 2-thread read kept busy
    busy = r["2t"][1] / t2
    print(f"    (CPU 2 threads / 1   {r['2t'][1] / r['1t'][1]:10.2f}; cores busy {busy:.2f})")
    speed = t_one / t1
    print(f"  1 thread vs one file{tag:<7} {speed:10.2f} of the one file's speed (target >= 0.9)")
    print(f"    (by CPU time         {r['one'][1] / r['1t'][1]:10.2f})")
    scale = t_one / r["one2t"][0]
    print(f"  one file, 2 threads{tag:<8} {scale:10.2f}x one thread (target >= 1.7x)")


def _user_sys(variants, repeat):
    """{name: (median user CPU s, median system CPU s)} of the process over each call of the
    ``variants`` {name: fn}, run in turn in every round."""
    import resource

    got = {name: ([], []) for name in variants}
    for _ in range(repeat):
        for name, fn in variants.items():
            r0 = resource.getrusage(resource.RUSAGE_SELF)
            fn()
            r1 = resource.getrusage(resource.RUSAGE_SELF)
            got[name][0].append(r1.ru_utime - r0.ru_utime)
            got[name][1].append(r1.ru_stime - r0.ru_stime)
    return {n: (statistics.median(u), statistics.median(k)) for n, (u, k) in got.items()}


def _print_user_sys(variants, repeat):
    """Where the CPU of the 1- and 2-thread reads goes: user (decoding, and the Python that
    holds the GIL) and system time (mostly the kernel clearing the result's fresh pages), from
    a second interleaved run: a 2-thread read costing more of either than the 1-thread one is
    contention (the GIL in user time; page faults and memory bandwidth in system time)."""
    split = _user_sys(variants, repeat)
    for key, label in (("1t", "1 thread"), ("2t", "2 threads")):
        user, system = split[key]
        print(f"    ({label:<9} user {user * 1e3:8.1f} ms, system {system * 1e3:8.1f} ms)")


def _dataset_files(where, files, rows):
    """(directory of the split files, the one file) of the threads part under ``where``:
    reused when an earlier run with the same --dir left ``files`` split files and the one file
    holding the rows asked (read here), else written (delete them to write them afresh)."""
    import tsfile

    split = Path(where) / "split"
    one = Path(where) / "one.tsfile"
    want = files * (rows // DEVICES) * DEVICES
    if len(list(split.glob("part*.tsfile"))) == files and one.exists():
        try:
            got = (
                _rows(tsfile.read_table(str(split), "bench")),
                _rows(tsfile.read_table(str(one), "bench")),
            )
        except tsfile.TsFileError:  # not the benchmark's files: written again
            got = None
        if got == (want, want):
            return split, one
    split.mkdir(parents=True, exist_ok=True)
    for old in split.glob("part*.tsfile"):
        old.unlink()
    write_one(one, write_split(split, files, rows))
    return split, one


def plan_files(split, table="bench", threads=1):
    """Plan ``read_table(split, table, threads=threads)`` as it does, without decoding: every
    file opened, its metadata read, pruned or planned (Scanner._plan_reads, the collector
    paused as read_table pauses it), then closed. Returns the chunk groups planned."""
    from tsfile._dataset.gcpause import collector_paused
    from tsfile._dataset.scan import Scanner

    scanner = Scanner(str(split), table, plan=False, threads=threads)
    readers = []
    try:
        with collector_paused():
            planned = scanner._plan_reads(scanner.paths, readers, True)
            groups = sum(len(read.groups) for _path, read in planned)
            # dropped inside, as read_table drops its plan before the collector resumes (else
            # the collection that follows would walk the plan's objects, which a read never has)
            del planned
    finally:
        for r in readers:
            r.close()
    return groups


def bench_plan(where, files, rows, repeat):
    """The planning of a many-file read_table alone (the part that runs on the calling thread
    before any decode), against the whole 1-thread read, interleaved."""
    import tsfile

    split, _one = _dataset_files(where, files, rows)
    groups = plan_files(split)
    timed = _interleaved(
        {
            "plan": lambda: plan_files(split),
            "read": lambda: tsfile.read_table(str(split), "bench", threads=1),
        },
        repeat,
    )
    (p_wall, p_cpu), (r_wall, r_cpu) = timed["plan"], timed["read"]
    print(f"\n## planning read_table over {files} files ({groups:,} chunk groups), 1 thread")
    print(f"  plan only              {p_wall * 1e3:10.1f} ms  CPU {p_cpu * 1e3:8.1f} ms")
    print(f"  whole read, 1 thread   {r_wall * 1e3:10.1f} ms  CPU {r_cpu * 1e3:8.1f} ms")
    print(f"  planning share         {100 * p_wall / r_wall:10.1f} % of the 1-thread read")


def bench_index(where, small_files, repeat):
    from tsfile.dataset import TsFileDataFrame

    small = Path(where) / "small"
    small.mkdir(parents=True, exist_ok=True)
    write_split(small, small_files, DEVICES * 20, seed=7)
    index_files = lambda: list(small.glob(".tsfile-turbo-dataset.*"))  # noqa: E731

    def cold():
        for f in index_files():
            f.unlink()
        TsFileDataFrame(str(small), show_progress=False, use_index=True).close()

    def warm():
        TsFileDataFrame(str(small), show_progress=False, use_index=True).close()

    cold()
    with TsFileDataFrame(str(small), show_progress=False) as a:
        with TsFileDataFrame(str(small), show_progress=False, use_index=True) as b:
            assert a.list_timeseries() == b.list_timeseries(), "index lists other series"
    t_cold = _median_time(cold, repeat)
    cold()
    t_warm = _median_time(warm, repeat)
    print(f"\n## TsFileDataFrame over {small_files} small files, use_index=True")
    print(f"  cold (no index)        {t_cold * 1e3:10.1f} ms")
    print(f"  warm (index present)   {t_warm * 1e3:10.1f} ms")
    print(f"  warm / cold            {100 * t_warm / t_cold:10.2f} % (target < 10 %)")


def _interleaved_medians(variants, repeat):
    """{name: median seconds} of every variant, timed in turn within each round (a change of
    the machine's load hits all of them alike)."""
    times = {name: [] for name in variants}
    for _ in range(repeat):
        for name, fn in variants.items():
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    return {name: statistics.median(ts) for name, ts in times.items()}


def bench_dask(split, one, repeat):
    try:
        import dask  # noqa: F401
    except ImportError:
        print("\n## dask: not installed (pip install 'dask[dataframe]')")
        return
    import tsfile
    import tsfile.dask as tdask

    def threaded():
        return tsfile.to_dataframe(split, "bench", threads=2)

    def dask_files():
        return tdask.read_tsfile(split, "bench").compute(scheduler="threads", num_workers=2)

    def dask_groups():
        return tdask.read_tsfile(one, "bench").compute(scheduler="threads", num_workers=2)

    def dask_unindexed():  # no time index: no sort of each partition's devices by time
        frame = tdask.read_tsfile(split, "bench", index=None)
        return frame.compute(scheduler="threads", num_workers=2)

    n_rows = len(threaded())
    assert len(dask_files()) == n_rows, "dask (per file) and to_dataframe differ"
    assert len(dask_groups()) == n_rows, "dask (one file split) and to_dataframe differ"
    assert len(dask_unindexed()) == n_rows, "dask (index=None) and to_dataframe differ"
    n_files = tdask.read_tsfile(split, "bench").npartitions
    n_groups = tdask.read_tsfile(one, "bench").npartitions
    t = _interleaved_medians(
        {"ref": threaded, "files": dask_files, "plain": dask_unindexed, "groups": dask_groups},
        max(repeat, 1),
    )
    print("\n## dask (threaded scheduler, 2 workers) vs to_dataframe(directory, threads=2)")
    print(f"  to_dataframe           {t['ref'] * 1e3:10.1f} ms")
    files_ms = t["files"] * 1e3
    print(f"  dask read_tsfile       {files_ms:10.1f} ms  ({n_files} partitions: a file each)")
    plain_ms = t["plain"] * 1e3
    print(f"  dask, index=None       {plain_ms:10.1f} ms  (the same, no time index: no sort)")
    print(
        f"  dask, one file split   {t['groups'] * 1e3:10.1f} ms  ({n_groups} partitions along the "
        "chunk groups of the one file of the same rows)"
    )
    print(f"  dask overhead          {t['files'] / t['ref']:10.2f}x the threaded reader's time")
    print(f"  dask, index=None       {t['plain'] / t['ref']:10.2f}x the threaded reader's time")
    print(f"  split one file         {t['groups'] / t['ref']:10.2f}x the threaded reader's time")


def bench_remote(where, files, rows):
    """A 1 % time-range query over the threads part's files read as remote files (by ranges,
    through an fsspec file system counting the bytes read: tsfile._bench.counting_fs), against
    the files' bytes and the whole read's (target: at most 5 %)."""
    import tsfile
    from tsfile._bench.counting_fs import PROTOCOL, CountingFileSystem, register

    register()
    split, _one = _dataset_files(where, files, rows)
    url = f"{PROTOCOL}://{split.resolve()}/"
    total = sum(p.stat().st_size for p in split.glob("part*.tsfile"))
    local = tsfile.to_dataframe(str(split), "bench")
    first, last = int(local["time"].min()), int(local["time"].max())
    span = last - first
    lo, hi = first + span * 495 // 1000, first + span * 505 // 1000
    # the local query of the same range, not the whole read filtered: a range missing every
    # row (--small: the middle of the span falls between two files' times) is a frame without
    # columns there, as one file's empty result is, and the check failed on it
    want = tsfile.to_dataframe(str(split), "bench", start_time=lo, end_time=hi)
    assert want.equals(
        local[(local["time"] >= lo) & (local["time"] <= hi)].reset_index(drop=True)
    ) or (want.empty and not ((local["time"] >= lo) & (local["time"] <= hi)).any())
    CountingFileSystem.reset()
    got = tsfile.to_dataframe(url, "bench", start_time=lo, end_time=hi)
    fetched, reads = CountingFileSystem.bytes_read, CountingFileSystem.reads
    assert got.equals(want), "the query by URL read other rows than the local query"
    CountingFileSystem.reset()
    whole = tsfile.to_dataframe(url, "bench")
    assert whole.equals(local), "the whole read by URL differs from the local read"
    whole_bytes, whole_reads = CountingFileSystem.bytes_read, CountingFileSystem.reads
    print(f"\n## {files} files read as remote files ({PROTOCOL}://, counted), {total:,} bytes")
    print(f"  whole read        {whole_bytes:14,} bytes in {whole_reads:6,} reads")
    print(
        f"  1 % time range    {fetched:14,} bytes in {reads:6,} reads: "
        f"{100 * fetched / total:.2f} % of the files' bytes (target <= 5 %), "
        f"{len(got):,} of {len(local):,} rows"
    )


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tsfile bench dataset", description=__doc__)
    ap.add_argument("--files", type=int, default=100, help="files of the threads benchmark")
    ap.add_argument("--rows", type=int, default=200_000, help="rows per file")
    ap.add_argument("--small-files", type=int, default=1000, help="files of the index benchmark")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--small", action="store_true", help="tiny sizes (smoke test)")
    ap.add_argument(
        "--pool",
        choices=sorted(POOL_MODES),
        default="both",
        help="threads part: time with the result memory pool on, off or both (interleaved)",
    )
    ap.add_argument("--dir", default=None, help="where the files go (default: a temp dir)")
    ap.add_argument(
        "--parts",
        default="threads,index,dask",
        help="comma-separated parts to run (threads, ceiling, plan, index, dask, remote; dask "
        "needs threads)",
    )
    args = ap.parse_args(argv)
    if args.small:
        args.files, args.rows, args.small_files, args.repeat = 4, 2_000, 20, 1
    print(f"# dataset benchmark; medians of {args.repeat} runs")
    print(f"# load average at start: {os.getloadavg()} on {os.cpu_count()} CPUs (a shared machine)")
    tmp = tempfile.mkdtemp(prefix="tsfile-bench-dataset-")
    try:
        where = Path(args.dir or tmp)
        parts = set(args.parts.split(","))
        split = (
            bench_threads(where, args.files, args.rows, args.repeat, args.pool)
            if "threads" in parts
            else None
        )
        if "ceiling" in parts:
            bench_ceiling(where, args.files, args.rows, args.repeat)
        if "plan" in parts:
            bench_plan(where, args.files, args.rows, args.repeat)
        if "index" in parts:
            bench_index(where, args.small_files, args.repeat)
        if "dask" in parts and split is not None:
            bench_dask(split, str(where / "one.tsfile"), args.repeat)
        if "remote" in parts:
            bench_remote(where, args.files, args.rows)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"\n# load average at the end: {os.getloadavg()}")


__all__ = ["main"]
