"""Third review of the writer: a null mask given with a scalar column was ignored (the scalar
was stored in the rows the caller made null)."""

import datetime

import numpy as np
import pytest

from tsfile.dataframe import read_table
from tsfile.schema import ColumnSchema, TableSchema
from tsfile.tablet import Tablet
from tsfile.types import ColumnCategory, TSDataType
from tsfile.writer import TsFileTableWriter

T = TSDataType
SCHEMA = TableSchema(
    "t",
    [
        ColumnSchema("d", T.STRING, ColumnCategory.TAG),
        ColumnSchema("v", T.INT64, ColumnCategory.FIELD),
        ColumnSchema("day", T.DATE, ColumnCategory.FIELD),
    ],
)
COLUMNS = {"d": "a", "v": np.int64(7), "day": datetime.date(2024, 2, 29)}
MASKS = {
    "d": np.array([False, True, False]),
    "v": np.array([True, False, False]),
    "day": np.array([False, False, True]),
}


def _check(path):
    got = read_table(path, "t")
    rows = dict(zip(got["time"].tolist(), range(3), strict=True))
    tag = [got["d"][rows[t]] for t in range(3)]
    v = [None if got["v"].mask[rows[t]] else int(got["v"][rows[t]]) for t in range(3)]
    day = [None if got["day"].mask[rows[t]] else int(got["day"][rows[t]]) for t in range(3)]
    assert tag == ["a", None, "a"]
    assert v == [None, 7, 7]
    assert day == [20240229, 20240229, None]


@pytest.mark.parametrize("via", ["write_arrays", "Tablet.from_arrays"])
def test_null_mask_of_a_scalar_column_makes_those_rows_null(tmp_path, via):
    path = tmp_path / "a.tsfile"
    with TsFileTableWriter(path, SCHEMA) as w:
        if via == "write_arrays":
            w.write_arrays(np.arange(3), COLUMNS, null_masks=MASKS)
        else:
            w.write_table(Tablet.from_arrays(np.arange(3), COLUMNS, null_masks=MASKS))
    _check(path)


def test_null_mask_of_a_scalar_column_with_the_wrong_length_is_refused(tmp_path):
    w = TsFileTableWriter(tmp_path / "a.tsfile", SCHEMA)
    with pytest.raises(ValueError, match="null mask of 'v'"):
        w.write_arrays(np.arange(3), COLUMNS, null_masks={"v": np.array([True, False])})
    w.close()
