"""Review of the writer's value conversions: a value is stored exactly as given, or refused."""

import numpy as np
import pytest

from tsfile.dataframe import read_table
from tsfile.errors import TypeMismatchError
from tsfile.schema import ColumnSchema, TableSchema
from tsfile.types import ColumnCategory, TSDataType
from tsfile.writer import TsFileWriter

LONG_DOUBLE_IS_WIDER = np.finfo(np.longdouble).nmant > np.finfo(np.float64).nmant


def _write(path, data_type, values):
    w = TsFileWriter(path)
    w.register_table(TableSchema("t", [ColumnSchema("v", data_type, ColumnCategory.FIELD)]))
    try:
        w.write_arrays("t", np.arange(len(values)), {"v": values})
    finally:
        w.close()


@pytest.mark.skipif(not LONG_DOUBLE_IS_WIDER, reason="long double is float64 on this platform")
@pytest.mark.parametrize(
    ("data_type", "base", "extra"),
    [
        (TSDataType.DOUBLE, 1, 2.0**-60),  # was stored as 1.0
        (TSDataType.INT64, 2**62, 0.5),  # was stored as the INT64 2**62
        (TSDataType.TIMESTAMP, 2**62, 0.5),
    ],
)
def test_long_double_without_an_exact_value_is_refused(tmp_path, data_type, base, extra):
    values = np.array([3, base], dtype=np.longdouble)
    values[1] += np.longdouble(extra)
    with pytest.raises(TypeMismatchError, match=r"column 'v', row 1: .* has no exact"):
        _write(tmp_path / "a.tsfile", data_type, values)


@pytest.mark.skipif(not LONG_DOUBLE_IS_WIDER, reason="long double is float64 on this platform")
def test_long_double_with_exact_values_is_stored(tmp_path):
    values = np.array([1.5, -0.0, np.inf, np.nan, 2.0**-1074], dtype=np.longdouble)
    _write(tmp_path / "a.tsfile", TSDataType.DOUBLE, values)
    got = read_table(tmp_path / "a.tsfile", "t")["v"]
    assert got.astype(np.float64).tobytes() == values.astype(np.float64).tobytes()


@pytest.mark.skipif(not LONG_DOUBLE_IS_WIDER, reason="long double is float64 on this platform")
def test_long_double_into_float_rounds_to_float32_as_doubles_do(tmp_path):
    values = np.array([1, 2], dtype=np.longdouble)
    values[0] += np.longdouble(2.0**-60)
    _write(tmp_path / "a.tsfile", TSDataType.FLOAT, values)
    got = read_table(tmp_path / "a.tsfile", "t")["v"]
    assert got.tolist() == [1.0, 2.0]
