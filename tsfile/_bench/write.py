"""``python -m tsfile bench write``: write speed and file size, ours against the official writer
(issue 3, section 4), on the E5-2 file shape.

The data: table ``bench``, TAG ``device`` (10 devices), 8 INT64 FIELDs ``f0..f7``, timestamps 1 ms
apart with small jitter (5 % of the steps are 2 ms), values random walks with integer steps uniform
in [-100, 100] (numpy ``default_rng(42)``), TS_2DIFF + SNAPPY for time and values: the same
generator as ``bench read``. ``--compression LZ4`` (or another name of tsfile.types.Compressor)
measures that compression instead, on both sides (LZ4 is the writers' default). ``--rows`` is the
total (default 20,000,000 = 10 x 2 M).

Timed (single thread; the data are made before the clock starts, the file is closed before it
stops; medians of ``--repeat`` runs):

* ours, numpy fast path: ``TsFileTableWriter.write_arrays(ts, {"device": "dNN", f0..f7})`` once per
  device, then ``close()``. As on the official side, each run first removes the previous run's
  file (timed) and writes a new one. ``overwrite=True`` over the previous file is timed apart:
  its close() renames over an existing file, and on ext4 (auto_da_alloc) that rename first
  starts the write-back of the whole new file (about 0.1 s for the 175 MB here, mostly waiting
  for the disk), a cost of replacing a file rather than of writing it.
* ours, ``write_dataframe`` of one DataFrame holding all devices (grouping by tag included).
* the official package (tsfile 2.5.0, in its own virtualenv, a subprocess; timed inside it):
  ``write_arrow_batch`` of one prebuilt pyarrow RecordBatch per device (1 M rows each, the
  official API's fast path; building the batches is not timed), then ``close()``. Skipped when the
  venv is absent (``tests/interop/official_env.py`` makes it).
* on ``--row-api-rows`` rows (default 100,000, one device): the row-by-row Tablet API of both
  (``add_timestamp`` + ``add_value_by_index`` per cell, then ``write_table``), as rows/s.
* threads (issue 8 item 4; median wall time and median process CPU time, the variants
  interleaved): ``write_arrays`` in one thread, two writers in two threads (half the devices
  each, two files), and one writer with ``threads=2``. CPU time equal to wall time means one
  core was busy. The writer's default (``threads=None``) builds a large chunk group's chunks on
  one pool thread while the calling thread hands the finished ones to the OS (writing overlaps
  encoding), so a fourth variant writes with ``threads=1``, everything on the calling thread:
  the single-threaded rate, the base of the target's ratio. The load average when they ran is
  printed with them (a shared machine).
* ``--against TREE``: the same default-threads and ``threads=2`` writes by the build in another
  source tree (e.g. main's, built in place), in a child process importing tsfile from TREE, on
  the same data, its rounds interleaved with ours (a round of ours, then one of its), so that a
  build can be compared with another in one run on a machine whose load comes and goes. Its CPU
  time is the child's process CPU time.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

DEVICES = 10
FIELDS = 8
COMPRESSION = "SNAPPY"  # --compression: a tsfile.types.Compressor name

# Shared by both processes (exec'd here, embedded in the official script) so the data are the same.
_DATA_CODE = r"""
import numpy as np
def e52_data(rows, devices=10, fields=8, seed=42):
    per_dev = rows // devices
    rng = np.random.default_rng(seed)
    out = []
    for d in range(devices):
        steps = np.where(rng.random(per_dev) < 0.05, 2, 1).astype(np.int64)
        ts = np.cumsum(steps) - steps[0]
        vals = [np.cumsum(rng.integers(-100, 101, per_dev)).astype(np.int64) for _ in range(fields)]
        out.append((f"d{d:02d}", ts, vals))
    return out
"""

_OFFICIAL_SCRIPT = (
    _DATA_CODE
    + r"""
import json, os, sys, time, statistics
import pyarrow as pa
import tsfile
from tsfile import (TsFileWriter, TableSchema, ColumnSchema, TSDataType, ColumnCategory,
                    TSEncoding, Compressor, Tablet, set_tsfile_config)
rows, repeat, row_api_rows = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
out_dir = sys.argv[4]
comp = Compressor[sys.argv[5]]
data = e52_data(rows)
names = ["time", "device"] + [f"f{i}" for i in range(8)]
batches = []
for dev, ts, vals in data:
    for a in range(0, len(ts), 1_000_000):
        b = min(len(ts), a + 1_000_000)
        arrays = [pa.array(ts[a:b]), pa.array([dev] * (b - a), pa.string())]
        arrays += [pa.array(v[a:b]) for v in vals]
        batches.append(pa.RecordBatch.from_arrays(arrays, names=names))
cols = [ColumnSchema("device", TSDataType.STRING, ColumnCategory.TAG)]
cols += [ColumnSchema(f"f{i}", TSDataType.INT64, ColumnCategory.FIELD) for i in range(8)]

def new_writer(path):
    if os.path.exists(path):
        os.remove(path)
    w = TsFileWriter(path)
    set_tsfile_config({"int64_encoding_type_": TSEncoding.TS_2DIFF,
                       "time_encoding_type_": TSEncoding.TS_2DIFF,
                       "default_compression_type_": comp,
                       "time_compress_type_": comp})
    w.register_table(TableSchema("bench", cols))
    return w

path = os.path.join(out_dir, "official.tsfile")
times = []
for _ in range(repeat):
    t0 = time.perf_counter()
    w = new_writer(path)
    for batch in batches:
        w.write_arrow_batch("bench", batch, 0)
    w.close()
    times.append(time.perf_counter() - t0)
result = {"arrow": statistics.median(times), "size": os.path.getsize(path)}
dev, ts, vals = data[0]
n = min(row_api_rows, len(ts))
times = []
for _ in range(repeat):
    t0 = time.perf_counter()
    w = new_writer(path)
    for a in range(0, n, 10_000):
        b = min(n, a + 10_000)
        tab = Tablet(["device"] + [f"f{i}" for i in range(8)],
                     [TSDataType.STRING] + [TSDataType.INT64] * 8, b - a)
        tab.set_table_name("bench")
        cols_py = [v[a:b].tolist() for v in vals]
        tsl = ts[a:b].tolist()
        for r in range(b - a):
            tab.add_timestamp(r, tsl[r])
            tab.add_value_by_index(0, r, dev)
            for c in range(8):
                tab.add_value_by_index(c + 1, r, cols_py[c][r])
        w.write_table(tab)
    w.close()
    times.append(time.perf_counter() - t0)
result["row_api"] = [statistics.median(times), n]
print(json.dumps(result))
"""
)


# The child of --against: the thread variants of run_threads with another tree's tsfile, one
# round per "go" line on stdin, a JSON line of (wall, process CPU) seconds per variant back.
_AGAINST_SCRIPT = (
    _DATA_CODE
    + r"""
import json, os, sys, time
import tsfile
from tsfile.schema import ColumnSchema, TableSchema
from tsfile.types import ColumnCategory, Compressor, TSDataType, TSEncoding
from tsfile.writer import TsFileTableWriter
rows, out_dir, comp = int(sys.argv[1]), sys.argv[2], Compressor[sys.argv[3]]
data = e52_data(rows)
cols = [ColumnSchema("device", TSDataType.STRING, ColumnCategory.TAG)]
cols += [ColumnSchema(f"f{i}", TSDataType.INT64, ColumnCategory.FIELD, TSEncoding.TS_2DIFF)
         for i in range(8)]
schema = TableSchema("bench", cols)
path = os.path.join(out_dir, "against.tsfile")
def write(**options):
    with TsFileTableWriter(path, schema, compression=comp, **options) as w:
        for dev, ts, vals in data:
            w.write_arrays(ts, {"device": dev, **{f"f{i}": v for i, v in enumerate(vals)}})
print(json.dumps({"tsfile": os.path.abspath(tsfile.__file__)}), flush=True)
for line in sys.stdin:
    if line.strip() != "go":
        break
    out = {}
    for name, options in (("one", {}), ("threads2", {"threads": 2})):
        if os.path.exists(path):  # the previous file removed untimed, as in run_threads
            os.remove(path)
        t0, c0 = time.perf_counter(), time.process_time()
        write(**options)
        out[name] = (time.perf_counter() - t0, time.process_time() - c0)
    print(json.dumps(out), flush=True)
"""
)


class _Against:
    """The --against child: a process writing with another tree's tsfile (see _AGAINST_SCRIPT)."""

    def __init__(self, tree, rows, out_dir):
        env = dict(os.environ, PYTHONPATH=os.path.abspath(tree))
        self._proc = subprocess.Popen(
            [sys.executable, "-c", _AGAINST_SCRIPT, str(rows), out_dir, COMPRESSION],
            cwd=tree,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        # its data are made before any round is timed; the tsfile it imported must be TREE's
        # (a tree without one would silently time whichever tsfile is installed)
        imported = self._reply()["tsfile"]
        root = os.path.realpath(tree)
        if os.path.commonpath([os.path.realpath(imported), root]) != root:
            self.close()
            raise RuntimeError(
                f"bench write --against {tree}: the child imported tsfile from {imported}, "
                "not from that tree"
            )

    def _reply(self):
        line = self._proc.stdout.readline()
        if not line:
            raise RuntimeError(f"bench write --against: the child exited ({self._proc.wait()})")
        return json.loads(line)

    def round(self):
        """One round of its variants: {name: (wall, cpu)}."""
        self._proc.stdin.write("go\n")
        self._proc.stdin.flush()
        return self._reply()

    def close(self):
        self._proc.stdin.close()
        self._proc.wait()


def official_python():
    env = os.environ.get("TSFILE_OFFICIAL_PYTHON")
    if env and os.path.exists(env):
        return env
    venv = os.environ.get("TSFILE_OFFICIAL_VENV", "/tmp/tsfile-official-venv")
    py = os.path.join(venv, "bin", "python")
    return py if os.path.exists(py) else None


def _schema():
    from tsfile.schema import ColumnSchema, TableSchema
    from tsfile.types import ColumnCategory, Compressor, TSDataType, TSEncoding

    cols = [ColumnSchema("device", TSDataType.STRING, ColumnCategory.TAG)]
    cols += [
        ColumnSchema(f"f{i}", TSDataType.INT64, ColumnCategory.FIELD, TSEncoding.TS_2DIFF)
        for i in range(FIELDS)
    ]
    return TableSchema("bench", cols), Compressor[COMPRESSION]


def _remove(path):
    try:
        os.remove(path)
    except FileNotFoundError:
        pass


def _median(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def run_ours(data, out_dir, repeat, row_api_rows):
    from tsfile.tablet import Tablet
    from tsfile.types import TSDataType
    from tsfile.writer import TsFileTableWriter

    schema, comp = _schema()
    path = os.path.join(out_dir, "ours.tsfile")

    def arrays(overwrite=False):
        if not overwrite:
            _remove(path)  # as the official side does before each run
        with TsFileTableWriter(path, schema, compression=comp, overwrite=overwrite) as w:
            for dev, ts, vals in data:
                w.write_arrays(ts, {"device": dev, **{f"f{i}": v for i, v in enumerate(vals)}})

    res = {"arrays": _median(arrays, repeat), "size": os.path.getsize(path)}
    res["arrays_overwrite"] = _median(lambda: arrays(overwrite=True), repeat)

    try:
        import numpy as np
        import pandas as pd
    except ImportError:
        pd = None
    if pd is not None:
        df = pd.DataFrame(
            {
                "time": np.concatenate([d[1] for d in data]),
                "device": np.concatenate([np.full(len(d[1]), d[0], dtype=object) for d in data]),
                **{f"f{i}": np.concatenate([d[2][i] for d in data]) for i in range(FIELDS)},
            }
        )
        path_df = os.path.join(out_dir, "ours_df.tsfile")

        def dataframe():
            _remove(path_df)
            with TsFileTableWriter(path_df, schema, compression=comp) as w:
                w.write_dataframe(df)

        res["dataframe"] = _median(dataframe, repeat)
        del df

    dev, ts, vals = data[0]
    n = min(row_api_rows, len(ts))
    names = ["device"] + [f"f{i}" for i in range(FIELDS)]
    types = [TSDataType.STRING] + [TSDataType.INT64] * FIELDS

    def row_api():
        with TsFileTableWriter(path, schema, compression=comp, overwrite=True) as w:
            for a in range(0, n, 10_000):
                b = min(n, a + 10_000)
                tab = Tablet(names, types, b - a)
                cols_py = [v[a:b].tolist() for v in vals]
                tsl = ts[a:b].tolist()
                for r in range(b - a):
                    tab.add_timestamp(r, tsl[r])
                    tab.add_value_by_index(0, r, dev)
                    for c in range(FIELDS):
                        tab.add_value_by_index(c + 1, r, cols_py[c][r])
                w.write_table(tab)

    res["row_api"] = [_median(row_api, repeat), n]
    return res


def run_threads(data, out_dir, repeat, against=None):
    """Write speed with two threads against one (issue 8 item 4), write_arrays of the same data:

    * ``one``: one writer, its default threads (the whole data; one pool thread encodes large
      chunk groups while the calling thread writes);
    * ``two_writers``: two writers in two threads, each writing half the devices to its own file;
    * ``threads2``: one writer with ``threads=2`` (the chunks of each chunk group on two threads);
    * ``caller_only``: one writer, ``threads=1``: every chunk group built and written on the
      calling thread (no pool thread overlapping the write with the encode).

    The variants run interleaved, `repeat` rounds; each is (median wall seconds, median process
    CPU seconds), a new file each time: the previous round's file is removed before the timing
    starts (unlinking 175 MB of cached pages is the kernel's work, not the writer's; the ceiling
    part leaves it untimed too). `against`: an _Against child, whose round follows each of ours
    (its variants as "against_one", "against_threads2")."""
    import threading

    from tsfile.writer import TsFileTableWriter

    schema, comp = _schema()

    def write(path, part, **options):
        with TsFileTableWriter(path, schema, compression=comp, **options) as w:
            for dev, ts, vals in part:
                w.write_arrays(ts, {"device": dev, **{f"f{i}": v for i, v in enumerate(vals)}})

    def one():
        write(os.path.join(out_dir, "t1.tsfile"), data)

    def two_writers():
        halves = (data[0::2], data[1::2])
        threads = [
            threading.Thread(target=write, args=(os.path.join(out_dir, f"t2_{k}.tsfile"), h))
            for k, h in enumerate(halves)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    def threads2():
        write(os.path.join(out_dir, "t3.tsfile"), data, threads=2)

    def caller_only():
        write(os.path.join(out_dir, "t4.tsfile"), data, threads=1)

    variants = (
        ("one", one),
        ("two_writers", two_writers),
        ("threads2", threads2),
        ("caller_only", caller_only),
    )
    runs = {name: [] for name, _ in variants}
    for _ in range(repeat):
        # interleaved: a load that comes and goes (a shared machine) falls on every variant
        for name, fn in variants:
            for old in os.listdir(out_dir):  # the files of the previous round, untimed
                if old.startswith("t") and old.endswith(".tsfile"):
                    _remove(os.path.join(out_dir, old))
            t0, c0 = time.perf_counter(), time.process_time()
            fn()
            runs[name].append((time.perf_counter() - t0, time.process_time() - c0))
        if against is not None:
            for name, timing in against.round().items():
                runs.setdefault(f"against_{name}", []).append(tuple(timing))
    return {
        name: (statistics.median(w for w, _ in r), statistics.median(c for _, c in r))
        for name, r in runs.items()
    }


def run_official(py, rows, out_dir, repeat, row_api_rows):
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(_OFFICIAL_SCRIPT)
        name = f.name
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
        proc = subprocess.run(
            [py, "-I", name, str(rows), str(repeat), str(row_api_rows), out_dir, COMPRESSION],
            capture_output=True,
            text=True,
            timeout=3600,
            env=env,
        )
    finally:
        os.unlink(name)
    if proc.returncode != 0:
        raise RuntimeError(f"official writer script failed:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tsfile bench write")
    parser.add_argument("--rows", type=int, default=20_000_000, help="total rows (10 devices)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--official-repeat", type=int, default=None, help="default: --repeat")
    parser.add_argument("--row-api-rows", type=int, default=100_000)
    parser.add_argument("--no-official", action="store_true")
    parser.add_argument("--dir", default=None, help="where the files go (default: a temp dir)")
    parser.add_argument(
        "--compression",
        default="SNAPPY",
        type=str.upper,
        choices=["UNCOMPRESSED", "SNAPPY", "GZIP", "LZ4", "ZSTD"],
        help="page compression of both writers (default SNAPPY, the E5-2 shape)",
    )
    parser.add_argument(
        "--against",
        default=None,
        metavar="TREE",
        help="also time the default-threads and threads=2 writes of the tsfile built in source "
        "tree TREE (a child process, rounds interleaved with ours)",
    )
    parser.add_argument(
        "--ceiling",
        action="store_true",
        help="also time the write split between two processes started together (every chunk "
        "group on the calling thread in each): what two cores give this work",
    )
    args = parser.parse_args(argv)
    global COMPRESSION
    COMPRESSION = args.compression

    ns = {}
    exec(_DATA_CODE, ns)
    rows = args.rows // DEVICES * DEVICES
    print(
        f"[bench write] {rows:,} rows = {DEVICES} devices x {rows // DEVICES:,}, {FIELDS} INT64 "
        f"fields, TS_2DIFF + {COMPRESSION}; CPU: {_cpu_model()}; medians of {args.repeat}"
    )
    with tempfile.TemporaryDirectory(prefix="tsfile-bench-write-", dir=args.dir) as out_dir:
        data = ns["e52_data"](rows)
        ours = run_ours(data, out_dir, args.repeat, args.row_api_rows)
        against = None if args.against is None else _Against(args.against, rows, out_dir)
        try:
            threaded = run_threads(data, out_dir, args.repeat, against)
        finally:
            if against is not None:
                against.close()
        threaded["load"] = os.getloadavg()
        del data
        official = None
        py = None if args.no_official else official_python()
        if py is not None:
            official = run_official(
                py, rows, out_dir, args.official_repeat or args.repeat, args.row_api_rows
            )
        elif not args.no_official:
            print(
                "[bench write] official venv not found: official figures skipped", file=sys.stderr
            )

    def line(name, seconds, nrows, size=None, base=None):
        rate = nrows / seconds / 1e6
        ratio = "" if base is None else f"{base / seconds:8.2f}x"
        mb = "" if size is None else f"{size / 1e6:9.1f}"
        print(f"  {name:<44} {seconds:9.3f} {rate:10.2f} {mb:>9} {ratio:>9}")

    print(f"  {'writer':<44} {'median s':>9} {'M rows/s':>10} {'file MB':>9} {'vs off.':>9}")
    base = official["arrow"] if official else None
    line("ours write_arrays (numpy)", ours["arrays"], rows, ours["size"], base)
    line("ours write_arrays, overwrite=True (rename)", ours["arrays_overwrite"], rows, None, base)
    if "dataframe" in ours:
        line("ours write_dataframe (all devices)", ours["dataframe"], rows, None, base)
    if official:
        line("official write_arrow_batch", official["arrow"], rows, official["size"])
    sec, n = ours["row_api"]
    obase = None
    if official:
        osec, on = official["row_api"]
        obase = osec * n / on
    line(f"ours Tablet row API ({n:,} rows)", sec, n, None, obase)
    if official:
        line(f"official Tablet row API ({on:,} rows)", osec, on)
        print(f"  file size ours / official: {ours['size'] / official['size']:.4f}")
    _print_threads(threaded, rows, args.against)
    if args.ceiling:
        print_ceiling(rows, args.repeat, args.dir)
    return 0


def _print_threads(threaded, rows, against=None):
    """One thread against two (issue 8 target: two threads at least 1.7x one); with --against,
    the other tree's build beside them (its threads=2 against its own one thread)."""
    head = ("median s", "M rows/s", "CPU s", "vs one")
    load = " ".join(f"{x:.2f}" for x in threaded["load"])
    print(f"  (threads: variants interleaved, medians; load average after them: {load})")
    print(f"  {'write_arrays, threads':<44} " + " ".join(f"{h:>9}" for h in head))
    labels = {
        "one": "one writer, default threads",
        "two_writers": "two writers in two threads (two files)",
        "threads2": "one writer, threads=2",
    }
    if against is not None:
        tree = os.path.basename(os.path.abspath(against)) or against
        labels["against_one"] = f"{tree}: one writer, default threads"
        labels["against_threads2"] = f"{tree}: one writer, threads=2"
    for name, label in labels.items():
        wall, cpu = threaded[name]
        base = threaded["against_one" if name.startswith("against_") else "one"][0]
        print(f"  {label:<44} {wall:9.3f} {rows / wall / 1e6:10.2f} {cpu:9.2f} {base / wall:8.2f}x")
    wall, cpu = threaded["caller_only"]
    label = "one writer, threads=1 (all on the caller)"
    print(f"  {label:<44} {wall:9.3f} {rows / wall / 1e6:10.2f} {cpu:9.2f}")
    print(f"  {'  threads=2 vs threads=1':<44} {wall / threaded['threads2'][0]:38.2f}x")


class _WriteRows:
    """A ceiling job (tsfile._bench.ceiling): write_arrays of the devices ``part`` (None: all,
    0 / 1: every other device) of the E5-2 data of ``rows`` rows to a new file, with every chunk
    group built and written on the calling thread (``mode`` "caller": ``threads=1``), or with
    the default threads / ``threads=2`` ("one" / "threads2"). The previous round's file is
    removed untimed."""

    def __init__(self, rows, part, mode, out_dir, compression):
        global COMPRESSION
        COMPRESSION = compression
        ns = {}
        exec(_DATA_CODE, ns)
        data = ns["e52_data"](rows)
        self.data = data if part is None else data[part::2]
        self.schema, self.comp = _schema()
        self.options = {"threads": 2} if mode == "threads2" else {}
        if mode == "caller":
            self.options = {"threads": 1}
        self.path = os.path.join(out_dir, f"ceiling-{mode}-{part}.tsfile")

    def before(self):
        _remove(self.path)

    def run(self):
        from tsfile.writer import TsFileTableWriter

        with TsFileTableWriter(self.path, self.schema, compression=self.comp, **self.options) as w:
            for dev, ts, vals in self.data:
                w.write_arrays(ts, {"device": dev, **{f"f{i}": v for i, v in enumerate(vals)}})


def write_rows_job(rows, part, mode, out_dir, compression):
    return _WriteRows(rows, part, mode, out_dir, compression)


def print_ceiling(rows, repeat, where=None):
    """The write split between two processes (half the devices each, every chunk group on
    the calling thread) against one process doing it all so (threads=1), and the default
    threads / threads=2 in one process: threads=2 as a share of what two cores give."""
    from tsfile._bench import ceiling

    job = "tsfile._bench.write:write_rows_job"
    with tempfile.TemporaryDirectory(prefix="tsfile-bench-ceiling-", dir=where) as out:

        def args(part, mode):
            return (rows, part, mode, out, COMPRESSION)

        got = ceiling.interleaved(
            {
                "caller": (job, [args(None, "caller")]),
                "two": (job, [args(0, "caller"), args(1, "caller")]),
                "one": (job, [args(None, "one")]),
                "threads2": (job, [args(None, "threads2")]),
            },
            repeat,
        )
    print("\n## two cores' ceiling for this write (processes started together, file removal")
    print(f"   untimed; medians of 3 x {repeat} rounds, modes interleaved)")
    caller, two, one, t2 = got["caller"], got["two"], got["one"], got["threads2"]

    def line(label, wall, note=""):
        print(f"  {label:<46} {wall:9.3f} s {rows / wall / 1e6:8.2f} M rows/s  {note}")

    line("one process, threads=1 (all on the caller)", caller)
    line("two processes, half the devices each", two, f"{caller / two:.2f}x (ceiling)")
    line("one process, default threads", one, f"{caller / one:.2f}x")
    line(
        "one process, threads=2",
        t2,
        f"{caller / t2:.2f}x threads=1, {one / t2:.2f}x the default "
        f"({two / t2:.0%} of the ceiling)",
    )


if __name__ == "__main__":
    sys.exit(main())
