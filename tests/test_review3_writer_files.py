"""Third review of the writer: failures while writing the file (a file size limit met part way),
and what the file and the error say afterwards."""

import errno
import os

import numpy as np
import pytest
from interop.official import official_table, skip_unless_official

import tsfile.writer as writer_module
from tsfile.dataframe import read_table
from tsfile.schema import ColumnSchema, TableSchema
from tsfile.types import ColumnCategory, TSDataType
from tsfile.writer import TsFileTableWriter

T = TSDataType
SCHEMA = TableSchema(
    "t",
    [
        ColumnSchema("d", T.STRING, ColumnCategory.TAG),
        ColumnSchema("v", T.INT64, ColumnCategory.FIELD),
    ],
)


@pytest.fixture
def size_limit(monkeypatch):
    """A file size limit as RLIMIT_FSIZE sets it (a write that would pass it fails with EFBIG),
    without a subprocess: limit["bytes"] (None = no limit)."""
    limit = {"bytes": None}
    real = writer_module._Output.writelines

    def limited(self, parts):
        size = sum(memoryview(p).nbytes for p in parts)
        end = os.lseek(self._fd, 0, os.SEEK_CUR) + size
        if limit["bytes"] is not None and end > limit["bytes"]:
            raise OSError(errno.EFBIG, "File too large")
        real(self, parts)

    monkeypatch.setattr(writer_module._Output, "writelines", limited)
    return limit


def test_a_flush_stopped_by_a_full_file_names_every_device_whose_rows_are_lost(
    tmp_path, size_limit
):
    path = tmp_path / "a.tsfile"
    rng = np.random.default_rng(1)
    w = TsFileTableWriter(path, SCHEMA)
    for dev in ("a", "b", "c"):
        w.write_arrays(np.arange(20_000), {"d": dev, "v": rng.integers(0, 1 << 40, 20_000)})
    size_limit["bytes"] = 150_000  # device a's chunk group fits, b's does not
    with pytest.raises(OSError, match="File too large") as info:
        w.flush()
    notes = "\n".join(info.value.__notes__)
    assert "device ('b',): the 20000 rows" in notes
    # c was never reached: its accepted rows are lost too, and the error must say so
    assert "not written either: table 't', device ('c',): 20000 rows" in notes
    w.close()
    got = read_table(path, "t")
    assert got["d"].tolist() == ["a"] * 20_000
    skip_unless_official()
    assert official_table(path, "t")["d"] == ["a"] * 20_000
