"""Review 3 of the read side: hostile statistics that made the reader drop rows silently.

A time column's series statistics count decides whether a device (and, in a many-file read,
a whole file) is read at all. A count damaged to 0 made the reader skip a device whose time
chunks hold rows: its rows vanished from every read API without an error (the official 2.5
reader reads them). A time column's chunks always hold rows, so the count is damage there."""

import numpy as np
import pytest

import tsfile
from tsfile import ColumnCategory, ColumnSchema, CorruptDataError, TableSchema, TSDataType

ROWS = 300


def _write(path, chunk_groups):
    """One table, devices a and b; ``chunk_groups`` flushes per device (several time chunks)."""
    schema = TableSchema(
        "t",
        [
            ColumnSchema("dev", TSDataType.STRING, ColumnCategory.TAG),
            ColumnSchema("v", TSDataType.INT64, ColumnCategory.FIELD),
        ],
    )
    with tsfile.TsFileTableWriter(
        str(path), schema, page_size=100, compression=tsfile.Compressor.UNCOMPRESSED
    ) as w:
        step = ROWS // chunk_groups
        for k in range(chunk_groups):
            for dev in ("a", "b"):
                t = np.arange(k * step, (k + 1) * step, dtype=np.int64)
                w.write_arrays(t, {"dev": dev, "v": t})
            w.flush()
    return path


def _zero_time_count(path, out):
    """The file with device a's time-column statistics count rewritten as a 0 of the same
    varint length (0x80 ... 0x00), so every other byte stays where it was."""
    data = bytearray(path.read_bytes())
    with tsfile.TsFileReader(str(path)) as r:
        (dev, rng), _b = r._devices("t")
        tsm = r._series("t", rng)[""]
        count, at = tsm.statistics.count, tsm.at
    assert count == ROWS
    varint = bytearray()
    n = count
    while True:
        varint.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            break
    pos = data.index(bytes(varint), at)  # the count follows the name, type and list size
    zero = bytes([0x80] * (len(varint) - 1) + [0x00])
    data[pos : pos + len(varint)] = zero
    out.write_bytes(bytes(data))
    return out


@pytest.mark.parametrize("chunk_groups", [1, 3], ids=["one_time_chunk", "three_time_chunks"])
def test_time_count_of_zero_beside_chunks_is_refused(tmp_path, chunk_groups):
    good = _write(tmp_path / "good.tsfile", chunk_groups)
    bad = str(_zero_time_count(good, tmp_path / "zero_count.tsfile"))
    assert len(tsfile.read_table(str(good), "t")["time"]) == 2 * ROWS
    reads = [
        lambda: tsfile.read_table(bad, "t"),
        lambda: tsfile.read_table(bad, "t", threads=2),
        lambda: tsfile.read_table([bad], "t", threads=2),
        lambda: tsfile.read_arrow([bad, str(good)], "t"),
        lambda: tsfile.to_dataframe([bad], "t", threads=1),
        lambda: tsfile.TsFileDataFrame([bad], show_progress=False),
    ]
    for read in reads:
        with pytest.raises(CorruptDataError, match="count 0 timestamps"):
            read()
    with tsfile.TsFileReader(bad) as r:
        with pytest.raises(CorruptDataError, match="count 0 timestamps"):
            with r.query_table("t", ["v"]) as rs:
                while rs.next():
                    pass
        with pytest.raises(CorruptDataError, match="count 0 timestamps"):
            with r.query_table_by_row("t", ["v"], offset=0, limit=10) as rs:
                while rs.next():
                    pass
    # under on_error="skip" the file is left out with a warning, never read as half its rows
    with pytest.warns(RuntimeWarning, match="zero_count"):
        got = tsfile.read_table([bad, str(good)], "t", on_error="skip")
    assert len(got["time"]) == 2 * ROWS
