"""Read speed of the file reader on the E5-2 file shape (issue 3, section 4).

The file (10 devices x 200,000 rows, 8 INT64 fields, TS_2DIFF + SNAPPY) is written once by this
library's writer into ~/.cache/tsfile-bench (the data of ``python -m tsfile bench read``, which
also measures the official package on a file it wrote). ``setup`` raises NotImplementedError
where the commit under test lacks the reader or the writer.
"""

from ._settings import *  # noqa: F403 (sample counts as module attributes)

ROWS = 2_000_000
COLS = ["device"] + [f"f{i}" for i in range(8)]


def _file():
    try:
        from pathlib import Path

        from tsfile._bench.read import make_our_file, time_ranges
        from tsfile.reader import TsFileReader  # noqa: F401
    except ImportError as exc:
        raise NotImplementedError(f"reader not available: {exc}") from None
    import os

    path = make_our_file(Path(os.path.expanduser("~/.cache/tsfile-bench")), ROWS)
    if path is None:
        raise NotImplementedError("no writer to make the benchmark file")
    ranges, _ = time_ranges(path)
    return str(path), ranges


class TimeRangeBlocks:
    """query_table over a time range, get_next_tsblock until None (batch / SIMD decoders)."""

    params = ([1, 10, 50, 100], ["batch", "simd"])
    param_names = ["selectivity_pct", "path"]
    timeout = 300
    repeat = 5
    number = 1

    def setup(self, sel, path):
        import tsfile

        self.path, ranges = _file()
        self.t1, self.t2 = ranges[sel]
        if path == "simd" and not tsfile.simd_available():
            raise NotImplementedError("no SIMD here")

    def time_blocks(self, sel, path):
        import tsfile

        with tsfile.TsFileReader(self.path) as r:
            with r.query_table("bench", COLS, self.t1, self.t2, path) as rs:
                while rs.get_next_tsblock() is not None:
                    pass


class RowByRow:
    """next() + get_value_by_index for all 10 columns, per-value decoders, first 200,000 rows."""

    timeout = 300
    repeat = 3
    number = 1

    def setup(self):
        self.path, _ = _file()

    def time_rows(self):
        import tsfile

        n = 0
        with tsfile.TsFileReader(self.path) as r:
            with r.query_table("bench", COLS, path="per_value") as rs:
                get = rs.get_value_by_index
                while n < 200_000 and rs.next():
                    get(1), get(2), get(3), get(4), get(5), get(6), get(7), get(8), get(9), get(10)
                    n += 1


class WholeFile:
    """read_table (one set of arrays) and to_dataframe of the whole file; peak memory."""

    timeout = 300
    repeat = 3
    number = 1

    def setup(self):
        self.path, _ = _file()

    def time_read_table(self):
        import tsfile

        tsfile.read_table(self.path, "bench")

    def time_to_dataframe(self):
        import tsfile

        tsfile.to_dataframe(self.path, "bench")

    def peakmem_read_table(self):
        import tsfile

        tsfile.read_table(self.path, "bench")


class ReadThreads:
    """read_table of the whole file with ``threads`` decode threads (issue 8, item 4); the
    process CPU time beside the wall time shows whether the threads ran at once."""

    params = [1, 2]
    param_names = ["threads"]
    timeout = 300
    repeat = 5
    number = 1

    def setup(self, threads):
        import tsfile

        self.path, _ = _file()
        try:
            tsfile.read_table(self.path, "bench", ["f0"], 0, 0, threads=threads)
        except TypeError:
            raise NotImplementedError("read_table has no threads= here") from None

    def time_read_table(self, threads):
        import tsfile

        tsfile.read_table(self.path, "bench", COLS, threads=threads)

    def track_cpu_per_wall(self, threads):
        """Process CPU time / wall time of one read_table (about `threads` on an idle machine)."""
        import time

        import tsfile

        w0, c0 = time.perf_counter(), time.process_time()
        tsfile.read_table(self.path, "bench", COLS, threads=threads)
        return (time.process_time() - c0) / (time.perf_counter() - w0)

    track_cpu_per_wall.unit = "cpu s / wall s"
