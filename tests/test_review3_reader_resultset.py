"""Review 3 of the read side: a column index beyond C int's range is out of range.

The README promises OutOfRangeError (an IndexError) for a bad 1-based index; an index of 2**31
or more (or below -2**31) raised OverflowError from the argument's conversion instead."""

import numpy as np
import pytest

import tsfile
from tsfile import ColumnCategory, ColumnSchema, TableSchema, TSDataType


@pytest.fixture(scope="module")
def small_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("rs") / "small.tsfile"
    schema = TableSchema(
        "t",
        [
            ColumnSchema("dev", TSDataType.STRING, ColumnCategory.TAG),
            ColumnSchema("v", TSDataType.INT64, ColumnCategory.FIELD),
        ],
    )
    with tsfile.TsFileTableWriter(str(path), schema) as w:
        w.write_arrays(np.arange(3, dtype=np.int64), {"dev": "a", "v": np.arange(3)})
    return str(path)


@pytest.mark.parametrize("index", [2**31, 2**70, -(2**31) - 1, -(2**80)])
def test_huge_column_index_is_out_of_range(small_file, index):
    with tsfile.TsFileReader(small_file) as r, r.query_table("t", ["v"]) as rs:
        assert rs.next()
        with pytest.raises(tsfile.OutOfRangeError):
            rs.get_value_by_index(index)
        with pytest.raises(tsfile.OutOfRangeError):
            rs.is_null_by_index(index)
        assert rs.get_value_by_index(2) == 0  # the row is still readable
        assert rs.is_null_by_index(2) is False


def test_column_index_of_another_type_is_a_type_error(small_file):
    with tsfile.TsFileReader(small_file) as r, r.query_table("t", ["v"]) as rs:
        assert rs.next()
        for bad in ("1", 1.0, 1.5, 2.9, None):  # a float was truncated: 1.5 read column 1
            with pytest.raises(TypeError):
                rs.get_value_by_index(bad)
            with pytest.raises(TypeError):
                rs.is_null_by_index(bad)
        assert rs.get_value_by_index(i=2) == 0
        assert rs.get_value_by_index(np.int64(2)) == 0
