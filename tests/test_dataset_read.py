"""read_table / read_arrow / to_dataframe over many files (issue 12 item 1): the forms of input,
the order of the result whatever the threads, filters pushed to every file, files pruned by
their time statistics before their data is read, bad files and differing schemas."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pandas as pd
import pytest
from dataset_shards import write_shard, write_shards

import tsfile
from tsfile._dataset.scan import Scanner
from tsfile.errors import ColumnNotExistError, CorruptDataError, InvalidSchemaError
from tsfile.reader import TsFileReader


def _same(a, b):
    assert list(a) == list(b)
    for k in a:
        x, y = a[k], b[k]
        assert isinstance(x, np.ma.MaskedArray) == isinstance(y, np.ma.MaskedArray), k
        if isinstance(x, np.ma.MaskedArray):
            assert np.array_equal(np.ma.getmaskarray(x), np.ma.getmaskarray(y)), k
            assert np.array_equal(x.filled(0), y.filled(0)), k
        else:
            assert np.array_equal(x, y), k


def _concat(paths, **kw):
    """The one-file reader on every file, its results one after the other."""
    parts = [tsfile.read_table(p, "m", **kw) for p in paths]
    out = {}
    for k in parts[0]:
        arrays = [p[k] for p in parts]
        masked = any(isinstance(a, np.ma.MaskedArray) for a in arrays)
        out[k] = np.ma.concatenate(arrays) if masked else np.concatenate(arrays)
    return out


@pytest.fixture
def shards(tmp_path):
    return write_shards(tmp_path, files=4, rows=40, null_every=3)


def test_directory_list_and_glob_give_the_files_in_order(tmp_path, shards):
    expected = _concat(shards)
    _same(tsfile.read_table(str(tmp_path), "m"), expected)
    _same(tsfile.read_table(tmp_path, "m"), expected)  # a pathlib.Path directory
    _same(tsfile.read_table(shards, "m"), expected)
    _same(tsfile.read_table(str(tmp_path / "part*.tsfile"), "m"), expected)
    # a list keeps its order
    _same(tsfile.read_table(shards[::-1], "m"), _concat(shards[::-1]))


def test_same_result_whatever_the_threads(tmp_path, shards):
    one = tsfile.read_table(str(tmp_path), "m", threads=1)
    for threads in (2, 3, 8):
        _same(tsfile.read_table(str(tmp_path), "m", threads=threads), one)


def test_columns_time_range_tag_and_value_filters_reach_every_file(tmp_path, shards):
    kw = dict(
        column_names=["x", "id"],
        start_time=30,
        end_time=230,
        tag_filter=tsfile.tag_eq("id", "b"),
        value_filter=tsfile.col("x") > 100,
    )
    got = tsfile.read_table(str(tmp_path), "m", **kw)
    assert list(got) == ["time", "x", "id"]
    assert set(got["id"]) == {"b"}
    assert got["time"].min() >= 30 and got["time"].max() <= 230
    assert (np.ma.compressed(got["x"]) > 100).all()
    _same(got, _concat(shards, **kw))


def test_files_outside_the_time_range_are_pruned_before_their_data_is_read(
    tmp_path, shards, monkeypatch
):
    read = []
    original = TsFileReader._plan_columns  # the step before any chunk of a file is read

    def spy(self, *a, **k):
        read.append(self._path)
        return original(self, *a, **k)

    monkeypatch.setattr(TsFileReader, "_plan_columns", spy)
    got = tsfile.read_table(str(tmp_path), "m", start_time=110, end_time=120)
    assert read == [shards[1]]
    assert sorted(set(got["time"].tolist())) == list(range(110, 121))
    scan = Scanner(str(tmp_path), "m", start_time=110, end_time=120)
    assert scan.files == [shards[1]]
    assert scan.pruned == [shards[0], shards[2], shards[3]]


@pytest.mark.parametrize("damage", ["not_a_tsfile", "truncated"])
def test_a_bad_file_in_a_directory_is_named_or_skipped(tmp_path, shards, damage):
    bad = tmp_path / "part001b.tsfile"
    if damage == "not_a_tsfile":
        bad.write_bytes(b"this is not a tsfile" * 10)
    else:
        data = open(shards[1], "rb").read()
        bad.write_bytes(data[: len(data) // 2])
    with pytest.raises(CorruptDataError, match=str(bad)):
        tsfile.read_table(str(tmp_path), "m")
    with pytest.raises(CorruptDataError, match=str(bad)):
        tsfile.read_arrow(str(tmp_path), "m")
    with pytest.warns(RuntimeWarning, match=str(bad)):
        got = tsfile.read_table(str(tmp_path), "m", on_error="skip")
    _same(got, _concat(shards))


def test_differing_schemas_name_both_files_and_the_column(tmp_path):
    a = write_shard(tmp_path / "a.tsfile", 0, 10)
    b = write_shard(tmp_path / "b.tsfile", 100, 10, extra="y")
    with pytest.raises(InvalidSchemaError) as err:
        tsfile.read_table(str(tmp_path), "m")
    msg = str(err.value)
    assert a in msg and b in msg and "'y'" in msg
    c = tmp_path / "c"
    c.mkdir()
    write_shard(c / "a.tsfile", 0, 10)
    write_shard(c / "b.tsfile", 100, 10, x_type=tsfile.TSDataType.INT64)
    with pytest.raises(InvalidSchemaError, match="'x'"):
        tsfile.read_table(str(c), "m")
    with pytest.raises(InvalidSchemaError, match="'x'"):  # one column, two types: even union
        tsfile.read_table(str(c), "m", schema="union")


def test_union_schema_fills_the_columns_a_file_lacks_with_nulls(tmp_path):
    a = write_shard(tmp_path / "a.tsfile", 0, 10)
    b = write_shard(tmp_path / "b.tsfile", 100, 10, extra="y")
    got = tsfile.read_table(str(tmp_path), "m", schema="union")
    assert list(got) == ["time", "id", "x", "ts", "y"]
    assert got["y"].mask[:20].all() and not got["y"].mask[20:].any()
    assert got["y"][20:].tolist() == list(range(10)) * 2
    arrow = tsfile.read_arrow([a, b], "m", schema="union")
    assert arrow.column("y").null_count == 20
    df = tsfile.to_dataframe([a, b], "m", schema="union")
    assert str(df["y"].dtype) == "Int32" and df["y"].isna().sum() == 20
    assert len(df) == 40


def test_read_arrow_and_to_dataframe_over_files_match_the_one_file_functions(tmp_path, shards):
    import pyarrow as pa

    arrow = tsfile.read_arrow(str(tmp_path), "m", threads=2)
    assert arrow.equals(pa.concat_tables([tsfile.read_arrow(p, "m") for p in shards]))
    df = tsfile.to_dataframe(str(tmp_path), "m", ["x", "id"], start_time=30, end_time=130)
    ref = pd.concat(
        [tsfile.to_dataframe(p, "m", ["x", "id"], start_time=30, end_time=130) for p in shards[:2]],
        ignore_index=True,
    )
    pd.testing.assert_frame_equal(df, ref)
    it = list(tsfile.to_dataframe(str(tmp_path), "m", as_iterator=True, max_row_num=100))
    assert [len(x) for x in it] == [100, 100, 100, 20]


def test_unknown_columns_tables_and_options(tmp_path, shards):
    with pytest.raises(ColumnNotExistError):
        tsfile.read_table(str(tmp_path), "m", ["nope"])
    with pytest.raises(tsfile.TableNotExistError):
        tsfile.read_table(str(tmp_path), "nope")
    with pytest.raises(ValueError, match="on_error"):
        tsfile.read_table(str(tmp_path), "m", on_error="ignore")
    with pytest.raises(ValueError, match="on_error"):  # checked for one file too
        tsfile.read_table(shards[0], "m", on_error="ignore")
    with pytest.raises(FileNotFoundError):
        tsfile.read_table(str(tmp_path / "none*.tsfile"), "m")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(FileNotFoundError):
        tsfile.read_table(str(empty), "m")


def test_one_file_path_keeps_the_one_file_reader(tmp_path, shards):
    # no multi-file planning for one file's path: the result is the one-file function's
    _same(tsfile.read_table(shards[0], "m", threads=2), tsfile.read_table(shards[0], "m"))
    assert os.path.isfile(shards[0])


def test_skip_warning_names_the_file_once(tmp_path, shards):
    bad = tmp_path / "zz.tsfile"
    bad.write_bytes(b"x" * 100)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tsfile.read_table(str(tmp_path), "m", on_error="skip")
    msgs = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    assert len(msgs) == 1 and msgs[0].count(str(bad)) == 1


def test_the_files_may_be_given_by_keyword(tmp_path, shards):
    # the first parameter by its name (path / file_path), as a keyword: still several files
    expected = _concat(shards)
    _same(tsfile.read_table(path=str(tmp_path), table_name="m"), expected)
    frame = tsfile.to_dataframe(file_path=str(tmp_path), table_name="m")
    assert len(frame) == len(expected["time"])
    assert tsfile.read_arrow(path=str(tmp_path), table_name="m").num_rows == len(expected["time"])


def test_pool_map_runs_each_call_in_the_callers_context():
    """The calls on the executor's threads see the caller's context variables (numpy's
    allocator chosen by tsfile._mem.pool.pooled() is one), as those run on its own thread do."""
    import contextvars
    import threading

    from tsfile._dataset.scan import pool_map

    var = contextvars.ContextVar("var", default="unset")
    both = threading.Barrier(2, timeout=10)  # two calls at once: two threads

    def fn(x):
        both.wait()
        return x, var.get(), threading.get_ident()

    def caller():
        var.set("the caller's")
        return pool_map(fn, [0, 1], 2)

    got = contextvars.copy_context().run(caller)
    assert [(x, v) for x, v, _t in got] == [(0, "the caller's"), (1, "the caller's")]
    assert len({t for _x, _v, t in got}) == 2
    assert var.get() == "unset"
