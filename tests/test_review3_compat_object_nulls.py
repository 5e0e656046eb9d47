"""Null cells of TEXT/STRING/BLOB columns are null in every pandas and Arrow output.

The tree as a table (to_dataframe of a tree-model file, TsFileReader.query_table_on_tree) gives a
device's rows a null cell in the columns of measurements the device lacks. For object columns
those cells held the 0 of a zeroed placeholder array, and the conversions to pandas and Arrow
took the values of object columns as they were, ignoring the null mask: to_dataframe showed 0
in a STRING column (the official package shows a null there), and the Arrow stream failed with
pyarrow's ArrowTypeError ("Expected bytes, got a 'int' object").

The fixture is the official 2.5 writer's (tests/fixtures/tree/tree_tablets.tsfile): device
root.sg1.d1 has s_txt (TEXT) and no s_str (STRING) / s_blob (BLOB); root.sg1.d2 the reverse.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

import tsfile

TREE = str(Path(__file__).resolve().parent / "fixtures" / "tree" / "tree_tablets.tsfile")
OBJECT_COLUMNS = {"s_txt": "d1", "s_str": "d2", "s_blob": "d2"}  # column -> the device having it
KINDS = {"s_txt": str, "s_str": str, "s_blob": bytes}


def _check_rows(devices, columns):
    """Every cell of an object column is None on a device lacking the measurement, and a value
    of the column's kind or None on the device having it; both devices are present."""
    assert set(devices) == {"d1", "d2"}
    for name, owner in OBJECT_COLUMNS.items():
        for dev, v in zip(devices, columns[name], strict=True):
            if dev != owner:
                assert v is None, (name, dev, v)
            else:
                assert v is None or isinstance(v, KINDS[name]), (name, dev, v)


def test_to_dataframe_of_a_tree_file_has_none_where_a_device_lacks_the_column():
    df = tsfile.to_dataframe(TREE)
    assert str(df["s_str"].dtype) == "object"
    _check_rows(df["col_2"].tolist(), {n: df[n].tolist() for n in OBJECT_COLUMNS})


def test_read_data_frame_of_the_tree_as_a_table():
    with tsfile.TsFileReader(TREE) as r, r.query_table_on_tree(list(OBJECT_COLUMNS)) as rs:
        df = rs.read_data_frame(100_000)
    _check_rows(df["col_2"].tolist(), {n: df[n].tolist() for n in OBJECT_COLUMNS})


def test_arrow_stream_of_the_tree_as_a_table_has_validity_not_values():
    with tsfile.TsFileReader(TREE) as r, r.query_table_on_tree(list(OBJECT_COLUMNS)) as rs:
        table = pa.RecordBatchReader.from_stream(rs).read_all()
    assert table.schema.field("s_str").type == pa.string()
    assert table.schema.field("s_blob").type == pa.binary()
    devices = table["col_2"].to_pylist()
    _check_rows(devices, {n: table[n].to_pylist() for n in OBJECT_COLUMNS})
    # nulls are the validity bitmap's: one per row of the device lacking the column
    assert table["s_str"].null_count >= devices.count("d1")


def test_object_column_conversions_apply_the_mask():
    # the conversion helpers' contract: a True in the mask is null whatever the value slot holds
    import numpy as np

    from tsfile.dataframe import _arrow_array, _pandas_column
    from tsfile.types import TSDataType

    values = np.array(["a", 0, "c"], dtype=object)
    mask = np.array([False, True, False])
    for t in (TSDataType.TEXT, TSDataType.STRING):
        assert _pandas_column(values, mask, t).tolist() == ["a", None, "c"]
        assert _arrow_array(values, mask, t).to_pylist() == ["a", None, "c"]
    blobs = np.array([b"a", 0, b""], dtype=object)
    assert _pandas_column(blobs, mask, TSDataType.BLOB).tolist() == [b"a", None, b""]
    assert _arrow_array(blobs, mask, TSDataType.BLOB).to_pylist() == [b"a", None, b""]
    assert values.tolist() == ["a", 0, "c"]  # the caller's array is not written to
