"""Regressions found by a review of the many-file read work (merge c7fe1ef): null masks private
to a process across fork, the first corrupt chunk in file order reported, and row bounds read once
by the C fill (no out-of-bounds write)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import tsfile
from tsfile.types import ColumnCategory, Compressor, TSDataType


def _fork_and(fn):
    """Run fn() in a forked child, wait for it."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            fn()
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_fresh_zeros_is_private_across_fork():
    # mmap.mmap(-1, n) alone is a SHARED mapping (c7fe1ef): a forked child's writes would reach
    # the parent; np.zeros is copy-on-write, and so must fresh.zeros be
    from tsfile._mem import fresh

    a = fresh.zeros(2 << 20, np.bool_)

    def child():
        a[0] = True

    _fork_and(child)
    assert not a[0]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_read_columns_null_mask_private_across_fork(tmp_path):
    # read_columns' null masks (>= 1 MiB: fresh.zeros) must not be shared with forked children:
    # a child's in-place edit must not change the parent's result
    rows = (1 << 20) + 1000
    path = str(tmp_path / "m.tsfile")
    cols = [
        tsfile.ColumnSchema("dev", TSDataType.STRING, ColumnCategory.TAG),
        tsfile.ColumnSchema("a", TSDataType.INT64, ColumnCategory.FIELD),
    ]
    ts = np.arange(rows, dtype=np.int64)
    nulls = np.zeros(rows, np.bool_)
    nulls[::2] = True
    with tsfile.TsFileWriter(path) as w:
        w.register_table(tsfile.TableSchema("t", cols))
        w.write_arrays("t", ts, {"dev": "d1", "a": ts}, null_masks={"a": nulls})
    with tsfile.TsFileReader(path) as r:
        got = r.read_columns("t", ["dev", "a"])
    mask = got[4]["a"]
    assert mask[0] and not mask[1]

    def child():
        mask[1] = True  # the child's own copy, as with any numpy array after fork

    _fork_and(child)
    assert not mask[1]


def test_read_columns_reports_first_corrupt_chunk_in_file_order(tmp_path):
    # c7fe1ef's engine.read_value_groups decoded the numeric chunks of ALL groups before any STRING
    # chunk, so a corrupt INT64 chunk of group 2 was reported instead of the corrupt STRING chunk
    # of group 1 that query_table (and a group-by-group read) reports
    path = str(tmp_path / "e.tsfile")
    cols = [
        tsfile.ColumnSchema("dev", TSDataType.STRING, ColumnCategory.TAG),
        tsfile.ColumnSchema(
            "n", TSDataType.INT64, ColumnCategory.FIELD, compression=Compressor.LZ4
        ),
        tsfile.ColumnSchema(
            "s", TSDataType.STRING, ColumnCategory.FIELD, compression=Compressor.LZ4
        ),
    ]
    with tsfile.TsFileWriter(path) as w:
        w.register_table(tsfile.TableSchema("t", cols))
        for g in range(2):
            ts = np.arange(g * 1000, (g + 1) * 1000, dtype=np.int64)
            strs = np.array([f"v{i}" for i in ts], dtype=object)
            w.write_arrays("t", ts, {"dev": "d1", "n": ts * 7 + 3, "s": strs})
            w.flush()
    with tsfile.TsFileReader(path) as r:
        key = next(iter(r._meta.table_roots))
        ((_dev, rng),) = r._devices(key)
        series = r._series(key, rng)
        s1 = series["s"].chunks[0].offset  # group 1's STRING chunk
        n2 = series["n"].chunks[1].offset  # group 2's INT64 chunk
    assert s1 < n2
    raw = bytearray(open(path, "rb").read())
    for at in (s1 + 20, n2 + 25):
        raw[at] ^= 0xFF
        raw[at + 1] ^= 0x55
    open(path, "wb").write(bytes(raw))

    def first_error(how):
        with tsfile.TsFileReader(path) as r, pytest.raises(tsfile.CorruptDataError) as info:
            if how == "columns":
                r.read_columns("t", ["dev", "n", "s"])
            else:
                rs = r.query_table("t", ["dev", "n", "s"])
                while rs.next():
                    pass
        return str(info.value)

    by_rows = first_error("query_table")
    assert f"file offset {n2 + 10}" not in by_rows  # (the query names group 1's chunk)
    assert first_error("columns") == by_rows


def test_fill_runs_reads_each_bound_once():
    # c7fe1ef's tagfill.fill_runs converted starts[k]/stops[k] twice (check loop, then fill
    # loop): an __index__ that changes its answer passed the bounds check and then wrote far
    # outside the column (segfault)
    import subprocess
    import sys

    code = (
        "from tsfile._read import tagfill\n"
        "class S:\n"
        "    def __init__(self, a, b): self.n, self.a, self.b = 0, a, b\n"
        "    def __index__(self):\n"
        "        self.n += 1\n"
        "        return self.a if self.n == 1 else self.b\n"
        "col = tagfill.empty_column(10)\n"
        "try:\n"
        "    tagfill.fill_runs(col, [S(0, 1 << 40)], [S(5, (1 << 40) + 5)], ['x'])\n"
        "except (IndexError, ValueError, TypeError):\n"
        "    pass\n"
    )
    env = dict(os.environ)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode()[-300:]
