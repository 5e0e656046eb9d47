"""An index damaged to point one column at another column's chunk.

The index (TimeseriesMetadata -> ChunkMetadata) gives each column's chunk by its file offset; a
chunk header names its column. A damaged offset that lands on another column's chunk of the same
type would decode cleanly into the wrong column: the reader compares the header's name with the
column it reads, and raises CorruptDataError naming the chunk's offset instead.
"""

from __future__ import annotations

import numpy as np
import pytest

import tsfile
from tsfile import CorruptDataError
from tsfile.types import ColumnCategory, TSDataType, TSEncoding

ROWS = 1000
# same length, so that each name's header bytes are found by one search
FIRST, OTHER = "col_first", "col_other"


def _write(path):
    cols = [tsfile.ColumnSchema("dev", TSDataType.STRING, ColumnCategory.TAG)]
    cols += [
        tsfile.ColumnSchema(c, TSDataType.INT64, ColumnCategory.FIELD, encoding=TSEncoding.TS_2DIFF)
        for c in (FIRST, OTHER)
    ]
    ts = np.arange(ROWS, dtype=np.int64)
    with tsfile.TsFileWriter(str(path)) as w:
        w.register_table(tsfile.TableSchema("t", cols))
        w.write_arrays("t", ts, {"dev": "d1", FIRST: ts * 3, OTHER: -ts})


def _chunk_offset(data: bytes, name: str) -> int:
    """File offset of the value chunk of ``name``: its header is a chunk marker (0x41 or 0x45:
    value chunk, several pages or one), then the name's zigzag varint length, then the name."""
    key = bytes([len(name) << 1]) + name.encode()
    at = [
        i - 1 for i in range(len(data)) if data.startswith(key, i) and data[i - 1] in (0x41, 0x45)
    ]
    assert len(at) == 1, at
    return at[0]


@pytest.fixture
def damaged(tmp_path):
    """A file whose index points OTHER at FIRST's chunk (both INT64, TS_2DIFF, same rows)."""
    path = tmp_path / "ok.tsfile"
    _write(path)
    data = bytearray(path.read_bytes())
    first, other = _chunk_offset(data, FIRST), _chunk_offset(data, OTHER)
    old, new = other.to_bytes(8, "big"), first.to_bytes(8, "big")
    at = bytes(data).rfind(old)  # in the index, after every chunk
    assert at > max(first, other) and bytes(data).count(old) == 1
    data[at : at + 8] = new
    bad = tmp_path / "bad.tsfile"
    bad.write_bytes(bytes(data))
    return path, bad, first


def test_the_undamaged_file_reads(damaged):
    path, _bad, _first = damaged
    got = tsfile.read_table(str(path), "t")
    np.testing.assert_array_equal(got[OTHER], -np.arange(ROWS))


@pytest.mark.parametrize("threads", [1, 2])
def test_a_column_pointed_at_another_columns_chunk_is_refused(damaged, threads):
    _path, bad, first = damaged
    with pytest.raises(
        CorruptDataError, match=f"column '{FIRST}' where the index places column '{OTHER}'"
    ) as err:
        tsfile.read_table(str(bad), "t", threads=threads)
    assert f"offset {first}" in str(err.value)


@pytest.mark.parametrize("batch_size", [None, 100])
def test_query_table_refuses_it_too(damaged, batch_size):
    _path, bad, _first = damaged
    with pytest.raises(CorruptDataError, match=f"where the index places column '{OTHER}'"):
        with (
            tsfile.TsFileReader(str(bad)) as r,
            r.query_table("t", [FIRST, OTHER], batch_size=batch_size) as rs,
        ):
            while rs.get_next_tsblock() is not None:
                pass
