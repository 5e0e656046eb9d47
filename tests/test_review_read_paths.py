"""Review of the read side: the paths a reader accepts."""

import os

import numpy as np
import pytest

import tsfile
from tsfile.types import ColumnCategory, TSDataType


@pytest.fixture
def small_file(tmp_path):
    schema = tsfile.TableSchema(
        "t",
        [
            tsfile.ColumnSchema("id", TSDataType.STRING, ColumnCategory.TAG),
            tsfile.ColumnSchema("v", TSDataType.INT64, ColumnCategory.FIELD),
        ],
    )
    path = tmp_path / "small.tsfile"
    with tsfile.TsFileTableWriter(str(path), schema) as w:
        w.write_arrays(np.arange(5, dtype=np.int64), {"id": "d", "v": np.arange(5) * 10})
    return str(path)


@pytest.mark.parametrize("as_path", [np.str_, os.fsencode], ids=["numpy_str", "bytes"])
def test_reader_opens_str_subclasses_and_bytes_paths(small_file, as_path):
    """A numpy.str_ (an element of a numpy array of paths) and a bytes path open the file like
    the str. (Was: TypeError "Argument 'path' has incorrect type" from the compiled FileView.)"""
    with tsfile.TsFileReader(as_path(small_file)) as r:
        assert r.read_columns("t", ["v"])[3]["v"].tolist() == [0, 10, 20, 30, 40]
