"""A many-file read pauses Python's cyclic garbage collector while it plans and decodes
(tsfile._dataset.gcpause): its collections walked the planned files' index objects again and
again, GIL-held work that found nothing to free. The pause must end with the read, leave a
collector the user disabled disabled, and be shared by reads that overlap."""

from __future__ import annotations

import gc
import threading

import numpy as np
import pytest

import tsfile
from tsfile._dataset.gcpause import collector_paused
from tsfile.reader import TsFileReader
from tsfile.types import ColumnCategory, TSDataType
from tsfile.writer import TsFileWriter


def _write(path, k):
    cols = [
        tsfile.ColumnSchema("id", TSDataType.STRING, ColumnCategory.TAG),
        tsfile.ColumnSchema("v", TSDataType.INT64, ColumnCategory.FIELD),
    ]
    with TsFileWriter(str(path), overwrite=True) as w:
        w.register_table(tsfile.TableSchema("m", cols))
        t = np.arange(50, dtype=np.int64) + 100 * k
        w.write_arrays("m", t, {"id": f"d{k}", "v": t * 2})
    return str(path)


# every test here runs with the collector enabled, as a user's is (conftest.py)
pytestmark = pytest.mark.usefixtures("collector_enabled")


@pytest.fixture
def files(tmp_path):
    return [_write(tmp_path / f"f{k}.tsfile", k) for k in range(3)]


def _spy_planning(monkeypatch):
    """Whether the collector was enabled each time a file was planned."""
    seen = []
    real = TsFileReader._plan_columns

    def spy(self, *args, **kwargs):
        seen.append(gc.isenabled())
        return real(self, *args, **kwargs)

    monkeypatch.setattr(TsFileReader, "_plan_columns", spy)
    return seen


@pytest.mark.parametrize("threads", [1, 2])
def test_planning_runs_with_the_collector_paused(files, monkeypatch, threads):
    seen = _spy_planning(monkeypatch)
    got = tsfile.read_table(files, "m", threads=threads)
    assert seen == [False] * len(files)
    assert gc.isenabled()
    assert got["v"].tolist() == [t * 2 for t in got["time"].tolist()] and len(got["time"]) == 150


def test_a_collector_the_user_disabled_stays_disabled(files, monkeypatch):
    seen = _spy_planning(monkeypatch)
    gc.disable()
    tsfile.read_table(files, "m")
    assert seen == [False] * len(files) and not gc.isenabled()


def test_a_failing_read_ends_the_pause(files, tmp_path):
    bad = tmp_path / "bad.tsfile"
    bad.write_bytes(b"not a tsfile at all")
    with pytest.raises(tsfile.CorruptDataError):
        tsfile.read_table([*files, str(bad)], "m")
    assert gc.isenabled()


def test_overlapping_pauses_end_with_the_last():
    entered, leave = threading.Event(), threading.Event()

    def other():
        with collector_paused():
            entered.set()
            leave.wait(10)

    t = threading.Thread(target=other)
    with collector_paused():
        t.start()
        assert entered.wait(10)
    assert not gc.isenabled()  # the other read is still inside
    leave.set()
    t.join(10)
    assert gc.isenabled()
