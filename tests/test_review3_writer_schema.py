"""Third review of the writer: the schema objects a writer was given stayed shared with it.

A column added to the TableSchema after the writer was made (TableSchema.add_column, public API)
made close() fail on the table schema (KeyError): the file was left without its metadata,
unreadable, with every row lost. A write naming the new column raised a KeyError. A
ColumnSchema or TimeseriesSchema changed after registration changed the type the writer used
for rows already checked against the old one. The writer now keeps its own copy."""

import numpy as np

from tsfile.dataframe import read_table
from tsfile.errors import ColumnNotExistError
from tsfile.reader import TsFileReader
from tsfile.schema import ColumnSchema, TableSchema, TimeseriesSchema
from tsfile.tree import Field, RowRecord
from tsfile.types import ColumnCategory, TSDataType
from tsfile.writer import TsFileTableWriter, TsFileWriter

T = TSDataType


def test_a_schema_changed_after_the_writer_was_made_does_not_change_the_file(tmp_path):
    schema = TableSchema(
        "t",
        [
            ColumnSchema("d", T.STRING, ColumnCategory.TAG),
            ColumnSchema("v", T.INT64, ColumnCategory.FIELD),
        ],
    )
    path = tmp_path / "a.tsfile"
    w = TsFileTableWriter(path, schema)
    w.write_arrays(np.arange(3), {"d": "a", "v": np.arange(3)})
    schema.add_column(ColumnSchema("e", T.STRING, ColumnCategory.TAG))
    schema.add_column(ColumnSchema("x", T.DOUBLE, ColumnCategory.FIELD))
    schema.get_column("v").data_type = T.DOUBLE
    try:
        w.write_arrays(np.arange(3, 6), {"d": "a", "x": np.arange(3.0)})
    except ColumnNotExistError:
        pass
    else:
        raise AssertionError("a column the writer was not given was accepted")
    w.write_arrays(np.arange(3, 5), {"d": "b", "v": np.array([7, 8])})
    w.close()
    got = read_table(path, "t")
    assert sorted(got) == ["d", "time", "v"]
    assert got["v"].dtype == np.int64 and sorted(got["v"].tolist()) == [0, 1, 2, 7, 8]


def test_a_tree_series_schema_changed_after_registration_is_not_used(tmp_path):
    path = tmp_path / "a.tsfile"
    w = TsFileWriter(path)
    series = TimeseriesSchema("s", T.INT64)
    w.register_timeseries("root.d", series)
    w.write_row_record(RowRecord("root.d", 1, [Field("s", 5, T.INT64)]))
    series.data_type = T.DOUBLE
    w.write_row_record(RowRecord("root.d", 2, [Field("s", 6, T.INT64)]))
    w.close()
    with TsFileReader(str(path)) as r:
        schemas = r.get_all_timeseries_schemas()
    types = [s.get_data_type() for ts in schemas.values() for s in ts.get_timeseries_list()]
    assert types == [T.INT64]
