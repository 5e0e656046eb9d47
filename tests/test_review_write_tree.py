"""Review of the tree model: files with aligned devices written by our writer, read back as a
table (query_table_on_tree, to_dataframe)."""

import numpy as np

import tsfile
from tsfile import DeviceSchema, Field, RowRecord, TimeseriesSchema, TSDataType, TsFileWriter

T = TSDataType


def _mixed_file(path):
    """root.a.d1 non-aligned (x), root.a.d2 aligned (x, y), two chunk groups for d2."""
    w = TsFileWriter(path)
    w.register_timeseries("root.a.d1", TimeseriesSchema("x", T.INT32))
    w.register_device(
        DeviceSchema("root.a.d2", [TimeseriesSchema("x", T.INT32), TimeseriesSchema("y", T.INT64)]),
        aligned=True,
    )
    w.write_row_record(RowRecord("root.a.d1", 1, [Field("x", 10, T.INT32)]))
    w.write_row_record(RowRecord("root.a.d2", 2, [Field("x", 20, T.INT32)]))
    w.flush()
    w.write_row_record(RowRecord("root.a.d2", 3, [Field("y", 30, T.INT64)]))
    w.close()
    return path


def test_query_table_on_tree_reads_aligned_devices(tmp_path):
    # before: CorruptDataError "expected a non-aligned chunk at file offset ..." on this valid
    # file (the aligned device's time column was dropped from the plan, so its value chunks
    # were read as non-aligned series)
    path = _mixed_file(tmp_path / "mixed.tsfile")
    with tsfile.TsFileReader(path) as r, r.query_table_on_tree(["x", "y"]) as rs:
        names = rs.get_metadata().get_column_list()
        rows = []
        while rs.next():
            rows.append([rs.get_value_by_index(i) for i in range(1, len(names) + 1)])
    assert names == ["time", "col_0", "col_1", "col_2", "x", "y"]
    assert rows == [
        [1, "root", "a", "d1", 10, None],
        [2, "root", "a", "d2", 20, None],
        [3, "root", "a", "d2", None, 30],
    ]


def test_to_dataframe_of_a_tree_file_with_an_aligned_device(tmp_path):
    path = _mixed_file(tmp_path / "mixed.tsfile")
    df = tsfile.to_dataframe(path)
    assert df["time"].tolist() == [1, 2, 3]
    assert df["col_2"].tolist() == ["d1", "d2", "d2"]
    assert df["x"].astype(object).where(df["x"].notna(), None).tolist() == [10, 20, None]
    assert np.array_equal(df["y"].isna().to_numpy(), [True, True, False])
