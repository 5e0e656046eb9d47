"""Paths given to the many-file API (TsFileDataFrame, read_table & co. over a list, a directory
or a glob) that no one had tried: bytes paths, links that lead nowhere or round in a loop, and
a recursive glob through a symlink loop. Each raised a builtin error (or the wrong one) or read
a file several times."""

from __future__ import annotations

import os

import numpy as np
import pytest
from dataset_shards import write_shard

import tsfile
from tsfile import TsFileDataFrame
from tsfile.errors import TsFileNotFoundError
from tsfile.exceptions import FileOpenError, TsFileError


def _frame(paths):
    return TsFileDataFrame(paths, show_progress=False)


def test_a_bytes_directory_is_a_directory(tmp_path):
    # list(b"/dir") was a list of ints: "a path must be a str or os.PathLike, not int";
    # read_table gave the directory to the one-file reader ("a directory")
    write_shard(tmp_path / "a.tsfile", 0, 10)
    write_shard(tmp_path / "b.tsfile", 100, 10)
    raw = os.fsencode(tmp_path)
    with _frame(raw) as df:
        assert len(df["m.a.x"]) == 20
    got = tsfile.read_table(raw)
    assert got["time"].tolist() == [*range(10), *range(10), *range(100, 110), *range(100, 110)]
    assert len(tsfile.to_dataframe(raw)) == 40
    assert tsfile.read_arrow(raw).num_rows == 40


def test_bytes_paths_in_a_list(tmp_path):
    a = write_shard(tmp_path / "a.tsfile", 0, 10)
    b = write_shard(tmp_path / "b.tsfile", 100, 10)
    got = tsfile.read_table([os.fsencode(a), b])
    assert np.array_equal(got["time"], tsfile.read_table([a, b])["time"])
    with _frame([os.fsencode(b), os.fsencode(a)]) as df:
        assert df["m.b.x"].timestamps.tolist() == [*range(10), *range(100, 110)]


def test_a_path_of_another_type_is_still_a_type_error(tmp_path):
    write_shard(tmp_path / "a.tsfile", 0, 10)
    with pytest.raises(TypeError, match="int"):
        _frame([str(tmp_path / "a.tsfile"), 5])


def test_a_recursive_glob_round_a_symlink_loop_reads_each_file_once(tmp_path):
    # glob("**") follows the link: a.tsfile, loop/a.tsfile, loop/loop/a.tsfile... were all read
    # (rows repeated by read_table; "duplicate timestamp" from the dataset view)
    write_shard(tmp_path / "a.tsfile", 0, 10)
    (tmp_path / "sub").mkdir()
    write_shard(tmp_path / "sub" / "b.tsfile", 100, 10)
    os.symlink(tmp_path, tmp_path / "sub" / "loop")
    pattern = str(tmp_path / "**" / "*.tsfile")
    assert len(tsfile.read_table(pattern)["time"]) == 40
    with _frame(pattern) as df:
        assert len(df["m.a.x"]) == 20
        assert df["m.a.x"][:].tolist() == [t + 0.5 for t in [*range(10), *range(100, 110)]]


def test_a_file_named_twice_through_a_symlink_is_read_once(tmp_path):
    a = write_shard(tmp_path / "a.tsfile", 0, 10)
    os.symlink(a, tmp_path / "alias.tsfile")
    got = tsfile.read_table(tmp_path)
    assert len(got["time"]) == 20
    with _frame([a, str(tmp_path / "alias.tsfile")]) as df:
        assert len(df["m.a.x"]) == 10


def test_a_dangling_link_in_a_directory_is_the_packages_not_found_error(tmp_path):
    write_shard(tmp_path / "a.tsfile", 0, 10)
    gone = tmp_path / "gone.tsfile"
    os.symlink(tmp_path / "nowhere.tsfile", gone)
    with pytest.raises(TsFileNotFoundError) as info:  # was a builtin FileNotFoundError
        _frame(tmp_path)
    assert str(gone) in str(info.value)
    with pytest.raises(TsFileNotFoundError, match="gone.tsfile"):
        tsfile.read_table(tmp_path)


def test_a_symlink_loop_is_the_packages_open_error_naming_it(tmp_path):
    write_shard(tmp_path / "a.tsfile", 0, 10)
    loop = tmp_path / "self.tsfile"
    os.symlink(loop, loop)
    for call in (lambda: _frame(tmp_path), lambda: tsfile.read_table(tmp_path)):
        with pytest.raises(FileOpenError) as info:  # was a builtin OSError (ELOOP)
            call()
        assert isinstance(info.value, (TsFileError, OSError))
        assert info.value.filename == str(loop) and str(loop) in str(info.value)
    with pytest.raises(FileOpenError, match="self.tsfile"):
        tsfile.TsFileReader(str(loop))


def test_a_file_object_given_as_several_files_is_a_type_error_naming_it(tmp_path):
    # iterated, a BytesIO gave its lines, each taken for a path (TsFileNotFoundError naming
    # a line of the file's bytes)
    import io

    data = open(write_shard(tmp_path / "a.tsfile", 0, 10), "rb").read()
    with pytest.raises(TypeError, match="BytesIO"):
        _frame(io.BytesIO(data))
    with pytest.raises(TypeError, match="BytesIO"):
        tsfile.read_table([io.BytesIO(data)])
    assert len(tsfile.read_table(io.BytesIO(data))["time"]) == 20  # one object: one file


def test_a_files_bytes_given_as_a_path_is_the_packages_path_error(tmp_path):
    # bytes are a path; a NUL in one was os.open's builtin ValueError
    from tsfile.exceptions import InvalidPathError

    data = open(write_shard(tmp_path / "a.tsfile", 0, 10), "rb").read()
    with pytest.raises(InvalidPathError, match="BytesIO"):
        tsfile.TsFileReader(data)
    with pytest.raises(InvalidPathError):
        tsfile.read_table("a\0b.tsfile")


def test_a_closed_file_object_is_the_packages_open_error(tmp_path):
    f = open(write_shard(tmp_path / "a.tsfile", 0, 10), "rb")
    f.close()
    with pytest.raises(FileOpenError, match="closed"):  # was a builtin ValueError
        tsfile.TsFileReader(f)


def test_tree_model_files_in_a_many_file_read_say_how_to_read_them(tmp_path):
    # a list of one tree-model file: the one-file to_dataframe reads it as a table, the
    # many-file reads said only "no table in any of 1 files"
    from tsfile.exceptions import TableNotExistError

    tree = tmp_path / "t.tsfile"
    w = tsfile.TsFileWriter(str(tree))
    w.register_timeseries(
        "root.sg.d1",
        tsfile.TimeseriesSchema(
            "s", tsfile.TSDataType.INT64, tsfile.TSEncoding.PLAIN, tsfile.Compressor.UNCOMPRESSED
        ),
    )
    for t in range(3):
        w.write_row_record(
            tsfile.RowRecord("root.sg.d1", t, [tsfile.Field("s", t, tsfile.TSDataType.INT64)])
        )
    w.close()
    assert len(tsfile.to_dataframe(str(tree))) == 3
    for read in (tsfile.read_table, tsfile.to_dataframe, tsfile.read_arrow):
        with pytest.raises(TableNotExistError, match="tree-model files are read one at a time"):
            read([str(tree)])
    with _frame([str(tree)]) as df:
        assert [str(n) for n in df.list_timeseries()] == ["root.sg.d1.s"]
