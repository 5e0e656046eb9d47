"""Review 4 of the read pipeline (tsfile._read.ahead): the reserved arrays of a many-file read.

* A field column of 1 or 4 bytes a row (BOOLEAN, INT32, FLOAT, DATE) was reserved at its own
  pool class's room, longer than its null mask (reserved at the time array's length); the
  engine takes a values array and a mask of one length, so it refused every batch of such a
  read once the time array passed ~270,000 rows: nothing of the read's field columns was decoded
  ahead (silently: the field phase decoded everything, as on one thread).
* Below 16 MiB the pool's classes are powers of two: the time array, sized to its class's room,
  was often under the 80 % keep share although an exact array would take the very same block,
  so the read copied the times and threw every value decoded ahead away.
* The reserved field arrays (as large as the result) stayed referenced by the TimesAhead for the
  whole read when the read did not take them.

Every read is also checked against one thread, exactly."""

from __future__ import annotations

import numpy as np
import pytest

import tsfile
from tsfile._read import ahead
from tsfile.types import ColumnCategory, TSDataType
from tsfile.writer import TsFileWriter

T = TSDataType


def _write(path, k, rows, types):
    cols = [tsfile.ColumnSchema("id", T.STRING, ColumnCategory.TAG)]
    cols += [tsfile.ColumnSchema(f"c{j}", t, ColumnCategory.FIELD) for j, t in enumerate(types)]
    w = TsFileWriter(str(path), overwrite=True)
    w.register_table(tsfile.TableSchema("m", cols))
    rng = np.random.default_rng(k)
    t = np.arange(rows, dtype=np.int64) + k * 10**8
    data, masks = {"id": "a"}, {}
    for j, typ in enumerate(types):
        if typ == T.BOOLEAN:
            data[f"c{j}"] = rng.integers(0, 2, rows).astype(np.bool_)
        elif typ in (T.INT32,):
            data[f"c{j}"] = rng.integers(-1000, 1000, rows).astype(np.int32)
        elif typ == T.DATE:
            data[f"c{j}"] = np.full(rows, 20240101, np.int32) + (np.arange(rows) % 28).astype(
                np.int32
            )
        elif typ in (T.INT64, T.TIMESTAMP):
            data[f"c{j}"] = rng.integers(-(10**9), 10**9, rows)
        elif typ == T.FLOAT:
            data[f"c{j}"] = rng.normal(size=rows).astype(np.float32)
        else:
            data[f"c{j}"] = rng.normal(size=rows)
        masks[f"c{j}"] = (np.arange(rows) + j) % (11 + j) == 0
    w.write_arrays("m", t, data, null_masks=masks)
    w.close()
    return str(path)


@pytest.fixture
def watch(monkeypatch):
    """What adopt_times did: the read's capacity, whether the reserved arrays were kept, the
    chunk groups whose values decoded ahead the read could use, the field arrays still held."""
    seen = {}
    original = ahead.TimesAhead.adopt_times

    def adopt_times(self, cap):
        ts = original(self, cap)
        seen.update(
            cap=cap,
            kept=self._kept,
            groups=len(self._values_done),
            held=dict(self.values),
        )
        return ts

    monkeypatch.setattr(ahead.TimesAhead, "adopt_times", adopt_times)
    return seen


def _same(got, want):
    assert list(got) == list(want)
    for key in want:
        a, b = got[key], want[key]
        assert a.dtype == b.dtype, key
        assert type(a) is type(b), key
        assert np.array_equal(np.ma.getdata(a), np.ma.getdata(b)), key
        assert np.array_equal(np.ma.getmaskarray(a), np.ma.getmaskarray(b)), key


def test_narrow_numeric_columns_are_decoded_ahead_beyond_the_small_classes(tmp_path, watch):
    types = [T.BOOLEAN, T.INT32, T.FLOAT, T.DATE, T.DOUBLE]
    paths = [_write(tmp_path / f"p{k}.tsfile", k, 100_000, types) for k in range(5)]
    got = tsfile.read_table(paths, "m", threads=2)
    assert watch["kept"] and watch["cap"] == 500_000
    assert watch["groups"] > 0  # before: 0 (every batch refused by the engine)
    _same(got, tsfile.read_table(paths, "m", threads=1))


def test_a_medium_read_keeps_what_was_decoded_ahead_when_the_blocks_are_the_same(tmp_path, watch):
    types = [T.INT64, T.DOUBLE, T.TIMESTAMP]
    paths = [_write(tmp_path / f"p{k}.tsfile", k, 50_000, types) for k in range(4)]
    got = tsfile.read_table(paths, "m", threads=2)
    assert watch["cap"] == 200_000
    assert watch["kept"] and watch["groups"] > 0  # before: copied, the values decoded again
    _same(got, tsfile.read_table(paths, "m", threads=1))


def test_field_arrays_not_taken_by_the_read_are_released(tmp_path, watch):
    """A tiny first file: the estimate is far too small, the read takes exact arrays; the
    reserved field arrays must not stay held (as large as the result) through the read."""
    types = [T.INT64, T.DOUBLE]
    paths = [_write(tmp_path / "p0.tsfile", 0, 10, types)]
    paths += [_write(tmp_path / f"p{k}.tsfile", k, 60_000, types) for k in range(1, 4)]
    got = tsfile.read_table(paths, "m", threads=2)
    assert not watch["kept"]
    assert watch["held"] == {}
    _same(got, tsfile.read_table(paths, "m", threads=1))


def test_a_narrow_column_reserved_for_one_file_is_decoded_by_the_field_phase_of_another(tmp_path):
    """schema="union": the first file's DOUBLE column decoded ahead (the reserved arrays become
    the result's), the second file's INT32 column reserved at its class's room but its chunk
    groups left to the field phase (an end time cuts its last page): the field phase decoded
    into a values array longer than its null mask, and the engine refused it (ValueError from
    a read that one thread completes)."""
    a = _write(tmp_path / "a.tsfile", 0, 220_000, [T.DOUBLE])
    b = _write(tmp_path / "b.tsfile", 1, 220_000, [T.DOUBLE, T.INT32])
    kw = {"schema": "union", "end_time": 10**8 + 220_000 - 5}
    got = tsfile.read_table([a, b], "m", threads=2, **kw)
    _same(got, tsfile.read_table([a, b], "m", threads=1, **kw))
