"""The copies of buffered rows go into buffers used again after the flush that wrote them
(tsfile.writer._CopyPool): the rows buffered must stay the caller's rows at the time of the call
even when the caller refills its arrays and a buffer is used again, and a buffer is used again
only once its rows are in the file.
"""

from __future__ import annotations

import numpy as np
import pytest

import tsfile
import tsfile.writer as writer_module
from tsfile.errors import EncodeError
from tsfile.schema import ColumnSchema, TableSchema
from tsfile.types import ColumnCategory, TSDataType
from tsfile.writer import TsFileTableWriter

T = TSDataType
ROWS = 5000


def _schema():
    return TableSchema(
        "t",
        [
            ColumnSchema("device", T.STRING, ColumnCategory.TAG),
            ColumnSchema("i", T.INT64),
            ColumnSchema("d", T.DOUBLE),
            ColumnSchema("s", T.STRING),
        ],
    )


def _rounds(rng, rounds=4):
    out = []
    for r in range(rounds):
        for dev in ("a", "b"):
            ts = np.arange(ROWS, dtype=np.int64) + r * ROWS
            out.append((dev, ts, rng.integers(-50, 50, ROWS), rng.normal(size=ROWS)))
    return out


def _write(path, calls, refill):
    """Write `calls`; refill: pass the same input arrays every call, overwritten in place (as a
    Tablet refilled and written again), else new arrays. memory_threshold: a flush every second
    call (a call buffers 280 KB: 3 x 40 KB of numbers, 160 KB counted for the text), so the
    later calls' copies land in the buffers of the earlier ones."""
    ts_in = np.empty(ROWS, dtype=np.int64)
    i_in = np.empty(ROWS, dtype=np.int64)
    d_in = np.empty(ROWS, dtype=np.float64)
    text = np.array([f"v{k % 7}" for k in range(ROWS)], dtype=object)
    with TsFileTableWriter(str(path), _schema(), memory_threshold=500_000) as w:
        for dev, ts, i, d in calls:
            if refill:
                ts_in[:], i_in[:], d_in[:] = ts, i, d
                w.write_arrays(ts_in, {"device": dev, "i": i_in, "d": d_in, "s": text})
            else:
                w.write_arrays(ts.copy(), {"device": dev, "i": i.copy(), "d": d.copy(), "s": text})


def test_refilled_arrays_and_reused_buffers_write_the_callers_rows(tmp_path):
    calls = _rounds(np.random.default_rng(2))
    _write(tmp_path / "fresh.tsfile", calls, refill=False)
    _write(tmp_path / "refill.tsfile", calls, refill=True)
    assert (tmp_path / "refill.tsfile").read_bytes() == (tmp_path / "fresh.tsfile").read_bytes()
    got = tsfile.read_table(str(tmp_path / "refill.tsfile"), "t")
    want_i = np.concatenate([c[2] for c in calls if c[0] == "a"])
    assert got["i"][got["device"] == "a"].tolist() == want_i.tolist()


def test_a_buffer_is_used_again_after_its_rows_are_written(tmp_path):
    w = TsFileTableWriter(str(tmp_path / "f.tsfile"), _schema())
    writer = w._writer
    ts = np.arange(ROWS, dtype=np.int64)
    values = np.arange(ROWS, dtype=np.int64)
    w.write_arrays(ts, {"device": "a", "i": values})
    (first,) = writer._buffers[("t", "a")]
    old = first.fields["i"][0]
    assert not np.shares_memory(old, values)  # a copy, in a pool buffer
    w.flush()
    w.write_arrays(ts + ROWS, {"device": "a", "i": values})
    (second,) = writer._buffers[("t", "a")]
    reused = [a for a in (second.times, second.fields["i"][0]) if np.shares_memory(a, old)]
    assert len(reused) == 1  # the flushed rows' buffer holds the new copy
    w.close()
    got = tsfile.read_table(str(tmp_path / "f.tsfile"), "t")
    assert got["i"].tolist() == values.tolist() * 2


def test_the_buffers_of_rows_that_could_not_be_written_are_not_used_again(tmp_path, monkeypatch):
    w = TsFileTableWriter(str(tmp_path / "f.tsfile"), _schema())
    ts = np.arange(ROWS, dtype=np.int64)
    w.write_arrays(ts, {"device": "a", "i": ts})
    real = writer_module._value_chunk

    def broken(dev, table, column, *rest):
        raise EncodeError("refused (test)")

    monkeypatch.setattr(writer_module, "_value_chunk", broken)
    with pytest.raises(EncodeError):
        w.flush()
    monkeypatch.setattr(writer_module, "_value_chunk", real)
    assert w._writer._copies._held == 0
    w.close()


def test_the_pool_keeps_at_most_memory_threshold_bytes():
    pool = writer_module._CopyPool(limit=100_000)
    pieces = []
    for n in (4000, 4000, 6000, 9000):  # 32, 32, 48, 72 KB
        piece = writer_module._Piece(np.zeros(1, np.int64), {})
        pool.copy(np.arange(n, dtype=np.int64), piece.pooled)
        pieces.append(piece)
    pool.give_back(pieces)
    assert pool._held <= 100_000
    assert pool._held == 72_000  # the oldest sizes were dropped for the newest


def test_rows_left_buffered_by_an_interrupted_flush_are_the_callers_rows(tmp_path, monkeypatch):
    """A write call that fills the buffer flushes at once, so its rows are not copied; Ctrl-C
    during that flush (device "a") leaves device "b"'s rows of the call buffered. They must be
    copied then: the caller may refill its arrays before close() writes them."""
    path = tmp_path / "f.tsfile"
    w = TsFileTableWriter(str(path), _schema(), memory_threshold=1)  # every call flushes
    ts = np.tile(np.arange(ROWS, dtype=np.int64), 2)
    dev = np.array(["a"] * ROWS + ["b"] * ROWS, dtype=object)
    values = np.arange(2 * ROWS, dtype=np.int64)
    real = writer_module._value_chunk

    def interrupted(d, table, column, *rest):
        if d[1:] == ("a",):
            raise KeyboardInterrupt
        return real(d, table, column, *rest)

    monkeypatch.setattr(writer_module, "_value_chunk", interrupted)
    with pytest.raises(KeyboardInterrupt):
        w.write_arrays(ts, {"device": dev, "i": values})
    monkeypatch.setattr(writer_module, "_value_chunk", real)
    want = values[ROWS:].tolist()
    ts[:] = -1  # the caller refills its arrays
    values[:] = 0
    w.close()
    got = tsfile.read_table(str(path), "t")
    assert got["device"].tolist() == ["b"] * ROWS
    assert got["time"].tolist() == list(range(ROWS))
    assert got["i"].tolist() == want
