"""Write speed of the table writer on the E5-2 file shape (issue 3, section 4).

10 devices (TAG ``device``), 8 INT64 fields, timestamps 1 ms apart with 5 % 2-ms steps, random-walk
values with steps uniform in [-100, 100] (``default_rng(42)``), TS_2DIFF + SNAPPY: the data of
``python -m tsfile bench write`` (which also runs the official writer for comparison). ``setup``
raises NotImplementedError where the commit under test lacks the writer or the fast path.
"""

import os
import tempfile

from ._settings import *  # noqa: F403 (sample counts as module attributes)

FIELDS = 8


def _writer():
    try:
        from tsfile._bench.write import _DATA_CODE, _schema
        from tsfile.writer import TsFileTableWriter
    except ImportError as exc:
        raise NotImplementedError(f"writer not available: {exc}") from None
    if not hasattr(TsFileTableWriter, "write_arrays"):
        raise NotImplementedError("no write_arrays in this commit")
    ns = {}
    exec(_DATA_CODE, ns)
    return TsFileTableWriter, _schema, ns["e52_data"]


class WriteArrays:
    """write_arrays once per device + close: the numpy fast path."""

    params = [2_000_000, 20_000_000]
    param_names = ["rows"]
    timeout = 600
    number = 1
    repeat = 3

    def setup(self, rows):
        self.writer, schema, make = _writer()
        self.schema, self.comp = schema()
        self.data = make(rows)
        self.dir = tempfile.mkdtemp(prefix="asv-tsfile-write-")
        self.path = os.path.join(self.dir, "bench.tsfile")

    def teardown(self, rows):
        if os.path.exists(self.path):
            os.remove(self.path)
        os.rmdir(self.dir)

    def _write(self):
        # Repeats write the same path; the writer refuses to replace a file (and commits before
        # the overwrite keyword have none), so the file goes first.
        if os.path.exists(self.path):
            os.remove(self.path)
        with self.writer(self.path, self.schema, compression=self.comp) as w:
            for dev, ts, vals in self.data:
                w.write_arrays(ts, {"device": dev, **{f"f{i}": v for i, v in enumerate(vals)}})

    def time_write_arrays(self, rows):
        self._write()

    def track_file_bytes(self, rows):
        self._write()
        return os.path.getsize(self.path)

    track_file_bytes.unit = "bytes"


class WriteDataFrame:
    """write_dataframe of one DataFrame with all devices (grouping by the tag included)."""

    params = [2_000_000]
    param_names = ["rows"]
    timeout = 600
    number = 1
    repeat = 3

    def setup(self, rows):
        try:
            import numpy as np
            import pandas as pd
        except ImportError as exc:
            raise NotImplementedError(str(exc)) from None
        self.writer, schema, make = _writer()
        self.schema, self.comp = schema()
        data = make(rows)
        self.df = pd.DataFrame(
            {
                "time": np.concatenate([d[1] for d in data]),
                "device": np.concatenate([np.full(len(d[1]), d[0], dtype=object) for d in data]),
                **{f"f{i}": np.concatenate([d[2][i] for d in data]) for i in range(FIELDS)},
            }
        )
        self.dir = tempfile.mkdtemp(prefix="asv-tsfile-write-")
        self.path = os.path.join(self.dir, "bench.tsfile")

    def teardown(self, rows):
        if os.path.exists(self.path):
            os.remove(self.path)
        os.rmdir(self.dir)

    def time_write_dataframe(self, rows):
        with self.writer(self.path, self.schema, compression=self.comp) as w:
            w.write_dataframe(self.df)


class WriteRowApi:
    """The Tablet row API: add_timestamp + add_value_by_index per cell, 10,000-row tablets."""

    params = [20_000]
    param_names = ["rows"]
    number = 1
    repeat = 3

    def setup(self, rows):
        self.writer, schema, make = _writer()
        from tsfile.tablet import Tablet
        from tsfile.types import TSDataType

        self.Tablet = Tablet
        self.types = [TSDataType.STRING] + [TSDataType.INT64] * FIELDS
        self.schema, self.comp = schema()
        dev, ts, vals = make(rows * 10)[0]
        self.dev, self.ts, self.cols = dev, ts.tolist(), [v.tolist() for v in vals]
        self.dir = tempfile.mkdtemp(prefix="asv-tsfile-write-")
        self.path = os.path.join(self.dir, "bench.tsfile")

    def teardown(self, rows):
        if os.path.exists(self.path):
            os.remove(self.path)
        os.rmdir(self.dir)

    def time_row_api(self, rows):
        names = ["device"] + [f"f{i}" for i in range(FIELDS)]
        with self.writer(self.path, self.schema, compression=self.comp) as w:
            for a in range(0, rows, 10_000):
                b = min(rows, a + 10_000)
                tab = self.Tablet(names, self.types, b - a)
                for r in range(b - a):
                    tab.add_timestamp(r, self.ts[a + r])
                    tab.add_value_by_index(0, r, self.dev)
                    for c in range(FIELDS):
                        tab.add_value_by_index(c + 1, r, self.cols[c][a + r])
                w.write_table(tab)


class WriteThreads:
    """Two threads against one (issue 8 item 4): write_arrays of 4 M rows by one writer in one
    thread ("one"), by two writers in two threads writing half the devices each to their own
    file ("two_writers"), or by one writer with threads=2 ("threads2")."""

    params = [["one", "two_writers", "threads2"]]
    param_names = ["mode"]
    timeout = 600
    number = 1
    repeat = 3

    def setup(self, mode):
        self.writer, schema, make = _writer()
        if not _accepts_threads():
            raise NotImplementedError("no threads= option in this commit")
        self.schema, self.comp = schema()
        self.data = make(4_000_000)
        self.dir = tempfile.mkdtemp(prefix="asv-tsfile-write-threads-")

    def teardown(self, mode):
        for name in os.listdir(self.dir):
            os.remove(os.path.join(self.dir, name))
        os.rmdir(self.dir)

    def _write(self, name, part, **options):
        path = os.path.join(self.dir, name)
        if os.path.exists(path):
            os.remove(path)
        with self.writer(path, self.schema, compression=self.comp, **options) as w:
            for dev, ts, vals in part:
                w.write_arrays(ts, {"device": dev, **{f"f{i}": v for i, v in enumerate(vals)}})

    def time_write(self, mode):
        import threading

        if mode == "one":
            self._write("one.tsfile", self.data)
        elif mode == "threads2":
            self._write("threads2.tsfile", self.data, threads=2)
        else:
            halves = (self.data[0::2], self.data[1::2])
            threads = [
                threading.Thread(target=self._write, args=(f"half{k}.tsfile", h))
                for k, h in enumerate(halves)
            ]
            for t in threads:
                t.start()
            for t in threads:
                t.join()


def _accepts_threads():
    """True when the writer takes threads= (TsFileTableWriter passes its options on to it)."""
    try:
        from tsfile.writer import TsFileWriter
    except ImportError:
        return False
    import inspect

    return "threads" in inspect.signature(TsFileWriter.__init__).parameters
