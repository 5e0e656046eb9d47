"""A reader whose file changes under it, and query bounds: the reader items of review 7 of the
issue 7 fixes, moved here unchanged from tests/test_review7.py (the writer items are in
tests/test_writer_safety.py). Every test here fails on the code it was written against (main at
b59aea1) because of the defect its docstring names."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tsfile
from tsfile.errors import TsFileError
from tsfile.schema import ColumnSchema, TableSchema
from tsfile.types import ColumnCategory, TSDataType
from tsfile.writer import TsFileTableWriter

T = TSDataType
TAG = ColumnCategory.TAG
FIELD = ColumnCategory.FIELD
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _schema(*cols, name="t"):
    return TableSchema(name, list(cols))


_OVERWRITE_CHILD = textwrap.dedent(
    """
    import os, sys
    import numpy as np
    sys.path.insert(0, sys.argv[2])
    import tsfile
    from tsfile.schema import ColumnSchema, TableSchema
    from tsfile.types import ColumnCategory, TSDataType
    from tsfile.writer import TsFileTableWriter

    path, how = sys.argv[1], sys.argv[3]
    schema = TableSchema("t", [ColumnSchema("v", TSDataType.INT64, ColumnCategory.FIELD)])
    with TsFileTableWriter(path, schema) as w:
        w.write_arrays(np.arange(1_000_000), {"v": np.arange(1_000_000) * 7})
    r = tsfile.TsFileReader(path)
    if how == "overwrite":
        with TsFileTableWriter(path, schema, overwrite=True) as w:
            w.write_arrays(np.arange(3), {"v": np.arange(3)})
    else:
        os.truncate(path, 100)
    try:
        with r.query_table("t", ["v"]) as rs:
            while rs.get_next_tsblock() is not None:
                pass
        print("read")
    except tsfile.TsFileError as exc:
        print("error", type(exc).__name__)
    """
)


@pytest.mark.parametrize("how", ["overwrite", "truncate"])
def test_reader_survives_its_file_being_overwritten_or_truncated(tmp_path, how):
    """An open TsFileReader maps its file; TsFileTableWriter(path, overwrite=True) truncates the
    same inode in place (and so does any other process that truncates the file), after which the
    next query of the reader touches pages past the new end of file and the interpreter dies of
    SIGBUS (exit status 135 / -7). Nothing may crash: keep reading the old contents (overwrite by
    writing a new file and renaming it over the old one; the old inode stays valid for the
    reader), or raise a TsFileError."""
    p = tmp_path / "o.tsfile"
    script = tmp_path / "child.py"
    script.write_text(_OVERWRITE_CHILD)
    proc = subprocess.run(
        [sys.executable, str(script), str(p), ROOT, how],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, f"exit status {proc.returncode}: {proc.stderr[-1000:]}"


def test_query_with_a_fractional_start_time_returns_no_row_before_it(tmp_path):
    """query_table(start_time=2.5) returns the row at time 2 (the bound is truncated with int()),
    a row outside the range asked for. The writer refuses fractional timestamps; the reader must
    refuse a fractional bound too (TypeError/ValueError/TsFileError), or round start up."""
    p = tmp_path / "q.tsfile"
    with TsFileTableWriter(p, _schema(ColumnSchema("v", T.INT64))) as w:
        w.write_arrays(np.arange(10), {"v": np.arange(10)})
    with tsfile.TsFileReader(str(p)) as r:
        try:
            rs = r.query_table("t", ["v"], start_time=2.5, end_time=4)
        except (TypeError, ValueError, TsFileError):
            return
        times = []
        with rs:
            while rs.next():
                times.append(rs.get_value_by_index(1))
    assert times == [3, 4]
