"""Shards for the dataset tests: small table-model files written by this package's writer."""

from __future__ import annotations

import numpy as np

import tsfile
from tsfile.types import ColumnCategory, TSDataType
from tsfile.writer import TsFileWriter

DEVICES = ("a", "b")


def write_shard(path, t0, n, devices=DEVICES, extra=None, x_type=TSDataType.DOUBLE, null_every=0):
    """Table ``m``: TAG ``id``, FIELD ``x`` (``x_type``; value t + 0.5 for DOUBLE, null every
    ``null_every``-th row), FIELD ``ts`` TIMESTAMP; ``extra``: one more INT32 FIELD of that name.
    ``n`` rows per device at times t0 .. t0 + n - 1."""
    cols = [
        tsfile.ColumnSchema("id", TSDataType.STRING, ColumnCategory.TAG),
        tsfile.ColumnSchema("x", x_type, ColumnCategory.FIELD),
        tsfile.ColumnSchema("ts", TSDataType.TIMESTAMP, ColumnCategory.FIELD),
    ]
    if extra:
        cols.append(tsfile.ColumnSchema(extra, TSDataType.INT32, ColumnCategory.FIELD))
    w = TsFileWriter(str(path), overwrite=True)
    w.register_table(tsfile.TableSchema("m", cols))
    times = np.arange(t0, t0 + n, dtype=np.int64)
    for k, dev in enumerate(devices):
        x = times + 0.5 + k if x_type == TSDataType.DOUBLE else times + k
        if null_every:
            x = np.ma.MaskedArray(x, mask=(np.arange(n) % null_every) == 1)
        columns = {"id": dev, "x": x, "ts": times * 10}
        if extra:
            columns[extra] = np.arange(n, dtype=np.int32)
        w.write_arrays("m", times, columns)
    w.close()
    return str(path)


def write_shards(directory, files=3, rows=50, step=100, **kw):
    """``files`` shards split by time: file i holds times i*step .. i*step + rows - 1."""
    return [
        write_shard(directory / f"part{i:03d}.tsfile", i * step, rows, **kw) for i in range(files)
    ]
