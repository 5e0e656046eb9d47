"""TsFileReader: open a TsFile (format v4), list tables and devices, query them.

Names follow the official ``tsfile`` package. A query is planned here from the metadata index
(devices in index order; per device the time chunks and, for every requested field column, the
value chunk that belongs to each time chunk by file position); the decoding of chunks runs in the
Cython module tsfile._read.engine. Rows come one chunk group at a time as blocks, which the
ResultSet serves row by row or block by block; ``read_columns`` decodes a whole query straight
into one set of result arrays (tsfile.read_table / to_dataframe / read_arrow).

Odd and hostile metadata: ATTRIBUTE columns of a table schema (IoTDB's; no chunks in a TsFile)
are listed and read as all-null columns of their declared type, as the official reader does.
Text follows one policy everywhere (tsfile._format.bytes): names and TEXT/STRING values that
are not valid UTF-8 raise CorruptDataError naming the file offset, on every query path; BLOB
values are bytes, never decoded. Schema codes no writer has and a damaged metadata index
(duplicates, disorder, cycles, shared nodes) are CorruptDataError too (tsfile._format).
"""

from __future__ import annotations

import bisect
import datetime
import math
import mmap
import operator
import os
import stat
import sys
import threading
from dataclasses import dataclass, field

import numpy as np

from tsfile._args import int_arg
from tsfile._format.bytes import Cursor
from tsfile._format.device import DeviceID, tree_device_id
from tsfile._format.devindex import read_device_index
from tsfile._format.index import IndexWalker
from tsfile._format.metadata import read_file_metadata, read_timeseries_metadata
from tsfile._mem.pool import pooled
from tsfile._read import columns as columns_mod
from tsfile._read import engine, late, predicate
from tsfile._read import source as source_mod
from tsfile._read.ahead import TimesAhead
from tsfile._read.resultset import ResultSet, ResultSetMetaData, TsBlock
from tsfile._simd import is_simd_enabled, simd_available
from tsfile.errors import (
    ClosedError,
    ColumnNotExistError,
    CorruptDataError,
    DeviceNotExistError,
    SimdUnavailableError,
    TableNotExistError,
    TsFileNotFoundError,
    TypeMismatchError,
    UnsupportedError,
)
from tsfile.exceptions import FileOpenError, InvalidPathError
from tsfile.filters import compile_tag_filter
from tsfile.types import ColumnCategory, TSDataType

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1

# Rows a time chunk can hold per byte of decompressed time page: TS_2DIFF stores at most 129
# timestamps per 24-byte block header, PLAIN 1 per 8 bytes; other encodings (never written by the
# official writers for time) get a generous bound. Used to reject impossible statistics counts
# before any result array is allocated.
_ROWS_PER_BYTE = {4: 6, 0: 1}
_ROWS_PER_BYTE_OTHER = 64
# ... and per stored (compressed) byte: real time pages compress far less than 1024 rows per byte
# (10,000 perfectly regular TS_2DIFF timestamps are ~1,900 bytes before compression), while
# ZSTD/LZMA2 page headers could otherwise claim almost any uncompressed size.
_ROWS_PER_STORED_BYTE = 1024

# Rows per block served by a ResultSet: small enough that the block arrays stay in cache-friendly
# sizes the allocator reuses (no fresh page faults per block), large enough to amortise the
# per-block Python work.
DEFAULT_BLOCK_ROWS = 65536


@dataclass
class _Group:
    time_chunk: object  # engine.Chunk
    rows: int  # capacity: the time chunk's statistics count (validated)
    values: list  # per requested field column: engine.Chunk offset or None
    inside: bool = False  # the time chunk's statistics lie inside the query range
    page_lo: int = 0  # pages of the time chunk this group covers (blocks split large chunks)
    page_hi: int = -1


@dataclass
class _DeviceTask:
    device: DeviceID
    groups: list = field(default_factory=list)
    tags: tuple = ()
    types: list = field(default_factory=list)  # per requested field column: series data type
    type_at: list = field(default_factory=list)  # ... and the offset of its TimeseriesMetadata
    names: list = field(default_factory=list)  # ... and its series' name (each value chunk's)


@dataclass
class _Plan:
    """A planned table query with its filters: the columns planned (``names``/``types``: the
    result's first ``n_out``, then the columns only a value filter reads), the time range
    (narrowed by the value filter) and the bound value filter (None: no value filter)."""

    names: list
    types: list
    fields: list
    tags: dict
    tasks: list
    t1: int
    t2: int
    bound: object = None
    n_out: int = 0

    @property
    def out_names(self):
        return self.names[: self.n_out]

    @property
    def out_types(self):
        return self.types[: self.n_out]

    def filter_blocks(self, blocks, path="auto"):
        """The blocks reduced to the rows the value filter selects (and the result columns);
        ``path``: the query's decode path, which the predicate kernels follow too."""
        if self.bound is None:
            return blocks
        return self._filtered(blocks, path)

    def _filtered(self, blocks, path):
        names, types = self.out_names, self.out_types
        for block in blocks:
            block = predicate.filter_block(self.bound, block, names, types, path)
            if block is not None:
                yield block


# The value-filtered query_table / query_table_by_row materialise late (TsFileReader._late_blocks);
# off, they decode every column and mask (the filter benchmark's baseline).
_LATE_QUERIES = True
# A late block decodes its other columns over the page runs of its selected rows
# (late.selected_plans) only when they hold at least this many values (rows x columns); below
# it, whole (a block selecting nothing still decodes none of them). Off for now: measured on
# INT64 TS_2DIFF uncompressed, CPU medians, block rows x 7 other columns, the runs were slower
# than whole decoding in every shape tried: 10 k-row blocks 0.57-0.88x, 65 k 0.67-0.79x, one
# 1 M-row page 0.90-0.93x (selectivity 0.01-50 %): planning costs ~60-70 us of Python a block
# (late._group_plans) plus a _decode_field call per run, and whole TS_2DIFF pages decode at
# ~0.5 ns a value. Tests set it to 0 to check the runs path.
_RUNS_MIN_VALUES = 2**62


def _selected_block(q, g, tag_cols, bufs, n, picked, counts):
    """The TsBlock of the ``picked`` rows (of ``n`` decoded into ``bufs``, ``counts`` null rows
    per field) of chunk group ``g`` of query ``q``: its result columns only, nulls only where a
    selected row is null. Where every row is selected, views of the buffers (as an unfiltered
    block); else only the selected rows copied out."""
    fi = {f: j for j, f in enumerate(q.fields)}
    whole = len(picked) == n
    columns, nullmap = {}, {}
    for name in q.out_names[1:]:
        j = fi.get(name)
        if j is None:
            columns[name], m = tag_cols.get(name, len(picked))
        else:
            m = bufs.nulls[j][:n] if counts[j] else None
            columns[name] = _rows_of(bufs.vals[j], n, picked, whole)
            m = None if m is None else _rows_of(m, n, picked, whole)
        if m is not None and m.any():
            nullmap[name] = m
    origins = {name: g.values[fi[name]] if name in fi else None for name in q.out_names[1:]}
    ts = _rows_of(bufs.ts, n, picked, whole)
    return TsBlock(ts, columns, nullmap, q.out_types, origins)


def _block_types(names, types, fields):
    """Per field of a table query: its TSDataType, its numpy dtype and whether that is numeric
    (the buffers _table_blocks and _late_blocks take from the pool)."""
    field_types = [types[names.index(f)] for f in fields]
    dtypes = [engine.numpy_dtype(t) for t in field_types]
    return field_types, dtypes, [dt.kind != "O" for dt in dtypes]


def _rows_of(values, n, picked, whole):
    """Rows ``picked`` of ``values``: its first ``n`` rows as a view when ``whole`` (every row
    picked), else a copy of the picked rows."""
    # by index, as predicate.filter_columns: numpy's take copies a scattered selection several
    # times faster than a bool mask does
    return values[:n] if whole else values.take(picked)


def _null_rows(vals, nulls, pos, rows):
    """A field column without a chunk in a chunk group: its ``rows`` rows at ``pos`` are null
    (values zero, or None in an object column); returns them."""
    nulls[pos : pos + rows] = True
    vals[pos : pos + rows] = None if vals.dtype == object else 0
    return rows


def _present_fields(g, rows, out_vals, out_nulls, pos):
    """The field columns of chunk group ``g`` that have a chunk there (indexes), and a null
    count per column: ``rows`` for those without one (made null at ``pos`` here), 0 for the
    others (their decode counts them)."""
    counts = [0] * len(g.values)
    present = []
    for j, off in enumerate(g.values):
        if off is None:
            counts[j] = _null_rows(out_vals[j], out_nulls[j], pos, rows)
        else:
            present.append(j)
    return counts, present


def _holds(series, measurement):
    """Whether a tree device's ``series`` (name -> metadata) hold ``measurement`` as a column: ''
    is an aligned device's time column, never one."""
    return measurement != "" and measurement in series


def _row_window(offset, limit):
    """The official offset/limit rules: a negative offset is 0, a negative limit is no limit
    (None here)."""
    offset, limit = operator.index(offset), operator.index(limit)
    return max(offset, 0), (None if limit < 0 else limit)


def _window_blocks(blocks, skip, limit):
    """Rows ``skip`` .. ``skip + limit`` of a stream of blocks; stops pulling blocks (so stops
    decoding) as soon as ``limit`` rows are served."""
    if limit == 0:
        return
    left = limit
    for block in blocks:
        n = len(block)
        if skip >= n:
            skip -= n
            continue
        stop = n if left is None else min(n, skip + left)
        if skip or stop < n:
            block = block.slice(skip, stop)
        skip = 0
        yield block
        if left is not None:
            left -= len(block)
            if left <= 0:
                return


def _counted_pages(g):
    """(page statistics, end of the group's pages) if every page of the group's time chunk
    carries statistics (a count), else None."""
    info = g.time_chunk.page_info()
    if len(info) <= 1 or not all(p[3] for p in info):
        return None
    return info, (len(info) if g.page_hi < 0 else g.page_hi)


def _drop_pages(g, k):
    """The group without its leading whole pages that hold at most ``k`` rows (by the page
    statistics counts, no decoding), and the rows dropped. At least one page stays."""
    counted = _counted_pages(g)
    if k <= 0 or counted is None:
        return g, 0
    info, hi = counted
    lo, dropped = g.page_lo, 0
    while lo < hi - 1 and dropped + info[lo][4] <= k:
        dropped += info[lo][4]
        lo += 1
    if dropped == 0:
        return g, 0
    return _Group(g.time_chunk, g.rows - dropped, g.values, g.inside, lo, hi), dropped


def _cut_pages(g, k):
    """The group reduced to its leading pages that hold the first ``k`` rows."""
    counted = _counted_pages(g)
    if counted is None:
        return g
    info, end = counted
    hi, rows = g.page_lo, 0
    while hi < end and rows < k:
        rows += info[hi][4]
        hi += 1
    return _Group(g.time_chunk, rows, g.values, g.inside, g.page_lo, hi)


def _skip_rows(tasks, offset, limit):
    """Drop the chunk groups and leading pages that the first ``offset`` rows fill, by their
    statistics counts (without decoding them), and the groups after row ``offset + limit``.
    Returns the rows still to skip at the start of the first group kept."""
    need = None if limit is None else offset + limit
    skipped = planned = 0
    for task in tasks:
        kept = []
        for g in task.groups:
            if need is not None and skipped + planned >= need:
                break
            if planned == 0:
                if skipped + g.rows <= offset:
                    skipped += g.rows
                    continue
                g, dropped = _drop_pages(g, offset - skipped)
                skipped += dropped
            if need is not None and skipped + planned + g.rows > need:
                g = _cut_pages(g, need - skipped - planned)
            kept.append(g)
            planned += g.rows
        task.groups = kept
    return offset - skipped


def _collect_blocks(rs):
    """A result set's blocks as one (names, types, timestamps, columns, nulls), its arrays
    from the result pool (tsfile._mem.pool)."""
    with pooled():
        return _collect_pooled(rs)


def _collect_pooled(rs):
    meta = rs.get_metadata()
    names, types = meta.get_column_list(), meta.get_data_type_list()
    blocks = []
    while (b := rs.get_next_tsblock()) is not None:
        blocks.append(b)
    ts = np.concatenate([b.timestamps for b in blocks]) if blocks else np.empty(0, np.int64)
    # the join searches the timestamps: chunk groups of an aligned device may overlap in time
    order = np.argsort(ts, kind="stable") if np.any(ts[1:] < ts[:-1]) else None
    columns, nulls = {}, {}
    for name, t in zip(names[1:], types[1:], strict=True):
        if blocks:
            columns[name] = np.concatenate([b.columns[name] for b in blocks])
        else:
            columns[name] = np.empty(0, engine.numpy_dtype(t))
        masks = [b.nulls.get(name, np.zeros(len(b), np.bool_)) for b in blocks]
        nulls[name] = np.concatenate(masks) if masks else np.empty(0, np.bool_)
        if order is not None:
            columns[name], nulls[name] = columns[name][order], nulls[name][order]
    return names, types, ts if order is None else ts[order], columns, nulls


def _outer_join(parts, names, types, offset, limit):
    """Rows ``offset`` .. ``offset + limit`` of the parts outer-joined on time, as one TsBlock
    (None if empty); only the rows in the window are materialised."""
    all_ts = np.unique(np.concatenate([p[2] for p in parts])) if parts else np.empty(0, np.int64)
    stop = len(all_ts) if limit is None else min(len(all_ts), offset + limit)
    window = all_ts[offset:stop].astype(np.int64)
    if len(window) == 0:
        return None
    columns, nulls = {}, {}
    for _names, _types, ts, cols, masks in parts:
        lo, hi = np.searchsorted(ts, [window[0], window[-1] + 1]) if len(ts) else (0, 0)
        at = np.searchsorted(window, ts[lo:hi])
        for name in _names[1:]:
            values = cols[name]
            out = (
                np.full(len(window), None, object)
                if values.dtype == object
                else np.zeros(len(window), values.dtype)
            )
            absent = np.ones(len(window), np.bool_)
            out[at] = values[lo:hi]
            absent[at] = masks[name][lo:hi]
            columns[name] = out
            if absent.any():
                nulls[name] = absent
    return TsBlock(window, columns, nulls, types)


def _refcount_base():
    held = [np.empty(1)]
    return sys.getrefcount(held[0])


# sys.getrefcount of an array referenced only by a pool entry's list (calibrated, not assumed)
_REFCOUNT_BASE = _refcount_base()


class _Buffers:
    __slots__ = ("cap", "ts", "vals", "nulls", "dirty", "dtypes")

    def __init__(self, cap, dtypes, numeric):
        self.cap = cap
        self.dtypes = list(dtypes)
        self.ts = np.empty(cap, np.int64)
        self.vals = [np.empty(cap, dt) for dt in dtypes]
        self.nulls = [np.zeros(cap, np.bool_) for _ in dtypes]
        self.dirty = [False] * len(dtypes)

    def unreferenced(self, numeric):
        """True if no block handed out still uses these arrays (views hold their base)."""
        base = _REFCOUNT_BASE
        if sys.getrefcount(self.ts) > base:
            return False
        for j in range(len(self.vals)):
            if numeric[j] and sys.getrefcount(self.vals[j]) > base:
                return False
            if sys.getrefcount(self.nulls[j]) > base:
                return False
        return True


class _BlockPool:
    """Recycles the arrays of blocks the caller has dropped, so that a streaming consumer does
    not pay fresh page faults for every block. Reuse is decided by reference counts: an array
    still referenced by a block, a view or any other object is never reused."""

    # Shared by all queries of the process (a lock keeps two threads from taking one entry);
    # only block-sized buffers are kept, so at most `keep` blocks of memory stay cached.
    def __init__(self, keep=4, max_cap=4 * 65536):
        self.keep = keep
        self.max_cap = max_cap
        self.free = []
        self.lock = threading.Lock()

    def take(self, cap, dtypes, numeric):
        # new block arrays come from the result pool (tsfile._mem.pool): the blocks a
        # streaming consumer dropped beyond ``keep`` are reused without fresh page faults
        with pooled():
            return self._take(cap, dtypes, numeric)

    def _take(self, cap, dtypes, numeric):
        with self.lock:
            for i, b in enumerate(self.free):
                if (
                    b.cap >= cap
                    and b.dtypes == dtypes
                    and b.unreferenced([dt.kind != "O" for dt in b.dtypes])
                ):
                    del self.free[i]
                    break
            else:
                b = None
        if b is None:
            return _Buffers(cap, dtypes, numeric)
        for j in range(len(b.vals)):
            if not numeric[j]:
                b.vals[j] = np.empty(b.cap, dtypes[j])  # objects: never shared
            if b.dirty[j]:
                b.nulls[j][:] = False
                b.dirty[j] = False
        return b

    def give(self, b):
        if b.cap > self.max_cap:
            return
        with self.lock:
            self.free.append(b)
            if len(self.free) > self.keep:
                self.free.pop(0)


_POOL = _BlockPool()


class _ScratchPool:
    """engine.Scratch buffers (decompressed page bodies, timestamps, dense values): each decode
    operation takes one for itself and gives it back when it ends, so no two concurrent decodes
    (they run without the GIL) ever write to the same buffer. Up to ``keep`` stay warm for the
    next operations, of any reader."""

    KEEP_BYTES = 16 << 20

    def __init__(self, keep=8):
        self.keep = keep
        self.free = []
        self.lock = threading.Lock()

    def take(self):
        with self.lock:
            if self.free:
                return self.free.pop()
        return engine.new_scratch()

    def give(self, scratch):
        # A pooled scratch must not keep one huge page (or its decoder's output) alive for the
        # rest of the process: buffers above KEEP_BYTES go when the operation ends.
        scratch.reset(self.KEEP_BYTES)
        with self.lock:
            if len(self.free) < self.keep:
                self.free.append(scratch)


_SCRATCH = _ScratchPool()


class _Lifetime:
    """Open or closed, and the operations running on a reader's file view.

    Every operation that reads the file (an index walk, the planning of a query, the decode of one
    chunk group or of a batch of them) runs between enter() and exit(); enter() raises
    ClosedError once the reader is closed. close() marks it closed, then waits until the
    operations of other threads have ended (decodes run without the GIL on raw pointers into the
    mmap: it must not be unmapped under them). Whoever finds it closed with nothing running
    releases the file, exactly once: close() itself, or, where close() must not wait (called by
    a thread that is inside an operation of this reader, or from __del__), the last operation
    to end."""

    __slots__ = ("cond", "active", "closed", "released", "deferred", "path")

    def __init__(self, path):
        self.cond = threading.Condition(threading.Lock())
        self.active = {}  # thread ident -> that thread's operations running (nesting)
        self.closed = False
        self.released = False
        self.deferred = False  # close() left the release to the last operation
        self.path = path

    def enter(self):
        with self.cond:
            if self.closed:
                raise ClosedError(f"{self.path}: the reader is closed")
            me = threading.get_ident()
            self.active[me] = self.active.get(me, 0) + 1

    def exit(self):
        """End an operation; True if the caller must now release the file."""
        with self.cond:
            me = threading.get_ident()
            left = self.active[me] - 1
            if left:
                self.active[me] = left
                return False
            del self.active[me]
            if self.active:
                return False
            self.cond.notify_all()
            return self.deferred and self._claim_release()

    def close(self, wait):
        """Mark closed (waiting for other threads' operations if ``wait``); True if the caller
        must now release the file."""
        with self.cond:
            self.closed = True
            if wait and threading.get_ident() not in self.active:
                while self.active:
                    self.cond.wait()
            if self.active:
                self.deferred = True
                return False
            return self._claim_release()

    def _claim_release(self):
        if self.released:
            return False
        self.released = True
        return True


class _Operation:
    """``with reader._op() as scratch:`` one operation on the reader's file (see _Lifetime), with
    a scratch buffer of its own (see _ScratchPool)."""

    __slots__ = ("reader", "scratch")

    def __init__(self, reader):
        self.reader = reader
        self.scratch = None

    def __enter__(self):
        scratch = _SCRATCH.take()
        try:
            self.reader._life.enter()
        except BaseException:
            _SCRATCH.give(scratch)
            raise
        self.scratch = scratch
        try:
            self.reader._check_unchanged()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return scratch  # from here on, __exit__ is sure to run

    def __exit__(self, *exc):
        _SCRATCH.give(self.scratch)
        self.scratch = None
        if self.reader._life.exit():
            self.reader._release()
        return False


class _TagColumns:
    """Tag columns of one device: one read-only object array per tag, sliced for every block."""

    def __init__(self, tags, values, cap):
        self.cols = {}
        for name, idx in tags.items():
            v = values[idx]
            arr = np.empty(cap, dtype=object)
            arr[:] = [v] * cap if v is None else v
            arr.flags.writeable = False
            mask = None
            if v is None:
                mask = np.ones(cap, np.bool_)
                mask.flags.writeable = False
            self.cols[name] = (arr, mask)

    def get(self, name, n):
        arr, mask = self.cols[name]
        return arr[:n], None if mask is None else mask[:n]


def open_error(exc, path):
    """The package's error for an OSError met opening or probing ``path``: TsFileNotFoundError
    for a missing file (or a dangling link), else FileOpenError (a symlink loop, no permission,
    a name too long...), both OSErrors with ``errno`` and ``filename`` set and both the
    official FileOpenError, which users of the official package catch."""
    cls = TsFileNotFoundError if isinstance(exc, FileNotFoundError) else FileOpenError
    return cls(exc.errno, exc.strerror, path)


def _open_regular_file(path):
    """A read-only descriptor of ``path``; UnsupportedError for anything but a regular file (a
    FIFO or a device would block or cannot be mapped; O_NONBLOCK keeps the open itself from
    waiting for a FIFO's writer)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    flags |= getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise open_error(exc, path) from None
    except ValueError as exc:  # a NUL in the name: no path at all (e.g. a file's bytes)
        hint = (
            "; a file's contents are read from io.BytesIO(data)" if isinstance(path, bytes) else ""
        )
        shown = repr(path[:40]) + ("..." if len(path) > 40 else "")
        raise InvalidPathError(f"{shown}: not a path ({exc}){hint}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = "a directory" if stat.S_ISDIR(mode) else "not a regular file"
            raise UnsupportedError(f"{path}: {kind}; a TsFile is read from a regular file")
    except BaseException:
        os.close(fd)
        raise
    return fd


def _time_bound(value, name, is_start):
    """One query bound as an int64 time, exact: a row is in the range when start <= t <= end.
    None is unbounded; ints as they are; floats rounded inwards (start up, end down: t >= 2.5
    means t >= 3), infinities unbounded; numpy datetime64, datetime.datetime and pandas
    Timestamps in milliseconds, the writer's time unit (naive ones taken as UTC)."""
    if value is None:
        return INT64_MIN if is_start else INT64_MAX
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an int or a datetime, not bool")
    if isinstance(value, (int, np.integer)):
        t = int(value)
    elif isinstance(value, (float, np.floating)):
        v = float(value)
        if math.isnan(v):
            raise ValueError(f"{name} is NaN")
        if math.isinf(v):
            if (v > 0) == is_start:  # start at +inf / end at -inf: nothing can match
                return INT64_MAX if is_start else INT64_MIN
            return INT64_MIN if is_start else INT64_MAX
        t = math.ceil(v) if is_start else math.floor(v)
    elif isinstance(value, (np.datetime64, datetime.datetime)):
        t = _datetime_ms(value, name, is_start)
    else:
        raise TypeError(f"{name} must be an int, a float or a datetime, not {type(value).__name__}")
    if not INT64_MIN <= t <= INT64_MAX:
        raise ValueError(f"{name} {value!r} does not fit in int64")
    return t


def _datetime_ms(value, name, is_start):
    """A datetime bound in milliseconds, rounded inwards like a float bound."""
    if value != value:  # NaT (numpy's and pandas')
        raise ValueError(f"{name} is NaT")
    if isinstance(value, np.datetime64):
        if np.datetime_data(value.dtype)[0] in ("ns", "ps", "fs", "as"):
            ns = int(value.astype("datetime64[ns]").astype(np.int64))
        else:  # exact in microseconds, and no int64 nanosecond overflow for far dates
            ns = int(value.astype("datetime64[us]").astype(np.int64)) * 1000
    elif hasattr(value, "nanosecond") and isinstance(getattr(value, "value", None), int):
        ns = value.value  # pandas.Timestamp: nanoseconds since the epoch, UTC
    else:
        if value.tzinfo is not None:
            value = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        delta = value - datetime.datetime(1970, 1, 1)
        ns = (delta.days * 86_400 + delta.seconds) * 10**9 + delta.microseconds * 1000
    q, r = divmod(ns, 1_000_000)
    return q + 1 if (is_start and r) else q


def _time_bounds(start_time, end_time):
    return (
        _time_bound(start_time, "start_time", True),
        _time_bound(end_time, "end_time", False),
    )


def _path_code(path):
    if not isinstance(path, str):
        raise TypeError(f"path must be a str, not {type(path).__name__}")
    try:
        code = engine.PATH_CODES[path]
    except KeyError:
        raise ValueError(
            f"unknown decode path {path!r}; expected 'per_value', 'batch', 'simd' or 'auto'"
        ) from None
    if path == "simd" and not is_simd_enabled():
        # as every codec module's decode(path="simd") does when its kernels cannot run
        why = "switched off" if simd_available() else "not available on this build or CPU"
        raise SimdUnavailableError(f"path='simd': the SIMD kernels are {why}")
    return code


def _thread_count(threads):
    """The ``threads=`` argument of a whole-table read: an int >= 1, or None for one per core
    (as a many-file read's default, TsFileDataFrame's query_workers=None and the writer's
    None take None for the library's choice)."""
    if threads is None:
        return max(1, os.cpu_count() or 1)
    return int_arg("threads", threads, 1)


def _table_name_arg(table_name):
    """The ``table_name=`` argument of read_table / to_dataframe / read_arrow (one file or many):
    None (the first table) or a str. Another type was looked up as a key and failed later with
    an AttributeError from ``.lower()`` (one file) or TableNotExistError (many files)."""
    if table_name is not None and not isinstance(table_name, str):
        raise TypeError(f"table_name must be a str or None, not {type(table_name).__name__}")
    return table_name


# Rows of the devices a one-file read on several threads hands to its helper at once
# (TsFileReader._read_columns_ahead): a read of a portion is one job or more of the decode.
_PORTION_ROWS = 1 << 18


class _Portions:
    """The devices of a one-file query as they are planned, gathered into reads (ColumnRead)
    of about _PORTION_ROWS rows, each offered to ``ahead`` (a TimesAhead) when complete."""

    def __init__(self, reader, pcode, path, t1, t2, ahead):
        self.reader, self.pcode, self.path = reader, pcode, path
        self.t1, self.t2 = t1, t2
        self.ahead = ahead
        self.reads = []
        self._tasks, self._rows, self._head = [], 0, None
        # the table's devices looked at so far (a tag filter skips some) and those of the reads
        # offered: a read stands for the devices looked at since the last one, kept or not
        self._seen = self._offered = self._devices = 0

    def add(self, task, head, devices, seen):
        """_plan_table's on_task: one more device planned (``devices``: the table's, ``seen``:
        those looked at up to this one)."""
        self._head = head
        self._seen, self._devices = seen, devices
        self.ahead.expect_files(devices)
        self._tasks.append(task)
        self._rows += sum(g.rows for g in task.groups)
        if self._rows >= _PORTION_ROWS:
            self.flush()

    def finish(self):
        """The planning is over (every device looked at): the last devices' read offered."""
        self._seen = max(self._seen, self._devices)
        self.flush()

    def flush(self):
        """The devices gathered so far as one read, offered to the helper."""
        if not self._tasks:
            return
        names, types, fields, tags = self._head
        q = _Plan(names, types, fields, tags, self._tasks, self.t1, self.t2, None, len(names))
        read = columns_mod.ColumnRead(self.reader, q, self.pcode, self.path)
        for task in q.tasks:
            self.reader._check_types(task, q.fields, read.field_types)
        self.reads.append(read)
        # the estimate goes by devices looked at, not kept: with a tag filter keeping one
        # device of forty, rows for forty kept ones were reserved (never kept, the values
        # decoded ahead thrown away)
        self.ahead.offer(read, files=max(1, self._seen - self._offered))
        self._offered = self._seen
        self._tasks, self._rows = [], 0


class TsFileReader:
    """Reader of one TsFile. ``with TsFileReader(path) as r: ...``

    Threads: a reader is safe to share. Any number of threads may query it at once (every query
    decodes with buffers of its own, without the GIL: decodes run in parallel) and get exactly
    the results a single thread gets. close() may be called from any thread: from then on every
    method raises ClosedError, and so does every row or block call of the reader's result sets;
    close() waits for decodes running in other threads to end before the file is unmapped, so a
    thread reading when the reader is closed gets ClosedError (after whole, correct blocks
    only), never a crash. A ResultSet is for one thread at a time (see ResultSet)."""

    def __init__(self, path):
        """``path``: a path (str, bytes, ``os.PathLike``), a seekable binary file object (read by
        byte ranges, never closed here) or an fsspec URL (``memory://...``, ``s3://...``; needs
        fsspec): see tsfile._read.source."""
        self._mm = None
        self._fv = None
        self._fd = None
        self._source = None
        self._result_sets = set()
        if source_mod.is_file_object(path) or source_mod.is_url(path):
            self._open_source(path)
        else:
            self._open_path(path)
        buf = b"" if self._mm is None else self._mm
        self._buf = buf
        size = self._size
        try:
            if self._source is not None:
                self._source.fetch_metadata()
            self._meta = read_file_metadata(buf, size, self._path)
            level = self._meta.properties.get("encryptLevel")
            if level not in (None, b"", b"0"):
                # encryptLevel 1/2: page data are encrypted (AES/SM4), not readable here
                at = self._meta.property_offsets.get("encryptLevel", self._meta.meta_start)
                raise UnsupportedError(
                    f"{self._path}: encrypted TsFile (encryptLevel {level!r} at file offset "
                    f"{at}) is not supported"
                )
            self._fv = engine.FileView(buf, self._path, self._meta.meta_offset)
        except BaseException:
            self._release()
            raise
        self._walker = IndexWalker(buf, self._meta.meta_offset, self._meta.meta_start, self._path)
        # Caches shared by the threads that query this reader: dict/set get, set, add and clear
        # are atomic under the GIL, and what they hold never changes once stored (two threads
        # may both compute an entry; they store equal values).
        self._devices_cache = {}
        self._device_keys = {}  # index root -> {DeviceID: its index in _devices()}
        self._series_cache = {}
        self._index_cache = {}  # device's series range -> its DeviceIndex (None: declined)
        self._chunks = {}
        self._pages_checked = set()  # (time chunk, value chunk, pages) checked page headers
        self._value_chunks = {}  # (time chunk, its pages, value chunks) -> checked Chunks
        self._life.closed = False

    def _open_path(self, path):
        if not isinstance(path, (str, bytes, os.PathLike)):
            raise TypeError(
                "TsFileReader needs a path or a seekable binary file object, got "
                f"{type(path).__name__}"
            )
        self._path = str(os.fsdecode(os.fspath(path)))  # np.str_ and bytes paths too
        self._life = _Lifetime(self._path)
        self._life.closed = True  # until the file is open
        self._fd = _open_regular_file(os.fspath(path))
        try:
            self._size = os.fstat(self._fd).st_size
            # mmap: pages of the file are read on demand; nothing is copied up front.
            self._mm = mmap.mmap(self._fd, 0, access=mmap.ACCESS_READ) if self._size else None
        except BaseException:
            os.close(self._fd)
            raise

    def _open_source(self, path):
        """A file object or URL, read by ranges into an anonymous mapping (RangeSource)."""
        if isinstance(path, str):
            self._path = str(path)
            fileobj, owned = source_mod.open_url(path), True
        else:
            self._path = str(getattr(path, "name", None) or f"<{type(path).__name__}>")
            fileobj, owned = path, False
        self._life = _Lifetime(self._path)
        self._life.closed = True  # until the file is open
        try:
            self._source = source_mod.RangeSource(fileobj, self._path, owned)
        except BaseException:
            if owned:
                fileobj.close()
            raise
        self._size = self._source.size
        self._mm = self._source.buf or None

    @property
    def bytes_fetched(self):
        """Bytes read from a file object or URL so far (None for a memory-mapped path)."""
        return None if self._source is None else self._source.bytes_read

    # -- lifecycle -------------------------------------------------------------------------

    def _check_unchanged(self):
        """Raise if the file shrank since it was mapped. Touching a mapped page past the new end
        of file kills the process (SIGBUS), so every operation checks first. Another process
        truncating the file while an operation is already running is not caught: a file must
        not be truncated in place while a reader has it open (this library's writer never does:
        overwrite=True replaces the file by a new one)."""
        if self._fd is None:  # a file object: its bytes are copied into our own mapping
            return
        size = os.fstat(self._fd).st_size
        if size < self._size:
            raise CorruptDataError(
                f"{self._path}: the file was truncated to {size} bytes while the reader had it "
                f"open ({self._size} bytes when opened); open it again"
            )

    def _release(self):
        """Unmap the file; only when no operation runs on it (see _Lifetime)."""
        if self._fv is not None:
            self._fv.release()
            self._fv = None
        self._buf = b""
        if self._mm is not None:
            try:
                self._mm.close()
            except BufferError:
                # a memoryview of the mmap is still alive somewhere (e.g. held by a traceback):
                # the mapping stays valid for it and is unmapped when the mmap is collected
                pass
            self._mm = None
        fd, self._fd = getattr(self, "_fd", None), None
        if fd is not None:
            os.close(fd)
        source, self._source = getattr(self, "_source", None), None
        if source is not None:
            source.close()

    def close(self):
        """Close the reader (idempotent; any thread). Waits for decodes running in other threads;
        called by a thread in the middle of an operation of this reader it returns at once and
        the file is unmapped when that operation ends. Result sets of the reader raise
        ClosedError from then on."""
        self._close(wait=True)

    def _close(self, wait):
        life = getattr(self, "_life", None)
        if life is None:  # __init__ failed before anything was opened
            return
        release = life.close(wait)
        for rs in list(self._result_sets):
            rs._reader_closed()
        if release:
            self._release()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        # Never waits: nothing can be running (every operation holds a reference to the reader),
        # and at interpreter exit waiting could hang.
        try:
            self._close(wait=False)
        except Exception:
            pass

    def _check_open(self):
        if self._life.closed:
            raise ClosedError(f"{self._path}: the reader is closed")

    def _op(self):
        """``with self._op() as scratch:`` around every use of the file (see _Lifetime)."""
        return _Operation(self)

    # -- schema and devices ----------------------------------------------------------------

    def get_all_table_schemas(self):
        self._check_open()
        return dict(self._meta.schemas)

    def get_table_schema(self, table_name):
        self._check_open()
        return self._meta.schemas[self._table_key(table_name)]

    def _table_key(self, table_name):
        """The key of a table in the file: names are case-insensitive (the writers store them
        lower-cased), but a name listed by get_all_table_schemas() is found as listed."""
        schemas = self._meta.schemas
        if table_name in schemas:
            return table_name
        name = table_name.lower() if isinstance(table_name, str) else table_name
        if name in schemas:
            return name
        raise TableNotExistError(f"no table {table_name!r} in {self._path}")

    def get_tsfile_properties(self):
        """The file's properties (``dict[str, bytes | None]``), e.g. ``encryptLevel: b"0"``.
        CorruptDataError (a TsFileCorruptedError) when a key is not valid UTF-8: the file opens,
        as with the official reader, and only the properties are refused."""
        self._check_open()
        if self._meta.property_error is not None:
            raise CorruptDataError(str(self._meta.property_error))  # a fresh traceback per call
        return dict(self._meta.properties)

    def get_active_query_result(self):
        """The result sets of this reader that are not closed yet (a list; the official package
        returns them as a WeakSet)."""
        return list(self._result_sets)

    def _devices(self, key):
        """[(DeviceID, measurement-root range)] of one index root, in index order."""
        devs = self._devices_cache.get(key)
        if devs is None:
            root = self._meta.table_roots[key]
            devs = list(self._walker.devices(root))
            for d, (at, _end) in devs:
                # a device is looked up by its first segment (format notes 13.2): one under
                # another table's root could be listed but never found
                if not d.segments or d.segments[0] != key:
                    raise CorruptDataError(
                        f"{self._path}: device {d!r} in the index of {key!r} (node at file "
                        f"offset {root.at}; its series index at file offset {at}) does not "
                        "belong to that table"
                    )
            # (the walker checks that devices strictly increase, IndexWalker.devices)
            self._devices_cache[key] = devs
        return devs

    def get_all_devices(self):
        """Every device of the file: tables (and tree-model groups) in name order, devices in
        index order."""
        out = []
        with self._op():
            for key in sorted(self._meta.table_roots):
                out.extend(d for d, _ in self._devices(key))
        return out

    def _series(self, key, dev_range):
        """{measurement: TimeseriesMeta} of a device (cached)."""
        s = self._series_cache.get(dev_range)
        if s is None:
            s = {}
            for tsm in self._walker.series(dev_range):
                s.setdefault(tsm.measurement, tsm)
            self._series_cache[dev_range] = s
        return s

    def _device_index(self, dev_range):
        """The compiled compact index of a device's series (tsfile._format.devindex), cached;
        None when that fast path declines the device: then _series reads it (and raises if it
        is damaged). Planning only: no per-series object is made."""
        try:
            return self._index_cache[dev_range]
        except KeyError:
            pass
        start, end = dev_range
        d = read_device_index(self._buf, start, end, self._meta.meta_offset, self._meta.meta_start)
        self._index_cache[dev_range] = d
        return d

    def _time_statistics(self, key, dev_id, dev_range):
        """(count, start time, end time) of a device's time column, from the compact index when
        it takes the device, else from its TimeseriesMeta; CorruptDataError when it has none."""
        d = self._device_index(dev_range)
        got = None if d is None else d.time_statistics()
        if got is not None:
            return got
        time_meta = self._series(key, dev_range).get("")
        if time_meta is None:
            raise CorruptDataError(f"{self._path}: device {dev_id.path} has no time column")
        st = self._time_column_statistics(dev_id, time_meta)
        return st.count, st.start_time, st.end_time

    def _time_column_statistics(self, dev_id, tsm):
        """The statistics of a device's time column (its TimeseriesMeta ``tsm``), checked: a
        time column's chunks always hold rows (no writer stores an empty one), so a count of 0
        beside chunks is damage. Devices and files are skipped by that count (a query plan, a
        many-file read's pruning): it lost the device's rows silently, where the official
        reader reads them. (The compact index declines such a device, so this runs for it.)"""
        st = tsm.statistics
        if st.count == 0 and tsm.chunks:
            raise CorruptDataError(
                f"{self._path}: the time column of {dev_id.path} has {len(tsm.chunks)} "
                f"chunk(s), its series statistics count 0 timestamps (time series metadata at "
                f"file offset {tsm.at})"
            )
        return st

    def get_timeseries_names(self, device):
        """Measurements of a device (tree or table model), sorted; '' is an aligned time column."""
        with self._op():
            dev_id, rng = self._find_device(device)
            return [m for m in self._series(dev_id.table_name, rng) if m != ""]

    def _find_device(self, device):
        dev_id = device if isinstance(device, DeviceID) else tree_device_id(str(device))
        key = dev_id.segments[0]
        if key not in self._meta.table_roots:
            raise DeviceNotExistError(f"no device {device!r} in {self._path}")
        devs = self._devices(key)
        index = self._device_keys.get(key)
        if index is None:  # built once per root: rebuilding it made each lookup O(devices)
            # a dict, not a bisect: the index is in the C++ or the Java device order
            index = self._device_keys[key] = {d: i for i, (d, _) in enumerate(devs)}
        i = index.get(dev_id)
        if i is None:
            raise DeviceNotExistError(f"no device {device!r} in {self._path}")
        return devs[i]

    # -- planning --------------------------------------------------------------------------

    def _chunk(self, offset, max_pages=-1, stop_after=INT64_MAX):
        """The parsed chunk at ``offset`` (cached: blocks of one chunk group share it); see
        engine.read_chunk for ``max_pages`` / ``stop_after`` (parse only the pages needed)."""
        key = (offset, max_pages, stop_after)
        ch = self._chunks.get(key)
        if ch is None:
            if len(self._chunks) >= 512:
                self._chunks.clear()
            if self._source is not None:
                self._source.fetch_chunk(offset, self._meta.meta_offset)
            ch = engine.read_chunk(self._fv, offset, max_pages, stop_after)
            self._chunks[key] = ch
        return ch

    def _time_chunk_rows(self, chunk, stats_count, t1, t2):
        """Rows to allocate for a time chunk, never more than its pages' bytes can hold: for
        pages with statistics the counts of the pages overlapping [t1, t2] (each checked against
        its page size), else the chunk's statistics count checked against all its pages."""
        info = chunk.page_info()
        per_byte = _ROWS_PER_BYTE.get(chunk.encoding, _ROWS_PER_BYTE_OTHER)
        if info and all(p[3] for p in info):
            if chunk.complete and sum(p[4] for p in info) != stats_count:
                # query_table_by_row skips pages and chunk groups by these counts without
                # decoding them: a count that disagrees would shift every row after it
                raise CorruptDataError(
                    f"{self._path}: the pages of the time chunk at file offset {chunk.offset} "
                    f"count {sum(p[4] for p in info)} timestamps, its statistics {stats_count}"
                )
            wanted = 0
            for body, usize, csize, _has, count, start, end in info:
                if count > usize * per_byte or count > csize * _ROWS_PER_STORED_BYTE:
                    raise CorruptDataError(
                        f"{self._path}: page statistics count {count} is impossible for "
                        f"{usize} bytes at file offset {body}"
                    )
                if not (end < t1 or start > t2):
                    wanted += count
            return wanted
        usize = sum(p[1] for p in info)
        csize = sum(p[2] for p in info)
        if stats_count > usize * per_byte or stats_count > csize * _ROWS_PER_STORED_BYTE:
            raise CorruptDataError(
                f"{self._path}: time chunk statistics count {stats_count} is impossible for "
                f"{usize} bytes of pages at file offset {chunk.offset}"
            )
        return stats_count

    def _plan_aligned(self, dev_id, series, fields, t1, t2):
        """Chunk groups of one aligned device: time chunk + the value chunk of each field."""
        task = _DeviceTask(dev_id)
        tsm = series.get("")
        if tsm is None:
            at = min((m.at for m in series.values()), default=None)
            raise CorruptDataError(
                f"{self._path}: device {dev_id.path} has no time column (its series metadata "
                f"at file offset {at})"
            )
        found = [series.get(name) for name in fields]  # the fields' series (None: no series)
        task.types = [None if v is None else v.data_type for v in found]
        task.type_at = [None if v is None else v.at for v in found]
        task.names = [None if v is None else v.measurement for v in found]
        st = self._time_column_statistics(dev_id, tsm)
        if st.count == 0 or st.end_time < t1 or st.start_time > t2:
            return task
        tchunks = tsm.chunks
        if len(tchunks) > 1:  # (one time chunk, the common case: nothing to sum, sort or pair)
            tchunks = self._ordered_time_chunks(dev_id, tsm)
        offsets = [c.offset for c in tchunks]
        # value chunk -> the last time chunk before it in the file (format notes 5.4)
        owner = [[None] * len(fields) for _ in tchunks]
        for j, v in enumerate(found):
            if v is None:
                continue
            name = fields[j]
            for cm in v.chunks:
                i = bisect.bisect_left(offsets, cm.offset) - 1
                if i < 0 or offsets[i] == cm.offset:
                    raise CorruptDataError(
                        f"{self._path}: value chunk of {name!r} at file offset {cm.offset} "
                        "has no time chunk before it"
                    )
                if owner[i][j] is not None:
                    raise CorruptDataError(
                        f"{self._path}: two value chunks of {name!r} for the time chunk at "
                        f"file offset {offsets[i]}"
                    )
                tst, vst = tchunks[i].statistics, cm.statistics
                if vst.count and (
                    vst.count > tst.count
                    or vst.start_time < tst.start_time
                    or vst.end_time > tst.end_time
                ):
                    # the value chunk does not cover its time chunk's rows (format notes 5.4)
                    raise CorruptDataError(
                        f"{self._path}: value chunk of {name!r} at file offset {cm.offset} holds "
                        f"{vst.count} values at times {vst.start_time}..{vst.end_time}, not "
                        f"within the {tst.count} rows at times {tst.start_time}.."
                        f"{tst.end_time} of its time chunk at file offset {offsets[i]}"
                    )
                owner[i][j] = cm.offset
        groups = [
            (tc.offset, tc.statistics.count, tc.statistics.start_time, tc.statistics.end_time, v)
            for tc, v in zip(tchunks, owner, strict=False)
        ]
        self._add_groups(task, groups, t1, t2)
        return task

    def _add_groups(self, task, groups, t1, t2):
        """Append to ``task`` the chunk groups of ``groups`` (time chunk offset, its statistics
        count, start and end time, value chunk offsets) that meet [t1, t2], their time chunks
        parsed and row capacities checked."""
        for offset, count, start, end, vals in groups:
            if count == 0 or end < t1 or start > t2:
                continue
            self._touch_group(offset, vals)
            chunk = self._chunk(offset, -1, t2)
            inside = t1 <= start and end <= t2
            task.groups.append(
                _Group(chunk, self._time_chunk_rows(chunk, count, t1, t2), vals, inside)
            )

    def _plan_compact(self, dev_id, rng, fields, t1, t2):
        """_plan_aligned from the device's compact index (tsfile._format.devindex: the value
        chunks paired with their time chunks in C, no per-series object), or None when that
        fast path declines the device (then _plan_aligned plans it, and raises if it must)."""
        d = self._device_index(rng)
        planned = None if d is None else d.plan(fields, t1, t2)
        if planned is None:
            return None
        types, type_at, names, groups = planned
        task = _DeviceTask(dev_id, [], (), types, type_at, names)
        self._add_groups(task, groups, t1, t2)
        return task

    def _ordered_time_chunks(self, dev_id, tsm):
        """The time chunks of a device with several, in file order, checked: their counts add
        up to the series statistics' and no two share an offset."""
        st = tsm.statistics
        counted = sum(c.statistics.count for c in tsm.chunks)
        if counted != st.count:
            # query_table_by_row skips chunk groups by these counts without decoding them: a
            # count that disagrees would shift every row after it
            raise CorruptDataError(
                f"{self._path}: the time chunks of {dev_id.path} count {counted} timestamps, "
                f"their series statistics {st.count} (time series metadata at file offset "
                f"{tsm.at})"
            )
        tchunks = sorted(tsm.chunks, key=lambda c: c.offset)
        for a, b in zip(tchunks, tchunks[1:], strict=False):
            if a.offset == b.offset:
                raise CorruptDataError(
                    f"{self._path}: two time chunks at file offset {a.offset} for {dev_id.path}"
                )
        return tchunks

    def _touch_group(self, time_offset, value_offsets):
        """Map the file pages of a chunk group's chunk headers without the GIL
        (engine.touch_offsets): the headers parsed next, under the GIL, would otherwise take the
        page faults of a first read of the mapped file while the other threads of a many-file
        read wait. Not for a file-like source: its buffer holds only the ranges fetched."""
        if self._source is None:
            engine.touch_offsets(self._fv, [time_offset, *value_offsets])

    def _plan_table(
        self, table_name, column_names, t1, t2, keep_device=None, prune=None, on_task=None
    ):
        """Plan a table query. ``keep_device(tag values) -> bool`` (a tag filter) is decided
        before a device's series metadata is read; ``prune(task, series, fields)`` (a value
        filter) returns the chunk groups of a planned device that may hold matching rows.
        ``on_task(task, (names, types, fields, tags), devices, seen)``: called with each
        device's task as soon as it is planned (``devices``: the table's devices in the index,
        ``seen``: those looked at so far, this one included, kept by the tag filter or not), so
        that its decoding can start while the next are planned (_read_columns_ahead)."""
        schema = self.get_table_schema(table_name)
        key = self._table_key(table_name)
        cols = schema.columns
        by_name = {c.column_name: c for c in cols}
        tag_cols = [c.column_name for c in cols if c.category == ColumnCategory.TAG]
        if column_names is None:
            req = [c.column_name for c in cols if c.category != ColumnCategory.TIME]
        else:
            req = []
            for n in column_names:
                ln = n.lower() if isinstance(n, str) and n not in by_name else n
                if ln not in by_name:
                    raise ColumnNotExistError(f"no column {n!r} in table {table_name!r}")
                if by_name[ln].category == ColumnCategory.TIME:
                    continue
                req.append(ln)
        if "time" in req:
            # Results are keyed by name and their first column is "time": a TAG/FIELD column of
            # that name (IoTDB reserves it; the official writer accepts it, and its reader then
            # returns wrong rows) cannot be told apart from the timestamps.
            raise UnsupportedError(
                f"{self._path}: table {table_name!r} has a {by_name['time'].category.name} "
                "column named 'time', the name of the timestamps in every result; query the "
                "table's other columns by name"
            )
        # ATTRIBUTE columns (IoTDB's; TsFile stores no chunks for them) are planned as fields
        # without chunks: all-null columns of their declared type, as the official reader
        # returns them, even where a series of that name exists.
        attributes = {n for n in req if by_name[n].category == ColumnCategory.ATTRIBUTE}
        fields = [n for n in req if by_name[n].category == ColumnCategory.FIELD or n in attributes]
        tags = {n: tag_cols.index(n) for n in req if by_name[n].category == ColumnCategory.TAG}
        tasks = []
        names = ["time", *req]
        types = [TSDataType.INT64] + [by_name[n].data_type for n in req]
        if key not in self._meta.table_roots and isinstance(key, str):
            key = key.lower()  # a schema name stored with capitals over a lower-case index root
        if key in self._meta.table_roots:
            devices = self._devices(key)
            for seen, (dev_id, rng) in enumerate(devices, 1):
                tag_values = dev_id.tag_values(len(tag_cols))
                if keep_device is not None and not keep_device(tag_values):
                    continue
                task = None
                if prune is None and not attributes:  # (both need the series' objects)
                    task = self._plan_compact(dev_id, rng, fields, t1, t2)
                if task is None:
                    series = self._series(key, rng)
                    if attributes:
                        series = {m: v for m, v in series.items() if m not in attributes}
                    task = self._plan_aligned(dev_id, series, fields, t1, t2)
                task.tags = tag_values
                if prune is not None:
                    task.groups = prune(task, series, fields)
                tasks.append(task)
                if on_task is not None:
                    on_task(task, (names, types, fields, tags), len(devices), seen)
        return names, types, fields, tags, tasks

    # -- decoding --------------------------------------------------------------------------

    def _decode_device(
        self, task, fields, out_ts, out_vals, out_nulls, pos, t1, t2, pcode, counts=None
    ):
        """Decode every chunk group of an aligned device at ``pos``; returns rows written.
        ``counts`` (a list per field) accumulates the nulls written. One operation per chunk
        group: close() from another thread waits for one group at most."""
        start = pos
        for g in task.groups:
            with self._op() as s:
                pos += self._decode_group(
                    task, g, fields, out_ts, out_vals, out_nulls, pos, t1, t2, pcode, counts, s
                )
        return pos - start

    def _decode_group(
        self, task, g, fields, out_ts, out_vals, out_nulls, pos, t1, t2, pcode, counts, s
    ):
        """Decode one chunk group at ``pos`` with scratch ``s``; returns its rows."""
        rows, plan = self._decode_times(g, out_ts, pos, t1, t2, pcode, s)
        got = self._decode_fields(task, g, plan, rows, out_vals, out_nulls, pos, pcode, s)
        if counts is not None:
            for j, nn in enumerate(got):
                counts[j] += nn
        return rows

    def _decode_times(self, g, out_ts, pos, t1, t2, pcode, s):
        """The time chunk of group ``g`` at ``pos``: (rows, plan). The plan (engine.plan_pages:
        which pages, which of their rows, where they go) is what the value chunks follow."""
        plan = engine.plan_pages(g.time_chunk, t1, t2, g.page_lo, g.page_hi)
        return engine.read_time_chunk(
            self._fv, g.time_chunk, t1, t2, pcode, out_ts, pos, s, g.inside, plan=plan
        )

    def _decode_times_many(self, groups, out_ts, starts, t1, t2, pcode, s):
        """_decode_times over several chunk groups (a decode job's), group k at ``starts[k]``
        with room for its ``rows``, in one engine call (engine.read_time_chunks: the GIL handed
        over once, not once per group); [(rows, plan)] per group."""
        return self._time_batch(groups, out_ts, starts, t1, t2, pcode).run(s)

    def _time_batch(self, groups, out_ts, starts, t1, t2, pcode):
        """_decode_times_many prepared (engine.prepare_time_chunks): its run(scratch), inside
        an operation of this reader, decodes it, on any thread."""
        return engine.prepare_time_chunks(
            self._fv,
            [g.time_chunk for g in groups],
            t1,
            t2,
            pcode,
            out_ts,
            starts,
            [g.rows for g in groups],
            [g.inside for g in groups],
            [g.page_lo for g in groups],
            [g.page_hi for g in groups],
        )

    def _decode_fields(self, task, g, plan, rows, out_vals, out_nulls, pos, pcode, s):
        """Every field column of group ``g`` into its arrays ``out_vals[j]`` / ``out_nulls[j]``
        at ``pos``, following the time chunk's ``plan`` (``rows`` rows), in one engine call
        (engine.read_value_chunks: the GIL handed over once per chunk group, not per column);
        returns each column's null rows."""
        counts, present = _present_fields(g, rows, out_vals, out_nulls, pos)
        if not present:
            return counts
        offsets = [g.values[j] for j in present]
        tch = g.time_chunk
        # a group split into blocks (runs of pages, _split_group) is decoded once per block:
        # its value chunks are parsed and checked at the first block only (reparsing every
        # page header of every column per block made a batched read quadratic in pages)
        key = (tch.offset, tch.n_pages, tch.complete, *offsets) if g.page_hi >= 0 else None
        checked = None if key is None else self._value_chunks.get(key)
        fresh = checked is None
        if fresh:
            checked = []
            if self._source is not None:  # a file-like or remote source: fetch the bytes
                for off in offsets:
                    self._source.fetch_chunk(off, self._meta.meta_offset)
        got = engine.read_value_chunks(
            self._fv,
            g.time_chunk,
            plan,
            offsets,
            [task.types[j] for j in present],
            pcode,
            [out_vals[j] for j in present],
            [out_nulls[j] for j in present],
            pos,
            s,
            checked,
            [task.names[j] for j in present] if task.names else None,
        )
        if fresh and key is not None:  # stored filled (never changed afterwards)
            if len(self._value_chunks) >= 64:
                self._value_chunks.clear()
            self._value_chunks[key] = checked
        for j, nn in zip(present, got, strict=True):
            counts[j] = nn
        return counts

    def _decode_fields_many(self, items, out_vals, out_nulls, pcode, s):
        """_decode_fields over several chunk groups (a field job's: (task, group, plan, rows,
        pos) each), the value chunks of every group not split into blocks in ONE engine call
        (engine.read_value_groups: the GIL handed over once for all of them, not once per
        group); per group, each field column's null rows."""
        out = []
        batch, where = [], []

        def decode_batch():  # the groups gathered so far, before any later group is decoded
            if batch:
                got = engine.read_value_groups(self._fv, batch, pcode, s)
                for (counts, present), nulls in zip(where, got, strict=True):
                    for j, nn in zip(present, nulls, strict=True):
                        counts[j] = nn
                batch.clear()
                where.clear()

        for task, g, plan, rows, pos in items:
            if g.page_hi >= 0:  # a block of a split group: its chunks' checks are kept per group
                # groups decode in file order, so the first corrupt chunk met is the first
                # in the file, as group by group
                decode_batch()
                out.append(
                    self._decode_fields(task, g, plan, rows, out_vals, out_nulls, pos, pcode, s)
                )
                continue
            counts, present = _present_fields(g, rows, out_vals, out_nulls, pos)
            out.append(counts)
            if not present:
                continue
            offsets = [g.values[j] for j in present]
            if self._source is not None:  # a file-like or remote source: fetch the bytes
                for off in offsets:
                    self._source.fetch_chunk(off, self._meta.meta_offset)
            batch.append(
                (
                    g.time_chunk,
                    plan,
                    offsets,
                    [task.types[j] for j in present],
                    [out_vals[j] for j in present],
                    [out_nulls[j] for j in present],
                    pos,
                    [task.names[j] for j in present] if task.names else None,
                )
            )
            where.append((counts, present))
        decode_batch()
        return out

    def _decode_field(self, task, g, j, plan, rows, vals, nulls, pos, pcode, s):
        """Field column ``j`` of group ``g`` into ``vals`` / ``nulls`` (that column's arrays) at
        ``pos``, following the time chunk's ``plan`` (``rows`` rows); returns its null rows."""
        fv = self._fv
        off = g.values[j]
        if off is None:
            return _null_rows(vals, nulls, pos, rows)
        vch = self._chunk(off, -1 if g.time_chunk.complete else len(plan))
        key = (g.time_chunk.offset, off, vch.n_pages, g.time_chunk.n_pages)
        if key not in self._pages_checked:
            # before any row of the chunk group is served (blocks split groups)
            engine.check_aligned_pages(fv, g.time_chunk, vch)
            if len(self._pages_checked) >= 4096:
                self._pages_checked.clear()
            self._pages_checked.add(key)
        name = task.names[j] if task.names else None
        return engine.read_value_chunk(
            fv, vch, plan, task.types[j], pcode, vals, nulls, pos, s, name
        )

    @staticmethod
    def _split_group(g, t1, t2, block_rows):
        """Split a chunk group whose pages carry statistics into runs of pages of at most
        ``block_rows`` wanted rows (a run holds at least one page)."""
        info = g.time_chunk.page_info()
        if len(info) <= 1 or not all(p[3] for p in info) or g.rows <= block_rows:
            return [g]
        hi = len(info) if g.page_hi < 0 else g.page_hi
        out, lo, acc = [], g.page_lo, 0
        for i in range(g.page_lo, hi):  # a row offset may have dropped the first pages
            p = info[i]
            n = 0 if (p[6] < t1 or p[5] > t2) else p[4]
            if acc and acc + n > block_rows:
                out.append(_Group(g.time_chunk, acc, g.values, g.inside, lo, i))
                lo, acc = i, 0
            acc += n
        out.append(_Group(g.time_chunk, acc, g.values, g.inside, lo, hi))
        return [x for x in out if x.rows > 0]

    def _check_types(self, task, fields, field_types):
        if task.types == field_types:  # every field has a series of the schema's type
            return
        for j, t in enumerate(task.types):
            if t is not None and t != field_types[j]:
                raise CorruptDataError(
                    f"{self._path}: column {fields[j]!r} of {task.device.path} has type "
                    f"{TSDataType(t).name} (timeseries metadata at file offset "
                    f"{task.type_at[j]}), the table schema says {TSDataType(field_types[j]).name}"
                )

    def _block_groups(self, fields, field_types, tags, tasks, t1, t2, block_rows):
        """The blocks a table query hands out, in order: (device task, chunk group split to
        runs of pages of at most ``block_rows`` rows, the device's tag columns)."""
        for task in tasks:
            self._check_types(task, fields, field_types)
            groups = [x for g in task.groups for x in self._split_group(g, t1, t2, block_rows)]
            if not groups:
                continue
            tag_cols = _TagColumns(tags, task.tags, max(g.rows for g in groups))
            for g in groups:
                yield task, g, tag_cols

    def _table_blocks(self, names, types, fields, tags, tasks, t1, t2, pcode, block_rows):
        field_types, dtypes, numeric = _block_types(names, types, fields)
        pool = _POOL
        fi = {f: j for j, f in enumerate(fields)}
        for task, g, tag_cols in self._block_groups(
            fields, field_types, tags, tasks, t1, t2, block_rows
        ):
            cap = g.rows
            bufs = pool.take(cap, dtypes, numeric)
            ts, vals, nulls, dirty = bufs.ts, bufs.vals, bufs.nulls, bufs.dirty
            counts = [0] * len(fields)
            sub = _DeviceTask(task.device, [g], task.tags, task.types, names=task.names)
            n = self._decode_device(sub, fields, ts, vals, nulls, 0, t1, t2, pcode, counts)
            if n == 0:
                pool.give(bufs)
                continue
            columns, nullmap = {}, {}
            for name in names[1:]:
                j = fi.get(name)
                if j is not None:
                    columns[name] = vals[j][:n]
                    if counts[j]:
                        nullmap[name] = nulls[j][:n]
                        dirty[j] = True
                else:
                    columns[name], m = tag_cols.get(name, n)
                    if m is not None:
                        nullmap[name] = m
            origins = {f: g.values[j] for j, f in enumerate(fields)}
            block = TsBlock(ts[:n], columns, nullmap, types, origins)
            # Only now: the block's views keep its arrays from being reused (the pool checks
            # reference counts), and ``dirty`` is set; given back earlier, another thread's
            # query could take these arrays before the views exist.
            pool.give(bufs)
            yield block

    def _query_blocks(self, q, pcode, path, block_rows):
        """The blocks of planned table query ``q``: with a value filter, late-materialised
        (_late_blocks) unless _LATE_QUERIES is off (then decoded whole and masked, the
        baseline the filter benchmark times against)."""
        if q.bound is not None and _LATE_QUERIES:
            return self._late_blocks(q, pcode, path, block_rows)
        blocks = self._table_blocks(
            q.names, q.types, q.fields, q.tags, q.tasks, q.t1, q.t2, pcode, block_rows
        )
        return q.filter_blocks(blocks, path)

    def _late_blocks(self, q, pcode, path, block_rows):
        """The blocks of table query ``q`` (with a value filter) materialised late: per block
        (a chunk group split as _table_blocks splits it), the timestamps and the columns the
        filter reads are decoded first and the selection computed on them; a block that
        selects nothing is dropped without decoding anything else, and the other columns are
        decoded only over the page rows holding a selected row (tsfile._read.late). The same
        blocks, in the same order, as _table_blocks masked by _Plan.filter_blocks."""
        fields = q.fields
        field_types, dtypes, numeric = _block_types(q.names, q.types, fields)
        wanted = set(predicate.columns_of(q.bound))
        first = [j for j, f in enumerate(fields) if f in wanted]
        later = [j for j, f in enumerate(fields) if f not in wanted]
        for task, g, tag_cols in self._block_groups(
            fields, field_types, q.tags, q.tasks, q.t1, q.t2, block_rows
        ):
            bufs = _POOL.take(g.rows, dtypes, numeric)
            with self._op() as s:  # one operation per chunk group, as _decode_device
                got = self._late_decode(q, task, g, bufs, (first, later), pcode, path, s)
            if got is None:
                _POOL.give(bufs)
                continue
            block = _selected_block(q, g, tag_cols, bufs, *got)
            _POOL.give(bufs)  # after the block exists: see _table_blocks
            yield block

    def _late_decode(self, q, task, g, bufs, order, pcode, path, s):
        """Chunk group ``g`` of query ``q`` decoded into ``bufs`` (row 0 on) filter columns
        first: ``order`` = (field indices the filter reads, the others). Returns (rows, the
        selected rows, null rows per field), or None when no row is selected. The rows of
        the other columns outside the page runs of a selected row are left stale."""
        first, later = order
        n, plan = self._decode_times(g, bufs.ts, 0, q.t1, q.t2, pcode, s)
        if n == 0:
            return None
        counts = [0] * len(q.fields)
        for j in first:
            self._late_field(task, g, j, [plan], n, bufs, counts, pcode, s)
        inputs = {predicate.TIME: (bufs.ts[:n], None)}
        for j in first:
            inputs[q.fields[j]] = (bufs.vals[j][:n], bufs.nulls[j][:n] if counts[j] else None)
        keep = predicate.evaluate(q.bound, inputs, path)
        picked = np.flatnonzero(keep)
        if not len(picked):
            return None
        plans = {}  # late.selected_plans' cache: the columns of the group share their plans
        whole = len(picked) == n or n * len(later) < _RUNS_MIN_VALUES
        for j in later:
            if whole:
                chosen = [plan]
            else:
                runs = late.runs_a_page(self, g, j, plan)
                chosen = late.selected_plans(plan, keep, runs, plans)
            self._late_field(task, g, j, chosen, n, bufs, counts, pcode, s)
        return n, picked, counts

    def _late_field(self, task, g, j, plans, n, bufs, counts, pcode, s):
        """Field column ``j`` of group ``g`` decoded into ``bufs`` over each of ``plans``; its
        null rows added to ``counts[j]`` (and the buffer marked for clearing when given back)."""
        for plan in plans:
            counts[j] += self._decode_field(
                task, g, j, plan, n, bufs.vals[j], bufs.nulls[j], 0, pcode, s
            )
        if counts[j]:
            bufs.dirty[j] = True

    # -- filters ---------------------------------------------------------------------------

    def _filtered_plan(
        self, table_name, column_names, t1, t2, tag_filter, value_filter, on_task=None
    ):
        """Plan a table query with its filters, all checked before any data is read: the tag
        filter picks devices from the index, the value filter narrows the time range, adds the
        columns it reads and drops the chunk groups whose statistics cannot match.
        ``on_task``: see _plan_table."""
        schema = self.get_table_schema(table_name)
        keep_device = None
        if tag_filter is not None:
            tag_names = [c.column_name for c in schema.get_tag_columns()]
            keep_device = compile_tag_filter(tag_filter, tag_names, table_name)
        bound = prune = None
        extra = []
        if value_filter is not None:
            bound = predicate.bind(value_filter, schema, table_name)
            lo, hi = predicate.time_range(bound)
            t1, t2 = max(t1, lo), min(t2, hi)
            prune = self._value_pruner(bound, t1, t2)
            if column_names is not None:
                by_name = {c.column_name for c in schema.columns}
                asked = {
                    n if n in by_name or not isinstance(n, str) else n.lower() for n in column_names
                }
                extra = [
                    c for c in predicate.columns_of(bound) if c != predicate.TIME and c not in asked
                ]
        query = column_names if not extra else [*column_names, *extra]
        names, types, fields, tags, tasks = self._plan_table(
            table_name, query, t1, t2, keep_device, prune, on_task
        )
        return _Plan(names, types, fields, tags, tasks, t1, t2, bound, len(names) - len(extra))

    def _value_pruner(self, bound, t1, t2):
        """prune(task, series, fields) for _plan_table: the chunk groups whose chunk statistics
        (value min/max, time range) leave a row that may match ``bound``, each cut to the runs
        of its pages whose page statistics do (_matching_pages)."""
        wanted = predicate.columns_of(bound)

        def prune(task, series, fields):
            chunk_stats = {}
            keep = []
            for g in task.groups:
                offsets = {f: g.values[j] for j, f in enumerate(fields)}
                stats = predicate.chunk_group_stats(
                    wanted, g.time_chunk.offset, offsets, series, chunk_stats
                )
                if predicate.may_match(bound, stats):
                    filtered = {f: offsets[f] for f in wanted if f in offsets}
                    keep += self._matching_pages(g, bound, filtered, t1, t2)
            return keep

        return prune

    def _matching_pages(self, g, bound, offsets, t1, t2):
        """Chunk group ``g`` as runs of consecutive pages (page_lo/page_hi groups) that may hold
        a row matching ``bound`` by their page statistics (time range; min/max of the filtered
        fields ``offsets``: name -> value chunk offset or None): pages that cannot match are
        never decompressed. ``g`` itself when its pages carry no statistics."""
        info = g.time_chunk.page_info()
        if len(info) <= 1 or not all(p[3] for p in info):
            return [g]
        max_pages = -1 if g.time_chunk.complete else len(info)
        ranges = {}
        for name, off in offsets.items():
            chunk = None if off is None else self._chunk(off, max_pages)
            ranges[name] = None if chunk is None else engine.page_value_ranges(self._fv, chunk)
        may = predicate.pages_may_match(bound, info, ranges)
        runs, k = [], 0
        while k < len(info):
            if not may[k]:
                k += 1
                continue
            lo, rows = k, 0
            while k < len(info) and may[k]:
                p = info[k]
                rows += 0 if (p[6] < t1 or p[5] > t2) else p[4]
                k += 1
            if rows:
                runs.append(_Group(g.time_chunk, rows, g.values, g.inside, lo, k))
        if len(runs) == 1 and runs[0].page_lo == 0 and runs[0].page_hi == len(info):
            return [g]  # every page may match: the group as planned
        return runs

    # -- public queries --------------------------------------------------------------------

    def query_table(
        self,
        table_name,
        column_names,
        start_time=None,
        end_time=None,
        path="auto",
        batch_size=DEFAULT_BLOCK_ROWS,
        tag_filter=None,
        value_filter=None,
    ):
        """Rows of a table-model table: column 1 is ``time``, then ``column_names`` in order
        (None: every column of the table).

        Devices in index order, time order within a device. ``path`` picks the decode path of
        every codec ("per_value", "batch", "simd": SIMD where a codec has it, "auto").
        ``batch_size``: rows per block of get_next_tsblock (blocks are whole pages of one chunk
        group, so a block can exceed it by less than a page; 0 = whole chunk groups).
        ``tag_filter``: a tsfile.TagFilter (tag_eq(...) & ...), decided per device from the
        index. ``value_filter``: tsfile.col(...) predicates or pyarrow's list-of-tuples form
        (tsfile._read.predicate)."""
        self._check_open()
        pcode = _path_code(path)
        t1, t2 = _time_bounds(start_time, end_time)
        block_rows = int(batch_size) if batch_size and batch_size > 0 else 2**62
        with self._op():
            q = self._filtered_plan(table_name, column_names, t1, t2, tag_filter, value_filter)
            blocks = self._query_blocks(q, pcode, path, block_rows)
            rs = self._result_set(blocks, q.out_names, q.out_types)
            if batch_size and batch_size > 0:
                rs._set_batch_rows(block_rows)  # blocks of at most batch_size rows, as official
            return rs

    def query_table_by_row(
        self,
        table_name,
        column_names,
        offset=0,
        limit=-1,
        tag_filter=None,
        batch_size=0,
        path="auto",
        value_filter=None,
    ):
        """The official query by row: rows ``offset`` .. ``offset + limit`` of the table query
        (devices in index order, time order within a device; the offset counts rows across
        devices). A negative offset is 0, a negative limit means no limit.

        Without a value filter, the chunk groups and pages before ``offset`` are skipped by
        their statistics counts, never decoded, and nothing after the last row is decoded.
        With one, the offset counts matching rows."""
        self._check_open()
        pcode = _path_code(path)
        offset, limit = _row_window(offset, limit)
        block_rows = int(batch_size) if batch_size and batch_size > 0 else 2**62
        with self._op():
            q = self._filtered_plan(
                table_name, column_names, INT64_MIN, INT64_MAX, tag_filter, value_filter
            )
            skip = offset
            if q.bound is None:
                skip = _skip_rows(q.tasks, offset, limit)
            blocks = _window_blocks(self._query_blocks(q, pcode, path, block_rows), skip, limit)
            rs = self._result_set(blocks, q.out_names, q.out_types)
            if batch_size and batch_size > 0:
                rs._set_batch_rows(block_rows)  # blocks of at most batch_size rows, as official
            return rs

    def _result_set(self, blocks, names, types):
        """A ResultSet of this reader (inside an operation: close() then sees it registered)."""
        rs = ResultSet(blocks, names, types, self._result_sets.discard)
        self._result_sets.add(rs)
        return rs

    def read_columns(
        self,
        table_name,
        column_names=None,
        start_time=None,
        end_time=None,
        path="auto",
        tag_filter=None,
        value_filter=None,
        threads=1,
    ):
        """Decode a whole table query into one set of arrays (no per-block copies).

        ``threads``: decode chunk groups and columns on that many threads (the result is the
        same for any number). Returns (names, types, timestamps, {name: values}, {name: null
        mask}) with masks only for columns that have nulls. Filters as in query_table."""
        threads = _thread_count(threads)
        if threads > 1 and value_filter is None:
            got, q = self._read_columns_ahead(
                table_name, column_names, start_time, end_time, path, tag_filter, threads
            )
        else:
            read = self._plan_columns(
                table_name, column_names, start_time, end_time, path, tag_filter, value_filter
            )
            with columns_mod.JobPool(threads) as pool:
                got = columns_mod.read_into_one([read], pool)
            q = read.query
        columns = {n: got.values[n] for n in q.out_names[1:]}
        nulls = {n: got.nulls[n] for n in q.out_names[1:] if n in got.nulls}
        return q.out_names, q.out_types, got.ts, columns, nulls

    def _read_columns_ahead(
        self, table_name, column_names, start_time, end_time, path, tag_filter, threads
    ):
        """read_columns on ``threads`` > 1 threads without a value filter: the devices are
        planned one after another on this thread and handed, in portions of about
        _PORTION_ROWS rows, to a helper that decodes their chunk groups (time and field
        columns) meanwhile (tsfile._read.ahead, as for many files); the planning was a thirteenth
        of a one-thread read with the second core idle. The portions are reads of one
        allocation, in device order: the result is read_columns' with one thread.
        Returns (Columns, the planned query)."""
        self._check_open()
        pcode = _path_code(path)
        t1, t2 = _time_bounds(start_time, end_time)
        with columns_mod.JobPool(threads) as pool:
            portions = _Portions(self, pcode, path, t1, t2, TimesAhead(pool, None, 1))
            try:
                with self._op():  # the last portion too: its offer reads chunk headers
                    q = self._filtered_plan(
                        table_name, column_names, t1, t2, tag_filter, None, portions.add
                    )
                    portions.finish()
                portions.ahead.finish()
            finally:
                portions.ahead.stop()  # whatever ended the planning (see Scanner._read_batch)
            reads = portions.reads or [columns_mod.ColumnRead(self, q, pcode, path)]
            return columns_mod.read_into_one(reads, pool, None, portions.ahead), q

    def _plan_columns(
        self, table_name, column_names, start_time, end_time, path, tag_filter, value_filter
    ):
        """The plan step of read_columns (tsfile._read.columns): the query planned from the
        metadata, its chunk groups and their row capacities, as a ColumnRead; nothing decoded.
        Many files' ColumnReads decode into one allocation (tsfile._dataset.scan)."""
        self._check_open()
        pcode = _path_code(path)
        t1, t2 = _time_bounds(start_time, end_time)
        with self._op():
            q = self._filtered_plan(table_name, column_names, t1, t2, tag_filter, value_filter)
        read = columns_mod.ColumnRead(self, q, pcode, path)
        for task in q.tasks:
            self._check_types(task, q.fields, read.field_types)
        return read

    def query_timeseries(
        self, device_name, sensor_list, start_time=None, end_time=None, path="auto"
    ):
        """Tree model: the series ``sensor_list`` of one device, outer-joined on time.

        Columns: ``time``, then ``<device>.<sensor>``. (The official package's default range
        0..0 returns nothing; here None means unbounded.)"""
        self._check_open()
        pcode = _path_code(path)
        t1, t2 = _time_bounds(start_time, end_time)
        with self._op():
            dev_id, rng = self._find_device(device_name)
            series = self._series(dev_id.segments[0], rng)
            sensors = list(sensor_list)
            for s_ in sensors:
                if not _holds(series, s_):
                    raise ColumnNotExistError(f"no series {s_!r} in device {dev_id.path}")
            return self._series_result(dev_id, series, sensors, t1, t2, pcode)

    def _series_result(self, dev_id, series, sensors, t1, t2, pcode):
        """The result set of query_timeseries over ``sensors``, series the device holds (its
        ``series``), inside the caller's operation."""
        names = ["time"] + [f"{dev_id.path}.{s_}" for s_ in sensors]
        types = [TSDataType.INT64] + [TSDataType(series[s_].data_type) for s_ in sensors]
        blocks = self._tree_blocks(dev_id, series, sensors, names, types, t1, t2, pcode)
        return self._result_set(blocks, names, types)

    def query_tree_by_row(self, device_ids, measurement_names, offset=0, limit=-1, path="auto"):
        """The official tree-model query by row: the series ``<device>.<measurement>`` of every
        device (outer loop) and measurement (inner loop), outer-joined on time, and of those rows
        ``offset`` .. ``offset + limit`` (a negative offset is 0, a negative limit no limit).

        As the official 2.5 reader does, only the pairs the file holds are columns: devices
        have different measurements, and a device or measurement the file lacks gives no column
        (none at all: a result of the time column only, without rows). The series are decoded
        whole, then joined."""
        self._check_open()
        pcode = _path_code(path)
        t1, t2 = _time_bounds(None, None)
        offset, limit = _row_window(offset, limit)
        devices = [str(d) for d in device_ids]
        measurements = [str(m) for m in measurement_names]
        parts = []  # per device: (names, types, timestamps, columns, nulls)
        for device in devices:
            with self._op():
                try:
                    dev_id, rng = self._find_device(device)
                except DeviceNotExistError:
                    continue
                series = self._series(dev_id.segments[0], rng)
                held = [m for m in measurements if _holds(series, m)]
                if not held:
                    continue
                rs = self._series_result(dev_id, series, held, t1, t2, pcode)
            with rs:
                parts.append(_collect_blocks(rs))
        names = ["time"] + [n for p in parts for n in p[0][1:]]
        types = [TSDataType.INT64] + [t for p in parts for t in p[1][1:]]
        with self._op():
            block = _outer_join(parts, names, types, offset, limit)
            return self._result_set(iter(() if block is None else (block,)), names, types)

    # -- tree model: schemas, statistics, the tree as a table ---------------------------------

    def _tree_devices(self):
        """[(DeviceID, series range)] of the tree-model devices (those under an index root that
        is not a table), roots in name order, devices in index order."""
        out = []
        for key in sorted(self._meta.table_roots):
            if key not in self._meta.schemas:
                out.extend(self._devices(key))
        return out

    def get_all_timeseries_schemas(self):
        """{device path: DeviceSchema} of every device, tree-model and table-model ("tab.d1";
        a null tag is "null"), as the official 2.5 reader lists them (roots in name order,
        devices in index order): its series in name order with the data type, encoding and
        compression of their first chunk (the file keeps no series schema beside the chunks)."""
        from tsfile.schema import DeviceSchema, TimeseriesSchema

        out = {}
        with self._op():
            devices = [d for key in sorted(self._meta.table_roots) for d in self._devices(key)]
            for dev, rng in devices:
                series = self._series(dev.segments[0], rng)
                schemas = []
                for name in sorted(series, key=lambda s: s.encode("utf-8")):
                    if name == "":
                        continue
                    tsm = series[name]
                    encoding, compression = self._first_chunk_codings(tsm)
                    schemas.append(TimeseriesSchema(name, tsm.data_type, encoding, compression))
                out[dev.path] = DeviceSchema(dev.path, schemas)
        return out

    def _first_chunk_codings(self, tsm):
        """(encoding, compression) of a series' first chunk (PLAIN, UNCOMPRESSED if none)."""
        if not tsm.chunks:
            return 0, 0
        ch = self._chunk(min(c.offset for c in tsm.chunks), 0)
        return ch.encoding, ch.compression

    def get_timeseries_metadata(self, device_ids=None):
        """{device segments: DeviceTimeseriesMetadataGroup} with every series' statistics
        (tsfile.tree: count, start/end time and min/max/first/last/sum by type) of the devices
        ``device_ids`` (tree paths, DeviceIDs or segment tuples; None: every device, tables
        included). A device the file does not have is DeviceNotExistError."""
        from tsfile.tree import metadata_group

        with self._op():
            if device_ids is None:
                found = [d for key in sorted(self._meta.table_roots) for d in self._devices(key)]
            else:
                if not isinstance(device_ids, (list, set, frozenset)):
                    device_ids = [device_ids]  # one device: a path, DeviceID or segments
                found = [self._find_device(_as_device(d)) for d in device_ids]
            return {
                dev.segments: metadata_group(
                    dev, self._series(dev.segments[0], rng), self._record_length
                )
                for dev, rng in found
            }

    def _record_length(self, tsm):
        """The size in bytes of a TimeseriesMetadata record (parsed again from its offset)."""
        cur = Cursor(self._buf, tsm.at, self._meta.meta_start, self._path)
        read_timeseries_metadata(cur)
        return cur.pos - tsm.at

    def query_table_on_tree(self, column_names=None, start_time=None, end_time=None):
        """Tree model read as one table: ``time``, ``col_0`` ... ``col_<n-1>`` (the nodes of
        the device path, n the most nodes among the devices read; null past a shorter path),
        then the measurements ``column_names`` (None: every measurement of the file). Every
        tree device that has one of them gives its rows (the union of their timestamps, null
        where a series has no point), devices in index order. A measurement no device has is
        ColumnNotExistError; one with different types on different devices is
        TypeMismatchError."""

        self._check_open()
        with self._op():
            names, types, blocks = self._tree_table(column_names, start_time, end_time)
            return self._result_set(blocks, names, types)

    def _tree_table(self, column_names, start_time, end_time):
        """(names, types, blocks) of query_table_on_tree (inside an operation)."""
        from tsfile.tree import path_nodes

        t1, t2 = _time_bounds(start_time, end_time)
        plan, types = self._plan_tree_table(column_names)
        depth = max((len(path_nodes(d.path)) for d, _ in plan), default=0)
        levels = [f"col_{i}" for i in range(depth)]
        names = ["time", *levels, *types]
        all_types = [TSDataType.INT64] + [TSDataType.STRING] * depth + list(types.values())
        return names, all_types, self._tree_table_blocks(plan, levels, names, all_types, t1, t2)

    def read_tree_columns(self, column_names=None, start_time=None, end_time=None):
        """query_table_on_tree as whole arrays: (names, types, timestamps, {name: values},
        {name: null mask}) (the shape of read_columns)."""
        self._check_open()
        with self._op():
            names, types, blocks = self._tree_table(column_names, start_time, end_time)
            blocks = list(blocks)
        ts = _concat_arrays([b.timestamps for b in blocks], np.dtype(np.int64))
        cols, nulls = {}, {}
        for name, t in zip(names[1:], types[1:], strict=True):
            cols[name] = _concat_arrays([b.columns[name] for b in blocks], engine.numpy_dtype(t))
            if any(name in b.nulls for b in blocks):
                nulls[name] = np.concatenate(
                    [b.nulls.get(name, np.zeros(len(b), np.bool_)) for b in blocks]
                )
        return names, types, ts, cols, nulls

    def _plan_tree_table(self, column_names):
        """[(DeviceID, {measurement: TimeseriesMeta})] of the devices having one of the
        measurements, and {measurement: TSDataType} in the order asked."""
        devices = []
        types = {}
        for dev, rng in self._tree_devices():
            every = self._series(dev.segments[0], rng)
            # keep the time column ("") of an aligned device in the plan: _tree_blocks reads the
            # device as aligned by it (without it, it misread the value chunks as non-aligned)
            devices.append((dev, every))
            series = {m: s for m, s in every.items() if m != ""}
            for m, tsm in series.items():
                known = types.setdefault(m, TSDataType(tsm.data_type))
                if known != tsm.data_type and (column_names is None or m in column_names):
                    raise TypeMismatchError(
                        f"measurement {m!r} is {known.name} on one device and "
                        f"{TSDataType(tsm.data_type).name} on {dev.path!r}"
                    )
        if column_names is None:
            wanted = sorted(types, key=lambda s: s.encode("utf-8"))
        else:
            wanted = list(column_names)
            for m in wanted:
                if m not in types:
                    raise ColumnNotExistError(f"no tree-model series {m!r} in {self._path}")
            if len(set(wanted)) != len(wanted):
                raise ValueError("a measurement is asked for twice")
        plan = [(d, s) for d, s in devices if any(m in s for m in wanted)]
        return plan, {m: types[m] for m in wanted}

    def _tree_table_blocks(self, plan, levels, names, types, t1, t2):
        from tsfile.tree import path_nodes

        measurements = names[1 + len(levels) :]
        pcode = _path_code("auto")
        for dev, series in plan:
            have = [m for m in measurements if m in series]
            local = ["time", *(f"{dev.path}.{m}" for m in have)]
            local_types = [TSDataType.INT64] + [TSDataType(series[m].data_type) for m in have]
            nodes = path_nodes(dev.path)
            for blk in self._tree_blocks(dev, series, have, local, local_types, t1, t2, pcode):
                n = len(blk)
                cols, nulls, origins = {}, {}, {}
                for i, level in enumerate(levels):
                    cols[level] = np.full(n, nodes[i] if i < len(nodes) else None, dtype=object)
                    if i >= len(nodes):
                        nulls[level] = np.ones(n, np.bool_)
                for m, dt in zip(measurements, types[1 + len(levels) :], strict=True):
                    if m in series:
                        key = f"{dev.path}.{m}"
                        cols[m] = blk.columns[key]
                        if key in blk.nulls:
                            nulls[m] = blk.nulls[key]
                        if blk.origins and key in blk.origins:
                            origins[m] = blk.origins[key]
                    else:
                        cols[m] = np.zeros(n, engine.numpy_dtype(dt))
                        nulls[m] = np.ones(n, np.bool_)
                yield TsBlock(blk.timestamps, cols, nulls, types, origins)

    # -- prepared series (the locator API of the official dataset layer) --------------------

    def prepare_series(self, locator, time_owner=None, trust_index=False):
        """A PreparedSeries from a locator: the 11-tuple the official dataset index builds
        (tsfile.tree.LOCATOR_FIELDS: ..., file_size, ..., layout, value_metadata_offset,
        value_metadata_length, time_metadata_offset, time_metadata_length), the offsets and
        lengths get_timeseries_metadata reports. The records are parsed from the file and must
        be exactly there (CorruptDataError naming the offset, never a misread); a file_size
        other than this file's is refused unless trust_index. time_owner: a PreparedSeries of
        the same aligned device whose time column is reused."""
        from tsfile.tree import LOCATOR_FIELDS, PreparedSeries

        self._check_open()
        if len(locator) != len(LOCATOR_FIELDS):
            raise ValueError(f"a locator has {len(LOCATOR_FIELDS)} fields: {LOCATOR_FIELDS}")
        fields = dict(zip(LOCATOR_FIELDS, locator, strict=True))
        if not trust_index and int(fields["file_size"]) != self._size:
            raise ValueError(
                f"the locator is for a file of {fields['file_size']} bytes; {self._path} has "
                f"{self._size} (pass trust_index=True to use it anyway)"
            )
        with self._op():
            tsm = self._record_at(fields["value_metadata_offset"], fields["value_metadata_length"])
            time_tsm = None
            if int(fields["layout"]) == 1:
                if time_owner is not None and time_owner.time_series is not None:
                    time_tsm = time_owner.time_series
                else:
                    time_tsm = self._record_at(
                        fields["time_metadata_offset"], fields["time_metadata_length"]
                    )
                if time_tsm.measurement != "":
                    raise CorruptDataError(
                        f"{self._path}: the record at file offset {time_tsm.at} is series "
                        f"{time_tsm.measurement!r}, not a time column"
                    )
            elif int(fields["layout"]) != 0:
                raise ValueError(f"locator layout {fields['layout']!r} is neither 0 nor 1")
            return PreparedSeries(tsm, time_tsm)

    def _record_at(self, offset, length):
        """The TimeseriesMetadata record at [offset, offset + length) of the metadata area."""
        offset, length = int(offset), int(length)
        end = offset + length
        if not (self._meta.meta_offset < offset < end <= self._meta.meta_start):
            raise CorruptDataError(
                f"{self._path}: no series metadata at file offset {offset} (length {length}): "
                f"outside the metadata area {self._meta.meta_offset}..{self._meta.meta_start}"
            )
        cur = Cursor(self._buf, offset, end, self._path)
        tsm = read_timeseries_metadata(cur)
        if cur.pos != end:
            raise CorruptDataError(
                f"{self._path}: the series metadata at file offset {offset} is {cur.pos - offset} "
                f"bytes, not {length}"
            )
        return tsm

    def query_prepared(self, prepared, start_time=None, end_time=None, offset=0, limit=-1):
        """The points of one PreparedSeries: columns ``time`` and its name; time range as
        query_table, then ``offset`` rows skipped and at most ``limit`` kept (-1: all)."""
        return self.query_prepared_multi([prepared], start_time, end_time, offset, limit)

    def query_prepared_multi(
        self, prepared_list, start_time=None, end_time=None, offset=0, limit=-1
    ):
        """Several PreparedSeries outer-joined on time: columns ``time``, then their names
        (aligned series must share one time column, and are read through it; non-aligned
        series each bring their own timestamps)."""
        self._check_open()
        offset = int(offset)
        if offset < 0:
            raise ValueError(f"offset must be >= 0, got {offset}")
        prepared_list = list(prepared_list)
        if not prepared_list:
            raise ValueError("no prepared series given")
        if any(p.closed for p in prepared_list):
            raise ClosedError("a prepared series is closed")
        names = [p.name for p in prepared_list]
        if len(set(names)) != len(names):
            raise ValueError(f"a series is given twice: {names}")
        times = {None if p.time_series is None else p.time_series.at for p in prepared_list}
        if len(times) != 1:
            raise ValueError("prepared series of one device only (one time column or none)")
        t1, t2 = _time_bounds(start_time, end_time)
        series = {p.name: p.series for p in prepared_list}
        if prepared_list[0].time_series is not None:
            series[""] = prepared_list[0].time_series
        dev = DeviceID((f"series at file offset {prepared_list[0].at}",))
        types = [TSDataType.INT64] + [p.data_type for p in prepared_list]
        with self._op():
            pcode = _path_code("auto")
            blocks = self._tree_blocks(dev, series, names, ["time", *names], types, t1, t2, pcode)
            limit = int(limit)
            blocks = _window_blocks(blocks, offset, None if limit < 0 else limit)
            return self._result_set(blocks, ["time", *names], types)

    def _read_series(self, tsm, t1, t2, pcode):
        """All points of one non-aligned series in [t1, t2]: (timestamps, values)."""
        with self._op() as scratch:
            return self._read_series_chunks(tsm, t1, t2, pcode, scratch)

    def _read_series_chunks(self, tsm, t1, t2, pcode, scratch):
        chunks = []
        cap = 0
        for cm in sorted(tsm.chunks, key=lambda c: c.offset):
            st = cm.statistics
            if st.count == 0 or st.end_time < t1 or st.start_time > t2:
                continue
            ch = self._chunk(cm.offset)
            if ch.measurement != tsm.measurement:  # as engine.check_value_chunk, for aligned ones
                raise CorruptDataError(
                    f"{self._path}: chunk of series {ch.measurement!r} where the index places "
                    f"series {tsm.measurement!r}, at file offset {cm.offset}"
                )
            usize = sum(p[1] for p in ch.page_info())
            csize = sum(p[2] for p in ch.page_info())
            if st.count > usize * 8 + 8 or st.count > csize * _ROWS_PER_STORED_BYTE + 8:
                raise CorruptDataError(
                    f"{self._path}: chunk statistics count {st.count} is impossible for "
                    f"{usize} bytes at file offset {cm.offset}"
                )
            chunks.append(ch)
            cap += st.count
        ts = np.empty(cap, np.int64)
        vals = np.empty(cap, engine.numpy_dtype(tsm.data_type))
        pos = 0
        for ch in chunks:
            if ch.data_type != tsm.data_type:
                raise CorruptDataError(
                    f"{self._path}: chunk type {ch.data_type} of {tsm.measurement!r} differs "
                    f"from its series type at file offset {ch.offset}"
                )
            pos += engine.read_nonaligned_chunk(self._fv, ch, t1, t2, pcode, ts, vals, pos, scratch)
        ts, vals = ts[:pos], vals[:pos]
        if pos > 1 and not np.all(ts[1:] > ts[:-1]):
            order = np.argsort(ts, kind="stable")
            ts, vals = ts[order], vals[order]
        return ts, vals

    def _tree_blocks(self, dev_id, series, sensors, names, types, t1, t2, pcode):
        if "" in series:  # aligned tree device (Java/IoTDB): same layout as a table device
            task = self._plan_aligned(dev_id, series, sensors, t1, t2)
            for g in task.groups:
                ts = np.empty(g.rows, np.int64)
                vals = [np.empty(g.rows, engine.numpy_dtype(t)) for t in types[1:]]
                nulls = [np.zeros(g.rows, np.bool_) for _ in sensors]
                sub = _DeviceTask(dev_id, [g], (), task.types, names=task.names)
                n = self._decode_device(sub, sensors, ts, vals, nulls, 0, t1, t2, pcode)
                cols = dict(zip(names[1:], [v[:n] for v in vals], strict=False))
                nm = {nm_: m[:n] for nm_, m in zip(names[1:], nulls, strict=False) if m[:n].any()}
                origins = {nm_: g.values[j] for j, nm_ in enumerate(names[1:])}
                yield TsBlock(ts[:n], cols, nm, types, origins)
            return
        parts = [self._read_series(series[s_], t1, t2, pcode) for s_ in sensors]
        if not parts:
            return
        all_ts = np.unique(np.concatenate([p[0] for p in parts])) if parts else np.empty(0)
        cols, nulls = {}, {}
        for name, (ts, v) in zip(names[1:], parts, strict=False):
            idx = np.searchsorted(all_ts, ts)
            out = (
                np.zeros(len(all_ts), v.dtype)
                if v.dtype != object
                else np.full(len(all_ts), None, object)
            )
            out[idx] = v
            present = np.zeros(len(all_ts), np.bool_)
            present[idx] = True
            cols[name] = out
            if not present.all():
                nulls[name] = ~present
        if len(all_ts):
            # several chunks per series: their TimeseriesMetadata lists them
            origins = {nm_: series[s_].at for nm_, s_ in zip(names[1:], sensors, strict=False)}
            yield TsBlock(all_ts.astype(np.int64), cols, nulls, types, origins)


def _concat_arrays(arrays, dtype):
    return np.concatenate(arrays) if arrays else np.empty(0, dtype)


def _as_device(device):
    """A device given as a tree path (str), a DeviceID (ours, or the official kind with path,
    table name and segments: by its segments, else its path) or a tuple of segments."""
    if isinstance(device, tuple):
        return DeviceID(device)
    if not isinstance(device, (str, DeviceID)):
        segments = getattr(device, "segments", None)
        if segments:
            return DeviceID(tuple(segments))
        path = getattr(device, "path", None)
        if path:
            return str(path)
        raise TypeError(f"not a device: {device!r}")
    return device


__all__ = ["TsFileReader", "ResultSet", "ResultSetMetaData", "TsBlock"]
