"""Time chunks decoded while a many-file read is still planning (tsfile._dataset.scan).

A whole-table read of many files plans every file on the calling thread (planning is Python
holding the GIL: two threads planning at once only hand the GIL back and forth), then decodes
them all into one set of arrays on the pool (tsfile._read.columns). On two threads the planning
left the second core idle for a sixth of the read. Here the pool's helper decodes the time
chunks of the files planned so far while the calling thread plans the next ones: each planned
file (a ColumnRead) is offered as it is planned, and its time jobs, the same batches the time
phase would run, are prepared on the calling thread (engine.prepare_time_chunks: the checks and
page plans, which need the GIL) and queued; every _WAKE_VALUES values the helper is woken and runs
all those queued in one engine call (engine.run_time_batches), which holds the GIL only to start
and to return. A first version ran each job as the time phase does (its Python and one engine
call per file on the helper): every hand-over of the GIL between the helper and the planning
thread waited, and the planning took as much longer as the time phase saved.

The time jobs write into the result's time array at fixed starts (the sum of the capacities of
the files before), so that array must exist before the total capacity is known. It is reserved
from an estimate: the capacity per stored byte of the files planned so far times the bytes of
every file of the batch, or their capacity per file times the files, whichever is smaller (one
dense small file first must not reserve rows for a hundred like it), plus a margin. A file whose
rows would not fit is not decoded ahead (nor is any after it). The time phase then uses what was
decoded ahead (result_of) and decodes the rest; when the estimate proves too small or far too
large, the read takes an exact array and the rows decoded ahead are copied into it
(adopt_times).

The helper decodes the field columns of those chunk groups too, in the same engine call right
after their time chunks (engine.prepare_value_groups / run_ahead_batches): planning is a
sixth to a fifth of a one-thread read, and with only the time chunks to decode the helper sat
idle for half of it. A field column's rows land at the group's final rows only when every
time chunk before it filled its room (a time range that cuts pages leaves gaps the time phase
closes up): the values are written at the reserved starts and the read keeps them only for the
groups whose final start is that reserved start (values_of, checked by tsfile._read.columns),
and decodes the others again, after clearing what the null masks got from the rows moved.
Only numeric field columns of whole chunk groups are decoded ahead (a group with a column
absent, a TEXT/STRING/BLOB column, a block of a split group, a file-like source or a value
filter leaves its groups to the field phase). The field arrays are reserved with the time
array: each column's values and null mask at the room of its own size class (as long as the
time array or longer), decoded into over the time array's rows. A batch whose field columns
fail in the helper may have set null bits before the failure: its rows are cleared before the
field phase (dirty_rows). The reserved arrays a read does not take are released at once
(adopt_times); it takes them when they hold it and are not far too large, or take the very
blocks its exact arrays would.

Nothing decoded ahead raises: a job that fails (a corrupt chunk, a reader closed under it) is
left undone and the time phase decodes it again, where ``on_error`` applies and the error is
raised in file order, as without the pipeline. Tag columns do not exist yet: the time phase
clears their slots for the rows decoded ahead too.
"""

from __future__ import annotations

import threading
from concurrent.futures import wait

import numpy as np

from tsfile._mem import fresh
from tsfile._mem.pool import block_room, pooled, unpooled

# Values (time and field rows) queued before the helper is woken to run them all in one engine
# call: each wake-up and each return from the engine takes the GIL from the planning thread (a
# wait of its own). A helper that finds jobs queued when its call returns runs them at once.
_WAKE_VALUES = 1 << 21
# Values a helper's or the caller's engine call takes at most (one job at least): small enough
# that neither thread is left idle while the other decodes a large share at the end, large
# enough that the GIL hand-over of each call is small beside its decoding.
_TAKE_VALUES = 1 << 23
# Rows reserved above the estimate: a fiftieth more, and at least this many; then up to the
# room of the pool's size class of that many (tsfile._mem.pool.block_room): a larger margin made
# the reserved arrays a class larger than the exact arrays of the reads before, so every read
# decoded ahead missed the blocks they left and took fresh memory (the kernel clearing it: a
# third more CPU). The class's room adds up to an eighth more rows.
_RESERVE_MARGIN = 0.02
_RESERVE_MIN_EXTRA = 1 << 12
# The reserved array is kept as the result's only when the read's capacity is at least this
# share of it (else an exact array is taken and the rows decoded ahead are copied).
_KEEP_SHARE = 0.8


def _room(rows, itemsize):
    """``rows`` or more: as many items of ``itemsize`` bytes as the pool's block for ``rows``
    of them holds (see _RESERVE_MARGIN)."""
    return max(rows, block_room(rows * itemsize) // itemsize)


class TimesAhead:
    """The time jobs of the files planned so far, run on one helper thread of ``pool`` (a
    JobPool of two threads or more) while the caller plans the next. ``total_bytes``: the
    stored bytes of every file the batch may read, ``total_files`` their number (the estimate's
    bases).

    offer(read) after each file is planned (in the read's order); finish() once planning
    ends (or stop() if it failed); then the read takes adopt_times / result_of."""

    def __init__(self, pool, total_bytes, total_files):
        self._pool = pool
        # None: no estimate by bytes (the reads are parts of one file: TsFileReader's portions)
        self._total_bytes = None if total_bytes is None else max(1, int(total_bytes))
        self._total_files = max(1, int(total_files))
        self._files = 0  # the files (or devices) of the reads offered so far
        self.reads = []  # the ColumnReads offered, in order
        self.ts = None  # the reserved time array (None until a file with rows is offered)
        self._cap = 0  # the capacity of the reads offered so far
        self._bytes = 0  # their stored bytes
        self._full = False  # a read did not fit: no later read is decoded ahead
        # [((read index, start of its batch), prepared TimeBatch, its ValueBatch or None,
        # reader, [start of each of its chunk groups], its values, the end of its rows)]
        self._jobs = []
        self._queued = 0  # values of the jobs queued since the helper was last woken
        self.values = {}  # field name -> reserved array (its class's room: >= the time array)
        self.nulls = {}  # field name -> its null mask (all False but where a null was decoded)
        self._kept = False  # adopt_times kept the reserved arrays (so the values hold)
        # _results, _values_done and _dirty are written by whichever thread ran the jobs (the
        # helper, and the caller in finish() beside it): under _lock; read once both are done
        self._values_done = {}  # start of a chunk group -> its field columns' null rows
        # [(start, end)] reserved rows of batches whose field columns failed in the helper's
        # engine call, after it may have written null bits there (see dirty_rows)
        self._dirty = []
        self._lock = threading.Lock()
        self._wake = threading.Event()  # set: jobs to run, or the end
        self._idle = threading.Event()  # clear while the helper runs jobs it took
        self._idle.set()
        self._results = {}  # (read index, start of its batch) -> [(rows, plan)] per group
        self._stopping = False
        self._helper = None  # the helper's future (JobPool.start)

    # -- the caller's side (the planning thread) ------------------------------------------------

    def expect_files(self, n):
        """The number of files (or devices) the reads will cover in all, when it is known only
        as the planning starts (a one-file read: its table's devices)."""
        self._total_files = max(1, int(n))

    def offer(self, read, files=1):
        """Queue the time jobs of ``read``, the next planned file (see the module notes), or
        the next ``files`` devices of one file."""
        i = len(self.reads)
        self.reads.append(read)
        self._files += files
        start = self._cap
        self._cap += read.capacity
        self._bytes += max(0, int(getattr(read.reader, "_size", 0) or 0))
        if self._full or not read.capacity:
            return
        if self.ts is None and not self._reserve():
            self._full = True
            return
        if self._cap > len(self.ts):
            self._full = True
            return
        fields = self._field_arrays(read)
        items, at = [], start
        for task, g in read.groups:
            items.append((i, task, g, at, g.rows))
            at += g.rows
        # the preparation reads the file (chunk and page headers): inside an operation of its
        # reader, which another thread may close meanwhile (TsFileReader.read_columns on
        # threads=2 offers its last portion after its planning's operation); a closed reader's
        # jobs are left to the time phase, which raises ClosedError
        life = read.reader._life
        try:
            life.enter()
        except Exception:
            return
        try:
            self._queue(read, i, items, fields)
        finally:
            if life.exit():
                read.reader._release()
        if self._helper is None:
            self._helper = self._pool.start(self._run)

    def _queue(self, read, i, items, fields):
        """offer's time jobs (and their field columns) of ``items``, prepared and queued."""
        from tsfile._read.columns import _batches

        for _i, run in _batches(items, rows_at=4):
            groups = [g for _i, _task, g, _at, _cap in run]
            starts = [at for _i, _task, _g, at, _cap in run]
            try:  # the checks and page plans now, under the GIL the planning holds anyway
                prepared = read.reader._time_batch(
                    groups, self.ts, starts, read.query.t1, read.query.t2, read.pcode
                )
            except Exception:
                return  # the time phase prepares it again and raises, per on_error
            values = self._value_batch(read, run, prepared, fields)
            work = sum(g.rows for g in groups) * (1 + (len(fields) if values is not None else 0))
            with self._lock:
                self._jobs.append(
                    (
                        (i, run[0][3]),
                        prepared,
                        values,
                        read.reader,
                        starts,
                        work,
                        run[-1][3] + run[-1][4],
                    )
                )
                self._queued += work
                ready = self._queued >= _WAKE_VALUES
                if ready:
                    self._queued = 0
            if ready:
                self._wake.set()

    def _field_arrays(self, read):
        """The reserved arrays of ``read``'s field columns ([(values, nulls)] in its order), or
        None when they are not decoded ahead (see the module notes)."""
        from tsfile._read import engine

        q = read.query
        if q.bound is not None or not q.fields or getattr(read.reader, "_source", None):
            return None
        out = []
        for name, t in zip(q.fields, read.field_types, strict=True):
            dtype = np.dtype(engine.numpy_dtype(int(t)))
            if dtype.kind == "O":  # TEXT/STRING/BLOB: Python objects, made with the GIL
                return None
            have = self.values.get(name)
            if have is None:
                try:
                    with pooled():  # the result pool, as the arrays of read_into_one
                        rows = _room(len(self.ts), dtype.itemsize)
                        have = self.values[name] = np.empty(rows, dtype)
                    with unpooled():  # as columns.null_masks; as long as the values (the
                        # engine takes a column's values and mask of one length: the read's
                        # field phase decodes into these arrays too)
                        self.nulls[name] = fresh.zeros(rows, np.bool_)
                except (MemoryError, ValueError):
                    self.values.pop(name, None)
                    return None
            elif have.dtype != dtype:  # another file's column of that name has another type
                return None
            # the reserved rows [0, len(ts)) only: a 1- or 4-byte column's room (its own class)
            # is longer than the time array (with a mask of the time array's length the engine
            # refused every such batch: no read with a BOOLEAN, INT32, FLOAT or DATE column of
            # more than ~270,000 rows decoded its fields ahead)
            n = len(self.ts)
            out.append((have[:n], self.nulls[name][:n]))
        return out

    def _value_batch(self, read, run, prepared, fields):
        """The ValueBatch of a time job's chunk groups (``run``: its items), or None when a
        group's field columns are not all numeric chunks of a whole group (or the checks
        fail: the field phase checks again and raises, per on_error)."""
        from tsfile._read import engine

        if fields is None:
            return None
        vals = [v for v, _m in fields]
        nulls = [m for _v, m in fields]
        groups = [
            # a block of a split group, a column absent, or a group of no rows (its reserved
            # start, the key of values_of, would be its successor's): left to the field phase
            None
            if g.page_hi >= 0 or cap <= 0 or any(off is None for off in g.values)
            else (g.values, task.types, vals, nulls, at, task.names or None)
            for _i, task, g, at, cap in run
        ]
        if not any(groups):
            return None
        try:
            return engine.prepare_value_groups(read.reader._fv, prepared, groups)
        except Exception:
            return None

    def _reserve(self):
        """Reserve the time array (see the module notes); False if it cannot be had."""
        by_files = self._cap / self._files * max(self._total_files, self._files)
        if self._total_bytes is not None:
            by_bytes = self._cap / max(1, self._bytes) * max(self._total_bytes, self._bytes)
            by_files = min(by_bytes, by_files)
        rows = int(by_files * (1 + _RESERVE_MARGIN)) + _RESERVE_MIN_EXTRA
        rows = _room(max(rows, self._cap), 8)
        try:
            with pooled():  # the result pool, as the arrays of read_into_one
                self.ts = np.empty(rows, np.int64)
        except (MemoryError, ValueError):  # the read itself will say whether it fits
            return False
        return True

    def finish(self):
        """Planning is over: the jobs still queued are decoded (by the helper, woken for them,
        and by the caller beside it), then the helper's last run is waited for."""
        self._wake.set()
        while True:
            jobs = self._take()
            if not jobs:
                break
            self._decode(jobs)
        self.stop()

    def stop(self):
        """No job is started from now on; returns once the helper's running jobs have ended (the
        readers may be closed then)."""
        with self._lock:  # the helper takes jobs under it: it sees this, or is busy now
            self._stopping = True
        self._wake.set()
        helper, interrupted = self._helper, None
        # a KeyboardInterrupt must not end the waits: the caller closes the readers next. The
        # first wait holds even when an interrupt left the helper's future unrecorded (offer)
        for done in (self._idle.wait, lambda: helper is None or wait([helper])):
            while True:
                try:
                    done()
                    break
                except BaseException as exc:
                    interrupted = interrupted or exc
        self._helper = None
        if interrupted is not None:
            raise interrupted
        if helper is not None:
            helper.result()  # the helper's own error, if any

    # -- the helper's side ----------------------------------------------------------------------

    def _run(self):
        more = False  # jobs were queued while the last ones ran: run them without a wake-up
        while True:
            if not more:
                self._wake.wait()
            self._wake.clear()
            with self._lock:
                if self._stopping:
                    return
                jobs = self._take_locked()
                self._idle.clear()  # under the lock: stop() then waits for these jobs
            try:
                if jobs:
                    self._decode(jobs)
            finally:
                self._idle.set()
            with self._lock:
                more = bool(self._jobs)

    def _take(self):
        """The next jobs queued (the helper's or the caller's to run)."""
        with self._lock:
            return self._take_locked()

    def _take_locked(self):
        """The first jobs queued, up to _TAKE_VALUES values (one job at least): once the
        planning ends, the helper and the caller share what is left in portions of that size
        (one taking all of it left the other idle)."""
        n, work = 0, 0
        while n < len(self._jobs) and (n == 0 or work + self._jobs[n][5] <= _TAKE_VALUES):
            work += self._jobs[n][5]
            n += 1
        jobs, self._jobs = self._jobs[:n], self._jobs[n:]
        self._queued = 0
        return jobs

    def _decode(self, jobs):
        """Run ``jobs`` in one engine call (one GIL hand-over for all: the planning thread
        holds the GIL but for short waits, and every hand-over waits for one of them). A job that
        fails ends the call there: it and the jobs after it are decoded again by the time phase,
        where on_error applies. The call runs inside an operation of every reader it reads (see
        tsfile.reader._Lifetime): a reader closed meanwhile (by read_each when an interrupt hits
        its planning, by stop()'s caller) is unmapped only once the call has returned; jobs of a
        reader already closed are left to the time phase."""
        from tsfile._read import engine
        from tsfile.reader import _SCRATCH

        entered = []
        try:
            for reader in {id(job[3]): job[3] for job in jobs}.values():
                try:
                    reader._life.enter()
                except Exception:  # closed: its jobs are not run here
                    continue
                entered.append(reader)
            live = {id(r) for r in entered}
            jobs = [job for job in jobs if id(job[3]) in live]
            if not jobs:
                return
            try:
                scratch = _SCRATCH.take()
            except Exception:  # as a failing job: the time phase decodes them (nothing raises)
                return
            try:
                got = engine.run_ahead_batches(
                    [job[1] for job in jobs], [job[2] for job in jobs], scratch
                )
            except Exception:  # (after the checks) the values may be written: all dirty
                with self._lock:
                    self._dirty += [(job[4][0], job[6]) for job in jobs if job[2] is not None]
                return
            finally:
                _SCRATCH.give(scratch)
        finally:
            for reader in entered:
                if reader._life.exit():
                    reader._release()
        with self._lock:
            if len(got) < len(jobs) and jobs[len(got)][2] is not None:
                # the batch that failed (those after it did not run) may have written null bits
                # of its value chunks decoded before the failure
                job = jobs[len(got)]
                self._dirty.append((job[4][0], job[6]))
            for (key, _prepared, _values, _reader, starts, _work, _end), (times, nulls) in zip(
                jobs, got, strict=False
            ):
                self._results[key] = times
                if nulls is not None:
                    self._values_done.update(
                        (at, n) for at, n in zip(starts, nulls, strict=True) if n is not None
                    )

    # -- the read's side (after finish) ---------------------------------------------------------

    def matches(self, reads):
        """True if ``reads`` starts with the reads offered, in order (a read decodes ahead
        only the files of its own plan)."""
        return len(self.reads) <= len(reads) and all(
            a is b for a, b in zip(self.reads, reads, strict=False)
        )

    def result_of(self, read_index, start):
        """The time job's result decoded ahead for the batch of read ``read_index`` starting at
        row ``start``, or None (not decoded ahead: the time phase decodes it)."""
        return self._results.get((read_index, start))

    def adopt_times(self, cap):
        """The time array for a read of capacity ``cap``: the reserved one when it holds the
        read and is not far too large, else an exact one holding the rows decoded ahead.
        None when nothing was decoded ahead."""
        if self.ts is None or not self._results:
            self._drop_fields()
            return None
        if cap <= len(self.ts) and (cap >= _KEEP_SHARE * len(self.ts) or self._same_blocks(cap)):
            self._kept = True
            if not self._values_done:
                self._drop_fields()
            return self.ts
        with pooled():
            ts = np.empty(cap, np.int64)
        n = min(cap, len(self.ts))
        ts[:n] = self.ts[:n]  # rows decoded ahead lie below cap: their starts come from it
        self.ts = None
        self._drop_fields()  # their arrays are not the read's: decoded again
        return ts

    def _same_blocks(self, cap):
        """True if every reserved array (the time array and the field arrays) takes the pool
        block an exact array of ``cap`` rows would take: kept, it holds no more memory than the
        read's own arrays (below 16 MiB the pool's classes are powers of two: a reserved array
        a class's room long was often under _KEEP_SHARE full, and every value decoded ahead was
        thrown away and decoded again)."""
        arrays = [self.ts, *(self.values.values() if self._values_done else ())]
        return all(block_room(cap * a.itemsize) >= len(a) * a.itemsize for a in arrays)

    def _drop_fields(self):
        """The reserved field arrays are not the read's: released now (not held, as large as
        the result, until the read's end), and no value decoded ahead is used."""
        self._values_done.clear()
        self.values, self.nulls = {}, {}

    def adopt_fields(self, dtypes):
        """The reserved field arrays ({name: values}, {name: nulls}) of the columns decoded
        ahead, for the read whose time array adopt_times kept; None otherwise, or when one of
        them is not of the read's dtype for its column (``dtypes``: {name: numpy dtype}; the
        files' schemas agree on the types, else the read fails first: a defence only)."""
        if not self._kept or not self._values_done:
            return None
        if any(np.dtype(dtypes.get(n, v.dtype)) != v.dtype for n, v in self.values.items()):
            return None
        return self.values, self.nulls

    def dirty_rows(self):
        """[(start, end)]: reserved rows where a field column's decode failed in the helper
        (its chunk groups are not in values_of): their null bits may be set and must be
        cleared before anything is decoded there again (the rows of a file dropped by
        on_error are then the next files' rows)."""
        return list(self._dirty)

    def values_of(self, start):
        """The null rows of each field column of the chunk group placed at reserved row
        ``start``, decoded ahead at that row; None if not decoded ahead. The read keeps them
        only if the group's final start is ``start`` (see the module notes)."""
        return self._values_done.get(start)


__all__ = ["TimesAhead"]
