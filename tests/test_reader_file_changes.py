"""The reader and the file it reads: a file truncated under an open reader, paths that are not
regular files, and query bounds that are not plain ints (each was a crash, a hang or wrong rows)."""

from __future__ import annotations

import datetime
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tsfile
from tsfile.errors import UnsupportedError
from tsfile.schema import ColumnSchema, TableSchema
from tsfile.types import ColumnCategory, TSDataType
from tsfile.writer import TsFileTableWriter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The reader maps its file: a page touched past a new, shorter end of file is SIGBUS (the test
# runs in a child so that a crash is a failure, not a dead test run).
_TRUNCATE_CHILD = textwrap.dedent(
    """
    import os, sys
    import numpy as np
    sys.path.insert(0, sys.argv[2])
    import tsfile
    from tsfile.schema import ColumnSchema, TableSchema
    from tsfile.types import ColumnCategory, TSDataType
    from tsfile.writer import TsFileTableWriter

    path = sys.argv[1]
    schema = TableSchema("t", [ColumnSchema("v", TSDataType.INT64, ColumnCategory.FIELD)])
    with TsFileTableWriter(path, schema) as w:
        w.write_arrays(np.arange(1_000_000), {"v": np.arange(1_000_000) * 7})
    r = tsfile.TsFileReader(path)
    os.truncate(path, 100)
    try:
        with r.query_table("t", ["v"]) as rs:
            while rs.get_next_tsblock() is not None:
                pass
        print("read")
    except tsfile.CorruptDataError as exc:
        print("error", exc)
    """
)


def test_a_file_truncated_under_an_open_reader_is_an_error_not_a_crash(tmp_path):
    script = tmp_path / "child.py"
    script.write_text(_TRUNCATE_CHILD)
    proc = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "o.tsfile"), ROOT],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, f"exit status {proc.returncode}: {proc.stderr[-1000:]}"
    assert proc.stdout.startswith("error"), proc.stdout
    assert "truncated to 100 bytes" in proc.stdout


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe.tsfile"
    os.mkfifo(fifo)
    # open() of a FIFO waits for a writer: run it in a child with a timeout
    code = (
        f"import sys; sys.path.insert(0, {ROOT!r}); import tsfile\n"
        f"try:\n    tsfile.TsFileReader({str(fifo)!r})\n"
        "except tsfile.UnsupportedError as e:\n    print('refused', e)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.startswith("refused"), proc.stdout + proc.stderr
    assert "not a regular file" in proc.stdout


def test_a_directory_is_refused(tmp_path):
    with pytest.raises(UnsupportedError, match="a directory"):
        tsfile.TsFileReader(tmp_path)


@pytest.fixture(scope="module")
def ten_rows(tmp_path_factory):
    p = tmp_path_factory.mktemp("bounds") / "q.tsfile"
    schema = TableSchema("t", [ColumnSchema("v", TSDataType.INT64, ColumnCategory.FIELD)])
    with TsFileTableWriter(p, schema) as w:
        w.write_arrays(np.arange(10), {"v": np.arange(10)})
    return str(p)


def _times(path, start, end):
    with tsfile.TsFileReader(path) as r:
        with r.query_table("t", ["v"], start_time=start, end_time=end) as rs:
            out = []
            while rs.next():
                out.append(rs.get_value_by_index(1))
    return out


@pytest.mark.parametrize(
    "start, end, expected",
    [
        (2.5, 4, [3, 4]),  # a row before the start was returned (the bound was cut to 2)
        (2, 4.5, [2, 3, 4]),
        (2.0, 4.0, [2, 3, 4]),
        (-0.5, 0.5, [0]),
        (float("-inf"), 1, [0, 1]),
        (8, float("inf"), [8, 9]),
        (float("inf"), None, []),
        (np.float32(2.5), np.int16(3), [3]),
        (np.datetime64("1970-01-01T00:00:00.002", "ms"), None, [2, 3, 4, 5, 6, 7, 8, 9]),
        (np.datetime64("1970-01-01T00:00:00.0025", "us"), 4, [3, 4]),
        (None, np.datetime64("1970-01-01T00:00:00.0025", "ns"), [0, 1, 2]),
        (datetime.datetime(1970, 1, 1, 0, 0, 0, 3000, tzinfo=datetime.timezone.utc), 5, [3, 4, 5]),
    ],
)
def test_query_bounds_are_exact(ten_rows, start, end, expected):
    assert _times(ten_rows, start, end) == expected


def test_pandas_timestamp_bounds(ten_rows):
    pd = pytest.importorskip("pandas")
    start = pd.Timestamp("1970-01-01 09:00:00.007", tz="Asia/Tokyo")  # 7 ms after the epoch
    assert _times(ten_rows, start, None) == [7, 8, 9]


@pytest.mark.parametrize(
    "bound, error",
    [
        (float("nan"), ValueError),
        (np.datetime64("NaT"), ValueError),
        (True, TypeError),
        ("3", TypeError),
        (2**63, ValueError),
    ],
)
def test_bad_query_bounds_are_refused(ten_rows, bound, error):
    with tsfile.TsFileReader(ten_rows) as r, pytest.raises(error):
        r.query_table("t", ["v"], start_time=bound)


def test_a_column_named_time_is_refused_clearly(tmp_path):
    """A FIELD named "time" (the official writer writes one; IoTDB reserves the name) read as if
    it were the timestamps: CorruptDataError "has type INT32 ..., the table schema says INT64".
    The file is made by writing a column "tame" and renaming it in every place the name is
    stored (schema, index, chunk header: same length, same order with one column)."""
    p = tmp_path / "time.tsfile"
    schema = TableSchema("t", [ColumnSchema("tame", TSDataType.INT32, ColumnCategory.FIELD)])
    with TsFileTableWriter(p, schema) as w:
        w.write_arrays(np.arange(2), {"tame": np.array([10, 11], np.int32)})
    data = p.read_bytes()
    assert data.count(b"tame") >= 3
    p.write_bytes(data.replace(b"tame", b"time"))
    assert tsfile.TsFileReader(str(p)).get_table_schema("t").columns[0].column_name == "time"
    with pytest.raises(UnsupportedError, match="named 'time'"):
        tsfile.to_dataframe(str(p), "t")
    with tsfile.TsFileReader(str(p)) as r, pytest.raises(UnsupportedError, match="named 'time'"):
        r.query_table("t", ["time"])
