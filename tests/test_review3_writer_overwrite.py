"""Third review of the writer: overwrite=True replaced more than the file's contents.

It wrote a new file beside the path and renamed it over the path, so the file it replaced lost its
permissions (a 0600 file came back 0644, readable by every user), a symbolic link was replaced
by a regular file (the file it named kept the old rows), and a FIFO was replaced by a file."""

import os
import stat

import numpy as np
import pytest

from tsfile.dataframe import read_table
from tsfile.errors import UnsupportedError
from tsfile.schema import ColumnSchema, TableSchema
from tsfile.types import ColumnCategory, TSDataType
from tsfile.writer import TsFileTableWriter

SCHEMA = TableSchema(
    "t",
    [
        ColumnSchema("d", TSDataType.STRING, ColumnCategory.TAG),
        ColumnSchema("v", TSDataType.INT64, ColumnCategory.FIELD),
    ],
)


def _write(path, first, **options):
    with TsFileTableWriter(path, SCHEMA, **options) as w:
        w.write_arrays(np.arange(3), {"d": "a", "v": np.arange(first, first + 3)})


def test_overwrite_keeps_the_permissions_of_the_file_it_replaces(tmp_path):
    path = tmp_path / "a.tsfile"
    _write(path, 0)
    os.chmod(path, 0o600)
    _write(path, 10, overwrite=True)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert read_table(path, "t")["v"].tolist() == [10, 11, 12]


def test_overwrite_through_a_symlink_replaces_the_file_it_names(tmp_path):
    (tmp_path / "data").mkdir()
    target = tmp_path / "data" / "x.tsfile"
    _write(target, 0)
    link = tmp_path / "current.tsfile"
    link.symlink_to(os.path.join("data", "x.tsfile"))
    _write(link, 10, overwrite=True)
    assert link.is_symlink()
    assert read_table(target, "t")["v"].tolist() == [10, 11, 12]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp file left


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_overwrite_refuses_a_path_that_is_not_a_regular_file(tmp_path):
    fifo = tmp_path / "f.tsfile"
    os.mkfifo(fifo)
    with pytest.raises(UnsupportedError, match="not a regular file"):
        TsFileTableWriter(fifo, SCHEMA, overwrite=True)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.tsfile"]
