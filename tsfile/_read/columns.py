"""Whole-table reads into ONE set of result arrays, for one file (TsFileReader.read_columns) or
many (tsfile.read_table over a directory: tsfile._dataset.scan).

A read runs in two steps:

1. *plan* (TsFileReader._plan_columns, one ColumnRead per file): from the metadata alone, the
   chunk groups of the query and the rows each can hold at most (statistics counts, checked
   against the pages' sizes). The sum over every file is the size of the result arrays.
2. *decode into* (read_into_one): the result arrays are allocated once (``np.empty``: no page is
   touched here), then every file's chunk groups are decoded straight into slices of them on
   one pool of threads: first the time chunks (job = a batch of chunk groups of one file, one
   engine call: engine.read_time_chunks), each group at a fixed start (the sum of the
   capacities before it); then the timestamps close up the gaps a time range leaves (only the
   time array moves); then every chunk group's field columns at the group's final rows, one
   engine call per job (engine.read_value_groups: the GIL is handed over once per job, not
   once per group or column, and no Python runs per column). No two jobs write the
   same rows, each job first-touches the memory of its own slice (so the page faults of a
   large result are spread over the threads), and nothing is copied afterwards, but the rows
   of a file dropped by ``on_error`` (one compaction, on that error path only). A read with a
   value filter takes another field phase (tsfile._read.late): the filter's columns first,
   then the others decoded only where a row is selected and copied straight to the selected
   rows' places.

Tag columns (object arrays, one value per device) are filled by jobs of their own, batches of
chunk groups between the field jobs: each takes the GIL only to count the references, and writes
the pointers (and takes the page faults of the column) without it (tsfile._read.tagfill).
Results are the same, in the same order, whatever the number of threads: every job's position
is fixed by the plan, never by which thread ran it.
"""

from __future__ import annotations

import contextvars
import itertools
import threading
from concurrent.futures import ThreadPoolExecutor, wait

import numpy as np

from tsfile._mem import fresh
from tsfile._mem.pool import pooled, unpooled
from tsfile._read import engine, late, tagfill
from tsfile.errors import TsFileError


class JobPool:
    """``map(fn, items)``: ``[fn(x) for x in items]`` on up to ``threads`` threads (the calling
    thread and ``threads - 1`` helpers, started on first use and kept for every phase of a
    read), results in the order of ``items``. The exception of the first item that failed (in
    that order, as one thread would raise it) is raised, the items not started are not run and
    the running ones end first. An exception of the calling thread outside ``fn`` (a helper's
    thread that could not be started, a KeyboardInterrupt between two items or while it waits
    for the helpers) stops the map alike: no item is started after it, the running ones end,
    then it is raised. Use the pool in a ``with`` block: close() shuts its threads down.

    Every thread of a map claims its next item itself (the items are taken in order from one
    shared counter), so a map costs one hand-over per helper, not one per item: with a future
    per item, each item woke a worker and then the waiting caller (two context switches per job,
    ~2,000 per 100-file read), and the caller's core sat idle while it waited.

    Each helper runs in a copy of the caller's context (contextvars), as asyncio.to_thread does:
    numpy's allocator is a context variable, so a job allocates its arrays from the result pool
    when the caller reads inside tsfile._mem.pool.pooled(). The caller's own items run in the
    caller's context."""

    def __init__(self, threads):
        self.threads = threads
        self._pool = None

    def map(self, fn, items):
        if self.threads <= 1 or len(items) <= 1:
            return [fn(x) for x in items]
        claims = _Claims(fn, items)
        helpers = min(self.threads, len(items)) - 1
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=self.threads - 1)
        running = []
        interrupted = None
        try:
            for _ in range(helpers):
                # one copy per helper: a context can be entered by one thread at a time
                running.append(self._pool.submit(contextvars.copy_context().run, claims.run))
            claims.run()
        except BaseException as exc:  # outside fn: a helper's thread that could not start,
            claims.halt()  # a KeyboardInterrupt between two items
            interrupted = exc
        # the helpers' items end before map returns or raises: the caller's cleanup (closing
        # readers, reading what the jobs wrote) never runs beside a job of this map, not even
        # when a KeyboardInterrupt stops the wait (no helper starts another item then)
        while True:
            try:
                wait(running)
                break
            except BaseException as exc:
                claims.halt()
                interrupted = interrupted or exc
        if interrupted is not None:
            raise interrupted
        return claims.outcome()

    def start(self, fn):
        """Run ``fn()`` on one helper thread (in a copy of the caller's context, as a map's
        helpers) and return its Future. For a pool of two threads or more. A map started
        meanwhile does not return before fn does (the items of the helper fn holds queue behind
        it): fn must not wait for the caller past a map (TimesAhead's helper runs until stop(),
        so the planning maps on a pool of its own)."""
        if self.threads <= 1:
            raise ValueError("JobPool.start needs a pool of two threads or more")
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=self.threads - 1)
        return self._pool.submit(contextvars.copy_context().run, fn)

    def close(self):
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class _Claims:
    """The items of one JobPool.map and who runs which: each thread of the map calls run(),
    which takes the next unclaimed item (``next`` of an itertools.count is atomic under the
    GIL) until none is left or an item failed; outcome() is the results in order, or the
    failure of the first failed item."""

    def __init__(self, fn, items):
        self.fn = fn
        self.items = items
        self.results = [None] * len(items)
        self.failures = {}  # item index -> its exception
        self.stop = len(items)  # no item from this index on is started (lowered by a failure)
        self._next = itertools.count()
        self._lock = threading.Lock()  # the failures (rare): lowering stop is a read and a write

    def run(self):
        while (i := next(self._next)) < self.stop:
            try:
                self.results[i] = self.fn(self.items[i])
            except BaseException as exc:
                # items are claimed in order: every item before i is claimed (it runs to its
                # end, and may fail too), no item after the first failure is started
                with self._lock:
                    self.failures[i] = exc
                    self.stop = min(self.stop, i)
                return

    def halt(self):
        """No item is started from now on (the caller stops the map: an exception outside fn).
        No lock (a lock's wait could itself be interrupted): a failure lowering ``stop`` to
        its index at the same time leaves it at most there, and every item below that index
        was claimed already."""
        self.stop = 0

    def outcome(self):
        if self.failures:
            raise self.failures[min(self.failures)]
        return self.results


class ColumnRead:
    """One file's part of a whole-table read, planned (TsFileReader._plan_columns): the
    reader, the planned query (tsfile.reader._Plan: columns, devices and their chunk groups,
    the time range narrowed by the value filter, the bound filter), the decode path, and the
    row capacity of every chunk group."""

    __slots__ = ("reader", "query", "pcode", "path", "field_types", "groups", "capacity")

    def __init__(self, reader, query, pcode, path):
        self.reader = reader
        self.query = query
        self.pcode = pcode
        self.path = path  # the decode path's name (the value filter's kernels follow it)
        self.field_types = [query.types[query.names.index(f)] for f in query.fields]
        self.groups = [(task, g) for task in query.tasks for g in task.groups]
        self.capacity = sum(g.rows for _task, g in self.groups)


class Columns:
    """The decoded result: ``ts``; ``values`` {name: array} for every field and tag column of
    any read; ``nulls`` {name: bool mask} only for the columns that hold a null; ``spans``: per
    read, its rows [start, stop) of the result (None for a read dropped by ``on_error``)."""

    __slots__ = ("ts", "values", "nulls", "spans")

    def __init__(self, ts, values, nulls, spans):
        self.ts = ts
        self.values = values
        self.nulls = nulls
        self.spans = spans


def _field_types(reads):
    """{field name: TSDataType} over every read, first seen order."""
    out = {}
    for r in reads:
        for name, t in zip(r.query.fields, r.field_types, strict=True):
            out.setdefault(name, t)
    return out


def _tag_names(reads):
    out = {}
    for r in reads:
        for name in r.query.tags:
            out.setdefault(name, None)
    return list(out)


def null_masks(names, rows):
    """{name: all-False bool mask of ``rows``}: not from the result pool (which would zero a
    reused block whole) nor, when large, from numpy's calloc (which clears memory malloc freed
    before: tsfile._mem.fresh), so a mask's pages are only touched where a null is written (most
    columns have none, and their masks are dropped unread)."""
    with unpooled():
        return {n: fresh.zeros(rows, np.bool_) for n in names}


class _Decode:
    """The state of one read_into_one: the result arrays, the reads dropped by ``on_error``
    and the job functions the pool runs."""

    def __init__(self, reads, fields, tags, on_error, filtered=False, ahead=None):
        self.reads = reads
        self.on_error = on_error
        self.failed = set()  # indexes of reads dropped by on_error (set.add: atomic)
        self.cap = cap = sum(r.capacity for r in reads)
        # time chunks decoded while the read was planned (tsfile._read.ahead), if any
        ts = None if ahead is None else ahead.adopt_times(cap)
        self.ahead = None if ts is None else ahead
        self.ts = np.empty(cap, np.int64) if ts is None else ts
        # field columns decoded ahead too: their reserved arrays (as long as ts) are the
        # result's (a value-filtered read decodes its own)
        adopted = (
            None
            if self.ahead is None or filtered
            else self.ahead.adopt_fields({n: engine.numpy_dtype(t) for n, t in fields.items()})
        )
        ahead_vals, ahead_nulls = ({}, {}) if adopted is None else adopted
        self.values_ahead = adopted is not None
        # np.empty: nothing is touched here; each job first-touches its own slice
        self.values = {
            n: ahead_vals[n] if n in ahead_vals else np.empty(cap, engine.numpy_dtype(t))
            for n, t in fields.items()
        }
        self.nulls = null_masks([n for n in [*fields, *tags] if n not in ahead_nulls], cap)
        self.nulls.update((n, ahead_nulls[n]) for n in fields if n in ahead_nulls)
        # slots neither cleared nor read: the tag jobs write each row kept once, without the
        # GIL, and _finish settles the columns (tagfill). A value-filtered read makes its tag
        # columns over the selected rows only, after the selection (tsfile._read.late): none
        # here.
        self.filtered = filtered
        if not filtered:
            self.values.update((n, tagfill.empty_column(cap, cleared=False)) for n in tags)
        self.fields = list(fields)
        self.tags = tags

    def _guard(self, i, fn, *args):
        """fn(*args) for read ``i``; a TsFileError drops the read when on_error says so."""
        if i in self.failed:
            return None
        try:
            return fn(*args)
        except TsFileError as exc:
            if self.on_error is None or not self.on_error(self.reads[i], exc):
                raise
            self.failed.add(i)
            return None

    def time_job(self, job):
        """Decode the time chunks of a batch of chunk groups of one read; [(rows, page plan)]
        per group (None: the read was dropped). No tag slot is written before every time
        chunk decoded (the decode checks each page's count against its timestamps): a time
        chunk whose statistics lie (a capacity read from the file, up to _ROWS_PER_STORED_BYTE
        rows a stored byte, allocated untouched) raises before 8 bytes a claimed row of every
        tag column are written; the tag jobs write the rows kept, once the gaps are closed."""
        i, items = job
        r = self.reads[i]
        got = None if self.ahead is None else self.ahead.result_of(i, items[0][3])
        if got is not None:  # decoded while the read was planned
            return got

        def run():
            # one operation (a scratch, a liveness check) and one engine call per batch; each
            # group has the room of its capacity (no group reaches the next one's rows)
            groups = [g for _i, _task, g, _at, _cap in items]
            starts = [at for _i, _task, _g, at, _cap in items]
            with r.reader._op() as s:
                return r.reader._decode_times_many(
                    groups, self.ts, starts, r.query.t1, r.query.t2, r.pcode, s
                )

        return self._guard(i, run)

    def field_job(self, job):
        """Decode a batch of (chunk group, field column) pairs of one read, or of its chunk
        groups' every field column (items of ALL_FIELDS: a list of null rows each), or fill a
        batch of its tag columns' rows; the null rows of each."""
        i, items = job
        r = self.reads[i]
        if items[0][4] is None:  # tag items: (.., tag name, None, rows, start)
            return self._fill_tags(r, items)
        if items[0][3] == ALL_FIELDS:
            return self._guard(i, self._groups, r, items)

        def run():
            out = []
            with r.reader._op() as s:
                for _i, task, g, j, plan, n, pos in items:
                    name = r.query.fields[j]
                    vals = self.values[name][pos : pos + n]
                    nulls = self.nulls[name][pos : pos + n]
                    out.append(
                        r.reader._decode_field(task, g, j, plan, n, vals, nulls, 0, r.pcode, s)
                    )
            return out

        return self._guard(i, run)

    def _groups(self, r, items):
        """Every field column of each item's chunk group, one engine call for the batch
        (TsFileReader._decode_fields_many); per item, the null rows of each field."""
        values = [self.values[name] for name in r.query.fields]
        nulls = [self.nulls[name] for name in r.query.fields]
        groups = [(task, g, plan, n, pos) for _i, task, g, _j, plan, n, pos in items]
        with r.reader._op() as s:
            return r.reader._decode_fields_many(groups, values, nulls, r.pcode, s)

    def _fill_tags(self, r, items):
        """A tag job: each of its tag columns over its chunk groups' rows in one call
        (tagfill.fill_runs: the pointers of every range written in one nogil region, one GIL
        hand-over per column, not per group); per item, its null rows."""
        runs = {}  # tag name -> (starts, stops, values)
        out = []
        for _i, task, _g, name, _p, n, pos in items:
            v = _tag_value(r, task, name)
            starts, stops, values = runs.setdefault(name, ([], [], []))
            starts.append(pos)
            stops.append(pos + n)
            values.append(v)
            out.append(self._tag_nulls(name, v, n, pos))
        for name, (starts, stops, values) in runs.items():
            tagfill.fill_runs(self.values[name], starts, stops, values)
        return out

    def fill_tag(self, r, task, name, rows, pos):
        """Tag column ``name`` over one chunk group's rows (the pointers written without the
        GIL, tagfill.fill); returns its null rows."""
        v = _tag_value(r, task, name)
        tagfill.fill(self.values[name], pos, pos + rows, v)
        return self._tag_nulls(name, v, rows, pos)

    def _tag_nulls(self, name, v, rows, pos):
        """A tag the file lacks (``v`` None) is null in its rows; returns the null rows."""
        if v is None:
            self.nulls[name][pos : pos + rows] = True
            return rows
        return 0


def _tag_value(r, task, name):
    """The value of tag column ``name`` in a read's device ``task`` (None: the file has no such
    tag, schema="union")."""
    at = r.query.tags.get(name)
    return None if at is None else task.tags[at]


# Values (rows x columns) a decode job covers at least: chunk groups and columns of one file are
# batched up to this, so the per-job Python work (held under the GIL) stays small against the
# decoding (without it), while a read still splits into enough jobs to share between threads.
JOB_VALUES = 1 << 18

# The field index of a field-phase item that stands for every field column of its chunk group
# (decoded with the job's other groups in one engine call: TsFileReader._decode_fields_many).
ALL_FIELDS = -1


def _batches(items, rows_at, width=None):
    """Runs of consecutive ``items`` of one read (item[0]) holding at least JOB_VALUES values
    (``rows_at``: the index of an item's rows; ``width(item)``: the columns it decodes, 1 if
    not given), each run as (read index, [items])."""
    out, run, acc = [], [], 0
    for item in items:
        if run and (item[0] != run[0][0] or acc >= JOB_VALUES):
            out.append((run[0][0], run))
            run, acc = [], 0
        run.append(item)
        acc += item[rows_at] * (1 if width is None else width(item))
    if run:
        out.append((run[0][0], run))
    return out


def _flat(results, batches):
    """Per item, its result, from the per-batch lists of results (None: a dropped read)."""
    out = []
    for res, (_i, items) in zip(results, batches, strict=True):
        out += [None] * len(items) if res is None else res
    return out


def _time_jobs(reads):
    """[(read index, task, group, start, capacity)]: every chunk group at the sum of the
    capacities before it."""
    jobs, at = [], 0
    for i, r in enumerate(reads):
        for task, g in r.groups:
            jobs.append((i, task, g, at, g.rows))
            at += g.rows
    return jobs


def _close_gaps(placed, arrays):
    """Move the rows of each group, written at (start, rows) of ``placed`` (in order, starts
    increasing), down to follow the previous group's in every one of ``arrays``; returns the
    final start of each group and the total rows. Only a time range that cuts pages (or a
    dropped file) leaves gaps, and only the timestamps need moving (the field columns are
    decoded after it)."""
    pos, starts = 0, []
    for start, rows in placed:
        if start != pos and rows:
            for a in arrays:
                a[pos : pos + rows] = a[start : start + rows]  # numpy copes with the overlap
        starts.append(pos)
        pos += rows
    return starts, pos


def read_into_one(reads, pool, on_error=None, ahead=None, close_readers=False):
    """Decode the planned ``reads`` (ColumnRead, one per file) into one set of arrays on
    ``pool`` (a JobPool): a Columns, rows in the order of ``reads``. ``on_error(read,
    exc)``: called (on a worker thread) with a read's TsFileError; True drops that read's rows,
    else the error is raised (as is every error when on_error is None). ``ahead``: a finished
    tsfile._read.ahead.TimesAhead whose time jobs (of the first reads) are used, not redone.
    ``close_readers``: each read's reader is closed as soon as its last field job ends (by the
    thread that ran it, beside the others' decoding: unmapping 100 files took ~6 ms on the
    calling thread after the decode); the caller still closes every reader afterwards (a read
    with no field job, a read that failed; close is idempotent).

    The result arrays come from the result pool (tsfile._mem.pool): memory of results the
    program dropped is reused without the kernel clearing it again."""
    if ahead is not None and not ahead.matches(reads):
        ahead = None
    with pooled():
        return _read_into_one(reads, pool, on_error, ahead, close_readers)


def _read_into_one(reads, pool, on_error, ahead=None, close_readers=False):
    fields = _field_types(reads)
    filtered = any(r.query.bound is not None for r in reads)
    d = _Decode(reads, fields, _tag_names(reads), on_error, filtered, ahead)
    jobs = _time_jobs(reads)
    batches = _batches(jobs, rows_at=4)
    timed = _flat(pool.map(d.time_job, batches), batches)
    rows = [
        0 if t is None or job[0] in d.failed else t[0] for job, t in zip(jobs, timed, strict=True)
    ]
    starts, total = _close_gaps([(job[3], n) for job, n in zip(jobs, rows, strict=True)], [d.ts])
    if filtered:
        # filter columns first, then the others only where a row is selected
        return late.read_filtered(d, jobs, timed, rows, starts, total, pool)
    done = _fields_ahead(d, jobs, rows, starts)
    field_jobs, batches = _field_jobs(d, jobs, timed, rows, starts, done)
    run = _closing_after(d.field_job, reads, batches) if close_readers else d.field_job
    null_counts = _flat(pool.map(run, batches), batches)
    spans = _read_spans(reads, jobs, rows, starts)
    counts = dict.fromkeys(d.nulls, 0)
    for k, nn in done.items():
        for name, n in zip(reads[jobs[k][0]].query.fields, nn, strict=True):
            counts[name] += n
    for job, nn in zip(field_jobs, null_counts, strict=True):
        if job[4] is None:  # a tag item
            counts[job[3]] += nn or 0
        elif nn is not None:  # a chunk group's every field (None: its read was dropped)
            for name, n in zip(reads[job[0]].query.fields, nn, strict=True):
                counts[name] += n
    _fill_missing_fields(d, reads, spans, counts)
    return _finish(d, reads, spans, total, counts)


def _fields_ahead(d, jobs, rows, starts):
    """{index in ``jobs``: null rows per field column} of the chunk groups whose field columns
    were decoded while the read was planned (tsfile._read.ahead) at their final rows: a group
    whose time chunk, and every one before it, filled its room. The others are decoded by the
    field phase; if any of them was decoded ahead at rows that moved, the null masks are
    cleared from there on first (a decode only sets the null rows of a mask), and so are they
    in the reserved rows of a batch whose values failed in the helper (TimesAhead.dirty_rows:
    with on_error="skip" the next files' rows may land there)."""
    done = {}
    if not d.values_ahead:
        return done
    for lo, hi in d.ahead.dirty_rows():  # null bits of a batch that failed in the helper
        _clear_ahead_nulls(d, lo, hi)
    moved = None
    for k, ((i, _task, _g, at, cap), n, pos) in enumerate(zip(jobs, rows, starts, strict=True)):
        counts = None if cap <= 0 else d.ahead.values_of(at)  # (no-row groups: never ahead)
        if counts is None:
            continue
        if pos == at and n == cap and i not in d.failed:
            done[k] = counts
        elif moved is None:
            moved = at  # every later group moved too: the rows kept all lie below
    if moved is not None:
        _clear_ahead_nulls(d, moved, len(d.ts))  # (nothing was decoded ahead past the ts)
    return done


def _clear_ahead_nulls(d, lo, hi):
    """Rows [lo, hi) of the null masks of the columns decoded ahead cleared (_fields_ahead)."""
    for name in d.fields:
        if name in d.ahead.nulls:
            d.nulls[name][lo:hi] = False


def _field_jobs(d, jobs, timed, rows, starts, done=()):
    """The items of the field phase: (read index, task, group, ALL_FIELDS, page plan, rows,
    final start) of every chunk group with field columns (but those ``done``: indexes in
    ``jobs`` of the groups decoded ahead), then (..., tag name, None, rows, start) of its tag
    columns; and their batches, the tag batches spread evenly among the decode batches (so
    that a thread filling tags, under the GIL, runs beside threads decoding)."""
    decode, tags = [], []
    for k, ((i, task, g, _at, _cap), t, n, pos) in enumerate(
        zip(jobs, timed, rows, starts, strict=True)
    ):
        if i in d.failed:
            continue
        if d.reads[i].query.fields and k not in done:
            decode.append((i, task, g, ALL_FIELDS, t[1], n, pos))
        if n:
            tags += [(i, task, g, name, None, n, pos) for name in d.tags]
    decode_batches = _batches(decode, rows_at=5, width=lambda it: len(d.reads[it[0]].query.fields))
    tag_batches = _batches(tags, rows_at=5)
    batches = []
    every = max(1, len(decode_batches) // max(1, len(tag_batches)))
    for k, b in enumerate(decode_batches):
        batches.append(b)
        if k % every == every - 1 and tag_batches:
            batches.append(tag_batches.pop(0))
    batches += tag_batches
    items = [item for _i, run in batches for item in run]
    return items, batches


def _closing_after(job, reads, batches):
    """``job`` on a batch, then, if that was the last batch of its read, the read's reader
    closed (on the thread that ran it; see read_into_one's close_readers)."""
    left = {}
    for i, _items in batches:
        left[i] = left.get(i, 0) + 1
    lock = threading.Lock()

    def run(batch):
        try:
            return job(batch)
        finally:
            i = batch[0]
            with lock:
                left[i] -= 1
                last = left[i] == 0
            if last:
                reads[i].reader.close()

    return run


def _read_spans(reads, jobs, rows, starts):
    """Per read, its rows [start, stop) of the result after the gaps closed."""
    first = {}
    total = {}
    for job, n, pos in zip(jobs, rows, starts, strict=True):
        first.setdefault(job[0], pos)
        total[job[0]] = total.get(job[0], 0) + n
    spans, pos = [], 0
    for i in range(len(reads)):
        a = first.get(i, pos)
        spans.append((a, a + total.get(i, 0)))
        pos = a + total.get(i, 0)
    return spans


def _fill_missing_fields(d, reads, spans, counts):
    """A field column a read lacks (schema="union") is null in that read's rows."""
    for r, (a, b) in zip(reads, spans, strict=True):
        have = set(r.query.fields)
        for name in d.fields:
            vals = d.values[name]
            if name in have or a == b:
                continue
            vals[a:b] = None if vals.dtype == object else 0
            d.nulls[name][a:b] = True
            counts[name] += b - a


def _finish(d, reads, spans, total, counts):
    """The Columns of a read without a value filter: failed reads' rows dropped (one
    compaction)."""
    keep = _kept_rows(d, spans, total)
    ts = d.ts[:total]
    # the tag columns: their rows [0, total) written once each by the tag jobs, checked and
    # handed out as columns of those rows only (the slots after them were never written)
    values = {
        n: tagfill.settle(v, total) if n in d.tags else v[:total] for n, v in d.values.items()
    }
    nulls = {n: m[:total] for n, m in d.nulls.items() if counts[n]}
    if keep is not None:
        ts, values, nulls, spans = compact(ts, values, nulls, spans, keep)
    spans = [None if i in d.failed else s for i, s in enumerate(spans)]
    return Columns(ts, values, nulls, spans)


def compact(ts, values, nulls, spans, keep):
    """(ts, values, nulls, spans) with only the rows ``keep`` (a bool array) selects: a null
    mask left with no null is dropped, and each span [a, b) becomes its kept rows' span."""
    # by index: numpy's take copies a scattered selection several times faster than a bool
    # mask does (no branch per row)
    rows = np.flatnonzero(keep)
    values = {n: v.take(rows) for n, v in values.items()}
    nulls = {n: m.take(rows) for n, m in nulls.items()}
    nulls = {n: m for n, m in nulls.items() if m.any()}
    return ts.take(rows), values, nulls, _kept_spans(spans, keep)


def _kept_rows(d, spans, total):
    """The rows to keep (bool array over the ``total`` decoded rows), or None for all: the rows
    of failed reads dropped (a value filter's selection: tsfile._read.late)."""
    if not d.failed:
        return None
    keep = np.ones(total, np.bool_)
    for i in d.failed:
        a, b = spans[i]
        keep[a:b] = False
    return None if keep.all() else keep


def _kept_spans(spans, keep):
    out, pos = [], 0
    for a, b in spans:
        n = int(np.count_nonzero(keep[a:b]))
        out.append((pos, pos + n))
        pos += n
    return out


__all__ = ["ColumnRead", "Columns", "JobPool", "compact", "read_into_one"]
