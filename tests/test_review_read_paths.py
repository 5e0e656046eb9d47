"""Review of the read side: the paths a reader accepts."""

import os

import numpy as np
import pytest

import tsfile
from tsfile.types import ColumnCategory, TSDataType


@pytest.fixture
def small_file(tmp_path):
    schema = tsfile.TableSchema(
        "t",
        [
            tsfile.ColumnSchema("id", TSDataType.STRING, ColumnCategory.TAG),
            tsfile.ColumnSchema("v", TSDataType.INT64, ColumnCategory.FIELD),
        ],
    )
    path = tmp_path / "small.tsfile"
    with tsfile.TsFileTableWriter(str(path), schema) as w:
        w.write_arrays(np.arange(5, dtype=np.int64), {"id": "d", "v": np.arange(5) * 10})
    return str(path)


@pytest.mark.parametrize("as_path", [np.str_, os.fsencode], ids=["numpy_str", "bytes"])
def test_reader_opens_str_subclasses_and_bytes_paths(small_file, as_path):
    """A numpy.str_ (an element of a numpy array of paths) and a bytes path open the file like
    the str. (Was: TypeError "Argument 'path' has incorrect type" from the compiled FileView.)"""
    with tsfile.TsFileReader(as_path(small_file)) as r:
        assert r.read_columns("t", ["v"])[3]["v"].tolist() == [0, 10, 20, 30, 40]


def _prepared_nonaligned(tmp_path):
    """A reader of a file with one non-aligned series of 30 points and its PreparedSeries."""
    from pathlib import Path

    from tsfile import Field, RowRecord, TimeseriesSchema, TsFileWriter

    path = tmp_path / "na.tsfile"
    with TsFileWriter(path) as w:
        w.register_timeseries("root.sg1.na", TimeseriesSchema("x", TSDataType.INT64))
        for i in range(30):
            w.write_row_record(RowRecord("root.sg1.na", i, [Field("x", i, TSDataType.INT64)]))
    r = tsfile.TsFileReader(path)
    (group,) = r.get_timeseries_metadata(["root.sg1.na"]).values()
    (ts,) = group.timeseries
    locator = (
        *(0, 0, Path(path).stat().st_size, 0, 0),
        ts.locator_flags,
        ts.layout,
        ts.value_metadata_offset,
        ts.value_metadata_length,
        ts.time_metadata_offset,
        ts.time_metadata_length,
    )
    return r, r.prepare_series(locator)


def test_prepared_query_stops_pulling_blocks_at_its_limit(tmp_path):
    """query_prepared serves ``limit`` rows and then asks its block source for nothing more (a
    further block would be decoded for nothing). (Was: its own offset/limit loop pulled the next
    block before it looked at the limit left.)"""
    r, prepared = _prepared_nonaligned(tmp_path)
    pulls = []
    tree_blocks = r._tree_blocks

    def counted(*args):
        for block in tree_blocks(*args):
            pulls.append(len(block))
            yield block
        pulls.append("asked past the last block")

    r._tree_blocks = counted
    with r, r.query_prepared(prepared, offset=2, limit=5) as rs:
        got = []
        while rs.next():
            got.append(rs.get_value_by_index(2))
    assert got == [2, 3, 4, 5, 6]
    assert pulls == [30]


def test_prepared_query_refuses_a_negative_offset_at_the_call(tmp_path):
    r, prepared = _prepared_nonaligned(tmp_path)
    with r, pytest.raises(ValueError, match="offset must be >= 0"):
        r.query_prepared(prepared, offset=-1)
