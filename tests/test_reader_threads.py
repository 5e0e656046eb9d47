"""A TsFileReader under threads: queries on one shared reader from several threads give exactly the
single-threaded results, closing a reader while another thread reads from it fails that thread
with ClosedError (never a crash, a hang or a short result), a ResultSet refuses use after close
and use from two threads at once."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest
from interop.expected import fixture_path

import tsfile
from tsfile import ClosedError, TsFileError
from tsfile._read.resultset import ResultSet, TsBlock
from tsfile.types import ColumnCategory, Compressor, TSDataType, TSEncoding

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

TREE = fixture_path("tree_nonaligned")

# A table large enough that decodes overlap: 6 devices x 3 flushes x 6,000 rows, pages of 500
# rows, SNAPPY pages (decompressed into the reader's scratch buffers), several encodings.
DEVICES = ["d0", "d1", "d2", "d3", "d4", "d5"]
ROWS_PER_FLUSH = 6000
FLUSHES = 3
FIELDS = {
    "i64": (TSDataType.INT64, TSEncoding.TS_2DIFF),
    "f64": (TSDataType.DOUBLE, TSEncoding.GORILLA),
    "i32": (TSDataType.INT32, TSEncoding.RLE),
    "f32": (TSDataType.FLOAT, TSEncoding.PLAIN),
    "txt": (TSDataType.TEXT, TSEncoding.DICTIONARY),
    "flag": (TSDataType.BOOLEAN, TSEncoding.PLAIN),
}


def write_table_file(path):
    """The shared test table (deterministic); also run by the subprocess of the close test."""
    from tsfile import writer

    rng = np.random.default_rng(7)
    cols = [tsfile.ColumnSchema("dev", TSDataType.STRING, ColumnCategory.TAG)]
    cols += [
        tsfile.ColumnSchema(n, t, ColumnCategory.FIELD, encoding=e) for n, (t, e) in FIELDS.items()
    ]
    w = writer.TsFileWriter(str(path), compression=Compressor.SNAPPY, page_size=500)
    w.register_table(tsfile.TableSchema("t", cols))
    for f in range(FLUSHES):
        for d, dev in enumerate(DEVICES):
            n = ROWS_PER_FLUSH
            ts = (np.arange(n, dtype=np.int64) + f * n) * 10 + d
            data = {
                "dev": dev,
                "i64": np.cumsum(rng.integers(-1000, 1000, n)).astype(np.int64),
                "f64": np.round(rng.normal(size=n) * 100, 3),
                "i32": rng.integers(0, 50, n).astype(np.int32),
                "f32": rng.random(n).astype(np.float32),
                "txt": np.array([f"v{int(x)}" for x in rng.integers(0, 40, n)], dtype=object),
                "flag": rng.random(n) < 0.5,
            }
            masks = {"f64": rng.random(n) < 0.1, "txt": rng.random(n) < 0.1}
            w.write_arrays("t", ts, data, masks)
        w.flush()
    w.close()


@pytest.fixture(scope="module")
def table_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("threads") / "shared.tsfile"
    write_table_file(path)
    return path


# -- results as comparable values ---------------------------------------------------------------


def _column_values(values, mask):
    """(value bytes or list, null mask): nulls are compared by mask, values where present."""
    values = np.asarray(values)
    mask = np.zeros(len(values), np.bool_) if mask is None else np.asarray(mask, np.bool_)
    if values.dtype == object:
        return [None if m else v for v, m in zip(values, mask, strict=True)], mask.tobytes()
    present = np.ascontiguousarray(values[~mask])
    return present.tobytes(), mask.tobytes()


def _from_blocks(blocks, names):
    ts = np.concatenate([b.timestamps for b in blocks]) if blocks else np.empty(0, np.int64)
    out = {"time": ts.tobytes()}
    for name in names[1:]:
        vals = np.concatenate([b.columns[name] for b in blocks]) if blocks else np.empty(0)
        masks = [b.nulls.get(name, np.zeros(len(b), np.bool_)) for b in blocks]
        mask = np.concatenate(masks) if masks else np.empty(0, np.bool_)
        out[name] = _column_values(vals, mask)
    return out


def read_blocks(reader, batch_size, t1=None, t2=None):
    with reader.query_table("t", None, t1, t2, batch_size=batch_size) as rs:
        names = rs.get_column_names()
        blocks = []
        while (b := rs.get_next_tsblock()) is not None:
            blocks.append(b)
    return _from_blocks(blocks, names)


def read_whole(reader, t1=None, t2=None):
    names, _types, ts, cols, nulls = reader.read_columns("t", None, t1, t2)
    out = {"time": ts.tobytes()}
    for name in names[1:]:
        out[name] = _column_values(cols[name], nulls.get(name))
    return out


def read_rows(reader, t1, t2):
    rows = []
    with reader.query_table("t", ["i64", "txt", "f64"], t1, t2) as rs:
        while rs.next():
            rows.append(rs.get_row())
    return rows


def read_tree(reader):
    dev = reader.get_all_devices()[0]
    names = reader.get_timeseries_names(dev)
    with reader.query_timeseries(dev, names) as rs:
        cols = rs.get_column_names()
        blocks = []
        while (b := rs.get_next_tsblock()) is not None:
            blocks.append(b)
    return _from_blocks(blocks, cols)


# -- defect: one reader shared by threads gave wrong arrays and spurious CorruptDataErrors ---------


def test_shared_reader_gives_single_threaded_results(table_file):
    """4 threads x rounds of every kind of query on ONE reader (and one shared tree-model reader):
    every result must equal the single-threaded one. The old reader decoded every query into one
    scratch buffer per reader, without the GIL: most rounds gave wrong values or errors."""
    t1, t2 = 20_000, 90_000  # partial pages at both ends: decoded through the scratch buffers
    with tsfile.TsFileReader(table_file) as r, tsfile.TsFileReader(TREE) as tr:
        want = {
            "blocks": read_blocks(r, 2000),
            "blocks_range": read_blocks(r, 0, t1, t2),
            "whole": read_whole(r),
            "whole_range": read_whole(r, t1, t2),
            "rows": read_rows(r, t1, t1 + 3000),
            "tree": read_tree(tr),
        }
        jobs = {
            "blocks": lambda: read_blocks(r, 2000),
            "blocks_range": lambda: read_blocks(r, 0, t1, t2),
            "whole": lambda: read_whole(r),
            "whole_range": lambda: read_whole(r, t1, t2),
            "rows": lambda: read_rows(r, t1, t1 + 3000),
            "tree": lambda: read_tree(tr),
        }
        order = list(jobs)
        failures = []
        start = threading.Barrier(4)

        def work(k):
            start.wait()
            for rnd in range(8):
                name = order[(k + rnd) % len(order)]
                try:
                    got = jobs[name]()
                except Exception as exc:  # noqa: BLE001 - collected and reported below
                    failures.append((k, rnd, name, repr(exc)))
                    continue
                if got != want[name]:
                    failures.append((k, rnd, name, "result differs from the single-threaded one"))

        threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not failures, failures[:5]


# -- defect: closing a reader while another thread iterates crashed the process ------------------

_CLOSE_RACE = textwrap.dedent(
    """
    import random, sys, threading, time
    import numpy as np
    sys.path.insert(0, {tests!r})
    import tsfile
    from tsfile import ClosedError

    path = {path!r}
    with tsfile.TsFileReader(path) as r:
        names = ["time"] + [c.column_name for c in r.get_table_schema("t").columns
                            if c.category != tsfile.ColumnCategory.TAG]
        full = r.read_columns("t", names[1:])
        want_ts = full[2]
    random.seed(1)
    outcomes = {{"complete": 0, "closed": 0, "closed midway": 0}}

    def consume_blocks(r, box):
        try:
            rs = r.query_table("t", names[1:], batch_size=1000)
            pos = 0
            while (b := rs.get_next_tsblock()) is not None:
                n = len(b)
                # every block served is whole and right, also the last one before the close
                if not (b.timestamps == want_ts[pos:pos + n]).all():
                    box.append("wrong block at row %d" % pos)
                    return
                pos += n
                box.append(pos)
            box.append("complete" if pos == len(want_ts) else "short result: %d rows" % pos)
        except ClosedError:
            box.append("closed midway" if box else "closed")
        except BaseException as exc:
            box.append("unexpected %r" % (exc,))

    def consume_rows(r, box):
        try:
            rs = r.query_table("t", ["i64"], batch_size=500)
            k = 0
            while rs.next():
                if rs.get_value_by_index(1) != want_ts[k]:
                    box.append("wrong row %d" % k)
                    return
                k += 1
                if k % 1000 == 0:
                    box.append(k)
            box.append("complete" if k == len(want_ts) else "short result: %d rows" % k)
        except ClosedError:
            box.append("closed midway" if box else "closed")
        except BaseException as exc:
            box.append("unexpected %r" % (exc,))

    def consume_whole(r, box):
        try:
            got = r.read_columns("t", names[1:])
            box.append("complete" if np.array_equal(got[2], want_ts) else "wrong read_columns")
        except ClosedError:
            box.append("closed")
        except BaseException as exc:
            box.append("unexpected %r" % (exc,))

    kinds = [consume_blocks, consume_rows, consume_whole]
    took = []  # how long each kind takes unhindered: the closes are spread over that time
    for kind in kinds:
        t0 = time.perf_counter()
        with tsfile.TsFileReader(path) as r:
            kind(r, [])
        took.append(time.perf_counter() - t0)
    for i in range({rounds}):
        r = tsfile.TsFileReader(path)
        box = []
        t = threading.Thread(target=kinds[i % 3], args=(r, box))
        t.start()
        time.sleep(random.random() * took[i % 3] * 1.3)
        r.close()
        t.join(60)
        if t.is_alive():
            print("HUNG in round", i, kinds[i % 3].__name__)
            sys.exit(3)
        if box[-1] not in outcomes:
            print("BAD round", i, kinds[i % 3].__name__, box[-1])
            sys.exit(2)
        outcomes[box[-1]] += 1
    print("OK", outcomes)
    """
)


def test_close_while_another_thread_reads_fails_that_thread_cleanly(table_file):
    """A reader closed while another thread reads from it (blocks, rows, read_columns): that
    thread gets ClosedError or its whole result, every block it saw is right, the process lives.
    Run in a subprocess: the old reader unmapped the file under the running decode (segfault),
    or ended the other thread's iteration early as if the result were complete."""
    script = _CLOSE_RACE.format(tests=HERE, path=str(table_file), rounds=90)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([ROOT, HERE])}
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, env=env
    )
    assert proc.returncode == 0, (proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])
    assert proc.stdout.startswith("OK"), proc.stdout
    # the race really raced: threads were closed in the middle of their reads
    assert "'closed midway': 0" not in proc.stdout, proc.stdout


def test_close_from_inside_iteration_in_the_same_thread(table_file):
    """close() called by the thread that iterates (between blocks) must not wait for itself:
    it returns, and the next call raises ClosedError."""
    r = tsfile.TsFileReader(table_file)
    rs = r.query_table("t", ["i64"], batch_size=1000)
    assert rs.get_next_tsblock() is not None
    r.close()
    with pytest.raises(ClosedError):
        rs.get_next_tsblock()


def test_close_in_the_middle_of_a_decode_of_the_same_thread(table_file):
    """close() reached from inside a decode of the same thread (e.g. a signal handler) must
    neither wait for that decode (a deadlock) nor unmap the file under it: the decode ends on
    the mapped file, the file is unmapped when it does, and the next block raises ClosedError."""
    r = tsfile.TsFileReader(table_file)
    rs = r.query_table("t", ["i64", "f64"], batch_size=1000)
    first = rs.get_next_tsblock()
    decode_fields = r._decode_fields

    def close_then_decode(*args, **kwargs):  # runs inside the decode of a chunk group
        r.close()
        assert r._fv is not None  # not yet: the decode still runs on it
        return decode_fields(*args, **kwargs)

    r._decode_fields = close_then_decode
    box = []

    def consume():
        try:
            box.append(rs.get_next_tsblock())
            box.append(rs.get_next_tsblock())
        except BaseException as exc:  # noqa: BLE001 - checked below
            box.append(exc)

    t = threading.Thread(target=consume)
    t.start()
    t.join(30)
    assert not t.is_alive(), "close() inside a decode of its own thread deadlocked"
    block, err = box
    assert len(block) == len(first) and block.timestamps[0] > first.timestamps[-1]
    assert isinstance(err, ClosedError)
    assert r._fv is None  # unmapped when the decode ended


# -- defect: a ResultSet used after its reader is closed looked like an empty result ---------------


@pytest.mark.parametrize(
    "call",
    [
        lambda rs: rs.next(),
        lambda rs: rs.get_next_tsblock(),
        lambda rs: rs.read_arrow_batch(),
        lambda rs: rs.get_value_by_index(1),
        lambda rs: rs.get_value_by_name("i64"),
        lambda rs: rs.is_null_by_index(2),
        lambda rs: rs.get_row(),
        lambda rs: list(rs),
    ],
    ids=["next", "tsblock", "arrow", "value_by_index", "value_by_name", "is_null", "row", "iter"],
)
@pytest.mark.parametrize("closed_by", ["reader", "itself"])
def test_result_set_after_close_raises(table_file, call, closed_by):
    """After its reader's close (or its own close: the official package raises there too), every
    row and block method of a ResultSet raises ClosedError; it used to return False / None, which
    reads as the end of a complete result."""
    r = tsfile.TsFileReader(table_file)
    rs = r.query_table("t", ["i64"], batch_size=1000)
    assert rs.next()
    if closed_by == "reader":
        r.close()
    else:
        rs.close()
    with pytest.raises(ClosedError, match="closed"):
        call(rs)
    rs.close()  # closing again is harmless
    r.close()
    assert rs.get_column_names() == ["time", "i64"]  # metadata stays available


def test_reader_methods_after_close_raise_closed_error(table_file):
    r = tsfile.TsFileReader(table_file)
    r.close()
    for call in (
        lambda: r.query_table("t", None),
        lambda: r.read_columns("t"),
        lambda: r.get_all_devices(),
        lambda: r.get_table_schema("t"),
        lambda: r.query_timeseries("root.x", ["s"]),
    ):
        with pytest.raises(ClosedError):
            call()
    r.close()


# -- a ResultSet is for one consumer at a time: concurrent use is an error, not a race -----------


def test_result_set_used_from_two_threads_at_once_raises():
    """While one thread is inside next() (fetching a block), another thread's calls raise
    TsFileError instead of reading the cursor state the first one is changing."""
    inside = threading.Event()
    release = threading.Event()

    def blocks():
        ts = np.arange(3, dtype=np.int64)
        yield TsBlock(ts, {"v": ts.copy()}, {})
        inside.set()
        release.wait(10)
        yield TsBlock(ts + 3, {"v": ts + 3}, {})

    rs = ResultSet(blocks(), ["time", "v"], [TSDataType.INT64, TSDataType.INT64])
    for _ in range(3):
        assert rs.next()
    errors = []
    t = threading.Thread(target=lambda: errors.append(rs.next()))
    t.start()
    assert inside.wait(10)
    try:
        for call in (rs.next, rs.get_row, lambda: rs.get_value_by_index(1), rs.get_next_tsblock):
            with pytest.raises(TsFileError, match="two threads"):
                call()
    finally:
        release.set()
        t.join(10)
    assert errors == [True]
    assert rs.get_row() == (3, 3)  # the first thread's next() completed normally


def test_pooled_scratch_keeps_no_large_page_alive(tmp_path):
    """After a read of a file with 40 MB pages, the scratch buffers the reader pools for the next
    operations hold no page-sized memory (they kept the largest page ever read, for good)."""
    import gc
    import tracemalloc

    from tsfile import (
        ColumnCategory,
        ColumnSchema,
        Compressor,
        TableSchema,
        TSDataType,
        TSEncoding,
        TsFileTableWriter,
    )

    n = 5_000_000
    path = tmp_path / "big_pages.tsfile"
    schema = TableSchema(
        "t",
        [
            ColumnSchema("d", TSDataType.STRING, ColumnCategory.TAG),
            ColumnSchema("v", TSDataType.INT64, ColumnCategory.FIELD, encoding=TSEncoding.PLAIN),
        ],
    )
    rng = np.random.default_rng(1)
    with TsFileTableWriter(str(path), schema, page_size=n, compression=Compressor.SNAPPY) as w:
        w.write_arrays(np.arange(n, dtype=np.int64), {"d": "a", "v": rng.integers(0, 1 << 62, n)})
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        columns = tsfile.read_table(str(path), "t", ["v"])
        assert columns["v"].shape == (n,)
        del columns
        gc.collect()
        left = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    assert left < 8 << 20, f"{left / 2**20:.1f} MiB still held after the read"
