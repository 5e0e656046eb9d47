"""The compiled compact device index (tsfile._format.devindex) against the reference walk it
stands in for while planning (IndexWalker.series + TsFileReader._plan_aligned): on every
fixture and on randomly damaged metadata, whenever the fast path takes a device (does not
decline with None), the reference reads the same device without error and plans it to the same
chunk groups; whenever the reference raises, the fast path declines (the planner then raises the
reference's error). And the planner really uses the fast path on ordinary files."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

import tsfile
from tsfile import CorruptDataError
from tsfile._format.devindex import read_device_index
from tsfile.reader import TsFileReader
from tsfile.types import ColumnCategory, TSDataType, TSEncoding

FIXTURES = sorted((Path(__file__).parent / "fixtures").rglob("*.tsfile"))
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
FIELDS = ["a", "b", "c"]


def _write(path, groups=3, rows=50):
    """Two devices, fields a..c (c missing in some chunk groups: nulls), ``groups`` chunk groups
    each (flushed apart: several chunks per series, multi-chunk statistics)."""
    cols = [tsfile.ColumnSchema("dev", TSDataType.STRING, ColumnCategory.TAG)]
    cols += [
        tsfile.ColumnSchema(c, TSDataType.INT64, ColumnCategory.FIELD, encoding=TSEncoding.PLAIN)
        for c in FIELDS
    ]
    with tsfile.TsFileWriter(str(path)) as w:
        w.register_table(tsfile.TableSchema("t", cols))
        for g in range(groups):
            ts = np.arange(g * rows, (g + 1) * rows, dtype=np.int64)
            for dev in ("d1", "d2"):
                vals = {"dev": dev, "a": ts * 2, "b": -ts}
                if g != 1:
                    vals["c"] = ts + 7
                w.write_arrays("t", ts, vals)
            w.flush()


def _task(task):
    """A planned _DeviceTask, comparable."""
    groups = [(g.time_chunk.offset, g.rows, list(g.values), g.inside) for g in task.groups]
    return (task.types, task.type_at, task.names, groups)


def _reference(r, key, dev_id, rng, fields, t1, t2):
    """("ok", time statistics, planned task) of the reference walk, or ("error", message)."""
    try:
        series = r._series(key, rng)
        tsm = series.get("")
        st = (
            None
            if tsm is None
            else (tsm.statistics.count, tsm.statistics.start_time, tsm.statistics.end_time)
        )
        task = _task(r._plan_aligned(dev_id, series, fields, t1, t2))
    except CorruptDataError as exc:
        return ("error", str(exc))
    return ("ok", st, task)


def _compare_devices(r, ranges=((INT64_MIN, INT64_MAX),)):
    """Check every device of every table of reader ``r``; returns (taken, declined)."""
    taken = declined = 0
    for key in r._meta.table_roots:
        try:
            devices = r._devices(key)
        except CorruptDataError:
            continue  # the device level: not this module's
        schema_fields = FIELDS
        if key in r._meta.schemas:
            schema_fields = [
                c.column_name
                for c in r._meta.schemas[key].columns
                if c.category == ColumnCategory.FIELD
            ] or FIELDS
        for dev_id, rng in devices:
            for fields in (schema_fields, schema_fields[:1], ["nope", *schema_fields[::-1]]):
                for t1, t2 in ranges:
                    r._series_cache.clear()
                    r._chunks.clear()
                    ref = _reference(r, key, dev_id, rng, fields, t1, t2)
                    d = read_device_index(
                        r._buf, rng[0], rng[1], r._meta.meta_offset, r._meta.meta_start
                    )
                    if d is None:
                        declined += 1
                        continue
                    st = d.time_statistics()
                    if st is None:  # no time column: the planner asks the reference
                        assert ref[0] == "error" or ref[1] is None
                        declined += 1
                        continue
                    try:
                        fast = r._plan_compact(dev_id, rng, fields, t1, t2)
                    except CorruptDataError as exc:
                        # only the per-group checks shared by both paths (_add_groups) raise
                        assert ref == ("error", str(exc)), (ref, str(exc))
                        continue
                    if fast is None:
                        declined += 1
                        continue
                    assert ref[0] == "ok", f"fast path took a device the reference rejects: {ref}"
                    assert st == ref[1]
                    assert _task(fast) == ref[2]
                    taken += 1
    return taken, declined


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_every_fixture_plans_the_same(path):
    try:
        r = TsFileReader(path)
    except (CorruptDataError, tsfile.errors.TsFileError):
        pytest.skip("fixture does not open")
    with r:
        _compare_devices(r)


def test_written_file_is_taken_and_plans_the_same(tmp_path):
    path = tmp_path / "f.tsfile"
    _write(path)
    with TsFileReader(path) as r:
        ranges = ((INT64_MIN, INT64_MAX), (60, 120), (0, 10), (200, 300), (49, 50))
        taken, declined = _compare_devices(r, ranges)
    assert taken > 0 and declined == 0


def test_the_planner_uses_the_compact_index(tmp_path, monkeypatch):
    """read_table plans an ordinary file without a TimeseriesMeta (the reference walk is never
    asked), and its rows equal those planned the reference way."""
    path = tmp_path / "f.tsfile"
    _write(path)
    want = None
    with monkeypatch.context() as m:
        m.setattr(TsFileReader, "_device_index", lambda self, rng: None)  # always decline
        want = tsfile.read_table(str(path), "t")

    def refuse(self, key, rng):
        raise AssertionError("the reference walk was asked")

    monkeypatch.setattr(TsFileReader, "_series", refuse)
    got = tsfile.read_table(str(path), "t")
    assert got.keys() == want.keys()
    for k in want:
        assert np.array_equal(np.ma.getdata(got[k]), np.ma.getdata(want[k])), k
        assert np.array_equal(np.ma.getmaskarray(got[k]), np.ma.getmaskarray(want[k])), k


def _mutants(path, n, seed):
    """``n`` copies of the file with 1-3 bytes of its metadata area (index and records)
    changed."""
    data = path.read_bytes()
    with TsFileReader(path) as r:
        lo, hi = r._meta.meta_offset, r._meta.meta_start
    rng = random.Random(seed)
    for _ in range(n):
        bad = bytearray(data)
        for _k in range(rng.randint(1, 3)):
            at = rng.randrange(lo, hi)
            bad[at] = rng.choice([0, 1, 0x7F, 0x80, 0xFF, bad[at] ^ (1 << rng.randrange(8))])
        yield bytes(bad)


@pytest.mark.parametrize("seed", range(4))
def test_damaged_metadata_is_declined_or_planned_the_same(tmp_path, seed):
    path = tmp_path / "f.tsfile"
    _write(path)
    bad = tmp_path / "bad.tsfile"
    taken = declined = 0
    for data in _mutants(path, 150, seed):
        bad.write_bytes(data)
        try:
            r = TsFileReader(bad)
        except tsfile.errors.TsFileError:
            continue
        with r:
            t, d = _compare_devices(r, ((INT64_MIN, INT64_MAX), (60, 120)))
        taken += t
        declined += d
    assert taken and declined  # both outcomes were exercised


def test_damaged_file_raises_the_reference_error(tmp_path):
    """A value chunk offset moved before its time chunk: read_table raises the reference's
    CorruptDataError (the fast path declined), not another error or wrong rows."""
    path = tmp_path / "f.tsfile"
    _write(path, groups=1)
    data = bytearray(path.read_bytes())
    with TsFileReader(path) as r:
        key = next(iter(r._meta.table_roots))
        dev_id, rng = r._devices(key)[0]
        series = r._series(key, rng)
        a_off = series["a"].chunks[0].offset
        at = series["a"].at
    old = a_off.to_bytes(8, "big")
    where = bytes(data).find(old, at)
    assert where > 0
    data[where : where + 8] = (0).to_bytes(8, "big")
    path.write_bytes(bytes(data))
    with pytest.raises(CorruptDataError, match="has no time chunk before it"):
        tsfile.read_table(str(path), "t")
