"""Writers of table-model TsFiles (format v4), with the official package's names.

``TsFileTableWriter(path, table_schema, memory_threshold=128 MiB, *, overwrite=False,
**options)``: one table;
``write_table(tablet)``, ``write_dataframe(df)``, ``write_arrays(timestamps, columns,
null_masks=None)`` (the numpy fast path), ``write_arrow_batch(data)``, ``add_tsfile_property``,
``flush()``, ``close()``; a context manager.

``TsFileWriter(path, memory_threshold=128 MiB, *, overwrite=False, **options)``: the low-level
writer, several tables: ``register_table(schema)``, ``write_table(tablet)``,
``write_arrays(table, ...)``, ``write_dataframe(table, df)``; and the tree model:
``register_timeseries(device_path, TimeseriesSchema)``, ``register_device(DeviceSchema,
aligned=False)``, ``write_row_record(RowRecord)``, ``write_tablet(tablet)`` (target name = the
device path). Tree devices are written non-aligned (a chunk per series with its own timestamps,
byte for byte as the official writer) unless registered aligned; their buffers, checks and
chunks are in tsfile._tree.

The file: an existing path is refused with ``tsfile.AlreadyExistsError`` (a FileExistsError; the
official writer refuses too) unless ``overwrite=True``; it is created with mode "xb", so a file
appearing between a check and the open cannot be replaced either; a directory is refused
(IsADirectoryError). ``overwrite=True`` never truncates the existing file: the rows go to a new
file beside it (``.<name>.tsfile-tmp-<random>``), renamed over the path by close() (a reader
that has the old file mapped keeps reading it; if the process dies, the old file is intact and
the temporary one is left). The new file takes the old one's permissions (and owner where
allowed); a symlink's target is replaced, not the link; a path that is not a regular file
(FIFO, device, socket) is refused (UnsupportedError). Every option, the schema of
TsFileTableWriter (names must encode to UTF-8; a TAG/FIELD/ATTRIBUTE column named "time"
without a TIME column is refused,
``tsfile.InvalidSchemaError``) and its encodings and compressions are checked before the file
is created: a constructor that raises leaves the file system as it was.

Threads: every public method of TsFileWriter and TsFileTableWriter runs under one RLock per
writer: a writer may be shared by threads, each call is atomic, the rows of all calls land (in
the order the calls take the lock). A Tablet is not thread-safe (a builder for one thread).

Values: every write call checks its values against the column types before anything is buffered
(``tsfile._write.values`` has the rules): a value that does not fit its column exactly (1.5 or
2**40 for INT32, NaN for an integer, a str for a number, an INT64 beyond 2**53 that a DOUBLE cannot
hold, a finite double beyond the FLOAT range, an invalid DATE, a str with a lone surrogate, bytes
that are not UTF-8 for STRING, a str for BLOB, a fractional or out-of-range timestamp) raises
``tsfile.TypeMismatchError`` naming the column and the first bad row, and nothing of that call is
written. A null timestamp (masked, NaT, None) is refused; a column given twice (names differing
in case) is refused, and a ``null_masks`` key naming no column is ``ColumnNotExistError``.
Integral floats are accepted for integer columns (exact). Datetimes (numpy datetime64 of
any unit, pandas timestamps naive or tz-aware, Arrow timestamps, datetime objects) become
milliseconds since the epoch, the time precision of the files written here; a sub-millisecond
remainder is refused, not floored.

Options (keyword-only, all optional; defaults are the official writer's, format notes 14):
``page_size`` points per page (10,000), ``compression`` (LZ4) for value chunks whose ColumnSchema
names none, ``time_compression`` (= compression), ``encodings`` {TSDataType: TSEncoding}
overriding the per-type defaults (TS_2DIFF integers, GORILLA floats, PLAIN booleans and text),
``time_encoding`` (TS_2DIFF; the official reader decodes time chunks as TS_2DIFF whatever the
header says), ``index_degree`` (256), ``bloom_error_rate`` (0.05), ``threads`` (None, the
default: the chunks of a large chunk group are built on one pool thread while the calling
thread hands the finished ones to the OS, so that writing overlaps encoding; 1: everything on
the calling thread, no other thread started; more: the chunks of a chunk group are built on
that many threads, each null-free numeric chunk of a large group in that many runs of pages,
one per thread, and a large write call's timestamps are checked for their order in that many
parts; the file's bytes do not depend on it). A call written
at once as its own chunk group (one device, nothing else buffered, reaching memory_threshold)
has its time order checked by the time chunk's encode instead, page by page while it reads
them, so the value chunks are encoded meanwhile; a fault is found before anything of the
group is written, and the call then takes the checked path (sorted, or OutOfOrderError).
ColumnSchema.encoding / .compression override the defaults per column. An encoding may be
``TSEncoding.ALP`` (15) for FLOAT/DOUBLE, or ``"auto"`` (``tsfile.types.AUTO``), see below.

``encoding="auto"`` (FLOAT and DOUBLE columns; ``ColumnSchema(..., encoding="auto")`` or
``encodings={TSDataType.DOUBLE: "auto"}``): every value chunk of the column is written with ALP or
GORILLA, whichever ``tsfile.codecs.alp.choose_encoding`` finds smaller on that chunk's non-null
values (exact encoded sizes up to 2048 values, else estimated from two runs of 1024; before page
compression; GORILLA on a tie; GORILLA for a chunk without values; ALP when a value is
GORILLA's end marker, the canonical NaN, which only readers that decode by count read back
from a GORILLA page). The choice is per chunk (one device's rows of one flush), not per page: a
chunk header carries one encoding for all its pages, and an aligned value chunk must keep the
page boundaries of its time chunk, so a page cannot switch encoding and a chunk cannot be split
at a better boundary. The table schema (written by close(), after every chunk) declares for an
"auto" column the encoding all its chunks used (ALP or GORILLA, what
``TsFileReader.get_table_schema`` then reports), and GORILLA, the official default, when its
chunks differ or it has none; so a file in which auto chose GORILLA everywhere is exactly the
file a GORILLA column gives. ALP is an extension of the format: files with ALP chunks are read
by this library (every decode path) but not by the official TsFile 2.5 packages (its reader
raises TsFileCorruptedError on an ALP chunk); use GORILLA where they must read the file.
A column whose chunks differ in encoding is readable by this library only: the official reader
decodes all chunks of a series with the decoder of the first one (a mix it misreads or hangs
on); "auto" is the only way this writer mixes encodings within a column, and an "auto" file
whose chunks all came out GORILLA is readable by the official package.

What a file holds (format notes section 12): rows are buffered per device (a device = one
combination of tag values); on flush() / close() / when the buffered data exceed
memory_threshold, each device with rows gets one chunk group, in device order: the time chunk
(TS_2DIFF) and one value chunk for every FIELD column of its table (all-null pages as empty pages),
pages of page_size rows; rows are sorted by time within a device (stable). A timestamp that a
device gets twice within a write call, or that it already has among its rows buffered since the
last flush, is refused (``tsfile.OutOfOrderError`` naming the device, the timestamp and the rows;
the official writer raises its OutOfOrderError for these, and also for any decreasing timestamp,
which this writer sorts instead). Across a flush the official writer accepts the timestamp again
(a second chunk group), and so does this writer. Every chunk of a column has the column's
encoding ("auto": ALP or GORILLA, above).
GORILLA/CHIMP values equal to the encoding's end marker (canonical NaN, MIN_VALUE; format notes
8.4, 8.8) are written as the official writer writes them: the official C++ reader and this
library decode a page by its value count and read them back (a reader that stops at the first
end marker, as Java's GORILLA reader does, would lose the rest of that page).
No page is written that decodes to other values than were given: SPRINTZ (INT32/INT64) cannot
store a value whose prediction error is exactly the type's minimum (format notes 8.9), CAMEL
stores a NaN after a page's first value as 0.0 (8.11), TS_2DIFF FLOAT/DOUBLE keeps 2 decimals
(8.3: 3.14159 would be read back as 3.14, -0.0 as 0.0); the official writer writes such pages
silently. This writer refuses such values at the write call: for each such column it
trial-encodes the pages flush will write for the device (its buffered rows plus the call's, in
time order, page_size rows a page; when the call's rows come after the buffered ones, from the
last partial page on) and decodes them again; a page that does not round-trip refuses the whole
call with ``tsfile.EncodeError`` (naming table, device, column, value, time and reason, and
suggesting another encoding), nothing of it buffered. Cost, for these encodings only: each
value is encoded twice (at the call and at flush), plus the last partial page once per call
(many tiny calls pay up to page_size values each; rows out of time order re-check the device's
buffered rows). So a flush never fails for accepted rows; should it still (a codec bug), the
old safety net stays: that device's buffered rows are not written, the other devices are, and
close() still completes the file, then raises.

Failures: whatever raises in flush() or close() (an EncodeError, a bug in a codec, an OSError
while writing), close() still writes the metadata and tail for the chunk groups already in the
file, closes it, then re-raises: a file that was written to is always readable, with everything
flushed before the failure. The file is written without a user-space buffer, one os.writev per
chunk group (a large one, unless threads=1, chunk by chunk while its later chunks are built on
the pool), so a chunk group is
indexed only once the OS has taken all its bytes; after an OSError in the middle of one (a full
disk, RLIMIT_FSIZE), close() cuts the file back to the last complete chunk group (ftruncate)
and writes the tail there. Only if the tail itself cannot be written is the file incomplete, and
the error says so. A write call written at once as its own chunk group returns once every chunk
is built (its arrays are not read any more), its last chunk still being handed to the OS by a
pool thread; the group is indexed when that is done, before anything else is written: an
OSError of that write is raised by the next call that writes a chunk group, flush() or close()
(a note names the device), and close() ends the file before that group. With threads=1 there is
no pool thread: such a call writes its whole group itself and raises that OSError at once (the
file is the same either way). A writer
garbage-collected without close() completes its file and emits a ResourceWarning.
The table schema leaves an explicit TIME column out (Java cannot read category 3). Given the same
rows, write calls and settings, the file is byte for byte what the official 2.5 writer makes
(statistics sums included: null-free write segments are summed in its two-lane order), except
for SNAPPY / LZMA2 / LZO page bodies, whose bytes depend on the compressor library.

Writing from numpy (no Python work per value for numeric columns)::

    with TsFileTableWriter("x.tsfile", schema, compression=Compressor.SNAPPY) as w:
        for dev, ts, cols in per_device_batches:  # ts: int64 ms or datetime64; cols: {name: array}
            w.write_arrays(ts, {"device": dev, **cols}, null_masks={"f3": f3_is_null})

* a scalar TAG value means "all rows are this device" (fastest); TAG arrays are grouped by value;
* FIELD arrays are converted exactly to the schema's type (checked with whole-array numpy
  operations, only where a cast happens), with one exception: a double written to a FLOAT
  column is rounded to float32, the column's declared precision (one that overflows it is
  refused); NaN is a value, nulls come from ``null_masks``
  (True = null), a numpy.ma.MaskedArray's mask, None in object arrays, or NaT;
* rows are copied only when they stay buffered (below memory_threshold), so the caller may reuse
  its arrays after the call; a call whose data reach the threshold is written at once;
* ``Tablet.from_arrays`` builds a tablet the same way for ``write_table``.
"""

from __future__ import annotations

import copy
import errno
import functools
import os
import secrets
import stat
import threading
import time
import warnings
from collections import deque
from concurrent.futures import Future, wait

import numpy as np

from tsfile import compression as _compression
from tsfile import config as _config
from tsfile._args import int_arg
from tsfile._format.constants import HEADER, Marker
from tsfile._format.device import device_path, serialize_device_id, sort_key, text_utf8
from tsfile._tree.buffer import TreeBuffers, device_segments
from tsfile._tree.chunk import series_chunk
from tsfile._write import chunk_encode, encoders
from tsfile._write.bloom import cpp_path_count, entry_hashes, hash_count
from tsfile._write.chunk import (
    Chunk,
    ChunkBuild,
    TimesDoNotRise,
    page_bounds,
    time_chunk,
    time_chunk_build,
    value_chunk,
    value_chunk_build,
)
from tsfile._write.metadata import DEFAULT_PROPERTIES, Series, build_metadata, table_schema_bytes
from tsfile._write.values import (
    check_tag_value,
    check_value,
    mismatch,
    to_storage,
    to_timestamps,
)
from tsfile.errors import (
    AlreadyExistsError,
    ColumnNotExistError,
    EncodeError,
    InvalidSchemaError,
    OutOfOrderError,
    TableNotExistError,
    TsFileError,
    TypeMismatchError,
    UnsupportedError,
    WriterClosedError,
)
from tsfile.schema import DeviceSchema, TableSchema
from tsfile.tablet import Tablet, storage_dtype
from tsfile.types import AUTO, ColumnCategory, Compressor, TSDataType, TSEncoding, encoding_or_auto

T = TSDataType
DEFAULT_MEMORY_THRESHOLD = 128 * 1024 * 1024
DEFAULT_PAGE_SIZE = 10_000
# The encoding byte of an "auto" column in the table schema when its chunks differ in encoding (or
# it has none); when every chunk of the column has the same encoding, the schema names that one.
AUTO_SCHEMA_ENCODING = TSEncoding.GORILLA


class _Table:
    """A registered table: its schema and the encoding/compression of each column."""

    def __init__(self, schema: TableSchema, writer: TsFileWriter):
        # The writer's own copy: the caller's TableSchema and ColumnSchemas stay mutable
        # (add_column, data_type), and a column added after this made close() fail on the
        # table schema, leaving a file without metadata.
        schema = copy.deepcopy(schema)
        self.schema = schema
        self.name = schema.get_table_name()
        # Names the file stores must encode to UTF-8 (the policy of tsfile._format.device):
        # refused here, not when the file is closed.
        text_utf8(self.name, "table name")
        for column in schema.get_columns():
            text_utf8(column.column_name, f"table {self.name!r}: column name")
        self.tags = [c.column_name for c in schema.get_tag_columns()]
        self.fields = sorted(
            (c for c in schema.get_field_columns()), key=lambda c: c.column_name.encode("utf-8")
        )
        self.field_by_name = {c.column_name: c for c in self.fields}
        self.time_column = schema.get_time_column()
        _refuse_time_named_column(schema)
        self.encoding = {}
        self.compression = {}
        for c in schema.get_columns():
            enc = c.encoding
            if enc is None:
                enc = writer._encodings.get(c.data_type, encoders.DEFAULT_ENCODING.get(c.data_type))
            comp = writer._compression if c.compression is None else c.compression
            if enc == AUTO:
                encoders.check_supported(enc, c.data_type)  # FLOAT/DOUBLE, both codecs built
            elif c.category == ColumnCategory.FIELD:
                encoders.check_supported(enc, c.data_type)
                encoders.value_encoder(enc, c.data_type)  # fail now if the codec is missing
            if c.category == ColumnCategory.FIELD:
                _check_compression(comp)
            self.encoding[c.column_name] = enc
            self.compression[c.column_name] = comp
        # The encodings the written chunks of each "auto" column used (chunk headers).
        self.chunk_encodings = {name: set() for name, enc in self.encoding.items() if enc == AUTO}
        # {field: (page encoder, page check)} of the columns whose encoding may not store a value
        # (SPRINTZ, CAMEL, TS_2DIFF FLOAT/DOUBLE): their pages are trial-encoded at the write call
        # (_check_pages).
        self.page_checks = {}
        for c in self.fields:
            enc = self.encoding[c.column_name]
            check = None if enc == AUTO else encoders.page_loss(enc, c.data_type)
            if check is not None:
                self.page_checks[c.column_name] = (encoders.value_encoder(enc, c.data_type), check)

    def schema_bytes(self) -> bytes:
        """The table schema, written at close() after every chunk: an "auto" column declares the
        encoding all its chunks used, or GORILLA when they differ or there are none."""
        cols = []
        for c in self.schema.get_columns():
            enc = self.encoding[c.column_name]
            if enc == AUTO:
                used = self.chunk_encodings[c.column_name]
                enc = next(iter(used)) if len(used) == 1 else AUTO_SCHEMA_ENCODING
            cols.append(
                (c.column_name, c.data_type, enc, self.compression[c.column_name], c.category)
            )
        return table_schema_bytes(cols)


class _Piece:
    """Rows of one device from one write call: timestamps and {field: (values, present)}."""

    __slots__ = ("times", "fields", "runs", "pooled")

    def __init__(self, times, fields, runs=None):
        self.times = times
        self.fields = fields
        self.pooled = []  # the _CopyPool buffers that detach() copied into
        # Row offsets where a run of consecutive rows of the write call starts (the official
        # writer's write segments; they order its statistics sums).
        self.runs = np.zeros(1, dtype=np.int64) if runs is None else runs

    def detach(self, inputs, pool):
        """Copy every array that may share memory with one of `inputs` (into `pool`'s
        buffers)."""

        def own(arr):
            if arr is None:
                return None
            for x in inputs:
                if np.may_share_memory(arr, x):
                    return pool.copy(arr, self.pooled)
            return arr

        self.times = own(self.times)
        self.fields = {k: (own(v), own(p)) for k, (v, p) in self.fields.items()}


class _CopyPool:
    """Buffers for the copies of buffered rows (_Piece.detach), used again after the flush that
    wrote those rows. A copy into fresh memory costs several times one into memory used before
    (the page faults: 36 copies of 3.2 MB took 75 ms fresh, 21 ms into old buffers), and a writer
    copies the same sizes again and again (a call per device, the same rows per call). At most
    `limit` bytes are kept; close() drops them."""

    def __init__(self, limit):
        self._limit = limit
        self._free: dict[int, list[np.ndarray]] = {}  # buffer size -> free uint8 buffers
        self._held = 0

    def copy(self, arr, pooled):
        """A copy of the 1-D array arr, in a buffer that is appended to `pooled`."""
        n = arr.nbytes
        if arr.dtype == object or arr.ndim != 1 or n == 0:
            return arr.copy()  # object arrays hold references: no raw buffer
        free = self._free.get(n)
        if free:
            buf = free.pop()
            self._held -= n
        else:
            buf = np.empty(n, dtype=np.uint8)
        out = buf.view(arr.dtype)
        np.copyto(out, arr)
        pooled.append(buf)
        return out

    def give_back(self, pieces):
        """The buffers of `pieces`, whose rows are in the file and referenced nowhere else now,
        are free again (the oldest sizes are dropped first beyond the limit)."""
        for piece in pieces:
            for buf in piece.pooled:
                n = buf.nbytes
                for size in list(self._free):
                    if self._held + n <= self._limit:
                        break
                    self._held -= size * len(self._free.pop(size))
                if self._held + n <= self._limit:
                    self._free.setdefault(n, []).append(buf)
                    self._held += n
            piece.pooled = []

    def clear(self):
        self._free.clear()
        self._held = 0


def _locked(method):
    """Run a public writer method under the writer's lock (one threading.RLock per writer):
    calls from several threads take turns, each one atomic."""

    @functools.wraps(method)
    def run(self, *args, **kwargs):
        with self._lock:
            return method(self, *args, **kwargs)

    return run


# A chunk group of at least this many values (rows x chunks) is written chunk by chunk while its
# later chunks are built on the pool (TsFileWriter._stream_chunk_group; with threads=None, the
# default: threads >= 2 always use the pool, threads=1 never); below it, handing chunks to a
# thread costs more than the overlap saves, and one thread builds the group before one writev.
_STREAM_MIN_VALUES = 200_000

# A chunk group of at least `threads` x this many rows has its chunks encoded in `threads` runs of
# pages each (chunk_encode.ChunkEncoder), so that every thread has a share of every chunk: a chunk
# group has few columns, and whole chunks alone leave a thread idle at the group's end.
_RANGE_MIN_ROWS = 50_000

# ... and its last chunk in _LAST_CHUNK_SPLIT times as many runs (with threads > 1): the jobs are
# taken in file order, so the last ones decide when the group is done; short ones at the end
# leave a thread idle for less time while the other finishes its last job.
_LAST_CHUNK_SPLIT = 4

# A write call's timestamps (at least `threads` x this many) are checked for their order in
# `threads` parts at once (TsFileWriter._rising).
_SPLIT_CHECK_MIN_ROWS = 200_000

# At most this many buffers per os.writev call (Linux's IOV_MAX is 1024).
_IOV_MAX = 1024


class _Output:
    """The file being written, without a user-space buffer: each writelines() hands a whole
    chunk group, or a chunk of one, to the OS (os.writev, one system call for its parts). So
    after a failed write
    (a full disk, RLIMIT_FSIZE) everything before the failed chunk group is in the file, and
    cut() can end the file there; a BufferedWriter keeps the bytes it could not write and tries
    them again on every seek() or close(), failing the tail too."""

    def __init__(self, raw):
        self._raw = raw
        self._fd = raw.fileno()

    @property
    def closed(self) -> bool:
        return self._raw.closed

    def write(self, data) -> None:
        self.writelines([data])

    def writelines(self, parts) -> None:
        views = [memoryview(p).cast("B") for p in parts if len(p)]
        first = 0
        while first < len(views):
            written = os.writev(self._fd, views[first : first + _IOV_MAX])
            if written <= 0:
                # nothing taken for a non-empty write: calling again would loop for ever
                raise OSError(errno.EIO, "os.writev wrote none of the bytes given to it")
            # Partial write: skip the buffers written whole, trim the one written in part.
            while written and first < len(views):
                size = views[first].nbytes
                if written >= size:
                    written -= size
                    first += 1
                else:
                    views[first] = views[first][written:]
                    written = 0

    def cut(self, pos) -> None:
        """End the file at pos and continue writing there."""
        os.ftruncate(self._fd, pos)
        os.lseek(self._fd, pos, os.SEEK_SET)

    def close(self) -> None:
        self._raw.close()


def _create_temp_beside(path):
    """(raw file, its path): a new file in path's directory, created exclusively under a unique
    name that says whose it is (``.<name>.tsfile-tmp-<random>``)."""
    folder, name = os.path.split(os.path.abspath(path))
    for _ in range(100):
        temp = os.path.join(folder, f".{name}.tsfile-tmp-{secrets.token_hex(4)}")
        try:
            return open(temp, "xb", buffering=0), temp
        except FileExistsError:
            continue
    raise AlreadyExistsError(f"no unused temporary file name beside {path!r}")


def _regular_or_none(path):
    """os.stat of the regular file that overwrite=True replaces, or None if there is none.
    Anything else (a FIFO, a device, a socket) is refused: renaming a file over it would
    destroy it, and a TsFile cannot be written into it."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(st.st_mode):
        raise UnsupportedError(
            f"{path!r} is not a regular file: overwrite=True replaces a file, not a FIFO, device "
            "or socket"
        )
    return st


def _take_permissions(fd, old) -> None:
    """Give the new file (fd) the mode of the file it replaces (a private 0600 file must not
    come back readable by every user), and its owner where this process may set it."""
    os.fchmod(fd, stat.S_IMODE(old.st_mode) & 0o777)  # read/write/execute bits, never set-id
    if (old.st_uid, old.st_gid) != (os.geteuid(), os.getegid()):
        try:
            os.fchown(fd, old.st_uid, old.st_gid)
        except PermissionError:
            pass  # only root may give a file away: it stays this process's, with the old mode


def _by_lower_name(mapping, what) -> dict:
    """{name.lower(): value}; a name given twice (differing only in case) is refused: column
    names are case-insensitive, and one of the two would be dropped silently."""
    out = {}
    for name, value in mapping.items():
        key = str(name).lower()
        if key in out:
            raise ValueError(f"duplicate {what} {name!r} (column names are case-insensitive)")
        out[key] = value
    return out


def _refuse_time_named_column(schema) -> None:
    """A TAG/FIELD/ATTRIBUTE column named "time" in a table without a TIME column has the name
    of the time column: the file would declare two columns "time" (our reader refuses such a
    file, and every DataFrame of the table would have two), so the writer refuses the schema."""
    if schema.get_time_column() is not None:
        return  # its name is unique in the schema (TableSchema refuses duplicates)
    if schema.has_column("time"):
        column = schema.get_column("time")
        raise InvalidSchemaError(
            f"table {schema.get_table_name()!r}: the {column.category.name} column 'time' has "
            "the name of the time column; rename it, or declare it as the TIME column "
            "(ColumnCategory.TIME, INT64 or TIMESTAMP)"
        )


def _refuse_dates_into_other_types(table, tablet) -> None:
    """A DATE column of a tablet holds dates (stored as yyyyMMdd ints): written into an INT32
    column it would become the number 20240101. Refused, as any other type mismatch."""
    for name, dt in zip(tablet.get_column_name_list(), tablet.get_data_type_list(), strict=True):
        if dt != T.DATE or not table.schema.has_column(name):
            continue
        column = table.schema.get_column(name)
        if column.data_type != T.DATE and column.category == ColumnCategory.FIELD:
            reason = f"a DATE tablet column cannot be written into a {column.data_type.name} column"
            raise mismatch(reason, name)


def _call_row(origin, k) -> int:
    """The write call's row of row k of a piece (origin: see _add_rows)."""
    if origin is None:
        return k
    if isinstance(origin, int):
        return origin + k
    return int(origin[k])


def _tags_text(dev) -> str:
    """The tag values of a device for a message, as plain str (numpy str scalars too)."""
    return repr(tuple(None if v is None else str(v) for v in dev[1:]))


def _duplicate_time(dev, timestamp, row, earlier) -> OutOfOrderError:
    """OutOfOrderError for a timestamp a device gets twice (earlier: the call's other row, or
    None for a row buffered by an earlier call); the parts are kept as attributes so that
    write_table can name the tablet's rows."""
    other = f"row {earlier}" if earlier is not None else "a row of an earlier write call"
    exc = OutOfOrderError(
        f"column 'time', row {row}: table {dev[0]!r}, device {_tags_text(dev)} has timestamp "
        f"{timestamp} twice (also {other}, not yet flushed); a device has one row per timestamp"
    )
    exc.device, exc.timestamp, exc.row, exc.earlier = dev, timestamp, row, earlier
    return exc


def _unstorable(table, dev, name, page, page_times, lost) -> EncodeError:
    """EncodeError for a write call whose rows would make a page of a lossy encoding (SPRINTZ,
    CAMEL, TS_2DIFF FLOAT/DOUBLE: encoders.page_loss) that does not
    decode to its values (nothing of the call is buffered)."""
    i, decoded, reason = lost
    column = table.field_by_name[name]
    encoding = table.encoding[name]
    other = encoders.LOSSLESS_ALTERNATIVES[encoding]
    return EncodeError(
        f"table {table.name!r}, device {_tags_text(dev)}, column {name!r} "
        f"({column.data_type.name}, {encoding.name}): the value {page[i].item()!r} at time "
        f"{int(page_times[i])} would be read back as {decoded!r}: {reason}; the write call is "
        f"refused (nothing of it is buffered); choose another encoding for this column "
        f"(e.g. {other})"
    )


class TsFileWriter:
    """Low-level writer: register tables, then write tablets / arrays / DataFrames into them.

    Thread safety: every public method runs under one lock per writer (a ``threading.RLock``), so
    a writer may be shared by several threads: each call is atomic (all its rows are accepted or
    none), the rows of concurrent calls all land, and the order between calls is the order in
    which they take the lock. Calls do not run in parallel (the lock is held while a call
    converts, checks and, at memory_threshold, writes its rows).

    Options (keyword-only; the module's documentation has them all): ``page_size``,
    ``compression``, ``time_compression``, ``encodings``, ``time_encoding``, ``index_degree``,
    ``bloom_error_rate``, ``threads``: None (the default) builds large chunk groups on one pool
    thread while the calling thread writes; 1 does everything on the calling thread and starts
    no thread; N >= 2 builds each chunk group's chunks on N threads. The file's bytes do not
    depend on ``threads``."""

    def __init__(
        self,
        path,
        memory_threshold=DEFAULT_MEMORY_THRESHOLD,
        *,
        overwrite=False,
        page_size=None,
        compression=None,
        time_compression=None,
        encodings=None,
        time_encoding=None,
        index_degree=None,
        bloom_error_rate=None,
        threads=None,
    ):
        self._configure(
            memory_threshold,
            page_size=page_size,
            compression=compression,
            time_compression=time_compression,
            encodings=encodings,
            time_encoding=time_encoding,
            index_degree=index_degree,
            bloom_error_rate=bloom_error_rate,
            threads=threads,
        )
        self._open(path, overwrite)

    def _configure(
        self,
        memory_threshold=DEFAULT_MEMORY_THRESHOLD,
        *,
        page_size=None,
        compression=None,
        time_compression=None,
        encodings=None,
        time_encoding=None,
        index_degree=None,
        bloom_error_rate=None,
        threads=None,
    ):
        """Check every option and set the writer up, without touching the file system (a bad
        option must not have created or truncated the file). An option not given (None) comes
        from the process-wide configuration (tsfile.config, the official set_tsfile_config)."""
        cfg = _config.writer_defaults()
        if time_compression is None:
            # an explicit compression also covers the time chunks, as before the config existed
            time_compression = compression if compression is not None else cfg["time_compression"]
        page_size = cfg["page_size"] if page_size is None else page_size
        compression = cfg["compression"] if compression is None else compression
        encodings = {**cfg["encodings"], **(encodings or {})}
        time_encoding = cfg["time_encoding"] if time_encoding is None else time_encoding
        index_degree = cfg["index_degree"] if index_degree is None else index_degree
        bloom_error_rate = cfg["bloom_error_rate"] if bloom_error_rate is None else bloom_error_rate
        self._page_size = int_arg("page_size", page_size, 1)
        # threads=None: one pool thread builds large chunk groups while this thread writes;
        # threads=1: this thread alone (_overlap False)
        self._overlap = threads is None
        self._threads = 1 if threads is None else int_arg("threads", threads, 1)
        self._pool = None  # builds the chunks of large chunk groups (_stream_chunk_group)
        self._memory_threshold = int_arg("memory_threshold", memory_threshold, 0)
        self._copies = _CopyPool(self._memory_threshold)
        _config.record_memory_threshold(self._memory_threshold)  # reported, as official
        self._compression = _check_compression(compression)
        self._time_compression = (
            self._compression if time_compression is None else _check_compression(time_compression)
        )
        self._encodings = {}
        for k, v in (encodings or {}).items():
            k, v = TSDataType(k), encoding_or_auto(v)
            if v == AUTO:
                encoders.check_supported(v, k)  # at once, not when a table is registered
            # Other pairs are checked for the columns that use them (_Table): a caller may give
            # one encoding for several types, not all of which it supports.
            self._encodings[k] = v
        self._time_encoding = TSEncoding(time_encoding)
        encoders.check_supported(self._time_encoding, T.INT64)
        if self._time_encoding not in (TSEncoding.TS_2DIFF, TSEncoding.PLAIN):
            raise ValueError("time_encoding must be TS_2DIFF or PLAIN")
        self._degree = int_arg("index_degree", index_degree, 2)
        self._bloom_error_rate = float(bloom_error_rate)
        if not 0.0 < self._bloom_error_rate < 1.0:
            raise ValueError(f"bloom_error_rate must be in (0, 1), got {bloom_error_rate!r}")
        self._tables: dict[str, _Table] = {}
        self._tree = TreeBuffers()  # tree-model devices and their buffered points
        self._buffers: dict[tuple, list] = {}
        self._buffered_bytes = 0
        self._devices: dict[tuple, dict] = {}
        self._chunk_path_count = 0  # C++'s bloom filter entry count (bloom.cpp_path_count)
        # {series path: its bloom filter hashes}, computed while a large group is being built
        # (the calling thread waits then) rather than all at close()
        self._bloom_hashes: dict[str, tuple] = {}
        self._bloom_hash_count = hash_count(self._bloom_error_rate)
        # {id(Series): (Series, name)} given a chunk since the last _ahead_of_close
        self._unserialized: dict[int, tuple[Series, str]] = {}
        self._last_chunk_name = ""
        self._properties: dict[str, bytes | None] = {}
        # The lowest and highest timestamp of each device's buffered rows (duplicate checks).
        self._spans: dict[tuple, tuple[int, int]] = {}
        # Devices whose buffered rows are not all in time order (flush sorts only these).
        self._unordered: set[tuple] = set()
        self._lock = threading.RLock()
        self._file = None
        self._temp_path = None  # overwrite=True: the file written, renamed over _path by close()
        self._replaced = None  # overwrite=True: the path renamed over (a symlink's target)
        self._closed = False
        # A write of chunk bytes failed part way (e.g. OSError): the file's end is unknown, so
        # nothing more is appended until close() cuts it back to the last complete chunk group.
        self._torn = False
        # The last chunk of a group written by a write call on its own (_written_alone), handed
        # to the OS by a pool thread while the call returns: indexed by _settle().
        self._pending = None
        self._fresh = []

    def _open(self, path, overwrite):
        """Create the file and write the header.

        Without overwrite: "xb" on the path (never replaces a file; no race between a check and
        the open). With overwrite=True the existing file is not touched until close(): the rows
        go to a new file next to it (``.<name>.tsfile-tmp-<random>``, created "xb"), which
        close() renames over the path (os.replace). A reader that has the old file open or
        mapped keeps reading it whole (truncating it in place made such a reader die of SIGBUS),
        and if the process dies the old file is intact (the temporary file is left behind)."""
        self._path = os.fspath(path)
        if os.path.isdir(self._path):
            raise IsADirectoryError(
                errno.EISDIR, "the writer's path is a directory, not a file", self._path
            )
        if overwrite:
            # A symlink: replace the file it names (renaming over the link would leave that file
            # with the old rows and turn the link into a file), beside it (same file system).
            self._replaced = os.path.realpath(self._path)
            old = _regular_or_none(self._replaced)
            raw, self._temp_path = _create_temp_beside(self._replaced)
            if old is not None:
                _take_permissions(raw.fileno(), old)
        else:
            try:
                raw = open(self._path, "xb", buffering=0)
            except FileExistsError:
                raise AlreadyExistsError(
                    f"{self._path!r} exists; pass overwrite=True to replace it"
                ) from None
        self._file = _Output(raw)
        try:
            self._file.write(HEADER)
        except BaseException:
            # Nothing was written: remove the file this call created (exclusively).
            raw.close()
            os.unlink(self._temp_path or self._path)
            self._file = None
            raise
        self._pos = len(HEADER)

    # -- schema -----------------------------------------------------------------------------------

    @_locked
    def register_table(self, table_schema: TableSchema) -> None:
        self._check_open()
        self._register(table_schema)

    def _register(self, table_schema):
        if not isinstance(table_schema, TableSchema):
            raise TypeError("register_table needs a TableSchema")
        name = table_schema.get_table_name()
        if name in self._tables:
            raise ValueError(f"table {name!r} is already registered")
        if any(segments[0] == name for segments in self._tree.by_segments):
            raise ValueError(f"table {name!r} would share its index with tree-model devices")
        self._tables[name] = _Table(table_schema, self)

    def _table(self, name) -> _Table:
        if name is None:
            if len(self._tables) == 1:
                return next(iter(self._tables.values()))
            raise TableNotExistError("the tablet names no table")
        table = self._tables.get(str(name).lower())
        if table is None:
            raise TableNotExistError(f"table {name!r} is not registered")
        return table

    @_locked
    def add_tsfile_property(self, key: str, value: bytes) -> None:
        """A key/value pair of the file's metadata, written by close() (a key given again
        replaces its value). The official rules: the key is a str, the value exactly ``bytes``
        (a str, bytearray, bytes subclass or None is a TypeError: TypeMismatchError); a key
        that does not encode to UTF-8 is refused here, not when close() writes the metadata.
        The encryption properties (encryptLevel, encryptType, encryptKey) keep the values that
        say the pages are plain (UnsupportedError otherwise): this writer does not encrypt, and a
        file that claimed encrypted pages could not be read.
        On a closed writer: WriterClosedError (the official FileWriteError)."""
        self._check_open()
        if not isinstance(key, str):
            raise TypeMismatchError(f"property key must be a str, got {type(key).__name__}")
        text_utf8(key, "property key")  # stored at close: refuse it now
        if type(value) is not bytes:
            raise TypeMismatchError(
                f"property value of {key!r} must be bytes, got {type(value).__name__}"
            )
        plain = dict(DEFAULT_PROPERTIES)
        if key in plain and value != plain[key]:
            # encryptLevel b"1" over plain pages made a file no reader can read (ours refuses
            # it as encrypted; a decrypting reader would decode garbage)
            raise UnsupportedError(
                f"property {key!r} describes the encryption of the pages, which this writer "
                f"writes unencrypted: it stays {plain[key]!r} (got {value!r})"
            )
        self._properties[key] = value

    # -- tree model -------------------------------------------------------------------------------

    @_locked
    def register_timeseries(self, device_name, timeseries_schema) -> None:
        """Tree model: add the series `timeseries_schema` (a TimeseriesSchema: name, type,
        encoding, compression) to the device `device_name` (a path such as "root.sg1.d1").
        A series registered twice is refused (AlreadyExistsError)."""
        self._check_open()
        self._register_series(device_name, timeseries_schema)

    @_locked
    def register_device(self, device_schema, aligned=False) -> None:
        """Tree model: register every series of a DeviceSchema (all or none).

        aligned=True (an extension; the official Python writer writes non-aligned devices
        only): the device's series share one time column, written as a time chunk and one
        value chunk per series in every chunk group, the layout of Java/IoTDB's aligned
        devices, which the official readers read. Its series are all given here (no
        register_timeseries for it later)."""
        self._check_open()
        if not isinstance(device_schema, DeviceSchema):
            raise TypeError("register_device needs a DeviceSchema")
        path = device_schema.get_device_name()
        series = device_schema.get_timeseries_list()
        names = [s.get_timeseries_name() for s in series]
        if len(set(names)) != len(names):
            raise ValueError(f"device {path!r} names a series twice")
        for schema in series:
            self._check_series_schema(path, schema)
        if aligned:
            self._tree.register_aligned(path, series)
            return
        known = self._tree.devices.get(path)
        for name in names:
            if known is not None and name in known.series:
                raise AlreadyExistsError(f"device {known.path!r} already has a series {name!r}")
        for schema in series:
            self._tree.register(path, schema)

    def _register_series(self, device_name, schema):
        self._check_series_schema(device_name, schema)
        self._tree.register(device_name, schema)

    def _check_series_schema(self, device_name, schema):
        """Refuse what could only fail later: an encoding the type cannot have, an unknown
        compression, a path that is not UTF-8 or that falls under a table's index."""
        from tsfile.schema import TimeseriesSchema

        if not isinstance(schema, TimeseriesSchema):
            raise TypeError(f"expected a TimeseriesSchema, got {type(schema).__name__}")
        encoders.check_supported(schema.get_encoding_type(), schema.get_data_type())
        _check_compression(schema.get_compression_type())
        text_utf8(str(device_name), "device path")
        if device_name not in self._tree.devices and (
            str(device_name).split(".", 1)[0].lower() in self._tables
            # the table index the device is stored under (what register_table checks)
            or device_segments(device_name)[0].lower() in self._tables
        ):
            raise ValueError(f"device {device_name!r} would share its index with a table")

    @_locked
    def write_row_record(self, record) -> None:
        """Tree model: one row of one registered device (a RowRecord). Each field must name a
        registered series of the device; its value is checked against the series' type
        (TypeMismatchError naming the series); a None value writes nothing for that series."""
        self._check_open()
        from tsfile.tree import RowRecord

        if not isinstance(record, RowRecord):
            raise TypeError("write_row_record needs a RowRecord")
        dev, times, points = self._tree.row_points(record)
        self._stage_tree(dev, times, points)

    @_locked
    def write_tablet(self, tablet: Tablet) -> None:
        """Tree model: the rows of a Tablet whose target name (set_table_name) is a registered
        device path and whose columns are series of that device. Null cells write nothing for
        their series; rows without a timestamp are skipped."""
        self._check_open()
        if not isinstance(tablet, Tablet):
            raise TypeError("write_tablet needs a Tablet")
        dev, times, points = self._tree.tablet_points(tablet)
        self._stage_tree(dev, times, points)

    def _stage_tree(self, dev, times, points) -> None:
        staged = self._tree.check_times(dev, times, points)
        if dev.aligned:
            self._check_aligned_pages(dev, times, staged)
        else:
            for name, ts, values in staged:
                self._check_series_pages(dev, name, ts, values)
        self._tree.stage(dev, times, staged)
        if self._tree.pending_bytes + self._buffered_bytes >= self._memory_threshold:
            self._flush()

    def _check_series_pages(self, dev, name, ts, values) -> None:
        """Encodings that can lose values (encoders.page_loss): trial-encode the pages flush will
        write for the series (its buffered points and the call's, in time order; when the call's
        points all follow the buffered ones, from the last partial page on), so that a value a
        page would not store is refused at the call (EncodeError) and a flush never fails for
        accepted points."""
        schema = dev.series[name]
        if encoders.page_loss(schema.encoding_type, schema.data_type) is None:
            return
        held = self._tree.pending.get(dev.segments, {}).get(name)
        times, vals = ts, np.asarray(values)
        if held is not None:
            old_t, old_v = held.sorted_points(schema.data_type)
            start = 0
            if int(ts.min()) > held.hi:  # appended: pages before the last partial one are as
                start = old_t.shape[0] // self._page_size * self._page_size  # flush writes them
            times = np.concatenate([old_t[start:], ts])
            vals = np.concatenate([old_v[start:], vals])
        order = np.argsort(times, kind="stable")
        try:
            series_chunk(
                name,
                schema.data_type,
                schema.encoding_type,
                Compressor.UNCOMPRESSED,
                times[order],
                vals[order],
                self._page_size,
                self._time_encoding,
            )
        except EncodeError as exc:
            raise EncodeError(f"device {dev.path!r}, {exc}") from None

    def _check_aligned_pages(self, dev, times, staged) -> None:
        """An aligned device with a lossy series (encoders.page_loss): build its chunks from the
        buffered rows and the call's, as flush will, so that a value a page would not store is
        refused at the call (EncodeError)."""
        lossy = [
            name
            for name, s in dev.series.items()
            if encoders.page_loss(s.encoding_type, s.data_type) is not None
        ]
        if not lossy:
            return
        held = self._tree.pending.get(dev.segments, {})
        points = {}
        for name in lossy:
            parts = (
                [] if name not in held else [held[name].sorted_points(dev.series[name].data_type)]
            )
            parts += [(ts, values) for n, ts, values in staged if n == name]
            if parts:
                ts = np.concatenate([p[0] for p in parts])
                vals = np.concatenate([np.asarray(p[1]) for p in parts])
                order = np.argsort(ts, kind="stable")
                points[name] = (ts[order], vals[order])
        rows = np.sort(np.concatenate([self._tree.buffered_rows(dev.segments), times]))
        self._aligned_tree_chunks(dev, rows, points, only=lossy)

    def _aligned_tree_chunks(self, dev, times, points, only=None) -> list:
        """The chunks of an aligned tree device's chunk group: the time chunk of the rows
        `times` (sorted), then a value chunk per series (all of them, or `only`) in measurement
        order; points: {measurement: (times, values)} of its non-null values, sorted by time."""
        bounds = page_bounds(times.shape[0], self._page_size)
        chunks = [
            ("", T.VECTOR, time_chunk(times, bounds, self._time_compression, self._time_encoding))
        ]
        for name in sorted(only or dev.series, key=lambda s: s.encode("utf-8")):
            schema = dev.series[name]
            dt = schema.data_type
            ts, values = points.get(
                name, (times[:0], [] if dt.is_binary else np.zeros(0, dt.numpy_dtype))
            )
            present = None if ts.shape[0] == times.shape[0] else np.isin(times, ts)
            try:
                chunk = value_chunk(
                    name,
                    dt,
                    schema.encoding_type,
                    schema.compression_type,
                    values,
                    present,
                    times,
                    bounds,
                )
            except EncodeError as exc:
                raise EncodeError(f"device {dev.path!r}, {exc}") from None
            chunks.append((name, dt, chunk))
        return chunks

    def _write_tree_group(self, segments, buffered, rows=None) -> None:
        """One chunk group of a tree-model device: a non-aligned chunk per series with points,
        in measurement order (as the official writer orders them); for an aligned device (rows:
        its row times) a time chunk and a value chunk per series."""
        dev = self._tree.by_segments[segments]
        if dev.aligned:
            points = {
                name: b.sorted_points(dev.series[name].data_type) for name, b in buffered.items()
            }
            self._emit_chunk_group(segments, self._aligned_tree_chunks(dev, rows, points))
            return
        chunks = []
        for name in sorted(buffered, key=lambda s: s.encode("utf-8")):
            schema = dev.series[name]
            times, values = buffered[name].sorted_points(schema.data_type)
            try:
                chunk = series_chunk(
                    name,
                    schema.data_type,
                    schema.encoding_type,
                    schema.compression_type,
                    times,
                    values,
                    self._page_size,
                    self._time_encoding,
                )
            except EncodeError as exc:
                raise EncodeError(f"device {dev.path!r}, {exc}") from None
            chunks.append((name, schema.data_type, chunk))
        self._emit_chunk_group(segments, chunks)

    # -- writing ----------------------------------------------------------------------------------

    @_locked
    def write_table(self, tablet: Tablet) -> None:
        """Write the rows of a tablet (rows without a timestamp are skipped). Its columns are
        checked against the table schema's types (TypeMismatchError names the tablet row); a
        DATE column of the tablet goes only into a DATE column."""
        self._check_open()
        if not isinstance(tablet, Tablet):
            raise TypeError("write_table needs a Tablet")
        table = self._table(tablet.get_target_name())
        _refuse_dates_into_other_types(table, tablet)
        times, columns, rows = tablet._export()
        try:
            self._add(table, times, columns)
        except (TypeMismatchError, OutOfOrderError) as exc:
            row = getattr(exc, "row", None)
            if rows is None or row is None:
                raise
            if isinstance(exc, OutOfOrderError):
                earlier = None if exc.earlier is None else rows[exc.earlier]
                raise _duplicate_time(exc.device, exc.timestamp, rows[row], earlier) from None
            raise mismatch(exc.reason, exc.column, rows[row]) from None

    @_locked
    def write_arrays(self, table_name, timestamps, columns, null_masks=None) -> None:
        """The numpy fast path: timestamps and {column: array or scalar}.

        timestamps: integers (integral floats accepted), or datetime64 / datetimes, converted to
        milliseconds (tsfile._write.values.to_timestamps). TAG columns may be scalars (all rows
        belong to one device: nothing to group) or arrays (rows are grouped by device). FIELD
        columns are arrays converted exactly to the schema's type, doubles to FLOAT rounded to
        float32 (tsfile._write.values has the rules; TypeMismatchError names the column and the
        first bad row). DATE: int yyyyMMdd, datetime.date objects or datetime64 days;
        BOOLEAN/INT/FLOAT columns of the schema's dtype without nulls are encoded straight from
        the array. null_masks = {column: bool array, True = null} (a scalar column too: the
        scalar in the other rows); a numpy.ma.MaskedArray brings its own mask; None in object
        arrays and NaT are null. NaN is a value, not a null. Columns of the schema that are not
        given are null. A column given twice (names differ only in case) is refused, and so is
        a null_masks key that names no column of the table (ColumnNotExistError). A masked
        timestamp is refused."""
        self._check_open()
        table = self._table(table_name)
        ts = to_timestamps(timestamps, _time_name(table))
        columns = _by_lower_name(columns, "column")
        masks = _by_lower_name(null_masks or {}, "null mask")
        for key in masks:
            if not table.schema.has_column(key):
                raise ColumnNotExistError(
                    f"null_masks names {key!r}, which is not a column of table {table.name!r}"
                )
        masks = {k: np.asarray(v, dtype=bool) for k, v in masks.items()}
        cols = {}
        for key, data in columns.items():
            mask = masks.get(key)
            if np.ndim(data) == 0 and not isinstance(data, np.ma.MaskedArray):
                if mask is None:
                    cols[key] = data
                    continue
                # A scalar stands for every row; its null mask says which rows are null (taking
                # the scalar alone would store it in the rows the caller made null).
                data = np.full(ts.shape[0], data, dtype=object)
            if isinstance(data, np.ma.MaskedArray):
                m = np.ma.getmaskarray(data)
                mask = m if mask is None else mask | m
                data = data.data
            cols[key] = (np.asarray(data), None if mask is None else ~mask)
        self._add(table, ts, cols)

    @_locked
    def write_dataframe(self, table_name, dataframe, table_schema=None) -> None:
        """Write a pandas DataFrame: a time column (the schema's TIME column, else `time`), the
        other columns matched to the schema case-insensitively; missing values (None, NaN, NA,
        NaT) are nulls, as in the official package (a null time is refused). Values are
        converted exactly to the schema's types, doubles to FLOAT rounded to float32
        (TypeMismatchError names the column and the
        first bad row, a position in the DataFrame); datetime columns (any unit, tz-naive = UTC
        or tz-aware) become milliseconds. table_schema (the official signature's third
        argument) registers the table first if it is not registered yet."""
        self._check_open()
        if table_schema is not None and table_schema.get_table_name() not in self._tables:
            self.register_table(table_schema)
        table = self._table(table_name)
        if dataframe is None or len(dataframe) == 0:
            raise ValueError("DataFrame cannot be None or empty")
        lower = {}
        for c in dataframe.columns:
            key = str(c).lower()
            if key in lower:
                raise ValueError(f"duplicate column {c!r} (column names are case-insensitive)")
            lower[key] = c
        tname = _time_name(table)
        if tname not in lower:
            raise ValueError(f"the DataFrame has no time column {tname!r}")
        tseries = dataframe[lower[tname]]
        isna = tseries.isna().to_numpy()
        if isna.any():
            raise mismatch("a null is not a timestamp", tname, int(np.argmax(isna)))
        ts = to_timestamps(_series_values(tseries), tname)
        cols = {}
        for key, orig in lower.items():
            if key == tname:
                continue
            column = table.schema.get_column(key) if table.schema.has_column(key) else None
            if column is None:
                raise ColumnNotExistError(f"{key!r} is not a column of table {table.name!r}")
            series = dataframe[orig]
            if column.category == ColumnCategory.TAG:
                # Factorize on the pandas side: no object array of the whole column is built.
                codes, uniques = series.factorize(use_na_sentinel=True)
                cols[key] = _Codes(np.asarray(codes, dtype=np.int64), list(uniques))
                continue
            isna = series.isna().to_numpy()
            cols[key] = (_series_values(series, column.data_type), ~isna if isna.any() else None)
        self._add(table, ts, cols)

    @_locked
    def write_arrow_batch(self, table_name, data, time_col_index=-1) -> None:
        """Write a pyarrow RecordBatch / Table (with its time column: integers or timestamps of
        any unit, which become milliseconds). Values are checked as in write_arrays."""
        self._check_open()
        table = self._table(table_name)
        names = [str(n).lower() for n in data.schema.names]
        tname = _time_name(table)
        if time_col_index is not None and time_col_index >= 0:
            tname = names[time_col_index]
        if tname not in names:
            raise ValueError(f"time column {tname!r} not found in the Arrow schema")
        cols = {}
        ts = None
        for name, col in zip(names, data.columns, strict=False):
            if name == tname:
                if col.null_count:
                    nulls = np.asarray(col.is_null().to_numpy(zero_copy_only=False), dtype=bool)
                    raise mismatch("a null is not a timestamp", tname, int(np.argmax(nulls)))
                ts = to_timestamps(np.asarray(col.to_numpy(zero_copy_only=False)), tname)
                continue
            col = _arrow_local_dates(table, name, col)
            if col.null_count:
                import pyarrow as pa

                mask = np.asarray(col.is_null().to_numpy(zero_copy_only=False), dtype=bool)
                if pa.types.is_boolean(col.type):
                    col = col.fill_null(False)
                elif pa.types.is_integer(col.type) or pa.types.is_floating(col.type):
                    col = col.fill_null(pa.scalar(0, col.type))  # else to_numpy gives floats
            else:
                mask = None
            arr = np.asarray(col.to_numpy(zero_copy_only=False))
            cols[name] = (arr, None if mask is None else ~mask)
        self._add(table, ts, cols)

    # -- internals ------------------------------------------------------------------------------

    def _check_open(self):
        if self._closed:
            raise WriterClosedError("the writer is closed")
        if self._torn:
            raise TsFileError(
                "an earlier write to the file failed part way: no more rows can be written; "
                "close() completes the file with the chunk groups written before"
            )

    def _field_array(self, table, name, arr, present):
        """Convert one FIELD column exactly to its storage dtype; returns (values, present or
        None). TypeMismatchError for the first row that does not fit (values.to_storage)."""
        column = table.field_by_name[name]
        n = arr.shape[0]
        if present is not None:
            present = np.ascontiguousarray(present, dtype=bool)
            if present.shape[0] != n:
                raise ValueError(f"null mask of {name!r} has {present.shape[0]} values, not {n}")
        if arr.dtype == object:
            isnone = np.equal(arr, None)
            if isnone.any():
                present = ~isnone if present is None else present & ~isnone
        values, present = to_storage(name, column.data_type, arr, present)
        if present is not None and present.all():
            present = None
        return values, present

    def _add(self, table: _Table, times, columns) -> None:
        """Check a write call's rows and buffer them, all or none: the values (_add_rows), then
        per device the timestamps (_check_times) and the pages of lossy encodings (_check_pages),
        and only then is anything buffered; so a later flush cannot fail for these rows. A call
        that would be flushed at once as its own chunk group is written without being buffered
        (_written_alone), its time order checked by the time chunk's encode."""
        self._fresh = []
        pieces = self._add_rows(table, times, columns)
        if self._written_alone(table, pieces):
            return
        spans = []
        for dev, piece, origin in pieces:
            appended, lo, hi = self._check_times(dev, piece, origin)
            if table.page_checks:
                self._check_pages(table, dev, piece, appended)
            spans.append(((lo, hi), appended))
        for (dev, piece, _), (span, appended) in zip(pieces, spans, strict=True):
            self._append(dev, piece, span, appended)
        if self._buffered_bytes < self._memory_threshold:
            self._detach(self._fresh, times, columns)
        else:
            try:
                self._flush()
            except BaseException:
                # A flush stopped part way (Ctrl-C: other errors end the flush with the
                # buffers cleared) leaves rows of this call buffered: they are kept as copies.
                buffered = {id(p) for ps in self._buffers.values() for p in ps}
                self._detach([p for p in self._fresh if id(p) in buffered], times, columns)
                raise
        self._fresh = []

    def _written_alone(self, table, pieces) -> bool:
        """Write a call's rows at once as their own chunk group when they would be (one
        device, nothing else buffered, reaching memory_threshold), with their time order
        checked by the time chunk's encode (page by page while it reads them, in C) rather
        than by a pass of its own before any chunk is started (_check_times): the check is
        known before anything of the group is written to the file. Whether they were written:
        False when the times do not rise strictly (nothing written; the caller takes the checked
        path, which sorts them or refuses a duplicate) or when the call is not such a call.
        An error while the group is built or written is raised as a flush's."""
        if len(pieces) != 1 or self._buffers or self._tree.pending or table.page_checks:
            return False
        dev, piece, _ = pieces[0]
        if piece.times.shape[0] < 2 or _piece_bytes(piece) < self._memory_threshold:
            return False
        times, fields, runs = _concat(table, [piece])
        try:
            group = self._start_chunk_group(table, dev, times, fields, runs, check_order=True)
            self._write_group(group, hand_off=True)
        except TimesDoNotRise:
            return False
        except Exception as exc:
            raise _flush_error([(exc, dev, times.shape[0])], self._torn) from None
        return True

    def _detach(self, pieces, times, columns) -> None:
        """Rows that stay buffered must not alias the caller's arrays (a Tablet refilled and
        written again, an array reused): copy the views of them in `pieces` now."""
        inputs = [times]
        for item in columns.values():
            if isinstance(item, tuple):
                inputs.extend(x for x in item if isinstance(x, np.ndarray))
        for piece in pieces:
            piece.detach(inputs, self._copies)

    def _add_rows(self, table: _Table, times, columns) -> list:
        """The rows of a write call, converted and checked, as [(device, _Piece, origin)]: origin
        maps a piece's rows back to the call's (None: the same rows, an int: an offset, an array:
        the rows)."""
        n = times.shape[0]
        tag_arrays = []
        fields = {}
        for name, item in columns.items():
            if table.time_column is not None and name == table.time_column.column_name:
                continue
            if not table.schema.has_column(name):
                raise ColumnNotExistError(f"{name!r} is not a column of table {table.name!r}")
            column = table.schema.get_column(name)
            if column.category == ColumnCategory.TIME:
                continue
            if column.category == ColumnCategory.ATTRIBUTE:
                continue  # attributes are not stored in TsFile chunks
            if isinstance(item, _Codes):
                if column.category != ColumnCategory.TAG or item.codes.shape[0] != n:
                    raise ValueError(f"column {name!r}: bad factorized tag column")
                tag_arrays.append((name, item, None))
                continue
            if isinstance(item, tuple):
                arr, present = item
                if arr.ndim != 1 or arr.shape[0] != n:
                    raise ValueError(f"column {name!r} must be 1-D with {n} values")
            else:
                arr, present = None, None
            if column.category == ColumnCategory.TAG:
                if arr is None:
                    continue
                tag_arrays.append((name, arr, present))
                continue
            if arr is None:  # a scalar for every row of a FIELD column
                if item is None:
                    continue
                try:
                    value = check_value(column.data_type, item)
                except TypeMismatchError as exc:
                    raise mismatch(exc.reason, name) from None
                if column.data_type.is_binary:
                    arr = np.empty(n, dtype=object)
                    arr[:] = [value] * n
                else:
                    arr = np.full(n, value, dtype=storage_dtype(column.data_type))
                present = None
            fields[name] = self._field_array(table, name, arr, present)
        if n == 0:
            return []
        const_tags = {}
        for name in table.tags:
            item = columns.get(name)
            if item is not None and not isinstance(item, (tuple, _Codes)):
                check_tag_value(name, item)
                const_tags[name] = item
        if not tag_arrays:
            dev = (table.name, *(const_tags.get(t) for t in table.tags))
            return [(dev, _Piece(times, fields), None)]
        return self._add_grouped(table, times, fields, const_tags, tag_arrays)

    def _add_grouped(self, table, times, fields, const_tags, tag_arrays) -> list:
        """Rows of several devices: group them by their tag values ([(device, piece, origin)])."""
        n = times.shape[0]
        out = []
        codes = []
        uniques = {}
        for name, arr, present in tag_arrays:
            if isinstance(arr, _Codes):
                code, values = _codes_with_null(name, arr)
            else:
                code, values = _factorize(name, arr, present)
            codes.append(code)
            uniques[name] = values
        if len(codes) == 1:
            dev_code = codes[0]
        else:
            _, dev_code = np.unique(np.stack(codes, axis=1), axis=0, return_inverse=True)
            dev_code = dev_code.reshape(-1)
        order = np.argsort(dev_code, kind="stable")
        sorted_codes = dev_code[order]
        starts = np.flatnonzero(np.r_[True, sorted_codes[1:] != sorted_codes[:-1]])
        ends = np.r_[starts[1:], n]
        names = [t[0] for t in tag_arrays]
        for a, b in zip(starts.tolist(), ends.tolist(), strict=False):
            idx = order[a:b]
            first = int(idx[0])
            seg = dict(const_tags)
            for k, name in enumerate(names):
                seg[name] = uniques[name][int(codes[k][first])]
            dev = (table.name, *(seg.get(t) for t in table.tags))
            origin = idx
            if a == 0 and b == n:
                piece = _Piece(times, fields)
                origin = None
            elif int(idx[-1]) - first == b - a - 1:
                # The group's rows are contiguous (idx is increasing): views, no copies.
                sl = slice(first, first + b - a)
                origin = first
                piece = _Piece(
                    times[sl],
                    {k: (v[sl], None if p is None else p[sl]) for k, (v, p) in fields.items()},
                )
            else:
                runs = np.flatnonzero(np.diff(idx) != 1) + 1
                piece = _Piece(
                    times[idx],
                    {k: (v[idx], None if p is None else p[idx]) for k, (v, p) in fields.items()},
                    np.concatenate(([0], runs)).astype(np.int64),
                )
            out.append((dev, piece, origin))
        return out

    def _check_times(self, dev, piece, origin) -> tuple[bool, int, int]:
        """Refuse a timestamp that the device gets twice, within this call or against its rows
        buffered since the last flush (OutOfOrderError, as the official writer; across flushes
        both rows are written, as the official writer does). Returns whether the piece's rows all
        come after the buffered ones in time order (the common case), and their lowest and
        highest timestamp."""
        times = piece.times
        n = times.shape[0]
        if n > 1 and not self._rising(times):
            order = np.argsort(times, kind="stable")
            ordered = times[order]
            same = np.flatnonzero(ordered[1:] == ordered[:-1])
            if same.size:
                # The duplicate met first in the call's row order: its later row.
                later = np.maximum(order[same], order[same + 1])
                k = int(np.argmin(later))
                row, earlier = int(later[k]), int(min(order[same[k]], order[same[k] + 1]))
                raise _duplicate_time(
                    dev, int(times[row]), _call_row(origin, row), _call_row(origin, earlier)
                )
            lo, hi, ascending = int(ordered[0]), int(ordered[-1]), False
        else:
            lo, hi, ascending = int(times[0]), int(times[-1]), True
        span = self._spans.get(dev)
        if span is None or lo > span[1]:
            return ascending, lo, hi
        if hi >= span[0]:
            buffered = np.concatenate([p.times for p in self._buffers[dev]])
            again = np.isin(times, buffered)
            if again.any():
                row = int(np.argmax(again))
                raise _duplicate_time(dev, int(times[row]), _call_row(origin, row), None)
        return False, lo, hi

    def _rising(self, times) -> bool:
        """Whether `times` rise strictly (chunk_encode.strictly_increasing, without the GIL). A
        large array with threads > 1 is checked in as many parts at once, by this thread and the
        writer's pool: the check is one pass over memory that one core reads at a fraction of
        the machine's bandwidth, and no chunk can be built before it is done."""
        times = np.ascontiguousarray(times, dtype=np.int64)
        n = times.shape[0]
        parts = self._threads if n >= self._threads * _SPLIT_CHECK_MIN_ROWS else 1
        if parts == 1:
            return chunk_encode.strictly_increasing(times)
        cuts = [k * n // parts for k in range(parts + 1)]
        # each part from the last value of the part before: every neighbour pair is compared
        later = [
            self._builders().submit(chunk_encode.strictly_increasing, times[a - 1 : b])
            for a, b in zip(cuts[1:-1], cuts[2:], strict=True)
        ]
        first = chunk_encode.strictly_increasing(times[: cuts[1]])
        return all([f.result() for f in later]) and first

    def _builders(self):
        """The writer's pool of `threads` threads (started on first use)."""
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(self._threads, thread_name_prefix="tsfile-writer")
        return self._pool

    def _check_pages(self, table, dev, piece, appended) -> None:
        """Trial-encode, for each lossy column (encoders.page_loss), the pages flush would write
        for this device once the piece is buffered, and refuse the call (EncodeError, nothing
        buffered) if one would not decode to its values (format notes 8.9, 8.11). Rows that
        come after the buffered ones (appended) only change the last page on: the pages before
        it were checked by earlier calls. Otherwise the device's buffered rows are checked
        again in time order. Cost: every value of such a column is encoded twice (here and at
        flush), plus the last partial page once per call."""
        buffered = self._buffers.get(dev, [])
        old_rows = sum(p.times.shape[0] for p in buffered)
        skip = 0
        if appended:
            start = old_rows - old_rows % self._page_size
            tail, have = [], 0
            for p in reversed(buffered):
                if have >= old_rows - start:
                    break
                tail.append(p)
                have += p.times.shape[0]
            pieces = [*reversed(tail), piece]
            skip = start - (old_rows - have)
        else:
            pieces = [*buffered, piece]
        times, fields, _ = _concat(table, pieces)
        order = None
        if not appended and times.shape[0] > 1:
            order = np.argsort(times, kind="stable")
            times = times[order]
        times = times[skip:]
        bounds = page_bounds(times.shape[0], self._page_size)
        for name, (encode, loses) in table.page_checks.items():
            values, present = fields.get(name, (None, None))
            if values is None:
                continue
            if order is not None:
                values = values[order]
                present = None if present is None else present[order]
            values = values[skip:]
            present = None if present is None else present[skip:]
            for r0, r1 in zip(bounds[:-1], bounds[1:], strict=True):
                page = values[r0:r1]
                page_times = times[r0:r1]
                if present is not None:
                    page, page_times = page[present[r0:r1]], page_times[present[r0:r1]]
                if page.shape[0] == 0:
                    continue
                lost = loses(page, encode(page))
                if lost is not None:
                    raise _unstorable(table, dev, name, page, page_times, lost)

    def _append(self, dev, piece, times_span, appended):
        """Buffer a checked piece of device dev (appended: its rows are in time order and come
        after the device's buffered rows)."""
        self._buffers.setdefault(dev, []).append(piece)
        if not appended:
            self._unordered.add(dev)
        self._fresh.append(piece)
        lo, hi = times_span
        span = self._spans.get(dev)
        self._spans[dev] = (lo, hi) if span is None else (min(lo, span[0]), max(hi, span[1]))
        self._buffered_bytes += _piece_bytes(piece)

    @_locked
    def flush(self) -> None:
        """Write the buffered rows: one chunk group per device, in device order.

        A device whose rows cannot be written (an EncodeError, see the module docstring, or any
        other error while its chunks are built) gets no chunk group: the other devices are
        written, the rows of that device buffered since the last flush are dropped, and the
        first error is raised at the end. The writer stays usable and close() completes the
        file. An error while writing bytes to the file (OSError) stops the flush: the rows not
        yet written are dropped, and close() ends the file after the last complete chunk group."""
        self._check_open()
        self._flush()

    def _flush(self):
        failed = []
        pending = self._pending
        try:
            self._settle()  # flush() puts the group of an earlier call written alone in the file
        except Exception as exc:
            failed.append((exc, pending.dev, pending.rows))  # torn: nothing more is written
        # Table chunk groups started (their chunks being built on the pool), not yet written,
        # oldest first: the next group is started before the last one is written, so that the
        # pool's threads go on from one group to the next instead of waiting for the writes.
        started = []
        try:
            for dev in sorted([*self._buffers, *self._tree.pending], key=sort_key):
                if self._torn:
                    break
                if dev in self._tree.pending:
                    self._write_started(started, failed, keep=0)
                    if self._torn:
                        break
                    buffered, rows = self._tree.take(dev)
                    try:
                        self._write_tree_group(dev, buffered, rows)
                    except Exception as exc:
                        failed.append((exc, dev, sum(b.count for b in buffered.values())))
                    continue
                pieces = self._buffers.pop(dev)
                table = self._tables[dev[0]]
                try:
                    times, fields, runs = _concat(table, pieces)
                    ordered = dev not in self._unordered
                    group = self._start_chunk_group(table, dev, times, fields, runs, ordered)
                except Exception as exc:
                    # (its buffers are not used again: the traceback still refers to the rows)
                    self._write_started(started, failed, keep=0)
                    failed.append((exc, dev, _piece_rows(pieces)))
                    continue
                started.append((group, pieces))
                self._write_started(started, failed, keep=1)
            self._write_started(started, failed, keep=0)
        finally:
            # Groups never written (a write failed, or the flush was interrupted): their builds
            # are stopped and their rows stay buffered, as those of the devices not reached.
            for group, pieces in started:
                group.abandon()
                self._buffers[group.dev] = pieces
            # interrupted (else cleared below): the rows of the device being written are gone,
            # the record of what is buffered must not name them (_check_times reads the buffers
            # of a device with a span)
            self._forget_unbuffered()
        # A write to the file failed: the devices not reached are dropped below with the rest;
        # the error must name them too, or their accepted rows would vanish without a word.
        unreached = []
        if self._torn and failed:
            unreached = [(dev, _piece_rows(pieces)) for dev, pieces in self._buffers.items()]
            unreached += [
                (dev, sum(b.count for b in series.values()))
                for dev, series in self._tree.pending.items()
            ]
        self._buffers.clear()
        self._tree.clear()
        self._spans.clear()
        self._unordered.clear()
        self._buffered_bytes = 0
        if failed:
            raise _flush_error(failed, self._torn, unreached)

    def _forget_unbuffered(self) -> None:
        """Drop what is recorded of devices whose rows are no longer buffered (a flush stopped
        part way): their spans and order, and their bytes from _buffered_bytes."""
        for dev in [d for d in self._spans if d not in self._buffers]:
            del self._spans[dev]
        self._unordered &= self._buffers.keys()
        self._buffered_bytes = sum(_piece_bytes(p) for ps in self._buffers.values() for p in ps)

    def _write_started(self, started, failed, keep):
        """Write the oldest started chunk groups until `keep` remain (none once the file is
        torn); a group that cannot be built is recorded in `failed`, as a device that failed."""
        while len(started) > keep and not self._torn:
            group, pieces = started.pop(0)
            try:
                self._write_group(group)
            except Exception as exc:
                failed.append((exc, group.dev, _piece_rows(pieces)))
            else:
                self._copies.give_back(pieces)

    def _start_chunk_group(
        self, table, dev, times, fields, runs=None, ordered=False, check_order=False
    ):
        """Start building the chunk group of device dev from its buffered rows (ordered: known
        to be in time order already, so not checked again; check_order: taken to be in order,
        the time chunk's build checks it and raises TimesDoNotRise, from here or from the
        group's first chunk, if they are not): a _GroupBuild for _write_group."""
        n = times.shape[0]
        if not (ordered or check_order) and n > 1 and not bool((times[1:] >= times[:-1]).all()):
            order = np.argsort(times, kind="stable")
            times = times[order]
            fields = {
                k: (v[order], None if p is None else p[order]) for k, (v, p) in fields.items()
            }
            runs = None  # reordered rows: the write segments mean nothing any more
        times = np.ascontiguousarray(times)
        bounds = page_bounds(n, self._page_size)
        segments = None
        if runs is not None:
            segments = np.union1d(np.asarray(bounds, dtype=np.int64), runs)
        # A chunk that cannot be encoded (EncodeError) leaves the file and the index as they were
        # (_stream_chunk_group cuts off what it wrote of the group).
        ranges = self._threads if n >= self._threads * _RANGE_MIN_ROWS else 1
        # the group's last chunk in shorter runs: the threads finish the group together
        last_ranges = ranges * _LAST_CHUNK_SPLIT if ranges > 1 else 1
        specs = [
            functools.partial(
                time_chunk_build,
                times,
                bounds,
                self._time_compression,
                self._time_encoding,
                ranges=ranges if table.fields else last_ranges,
                check_order=check_order,
            )
        ]
        specs += [
            functools.partial(
                _value_chunk,
                dev,
                table,
                column,
                fields,
                times,
                bounds,
                segments,
                last_ranges if k == len(table.fields) - 1 else ranges,
            )
            for k, column in enumerate(table.fields)
        ]
        names = [("", T.VECTOR), *((c.column_name, c.data_type) for c in table.fields)]
        if self._threads == 1 and (not self._overlap or n * len(names) < _STREAM_MIN_VALUES):
            chunks = [
                (
                    name,
                    dt,
                    _with_device(dev, spec).run(functools.partial(_run_chunk_job, dev, name)),
                )
                for (name, dt), spec in zip(names, specs, strict=True)
            ]
            return _GroupBuild(dev, table, names, chunks=chunks)
        return _GroupBuild(dev, table, names, works=self._submit_chunks(dev, names, specs))

    def _submit_chunks(self, dev, names, specs) -> list:
        """Start the builds of a chunk group's chunks (specs: () -> ChunkBuild, light work done
        here) and hand their jobs to the writer's pool, chunk by chunk in file order: a
        _ChunkWork per chunk. The first chunk's jobs are handed over as soon as it is built,
        and this thread lets go of the GIL once so that the pool's threads start them while
        it builds the other chunks (building them all first left the pool idle meanwhile)."""
        pool = self._builders()
        builds, futures = [], []
        try:
            for batch in (specs[:1], specs[1:]):
                first = len(builds)
                builds += [_with_device(dev, spec) for spec in batch]
                made = zip(names[first : len(builds)], builds[first:], strict=True)
                calls = [
                    functools.partial(_run_chunk_job, dev, name, job)
                    for (name, _), build in made
                    for job in build.jobs
                ]
                futures += _run_in_order(pool, self._threads, calls)
                if first == 0 and len(specs) > 1:
                    time.sleep(0)  # the GIL to the pool's threads, which need it to start
        except BaseException:
            # a build failed: the jobs handed over read the caller's arrays, stop them first
            for f in futures:
                f.cancel()
            wait(futures)
            raise
        taken = iter(futures)
        return [_ChunkWork(b, [next(taken) for _ in b.jobs]) for b in builds]

    def _write_group(self, group, hand_off=False):
        """Write a started chunk group (_start_chunk_group) and index it (hand_off: a group
        built on the pool leaves its last chunk's write to a pool thread, _stream_chunk_group)."""
        if group.works is None:
            self._emit_chunk_group(group.dev, group.chunks, group.table)
        else:
            self._stream_chunk_group(group, hand_off)

    def _ahead_of_close(self, dev, names) -> None:
        """Work of close()'s metadata done while a large group is built (the calling thread
        waits then; close() runs alone): the bloom filter hashes of the series of device dev
        not hashed yet (build_metadata takes them), and the metadata of the series indexed since
        the last call (Series.serialize keeps it until the series gets another chunk). What is
        not done here, close() does."""
        for series, name in self._unserialized.values():
            series.serialize(name)
        self._unserialized.clear()
        full = None
        for name, _ in names:
            if full is None:
                full = device_path(dev)
            path = f"{full}.{name}"
            if path not in self._bloom_hashes:
                self._bloom_hashes[path] = entry_hashes(path, self._bloom_hash_count)

    def _settle(self):
        """Wait for the write handed to the pool (_stream_chunk_group's hand_off) and index its
        chunk group; before anything else touches the file. Its OSError is raised here, with a
        note naming the group, and tears the file (close() ends it before that group)."""
        pending = self._pending
        if pending is None:
            return
        # interrupted while waiting: still pending (and torn until indexed, as any group
        # whose bytes are on their way to the OS)
        self._torn = True
        try:
            pending.future.result()
        except BaseException as exc:
            if not pending.future.done():
                raise
            self._pending = None
            dev = pending.dev
            exc.add_note(
                f"table {dev[0]!r}, device {dev[1:]!r}: the last chunk of its chunk group "
                f"(written by an earlier write call, {pending.rows} rows) could not be written; "
                "that group is not in the file"
            )
            raise
        self._pending = None
        self._index_chunk_group(pending.dev, pending.chunks, pending.table, pending.head)
        self._torn = False

    def _emit_chunk_group(self, dev, chunks, table=None):
        """Write one chunk group (the device's header, then `chunks` [(name, type, Chunk)]) and
        index it once the OS has all its bytes."""
        self._settle()
        out = [_group_header(dev)]
        for _, _, chunk in chunks:
            out.extend(chunk.parts)
        # Until the group is indexed, whatever stops this (an OSError, Ctrl-C) leaves some of
        # its bytes in the file: close() cuts them off.
        self._torn = True
        self._file.writelines(out)
        self._index_chunk_group(dev, chunks, table, len(out[0]))
        self._torn = False

    def _index_chunk_group(self, dev, chunks, table, header_size):
        """Record the chunks of a chunk group that is in the file (from self._pos on, after its
        header of header_size bytes) in the index, and move self._pos past it."""
        pos = self._pos + header_size
        series = self._devices.setdefault(dev, {})
        for name, dt, chunk in chunks:
            entry = series.setdefault(name, Series(dt))
            entry.add_chunk(pos, chunk.statistics)
            self._unserialized[id(entry)] = (entry, name)
            pos += chunk.size
            used = None if table is None else table.chunk_encodings.get(name)
            if used is not None:
                used.add(chunk.encoding)
        self._pos = pos
        names = [name for name, _, _ in chunks]
        self._chunk_path_count += cpp_path_count(names, self._last_chunk_name)
        self._last_chunk_name = names[-1]

    def _stream_chunk_group(self, group, hand_off=False):
        """Write the chunks of a chunk group being built on the writer's pool (`threads` threads),
        in order, each as soon as it is built, while the later ones are still being built:
        writing chunk k (os.writev releases the GIL, and may block on the page cache's dirty
        limit) overlaps building chunk k + 1. The file's bytes are those of _emit_chunk_group;
        the group is indexed once the OS has all of them.

        hand_off (a write call's rows written on their own, _written_alone): once every chunk is
        built (the caller's arrays are not read any more), the last chunk's write is handed to
        a pool thread and this returns: the call returns while the OS takes those bytes, and the
        next call's set-up overlaps that write instead of leaving the pool idle. The group is
        indexed by _settle(), which whatever touches the file next (a group, flush(), close())
        calls first; an OSError of that write is raised there.

        A chunk that cannot be built leaves the file and the index as they were: the bytes of
        the group written so far are cut off again (self._file.cut) and the first failure in
        file order is raised, once no chunk is still being built. A failed write tears the
        file (close() cuts it back to the last complete chunk group), as in _emit_chunk_group."""
        dev, names, works, table = group.dev, group.names, group.works, group.table
        try:
            self._settle()
        except BaseException:
            group.abandon()
            raise
        header = _group_header(dev)
        chunks = []
        write_failed = False
        try:
            for k, ((name, dt), work) in enumerate(zip(names, works, strict=True)):
                chunk = work.result()
                parts = chunk.parts if chunks else [header, *chunk.parts]
                if hand_off and k == len(works) - 1:
                    chunks.append((name, dt, chunk))
                    future = self._builders().submit(_write_and_drop, self._file, chunk, parts)
                    rows = chunks[0][2].statistics.count  # the time chunk's
                    self._pending = _PendingWrite(dev, table, chunks, len(header), future, rows)
                    self._torn = False  # in flight: _settle() indexes it or tears the file
                    # the GIL to the pool thread, which needs it to start the write (else it
                    # waits until this thread blocks, well into the next call's set-up)
                    time.sleep(0)
                    return
                # From the first write until the group is indexed (or cut off below) the file
                # ends in a part of a group: whatever stops this method on the way (even a
                # second Ctrl-C during the clean-up below), close() cuts it off.
                self._torn = True
                try:
                    self._file.writelines(parts)
                except BaseException:
                    write_failed = True
                    raise
                chunk.parts = None  # written: its bytes need not stay in memory
                chunks.append((name, dt, chunk))
                if k == 0:
                    # while the pool builds the next chunks (not before the first: the pool's
                    # threads need the GIL to start)
                    self._ahead_of_close(dev, names)
        except BaseException:
            group.abandon()
            if self._torn and not write_failed:
                # a chunk could not be built: end the file where the group began again
                self._file.cut(self._pos)
                self._torn = False
            raise
        self._index_chunk_group(dev, chunks, table, len(header))
        self._torn = False

    @_locked
    def close(self) -> None:
        """Flush, write the metadata and the tail, close the file.

        Whatever fails on the way (a flush error, an encoder bug, an OSError), close() still
        writes the metadata of every chunk group already in the file, ends the file there and
        closes it, then raises the first error: a file that was written to is always readable,
        with every row flushed before the failure. Only if the tail itself cannot be written
        (a disk that is really full) is the file incomplete, and the error says so.

        overwrite=True: the completed file is renamed over the path (also after a failure,
        since it holds everything flushed); an incomplete one is removed and the old file is
        left as it was."""
        if self._closed:
            return
        errors = []
        if not self._buffers and not self._tree.pending:
            # nothing left to encode: the pooled output memory is freed now, while a pool
            # thread may still be writing the last group's last chunk (_settle), not after it
            chunk_encode.release_pool()
        try:
            self._flush()
        except BaseException as exc:  # noqa: BLE001 - re-raised below, after the tail
            errors.append(exc)
        complete = False
        try:
            self._write_tail()
            complete = True
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)
        finally:
            self._closed = True
            self._copies.clear()
            if self._pool is not None:
                self._pool.shutdown()
            chunk_encode.release_pool()  # the chunks' pooled output memory, until written again
            try:
                self._file.close()
            except BaseException as exc:  # noqa: BLE001
                errors.append(exc)
        self._finish_path(complete, errors)
        if errors:
            first = errors[0]
            for later in errors[1:]:
                first.add_note(f"close() also failed: {type(later).__name__}: {later}")
            raise first

    def _finish_path(self, complete, errors) -> None:
        """After the file is closed: with overwrite=True rename the completed file over the path
        (or remove an incomplete one); say in the error when the file is incomplete."""
        where = self._temp_path or self._path
        if not complete and errors:
            kept = ""
            if self._temp_path is not None:
                kept = f"; it was removed and {self._path!r} was left as it was"
            errors[0].add_note(
                f"the file {where!r} is incomplete (its metadata could not be written): it "
                f"cannot be read{kept}"
            )
        if self._temp_path is None:
            return
        try:
            if complete:
                os.replace(self._temp_path, self._replaced)
            else:
                os.unlink(self._temp_path)
        except OSError as exc:
            errors.append(exc)

    def _write_tail(self):
        """The operation index range, the metadata index, the bloom filter and the tail (then
        the error of a handed-off write that only now was found to have failed, if one did)."""
        failed = None
        try:
            self._settle()  # (done by close()'s flush unless that was interrupted)
        except Exception as exc:
            if self._pending is not None:
                raise
            failed = exc  # the file is torn: cut below, before that group
        if self._torn:
            # A chunk group was written in part: end the file at the last complete one.
            self._file.cut(self._pos)
        # the operation index range (0, 0), as C++ writes it, then the separator
        start = bytes((Marker.OPERATION_INDEX_RANGE,)) + bytes(16) + bytes((Marker.SEPARATOR,))
        meta_offset = self._pos + 17
        self._pos += len(start)
        schemas = {name: t.schema_bytes() for name, t in self._tables.items()}
        tail = build_metadata(
            self._pos,
            meta_offset,
            self._devices,
            schemas,
            list(self._properties.items()),
            self._degree,
            self._bloom_error_rate,
            self._chunk_path_count,
            self._bloom_hashes,
        )
        self._file.writelines([start, tail])
        if failed is not None:
            raise failed

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self.close()

    def __del__(self):
        # A writer dropped without close(): complete the file (an unreadable 7-byte file helps
        # no one) and warn, as an unclosed Python file does.
        if getattr(self, "_file", None) is None or getattr(self, "_closed", True):
            return
        warnings.warn(
            f"TsFileWriter for {self._path!r} was not closed; the garbage collector closes it "
            "(call close() or use a with block)",
            ResourceWarning,
            source=self,
            stacklevel=2,
        )
        try:
            self.close()
        except Exception:  # noqa: BLE001, S110 - nowhere to raise from a finalizer
            pass


def _group_header(dev) -> bytes:
    """The chunk group header of device `dev`: its marker and serialized DeviceID."""
    return bytes((Marker.CHUNK_GROUP_HEADER,)) + serialize_device_id(dev)


def _value_chunk(dev, table, column, fields, times, bounds, segments, ranges=1):
    """The ChunkBuild of the value chunk of one FIELD column of a chunk group (all-null when the
    rows have none), in `ranges` runs of pages where it is encoded in C. A column with nulls or
    of a binary type is built in one job: gathering its non-null values (and making bytes of
    text) is work for the pool's threads, not for the thread that starts the build."""
    name = column.column_name
    dt = column.data_type
    values, present = fields.get(name, (None, None))
    encoding, compressor = table.encoding[name], table.compression[name]
    if values is not None and present is None and not dt.is_binary:
        return value_chunk_build(
            name, dt, encoding, compressor, values, None, times, bounds, segments, ranges
        )

    def whole():
        nonlocal values, present
        n = times.shape[0]
        if values is None:
            present = np.zeros(n, dtype=bool)
            values = [] if dt.is_binary else np.zeros(0, dtype=storage_dtype(dt))
        elif dt.is_binary:
            values = _binary_values(values if present is None else values[present])
        elif present is not None:
            values = values[present]
        args = (name, dt, encoding, compressor, values, present, times, bounds, segments)
        return value_chunk_build(*args).run()

    return ChunkBuild.whole(whole)


def _run_chunk_job(dev, name, job):
    """Run one job of chunk `name`'s build (on the writer's pool, or inline for a small group)."""
    return _with_device(dev, job)


def _with_device(dev, fn):
    """fn(), its EncodeError saying which table and device (its message names the column)."""
    try:
        return fn()
    except EncodeError as exc:
        raise EncodeError(f"table {dev[0]!r}, device {dev[1:]!r}, {exc}") from None


class _Codes:
    """A tag column already factorized (write_dataframe): codes (-1 = null) and the values."""

    __slots__ = ("codes", "values")

    def __init__(self, codes, values):
        self.codes = codes
        self.values = values


def _codes_with_null(name, item):
    code, values = item.codes, list(item.values)
    nulls = code < 0
    if nulls.any():
        code = np.where(nulls, len(values), code)
        values.append(None)
    _check_tag_values(name, code, values)
    return code, values


def _check_tag_values(name, code, values):
    """Each distinct TAG value must be a str that encodes to UTF-8 (checked once per value; the
    error names the first row holding a bad one)."""
    for k, v in enumerate(values):
        try:
            check_tag_value(name, v)
        except TypeMismatchError as exc:
            raise mismatch(exc.reason, name, int(np.argmax(code == k))) from None


def _factorize(name, arr, present):
    """Codes 0..k-1 of the distinct tag values of arr (None / masked rows: a code for None) and
    the list of those values. pandas.factorize (hashing in C) when pandas is there."""
    n = arr.shape[0]
    try:
        import pandas as pd
    except ImportError:
        pd = None
    if pd is not None:
        if present is not None:
            arr = np.where(present, arr, None)
        code, values = pd.factorize(arr, use_na_sentinel=True)
        code = np.asarray(code, dtype=np.int64)
        values = list(values)
        nulls = code < 0
        if present is not None:
            nulls |= ~present
        if nulls.any():
            code = np.where(nulls, len(values), code)
            values.append(None)
    else:
        vals = arr.tolist()
        if present is not None:
            vals = [v if p else None for v, p in zip(vals, present.tolist(), strict=True)]
        index = {}
        code = np.empty(n, dtype=np.int64)
        for i, v in enumerate(vals):
            c = index.get(v)
            if c is None:
                c = index[v] = len(index)
            code[i] = c
        values = list(index)
    _check_tag_values(name, code, values)
    return code, values


def _binary_values(arr) -> list:
    """The bytes of text/BLOB values (str encoded to UTF-8). The values were checked at the write
    call (values.check_text_array), so this cannot fail at flush time."""
    out = []
    for v in arr.tolist():
        if isinstance(v, str):
            out.append(v.encode("utf-8"))
        elif isinstance(v, (bytes, bytearray, memoryview)):
            out.append(bytes(v))
        else:
            raise TypeError(f"expected str or bytes, got {type(v).__name__}")
    return out


def _check_compression(compressor) -> Compressor:
    """A page compression this installation can write (LZO needs python-lzo; SDT, PAA and PLA
    are not page compressions), checked before the file is created."""
    code = Compressor(compressor)
    if not _compression.available(code):
        raise UnsupportedError(
            f"compression {code.name} needs the optional 'python-lzo' package to be written"
        )
    return code


class _ChunkWork:
    """One chunk of a chunk group on the writer's pool: its ChunkBuild and the futures of the
    build's jobs."""

    __slots__ = ("build", "futures")

    def __init__(self, build, futures):
        self.build = build
        self.futures = futures

    def result(self) -> Chunk:
        """The chunk, once its jobs have run (the first job's error if one failed)."""
        for future in self.futures:
            future.result()
        return self.build.finish()


def _run_in_order(pool, runners, calls) -> list:
    """Run `calls` (functions without arguments) on `pool` by at most `runners` tasks that each
    take the next call not yet taken, in order: a Future per call (a call cancelled before it
    is taken is skipped). One pool task per runner rather than per call: handing a task to an
    idle pool thread costs a wake-up (tens of microseconds on a virtual machine, paid by the
    submitting thread while the pool waits for work), and a chunk group has twice as many jobs
    as chunks with threads=2."""
    todo = deque((Future(), call) for call in calls)
    futures = [future for future, _ in todo]

    def runner():
        while True:
            try:
                future, call = todo.popleft()
            except IndexError:
                return
            if not future.set_running_or_notify_cancel():
                continue  # cancelled (the group was abandoned)
            try:
                result = call()
            except BaseException as exc:  # noqa: BLE001 - the future carries it, as a pool's does
                future.set_exception(exc)
            else:
                future.set_result(result)

    for _ in range(min(runners, len(futures))):
        pool.submit(runner)
    return futures


def _abandon(works) -> None:
    """Cancel the jobs of `works` not begun and wait for the others (their chunks are dropped)."""
    futures = [f for work in works for f in work.futures]
    for f in futures:
        f.cancel()
    if futures:
        wait(futures)


def _write_and_drop(file, chunk, parts) -> None:
    """The handed-off write of a group's last chunk (on a pool thread): `parts` to the file,
    then its bytes dropped at once, so that their pooled memory (chunk_encode.ChunkData) is
    there for the next group's first jobs."""
    try:
        file.writelines(parts)
    finally:
        chunk.parts = None
        parts.clear()


class _PendingWrite:
    """A chunk group whose last chunk a pool thread is writing (_stream_chunk_group's
    hand_off): what _settle() needs to index it once `future` is done."""

    __slots__ = ("dev", "table", "chunks", "head", "future", "rows")

    def __init__(self, dev, table, chunks, head, future, rows):
        self.dev = dev
        self.table = table
        self.chunks = chunks  # [(name, type, Chunk)], all of the group's
        self.head = head  # the size of the group's header
        self.future = future
        self.rows = rows


class _GroupBuild:
    """One table chunk group being built: its chunks built already (`chunks`: [(name, type,
    Chunk)], a small group) or on the writer's pool (`works`: a _ChunkWork per chunk, in file
    order); `names`: [(name, type)] of its chunks."""

    __slots__ = ("dev", "table", "names", "chunks", "works")

    def __init__(self, dev, table, names, chunks=None, works=None):
        self.dev = dev
        self.table = table
        self.names = names
        self.chunks = chunks
        self.works = works

    def abandon(self) -> None:
        """Cancel the builds not begun and wait for the others (their chunks are dropped)."""
        if self.works:
            _abandon(self.works)


def _piece_bytes(piece) -> int:
    """The memory a buffered piece counts against memory_threshold."""
    size = piece.times.nbytes
    for values, present in piece.fields.values():
        size += values.nbytes * (4 if values.dtype == object else 1)
        if present is not None:
            size += present.nbytes
    return size


def _piece_rows(pieces) -> int:
    return sum(p.times.shape[0] for p in pieces)


def _flush_error(failed, torn, unreached=()):
    """The exception a flush raises: the first device's, saying which rows were not written
    (unreached: [(device, rows)] buffered but not written because the file write failed)."""
    exc, dev, rows = failed[0]
    more = f" ({len(failed) - 1} more devices failed alike)" if len(failed) > 1 else ""
    lost = f"the {rows} rows of this device buffered since the last flush were not written{more}"
    if isinstance(exc, EncodeError):
        return EncodeError(f"{exc}; {lost}")
    exc.add_note(f"table {dev[0]!r}, device {dev[1:]!r}: {lost}")
    if unreached:
        shown = "; ".join(f"table {d[0]!r}, device {d[1:]!r}: {n} rows" for d, n in unreached[:10])
        if len(unreached) > 10:
            shown += f"; and {len(unreached) - 10} more devices"
        exc.add_note(
            f"the rows buffered for {len(unreached)} other device(s) were not written either: "
            f"{shown}"
        )
    if torn:
        exc.add_note(
            "writing to the file failed: no further rows are written; close() ends the file "
            "after the last complete chunk group"
        )
    return exc


def _time_name(table) -> str:
    """The name of the time column in write calls: the schema's TIME column, else "time"."""
    return table.time_column.column_name if table.time_column is not None else "time"


def _series_values(series, data_type=None) -> np.ndarray:
    """A pandas Series as a numpy array in its own dtype (no cast: the writer converts it
    exactly, values.to_storage). Nullable extension dtypes give their numpy dtype with 0 in the
    null rows (masked by isna); tz-aware datetimes become naive UTC, or for a DATE column their
    wall-clock time in their own zone (Tokyo midnight is that day, not the UTC day before);
    anything else objects."""
    import pandas as pd

    dtype = series.dtype
    if isinstance(dtype, pd.DatetimeTZDtype):
        if data_type == T.DATE:
            return series.dt.tz_localize(None).to_numpy()
        return series.dt.tz_convert(None).to_numpy()
    if isinstance(dtype, np.dtype):
        return series.to_numpy()
    np_dtype = getattr(dtype, "numpy_dtype", None)
    if np_dtype is not None and np_dtype.kind in "biuf":
        return series.to_numpy(dtype=np_dtype, na_value=np_dtype.type(0))
    return series.to_numpy(dtype=object)


def _arrow_local_dates(table, name, col):
    """A tz-aware Arrow timestamp column written into a DATE column: its wall-clock time in its
    own zone (as _series_values for pandas), else the column as it is."""
    if not table.schema.has_column(name) or table.schema.get_column(name).data_type != T.DATE:
        return col
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_timestamp(col.type) and col.type.tz is not None:
        return pc.local_timestamp(col)
    return col


def _concat(table, pieces):
    """(times, fields, run starts) of all buffered pieces of one device, in write order."""
    if len(pieces) == 1:
        return pieces[0].times, pieces[0].fields, pieces[0].runs
    runs, base = [], 0
    for p in pieces:
        runs.append(p.runs + base)
        base += p.times.shape[0]
    runs = np.concatenate(runs)
    times = np.concatenate([p.times for p in pieces])
    fields = {}
    for column in table.fields:
        name = column.column_name
        if not any(name in p.fields for p in pieces):
            continue
        dtype = object if column.data_type.is_binary else storage_dtype(column.data_type)
        vals, pres = [], []
        any_null = False
        for p in pieces:
            k = p.times.shape[0]
            v, pr = p.fields.get(name, (None, None))
            if v is None:
                v = np.zeros(k, dtype=dtype)
                pr = np.zeros(k, dtype=bool)
            vals.append(v)
            pres.append(pr)
            any_null = any_null or pr is not None
        present = None
        if any_null:
            present = np.concatenate(
                [
                    np.ones(v.shape[0], dtype=bool) if pr is None else pr
                    for v, pr in zip(vals, pres, strict=False)
                ]
            )
        fields[name] = (np.concatenate(vals), present)
    return times, fields, runs


class TsFileTableWriter:
    """Write one table (the official TsFileTableWriter, plus the numpy fast path).

    Thread safety as TsFileWriter's: every public method runs under the writer's one lock, so
    concurrent calls take turns, each atomic, and the rows of all of them land. ``**options``:
    TsFileWriter's (``threads=None`` by default, ``threads=1`` for no thread at all)."""

    def __init__(
        self,
        path,
        table_schema,
        memory_threshold=DEFAULT_MEMORY_THRESHOLD,
        *,
        overwrite=False,
        **options,
    ):
        # The options and the schema are checked before the file is created: a writer that
        # fails here leaves the file system as it was.
        writer = TsFileWriter.__new__(TsFileWriter)
        writer._configure(memory_threshold, **options)
        writer._register(table_schema)
        writer._open(path, overwrite)
        self._writer = writer
        self._lock = writer._lock
        self._schema = table_schema
        self._name = table_schema.get_table_name()

    @_locked
    def write_table(self, tablet: Tablet) -> None:
        name = tablet.get_target_name()
        if name is None:
            tablet.set_table_name(self._name)
        elif str(name).lower() != self._name:
            raise TableNotExistError(f"tablet table {name!r} is not {self._name!r}")
        self._writer.write_table(tablet)

    @_locked
    def write_arrays(self, timestamps, columns, null_masks=None) -> None:
        """Whole columns at once; see TsFileWriter.write_arrays."""
        self._writer.write_arrays(self._name, timestamps, columns, null_masks)

    @_locked
    def write_dataframe(self, dataframe) -> None:
        self._writer.write_dataframe(self._name, dataframe)

    @_locked
    def write_arrow_batch(self, data) -> None:
        self._writer.write_arrow_batch(self._name, data)

    @_locked
    def add_tsfile_property(self, key, value) -> None:
        self._writer.add_tsfile_property(key, value)

    @_locked
    def flush(self) -> None:
        self._writer.flush()

    @_locked
    def close(self) -> None:
        self._writer.close()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self.close()


__all__ = ["TsFileTableWriter", "TsFileWriter"]
