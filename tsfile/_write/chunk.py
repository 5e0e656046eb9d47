"""Pages and chunks of an aligned (table-model) device: the time chunk and the value chunks of one
chunk group (format notes 5.1-5.4, recipe 12.2).

All chunks of a chunk group share the page boundaries `bounds` (row indexes 0 = b0 < b1 < ... =
rows). A chunk with one page gets the 0x?5 marker and no page statistics; a chunk with several
pages gets 0x?1 and statistics in every non-empty page header. A value page whose rows are all
null is the single byte 0x00.
"""

from __future__ import annotations

import functools

import numpy as np

from tsfile._format.bytes import i32, uvarint, varstr
from tsfile._format.constants import TIME_COLUMN_MASK, VALUE_COLUMN_MASK, Marker
from tsfile._write import chunk_encode, encoders
from tsfile._write.statistics import (
    Statistics,
    chunk_statistics,
    time_page_statistics,
    value_statistics,
    write_segments,
)
from tsfile.compression import compress
from tsfile.errors import EncodeError
from tsfile.types import Compressor, TSDataType, TSEncoding

# Shared by every writer of the process (each writer has its own lock, not this cache): dict get
# and set are atomic under the GIL, and two threads computing one entry store equal bytes.
_FULL_BITMAPS: dict[int, bytes] = {}


def full_bitmap(rows: int) -> bytes:
    """The not-null bitmap of a page without nulls: rows 1-bits, MSB first, low bits zero."""
    bm = _FULL_BITMAPS.get(rows)
    if bm is None:
        bm = b"\xff" * (rows >> 3)
        if rows & 7:
            bm += bytes(((0xFF << (8 - (rows & 7))) & 0xFF,))
        if len(_FULL_BITMAPS) < 64:
            _FULL_BITMAPS[rows] = bm
    return bm


def page_bounds(rows: int, page_size: int) -> list[int]:
    """Row boundaries of the pages of a chunk group: a page every page_size rows."""
    if rows <= 0:
        return [0]
    return list(range(0, rows, page_size)) + [rows]


class Chunk:
    """A serialized chunk: `parts` (header first) to write in order, its statistics, the encoding
    actually used ("auto" becomes ALP or GORILLA) and its size."""

    __slots__ = ("parts", "statistics", "encoding", "size", "measurement", "data_type")

    def __init__(self, measurement, data_type, parts, statistics, encoding):
        self.measurement = measurement
        self.data_type = data_type
        self.parts = parts
        self.statistics = statistics
        self.encoding = encoding
        self.size = sum(len(p) for p in parts)


def _chunk_header(marker, measurement, data_size, data_type, compressor, encoding) -> bytes:
    return (
        bytes((marker,))
        + varstr(measurement)
        + uvarint(data_size)
        + bytes((int(data_type), int(compressor), int(encoding)))
    )


def _chunk_marker(multi_page: bool) -> int:
    return Marker.CHUNK_HEADER if multi_page else Marker.ONLY_ONE_PAGE_CHUNK_HEADER


def _page_header(uncompressed: int, compressed: int) -> bytes:
    return uvarint(uncompressed) + uvarint(compressed)


# Chunks that chunk_encode.encode_pages can write are built there, all pages in one call without
# the GIL; the rest page by page here. Tests switch it off to compare both paths' bytes.
WHOLE_CHUNKS_IN_C = True


def _in_c(encoding, data_type, compressor, bounds) -> bool:
    if not (
        WHOLE_CHUNKS_IN_C and chunk_encode.supports(int(encoding), int(data_type), int(compressor))
    ):
        return False
    limit = chunk_encode.page_limit(int(encoding), int(data_type))
    # a page beyond the codec's limit: its encode() refuses it on the per-page path
    return limit is None or len(bounds) < 2 or int(np.diff(bounds).max()) <= limit


class ChunkBuild:
    """A chunk being built: `jobs`, callables without arguments to run once each, on any
    threads and at the same time (the chunk's pages or page ranges, without the GIL where the
    chunk is encoded in C), then finish() -> the Chunk, once every job has returned."""

    __slots__ = ("jobs", "_finish")

    def __init__(self, jobs, finish):
        self.jobs = jobs
        self._finish = finish

    @classmethod
    def whole(cls, build):
        """All the work of build() -> Chunk in one job."""
        built = []
        return cls([lambda: built.append(build())], lambda: built[0])

    def finish(self) -> Chunk:
        return self._finish()

    def run(self, runner=None) -> Chunk:
        """Every job in this thread (through runner(job) if given), then finish()."""
        for job in self.jobs:
            if runner is None:
                job()
            else:
                runner(job)
        return self.finish()


def _assembled(mask, multi, measurement, data_type, compressor, encoding, data, stats) -> Chunk:
    """The Chunk of the page bytes `data` (a list of bytes-like parts): its header first."""
    size = sum(len(part) for part in data)
    marker = mask | _chunk_marker(multi)
    head = _chunk_header(marker, measurement, size, data_type, compressor, encoding)
    return Chunk(measurement, data_type, [head, *data], stats, TSEncoding(encoding))


def time_chunk(times, bounds, compressor, encoding=TSEncoding.TS_2DIFF) -> Chunk:
    """The time chunk ("" / VECTOR) of an aligned chunk group."""
    return time_chunk_build(times, bounds, compressor, encoding).run()


class TimesDoNotRise(Exception):
    """Internal signal, never raised to a caller of the writer: a time chunk built with
    check_order=True found a time not greater than the one before it (its finish() raises this
    instead of returning the chunk; the writer then takes its checked path)."""


def time_chunk_build(
    times, bounds, compressor, encoding=TSEncoding.TS_2DIFF, ranges=1, check_order=False
):
    """time_chunk as a ChunkBuild: encoded in C, `ranges` runs of pages (ChunkEncoder) that may
    be encoded on several threads; else page by page in one job. check_order: finish() raises
    TimesDoNotRise unless the times rise strictly (checked page by page by the encode, which
    reads them anyway, in C)."""
    compressor = Compressor(compressor)
    multi = len(bounds) > 2
    rows = bounds[-1]
    stats = Statistics(TSDataType.VECTOR, rows, int(times[0]), int(times[rows - 1]))

    def chunk_of(data):
        args = (TIME_COLUMN_MASK, multi, "", TSDataType.VECTOR, compressor, encoding)
        return _assembled(*args, data, stats)

    if _in_c(encoding, TSDataType.VECTOR, compressor, bounds):
        encoder = chunk_encode.ChunkEncoder(
            times,
            bounds,
            int(encoding),
            int(TSDataType.VECTOR),
            int(compressor),
            times=times,
            ranges=ranges,
            check_order=check_order,
        )

        def finish():
            if check_order and not encoder.rising:
                raise TimesDoNotRise
            return chunk_of(encoder.result()[0])

        jobs = [functools.partial(encoder.encode, r) for r in range(encoder.ranges)]
        return ChunkBuild(jobs, finish)
    encode = encoders.value_encoder(encoding, TSDataType.INT64)

    def whole():
        if check_order and not chunk_encode.strictly_increasing(times):
            raise TimesDoNotRise
        return chunk_of(_time_pages(times, bounds, compressor, encode))

    return ChunkBuild.whole(whole)


def _time_pages(times, bounds, compressor, encode):
    """The time chunk's pages one by one: their parts (header, body of each page)."""
    npages = len(bounds) - 1
    multi = npages > 1
    page_stats = time_page_statistics(times, bounds) if multi else None
    parts = []
    for p in range(npages):
        body = encode(times[bounds[p] : bounds[p + 1]])
        stored = compress(compressor, body)
        head = _page_header(len(body), len(stored))
        if multi:
            head += page_stats[p].serialize()
        parts.append(head)
        parts.append(stored)
    return parts


def value_chunk(
    measurement, data_type, encoding, compressor, values, present, times, bounds, segments=None
) -> Chunk:
    """A value chunk of an aligned chunk group (encoding: a TSEncoding, or "auto" for FLOAT/DOUBLE:
    ALP or GORILLA for this chunk, see encoders.chunk_encoding; Chunk.encoding tells which).

    values: the non-null values in row order (numpy array of the type's dtype; a list of bytes for
    TEXT/STRING/BLOB); present: bool array over all rows (True = not null) or None when no row is
    null; times: the timestamps of all rows; bounds: the page boundaries shared with the time
    chunk; segments: optional row boundaries of the write segments (statistics sums in the
    official writer's order, see statistics.numeric_value_statistics)."""
    args = (measurement, data_type, encoding, compressor, values, present, times, bounds)
    return value_chunk_build(*args, segments).run()


def value_chunk_build(
    measurement,
    data_type,
    encoding,
    compressor,
    values,
    present,
    times,
    bounds,
    segments=None,
    ranges=1,
):
    """value_chunk as a ChunkBuild: encoded in C, `ranges` runs of pages (ChunkEncoder) that may
    be encoded on several threads; else page by page in one job. What this call does itself
    (the thread that starts the build) is light: the per-page counts and timestamps of the
    non-null values, and for "auto" the choice of encoding."""
    data_type = TSDataType(data_type)
    compressor = Compressor(compressor)
    if isinstance(values, np.ndarray):
        values = np.ascontiguousarray(values)  # DataFrame columns can be strided views
    # encoding "auto" is resolved here, per chunk: the chunk header holds one encoding for all its
    # pages, and the pages' boundaries are shared with the time chunk (no page can differ).
    encoding = encoders.chunk_encoding(encoding, data_type, values)
    npages = len(bounds) - 1
    multi = npages > 1
    if present is None:
        offsets = bounds
        value_times = times
    else:
        counts = np.add.reduceat(present, bounds[:-1], dtype=np.int64) if npages else []
        offsets = [0]
        for c in counts.tolist():
            offsets.append(offsets[-1] + c)
        value_times = times[present]

    def chunk_of(data, stats):
        args = (VALUE_COLUMN_MASK, multi, measurement, data_type, compressor, encoding)
        return _assembled(*args, data, stats)

    page_loss = encoders.page_loss(encoding, data_type)
    if page_loss is None and _in_c(encoding, data_type, compressor, bounds):
        # statistics too: each page's just before it is encoded, while it is in cache
        encoder = chunk_encode.ChunkEncoder(
            values,
            offsets,
            int(encoding),
            int(data_type),
            int(compressor),
            bounds=bounds,
            present=present,
            value_times=value_times,
            segments=write_segments(data_type, segments, present),
            ranges=ranges,
        )

        def finish():
            data, stats = encoder.result()
            return chunk_of(data, chunk_statistics(data_type, stats))

        jobs = [functools.partial(encoder.encode, r) for r in range(encoder.ranges)]
        return ChunkBuild(jobs, finish)

    def pages():
        page_stat_bytes, stats = value_statistics(
            data_type, values, value_times, offsets, multi, segments, present
        )
        encode = encoders.value_encoder(encoding, data_type)
        parts = []
        for p in range(npages):
            a, b = offsets[p], offsets[p + 1]
            if b <= a:
                parts.append(b"\x00")
                continue
            r0, r1 = bounds[p], bounds[p + 1]
            rows = r1 - r0
            if present is None or b - a == rows:
                bitmap = full_bitmap(rows)
            else:
                bitmap = np.packbits(present[r0:r1]).tobytes()
            page = encode(values[a:b])
            if page_loss is not None:
                lost = page_loss(values[a:b], page)
                if lost is not None:
                    _refuse(measurement, data_type, encoding, values, value_times, a, lost)
            body = i32(rows) + bitmap + page
            stored = compress(compressor, body)
            head = _page_header(len(body), len(stored))
            if multi:
                head += page_stat_bytes[p]
            parts.append(head)
            parts.append(stored)
        return chunk_of(parts, stats)

    return ChunkBuild.whole(pages)


def _refuse(measurement, data_type, encoding, values, value_times, a, lost):
    """Raise EncodeError for a value the page would not store (never a silently lossy page)."""
    i, decoded, reason = lost
    value = values[a + i].item()
    raise EncodeError(
        f"column {measurement!r} ({data_type.name}, {encoding.name}): the value {value!r} at "
        f"time {int(value_times[a + i])} would be read back as {decoded!r}: {reason}; choose "
        f"another encoding for this column (e.g. {encoders.LOSSLESS_ALTERNATIVES[encoding]})"
    )
