"""The official fixtures written again with threads and page ranges (writer option threads=: each
chunk's pages encoded in `threads` runs, chunk_encode.ChunkEncoder; a call's timestamps checked in
`threads` parts, TsFileWriter._rising): the file must be the threads=1 file byte for byte, which
tests/test_writer_fixtures.py compares with the official writer's (TS_2DIFF's min_delta carried
across run edges, statistics merged page by page in order: float sums, NaN / -0.0 min, max, first
and last as one pass gives them)."""

from __future__ import annotations

import functools

import pytest
import test_writer_fixtures as fixtures
from interop.expected import load_expected

import tsfile.writer as writer_module
from tsfile._write import chunk_encode
from tsfile.types import Compressor, TSDataType, TSEncoding

CASES = [name for name in fixtures.CANDIDATES if name not in fixtures.WRITER_UNSUPPORTED]


@pytest.mark.skipif(not CASES, reason="no official fixtures")
@pytest.mark.parametrize("name", CASES)
def test_threads_and_page_ranges_write_the_threads_1_bytes(tmp_path, monkeypatch, name):
    exp = load_expected(name)
    # the writer refuses FLOAT/DOUBLE values that TS_2DIFF would round: those columns are left out
    lossy = fixtures.lossy_columns(exp)
    series = fixtures._write(exp, tmp_path / "one.tsfile", leave_out=lossy)
    cfg = exp.meta["config"][next(iter(exp.tables))]
    time_in_c = len(series.values["time"]) > 0 and chunk_encode.supports(
        int(TSEncoding[cfg["time_encoding_type_"]]),
        int(TSDataType.VECTOR),
        int(Compressor[cfg["time_compress_type_"]]),
    )
    want = (tmp_path / "one.tsfile").read_bytes()

    # every group streamed, every C-path chunk in page ranges, every call checked in parts
    monkeypatch.setattr(writer_module, "_STREAM_MIN_VALUES", 0)
    monkeypatch.setattr(writer_module, "_RANGE_MIN_ROWS", 1)
    monkeypatch.setattr(writer_module, "_SPLIT_CHECK_MIN_ROWS", 1)
    made = []
    real_encoder = chunk_encode.ChunkEncoder

    def recorded(values, offsets, *args, **kw):
        enc = real_encoder(values, offsets, *args, **kw)
        made.append((len(offsets) - 1, kw.get("present") is None, enc.ranges))
        return enc

    monkeypatch.setattr(chunk_encode, "ChunkEncoder", recorded)
    real_writer = fixtures.TsFileTableWriter
    for threads in (2, 3, 4):
        made.clear()
        monkeypatch.setattr(
            fixtures, "TsFileTableWriter", functools.partial(real_writer, threads=threads)
        )
        path = tmp_path / f"t{threads}.tsfile"
        fixtures._write(exp, path, leave_out=lossy)
        # each null-free C-path chunk (the time chunk too) was split into as many runs as it
        # has pages, up to `threads` (a group's last chunk: up to _LAST_CHUNK_SPLIT times as
        # many); a column with nulls is built in one job
        assert bool(made) >= time_in_c  # the time chunk, where the C path takes it
        last = threads * writer_module._LAST_CHUNK_SPLIT
        for pages, null_free, ranges in made:
            allowed = {min(threads, pages), min(last, pages)} if null_free else {1}
            assert ranges in allowed, made
        assert path.read_bytes() == want, f"threads={threads}"
