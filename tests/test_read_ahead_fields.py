"""Field columns decoded while a many-file read is still planning (tsfile._read.ahead, after the
time chunks of the same chunk groups; engine.prepare_value_groups / run_ahead_batches).

The values are written at the rows reserved for them and kept only where a chunk group's final
rows are those (every time chunk before it filled its room); the rest is decoded again by the
field phase. These tests check the result against one thread (no pipeline) and against each
file read alone, with nulls (whose masks must not keep bits of rows that moved), time ranges
that cut pages (rows move), columns of several types, a TEXT column (not decoded ahead) and a
file with a column absent; and the engine's prepared value batches on their own."""

from __future__ import annotations

import numpy as np
import pytest

import tsfile
from tsfile._read import ahead, columns, engine
from tsfile.reader import TsFileReader
from tsfile.types import ColumnCategory, TSDataType
from tsfile.writer import TsFileWriter

NUMERIC = [
    ("i32", TSDataType.INT32, np.int32),
    ("i64", TSDataType.INT64, np.int64),
    ("f32", TSDataType.FLOAT, np.float32),
    ("f64", TSDataType.DOUBLE, np.float64),
    ("ok", TSDataType.BOOLEAN, np.bool_),
]


def _write(path, k, rows, text=False, drop=None, null_every=7):
    """File ``k``: two devices, ``rows`` rows each from time k * 10**6 in two chunk groups per
    device, small pages; every field null in some rows (each column its own rows); ``text``: a
    TEXT field too; ``drop``: a field column left out of the file's second device."""
    cols = [tsfile.ColumnSchema("id", TSDataType.STRING, ColumnCategory.TAG)]
    cols += [tsfile.ColumnSchema(n, t, ColumnCategory.FIELD) for n, t, _d in NUMERIC]
    if text:
        cols.append(tsfile.ColumnSchema("s", TSDataType.TEXT, ColumnCategory.FIELD))
    rng = np.random.default_rng(k)
    w = TsFileWriter(str(path), overwrite=True, page_size=64)
    w.register_table(tsfile.TableSchema("m", cols))
    for half in range(2):
        for dev in ("a", "b"):
            n = rows // 2
            t = np.arange(n, dtype=np.int64) + k * 10**6 + half * n
            data, masks = {"id": dev}, {}
            for j, (name, _t, dtype) in enumerate(NUMERIC):
                if drop == name and dev == "b":
                    continue
                if dtype is np.bool_:
                    data[name] = rng.integers(0, 2, n).astype(np.bool_)
                elif np.issubdtype(dtype, np.integer):
                    data[name] = rng.integers(-(10**6), 10**6, n).astype(dtype)
                else:
                    data[name] = rng.normal(size=n).astype(dtype)
                masks[name] = (np.arange(n) + j + k) % (null_every + j) == 0
            if text:
                data["s"] = np.array([f"v{x}" for x in range(n)], dtype=object)
            w.write_arrays("m", t, data, null_masks=masks)
        w.flush()
    w.close()
    return str(path)


def _as_lists(result):
    out = {}
    for key, v in result.items():
        if isinstance(v, np.ma.MaskedArray):
            out[key] = (np.ma.getdata(v).tolist(), np.ma.getmaskarray(v).tolist())
            out[key] = [None if m else x for x, m in zip(*out[key], strict=True)]
        else:
            out[key] = np.asarray(v).tolist()
    return out


def _one_by_one(paths, **kw):
    parts = [_as_lists(tsfile.read_table(p, "m", **kw)) for p in paths]
    return {key: [x for p in parts for x in p[key]] for key in parts[0]}


@pytest.fixture
def ahead_used(monkeypatch):
    """The helper woken for every job; the chunk groups whose field columns the read took from
    the pipeline, and those decoded ahead at rows that moved (decoded again)."""
    monkeypatch.setattr(ahead, "_WAKE_VALUES", 1)
    monkeypatch.setattr(ahead, "_RESERVE_MIN_EXTRA", 0)
    seen = {"kept": 0, "moved": 0}
    original = columns._fields_ahead

    def counting(d, jobs, rows, starts):
        done = original(d, jobs, rows, starts)
        seen["kept"] += len(done)
        if d.values_ahead:
            seen["moved"] += sum(
                1
                for k, job in enumerate(jobs)
                if k not in done and d.ahead.values_of(job[3]) is not None
            )
        return done

    monkeypatch.setattr(columns, "_fields_ahead", counting)
    return seen


@pytest.mark.parametrize("threads", [2, 3])
def test_fields_decoded_ahead_equal_one_thread_and_each_file_alone(tmp_path, ahead_used, threads):
    paths = [_write(tmp_path / f"p{k}.tsfile", k, 800) for k in range(6)]
    got = _as_lists(tsfile.read_table(paths, "m", threads=threads))
    assert got == _as_lists(tsfile.read_table(paths, "m", threads=1))
    assert got == _one_by_one(paths)
    assert ahead_used["kept"] > 0 and ahead_used["moved"] == 0
    assert any(x is None for x in got["f64"])  # the masks were exercised


def test_rows_that_moved_are_decoded_again_with_clean_null_masks(tmp_path, ahead_used):
    """A time range that cuts the first file's pages: its groups hold fewer rows than their room,
    so every later group's values, decoded ahead at its reserved rows, moved. Their null bits
    there must not survive into the rows other values land on."""
    paths = [_write(tmp_path / f"p{k}.tsfile", k, 800, null_every=3) for k in range(5)]
    kw = {"start_time": 3, "end_time": 4 * 10**6 + 10**5}  # inside the first page
    got = _as_lists(tsfile.read_table(paths, "m", threads=2, **kw))
    assert got == _as_lists(tsfile.read_table(paths, "m", threads=1, **kw))
    assert got == _one_by_one(paths, **kw)
    assert ahead_used["moved"] > 0  # the case under test happened


def test_a_text_column_or_an_absent_column_leaves_groups_to_the_field_phase(tmp_path, ahead_used):
    # the files without TEXT first: a first file of more bytes a row would make the estimate
    # too small for the others (then nothing is kept ahead, tests/test_read_ahead.py)
    paths = [_write(tmp_path / f"d{k}.tsfile", 10 + k, 600, drop="i32") for k in range(3)]
    paths += [_write(tmp_path / f"t{k}.tsfile", k, 600, text=True) for k in range(3)]
    got = _as_lists(tsfile.read_table(paths, "m", threads=2, schema="union"))
    assert got == _as_lists(tsfile.read_table(paths, "m", threads=1, schema="union"))
    # the files without TEXT: their groups with every column present were decoded ahead
    assert ahead_used["kept"] > 0


def test_a_value_filter_reads_without_the_fields_decoded_ahead(tmp_path, ahead_used):
    col = tsfile.col
    paths = [_write(tmp_path / f"p{k}.tsfile", k, 600) for k in range(4)]
    flt = col("i64") > 0
    got = _as_lists(tsfile.read_table(paths, "m", threads=2, value_filter=flt))
    assert got == _as_lists(tsfile.read_table(paths, "m", threads=1, value_filter=flt))
    assert ahead_used["kept"] == 0


# -- the engine's prepared value batches -----------------------------------------------------


def _prepared(path, out_ts, at, fields=None):
    """A reader, its time batch at row ``at`` of ``out_ts`` and the groups' value arguments."""
    r = TsFileReader(path)
    read = r._plan_columns("m", fields, None, None, "auto", None, None)
    groups = [g for _task, g in read.groups]
    starts, pos = [], at
    for g in groups:
        starts.append(pos)
        pos += g.rows
    tmin, tmax = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    batch = r._time_batch(groups, out_ts, starts, tmin, tmax, 0)
    return r, read, batch, starts, pos


def _value_args(read, starts, vals, nulls):
    return [
        (g.values, task.types, vals, nulls, s, task.names or None)
        for (task, g), s in zip(read.groups, starts, strict=True)
    ]


def test_run_ahead_batches_decodes_values_after_their_time_chunks(tmp_path):
    path = _write(tmp_path / "p.tsfile", 0, 800)
    out = np.empty(1600, np.int64)
    r, read, batch, starts, end = _prepared(path, out, 0, ["i64", "f32"])
    with r:
        vals = [np.empty(1600, np.int64), np.empty(1600, np.float32)]
        nulls = [np.zeros(1600, np.bool_), np.zeros(1600, np.bool_)]
        vb = engine.prepare_value_groups(r._fv, batch, _value_args(read, starts, vals, nulls))
        [(times, counts)] = engine.run_ahead_batches([batch], [vb], engine.new_scratch())
        assert [n for n, _plan in times] == [g.rows for _t, g in read.groups]
        want = tsfile.read_table(path, "m", ["i64", "f32"])
        assert out[:end].tolist() == want["time"].tolist()
        for k, name in enumerate(["i64", "f32"]):
            m = np.ma.getmaskarray(want[name])
            assert nulls[k][:end].tolist() == m.tolist()
            assert vals[k][:end][~m].tolist() == np.ma.getdata(want[name])[~m].tolist()
            assert sum(c[k] for c in counts) == int(m.sum())
        with pytest.raises(ValueError, match="once"):
            engine.run_ahead_batches([batch], [vb], engine.new_scratch())


def test_a_value_batch_is_not_run_when_its_time_chunks_do_not_fill_their_room(tmp_path):
    path = _write(tmp_path / "p.tsfile", 0, 800)
    with TsFileReader(path) as r:
        read = r._plan_columns("m", ["i64"], None, None, "auto", None, None)
        groups = [g for _task, g in read.groups]
        out = np.empty(1600, np.int64)
        starts = [k * 400 for k in range(len(groups))]
        # a time range inside the first group: fewer rows than its room
        batch = r._time_batch(groups, out, starts, 10, 20, 0)
        vals, nulls = [np.full(1600, -1, np.int64)], [np.zeros(1600, np.bool_)]
        vb = engine.prepare_value_groups(r._fv, batch, _value_args(read, starts, vals, nulls))
        [(times, counts)] = engine.run_ahead_batches([batch], [vb], engine.new_scratch())
        assert times[0][0] == 11 and counts is None
        assert (vals[0] == -1).all()  # nothing written


def test_prepare_value_groups_refuses_what_it_cannot_place(tmp_path):
    path = _write(tmp_path / "p.tsfile", 0, 800, text=True)
    out = np.empty(1600, np.int64)
    r, read, batch, starts, _end = _prepared(path, out, 0, ["i64", "s"])
    with r:
        vals = [np.empty(1600, np.int64), np.empty(1600, object)]
        nulls = [np.zeros(1600, np.bool_), np.zeros(1600, np.bool_)]
        with pytest.raises(ValueError, match="numeric"):
            engine.prepare_value_groups(r._fv, batch, _value_args(read, starts, vals, nulls))
        args = _value_args(read, starts, vals, nulls)
        with pytest.raises(ValueError, match="one group per chunk"):
            engine.prepare_value_groups(r._fv, batch, args[:1])
    out = np.empty(1600, np.int64)
    r, read, batch, starts, _end = _prepared(path, out, 0, ["i64"])
    with r:
        nulls = [np.zeros(1600, np.bool_)]
        short = [np.empty(10, np.int64)]
        with pytest.raises(ValueError, match="outside"):
            engine.prepare_value_groups(
                r._fv, batch, _value_args(read, [s + 1590 for s in starts], short, nulls)
            )
        with pytest.raises(TypeError):  # the wrong dtype for an INT64 chunk
            engine.prepare_value_groups(
                r._fv, batch, _value_args(read, starts, [np.empty(1600, np.int32)], nulls)
            )
        other = engine.prepare_time_chunks(
            r._fv, [read.groups[0][1].time_chunk], 0, 1, 0, out, [0], [400], [False], [0], [-1]
        )
        vb = engine.prepare_value_groups(
            r._fv, batch, _value_args(read, starts, [np.empty(1600, np.int64)], nulls)
        )
        with pytest.raises(ValueError, match="with the TimeBatch"):
            engine.run_ahead_batches([other], [vb], engine.new_scratch())
        with pytest.raises(ValueError, match="a ValueBatch or None per TimeBatch"):
            engine.run_ahead_batches([batch], [], engine.new_scratch())


def test_a_group_without_rows_in_range_shares_no_key_with_the_next(
    tmp_path, ahead_used, monkeypatch
):
    """A chunk group whose statistics meet the time range but none of its pages do has no
    room: it starts where the next group starts. Its field columns are not decoded ahead (the
    reserved start is the key of what was), so the next group's null counts are not taken for
    its own."""
    taken = []  # (capacity of a group whose fields the read took from the helper)
    counting = columns._fields_ahead

    def recording(d, jobs, rows, starts):
        done = counting(d, jobs, rows, starts)
        taken.extend(jobs[k][4] for k in done)
        return done

    monkeypatch.setattr(columns, "_fields_ahead", recording)
    cols = [
        tsfile.ColumnSchema("id", TSDataType.STRING, ColumnCategory.TAG),
        tsfile.ColumnSchema("v", TSDataType.INT64, ColumnCategory.FIELD),
    ]
    paths = []
    for k in range(3):
        path = str(tmp_path / f"g{k}.tsfile")
        with TsFileWriter(path, overwrite=True, page_size=100) as w:
            w.register_table(tsfile.TableSchema("m", cols))
            gap = np.concatenate([np.arange(100), np.arange(1000, 1100)]).astype(np.int64)
            w.write_arrays("m", gap, {"id": "a", "v": gap})
            inside = np.arange(200, 900, dtype=np.int64)
            w.write_arrays("m", inside, {"id": "b", "v": inside}, null_masks={"v": inside % 3 == 0})
        paths.append(path)
    kw = {"start_time": 150, "end_time": 950}
    got = _as_lists(tsfile.read_table(paths, "m", threads=2, **kw))
    assert got == _as_lists(tsfile.read_table(paths, "m", threads=1, **kw))
    assert got["id"] == ["b"] * 2100 and ahead_used["kept"] > 0
    assert taken and min(taken) > 0  # no group of no rows took another group's null counts


def test_reserved_fields_of_another_dtype_are_not_adopted():
    t = ahead.TimesAhead(None, None, 1)
    t._kept = True
    t._values_done = {0: [0]}
    t.values = {"v": np.empty(8, np.int64)}
    t.nulls = {"v": np.zeros(8, np.bool_)}
    assert t.adopt_fields({"v": np.int64}) == (t.values, t.nulls)
    assert t.adopt_fields({"v": np.float64}) is None  # same item size, another type
