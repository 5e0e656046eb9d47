"""Result sets as the official package's: read_data_frame, batch_size blocks, 1-based metadata
that never wraps around, get_active_query_result."""

import pytest

import tsfile
from tsfile import ColumnCategory, ColumnSchema, TableSchema, TSDataType
from tsfile.exceptions import OutOfRangeError

from .both import same_on_both

# Ten rows of one device, v null at row 3; written by whichever package runs the snippet.
WRITE = """
import tsfile
from tsfile import ColumnCategory, ColumnSchema, TableSchema, Tablet, TSDataType
schema = TableSchema("t", [ColumnSchema("d", TSDataType.STRING, ColumnCategory.TAG),
                           ColumnSchema("v", TSDataType.INT64, ColumnCategory.FIELD),
                           ColumnSchema("f", TSDataType.DOUBLE, ColumnCategory.FIELD)])
with tsfile.TsFileTableWriter("a.tsfile", schema) as w:
    tab = Tablet(["d", "v", "f"], [TSDataType.STRING, TSDataType.INT64, TSDataType.DOUBLE], 10)
    for i in range(10):
        tab.add_timestamp(i, i)
        tab.add_value_by_index(0, i, "dev")
        if i != 3:
            tab.add_value_by_index(1, i, i * 10)
        tab.add_value_by_index(2, i, i / 4)
    w.write_table(tab)
reader = tsfile.TsFileReader("a.tsfile")
def frame(df):
    import pandas as pd
    return {"columns": list(df.columns), "dtypes": [str(t) for t in df.dtypes],
            "rows": [[None if pd.isna(v) else v for v in row]
                     for row in df.astype(object).itertuples(index=False)]}
"""

READ_DATA_FRAME = (
    WRITE
    + """
rs = reader.query_table("t", ["d", "v", "f"], 0, 100)
out["first_without_next"] = frame(rs.read_data_frame(4))
out["next_after"] = [rs.next(), rs.get_value_by_index(1)]
out["from_current"] = frame(rs.read_data_frame(3))["rows"]
out["next_again"] = [rs.next(), rs.get_value_by_index(1)]
out["rest"] = frame(rs.read_data_frame(100))["rows"]
out["end"] = rs.next()
empty = rs.read_data_frame(5)
out["after_end"] = [list(empty.columns), len(empty)]
rs.close()
rs = reader.query_table("t", ["v"], 0, 100)
sizes = []
while rs.next():
    sizes.append(len(rs.read_data_frame(max_row_num=3)))
out["loop_sizes"] = sizes
"""
)


def test_read_data_frame_takes_rows_from_the_current_one_and_advances():
    # before: ResultSet had no read_data_frame
    out = same_on_both(READ_DATA_FRAME)
    assert out["first_without_next"]["columns"] == ["time", "d", "v", "f"]
    assert out["first_without_next"]["dtypes"] == ["Int64", "object", "Int64", "Float64"]
    assert [r[0] for r in out["first_without_next"]["rows"]] == [0, 1, 2, 3]
    assert out["first_without_next"]["rows"][3] == [3, "dev", None, 0.75]
    assert out["next_after"] == [True, 4]
    assert [r[0] for r in out["from_current"]] == [4, 5, 6]
    assert out["next_again"] == [True, 7]
    assert [r[0] for r in out["rest"]] == [7, 8, 9]
    assert out["end"] is False
    assert out["after_end"] == [["time", "d", "v", "f"], 0]
    assert out["loop_sizes"] == [3, 3, 3, 1]


BATCHES = (
    WRITE
    + """
rs = reader.query_table("t", ["d", "v"], 0, 100, batch_size=3)
sizes = []
while (b := rs.read_arrow_batch()) is not None:
    sizes.append(b.num_rows)
    out.setdefault("columns", b.column_names)
out["sizes"] = sizes
rs = reader.query_table("t", ["v"], 2, 7, batch_size=4)
times = []
while (b := rs.read_arrow_batch()) is not None:
    times.append(b.column("time").to_pylist())
out["times"] = times
"""
)


def test_read_arrow_batch_honours_batch_size():
    # before: blocks were whole pages/chunk groups, larger than batch_size
    out = same_on_both(BATCHES)
    assert out["sizes"] == [3, 3, 3, 1]
    assert out["times"] == [[2, 3, 4, 5], [6, 7]]


def test_next_after_a_batch_continues_with_the_rest_of_the_block(tmp_path):
    path = tmp_path / "b.tsfile"
    schema = TableSchema("t", [ColumnSchema("v", TSDataType.INT64, ColumnCategory.FIELD)])
    with tsfile.TsFileTableWriter(path, schema) as w:
        w.write_arrays(list(range(10)), {"v": list(range(10))})
    with tsfile.TsFileReader(path) as r, r.query_table("t", ["v"], batch_size=4) as rs:
        assert rs.get_next_tsblock().timestamps.tolist() == [0, 1, 2, 3]
        assert rs.next() and rs.get_value_by_index(1) == 4
        assert rs.read_data_frame(2)["time"].tolist() == [4, 5]
        assert rs.get_next_tsblock().timestamps.tolist() == [6, 7, 8, 9]
        assert rs.get_next_tsblock() is None


METADATA = (
    WRITE
    + """
rs = reader.query_table("t", ["d", "v"], 0, 100)
md = rs.get_metadata()
out["names"] = [md.get_column_name(i) for i in range(1, md.get_column_num() + 1)]
out["types"] = [int(md.get_data_type(i)) for i in range(1, md.get_column_num() + 1)]
out["lists"] = [md.get_column_list(), [int(t) for t in md.get_data_type_list()]]
for i in (0, -1, 4, 100):
    out[f"name_{i}_raises"] = error_of(md.get_column_name, i) is not None
    out[f"type_{i}_raises"] = error_of(md.get_data_type, i) is not None
"""
)


def test_metadata_is_one_based_and_never_wraps_around():
    # before: get_column_name(0) returned the last column (Python's [-1])
    out = same_on_both(METADATA)
    assert out["names"] == ["time", "d", "v"]
    assert all(v for k, v in out.items() if k.endswith("_raises"))


def test_out_of_range_indexes_raise_out_of_range_error_an_index_error(tmp_path):
    path = tmp_path / "m.tsfile"
    schema = TableSchema("t", [ColumnSchema("v", TSDataType.INT64, ColumnCategory.FIELD)])
    with tsfile.TsFileTableWriter(path, schema) as w:
        w.write_arrays([1], {"v": [1]})
    with tsfile.TsFileReader(path) as r, r.query_table("t", ["v"]) as rs:
        md = rs.get_metadata()
        for i in (0, -1, 3):
            with pytest.raises(OutOfRangeError, match="out of range 1..2"):
                md.get_column_name(i)
            with pytest.raises(IndexError):
                md.get_data_type(i)
        assert rs.next()
        # the official package crashes the process on get_value_by_index(0) (README table)
        with pytest.raises(OutOfRangeError):
            rs.get_value_by_index(0)
        with pytest.raises(IndexError):
            rs.is_null_by_index(3)


ACTIVE = (
    WRITE
    + """
r1 = reader.query_table("t", ["v"], 0, 100)
out["one"] = len(reader.get_active_query_result())
r2 = reader.query_table("t", ["v"], 5, 100)
out["two"] = len(reader.get_active_query_result())
r1.close()
out["after_close"] = len(reader.get_active_query_result())
out["is_r2"] = r2 in list(reader.get_active_query_result())
reader.close()
out["next_after_reader_close_raises"] = error_of(r2.next) is not None
"""
)


def test_get_active_query_result_lists_the_open_result_sets():
    # before: no get_active_query_result
    out = same_on_both(ACTIVE)
    assert [out["one"], out["two"], out["after_close"]] == [1, 2, 1]
    assert out["is_r2"] and out["next_after_reader_close_raises"]
