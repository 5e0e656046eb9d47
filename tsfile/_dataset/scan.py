"""Reading one table from many files: ``tsfile.read_table`` / ``to_dataframe`` / ``read_arrow``
given a list, a directory or a glob, and the Arrow scanner behind them.

A query runs in two steps (``threads=``: the decode runs on that many threads, the decoders
release the GIL; ``read_table`` plans on the calling thread alone, see _read_batch):

1. the metadata of every file (tail and index only): the table's columns, and its time range,
   from the statistics of each device's time column. Files whose time range misses the query
   are pruned here, before any of their data is read. The files must agree on the table's
   schema (else InvalidSchemaError naming two files and the column), unless ``schema="union"``:
   then a column a file lacks is null in that file's rows.
2. the data. ``read_table``: every remaining file's query is planned (TsFileReader._plan_columns:
   chunk groups and row capacities, from the metadata) and all of them are decoded straight
   into ONE set of result arrays on one pool, jobs of chunk groups x columns of every file
   (tsfile._read.columns): no per-file arrays, no concatenation. ``read_arrow`` /
   ``to_dataframe`` / the streams: the one-file reader on every remaining file, the results
   concatenated.

Results are the files' results one after another in the order of the expanded paths (a list as
given, a directory or glob sorted), each file's rows in the one-file reader's order, whatever
the number of threads. A file that is no TsFile or is damaged raises its CorruptDataError,
which names the file; with ``on_error="skip"`` it is left out with a warning instead (also when
the damage is only found while its chunks are decoded).
"""

from __future__ import annotations

import contextvars
import inspect
import os
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from tsfile._args import int_arg
from tsfile._dataset.files import (
    check_same_schema,
    expand_paths,
    name_file,
    read_file_info,
    union_columns,
)
from tsfile._dataset.gcpause import collector_paused
from tsfile._dataset.hook import MANY_ONLY
from tsfile._mem.pool import pooled
from tsfile._read.ahead import TimesAhead
from tsfile._read.columns import Columns, JobPool, compact, read_into_one
from tsfile.errors import ColumnNotExistError, TableNotExistError, TsFileError
from tsfile.types import ColumnCategory, TSDataType

ON_ERROR = ("raise", "skip")
UNION_HINT = " (schema='union' reads files whose columns differ)"
SCHEMA_MODES = ("strict", "union")
# tree-model files hold devices, no table: the one-file to_dataframe reads such a file as one
# table, the many-file reads do not (a list of one tree-model file was only "no table")
NO_TABLE_HINT = (
    "; tree-model files are read one at a time (to_dataframe(path), query_tree_by_row) or as "
    "a dataset (TsFileDataFrame)"
)
# Files whose readers are open at once in a whole-table read: each holds a descriptor and a
# mapping until the decode ends; more files are read in batches of this many.
MAX_OPEN_READS = 256


def default_threads(n_files):
    """Threads for ``n_files`` files: one per core, never more than the files."""
    return max(1, min(os.cpu_count() or 1, n_files))


def pool_map(fn, items, threads):
    """``[fn(x) for x in items]`` on ``threads`` threads, results in the order of ``items``.
    Each call runs in a copy of the caller's context (contextvars), as the calls made on the
    caller's thread would (a JobPool's helpers do the same): numpy's allocator, chosen by
    tsfile._mem.pool.pooled() / unpooled(), is a context variable."""
    items = list(items)
    threads = default_threads(len(items)) if threads is None else int_arg("threads", threads, 1)
    if threads == 1 or len(items) <= 1:
        return [fn(x) for x in items]
    # one copy per call: a context can be entered by one thread at a time
    contexts = [contextvars.copy_context() for _ in items]
    with ThreadPoolExecutor(max_workers=min(threads, len(items))) as pool:
        return list(pool.map(lambda ctx, x: ctx.run(fn, x), contexts, items))


_PRUNED = object()  # read_each: the file's time range misses the query


class _Failed:
    """A file left out by on_error='skip', with its error."""

    def __init__(self, path, error):
        self.path = path
        self.error = error


class Scanner:
    """One table over many files, planned from their metadata.

    ``files``: the paths whose data the query reads; ``pruned``: paths left out by their time
    statistics (or, with schema="union", by filters on columns they lack: _file_filters);
    ``skipped``: paths left out by ``on_error="skip"`` (with a warning each).
    ``columns``: the result's [(name, TSDataType, ColumnCategory)] after ``time``.
    Exports Arrow as a stream (``__arrow_c_stream__``, ``to_batches``) or as one table
    (``to_arrow``), or reads into arrays (``read_table``).

    ``plan=False`` (tsfile.read_table & co. over many files) plans while reading instead: each
    file is opened once, its metadata read, and it is pruned or read with that same reader;
    ``files``/``pruned``/``columns`` are known after the read. The streams need the plan."""

    def __init__(
        self,
        paths,
        table_name=None,
        column_names=None,
        start_time=None,
        end_time=None,
        tag_filter=None,
        value_filter=None,
        threads=None,
        on_error="raise",
        schema="strict",
        plan=True,
    ):
        from tsfile.reader import _table_name_arg, _time_bounds

        _table_name_arg(table_name)
        if on_error not in ON_ERROR:
            raise ValueError(f"on_error must be one of {ON_ERROR}, not {on_error!r}")
        if schema not in SCHEMA_MODES:
            raise ValueError(f"schema must be one of {SCHEMA_MODES}, not {schema!r}")
        self.paths = expand_paths(paths)
        self.threads = threads
        self.on_error = on_error
        self.schema_mode = schema
        self.start_time, self.end_time = start_time, end_time
        self.t1, self.t2 = _time_bounds(start_time, end_time)
        self.tag_filter, self.value_filter = tag_filter, value_filter
        self.skipped = []
        self._column_names = column_names
        self.files, self.pruned = [], []
        self.spans = {}  # path of a file read -> its (first, last) time within the query
        self._missing = {}  # path -> result columns that file lacks (schema="union")
        self.tables = {}  # path of a file read -> its TableInfo of the table (planned scans)
        self.columns = None
        self._infos = []  # (path, FileInfo) of the files opened so far (plan=False)
        self._time_names = {}  # path -> its table's TIME column name (None: none), once planned
        # schema="union": path -> (tag_filter, value_filter) of a file lacking columns the
        # filters name (see _file_filters); the names so decided, checked against every file's
        self._filters = {}
        self._decided = set()
        if plan:
            infos = self._collect(read_file_info)
            self.table = self._pick_table(table_name, infos)
            self._settle(infos)
            self._check_decided(infos)
        else:  # planned file by file while reading (see read_table)
            self.table = self._first_table(table_name)

    def _settle(self, infos):
        """Columns, files, pruned files and spans from every file's FileInfo."""
        self.columns, present = self._plan_columns(infos, self._column_names)
        for path, info in present:
            span = self._span(info)
            if span is None or not self._file_filters(path, info):
                self.pruned.append(path)
                continue
            self.files.append(path)
            self.spans[path] = span
            self.tables[path] = info
            have = info.column_map()
            self._missing[path] = [c for c in self.columns if c[0] not in have]

    def _span(self, table_info):
        """The table's time range in a file within the query's, None when they miss."""
        span = table_info.time_range()
        if span is None or span[1] < self.t1 or span[0] > self.t2:
            return None
        return max(span[0], self.t1), min(span[1], self.t2)

    def _file_filters(self, path, table_info):
        """Whether any row of a file's table (its TableInfo) can match the query's filters.
        With schema="union" a file may lack a column the filters name: its rows hold NULL there
        (as in the result), so each test of that column is decided as on NULL (a value
        comparison never matches; a tag test matches only IS NULL) and the rest of the filters
        is kept for the file's reads (file_filters). Before, the file's reader refused the
        filter (ColumnNotExistError), failing a read the union promised."""
        if self.schema_mode != "union" or (self.tag_filter is None and self.value_filter is None):
            return True
        from tsfile._read.predicate import TIME, decide_absent_columns
        from tsfile.filters import decide_absent_tags

        have = {name.lower() for name in table_info.column_map()}
        have.add(TIME)

        def lacks(name):
            return name.lower() not in have

        decided = set()
        tags, values = self.tag_filter, self.value_filter
        if tags is not None:
            tags = decide_absent_tags(tags, lacks, decided)
        if values is not None:
            values = decide_absent_columns(values, lacks, decided)
        self._decided |= decided
        if not decided:
            return True
        self._filters[path] = (None if tags is True else tags, values)
        return tags is not False and values is not False

    def _check_decided(self, infos):
        """ColumnNotExistError for a column the filters name that no file's table holds: each
        file decided it as absent (_file_filters), which would silently match nothing."""
        if not self._decided:
            return
        held = {
            name.lower()
            for _path, info in infos
            if self._key_in(info) is not None
            for name in info.tables[self._key_in(info)].column_map()
        }
        unknown = sorted(n for n in self._decided if n.lower() not in held)
        if unknown:
            raise ColumnNotExistError(
                f"filter column {unknown[0]!r} is in no file's table {self.table!r}"
            )

    def _first_table(self, table_name):
        """The table to read: ``table_name`` (as the files spell it: as given, else lower
        case), or the first table of the first file that opens."""
        if table_name is not None:
            return table_name
        from tsfile.reader import TsFileReader

        failed = 0
        for path in self.paths:
            try:
                with TsFileReader(path) as r:
                    names = list(r.get_all_table_schemas())
            except TsFileError as exc:
                # a file that cannot be read before the table is known: with on_error="raise"
                # its error, as the reading pass would raise it (a file with no table was said
                # to be "no table in any of N files", hiding the damage); with "skip" it is
                # reported by the reading pass, if there is a table to read
                if self.on_error == "raise":
                    raise name_file(exc, path) from exc
                failed += 1
                continue
            if names:
                return names[0]
        unread = f" ({failed} could not be read)" if failed else ""
        raise TableNotExistError(
            f"no table in any of {len(self.paths)} files{unread}{NO_TABLE_HINT}"
        )

    # -- planning ---------------------------------------------------------------------------

    def _collect(self, fn, paths=None, pool=None):
        """``[(path, fn(path))]`` over ``paths`` (every path by default) on ``pool`` (a JobPool;
        by default a pool of ``threads``); failures per ``on_error``."""
        paths = self.paths if paths is None else paths

        def guarded(path):
            try:
                return fn(path)
            except TsFileError as exc:
                if self.on_error == "raise":
                    raise name_file(exc, path) from exc
                return _Failed(path, name_file(exc, path))

        results = (
            pool_map(guarded, paths, self.threads) if pool is None else pool.map(guarded, paths)
        )
        out = []
        for path, result in zip(paths, results, strict=True):
            if isinstance(result, _Failed):
                self._skip(result)
            else:
                out.append((path, result))
        return out

    def _skip(self, failed):
        self.skipped.append(failed.path)
        warnings.warn(
            f"on_error='skip' left a file out: {failed.error}", RuntimeWarning, stacklevel=4
        )

    def _pick_table(self, table_name, infos):
        if table_name is None:
            for _path, info in infos:
                if info.tables:
                    return next(iter(info.tables))
            raise TableNotExistError(f"no table in any of {len(self.paths)} files{NO_TABLE_HINT}")
        if any(table_name in info.tables for _p, info in infos):
            return table_name
        lower = table_name.lower() if isinstance(table_name, str) else table_name
        if any(lower in info.tables for _p, info in infos):
            return lower
        raise TableNotExistError(
            f"Table '{lower}' does not exist in any of {len(self.paths)} files"
        )

    def _plan_columns(self, infos, column_names):
        """Result columns and [(path, TableInfo)] of the files holding the table."""
        present = [(p, info.tables[self.table]) for p, info in infos if self.table in info.tables]
        if not present:
            raise TableNotExistError(
                f"Table '{self.table}' does not exist in any of {len(infos)} files"
            )
        if self.schema_mode == "strict":
            lacking = [p for p, info in infos if self.table not in info.tables]
            if lacking and present:
                raise TableNotExistError(
                    f"table {self.table!r} is in {present[0][0]} but not in {lacking[0]} "
                    "(schema='union' reads only the files that hold it)"
                )
            first_path, first = present[0]
            for path, info in present[1:]:
                check_same_schema(self.table, first_path, first, path, info, UNION_HINT)
            all_columns = list(first.columns)
        else:
            all_columns = union_columns(self.table, present)
        by_name = {n: (n, t, c) for n, t, c in all_columns}
        if column_names is None:
            chosen = [c for c in all_columns if c[2] != ColumnCategory.TIME]
        else:
            chosen = []
            for name in column_names:
                key = name if name in by_name else str(name).lower()
                if key not in by_name:
                    raise ColumnNotExistError(
                        f"Column '{name}' does not exist in table {self.table!r}"
                    )
                if by_name[key][2] != ColumnCategory.TIME:
                    chosen.append(by_name[key])
        return chosen, present

    # -- reading ----------------------------------------------------------------------------

    def map_files(self, fn, paths=None, pool=None):
        """``[(path, fn(path, present column names))]`` over ``paths`` (default: ``files``) on
        the pool, in order; failures per ``on_error``."""
        names = [c[0] for c in self.columns]

        def one(path):
            missing = {c[0] for c in self._missing[path]}
            return fn(path, [n for n in names if n not in missing])

        return self._collect(one, self.files if paths is None else paths, pool)

    def read_each(self, read_one, paths=None, pool=None, keep_open=False):
        """Plan and read in one pass per file, on the pool: open the file, read its metadata,
        prune it by its time range, else ``read_one(open reader, the file's columns)``; the
        files' schemas are checked when all are known. ``[(path, result)]`` of the files read,
        in order (the reader's caches serve both the plan and the read: one index walk).
        ``paths``: a batch of the paths (every path by default; the schemas are checked over
        every batch so far); ``keep_open``: a reader handed to ``read_one`` is not closed here
        (read_one took it), only the readers of files pruned or failed."""
        from tsfile.reader import TsFileReader

        def one(path):
            r = TsFileReader(path)
            handed = False
            try:
                # only the queried table's devices: a file's other tables are not walked
                info = read_file_info(path, reader=r, tables=self._spellings())
                key = self._key_in(info)
                if key is None:
                    return info, None, None
                table = info.tables[key]
                span = self._span(table)
                if span is None or not self._file_filters(path, table):
                    return info, _PRUNED, None
                result = read_one(r, self._file_columns(table))
                handed = keep_open
                return info, result, span
            finally:
                if not handed:
                    r.close()

        done = self._collect(one, paths, pool)
        self._infos.extend((p, info) for p, (info, _part, _span) in done)
        for _p, info in self._infos:
            key = self._key_in(info)
            if key is not None:
                self.table = key
                break
        self.columns, _present = self._plan_columns(self._infos, self._column_names)
        self._check_decided(self._infos)
        parts = []
        for path, (info, part, span) in done:
            if part is None:
                continue
            if part is _PRUNED:
                self.pruned.append(path)
                continue
            self.files.append(path)
            table = info.tables[self._key_in(info)]
            self.spans[path] = span
            have = table.column_map()
            self._missing[path] = [c for c in self.columns if c[0] not in have]
            parts.append((path, part))
        return parts

    def _spellings(self):
        """The table's name as given and lower-cased (the writers store names in lower case)."""
        return {self.table, self.table.lower() if isinstance(self.table, str) else self.table}

    def _key_in(self, info):
        if self.table in info.tables:
            return self.table
        lower = self.table.lower() if isinstance(self.table, str) else self.table
        return lower if lower in info.tables else None

    def _file_columns(self, table):
        """The query's columns that a file's table has (all its columns when none are named),
        by the names the file uses."""
        have = table.column_map()
        if self._column_names is None:
            return [n for n, _t, c in table.columns if c != ColumnCategory.TIME]
        out = []
        for name in self._column_names:
            key = name if name in have else str(name).lower()
            if key in have and have[key][1] != ColumnCategory.TIME:
                out.append(key)
        return out

    def file_filters(self, path):
        """(tag_filter, value_filter) of the query for the file ``path`` (see _file_filters)."""
        return self._filters.get(path, (self.tag_filter, self.value_filter))

    def _query_kwargs(self, path):
        """The one-file query's arguments for the file ``path``."""
        tag_filter, value_filter = self.file_filters(path)
        return {
            "start_time": self.start_time,
            "end_time": self.end_time,
            "tag_filter": tag_filter,
            "value_filter": value_filter,
        }

    def read_table(self):
        """The query as ``{"time": array, column: array}`` (tsfile.read_table's arrays): every
        file planned from its metadata, then all of them decoded into ONE allocation per column
        on one pool of ``threads`` threads (tsfile._read.columns): no per-file arrays and no
        concatenation. At most MAX_OPEN_READS files are open at once (a reader holds a
        descriptor and a mapping): beyond that, each batch is one allocation and the batches
        are concatenated."""
        parts = [self._result_dict(got) for _kept, got in self._read_batches()]
        if len(parts) == 1:
            return parts[0]
        return concat_columns(parts, self.columns)

    def _read_batches(self):
        """The query decoded batch by batch (one batch unless more than MAX_OPEN_READS files):
        [([(path, its rows [start, stop) of the batch)] of the files read, Columns)]."""
        planning = self.columns is None  # plan=False: each file planned as it is opened
        paths = self.paths if planning else self.files
        batches = []
        # the collector would walk the planned files' index objects again and again (gcpause)
        with collector_paused(), JobPool(self._thread_count(len(paths))) as pool:
            for k in range(0, len(paths), MAX_OPEN_READS):
                batch = paths[k : k + MAX_OPEN_READS]
                batches.append(self._read_batch(batch, pool, planning))
        return batches

    def _thread_count(self, n_files):
        from tsfile.reader import _thread_count

        return default_threads(n_files) if self.threads is None else _thread_count(self.threads)

    def _read_batch(self, paths, pool, planning):
        """Files of one allocation: planned on this thread, decoded on the pool into one set of
        arrays (Columns), their readers closed. ([(path, its rows [start, stop))] of the files
        read, Columns)."""
        # readers: appended by the planning, on this thread. failed: written by the pool's
        # threads (on_error: failed[path] = ..., one path each): a single dict store is atomic,
        # no lock needed; read only after pool.map has returned or raised (JobPool.map: every
        # job of it has ended)
        readers = []
        failed = {}

        def on_error(read, exc):
            path = read.reader._path
            if self.on_error == "raise":
                raise name_file(exc, path) from exc
            failed[path] = name_file(exc, path)
            return True

        # the time chunks of the files planned so far are decoded on a helper while the next
        # are planned (tsfile._read.ahead)
        ahead = TimesAhead(pool, _stored_bytes(paths), len(paths)) if pool.threads > 1 else None
        try:
            # planned on this thread alone: planning is Python holding the GIL but for short
            # waits (open, mmap, page faults), and two threads planning at once handed the GIL
            # back and forth at each wait: 100 files took ~75 ms on two threads, ~45 on one
            try:
                planned = self._plan_reads(paths, readers, planning, ahead)
                if ahead is not None:
                    ahead.finish()
            finally:
                # before the readers close (a close would wait for the helper's operation, but
                # stopping it first keeps it from starting more), whatever ended the planning:
                # an error, or a KeyboardInterrupt anywhere up to and inside finish() (the
                # helper would otherwise wait for ever, and JobPool.close join it); a no-op
                # after finish()
                if ahead is not None:
                    ahead.stop()
            got = read_into_one(
                [read for _p, read in planned], pool, on_error, ahead, close_readers=True
            )
        finally:
            for r in readers:
                r.close()
        kept = []
        for (path, _read), span in zip(planned, got.spans, strict=True):
            if path in failed:  # warned in path order, whatever thread failed first
                self._skip(_Failed(path, failed[path]))
                self.files.remove(path)
            else:
                kept.append((path, span))
        return kept, got

    def _plan_reads(self, paths, readers, planning, ahead=None):
        """[(path, ColumnRead)] of the files of ``paths`` the query reads, planned on this thread
        (see _read_batch; ``planning``: their metadata not read yet, see read_each); every reader
        handed out is appended to ``readers``, for the caller to close. Each file planned is
        offered to ``ahead`` (a TimesAhead) at once."""
        here = JobPool(1)  # read_each / map_files would otherwise plan on a pool of `threads`
        from tsfile.reader import TsFileReader

        def plan(reader, cols):
            readers.append(reader)
            self._time_names[reader._path] = _time_column(reader.get_table_schema(self.table))
            kw = self._query_kwargs(reader._path)
            read = reader._plan_columns(
                self.table,
                cols,
                self.start_time,
                self.end_time,
                "auto",
                kw["tag_filter"],
                kw["value_filter"],
            )
            if ahead is not None:
                ahead.offer(read)
            return read

        if planning:  # open, prune and plan in one pass per file
            return self.read_each(plan, paths, here, keep_open=True)
        return self.map_files(lambda path, cols: plan(TsFileReader(path), cols), paths, here)

    def _result_dict(self, got):
        """{"time": ..., column: ...} from a batch's Columns: numeric columns with nulls as
        MaskedArray; a column no file of the batch holds as an all-null column."""
        out = {"time": got.ts}
        n = len(got.ts)
        for name, dtype, _cat in self.columns:
            v = got.values.get(name)
            if v is None:
                out[name] = null_column(dtype, n)
                continue
            m = got.nulls.get(name)
            out[name] = v if m is None or v.dtype == object else np.ma.MaskedArray(v, mask=m)
        return out

    def _read(self, read_one):
        """``read_one(reader or path, columns)`` on every file: in the reading pass when the
        scanner was made with plan=False, else on the planned files."""
        if self.columns is None:
            return self.read_each(read_one)
        return self.map_files(read_one)

    def to_arrow(self):
        """The query as one pyarrow.Table (tsfile.read_arrow's types; the columns a file lacks as
        nulls): from the one allocation of read_table (arrays handed to Arrow without a per-file
        table), or, beyond MAX_OPEN_READS files, the files' tables concatenated."""
        merged = self.read_merged()
        if merged is None:
            return self._to_arrow_per_file()
        _kept, got = merged
        import pyarrow as pa

        from tsfile.dataframe import _arrow_array

        schema = self.arrow_schema()
        arrays = [pa.array(got.ts)]
        for name, dtype, _cat in self.columns:
            values = got.values.get(name)
            if values is None:  # no file read holds the column
                arrays.append(pa.nulls(len(got.ts), schema.field(name).type))
            else:
                arrays.append(_arrow_array(values, got.nulls.get(name), dtype, name))
        return pa.Table.from_arrays(arrays, names=schema.names).cast(schema)

    def read_merged(self):
        """The query in one allocation (tsfile._read.columns) with its DATE values checked file
        by file (an invalid one raises naming the file, or drops it with on_error="skip"):
        ([(path, its rows [start, stop))], Columns); None beyond MAX_OPEN_READS files (the
        callers then read file by file)."""
        if len(self.paths if self.columns is None else self.files) > MAX_OPEN_READS:
            return None
        batches = self._read_batches()
        if not batches:
            return None
        kept, got = batches[0]
        return self._checked_dates(kept, got)

    def _checked_dates(self, kept, got):
        from tsfile.dataframe import _check_dates, _date_locator
        from tsfile.errors import CorruptDataError

        dates = [n for n, t, _c in self.columns if t == TSDataType.DATE and n in got.values]
        dropped = []
        for path, (a, b) in kept if dates else ():
            locate = _date_locator(path, self.table, self.start_time, self.end_time)
            try:
                for name in dates:
                    mask = got.nulls.get(name)
                    mask = None if mask is None else mask[a:b]
                    _check_dates(got.values[name][a:b], mask, name, locate)
            except CorruptDataError as exc:
                if self.on_error == "raise":
                    raise name_file(exc, path) from exc
                self._skip(_Failed(path, name_file(exc, path)))
                self.files.remove(path)
                dropped.append(path)
        if not dropped:
            return kept, got
        return _without(kept, got, set(dropped))

    def _to_arrow_per_file(self):
        """to_arrow beyond MAX_OPEN_READS files: each file's read_arrow on the pool, the columns
        a file lacks as nulls, the tables concatenated."""
        import pyarrow as pa

        from tsfile.dataframe import read_arrow as one_file

        def one(source, cols):
            path = getattr(source, "_path", source)  # a reader (read_each) or a path
            return one_file(source, self.table, cols, **self._query_kwargs(path))

        parts = self._read(one)
        schema = self.arrow_schema()

        def complete(path, table):
            for name, _dtype, _cat in self._missing[path]:
                table = table.append_column(
                    schema.field(name), pa.nulls(len(table), schema.field(name).type)
                )
            return table.select(schema.names).cast(schema)

        parts = [complete(p, t) for p, t in parts]
        return pa.concat_tables(parts) if parts else schema.empty_table()

    def arrow_schema(self):
        from tsfile._arrow import schema_for

        return schema_for(
            ["time", *[c[0] for c in self.columns]],
            [TSDataType.INT64, *[c[1] for c in self.columns]],
        )

    def to_batches(self):
        """pyarrow.RecordBatch of every block of every file, in order (one file at a time).
        With on_error="skip" a file's batches are held until the file has been read whole, so
        that a file failing midway leaves none of its rows in the stream."""
        for path in self.files:
            batches = self._file_batches(path)
            if self.on_error == "skip":
                batches = self._whole_or_nothing(path, batches)
            try:
                yield from batches
            except TsFileError as exc:
                raise name_file(exc, path) from exc

    def _file_batches(self, path):
        from tsfile._arrow import block_batch
        from tsfile.reader import TsFileReader

        names = ["time", *[c[0] for c in self.columns]]
        types = [TSDataType.INT64, *[c[1] for c in self.columns]]
        schema = self.arrow_schema()
        missing = {c[0] for c in self._missing[path]}
        present = [n for n in names[1:] if n not in missing]
        with (
            TsFileReader(path) as r,
            r.query_table(self.table, present, **self._query_kwargs(path)) as rs,
        ):
            while (blk := rs.get_next_tsblock()) is not None:
                yield block_batch(blk, names, types, schema)

    def _whole_or_nothing(self, path, batches):
        try:
            return list(batches)
        except TsFileError as exc:
            self._skip(_Failed(path, name_file(exc, path)))
            return []

    def to_reader(self):
        """A pyarrow.RecordBatchReader over ``to_batches()``."""
        import pyarrow as pa

        return pa.RecordBatchReader.from_batches(self.arrow_schema(), self.to_batches())

    def __arrow_c_stream__(self, requested_schema=None):
        return self.to_reader().__arrow_c_stream__(requested_schema)


# -- combining the files' results ----------------------------------------------------------------


def _stored_bytes(paths):
    """The bytes of the files at ``paths`` (0 for one that cannot be read; the planning reports
    it): the base of TimesAhead's estimate."""
    total = 0
    for p in paths:
        try:
            total += os.stat(p).st_size
        except (OSError, TypeError, ValueError):
            pass
    return total


def _time_column(schema):
    """The name of a table schema's TIME column (None when it has none)."""
    for c in schema.columns:
        if c.category == ColumnCategory.TIME:
            return c.column_name
    return None


def _without(kept, got, dropped):
    """(kept, got) without the rows of the files ``dropped`` (one compaction; an error path)."""
    keep = np.ones(len(got.ts), np.bool_)
    for path, (a, b) in kept:
        if path in dropped:
            keep[a:b] = False
    ts, values, nulls, spans = compact(got.ts, got.values, got.nulls, [s for _p, s in kept], keep)
    left = [(path, s) for (path, _old), s in zip(kept, spans, strict=True) if path not in dropped]
    return left, Columns(ts, values, nulls, [s for _p, s in left])


def null_column(dtype, n):
    """An all-null column of ``n`` rows as tsfile.read_table makes them."""
    from tsfile._read import engine

    t = TSDataType(dtype)
    if t in (TSDataType.TEXT, TSDataType.STRING, TSDataType.BLOB):
        return np.full(n, None, dtype=object)
    values = np.zeros(n, engine.numpy_dtype(t))
    return np.ma.MaskedArray(values, mask=np.ones(n, np.bool_))


def concat_columns(parts, columns):
    """One ``{"time": ..., name: ...}`` from the files' results (MaskedArray where any part has
    nulls)."""
    with pooled():  # the concatenated arrays: from the result pool (tsfile._mem.pool)
        return _concat_pooled(parts, columns)


def _concat_pooled(parts, columns):
    from tsfile._read import engine

    out = {"time": np.concatenate([p["time"] for p in parts]) if parts else np.empty(0, np.int64)}
    for name, dtype, _cat in columns:
        arrays = [p[name] for p in parts]
        if not arrays:
            t = TSDataType(dtype)
            empty_type = (
                object
                if t in (TSDataType.TEXT, TSDataType.STRING, TSDataType.BLOB)
                else engine.numpy_dtype(t)
            )
            out[name] = np.empty(0, empty_type)
        elif any(isinstance(a, np.ma.MaskedArray) for a in arrays):
            out[name] = np.ma.concatenate(arrays)
        else:
            out[name] = np.concatenate(arrays)
    return out


# -- the hook behind tsfile.read_table / to_dataframe / read_arrow -------------------------------


def read_many(kind, single, args, kwargs):
    """``single`` (a one-file function of tsfile.dataframe) over the files its first argument
    names. ``kind``: "read_table", "read_arrow" or "to_dataframe"."""
    many = {k: kwargs.pop(k) for k in MANY_ONLY if k in kwargs}
    bound = inspect.signature(single).bind(*args, **kwargs)
    a = bound.arguments
    first = next(iter(inspect.signature(single).parameters))
    scanner = Scanner(
        a.pop(first),
        a.get("table_name"),
        a.get("column_names"),
        a.get("start_time"),
        a.get("end_time"),
        a.get("tag_filter"),
        a.get("value_filter"),
        plan=False,
        **many,
    )
    if kind == "read_table":
        return scanner.read_table()
    if kind == "read_arrow":
        return scanner.to_arrow()
    return _to_dataframe_many(scanner, single, a)


def _to_dataframe_many(scanner, single, a):
    """to_dataframe over the files: each file's frame (the one-file rules: nullable dtypes, the
    time column's name), the columns a file lacks as nulls, then ``max_row_num`` /
    ``as_iterator`` on the whole."""
    import pandas as pd

    from tsfile.dataframe import _row_limit, _shaped

    max_row_num = a.pop("max_row_num", None)
    as_iterator = a.pop("as_iterator", False)
    _row_limit(max_row_num, as_iterator)  # a bad value raises before any file is read
    rest = {k: v for k, v in a.items() if k not in ("table_name", "column_names")}
    requested = a.get("column_names")

    merged = scanner.read_merged()
    if merged is not None:
        whole = _merged_frame(scanner, *merged)
    else:  # beyond MAX_OPEN_READS files: the files' frames concatenated

        def one(source, cols):
            path = getattr(source, "_path", source)  # a reader (read_each) or a path
            # the file's own filters (Scanner._file_filters)
            kw = {**rest, **scanner._query_kwargs(path)}
            return single(source, scanner.table, None if requested is None else cols, **kw)

        frames = []
        for path, df in scanner._read(one):
            if len(df.columns):
                for name, dtype, _cat in scanner._missing[path]:
                    df[name] = _null_pandas_column(dtype, len(df))
                frames.append(df)
        whole = pd.concat(frames, ignore_index=True) if frames else None
    if whole is None:
        return iter(()) if as_iterator else pd.DataFrame()
    wanted = {c[0] for c in scanner.columns}
    order = [c for c in whole.columns if c not in wanted]  # the time column
    whole = whole[order + [c[0] for c in scanner.columns if c[0] in whole.columns]]
    return _shaped(whole, max_row_num, as_iterator)


def _merged_frame(scanner, kept, got):
    """The DataFrame of the one-allocation read (None when it has no row), as the files' frames
    of the one-file to_dataframe would be concatenated: time first (named after the table's
    TIME column, as each file's frame), nullable dtypes, the columns a file lacks null."""
    from tsfile.dataframe import _frame

    if len(got.ts) == 0:
        return None
    time_names = {scanner._time_names.get(path) for path, _span in kept}
    names = ["time"] + [c[0] for c in scanner.columns]
    types = [TSDataType.INT64] + [c[1] for c in scanner.columns]
    values, nulls = dict(got.values), dict(got.nulls)
    for name, dtype, _cat in scanner.columns:
        if name not in values:  # no file read holds the column
            col = null_column(dtype, len(got.ts))
            values[name] = np.ma.getdata(col)
            nulls[name] = np.ones(len(got.ts), np.bool_)
    rename = time_names.pop() if len(time_names) == 1 else None
    return _frame(names, types, got.ts, values, nulls, rename)


def _null_pandas_column(dtype, n):
    """An all-null pandas column of the dtype tsfile.to_dataframe gives ``dtype``."""
    from tsfile.dataframe import _pandas_column

    col = null_column(dtype, n)
    if isinstance(col, np.ma.MaskedArray):
        return _pandas_column(col.data, col.mask, dtype)
    return _pandas_column(col, None, dtype)


__all__ = ["Scanner", "read_many", "pool_map", "default_threads", "concat_columns", "null_column"]
