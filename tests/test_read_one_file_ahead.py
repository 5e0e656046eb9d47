"""One file read on several threads (TsFileReader._read_columns_ahead): its devices are planned
one after another and handed in portions to a helper that decodes them meanwhile
(tsfile._read.ahead). The result must be the one-thread result whatever the devices' sizes do to
the reservation's estimate, with filters, nulls, TEXT columns, and errors raised as one thread
raises them."""

from __future__ import annotations

import numpy as np
import pytest

import tsfile
from tests.test_read_ahead_fields import _as_lists  # one definition of the comparison
from tsfile import reader as reader_mod
from tsfile._read import ahead, columns
from tsfile.errors import CorruptDataError
from tsfile.reader import TsFileReader
from tsfile.types import ColumnCategory, TSDataType
from tsfile.writer import TsFileWriter


def _write(path, sizes, text=False, seed=0):
    """One device per entry of ``sizes`` (its rows, in two chunk groups), small pages; INT64 and
    DOUBLE fields with nulls; ``text``: a TEXT field too."""
    cols = [
        tsfile.ColumnSchema("id", TSDataType.STRING, ColumnCategory.TAG),
        tsfile.ColumnSchema("v", TSDataType.INT64, ColumnCategory.FIELD),
        tsfile.ColumnSchema("x", TSDataType.DOUBLE, ColumnCategory.FIELD),
    ]
    if text:
        cols.append(tsfile.ColumnSchema("s", TSDataType.TEXT, ColumnCategory.FIELD))
    rng = np.random.default_rng(seed)
    w = TsFileWriter(str(path), overwrite=True, page_size=64)
    w.register_table(tsfile.TableSchema("m", cols))
    for half in range(2):
        for k, rows in enumerate(sizes):
            n = rows // 2
            t = np.arange(n, dtype=np.int64) + half * n
            data = {
                "id": f"d{k:03d}",
                "v": rng.integers(-(10**9), 10**9, n),
                "x": rng.normal(size=n),
            }
            if text:
                data["s"] = np.array([f"s{i % 13}" for i in range(n)], dtype=object)
            masks = {"v": np.arange(n) % 11 == k % 11, "x": np.arange(n) % 5 == 0}
            w.write_arrays("m", t, data, null_masks=masks)
        w.flush()
    w.close()
    return str(path)


@pytest.fixture
def pipeline(monkeypatch):
    """Small portions and an eager helper; counts the chunk groups whose fields and time
    chunks the read took from the helper."""
    monkeypatch.setattr(reader_mod, "_PORTION_ROWS", 300)
    monkeypatch.setattr(ahead, "_WAKE_VALUES", 1)
    monkeypatch.setattr(ahead, "_RESERVE_MIN_EXTRA", 0)
    seen = {"fields": 0, "times": 0}
    original_fields = columns._fields_ahead
    original_times = ahead.TimesAhead.result_of

    def fields(d, jobs, rows, starts):
        done = original_fields(d, jobs, rows, starts)
        seen["fields"] += len(done)
        return done

    def times(self, i, start):
        got = original_times(self, i, start)
        seen["times"] += got is not None
        return got

    monkeypatch.setattr(columns, "_fields_ahead", fields)
    monkeypatch.setattr(ahead.TimesAhead, "result_of", times)
    return seen


SHAPES = {
    "alike": [800] * 8,
    "first small": [40] + [1200] * 7,
    "first large": [4000] + [200] * 7,
    "one device": [3000],
}


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("threads", [2, 3])
def test_the_result_is_the_one_thread_result(tmp_path, pipeline, shape, threads):
    path = _write(tmp_path / "f.tsfile", SHAPES[shape])
    queries = [
        {},
        {"start_time": 3, "end_time": 700},  # cuts pages: rows move
        {"column_names": ["x", "id"]},
        {"tag_filter": tsfile.tag_neq("id", "d001")},
    ]
    for kw in queries:
        got = _as_lists(tsfile.read_table(path, "m", threads=threads, **kw))
        assert got == _as_lists(tsfile.read_table(path, "m", threads=1, **kw)), kw
    if shape == "alike":
        assert pipeline["fields"] > 0 and pipeline["times"] > 0


def test_text_columns_and_a_value_filter(tmp_path, pipeline):
    path = _write(tmp_path / "f.tsfile", [600] * 5, text=True)
    got = _as_lists(tsfile.read_table(path, "m", threads=2))
    assert got == _as_lists(tsfile.read_table(path, "m", threads=1))
    assert pipeline["times"] > 0 and pipeline["fields"] == 0  # a TEXT column: not ahead
    flt = tsfile.col("v") > 0
    got = _as_lists(tsfile.read_table(path, "m", threads=2, value_filter=flt))
    assert got == _as_lists(tsfile.read_table(path, "m", threads=1, value_filter=flt))


def test_no_device_matches(tmp_path, pipeline):
    path = _write(tmp_path / "f.tsfile", [600] * 3)
    kw = {"tag_filter": tsfile.tag_eq("id", "nobody")}
    got = _as_lists(tsfile.read_table(path, "m", threads=2, **kw))
    assert got == _as_lists(tsfile.read_table(path, "m", threads=1, **kw))
    assert got["time"] == []


def _damage_time_page_of(path, device):
    with TsFileReader(path) as r:
        read = r._plan_columns("m", ["v"], None, None, "auto", None, None)
        for task, g in read.groups:
            if task.device.path.endswith(device):
                body = g.time_chunk.page_info()[0][0]
                break
    with open(path, "r+b") as f:
        f.seek(body)
        f.write(b"\xff" * 12)


def test_a_corrupt_chunk_raises_as_one_thread(tmp_path, pipeline):
    path = _write(tmp_path / "f.tsfile", [800] * 6)
    _damage_time_page_of(path, "d003")
    with pytest.raises(CorruptDataError) as one:
        tsfile.read_table(path, "m", threads=1)
    with pytest.raises(CorruptDataError) as two:
        tsfile.read_table(path, "m", threads=2)
    assert str(two.value) == str(one.value)


def test_a_planning_failure_stops_the_helper_and_leaves_the_reader_usable(
    tmp_path, pipeline, monkeypatch
):
    path = _write(tmp_path / "f.tsfile", [800] * 6)
    original = TsFileReader._plan_compact
    calls = [0]

    def failing(self, *args):
        calls[0] += 1
        if calls[0] == 4:
            raise CorruptDataError("planted: the fourth device's plan fails")
        return original(self, *args)

    with TsFileReader(path) as r:
        monkeypatch.setattr(TsFileReader, "_plan_compact", failing)
        with pytest.raises(CorruptDataError, match="planted"):
            r.read_columns("m", threads=2)
        monkeypatch.setattr(TsFileReader, "_plan_compact", original)
        names, _types, ts, cols, _nulls = r.read_columns("m", threads=2)
        assert ts.tolist() == tsfile.read_table(path, "m", threads=1)["time"].tolist()
