"""Review of the writer's ``threads`` option after it changed meaning (threads=None the default,
one pool thread for large chunk groups; threads=1 everything on the calling thread; N >= 2 the
chunks of a chunk group on N threads): the file's bytes must not depend on it, threads=1 must
start no thread on any path, errors must be the same, bad values must be refused by name, and
the documentation must say the same everywhere."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import tsfile
import tsfile.writer as writer_module
from tsfile import DeviceSchema, Field, RowRecord, TimeseriesSchema, TsFileWriter
from tsfile.schema import ColumnSchema, TableSchema
from tsfile.types import ColumnCategory, Compressor, TSDataType, TSEncoding
from tsfile.writer import TsFileTableWriter

T = TSDataType
FIELD = ColumnCategory.FIELD
ALL_THREADS = (None, 1, 2, 3)


def _schema(float_encoding=None):
    cols = [ColumnSchema("device", T.STRING, ColumnCategory.TAG)]
    cols += [
        ColumnSchema("i32", T.INT32, FIELD),
        ColumnSchema("i64", T.INT64, FIELD, encoding=TSEncoding.SPRINTZ),
        ColumnSchema("f", T.FLOAT, FIELD, encoding=float_encoding),
        ColumnSchema("d", T.DOUBLE, FIELD, encoding=float_encoding),
        ColumnSchema("b", T.BOOLEAN, FIELD),
        ColumnSchema("s", T.STRING, FIELD),
        ColumnSchema("t", T.TEXT, FIELD),
        ColumnSchema("bl", T.BLOB, FIELD),
        ColumnSchema("ts", T.TIMESTAMP, FIELD),
        ColumnSchema("dt", T.DATE, FIELD),
    ]
    return TableSchema("t", cols)


def _call(rng, n, start, shuffled):
    ts = np.arange(start, start + n, dtype=np.int64)
    if shuffled:
        rng.shuffle(ts)  # sorted by the writer, on every path
    cols = {
        "i32": rng.integers(-1000, 1000, n).astype(np.int32),
        "i64": rng.integers(-(10**6), 10**6, n),
        "f": rng.random(n).astype(np.float32),
        "d": np.round(rng.random(n) * 100, 2),
        "b": rng.random(n) < 0.5,
        "s": np.array([f"s{k % 37}" for k in range(n)], dtype=object),
        "t": np.array([f"text{k % 11}" for k in range(n)], dtype=object),
        "bl": np.array([bytes([k % 256]) * 3 for k in range(n)], dtype=object),
        "ts": ts * 3,
        "dt": np.array([20240101 + k % 28 for k in range(n)], dtype=np.int32),
    }
    masks = {k: rng.random(n) < 0.2 for k in cols}
    return ts, cols, masks


class _ThreadStarts:
    """Records the name of every thread started while installed."""

    def __init__(self, monkeypatch):
        self.names = []
        real = threading.Thread.start

        def start(thread, *args, **kwargs):
            self.names.append(thread.name)
            return real(thread, *args, **kwargs)

        monkeypatch.setattr(threading.Thread, "start", start)


def _digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


@pytest.mark.parametrize("stream_min", [0, writer_module._STREAM_MIN_VALUES])
@pytest.mark.parametrize(
    ("memory_threshold", "float_encoding", "shuffled"),
    [(0, None, False), (4096, TSEncoding.ALP, True), (1 << 40, "auto", False), (1, "auto", True)],
)
def test_the_file_does_not_depend_on_threads_and_threads_1_starts_no_thread(
    tmp_path, monkeypatch, stream_min, memory_threshold, float_encoding, shuffled
):
    # stream_min 0: every chunk group takes the pool path of the default (streamed, handed off)
    monkeypatch.setattr(writer_module, "_STREAM_MIN_VALUES", stream_min)
    starts = _ThreadStarts(monkeypatch)
    digests = {}
    for threads in ALL_THREADS:
        rng = np.random.default_rng(7)
        starts.names.clear()
        path = tmp_path / f"t{threads}.tsfile"
        with TsFileTableWriter(
            str(path),
            _schema(float_encoding),
            memory_threshold,
            page_size=700,
            compression=Compressor.ZSTD,
            threads=threads,
        ) as w:
            for round_ in range(2):
                for k, device in enumerate(("b", "a", "c")):
                    n = 3000 if k else 120  # a small device among large ones
                    ts, cols, masks = _call(rng, n, round_ * 5000, shuffled)
                    w.write_arrays(ts, {"device": device, **cols}, null_masks=masks)
                w.flush()
            pool = w._writer._pool
        digests[threads] = _digest(path)
        if threads == 1:
            assert starts.names == [] and pool is None
    assert len(set(digests.values())) == 1, digests
    assert len(tsfile.read_arrow(str(tmp_path / "t1.tsfile"), "t")) == 2 * (2 * 3000 + 120)


def test_tree_and_other_write_apis_do_not_depend_on_threads(tmp_path, monkeypatch):
    import pandas as pd
    import pyarrow as pa

    monkeypatch.setattr(writer_module, "_STREAM_MIN_VALUES", 0)
    starts = _ThreadStarts(monkeypatch)
    schema = TableSchema(
        "t",
        [
            ColumnSchema("device", T.STRING, ColumnCategory.TAG),
            ColumnSchema("x", T.INT64, FIELD),
            ColumnSchema("s", T.STRING, FIELD),
        ],
    )
    digests = {}
    for threads in ALL_THREADS:
        starts.names.clear()
        tree = tmp_path / f"tree{threads}.tsfile"
        w = TsFileWriter(str(tree), 1, threads=threads)
        w.register_timeseries("root.a.d1", TimeseriesSchema("x", T.INT32))
        w.register_device(
            DeviceSchema(
                "root.a.d2", [TimeseriesSchema("x", T.INT32), TimeseriesSchema("y", T.DOUBLE)]
            ),
            aligned=True,
        )
        for k in range(300):
            w.write_row_record(RowRecord("root.a.d1", k, [Field("x", k, T.INT32)]))
            w.write_row_record(RowRecord("root.a.d2", k, [Field("y", k / 3, T.DOUBLE)]))
        w.close()
        table = tmp_path / f"table{threads}.tsfile"
        n = 5000
        ts = np.arange(n, dtype=np.int64)
        with TsFileTableWriter(str(table), schema, 1, threads=threads) as tw:
            tw.write_arrow_batch(
                pa.record_batch(
                    {
                        "time": pa.array(ts),
                        "device": pa.array(["a"] * n),
                        "x": pa.array(ts * 2),
                        "s": pa.array([None if k % 5 == 0 else str(k % 9) for k in range(n)]),
                    }
                )
            )
            tw.write_dataframe(
                pd.DataFrame({"time": ts + n, "device": "b", "x": ts, "s": [str(k) for k in ts]})
            )
            tablet = tsfile.Tablet(["device", "x", "s"], [T.STRING, T.INT64, T.STRING], 100)
            for r in range(100):
                tablet.add_timestamp(r, 3 * n + r)
                tablet.add_value_by_name("device", r, "c")
                tablet.add_value_by_name("x", r, r)
            tw.write_table(tablet)
        digests[threads] = (_digest(tree), _digest(table))
        if threads == 1:
            assert starts.names == []
    assert len(set(digests.values())) == 1, digests


@pytest.mark.parametrize(
    ("value", "error", "words"),
    [
        (0, ValueError, "threads must be >= 1"),
        (-1, ValueError, "threads must be >= 1"),
        (True, TypeError, "threads must be an int"),
        # before: "'float' object cannot be interpreted as an integer", no option named
        (1.5, TypeError, "threads must be an int, got 1.5"),
        (2.0, TypeError, "threads must be an int, got 2.0"),
        ("2", TypeError, "threads must be an int, got '2'"),
    ],
)
def test_a_bad_threads_value_is_refused_by_name_before_the_file_exists(
    tmp_path, value, error, words
):
    path = tmp_path / "x.tsfile"
    with pytest.raises(error, match=words):
        TsFileTableWriter(str(path), _schema(), threads=value)
    with pytest.raises(error, match=words):
        TsFileWriter(str(path), threads=value)
    assert not path.exists()


@pytest.mark.parametrize("name", ["page_size", "index_degree", "memory_threshold"])
def test_the_other_integer_options_name_themselves_too(tmp_path, name):
    # before: operator.index's message, which names no option
    with pytest.raises(TypeError, match=f"{name} must be an int, got 1.5"):
        TsFileWriter(str(tmp_path / "x.tsfile"), **{name: 1.5})


@pytest.mark.parametrize(
    ("options", "pool_threads"), [({}, 1), ({"threads": None}, 1), ({"threads": 1}, 0)]
)
def test_the_default_uses_one_pool_thread_for_a_large_group_and_threads_1_none(
    tmp_path, monkeypatch, options, pool_threads
):
    starts = _ThreadStarts(monkeypatch)
    ts, cols, masks = _call(np.random.default_rng(3), 30_000, 0, False)  # 330,000 values
    with TsFileTableWriter(str(tmp_path / "a.tsfile"), _schema(), **options) as w:
        w.write_arrays(ts, {"device": "a", **cols}, null_masks=masks)
    assert len([n for n in starts.names if n.startswith("tsfile-writer")]) == pool_threads


_FULL_DISK = textwrap.dedent(
    """
    import resource, signal, sys
    import numpy as np
    import tsfile
    from tsfile.schema import ColumnSchema, TableSchema
    from tsfile.types import ColumnCategory, TSDataType
    from tsfile.writer import TsFileTableWriter

    path, threads, threshold = sys.argv[1], eval(sys.argv[2]), int(sys.argv[3])
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    cols = [ColumnSchema("device", TSDataType.STRING, ColumnCategory.TAG)]
    cols += [ColumnSchema(f"x{j}", TSDataType.INT64, ColumnCategory.FIELD) for j in range(4)]
    w = TsFileTableWriter(path, TableSchema("t", cols), threshold, threads=threads)
    resource.setrlimit(resource.RLIMIT_FSIZE, (600_000, resource.RLIM_INFINITY))
    try:
        for k in range(12):
            ts = np.arange(k * 60_000, (k + 1) * 60_000, dtype=np.int64)
            data = {f"x{j}": (ts * 7919 * (j + 1)) % 1000003 for j in range(4)}
            w.write_arrays(ts, {"device": f"d{k:02d}", **data})
        w.flush()
        print("no error")
    except OSError as exc:
        print(type(exc).__name__, exc.errno)
    w.close()
    print(len(tsfile.read_arrow(path, "t")))
    """
)


@pytest.mark.parametrize("threshold", [1, 1 << 40])
def test_a_full_disk_ends_the_file_the_same_way_for_every_threads(tmp_path, threshold):
    seen = {}
    for threads in (None, 1, 2):
        path = tmp_path / f"f{threads}.tsfile"
        run = subprocess.run(
            [sys.executable, "-c", _FULL_DISK, str(path), repr(threads), str(threshold)],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        )
        assert run.returncode == 0, run.stderr
        seen[threads] = (run.stdout, _digest(path))
    assert "OSError 27" in seen[1][0]
    assert len(set(seen.values())) == 1, seen


def test_a_write_error_of_a_call_written_alone_is_raised_by_that_call_with_threads_1(tmp_path):
    """The module documentation: with a pool thread the last chunk's write of a call written
    alone is handed off and its OSError raised later; with threads=1 the call raises it."""

    class Full:
        def __init__(self, real):
            self.real = real

        def writelines(self, parts):
            raise OSError(28, "No space left on device")

        def __getattr__(self, name):
            return getattr(self.real, name)

    path = tmp_path / "x.tsfile"
    w = TsFileTableWriter(str(path), _schema(), 1, threads=1)
    w._writer._file = Full(w._writer._file)
    ts, cols, _ = _call(np.random.default_rng(1), 2000, 0, False)
    with pytest.raises(OSError, match="No space"):
        w.write_arrays(ts, {"device": "a", **cols})
    w._writer._file = w._writer._file.real
    w.close()
    assert len(tsfile.read_arrow(str(path), "t")) == 0
    doc = writer_module.__doc__
    assert "With threads=1 there is\nno pool thread" in doc


def test_every_public_description_of_threads_agrees():
    """help(TsFileTableWriter) showed nothing of ``threads`` (its options are **options), and
    ``bench write --against`` still called the default writes "one-thread"."""
    for cls in (tsfile.TsFileWriter, tsfile.TsFileTableWriter):
        doc = " ".join(cls.__doc__.split())
        assert "threads=None" in doc or "``threads``: None (the default)" in doc, cls
        assert "no thread" in doc, cls
    from tsfile._bench import write as bench_write

    assert "one-thread" not in bench_write.__doc__
    help_text = subprocess.run(
        [sys.executable, "-m", "tsfile", "bench", "write", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        check=True,
    ).stdout
    help_text = " ".join(help_text.split())
    assert "one-thread" not in help_text
    assert "default-threads and threads=2" in help_text
    readme = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md")
    with open(readme, encoding="utf-8") as f:
        text = " ".join(f.read().split())
    assert "`threads=1` does everything on the calling thread and starts no thread" in text
    assert "(default `None`: one pool thread for large chunk groups; `1`: no thread at all" in text
