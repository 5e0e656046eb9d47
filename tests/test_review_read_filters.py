"""Review of the read side's filters: cases the merged code got wrong, each against a brute-force
reference (decode everything, test each row in numpy)."""

import numpy as np
import pytest

import tsfile
from tsfile.types import ColumnCategory, TSDataType

PATHS = ["per_value", "batch", "auto"]


def _write_float_column(path, data_type, values, page_size):
    schema = tsfile.TableSchema(
        "t",
        [
            tsfile.ColumnSchema("id", TSDataType.STRING, ColumnCategory.TAG),
            tsfile.ColumnSchema("b", data_type, ColumnCategory.FIELD),
        ],
    )
    n = len(values)
    with tsfile.TsFileTableWriter(str(path), schema, page_size=page_size) as w:
        w.write_arrays(
            np.arange(n, dtype=np.int64), {"id": np.array(["d"] * n, object), "b": values}
        )


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("data_type", [TSDataType.FLOAT, TSDataType.DOUBLE])
@pytest.mark.parametrize("dnf", [[("b", "!=", 5.0)], [("b", "not in", [5.0])]])
def test_not_equal_keeps_nan_rows_of_pages_whose_min_equals_max(tmp_path, data_type, dnf, path):
    """Statistics leave NaN out of min/max, so a page of 5.0 and NaN says min == max == 5.0: the
    pruning must not conclude that `!= 5.0` (or `not in [5.0]`) matches nothing there, since
    NaN != 5.0. (Was: every such page and chunk group dropped, 0 rows instead of the NaN rows.)"""
    dtype = np.float32 if data_type == TSDataType.FLOAT else np.float64
    values = np.array([5.0, np.nan, 5.0, 5.0] * 50, dtype)
    file = tmp_path / "nan.tsfile"
    _write_float_column(file, data_type, values, page_size=40)
    got = tsfile.read_table(file, "t", ["b"], value_filter=dnf, decode_path=path)
    want = np.flatnonzero(np.isnan(values))
    np.testing.assert_array_equal(got["time"], want)
    assert np.isnan(np.asarray(got["b"], np.float64)).all()
    with tsfile.TsFileReader(str(file)) as r:
        rs = r.query_table_by_row("t", ["b"], offset=3, limit=5, value_filter=dnf, path=path)
        rows = []
        while rs.next():
            rows.append(rs.get_value_by_index(1))
        rs.close()
    assert rows == want[3:8].tolist()
