"""Partitions of a table query over many files (tsfile.dask.read_tsfile), planned from the
files' metadata only.

A file whose planned rows (the rows of its devices that the tag filter keeps, in the chunk
groups whose time statistics meet the query's range) are at most ``partition_rows`` is one
partition, read whole. A larger file is cut along its chunk groups: every device's chunk groups
become pieces (one per chunk group; groups of a device whose time ranges overlap stay one
piece), and consecutive pieces, in the one-file reader's order (devices in index order, a
device's pieces in time order), are packed into partitions of at most ``partition_rows`` rows.
Only a single piece larger than the limit makes a larger partition.

A partition reads its pieces by device and time range: the pieces of one device in a partition
are one time range of that device (bounded by the start of its next chunk group, so no row falls
between two partitions), and devices read whole are read together (one query with a
DeviceSetTagFilter). Its rows are those of the whole-file read for its devices and ranges, in the
same order, so the partitions one after another give the one-file reader's rows in its order.
"""

from __future__ import annotations

from dataclasses import dataclass

from tsfile._dataset.files import name_file
from tsfile.errors import CorruptDataError, TsFileError


@dataclass(frozen=True)
class Read:
    """One query of a partition: the devices ``tags`` (their tag tuples; None: every device the
    query's tag filter keeps) within times ``start`` .. ``end`` (inclusive)."""

    tags: tuple | None
    start: int
    end: int


@dataclass(frozen=True)
class Partition:
    """One partition: ``reads`` of the file ``path`` in order; ``span``: the (first, last) time
    of its rows by the statistics (clipped to the query); ``rows``: planned rows (whole chunk
    groups, so at least the rows it reads without a value filter)."""

    path: str
    reads: tuple
    span: tuple
    rows: int


@dataclass(frozen=True)
class _Piece:
    """Chunk groups of one device read as one time range ``start`` .. ``end``."""

    tags: tuple
    start: int
    end: int
    span: tuple
    rows: int


def check_partition_rows(partition_rows):
    """``partition_rows`` as given: a positive int, or None (one partition per file)."""
    if partition_rows is None:
        return None
    if isinstance(partition_rows, bool) or not isinstance(partition_rows, int):
        raise TypeError(
            f"partition_rows must be a positive int or None, not {type(partition_rows).__name__}"
        )
    if partition_rows < 1:
        raise ValueError(f"partition_rows must be at least 1, not {partition_rows}")
    return partition_rows


def plan_partitions(scan, partition_rows):
    """The partitions of the planned query ``scan`` (a tsfile._dataset.scan.Scanner), files in
    its order, each file's devices chosen by its tag filter (Scanner.file_filters).
    ``partition_rows``: None for one partition per file."""
    t1, t2 = scan.t1, scan.t2
    out = []
    for path in scan.files:
        table = scan.tables[path]
        keep = _device_filter(scan.file_filters(path)[0], table, scan.table)
        rows = sum(
            d.count
            for d in table.devices
            if d.count and _meets(d.start, d.end, t1, t2) and keep(d.tags)
        )
        if partition_rows is None or rows <= partition_rows:
            out.append(Partition(path, (Read(None, t1, t2),), scan.spans[path], rows))
            continue
        groups = _chunk_groups(path, scan.table, len(table.tag_names()), keep, t1, t2)
        pieces = [p for tags, spans in groups.items() for p in _device_pieces(tags, spans, t1, t2)]
        out.extend(_partition(path, run, t1, t2) for run in _pack(pieces, partition_rows))
    return out


def _meets(start, end, t1, t2):
    return not (end < t1 or start > t2)


def _device_filter(tag_filter, table, table_name):
    """``keep(tag tuple) -> bool`` of the query's tag filter on one file's table."""
    if tag_filter is None:
        return lambda tags: True
    from tsfile.filters import compile_tag_filter

    return compile_tag_filter(tag_filter, table.tag_names(), table_name)


def _chunk_groups(path, key, n_tags, keep, t1, t2):
    """{tag tuple: [(first, last, rows)]} of the chunk groups, from the time column's chunk
    statistics, of the devices ``keep`` accepts (index order) that meet [t1, t2]. Devices with
    the same tag tuple (a DeviceID with and without trailing null tags) count as one: a tag
    filter cannot tell them apart."""
    from tsfile.reader import TsFileReader

    out = {}
    try:
        with TsFileReader(path) as reader, reader._op():
            if key not in reader._meta.table_roots:
                return out
            for dev_id, rng in reader._devices(key):
                tags = dev_id.tag_values(n_tags)
                if not keep(tags):
                    continue
                time_meta = reader._series(key, rng).get("")
                if time_meta is None:
                    raise CorruptDataError(f"{path}: device {dev_id.path} has no time column")
                for chunk in time_meta.chunks:
                    st = chunk.statistics
                    if st.count and _meets(st.start_time, st.end_time, t1, t2):
                        out.setdefault(tags, []).append((st.start_time, st.end_time, st.count))
    except TsFileError as exc:
        raise name_file(exc, path) from exc
    return out


def _device_pieces(tags, spans, t1, t2):
    """The pieces of one device: its chunk groups in time order, overlapping ones joined. The
    first piece reads from ``t1``, the last up to ``t2``, every other from its first time to
    just before the next piece's, so the pieces cover the device's whole range once."""
    joined = []
    for first, last, rows in sorted(spans):
        if joined and first <= joined[-1][1]:
            joined[-1] = [joined[-1][0], max(last, joined[-1][1]), joined[-1][2] + rows]
        else:
            joined.append([first, last, rows])
    pieces = []
    for k, (first, last, rows) in enumerate(joined):
        start = t1 if k == 0 else first
        end = t2 if k == len(joined) - 1 else joined[k + 1][0] - 1
        pieces.append(_Piece(tags, start, end, (max(first, t1), min(last, t2)), rows))
    return pieces


def _pack(pieces, limit):
    """Consecutive runs of ``pieces`` of at most ``limit`` rows (a longer piece alone)."""
    runs, run, rows = [], [], 0
    for piece in pieces:
        if run and rows + piece.rows > limit:
            runs.append(run)
            run, rows = [], 0
        run.append(piece)
        rows += piece.rows
    if run:
        runs.append(run)
    return runs


def _partition(path, pieces, t1, t2):
    """The Partition reading ``pieces``: a device's consecutive pieces as one time range, and
    consecutive devices read over the whole query range as one read of all of them."""
    ranges = []  # [tags, start, end] per device, in order
    for p in pieces:
        if ranges and ranges[-1][0] == p.tags:
            ranges[-1][2] = p.end
        else:
            ranges.append([p.tags, p.start, p.end])
    reads = []
    for tags, start, end in ranges:
        whole = start == t1 and end == t2
        if whole and reads and (reads[-1].start, reads[-1].end) == (t1, t2):
            reads[-1] = Read((*reads[-1].tags, tags), t1, t2)
        else:
            reads.append(Read((tags,), start, end))
    span = (min(p.span[0] for p in pieces), max(p.span[1] for p in pieces))
    return Partition(path, tuple(reads), span, sum(p.rows for p in pieces))


__all__ = ["Read", "Partition", "plan_partitions", "check_partition_rows"]
