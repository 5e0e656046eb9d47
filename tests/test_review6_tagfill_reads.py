"""Review 6 of the tag columns written once (tsfile._read.tagfill with cleared=False, filled by
tsfile._read.columns and tsfile._read.late, settled at the end): every read path that makes tag
columns, on one file and many, 1 to 3 threads, with a value filter or not, a time range cutting
pages, on_error="skip" over broken files, and reads stopped half way by an exception or a
KeyboardInterrupt at each job in turn. The tag values the reads write are objects this test holds
(columns._tag_value answers them), so their reference counts must come back exactly to where they
were once the results are dropped, whatever happened to the read."""

from __future__ import annotations

import gc
import sys
import warnings

import numpy as np
import pytest

import tsfile
from tsfile._read import columns, late, tagfill
from tsfile.types import ColumnCategory, TSDataType
from tsfile.writer import TsFileWriter

T = TSDataType
DEVICES = ["d0", "d1", "d2"]


def _write(path, k, rows=600, with_site=True):
    """Three devices, two chunk groups each, small pages (a time range cuts them)."""
    cols = [tsfile.ColumnSchema("id", T.STRING, ColumnCategory.TAG)]
    if with_site:
        cols.append(tsfile.ColumnSchema("site", T.STRING, ColumnCategory.TAG))
    cols += [tsfile.ColumnSchema("v", T.DOUBLE, ColumnCategory.FIELD)]
    w = TsFileWriter(str(path), overwrite=True, page_size=1024)
    w.register_table(tsfile.TableSchema("m", cols))
    for half in range(2):
        for dev in DEVICES:
            t = np.arange(rows, dtype=np.int64) + k * 10**6 + half * rows
            data = {"id": dev, "v": np.arange(rows) * 1.0 + half}
            if with_site:
                data["site"] = "s" + dev
            w.write_arrays("m", t, data)
        w.flush()
    w.close()
    return str(path)


class Held:
    """Objects of our own for the tag values the reads see, and their reference counts."""

    def __init__(self, monkeypatch):
        self.objs = {}
        real = columns._tag_value

        def tag_value(r, task, name):
            v = real(r, task, name)
            if v is None:
                return None
            if v not in self.objs:
                self.objs[v] = _fresh(v)
            return self.objs[v]

        monkeypatch.setattr(columns, "_tag_value", tag_value)
        self.base = None

    def snapshot(self):
        gc.collect()
        return {k: sys.getrefcount(o) for k, o in self.objs.items()}


def _fresh(text):
    return "".join([text[:1], text[1:]]) if len(text) > 1 else "".join([text, ""])


def _prime(held, paths):
    """Read once so that every tag value has its object, then the counts at rest."""
    res = tsfile.read_table(paths, "m")
    del res
    return held.snapshot()


@pytest.fixture
def files(tmp_path):
    return [_write(tmp_path / f"f{k}.tsfile", k) for k in range(3)]


def _reads(paths):
    """(name, call) of reads that make tag columns (no filter, a time range, a value filter)."""
    one = paths[0]
    return [
        ("one", lambda th: tsfile.read_table(one, "m", threads=th)),
        ("many", lambda th: tsfile.read_table(paths, "m", threads=th)),
        (
            "range",
            lambda th: tsfile.read_table(
                paths, "m", start_time=10**6 + 30, end_time=2 * 10**6 + 500, threads=th
            ),
        ),
        (
            "filter",
            lambda th: tsfile.read_table(
                paths, "m", threads=th, value_filter=tsfile.col("v") > 300
            ),
        ),
    ]


def _other_reads(paths):
    """Reads built on the same columns: a DataFrame, Arrow, a tag filter, a filtered frame."""
    return [
        ("frame", lambda th: tsfile.to_dataframe(paths, "m", threads=th)),
        ("arrow", lambda th: tsfile.read_arrow(paths, "m", threads=th)),
        (
            "tags",
            lambda th: tsfile.read_table(
                paths, "m", threads=th, tag_filter=tsfile.tag_eq("id", "d1")
            ),
        ),
        (
            "frame-filter",
            lambda th: tsfile.to_dataframe(
                paths, "m", threads=th, value_filter=tsfile.col("v") > 500
            ),
        ),
    ]


@pytest.mark.parametrize("threads", [1, 3])
def test_other_reads_give_exact_counts(files, monkeypatch, threads):
    monkeypatch.setattr(columns, "JOB_VALUES", 64)
    held = Held(monkeypatch)
    rest = _prime(held, files)
    for name, call in _other_reads(files):
        res = call(threads)
        assert len(res) > 0, name
        del res
        assert held.snapshot() == rest, name


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_reads_give_exact_counts_and_values(files, monkeypatch, threads):
    monkeypatch.setattr(columns, "JOB_VALUES", 64)  # many jobs: many ranges per column
    held = Held(monkeypatch)
    rest = _prime(held, files)
    for name, call in _reads(files):
        res = call(threads)
        want = call(1)
        ids = np.ma.getdata(res["id"])
        assert ids.dtype == object and len(ids) == len(res["time"]), name
        assert all(type(x) is str for x in ids), name  # every slot written
        assert ids.tolist() == np.ma.getdata(want["id"]).tolist(), name
        assert np.ma.getdata(res["site"]).tolist() == ["s" + x for x in ids.tolist()], name
        # numpy's copies and views of the column hold their own references
        kept = [ids.copy(), ids.take([0, -1]), ids[::2], ids[ids == "d1"]]
        del res, want, ids
        assert held.snapshot() != rest or not len(kept[0])
        del kept
        assert held.snapshot() == rest, name


class Stop(Exception):
    pass


@pytest.mark.parametrize("threads, exc", [(1, KeyboardInterrupt), (3, Stop)])
def test_reads_stopped_at_each_job_give_counts_back(files, monkeypatch, threads, exc):
    monkeypatch.setattr(columns, "JOB_VALUES", 64)
    held = Held(monkeypatch)
    rest = _prime(held, files)
    calls = {"n": 0, "at": 0}
    real_field, real_fill = columns._Decode.field_job, columns._Decode.fill_tag

    def counting(real):
        def job(self, *args):
            calls["n"] += 1
            if calls["n"] == calls["at"]:
                raise exc("stopped")
            out = real(self, *args)
            return out

        return job

    monkeypatch.setattr(columns._Decode, "field_job", counting(real_field))
    monkeypatch.setattr(columns._Decode, "fill_tag", counting(real_fill))
    for name, call in _reads(files) + _other_reads(files):
        at = 1
        while True:
            calls["n"], calls["at"] = 0, at
            try:
                res = call(threads)
            except exc:
                pass
            else:
                assert calls["n"] < at, name  # every job ran: the read is whole
                del res
                break
            assert held.snapshot() == rest, (name, at)
            # the first jobs one by one, then every few (a read has hundreds of small jobs
            # here: stopping at each of them cost a minute of the suite for the same paths)
            at += 1 if at < 8 else max(1, at // 3)
        assert at > 2, name  # the reads had jobs to stop at
        assert held.snapshot() == rest, name


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_skipped_files_and_a_tag_absent_from_a_file(tmp_path, monkeypatch, threads):
    from test_review4_ahead_skip import _break
    from test_review4_ahead_skip import _write as write_two

    monkeypatch.setattr(columns, "JOB_VALUES", 64)
    held = Held(monkeypatch)
    paths = [
        _write(tmp_path / "a.tsfile", 0),
        write_two(tmp_path / "b.tsfile", 1),
        _write(tmp_path / "c.tsfile", 2, with_site=False),
        write_two(tmp_path / "d.tsfile", 3),
    ]
    _break(paths[1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rest = None
        for flt in (None, tsfile.col("v") > 100):
            kw = {} if flt is None else {"value_filter": flt}
            for _ in range(2):
                res = tsfile.read_table(
                    paths, "m", threads=threads, on_error="skip", schema="union", **kw
                )
                ids = np.ma.getdata(res["id"])
                assert all(type(x) is str for x in ids)
                site = np.ma.getdata(res["site"])
                # a file without the tag: None (a NULL slot, no reference counted) in its rows
                # (b.tsfile is skipped; d.tsfile has no column v: no row of it passes the filter)
                absent = 3600 + 800 if flt is None else 3 * (499 + 500)
                assert sum(x is None for x in site) == absent
                assert all(type(x) is str or x is None for x in site)
                del res, ids, site
                if rest is None:
                    rest = held.snapshot()
                assert held.snapshot() == rest


def test_settle_column_is_exactly_the_rows_written():
    v = _fresh("dev")
    before = sys.getrefcount(v)
    col = tagfill.empty_column(1000, cleared=False)
    tagfill.fill_runs(col, [0], [10], [v])
    out = tagfill.settle(col, 10)
    assert len(out) == 10 and out.base is not None
    # the settled column's base is not an array: no view of the unwritten slots is reachable
    assert not isinstance(out.base, np.ndarray)
    with pytest.raises(TypeError):
        memoryview(out.base)
    del col, out
    gc.collect()
    assert sys.getrefcount(v) == before


def test_late_filtered_tags_none_selected(files):
    res = tsfile.read_table(files, "m", value_filter=tsfile.col("v") > 10**9)
    assert len(res["time"]) == 0 and len(res["id"]) == 0
    assert late is not None
