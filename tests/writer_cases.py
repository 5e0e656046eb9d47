"""Shared helpers of the writer tests: data specs that both our writer and the official writer
(in its own virtualenv, tests/interop/official.py) can write, so their files can be compared."""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import tempfile

import numpy as np

from tsfile.schema import ColumnSchema, TableSchema
from tsfile.tablet import Tablet
from tsfile.types import ColumnCategory, Compressor, TSDataType
from tsfile.writer import TsFileTableWriter

T = TSDataType

# Runs inside the official package's venv: writes the spec with the official writer (row API).
OFFICIAL_WRITER_SCRIPT = r"""
import datetime, json, os, sys
import tsfile
from tsfile import (TsFileWriter, TableSchema, ColumnSchema, ColumnCategory, TSDataType,
                    TSEncoding, Compressor, Tablet)
jobs = json.load(open(sys.argv[1]))
def conv(v):
    if isinstance(v, dict):
        if "b" in v: return bytes.fromhex(v["b"])
        if "d" in v: return datetime.date.fromisoformat(v["d"])
    return v
defaults = None
for spec in jobs:
    if os.path.exists(spec["path"]):
        os.remove(spec["path"])
    w = TsFileWriter(spec["path"])
    if defaults is None:  # the process's first writer initialises the global config
        defaults = dict(tsfile.get_tsfile_config())
    cfg = dict(defaults)
    for k, v in spec["config"].items():
        if k.endswith("encoding_type_"):
            cfg[k] = TSEncoding(v)
        elif k.endswith("compress_type_") or k.endswith("compression_type_"):
            cfg[k] = Compressor(v)
        else:
            cfg[k] = int(v)
    tsfile.set_tsfile_config(cfg)  # every job from the defaults: the config is process-global
    cols = [ColumnSchema(n, TSDataType[t], ColumnCategory[c]) for n, t, c in spec["columns"]]
    w.register_table(TableSchema(spec["table"], cols))
    names = [c[0] for c in spec["columns"]]
    types = [TSDataType[c[1]] for c in spec["columns"]]
    ts = spec["timestamps"]
    step = spec["tablet_rows"]
    for start in range(0, len(ts), step):
        rows = ts[start:start + step]
        tab = Tablet(names, types, len(rows))
        tab.set_table_name(spec["table"].lower())
        for r, t in enumerate(rows):
            tab.add_timestamp(r, t)
        for c, name in enumerate(names):
            col = spec["data"][name]
            for r in range(len(rows)):
                v = col[start + r]
                if v is not None:
                    tab.add_value_by_index(c, r, conv(v))
        w.write_table(tab)
        if spec.get("flush_each_tablet"):
            w.flush()
    w.close()
"""

CONFIG_KEYS = {
    T.BOOLEAN: "boolean_encoding_type_",
    T.INT32: "int32_encoding_type_",
    T.INT64: "int64_encoding_type_",
    T.FLOAT: "float_encoding_type_",
    T.DOUBLE: "double_encoding_type_",
    T.STRING: "string_encoding_type_",
}


class Spec:
    """A table's data: schema columns [(name, TSDataType, ColumnCategory)], timestamps, and
    {column: list of Python values (None = null)}; rows of all devices mixed."""

    def __init__(self, table, columns, timestamps, data):
        self.table = table
        self.columns = columns
        self.timestamps = list(timestamps)
        self.data = data

    def schema(self, encodings=None, compressions=None):
        encodings = encodings or {}
        compressions = compressions or {}
        return TableSchema(
            self.table,
            [
                ColumnSchema(n, t, c, encodings.get(n), compressions.get(n))
                for n, t, c in self.columns
            ],
        )

    def tablet(self, start=0, stop=None):
        stop = len(self.timestamps) if stop is None else stop
        names = [c[0] for c in self.columns]
        tab = Tablet(names, [c[1] for c in self.columns], stop - start)
        for r, t in enumerate(self.timestamps[start:stop]):
            tab.add_timestamp(r, t)
        for c, name in enumerate(names):
            for r, v in enumerate(self.data[name][start:stop]):
                if v is not None:
                    tab.add_value_by_index(c, r, v)
        return tab

    def write_ours(
        self,
        path,
        tablet_rows=None,
        column_encodings=None,
        column_compressions=None,
        flush_each_tablet=False,
        **options,
    ):
        schema = self.schema(column_encodings, column_compressions)
        with TsFileTableWriter(path, schema, **options) as w:
            step = tablet_rows or max(len(self.timestamps), 1)
            for start in range(0, len(self.timestamps), step):
                w.write_table(self.tablet(start, min(start + step, len(self.timestamps))))
                if flush_each_tablet:
                    w.flush()

    def to_json(self, path, config, tablet_rows, flush_each_tablet=False):
        def enc(v):
            if isinstance(v, bytes):
                return {"b": v.hex()}
            if isinstance(v, datetime.date):
                return {"d": v.isoformat()}
            return v

        return {
            "path": path,
            "table": self.table,
            "columns": [[n, t.name, c.name] for n, t, c in self.columns],
            "config": {k: int(v) for k, v in config.items()},
            "timestamps": self.timestamps,
            "data": {k: [enc(v) for v in vals] for k, vals in self.data.items()},
            "tablet_rows": tablet_rows or max(len(self.timestamps), 1),
            "flush_each_tablet": flush_each_tablet,
        }

    def write_official(self, python, path, config=None, tablet_rows=None, flush_each_tablet=False):
        write_official_many(python, [(self, path, config, tablet_rows, flush_each_tablet)])


def write_official_many(python, jobs):
    """Write several specs with the official writer in ONE subprocess (its start-up dominates):
    jobs = [(spec, path, config, tablet_rows, flush_each_tablet)]."""
    with tempfile.TemporaryDirectory(prefix="tsfile-h5-") as d:
        spec_path = os.path.join(d, "jobs.json")
        with open(spec_path, "w") as f:
            json.dump(
                [
                    spec.to_json(os.path.abspath(path), config or {}, rows, flush)
                    for spec, path, config, rows, flush in jobs
                ],
                f,
            )
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
        proc = subprocess.run(
            [python, "-I", "-c", OFFICIAL_WRITER_SCRIPT, spec_path],
            cwd=d,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"official writer failed:\n{proc.stderr[-3000:]}")


def official_config(compression=Compressor.UNCOMPRESSED, encodings=None, page_size=None):
    cfg = {
        "default_compression_type_": compression,
        "time_compress_type_": compression,
    }
    for dt, enc in (encodings or {}).items():
        cfg[CONFIG_KEYS[dt]] = enc
    if page_size is not None:
        cfg["page_writer_max_point_num_"] = page_size
    return cfg


def first_difference(a: bytes, b: bytes):
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n if len(a) != len(b) else None


def random_spec(seed, n_rows, devices=("d1", "d2"), null_rate=0.1, types=None, table="t"):
    """A table with one TAG column and FIELD columns of the given types, random values (no
    end-marker values), nulls at random, rows of the devices interleaved."""
    rng = np.random.default_rng(seed)
    types = types or [
        T.BOOLEAN,
        T.INT32,
        T.INT64,
        T.FLOAT,
        T.DOUBLE,
        T.TEXT,
        T.STRING,
        T.TIMESTAMP,
        T.DATE,
        T.BLOB,
    ]
    columns = [("dev", T.STRING, ColumnCategory.TAG)]
    data = {"dev": [devices[i % len(devices)] for i in range(n_rows)]}
    ts = []
    per_dev = {}
    for d in data["dev"]:
        per_dev[d] = per_dev.get(d, 0) + 1
        ts.append(1_700_000_000_000 + per_dev[d] * 1000 + int(rng.integers(0, 3)))
    for k, dt in enumerate(types):
        name = f"c{k}_{dt.name.lower()}"
        columns.append((name, dt, ColumnCategory.FIELD))
        vals = _random_values(rng, dt, n_rows)
        nulls = rng.random(n_rows) < null_rate
        data[name] = [None if nulls[i] else vals[i] for i in range(n_rows)]
    return Spec(table, columns, ts, data)


def _random_values(rng, dt, n):
    walk = np.cumsum(rng.integers(-100, 101, n))
    if dt == T.BOOLEAN:
        return [bool(x) for x in rng.integers(0, 2, n)]
    if dt == T.INT32:
        return [int(x) for x in walk]
    if dt in (T.INT64, T.TIMESTAMP):
        return [int(x) * 1_000_003 for x in walk]
    if dt == T.FLOAT:
        return [float(np.float32(x / 8)) for x in walk]
    if dt == T.DOUBLE:
        # two decimals: double sums depend on the order of the additions, which our writer
        # takes from the official one (test_statistics_sums_in_official_order)
        return [float(x) / 100 for x in walk]
    if dt == T.DATE:
        base = datetime.date(2024, 1, 1)
        return [base + datetime.timedelta(days=int(x) % 3000) for x in walk]
    if dt == T.BLOB:
        return [bytes([1 + int(x) % 200, 7, 1 + int(x) % 9]) for x in walk]
    return [f"v{int(x) % 97}é" for x in walk]


SMALL_COLUMNS = [
    ("dev", T.STRING, ColumnCategory.TAG),
    ("b", T.BOOLEAN, ColumnCategory.FIELD),
    ("i32", T.INT32, ColumnCategory.FIELD),
    ("i64", T.INT64, ColumnCategory.FIELD),
    ("f", T.FLOAT, ColumnCategory.FIELD),
    ("d", T.DOUBLE, ColumnCategory.FIELD),
    ("s", T.STRING, ColumnCategory.FIELD),
]
SMALL_ROWS = [
    (100, "d1", True, 1, -2, 1.5, 0.25, "a"),
    (200, "d1", False, None, 300, None, -1.0, "bc"),
    (300, "d1", None, -64, 1099511627776, 2.0, None, None),
    (150, "d2", True, 5, 6, 7.0, 8.0, "é"),
]


def small_spec():
    """The table of the format notes' annotated example (table_small_plain_uncompressed): the
    official writer wrote it with PLAIN everywhere (time too), UNCOMPRESSED."""
    data = {
        name: [row[1 + k] for row in SMALL_ROWS] for k, (name, _, _) in enumerate(SMALL_COLUMNS)
    }
    return Spec("small", SMALL_COLUMNS, [r[0] for r in SMALL_ROWS], data)
