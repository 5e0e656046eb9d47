"""Arrow export through the PyCapsule stream interface (issue 12 item 3): ResultSet and the
multi-file Scanner give ``__arrow_c_stream__``; the Arrow types of every TsFile type; polars
reads the streams where it is installed."""

from __future__ import annotations

import datetime

import numpy as np
import pytest
from dataset_shards import write_shards

import tsfile
from tsfile._dataset.scan import Scanner
from tsfile.types import ColumnCategory, TSDataType
from tsfile.writer import TsFileWriter

pa = pytest.importorskip("pyarrow")


@pytest.fixture
def typed_file(tmp_path):
    """Every type with a null in each field column (row 1)."""
    cols = [
        tsfile.ColumnSchema("id", TSDataType.STRING, ColumnCategory.TAG),
        tsfile.ColumnSchema("b", TSDataType.BOOLEAN, ColumnCategory.FIELD),
        tsfile.ColumnSchema("i", TSDataType.INT32, ColumnCategory.FIELD),
        tsfile.ColumnSchema("l", TSDataType.INT64, ColumnCategory.FIELD),
        tsfile.ColumnSchema("f", TSDataType.FLOAT, ColumnCategory.FIELD),
        tsfile.ColumnSchema("d", TSDataType.DOUBLE, ColumnCategory.FIELD),
        tsfile.ColumnSchema("s", TSDataType.STRING, ColumnCategory.FIELD),
        tsfile.ColumnSchema("t", TSDataType.TEXT, ColumnCategory.FIELD),
        tsfile.ColumnSchema("blob", TSDataType.BLOB, ColumnCategory.FIELD),
        tsfile.ColumnSchema("day", TSDataType.DATE, ColumnCategory.FIELD),
        tsfile.ColumnSchema("ts", TSDataType.TIMESTAMP, ColumnCategory.FIELD),
    ]
    path = tmp_path / "typed.tsfile"
    w = TsFileWriter(str(path), overwrite=True)
    w.register_table(tsfile.TableSchema("m", cols))
    n = 3
    mask = np.array([False, True, False])
    w.write_arrays(
        "m",
        np.arange(n, dtype=np.int64),
        {
            "id": "dev",
            "b": np.ma.MaskedArray([True, False, True], mask=mask),
            "i": np.ma.MaskedArray(np.array([1, 2, 3], np.int32), mask=mask),
            "l": np.ma.MaskedArray(np.array([10, 20, 30], np.int64), mask=mask),
            "f": np.ma.MaskedArray(np.array([1.5, 2.5, 3.5], np.float32), mask=mask),
            "d": np.ma.MaskedArray([0.25, 0.5, 0.75], mask=mask),
            "s": np.array(["x", None, "z"], dtype=object),
            "t": np.array(["p", None, "r"], dtype=object),
            "blob": np.array([b"\x00\x01", None, b"\xff"], dtype=object),
            "day": np.array([datetime.date(2024, 2, 29), None, datetime.date(1970, 1, 1)], object),
            "ts": np.ma.MaskedArray(np.array([1_700_000_000_000, 0, -5], np.int64), mask=mask),
        },
    )
    w.close()
    return str(path)


EXPECTED_TYPES = {
    "time": pa.int64(),
    "id": pa.string(),
    "b": pa.bool_(),
    "i": pa.int32(),
    "l": pa.int64(),
    "f": pa.float32(),
    "d": pa.float64(),
    "s": pa.string(),
    "t": pa.string(),
    "blob": pa.binary(),
    "day": pa.date32(),
    "ts": pa.timestamp("ms"),
}


def _stream_table(obj):
    return pa.RecordBatchReader.from_stream(obj).read_all()


def test_result_set_is_an_arrow_stream_with_the_types_and_nulls(typed_file):
    with tsfile.TsFileReader(typed_file) as r, r.query_table("m", None, batch_size=2) as rs:
        assert hasattr(rs, "__arrow_c_stream__")
        table = _stream_table(rs)
    assert {f.name: f.type for f in table.schema} == EXPECTED_TYPES
    assert table.num_rows == 3
    for name in EXPECTED_TYPES:
        if name not in ("time", "id"):
            assert table.column(name).null_count == 1, name
    row0 = table.slice(0, 1).to_pylist()[0]
    assert row0["day"] == datetime.date(2024, 2, 29)
    assert row0["ts"] == datetime.datetime(2023, 11, 14, 22, 13, 20)
    assert row0["blob"] == b"\x00\x01" and row0["f"] == 1.5
    assert table.column("ts").to_pylist()[2] == datetime.datetime(1969, 12, 31, 23, 59, 59, 995000)


def test_read_arrow_gives_timestamp_columns_as_timestamp_ms(typed_file):
    # was int64 before: a TIMESTAMP column lost its type in Arrow
    table = tsfile.read_arrow(typed_file, "m")
    assert {f.name: f.type for f in table.schema} == EXPECTED_TYPES
    with tsfile.TsFileReader(typed_file) as r, r.query_table("m", None) as rs:
        assert rs.read_arrow_batch().schema.field("ts").type == pa.timestamp("ms")


def test_an_empty_result_stream_keeps_its_schema(typed_file):
    with tsfile.TsFileReader(typed_file) as r, r.query_table("m", ["s", "day"], 100, 200) as rs:
        table = _stream_table(rs)
    assert table.num_rows == 0
    assert table.schema.names == ["time", "s", "day"]
    assert table.schema.field("day").type == pa.date32()


def test_stream_continues_after_rows_read_and_a_closed_result_set_raises(typed_file):
    with tsfile.TsFileReader(typed_file) as r:
        with r.query_table("m", ["l"], batch_size=2) as rs:
            assert rs.next()
            table = _stream_table(rs)
            assert table.column("time").to_pylist() == [1, 2]  # the rest, after row 0
        rs2 = r.query_table("m", ["l"])
        rs2.close()
        with pytest.raises(tsfile.errors.ClosedError):
            _stream_table(rs2)


def test_scanner_stream_over_many_files_equals_read_arrow(tmp_path):
    write_shards(tmp_path, files=3, rows=30, null_every=4)
    scan = Scanner(str(tmp_path), "m", start_time=10, end_time=150)
    streamed = _stream_table(scan)
    assert streamed.equals(tsfile.read_arrow(str(tmp_path), "m", start_time=10, end_time=150))
    assert streamed.schema.field("ts").type == pa.timestamp("ms")


def test_polars_reads_result_sets_and_scanners(tmp_path, typed_file):
    pl = pytest.importorskip("polars")
    with tsfile.TsFileReader(typed_file) as r, r.query_table("m", ["l", "s", "day"]) as rs:
        df = pl.from_arrow(pa.RecordBatchReader.from_stream(rs))
    assert df.shape == (3, 4)
    assert df["l"].null_count() == 1 and df["day"].dtype == pl.Date
    write_shards(tmp_path, files=2, rows=10)
    frame = pl.DataFrame(Scanner(str(tmp_path / "part*.tsfile"), "m"))  # the C stream protocol
    assert frame.height == 40 and frame["ts"].dtype == pl.Datetime("ms")


def test_duckdb_reads_a_result_set(typed_file):
    duckdb = pytest.importorskip("duckdb")
    with tsfile.TsFileReader(typed_file) as r, r.query_table("m", ["l"]) as rs:
        rel = duckdb.from_arrow(pa.RecordBatchReader.from_stream(rs))
        assert rel.aggregate("sum(l)").fetchall() == [(40,)]


def test_scanner_stream_names_a_bad_file_or_leaves_all_of_it_out(tmp_path):
    paths = write_shards(tmp_path, files=3, rows=30)
    scan = Scanner(str(tmp_path), "m", on_error="skip")
    with tsfile.TsFileReader(paths[1]) as r, r._op():
        (_dev, rng) = r._devices("m")[1]  # the second device: its rows come second
        at = r._series("m", rng)[""].chunks[0].offset
    data = bytearray(open(paths[1], "rb").read())
    # damage the file after planning (as a file replaced while a stream runs): the second
    # device's time chunk, so the file fails after its first device's batch
    data[at + 8 : at + 40] = b"\xff" * 32
    open(paths[1], "wb").write(bytes(data))
    with pytest.raises(tsfile.errors.TsFileError):  # the damage is seen midway
        rows = []
        with tsfile.TsFileReader(paths[1]) as r, r.query_table("m", None) as rs:
            while (b := rs.get_next_tsblock()) is not None:
                rows.append(len(b))
    assert rows == [30]
    with pytest.warns(RuntimeWarning, match=paths[1]):
        table = _stream_table(scan)
    # none of the damaged file's rows, all of the others'
    assert table.num_rows == 120
    assert set(table.column("time").to_pylist()) == set(range(0, 30)) | set(range(200, 230))
    strict = Scanner(str(tmp_path), "m", start_time=100, end_time=130)
    with pytest.raises(Exception, match=paths[1]):
        _stream_table(strict)
