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
