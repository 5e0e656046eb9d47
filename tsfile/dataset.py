"""The official package's dataset view: ``TsFileDataFrame`` over one file, a list or a directory
of shards, with its series as float64 ``Timeseries`` and time-aligned reads with ``.loc``.

A series is one numeric FIELD (BOOLEAN, INT32, INT64, FLOAT, DOUBLE, TIMESTAMP) of one device of a
table, named ``table.tag1...tagN.field`` (a ``.`` or ``\\`` in a component escaped with ``\\``, a
null tag written ``\\N``, trailing null tags left out). Its rows are the device's rows in every
file (a shard): its count is the device's time-column count, a null value is NaN; the same time in
two shards of one series is an error. Only metadata is read when the view is opened (in parallel
over the files); values are read when asked for, by the one-file reader with the series' device as
a tag filter.

Tree-model files (no table schema; ``model == "tree"``), as the official view reads them: a series
is one numeric measurement of one device, named by its path (``root.sg1.d1.s1``: the root node as
the table, the device's other nodes as the tags, listed as ``_col_1`` ... up to the deepest
device, no ``table`` column in the listing), its rows its own points (a null of an aligned device
is no point), its count from its statistics; values are read with ``query_timeseries``. Files of
both models in one view raise InvalidSchemaError (a ValueError).

``use_index=True`` keeps those metadata in an on-disk index beside the files
(tsfile._dataset.index); ``trust_index=False`` checks each file's size and modification time
against it. The keyword options need ``use_index=True``, as in the official package, and each
falls back to ``TSFILE_DATAFRAME_<OPTION>`` from the environment: ``max_open_files`` (readers
kept open at once), ``query_workers`` (threads reading shards), ``query_parallel_min_rows`` (a
read of fewer rows runs on one thread), and ``max_prepared_series`` / ``descriptor_cache_size``,
the sizes of two caches of the official view that this one does not have: checked as the official
package checks them (an int >= 0), without effect.
"""

from __future__ import annotations

import operator
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from tsfile._dataset.files import check_same_schema, expand_paths, read_file_info
from tsfile._dataset.gcpause import collector_paused
from tsfile._dataset.index import index_path, load_index, save_index
from tsfile._dataset.progress import Progress
from tsfile._dataset.scan import Scanner, pool_map
from tsfile._mem.pool import pooled
from tsfile._read.source import is_url
from tsfile.errors import ClosedError, CorruptDataError, InvalidSchemaError
from tsfile.exceptions import InvalidArgumentError, NotSupportedError, TsFileError
from tsfile.types import ColumnCategory, TSDataType

NUMERIC_TYPES = frozenset(
    {
        TSDataType.BOOLEAN,
        TSDataType.INT32,
        TSDataType.INT64,
        TSDataType.FLOAT,
        TSDataType.DOUBLE,
        TSDataType.TIMESTAMP,
    }
)
# The official view's defaults and least values (0 allowed for its cache sizes only).
_DEFAULTS = {
    "max_prepared_series": 4096,
    "descriptor_cache_size": 4096,
    "max_open_files": 16,
    "query_workers": min(4, os.cpu_count() or 1),
    "query_parallel_min_rows": 8192,
}
_LEAST = {"max_prepared_series": 0, "descriptor_cache_size": 0}
# Readers kept open without use_index (where the options cannot be set, as in the official
# view): enough for typical shard counts, far below the usual 1,024 descriptors per process.
_UNINDEXED_OPEN_FILES = 256
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


# -- series names --------------------------------------------------------------------------------


def _escape(part):
    if part is None:
        return "\\N"
    return str(part).replace("\\", "\\\\").replace(".", "\\.")


def _trim_tags(tags):
    tags = list(tags)
    while tags and tags[-1] is None:
        tags.pop()
    return tags


def series_name(table, tags, field):
    return ".".join(_escape(p) for p in [table, *_trim_tags(tags), field])


def split_series_name(name):
    """The components of a series name (None for ``\\N``); inverse of series_name."""
    parts, cur, raw, i = [], [], [], 0
    while i < len(name):
        ch = name[i]
        if ch == "\\" and i + 1 < len(name):
            cur.append(name[i + 1])
            raw.append(name[i : i + 2])
            i += 2
            continue
        if ch == ".":
            parts.append(None if "".join(raw) == "\\N" else "".join(cur))
            cur, raw = [], []
        else:
            cur.append(ch)
            raw.append(ch)
        i += 1
    parts.append(None if "".join(raw) == "\\N" else "".join(cur))
    return parts


class SeriesPath(str):
    """The name of a series (a str)."""


class DatasetClosedError(ClosedError, RuntimeError):
    """A closed TsFileDataFrame or Timeseries was used: this package's ClosedError, and the
    RuntimeError the official view raises."""


class DatasetFileChangedError(TsFileError, RuntimeError):
    """With ``trust_index=False``, a file of the view whose size or modification time is no
    longer what its metadata were read from (rewritten, appended to, replaced): its series'
    counts and time ranges would not match what is read. This package's TsFileError, and the
    RuntimeError the official view raises. Open the view again."""


# -- the catalog: what the files' metadata say ---------------------------------------------------


@dataclass
class _Shard:
    """One series in one file."""

    path: str
    count: int
    start: int
    end: int


_SHARD_ORDER = operator.attrgetter("start", "path")  # a series' shards: by start time


@dataclass(eq=False)
class _Series:
    name: str
    table: str
    tag_columns: list
    tags: tuple
    field: str
    shards: list  # of _Shard, by start time
    device: tuple | None = None  # a tree-model series: its device's DeviceID segments

    @property
    def count(self):
        return sum(s.count for s in self.shards)

    @property
    def start(self):
        return min((s.start for s in self.shards if s.count), default=None)

    @property
    def end(self):
        return max((s.end for s in self.shards if s.count), default=None)


def _numeric_series(info):
    """Series of one file: each device's numeric fields (a tree device's numeric measurements)."""
    tree = sum(
        1
        for dev in info.tree
        for dtype, count, _s, _e in dev.series.values()
        if dtype in NUMERIC_TYPES and count > 0
    )
    table = 0
    for t in info.tables.values():
        fields = _numeric_fields(t)
        table += sum(len(fields) - sum(1 for f in d.absent if f in fields) for d in t.devices)
    return tree + table


def _numeric_fields(table_info):
    """The numeric FIELD columns of a table (its series' fields), in schema order."""
    return [
        n for n, dt, c in table_info.columns if c == ColumnCategory.FIELD and dt in NUMERIC_TYPES
    ]


def model_of(infos):
    """The model of the files, "table" or "tree" (a file with a table schema is a table-model
    file, one with only tree devices a tree-model file, as in the official view; an empty file
    has none). Files of both models raise InvalidSchemaError (a ValueError, as the official
    view's) naming one of each."""
    first = {}
    for info in infos:
        model = "table" if info.tables else "tree" if info.tree else None
        if model is not None:
            first.setdefault(model, info.path)
    if len(first) > 1:
        raise InvalidSchemaError(
            f"Mixed table-model and tree-model TsFiles: {first['table']} is a table-model file "
            f"and {first['tree']} a tree-model file; a TsFileDataFrame's files must all be of "
            "one model"
        )
    return next(iter(first), "table")


def _catalog(infos, model):
    """{name: _Series} of the files' numeric series (see the module's documentation)."""
    return _tree_catalog(infos) if model == "tree" else _table_catalog(infos)


def _tree_catalog(infos):
    """{name: _Series} of the numeric measurements of every tree device, in first-seen order
    (files in order, devices in index order, measurements in index order). As in the official
    view, a series is named by its path (``root.sg1.d1.s1``: table = the root node, tags = the
    other nodes of the device, in columns ``_col_1`` ... of the deepest device); its rows are
    its own points (a tree series has its own timestamps), counted by its statistics."""
    depth = max((len(d.nodes) - 1 for info in infos for d in info.tree), default=0)
    tag_cols = [f"_col_{i + 1}" for i in range(depth)]
    series = {}
    for info in infos:
        for dev in info.tree:
            tags = tuple(dev.nodes[1:]) + (None,) * (depth - len(dev.nodes) + 1)
            for field, (dtype, count, start, end) in dev.series.items():
                if dtype not in NUMERIC_TYPES or count <= 0:
                    continue  # read as float64 like the official view: numeric series only
                name = series_name(dev.nodes[0], tags, field)
                s = series.get(name)
                if s is None:
                    s = _Series(name, dev.nodes[0], tag_cols, tags, field, [], dev.segments)
                    series[name] = s
                s.shards.append(_Shard(info.path, count, start, end))
    for s in series.values():
        s.shards.sort(key=_SHARD_ORDER)
    return series


def _table_catalog(infos):
    """{name: _Series} of the numeric fields of every device of every table, in first-seen
    order (files in order, devices in index order, fields in schema order). As in the official
    view, a field is a series of a device in the files where the device holds a value of it
    (DeviceStats.absent): a field a device never wrote is no series, and a file where all its
    cells are null is no shard of it (before, such a phantom series was listed, all NaN, and
    the null rows of such a file were counted and read as NaN rows of the series). A name is
    built once per series, and one _Shard per device and file serves all its fields (opening
    a dataset of many files from its index is mostly this loop: see _DeviceSeries)."""
    series = {}
    devices = {}  # (table, tags) -> _DeviceSeries
    for info in infos:
        for table, t in info.tables.items():
            tag_cols = t.tag_names()
            fields = tuple(_numeric_fields(t))
            for dev in t.devices:
                d = devices.get((table, dev.tags))
                if d is None:
                    prefix = series_name(table, dev.tags, "")[:-1]  # "table.tags."
                    d = _DeviceSeries(prefix, table, tag_cols, dev.tags)
                    devices[(table, dev.tags)] = d
                shard = _Shard(info.path, dev.count, dev.start, dev.end)
                if not dev.absent and fields == d.full_fields:
                    d.shards.append(shard)  # the full series only (see add): most device-files
                else:
                    d.add(shard, fields, dev.absent, series)
    for d in devices.values():
        d.finish()
    return series


class _DeviceSeries:
    """The series of one table device while the catalog is built. A series present in every
    file of its device so far ("full") keeps no list of its own: the device's list of shards
    (one per file) is its list, shared once sorted (never changed after the catalog is built).
    A file where a full series is missing gives it a list of its own from then on. Appending
    each file's shard to every series of its device was a quarter of opening 1,000 files from
    their index (80,000 appends for 10,000 device-files)."""

    __slots__ = ("prefix", "table", "tag_cols", "tags", "shards", "full", "full_fields", "own")

    def __init__(self, prefix, table, tag_cols, tags):
        self.prefix, self.table, self.tag_cols, self.tags = prefix, table, tag_cols, tags
        self.shards = []  # the device's, one per file, in file order
        self.full = {}  # field -> _Series holding every shard of the device
        self.full_fields = ()  # their fields, in creation order
        self.own = {}  # field -> _Series with a list of its own

    def add(self, shard, fields, absent, series):
        """The device's shard of one more file, whose numeric fields are ``fields`` (less
        ``absent``); new series go into ``series`` in schema order. A file holding exactly
        the full series (no field absent, ``fields == full_fields``) needs nothing but the
        append: _table_catalog does that one itself, inline (a series with a list of its own
        has a field outside the full ones, so none is in such a file)."""
        self.shards.append(shard)
        if len(absent) > 8:  # a wide table's sparse device: each test in a set, not a tuple
            absent = set(absent)
        present = [f for f in fields if f not in absent] if absent else fields
        full = self.full
        # a full series is missing from this file when fewer of the file's fields are full
        # ones than there are full series: counted by dict lookups (testing each full series
        # against the list of fields was quadratic, 2,000 fields: 6x the old catalog's time)
        if full and (len(present) < len(full) or sum(f in full for f in present) < len(full)):
            kept = set(present)
            for f in [f for f in full if f not in kept]:
                s = self.own[f] = full.pop(f)
                s.shards = self.shards[:-1]  # every file before this one
        for f in present:
            if f in full:
                continue
            s = self.own.get(f)
            if s is None:
                s = _Series(
                    self.prefix + "." + _escape(f), self.table, self.tag_cols, self.tags, f, []
                )
                series[s.name] = s
                if len(self.shards) == 1:  # the device's first file: full so far
                    full[f] = s
                    continue
                self.own[f] = s
            s.shards.append(shard)
        self.full_fields = tuple(full)

    def finish(self):
        self.shards.sort(key=_SHARD_ORDER)
        for s in self.full.values():
            s.shards = self.shards
        for s in self.own.values():
            s.shards.sort(key=_SHARD_ORDER)


# -- open readers, at most max_open_files at once ------------------------------------------------


class _ReaderPool:
    """Readers of the dataset's files, the least recently used closed beyond ``limit`` (None:
    no limit). ``with pool.use(path) as reader:``; a reader in use is never closed: a thread
    needing another file waits until one is free. ``expected``: {path: (size, mtime_ns)} of the
    metadata the view was built from, checked at every use (trust_index=False; None: not
    checked), as the official view does: a file rewritten after the view read its metadata
    gave rows that its counts and positions did not describe (a series cut short, or shifted)."""

    def __init__(self, limit, expected=None):
        self.limit = limit
        self._expected = expected
        self._open = OrderedDict()  # path -> [reader, users]
        self._cond = threading.Condition()
        self.closed = False

    def use(self, path):
        return _Lease(self, path)

    def _check_generation(self, path):
        from tsfile.reader import open_error

        want = self._expected.get(path)
        try:
            st = os.stat(path)
        except OSError as exc:
            raise open_error(exc, path) from None
        if want is not None and (st.st_size, st.st_mtime_ns) != want:
            raise DatasetFileChangedError(
                f"{path} changed after the TsFileDataFrame read its metadata (size "
                f"{want[0]} -> {st.st_size} bytes, mtime_ns {want[1]} -> {st.st_mtime_ns}); "
                "open the TsFileDataFrame again"
            )

    def _acquire(self, path):
        from tsfile.reader import TsFileReader

        if self._expected is not None:
            self._check_generation(path)
        with self._cond:
            while True:
                if self.closed:
                    raise DatasetClosedError("the TsFileDataFrame is closed")
                slot = self._open.get(path)
                if slot is not None:
                    slot[1] += 1
                    self._open.move_to_end(path)
                    return slot[0]
                if self.limit is None or len(self._open) < self.limit or self._evict_idle():
                    break
                self._cond.wait()
            reader = TsFileReader(path)
            self._open[path] = [reader, 1]
            return reader

    def _evict_idle(self):
        for p, (reader, users) in self._open.items():
            if users == 0:
                del self._open[p]
                reader.close()
                return True
        return False

    def _release(self, path):
        with self._cond:
            slot = self._open.get(path)
            if slot is not None:
                slot[1] -= 1
            self._cond.notify_all()

    def open_count(self):
        with self._cond:
            return len(self._open)

    def close(self):
        with self._cond:
            self.closed = True
            for reader, _users in self._open.values():
                reader.close()
            self._open.clear()
            self._cond.notify_all()


class _Lease:
    def __init__(self, pool, path):
        self.pool, self.path = pool, path

    def __enter__(self):
        return self.pool._acquire(self.path)

    def __exit__(self, *exc):
        self.pool._release(self.path)
        return False


# -- reading series ------------------------------------------------------------------------------


def _device_filter(series):
    """A tag filter selecting exactly the series' device (None for a table without tags)."""
    from tsfile.filters import tag_eq, tag_is_null

    flt = None
    for col, value in zip(series.tag_columns, series.tags, strict=False):
        one = tag_is_null(col) if value is None else tag_eq(col, value)
        flt = one if flt is None else flt & one
    return flt


def _as_float(values, mask):
    out = np.asarray(values).astype(np.float64)
    if mask is not None:
        out[mask] = np.nan
    return out


def _read_fields(pool, path, series_list, t1, t2):
    """{field: (timestamps, float64 values)} of fields of one device in one file."""
    first = series_list[0]
    fields = list(dict.fromkeys(s.field for s in series_list))
    with pool.use(path) as reader:
        if first.device is not None:
            return _read_tree_fields(reader, first.device, fields, t1, t2)
        _n, _t, ts, cols, nulls = reader.read_columns(
            first.table, fields, t1, t2, tag_filter=_device_filter(first)
        )
    return {f: (ts, _as_float(cols[f], nulls.get(f))) for f in fields}


def _read_tree_fields(reader, segments, fields, t1, t2):
    """{field: (timestamps, float64 values)} of series of one tree device: each series at its
    own points (the rows of the device's join where it has a value)."""
    from tsfile._format.device import DeviceID
    from tsfile.reader import _collect_blocks

    with reader.query_timeseries(DeviceID(segments), fields, t1, t2) as rs:
        names, _types, ts, cols, nulls = _collect_blocks(rs)
    out = {}
    for field, name in zip(fields, names[1:], strict=True):
        has = ~nulls[name]
        out[field] = (ts[has], np.asarray(cols[name][has]).astype(np.float64))
    return out


def _merge_parts(name, parts):
    """One series from its shards' (path, timestamps, values): time order; a time in two
    shards raises CorruptDataError naming both files."""
    parts = [p for p in parts if len(p[1])]
    if not parts:
        return np.empty(0, np.int64), np.empty(0, np.float64)
    if len(parts) == 1:
        return parts[0][1], parts[0][2]
    ts = np.concatenate([p[1] for p in parts])
    vals = np.concatenate([p[2] for p in parts])
    order = np.argsort(ts, kind="stable")
    ts, vals = ts[order], vals[order]
    dup = np.flatnonzero(ts[1:] == ts[:-1])
    if len(dup):
        t = int(ts[dup[0]])
        where = [p[0] for p in parts if np.any(p[1] == t)]
        raise CorruptDataError(
            f"Duplicate timestamp {t} found across TsFile shards ({', '.join(where)}) in "
            f"{name}: a dataset's shards must not repeat a series' times"
        )
    return ts, vals


# -- the public classes --------------------------------------------------------------------------


def _display_time(ms):
    """A time for display: the pandas Timestamp of ``ms``, or the int itself where pandas has
    none (beyond its nanosecond range, about the years 1677..2262: e.g. a file whose times
    are in another unit than milliseconds, or at the int64 bounds). Displaying such a view,
    series or result raised OutOfBoundsDatetime; the official view shows the int too."""
    import pandas as pd

    try:
        t = pd.to_datetime(ms, unit="ms")
    except (OverflowError, ValueError):  # pandas' OutOfBoundsDatetime is a ValueError
        return ms
    return ms if t is pd.NaT else t  # int64's least value is pandas' "no time" (NaT)


def _format_time(ms):
    text = str(_display_time(ms))
    return text.rstrip("0").rstrip(".") if "." in text else text


class AlignedTimeseries:
    """Several series on the union of their timestamps: ``timestamps`` (int64 ms), ``values``
    (float64, rows x series, NaN where a series has no value) and ``series_names``."""

    def __init__(self, timestamps, values, series_names):
        self.timestamps = timestamps
        self.values = values
        self.series_names = series_names

    @property
    def shape(self):
        return self.values.shape

    def __len__(self):
        return len(self.timestamps)

    def __getitem__(self, key):
        return self.values[key]

    def _table(self, max_rows):
        import pandas as pd

        df = pd.DataFrame(self.values, columns=self.series_names)
        try:
            times = pd.to_datetime(self.timestamps, unit="ms")
            if times.isna().any():  # int64's least value: NaT to pandas
                raise ValueError
        except (OverflowError, ValueError):  # some beyond pandas' range: each its own way
            times = pd.Series([_display_time(t) for t in self.timestamps.tolist()], dtype=object)
        df.insert(0, "time", times)
        if max_rows is not None and len(df) > max_rows:
            half = max(1, max_rows // 2)
            df = pd.concat([df.head(half), df.tail(max_rows - half)])
        return df.to_string(index=False)

    def __repr__(self):
        head = f"AlignedTimeseries({len(self)} rows, {len(self.series_names)} series)"
        return f"{head}\n{self._table(20)}"

    def show(self, max_rows=None):
        print(f"AlignedTimeseries({len(self)} rows, {len(self.series_names)} series)")
        print(self._table(max_rows))


class Timeseries:
    """One series over all its shards, as float64: ``ts[i]``, ``ts[a:b:c]`` (by position, in time
    order), ``ts.timestamps``, ``ts.stats``, ``len(ts)``."""

    def __init__(self, frame, series):
        self._frame = frame
        self._series = series
        self._timestamps = None
        self._closed = False

    @property
    def name(self):
        return self._series.name

    @property
    def stats(self):
        s = self._series
        return {"start_time": s.start, "end_time": s.end, "count": s.count}

    def __len__(self):
        return self._series.count

    def _check_open(self):
        if self._closed:
            raise DatasetClosedError(f"the Timeseries {self.name!r} is closed")
        self._frame._check_open()

    @property
    def timestamps(self):
        self._check_open()
        if self._timestamps is None:
            self._timestamps = self._read(0, len(self))[0]
        return self._timestamps

    def _read(self, first, n):
        """Timestamps and values of positions ``first`` .. ``first + n``: only the shards
        holding them are read when the shards do not overlap in time."""
        shards = self._series.shards
        disjoint = all(a.end < b.start for a, b in zip(shards, shards[1:], strict=False))
        if not disjoint:
            ts, vals = self._frame._read_series(self._series, shards, _INT64_MIN, _INT64_MAX)
            return ts[first : first + n], vals[first : first + n]
        picked, pos, skip = [], 0, None
        for sh in shards:
            if pos + sh.count > first and pos < first + n:
                picked.append(sh)
                skip = first - pos if skip is None else skip
            pos += sh.count
        ts, vals = self._frame._read_series(self._series, picked, _INT64_MIN, _INT64_MAX)
        skip = skip or 0
        return ts[skip : skip + n], vals[skip : skip + n]

    def __getitem__(self, key):
        self._check_open()
        length = len(self)
        if isinstance(key, (int, np.integer)):
            i = operator.index(key)
            i = i + length if i < 0 else i
            if not 0 <= i < length:
                raise IndexError(f"Index {key} out of range [0, {length})")
            vals = self._read(i, 1)[1]
            return float(vals[0]) if len(vals) else None
        if isinstance(key, slice):
            start, stop, step = key.indices(length)
            positions = np.arange(start, stop, step, dtype=np.int64)
            if len(positions) == 0:
                return np.empty(0, np.float64)
            lo = int(positions.min())
            vals = self._read(lo, int(positions.max()) - lo + 1)[1]
            return vals if step == 1 else vals[positions - lo]
        raise TypeError(f"Unsupported key type: {type(key)}")

    def close(self):
        self._closed = True

    def __enter__(self):
        self._check_open()
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        st = self.stats
        if not st["count"]:
            return f"Timeseries('{self.name}', count=0)"
        return (
            f"Timeseries('{self.name}', count={st['count']}, "
            f"start={_format_time(st['start_time'])}, end={_format_time(st['end_time'])})"
        )


class _Loc:
    def __init__(self, frame):
        self._frame = frame

    def __getitem__(self, key):
        from tsfile.reader import _time_bounds

        if not isinstance(key, tuple) or len(key) != 2:
            raise ValueError(
                "loc requires exactly 2 arguments: tsdf.loc[start_time:end_time, series_list]"
            )
        when, spec = key
        if isinstance(when, slice):
            if when.step is not None:
                raise ValueError("loc's time slice takes no step")
            t1, t2 = _time_bounds(when.start, when.stop)
        elif isinstance(when, (int, np.integer)):
            t1 = t2 = int(when)
        else:
            raise TypeError(f"Time index must be slice or int, got {type(when)}")
        if isinstance(spec, (str, int, np.integer)):
            spec = [spec]
        chosen = [self._frame._lookup(item) for item in spec]
        return self._frame._aligned(chosen, t1, t2)


class TsFileDataFrame:
    """The numeric series of one file, a list of files or a directory of shards (see the
    module's documentation). ``show_progress``: a progress bar while the files' metadata are
    read. A context manager; ``close()`` closes every reader."""

    def __init__(
        self,
        paths,
        show_progress=True,
        use_index=False,
        *,
        trust_index=True,
        max_open_files=None,
        query_workers=None,
        max_prepared_series=None,
        descriptor_cache_size=None,
        query_parallel_min_rows=None,
    ):
        if not isinstance(use_index, bool):
            raise TypeError("use_index must be a bool")
        if not isinstance(trust_index, bool):
            raise TypeError("trust_index must be a bool")
        options = {
            "max_prepared_series": max_prepared_series,
            "descriptor_cache_size": descriptor_cache_size,
            "max_open_files": max_open_files,
            "query_workers": query_workers,
            "query_parallel_min_rows": query_parallel_min_rows,
        }
        if not use_index and any(v is not None for v in options.values()):
            raise ValueError("Dataset read options require use_index=True")
        options = _resolve_options(options) if use_index else {}
        if isinstance(paths, (list, tuple)):
            named = paths
        elif isinstance(paths, (str, bytes, os.PathLike)):
            named = [paths]
        else:  # an iterable: expand_paths takes it once, or refuses it
            named = ()
        # a URL as named refused before it is listed: listing a remote directory (thousands of
        # requests for a large prefix) only to refuse it, or failing on the listing (an
        # unreachable host) with another error than this one
        remote = next(
            (
                os.fsdecode(p)
                for p in named
                if isinstance(p, (str, bytes, os.PathLike)) and is_url(os.fsdecode(p))
            ),
            None,
        )
        if remote is None:
            self._paths = expand_paths(paths)
            remote = next((p for p in self._paths if is_url(p)), None)
        if remote is not None:
            # its index and its change checks stat local files; read_table & co. take URLs
            raise NotSupportedError(
                f"TsFileDataFrame reads local files, not {remote}; read_table, to_dataframe, "
                "read_arrow and Scanner read several files by URL"
            )
        self._show_progress = show_progress
        self._use_index = use_index
        self._trust_index = trust_index
        self._workers = options.get("query_workers")
        self._parallel_min_rows = options.get("query_parallel_min_rows", 0)
        self._closed = False
        self._root = None
        # opening makes tens of objects per file that live as long as the view (the files'
        # metadata, the catalog's shards), none of them in a cycle: the collector's passes over
        # them took 22 of 73 ms of opening 1,000 small files from their index (gcpause)
        with collector_paused():
            infos = self._load_infos()
            # trust_index=False: every use of a file checks it is still the one its metadata
            # describe (the readers are opened after the metadata were read, by this pool)
            expected = None if trust_index else {i.path: (i.size, i.mtime_ns) for i in infos}
            limit = options.get("max_open_files", _UNINDEXED_OPEN_FILES)
            self._pool = _ReaderPool(limit, expected)
            self._model = model_of(infos)
            _check_schemas(infos)
            self._all = _catalog(infos, self._model)
            if not self._all:
                # the official view refuses files without a numeric series (ValueError, the
                # same words); an empty view was returned here
                raise InvalidArgumentError(
                    f"No valid time series found in the provided TsFile files ({len(infos)} "
                    f"file{'s' if len(infos) != 1 else ''}, none with a numeric series)"
                )
            self._names = list(self._all)
            self._names_cache = None
            self._check_shard_times()

    # -- opening ----------------------------------------------------------------------------

    def _load_infos(self):
        """FileInfo of every file: from the index where it is valid, else from the files."""
        known = {}
        where = None
        if self._use_index:
            where = index_path(self._paths)
            known = load_index(where, self._paths, self._trust_index)
        todo = [p for p in self._paths if p not in known]
        progress = Progress(len(todo), "Loading TsFile shards", self._show_progress and bool(todo))
        try:

            def scan(path):
                info = read_file_info(path, field_values=True)
                progress.update()
                return info

            scanned = dict(zip(todo, pool_map(scan, todo, None), strict=True))
        except BaseException:
            progress.close()
            raise
        # the official view's summary: the numeric series of the files scanned, file by file
        progress.close(f" ({sum(_numeric_series(info) for info in scanned.values())} series)")
        infos = [known.get(p) or scanned[p] for p in self._paths]
        if where is not None and todo:
            save_index(where, infos)
        return infos

    def _check_shard_times(self):
        """A device's shards whose time ranges overlap must not repeat a time (the official
        view checks this when it opens too): their timestamps are read to make sure. Shards
        split by time cost nothing here."""
        seen = set()
        lists = set()
        for s in self._all.values():
            # a table device's series share its timestamps in the files they share: checked
            # once per set of files. Series with the same shards share one list (its files
            # named once per list); series with lists of their own may name the same files
            # (a device whose fields are all null in one file: each of them was checked
            # again, reading the timestamps of the same files once per field). A tree series
            # has its own timestamps
            if s.device is not None:
                key = s.name
            else:
                if id(s.shards) in lists:  # the lists live as long as the view
                    continue
                lists.add(id(s.shards))
                key = (s.table, s.tags, tuple(sh.path for sh in s.shards))
            if key in seen:
                continue
            seen.add(key)
            shards = [sh for sh in s.shards if sh.count]
            if all(a.end < b.start for a, b in zip(shards, shards[1:], strict=False)):
                continue
            parts = []
            for sh in shards:
                ts = self._timestamps(s, sh.path)
                parts.append((sh.path, ts, np.zeros(len(ts))))
            _merge_parts(s.name if s.device is not None else f"{s.table} device {s.tags}", parts)

    def _timestamps(self, series, path):
        """The timestamps of ``series`` (of its device, in a table-model file) in one file."""
        if series.device is not None:
            return _read_fields(self._pool, path, [series], _INT64_MIN, _INT64_MAX)[series.field][0]
        with self._pool.use(path) as r:
            return r.read_columns(series.table, [], tag_filter=_device_filter(series))[2]

    # -- listing ----------------------------------------------------------------------------

    def __len__(self):
        return len(self._names)

    @property
    def model(self):
        return self._model

    def list_timeseries(self, path_prefix=""):
        """Names of the series (SeriesPath), all or those under ``path_prefix`` (whole
        components: "weather.paris" matches "weather.paris.temp", not "weather.parisian...")."""
        if not path_prefix:
            return [SeriesPath(n) for n in self._names]
        want = split_series_name(path_prefix)
        out = []
        for n in self._names:
            s = self._all[n]
            parts = [s.table, *_trim_tags(s.tags), s.field]
            if parts[: len(want)] == want:
                out.append(SeriesPath(n))
        return out

    def list_timeseries_metadata(self, path_prefix=""):
        """A pandas DataFrame indexed by series name: table, field, start_time and end_time
        (pandas Timestamps; a time beyond pandas' range raises OutOfBoundsDatetime, as in the
        official view), count, then the tag columns."""
        import pandas as pd

        return self._metadata(path_prefix, lambda ms: pd.to_datetime(ms, unit="ms"))

    def _metadata(self, path_prefix, time_of):
        """list_timeseries_metadata with times made by ``time_of`` (display: _display_time)."""
        import pandas as pd

        rows, index, tag_order = [], [], {}
        for n in self.list_timeseries(path_prefix):
            s = self._all[n]
            row = {
                "table": s.table,  # not in a tree-model view (the official view has none)
                "field": s.field,
                "start_time": time_of(s.start),
                "end_time": time_of(s.end),
                "count": int(s.count),
            }
            for col, value in zip(s.tag_columns, s.tags, strict=False):
                row[col] = value
                tag_order.setdefault(col, None)
            rows.append(row)
            index.append(str(n))
        columns = [*self._leading(), "field", "start_time", "end_time", "count", *tag_order]
        return pd.DataFrame(rows, index=index, columns=columns)

    def _leading(self):
        """The listing's columns before ``field``: ``table`` in a table-model view only."""
        return ["table"] if self._model == "table" else []

    # -- series -----------------------------------------------------------------------------

    def _check_open(self):
        if self._closed or (self._root is not None and self._root._closed):
            raise DatasetClosedError("the TsFileDataFrame is closed")

    def _lookup(self, key):
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
            i = operator.index(key)
            i = i + len(self._names) if i < 0 else i
            if not 0 <= i < len(self._names):
                raise IndexError(f"Index {key} out of range [0, {len(self._names)})")
            return self._all[self._names[i]]
        if isinstance(key, str):
            s = self._all.get(str(key))
            if s is None or s.name not in self._name_set():
                raise KeyError(
                    f"Series not found: {str(key)!r}. Use df.list_timeseries() to inspect "
                    "available series."
                )
            return s
        raise TypeError(f"Series specifier must be int or str, got {type(key)}")

    def _name_set(self):
        """The names of this view's series as a set (built on first use)."""
        if self._names_cache is None:
            self._names_cache = set(self._names)
        return self._names_cache

    def __getitem__(self, key):
        """``df[i]`` / ``df["table.tags.field"]``: a Timeseries; ``df[a:b]``, ``df[[i, j]]``
        or a boolean pandas Series over the series (e.g. ``meta["field"] == "x"``): a view of
        those series; ``df["field"]`` (or another column of the listing: table, start_time,
        end_time, count, a tag column): that column as a pandas Series."""
        self._check_open()
        if isinstance(key, slice):
            return self._subset(self._names[key])
        if isinstance(key, list):
            return self._subset([self._lookup(self._position(i)).name for i in key])
        if _is_bool_series(key):
            return self._subset([self._mask_label(n) for n, keep in key.items() if keep])
        if isinstance(key, str) and key not in self._all and key in self._listing_columns():
            return self._listing_column(key)
        if not isinstance(key, (str, int, np.integer)):
            raise TypeError(f"Unsupported key type: {type(key)}")
        return Timeseries(self, self._lookup(key))

    def _mask_label(self, label):
        """The series a boolean mask's index label names: a position (the index of a listing
        column, ``df["field"] == "x"``, as in the official view) or a series name (the index
        of list_timeseries_metadata()). Positions were taken as names: the view held series
        named "1", "3"... that no lookup found."""
        if isinstance(label, (int, np.integer)) and not isinstance(label, bool):
            return self._lookup(int(label)).name
        return self._lookup(str(label)).name

    @staticmethod
    def _position(item):
        if not isinstance(item, (int, np.integer)):  # bools are ints, as in the official view
            raise TypeError(f"List index must contain integers, got {type(item)}")
        return int(item)

    def _listing_columns(self):
        tags = {c for n in self._names for c in self._all[n].tag_columns}
        return {*self._leading(), "field", "start_time", "end_time", "count", *tags}

    def _listing_column(self, column):
        """One column of the series listing, times as int64 milliseconds."""
        import pandas as pd

        rows = [self._all[n] for n in self._names]
        simple = {
            "table": lambda s: s.table,
            "field": lambda s: s.field,
            "start_time": lambda s: s.start,
            "end_time": lambda s: s.end,
            "count": lambda s: s.count,
        }
        get = simple.get(column)
        if get is None:
            values = [dict(zip(s.tag_columns, s.tags, strict=False)).get(column) for s in rows]
        else:
            values = [get(s) for s in rows]
        return pd.Series(values, name=column)

    def _subset(self, names):
        view = object.__new__(TsFileDataFrame)
        view.__dict__.update(self.__dict__)
        view._names = [str(n) for n in names]
        view._names_cache = None
        view._root = self._root or self
        return view

    @property
    def loc(self):
        return _Loc(self)

    def _read_series(self, series, shards, t1, t2):
        """(timestamps, values) of ``series`` in ``shards`` within [t1, t2], merged."""
        self._check_open()
        shards = [sh for sh in shards if sh.count and not (sh.end < t1 or sh.start > t2)]

        def one(sh):
            ts, vals = _read_fields(self._pool, sh.path, [series], t1, t2)[series.field]
            return sh.path, ts, vals

        workers = self._workers_for(sum(sh.count for sh in shards))
        parts = pool_map(one, shards, workers)  # each file's read_columns is pooled itself
        with pooled():  # the merged arrays: from the result pool (tsfile._mem.pool)
            return _merge_parts(series.name, parts)

    def _workers_for(self, rows):
        """Threads for a read of about ``rows`` rows: one below query_parallel_min_rows."""
        return 1 if rows < self._parallel_min_rows else (self._workers or 1)

    def _aligned(self, chosen, t1, t2):
        """AlignedTimeseries of the series ``chosen`` in [t1, t2]: one read per device and
        file (all its chosen fields at once), on ``query_workers`` threads."""
        self._check_open()
        groups = OrderedDict()
        for s in chosen:
            for sh in s.shards:
                if sh.count and not (sh.end < t1 or sh.start > t2):
                    groups.setdefault((sh.path, s.table, s.tags), []).append(s)
        keys = list(groups)
        rows = sum(sh.count for s in chosen for sh in s.shards)
        results = pool_map(
            lambda k: _read_fields(self._pool, k[0], groups[k], t1, t2),
            keys,
            self._workers_for(rows),
        )
        parts = {s.name: [] for s in chosen}
        for (path, _t, _tags), by_field in zip(keys, results, strict=True):
            for s in dict.fromkeys(groups[(path, _t, _tags)]):
                parts[s.name].append((path, *by_field[s.field]))
        with pooled():  # the merged arrays: from the result pool (tsfile._mem.pool)
            merged = [_merge_parts(s.name, parts[s.name]) for s in chosen]
            stamps = (
                np.unique(np.concatenate([m[0] for m in merged]))
                if merged
                else np.empty(0, np.int64)
            )
            values = np.full((len(stamps), len(chosen)), np.nan)
            for j, (ts, vals) in enumerate(merged):
                values[np.searchsorted(stamps, ts), j] = vals
        return AlignedTimeseries(stamps, values, [SeriesPath(s.name) for s in chosen])

    # -- display and lifecycle --------------------------------------------------------------

    def _header(self):
        if self._root is not None:
            return (
                f"TsFileDataFrame({self._model} model, {len(self)} time series, "
                f"subset of {len(self._root)})"
            )
        return (
            f"TsFileDataFrame({self._model} model, {len(self)} time series, "
            f"{len(self._paths)} files)"
        )

    def _table(self, max_rows):
        meta = self._metadata("", _display_time).reset_index(drop=True)
        lead = self._leading()
        tags = list(meta.columns[len(lead) + 4 :])
        cols = [*lead, *tags, "field", "start_time", "end_time", "count"]
        meta = meta[cols]
        if len(meta) > max_rows:
            half = max(1, max_rows // 2)
            return meta.to_string(max_rows=max_rows, min_rows=2 * half)
        return meta.to_string()

    def __repr__(self):
        return f"{self._header()}\n{self._table(20)}"

    __str__ = __repr__

    def show(self, max_rows=20):
        print(f"{self._header()}\n{self._table(max_rows)}")

    def close(self):
        """Close the view and its readers (a subset shares them with its root: closing a subset
        closes only the subset)."""
        if self._closed:
            return
        self._closed = True
        if self._root is None:
            self._pool.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - never raise from a finaliser
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def _check_schemas(infos):
    """Every file's version of a table has the columns of the first file holding it, else
    InvalidSchemaError naming both files and the column (the official view refuses too)."""
    first = {}
    for info in infos:
        for table, t in info.tables.items():
            if table not in first:
                first[table] = (info.path, t)
            else:
                check_same_schema(table, first[table][0], first[table][1], info.path, t)


def _is_bool_series(key):
    try:
        import pandas as pd
    except ImportError:
        return False
    return isinstance(key, pd.Series) and key.dtype == bool


def _resolve_options(options):
    """Each option: its value, else ``TSFILE_DATAFRAME_<NAME>`` from the environment, else the
    default; an int of at least _LEAST (1 unless named there)."""
    out = {}
    for name, value in options.items():
        source = name
        if value is None:
            source = f"TSFILE_DATAFRAME_{name.upper()}"
            raw = os.environ.get(source)
            if raw is None:
                out[name] = _DEFAULTS[name]
                continue
            try:
                value = int(raw)
            except ValueError:
                raise ValueError(f"{source} must be an integer") from None
        elif isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"{source} must be an integer")
        least = _LEAST.get(name, 1)
        if value < least:
            raise ValueError(f"{source} must be positive" if least else f"{source} must be >= 0")
        out[name] = int(value)
    return out


__all__ = [
    "TsFileDataFrame",
    "Timeseries",
    "AlignedTimeseries",
    "SeriesPath",
    "DatasetClosedError",
    "DatasetFileChangedError",
    "Scanner",
]
