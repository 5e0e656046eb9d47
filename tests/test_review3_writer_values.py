"""Third review of the writer, as an attacker: values that were stored other than given."""

import numpy as np
import pytest

from tsfile.dataframe import read_table
from tsfile.schema import ColumnSchema, TableSchema
from tsfile.types import ColumnCategory, TSDataType
from tsfile.writer import TsFileTableWriter

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
