"""Review of the read side: hostile bytes in the paths that skip without decoding."""

import struct

import numpy as np
import pytest
from interop.chunk_scan import iter_pages
from interop.expected import fixture_path, load_expected

import tsfile
from tsfile.errors import CorruptDataError

N = 1000
PAGE = 100


@pytest.fixture(scope="module")
def paged_file(tmp_path_factory):
    """One device, 10 uncompressed pages of 100 rows (each page header carries statistics)."""
    schema = tsfile.TableSchema(
        "t",
        [
            tsfile.ColumnSchema("id", tsfile.TSDataType.STRING, tsfile.ColumnCategory.TAG),
            tsfile.ColumnSchema("v", tsfile.TSDataType.INT64, tsfile.ColumnCategory.FIELD),
        ],
    )
    path = tmp_path_factory.mktemp("hostile") / "paged.tsfile"
    times = np.arange(N, dtype=np.int64) * 7 + 3
    with tsfile.TsFileTableWriter(
        str(path), schema, page_size=PAGE, compression=tsfile.Compressor.UNCOMPRESSED
    ) as w:
        w.write_arrays(times, {"id": "d", "v": np.arange(N, dtype=np.int64)})
    return path, times


def _time_page_bodies(path):
    """File offsets of the time chunk's page bodies and their statistics counts."""
    with tsfile.TsFileReader(str(path)) as r:
        group = r._plan_table("t", ["v"], -(2**63), 2**63 - 1)[-1][0].groups[0]
        return [(body, count) for body, _u, _c, _has, count, _s, _e in group.time_chunk.page_info()]


@pytest.mark.parametrize("page", [0, 3])
@pytest.mark.parametrize("delta", [1, -1, 27])
def test_by_row_refuses_a_page_count_that_lies(paged_file, tmp_path, page, delta):
    """query_table_by_row passes whole pages by their statistics counts. A time page header
    whose count was changed (the time statistics end 16 bytes before the body, the count is the
    single varint byte before them) must not shift the rows silently: the counts of the pages no
    longer add up to the chunk's count, CorruptDataError naming the chunk. (Was: rows 150..169
    served as the rows of another offset.)"""
    path, times = paged_file
    body, count = _time_page_bodies(path)[page]
    data = bytearray(path.read_bytes())
    assert data[body - 17] == count == PAGE  # the layout this test relies on
    data[body - 17] = count + delta
    bad = tmp_path / "lying_count.tsfile"
    bad.write_bytes(bytes(data))
    offset = page * PAGE + 150
    with tsfile.TsFileReader(str(bad)) as r:
        with pytest.raises(CorruptDataError, match="time chunk at file offset"):
            rs = r.query_table_by_row("t", ["v"], offset=offset, limit=20)
            while rs.next():
                assert rs.get_value_by_index(1) in times[offset : offset + 20]


def test_by_row_refuses_a_chunk_count_that_lies(tmp_path):
    """Chunk groups of one page each carry their count only in the chunk metadata; by-row
    queries pass whole groups by it. A time chunk count raised by one (a single byte before the
    chunk's start and end times) must not shift the rows after it silently: the chunks' counts
    no longer add up to the series' count, CorruptDataError. (Was: offset 120 served the rows
    from 119 on.)"""
    schema = tsfile.TableSchema(
        "t",
        [
            tsfile.ColumnSchema("id", tsfile.TSDataType.STRING, tsfile.ColumnCategory.TAG),
            tsfile.ColumnSchema("v", tsfile.TSDataType.INT64, tsfile.ColumnCategory.FIELD),
        ],
    )
    path = tmp_path / "groups.tsfile"
    times = np.arange(300, dtype=np.int64) * 5 + 1
    with tsfile.TsFileTableWriter(str(path), schema) as w:
        for k in range(6):  # six chunk groups of 50 rows
            part = slice(k * 50, (k + 1) * 50)
            w.write_arrays(times[part], {"id": "d", "v": np.arange(300)[part]})
            w.flush()
    data = bytearray(path.read_bytes())
    # the second time chunk's statistics: count 50, then its start and end times
    stats = bytes([50]) + struct.pack(">qq", int(times[50]), int(times[99]))
    at = bytes(data).find(stats)
    assert at > 0
    data[at] = 51
    bad = tmp_path / "lying_chunk_count.tsfile"
    bad.write_bytes(bytes(data))
    with tsfile.TsFileReader(str(bad)) as r:
        with pytest.raises(CorruptDataError, match="count 301 timestamps"):
            rs = r.query_table_by_row("t", ["v"], offset=120, limit=10)
            while rs.next():
                assert rs.get_value_by_index(1) in times[120:130]


def test_nonaligned_time_length_that_overflows_32_bits_is_refused(tmp_path):
    """A non-aligned page starts with the uvarint length of its times. A 5-byte varint whose last
    byte carries bits above bit 31 (80 80 80 80 10) must be refused like every other uvarint of
    the reader, not wrapped to 0. (Was: the page loop's own varint parser wrapped it to a time
    length of 0, and the single-page chunk, without page statistics to check against, read as
    an empty series: no row, no error.)"""
    name = "tree_nonaligned"
    if not fixture_path(name).exists():
        pytest.skip(f"fixture {name} not present")
    data = fixture_path(name).read_bytes()
    chunk = next(
        c
        for c in load_expected(name).meta["chunks"]
        if c["kind"] == "nonaligned"
        and c["pages"] == 1
        and c["compression"] == "UNCOMPRESSED"
        and c["device"] == ["root.a.b", "c", "d"]
    )
    body = next(iter(iter_pages(data, chunk)))["body"]
    at = data.find(body)
    assert at > 0 and data[at] < 0x80  # a one-byte time length, then the times
    with tsfile.TsFileReader(str(fixture_path(name))) as r:
        with r.query_timeseries("root.a.b.c.d", [chunk["measurement"]], -(2**63), 2**63 - 1) as rs:
            assert len(rs.get_next_tsblock()) > 0  # the intact file has rows there
    bad = tmp_path / "wrapped_time_length.tsfile"
    bad.write_bytes(data[:at] + bytes([0x80, 0x80, 0x80, 0x80, 0x10]) + data[at + 5 :])
    with tsfile.TsFileReader(str(bad)) as r:
        with pytest.raises(CorruptDataError, match="bad time length"):
            with r.query_timeseries(
                "root.a.b.c.d", [chunk["measurement"]], -(2**63), 2**63 - 1
            ) as rs:
                rs.get_next_tsblock()


def test_nonaligned_page_without_a_timestamp_is_refused(tmp_path):
    """The page of a one-page non-aligned chunk carries no statistics; a time length changed to
    0 (a valid varint) makes the page decode to no point at all, though it holds value bytes. No
    writer stores a page without points: an error, not an empty series. (Was: query_timeseries
    returned no row and no error.)"""
    name = "tree_nonaligned"
    if not fixture_path(name).exists():
        pytest.skip(f"fixture {name} not present")
    data = fixture_path(name).read_bytes()
    chunk = next(
        c
        for c in load_expected(name).meta["chunks"]
        if c["kind"] == "nonaligned"
        and c["pages"] == 1
        and c["compression"] == "UNCOMPRESSED"
        and c["device"] == ["root.a.b", "c", "d"]
    )
    at = data.find(next(iter(iter_pages(data, chunk)))["body"])
    assert 0 < data[at] < 0x80  # a one-byte time length
    bad = tmp_path / "empty_time_length.tsfile"
    bad.write_bytes(data[:at] + b"\x00" + data[at + 1 :])
    with tsfile.TsFileReader(str(bad)) as r:
        with pytest.raises(CorruptDataError, match="holds no timestamp"):
            with r.query_timeseries(
                "root.a.b.c.d", [chunk["measurement"]], -(2**63), 2**63 - 1
            ) as rs:
                rs.get_next_tsblock()
