"""A ResultSet asked for a value with no current row raises NoCurrentRowError (a TsFileError and,
as before it had a class, a RuntimeError): before next(), and after read_data_frame() used up
the result (the official package returns None there; a row that is not there is an error)."""

import numpy as np
import pytest

import tsfile
from tsfile import ColumnCategory, ColumnSchema, TableSchema, TSDataType, TsFileTableWriter


@pytest.fixture
def three_rows(tmp_path):
    path = str(tmp_path / "r.tsfile")
    schema = TableSchema("t", [ColumnSchema("a", TSDataType.INT64, ColumnCategory.FIELD)])
    with TsFileTableWriter(path, schema) as w:
        w.write_arrays(np.arange(3, dtype=np.int64), {"a": np.arange(3, dtype=np.int64)})
    return path


def test_no_current_row_before_next(three_rows):
    with tsfile.TsFileReader(three_rows) as r, r.query_table("t", ["a"]) as rs:
        with pytest.raises(tsfile.NoCurrentRowError, match="next"):
            rs.get_value_by_index(1)


def test_no_current_row_once_read_data_frame_used_the_result_up(three_rows):
    with tsfile.TsFileReader(three_rows) as r, r.query_table("t", ["a"]) as rs:
        assert rs.next()
        assert len(rs.read_data_frame(10)) == 3
        with pytest.raises(tsfile.NoCurrentRowError) as info:
            rs.get_value_by_name("a")
        # both, as the module docstring says (a tuple would accept either one)
        assert isinstance(info.value, tsfile.TsFileError)
        assert isinstance(info.value, RuntimeError)
        assert not rs.next()


def test_the_cursor_stays_on_the_last_row_returned(three_rows):
    with tsfile.TsFileReader(three_rows) as r, r.query_table("t", ["a"]) as rs:
        assert rs.next()
        assert len(rs.read_data_frame(2)) == 2
        assert rs.get_value_by_name("a") == 1
        assert rs.next() and rs.get_value_by_name("a") == 2
