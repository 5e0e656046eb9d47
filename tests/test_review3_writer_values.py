"""Third review of the writer, as an attacker: values that were stored other than given."""

import numpy as np
import pytest

from tsfile.dataframe import read_table
from tsfile.errors import EncodeError
from tsfile.schema import ColumnSchema, TableSchema, TimeseriesSchema
from tsfile.tree import Field, RowRecord
from tsfile.types import ColumnCategory, TSDataType, TSEncoding
from tsfile.writer import TsFileTableWriter, TsFileWriter

T = TSDataType


def _schema(data_type, encoding=None):
    extra = {} if encoding is None else {"encoding": encoding}
    return TableSchema(
        "t",
        [
            ColumnSchema("d", T.STRING, ColumnCategory.TAG),
            ColumnSchema("v", data_type, ColumnCategory.FIELD, **extra),
        ],
    )


# -- big-endian datetime64 (their int64 view was read in the machine's byte order) ------------


@pytest.mark.parametrize("unit", ["ms", "s", "us"])
def test_big_endian_datetimes_are_stored_as_given(tmp_path, unit):
    native = np.array([1000, 2000, 3_000_000], dtype=f"M8[{unit}]")
    swapped = native.astype(native.dtype.newbyteorder(">"))
    assert (swapped == native).all() and not swapped.dtype.isnative
    with TsFileTableWriter(tmp_path / "a.tsfile", _schema(T.TIMESTAMP)) as w:
        w.write_arrays(swapped, {"d": "a", "v": swapped})
    got = read_table(tmp_path / "a.tsfile", "t")
    ms = native.astype("M8[ms]").astype(np.int64)
    assert got["time"].tolist() == ms.tolist()
    assert np.asarray(got["v"]).tolist() == ms.tolist()


# -- TS_2DIFF FLOAT/DOUBLE: the official fixed-point form keeps 2 decimals -------------------


@pytest.mark.parametrize("data_type", [T.FLOAT, T.DOUBLE])
@pytest.mark.parametrize("value", [3.14159, -0.0, 1e-5])
def test_ts2diff_float_refuses_a_value_it_would_round(tmp_path, data_type, value):
    dtype = np.float32 if data_type == T.FLOAT else np.float64
    values = np.array([1.5, 2.25, value, 4.0], dtype=dtype)
    path = tmp_path / "a.tsfile"
    w = TsFileTableWriter(path, _schema(data_type, TSEncoding.TS_2DIFF))
    with pytest.raises(EncodeError, match=r"column 'v'.*TS_2DIFF"):
        w.write_arrays(np.arange(4), {"d": "a", "v": values})
    w.write_arrays(np.arange(4), {"d": "a", "v": values[[0, 1, 3, 3]]})  # nothing else kept
    w.close()
    assert np.asarray(read_table(path, "t")["v"]).tolist() == [1.5, 2.25, 4.0, 4.0]


@pytest.mark.parametrize("data_type", [T.FLOAT, T.DOUBLE])
def test_ts2diff_float_stores_two_decimal_values_exactly(tmp_path, data_type):
    dtype = np.float32 if data_type == T.FLOAT else np.float64
    values = (np.arange(-1500, 25_000) / 100).astype(dtype)  # pages of 10,000 values
    values[7] = np.nan  # the encoder's fallback form stores NaN exactly
    path = tmp_path / "a.tsfile"
    with TsFileTableWriter(path, _schema(data_type, TSEncoding.TS_2DIFF)) as w:
        w.write_arrays(np.arange(values.size), {"d": "a", "v": values})
    got = np.asarray(read_table(path, "t")["v"]).astype(dtype)
    assert got.tobytes() == values.tobytes()


def test_ts2diff_double_tree_series_refuses_a_value_it_would_round(tmp_path):
    w = TsFileWriter(tmp_path / "a.tsfile")
    w.register_timeseries("root.d", TimeseriesSchema("s", T.DOUBLE, TSEncoding.TS_2DIFF))
    w.write_row_record(RowRecord("root.d", 1, [Field("s", 1.25, T.DOUBLE)]))
    with pytest.raises(EncodeError, match="TS_2DIFF"):
        w.write_row_record(RowRecord("root.d", 2, [Field("s", 2.125, T.DOUBLE)]))
    w.close()
