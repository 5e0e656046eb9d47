"""Late materialisation of a value-filtered whole-table read (tsfile._read.columns.read_into_one
with a value filter; issue 10, part 4).

Decode-then-mask decodes every column of every planned row and then keeps the rows the filter
selects. Here the work follows the selection instead:

1. the columns the filter reads are decoded first (whole chunk groups, as an unfiltered read);
2. the selection: the predicate evaluated on them (predicate.evaluate, the SIMD kernels on the
   ``simd`` path), one bool mask over the result rows;
3. every other field column is decoded one chunk group at a time into a buffer of the thread's
   (reused, so warm: the result rows not selected are never written, so their memory is never
   page-faulted; perf puts the kernel's page zeroing at a third of an unfiltered read of the
   E5-2 file), only over the rows of
   each page that hold a selected row, and the selected rows are copied from the buffer
   straight to their final place. The rows of a page to decode (``_page_runs``): the selected
   rows rounded out to blocks of BLOCK_ROWS page rows, runs of blocks at most MERGE_GAP empty
   blocks apart joined, at most ``_runs_a_page`` runs. Each run is a row restriction of the
   time chunk's page plan (engine.plan_pages: PLAN_FROM / PLAN_END / PLAN_OUT), which
   engine.read_value_chunk follows, skipping what the encoding lets it skip (TS_2DIFF blocks
   by their headers, fixed-width PLAIN by offset; the other encodings decode from the page
   start to the run's end). A page whose runs cover more than DENSE of its rows is decoded
   whole;
4. the timestamps and the filter columns are compacted once (columns.compact, by index), and
   the tag columns are filled for the selected rows only.

The rows of a buffer outside every run are stale (an earlier chunk group's) and never copied:
only selected rows are, and the runs cover every selected row of their page.
Results are the same as decode-then-mask, in the same order, on any number of threads (each job
writes the rows the plan fixes for it).
"""

from __future__ import annotations

import threading

import numpy as np

from tsfile._read import columns, engine, predicate, tagfill
from tsfile.types import Compressor, TSEncoding

_FROM = engine.PLAN_COLUMNS["from"]
_END = engine.PLAN_COLUMNS["end"]
_OUT = engine.PLAN_COLUMNS["out"]

# Rows of a selection block: a TS_2DIFF page is a sequence of blocks of 128 values (after the
# first), the unit a row range can skip without unpacking.
BLOCK_ROWS = 128
# Runs of selected blocks at most this many empty blocks apart are decoded as one run: a run
# costs a call into the decoder.
MERGE_GAP = 2
# Row ranges an uncompressed page is decoded in at most (the closest runs joined down to this);
# a compressed page is decoded in one. Measured (E5-2 shape, random column, 250 k-row pages,
# CPU ms of one read, runs 1 / 8): uncompressed 0.01 % 19.4 / 16.8, 1 % 29.5 / 25.9; SNAPPY
# 0.1 % 36.1 / 56.6 (each run decompresses the page again up to its end). With 10 k-row pages
# several runs gain nothing: the per-call work outweighs the blocks skipped.
MAX_RUNS = 8
# A page whose runs cover more than this fraction of its rows is decoded whole.
DENSE = 0.5

# For encodings without a row-range decoder (skips_by_position False) every run decodes the page
# from its start, so their selected blocks are read as one run (first to last). So for those
# whose row-range decoder repeats, per run, work over the page's start: the serial bit streams
# (include/serial_skip.h) walk every value before the range (a value's bits depend on the ones
# before it), and DICTIONARY reads the page's whole dictionary again. Measured (2 M rows,
# 250 k-row uncompressed pages, the column read late, CPU ms of one read, best of 5, runs
# 8 / 1): GORILLA DOUBLE 0.01 % 45.1 / 22.3, 1 % 23.5 / 21.9; CHIMP DOUBLE 0.01 % 59.9 / 25.3;
# DICTIONARY STRING 0.01 % 20 k entries 163.4 / 67.2, 100 entries 53.2 / 37.7, 1 % 2 k entries
# 46.8 / 44.9; against ALP DOUBLE 0.01 % 12.5 / 12.6 and PLAIN STRING 0.01 % 123.5 / 145.9.
_ONE_RUN = frozenset(
    int(e)
    for e in (
        TSEncoding.GORILLA,
        TSEncoding.CHIMP,
        TSEncoding.RLBE,
        TSEncoding.CAMEL,
        TSEncoding.SPRINTZ,
        TSEncoding.DICTIONARY,
    )
)


def skips_by_position(encoding, data_type):
    """Whether a value page of this encoding and type decodes a row range without decoding the
    values before it: the engine reads row ranges of it (engine.reads_row_ranges), and not by
    repeating work over the page's start (_ONE_RUN)."""
    if int(encoding) in _ONE_RUN:
        return False
    return engine.reads_row_ranges(int(encoding), int(data_type))


def read_filtered(d, jobs, timed, rows, starts, total, pool):
    """The Columns of a read_into_one whose reads carry a value filter, from the state ``d``
    (columns._Decode) after the time phase: ``jobs`` (columns._time_jobs), ``timed`` (per job:
    (rows, completed page plan) or None), ``rows`` / ``starts`` (per job, after the gaps
    closed), ``total`` rows; decoding on ``pool``."""
    reads = d.reads
    wanted = set().union(*(_filter_fields(r) for r in reads))
    first = [n for n in d.fields if n in wanted]  # decoded whole, into the result arrays
    later = [n for n in d.fields if n not in wanted]  # decoded where selected, gathered
    decode = _decode_items(d, jobs, timed, rows, starts)
    counts = dict.fromkeys(d.nulls, 0)
    _run(d, pool, d.field_job, [it for it in decode if _field_name(d, it) in wanted], counts)
    spans = columns._read_spans(reads, jobs, rows, starts)
    columns._fill_missing_fields(_Arrays(first, d.values, d.nulls), reads, spans, counts)
    keep = _selection(d, spans, total)
    failed = set(d.failed)
    gather = _Gather(d, later, int(np.count_nonzero(keep)))
    items = _gather_items(d, [it for it in decode if _field_name(d, it) not in wanted], keep)
    _run(d, pool, gather.job, items, counts)
    ts, values, nulls, kept_spans = columns.compact(
        d.ts[:total],
        {n: d.values[n][:total] for n in first},
        {n: d.nulls[n][:total] for n in first if counts[n]},
        spans,
        keep,
    )
    columns._fill_missing_fields(gather.arrays, reads, kept_spans, counts)
    values.update(gather.arrays.values)
    nulls.update({n: m for n, m in gather.arrays.nulls.items() if counts[n] and m.any()})
    got = columns.Columns(ts, values, nulls, kept_spans)
    if d.failed - failed:  # reads dropped while their other columns decoded: an error path
        got = _drop_reads(got, d.failed - failed, keep, spans)
    tag_values, tag_nulls = _selected_tags(d, jobs, rows, starts, keep, len(got.ts))
    got.values = {n: got.values[n] for n in d.fields} | tag_values
    got.nulls |= tag_nulls
    got.spans = [None if i in d.failed else s for i, s in enumerate(got.spans)]
    return got


def _drop_reads(got, dropped, keep, spans):
    """``got`` (Columns over the selected rows) without the rows of the reads ``dropped``, which
    ``keep`` (the selection over every decoded row; ``spans`` the reads' rows there) then no
    longer selects either."""
    left = np.ones(len(got.ts), np.bool_)
    for i in dropped:
        a, b = got.spans[i]
        left[a:b] = False
        keep[spans[i][0] : spans[i][1]] = False
    return columns.Columns(*columns.compact(got.ts, got.values, got.nulls, got.spans, left))


class _Arrays:
    """Columns ``fields`` of a set of arrays {name: values} / {name: null mask}: what
    columns._fill_missing_fields fills."""

    def __init__(self, fields, values, nulls):
        self.fields = fields
        self.values = values
        self.nulls = nulls


def _field_name(d, item):
    return d.reads[item[0]].query.fields[item[3]]


def _filter_fields(read):
    """The field columns read ``read``'s value filter reads (none without a filter)."""
    if read.query.bound is None:
        return frozenset()
    return frozenset(predicate.columns_of(read.query.bound)) - {predicate.TIME}


def _decode_items(d, jobs, timed, rows, starts):
    """columns._Decode.field_job's items (read index, task, group, field index, page plan, rows,
    final start) of every field column of every chunk group with rows, of the reads not
    dropped."""
    items = []
    for (i, task, g, _at, _cap), t, n, pos in zip(jobs, timed, rows, starts, strict=True):
        if i in d.failed or not n:
            continue
        items += [(i, task, g, j, t[1], n, pos) for j in range(len(d.reads[i].query.fields))]
    return items


def _run(d, pool, job, items, counts):
    """``job`` (columns._Decode.field_job or _Gather.job) over ``items`` on the pool, batched
    as an unfiltered read batches them; their null rows added to ``counts``."""
    batches = columns._batches(items, rows_at=5)
    done = columns._flat(pool.map(job, batches), batches)
    for item, nulls in zip(items, done, strict=True):
        counts[_field_name(d, item)] += nulls or 0


def _selection(d, spans, total):
    """The rows the value filter selects: a bool array over the ``total`` result rows (reads
    without a filter select every row, dropped reads none)."""
    keep = np.ones(total, np.bool_)
    for i, (r, (a, b)) in enumerate(zip(d.reads, spans, strict=True)):
        if i in d.failed:
            keep[a:b] = False
        elif r.query.bound is not None and b > a:
            keep[a:b] = _filter_mask(d, r, a, b)
    return keep


def _filter_mask(d, r, a, b):
    """The rows [a, b) (read ``r``'s) that its value filter selects."""
    inputs = {predicate.TIME: (d.ts[a:b], None)}
    for name in predicate.columns_of(r.query.bound):
        if name != predicate.TIME:
            inputs[name] = (d.values[name][a:b], d.nulls[name][a:b])
    return predicate.evaluate(r.query.bound, inputs, r.path)


class _Gather:
    """The columns decoded where selected: their arrays over the selected rows, and per thread
    a buffer of a chunk group's rows per dtype that each group is decoded into before its
    selected rows are copied out."""

    def __init__(self, d, fields, kept):
        self.d = d
        values = {n: np.empty(kept, d.values[n].dtype) for n in fields}
        self.arrays = _Arrays(fields, values, columns.null_masks(fields, kept))
        self._local = threading.local()

    def buffers(self, dtype, rows):
        """This thread's (values, null mask) buffers of at least ``rows`` rows."""
        have = self._local.__dict__.setdefault("by_dtype", {})
        got = have.get(dtype)
        if got is None or len(got[0]) < rows:
            got = have[dtype] = (np.empty(rows, dtype), np.empty(rows, np.bool_))
        return got

    def job(self, job):
        """Decode a batch of _gather_items of one read and copy out their selected rows;
        their null rows (None: the read was dropped)."""
        i, items = job
        r = self.d.reads[i]

        def run():
            out = []
            with r.reader._op() as s:
                for item in items:
                    out.append(self.gather(r, s, item))
            return out

        return self.d._guard(i, run)

    def gather(self, r, s, item):
        """One (chunk group, field column): decoded over ``plans`` into the buffers, its
        ``picked`` rows copied to the selected rows from ``at`` on. Returns its null rows."""
        _i, task, g, j, plans, n, _pos, picked, at = item
        name = r.query.fields[j]
        values, nulls = self.arrays.values[name], self.arrays.nulls[name]
        buf, buf_nulls = self.buffers(values.dtype, n)
        buf_nulls[:n] = False  # the decoder flags null rows only
        if buf.dtype == object:
            # an empty (all-null) page leaves its rows as they were: None in a fresh np.empty,
            # an earlier group's strings in this reused buffer. Only the picked rows are copied
            # out, so only they are reset (each slot's decref is GIL-held work per row)
            buf[picked] = None
        null_rows = 0
        for plan in plans:
            null_rows += r.reader._decode_field(task, g, j, plan, n, buf, buf_nulls, 0, r.pcode, s)
        _copy_rows(buf, picked, values[at : at + len(picked)])
        if null_rows:
            _copy_rows(buf_nulls, picked, nulls[at : at + len(picked)])
        return null_rows


def _copy_rows(src, rows, dst):
    """dst[:] = src[rows] (``rows`` increasing, in range) without a temporary: one block copy
    when the rows are consecutive (a dense run of selected rows)."""
    first, last = int(rows[0]), int(rows[-1])
    if last - first + 1 == len(rows):
        dst[:] = src[first : last + 1]
    else:
        # mode="clip": numpy buffers ``out`` for mode="raise" (an extra copy); the rows are
        # in range, so clipping never changes one
        np.take(src, rows, out=dst, mode="clip")


def _gather_items(d, items, keep):
    """_Gather.job's items: per (chunk group, field column) of ``items`` whose group holds a
    selected row, (read index, task, group, field index, plans, rows, start, picked, at): the
    plans that decode the selected rows (_group_plans; the page plan itself where they are
    dense), ``picked`` the selected rows (of the group's) and ``at`` where they go."""
    out = []
    picks = {}  # start -> (picked, at): per chunk group, shared by its columns
    plans = {}  # (start, runs a page) -> plans
    at = counted = 0  # the selected rows before row ``counted`` (items come by start)
    for item in items:
        i, task, g, j, plan, n, pos = item
        if pos not in picks:
            # counted from the selection, not from the items: a chunk group may have none
            # (its read holds only filter columns) and its selected rows still come first
            at += int(np.count_nonzero(keep[counted:pos]))
            picks[pos] = (np.flatnonzero(keep[pos : pos + n]), at)
            at += len(picks[pos][0])
            counted = pos + n
        picked, where = picks[pos]
        if not len(picked):
            continue
        key = (pos, _runs_a_page(d, item))
        if key not in plans:
            plans[key] = _group_plans(plan, keep[pos : pos + n], key[1])
        chosen = [plan] if plans[key] is None else plans[key]  # None: dense, the plan as it is
        out.append((i, task, g, j, chosen, n, pos, picked, where))
    return out


def _runs_a_page(d, item):
    """The row ranges a page of the value chunk of ``item`` is read in at most: MAX_RUNS for an
    uncompressed chunk whose encoding reads a row range by position, else 1 (each range is a
    pass over the page from its start: the decompression of a SNAPPY / LZ4 page up to the
    range, the decoding of the values before it for the other encodings)."""
    i, _task, g, j, plan = item[:5]
    return runs_a_page(d.reads[i].reader, g, j, plan)


def _group_plans(plan, sel, max_runs):
    """The plans that together decode every selected row of a chunk group: copies of its time
    chunk's completed page ``plan`` (engine.plan_pages), the k-th holding the k-th run of rows
    of each page that has one (_page_runs), the rows where the plan puts them. ``sel``: the
    selection over the group's rows. None when every page is dense (decode the plan as it
    is)."""
    runs = {}
    dense = True
    for p, row in enumerate(plan.tolist()):
        lo, hi, out = row[_FROM], row[_END], row[_OUT]
        if lo < 0:
            continue  # a page the time plan skips
        page_runs = _page_runs(sel[out : out + hi - lo], lo, hi, max_runs)
        dense = dense and page_runs == [(lo, hi)]
        if page_runs:
            runs[p] = (lo, out, page_runs)
    if dense:
        return None
    plans = []
    for k in range(max((len(r[2]) for r in runs.values()), default=0)):
        restricted = plan.copy()
        restricted[:, _FROM] = -1  # a page without a k-th run is skipped
        for p, (lo, out, page_runs) in runs.items():
            if k < len(page_runs):
                a, b = page_runs[k]
                restricted[p, _FROM] = a
                restricted[p, _END] = b
                restricted[p, _OUT] = out + a - lo
        plans.append(restricted)
    return plans


def _page_runs(sel, lo, hi, max_runs):
    """The row ranges [a, b) of a page (page rows; its planned rows lo..hi-1, ``sel`` their
    selection) to decode: the blocks of BLOCK_ROWS page rows holding a selected row, runs of
    them at most MERGE_GAP empty blocks apart joined, then the closest runs joined down to
    ``max_runs``. [(lo, hi)] when they cover more than DENSE of the page's rows."""
    picked = np.flatnonzero(sel)
    if not len(picked):
        return []
    if len(picked) > DENSE * (hi - lo):
        return [(lo, hi)]
    if max_runs == 1:  # the blocks from the first selected row's to the last's
        runs = [_block_span(lo, hi, int(picked[0]) + lo, int(picked[-1]) + lo)]
        return [(lo, hi)] if runs[0][1] - runs[0][0] > DENSE * (hi - lo) else runs
    blocks = (picked + lo) // BLOCK_ROWS  # increasing: the picked rows are
    blocks = blocks[np.flatnonzero(np.diff(blocks, prepend=-1))]
    gaps = np.diff(blocks) - 1  # empty blocks between consecutive selected ones
    breaks = np.flatnonzero(gaps > MERGE_GAP)
    if len(breaks) >= max_runs:  # keep the widest gaps
        widest = np.argsort(gaps[breaks], kind="stable")[len(breaks) - (max_runs - 1) :]
        breaks = np.sort(breaks[widest])
    firsts = blocks[np.concatenate(([0], breaks + 1))]
    lasts = blocks[np.concatenate((breaks, [len(blocks) - 1]))]
    runs = [
        _block_span(lo, hi, int(a) * BLOCK_ROWS, int(b) * BLOCK_ROWS)
        for a, b in zip(firsts, lasts, strict=True)
    ]
    if sum(b - a for a, b in runs) > DENSE * (hi - lo):
        return [(lo, hi)]
    return runs


def _block_span(lo, hi, first, last):
    """The page rows [a, b) of the blocks of rows ``first`` to ``last`` (page rows), within the
    planned rows lo..hi-1."""
    return max(lo, first - first % BLOCK_ROWS), min(hi, last - last % BLOCK_ROWS + BLOCK_ROWS)


def _selected_tags(d, jobs, rows, starts, keep, kept):
    """The tag columns over the ``kept`` selected rows, ({name: values}, {name: null mask} of
    those with a null): each chunk group's tag values written once per selected row of it
    (columns._Decode.fill_tag into arrays of the selected rows)."""
    d.nulls.update(columns.null_masks(d.tags, kept))
    for name in d.tags:
        # written once each (fill_tag), then settled: no clearing pass (tagfill)
        d.values[name] = tagfill.empty_column(kept, cleared=False)
    null_rows = dict.fromkeys(d.tags, 0)
    at = 0
    for (i, task, _g, _at, _cap), n, pos in zip(jobs, rows, starts, strict=True):
        picked = int(np.count_nonzero(keep[pos : pos + n])) if n else 0
        if not picked:
            continue
        for name in d.tags:
            null_rows[name] += d.fill_tag(d.reads[i], task, name, picked, at)
        at += picked
    values = {n: tagfill.settle(d.values[n], kept) for n in d.tags}
    return values, {n: d.nulls[n] for n in d.tags if null_rows[n]}


def runs_a_page(reader, g, j, plan):
    """_runs_a_page for field column ``j`` of chunk group ``g`` of ``reader`` (a TsFileReader),
    its time chunk's page ``plan``: the rule by itself, for callers without a _Decode state
    (the streaming query_table path)."""
    off = g.values[j]
    if off is None:
        return 1  # no chunk: the rows are null, nothing is decoded
    # the chunk _decode_field reads (the reader caches it by these arguments)
    chunk = reader._chunk(off, -1 if g.time_chunk.complete else len(plan))
    if chunk.compression != Compressor.UNCOMPRESSED:
        return 1
    return MAX_RUNS if skips_by_position(chunk.encoding, chunk.data_type) else 1


def selected_plans(plan, sel, max_runs, cache):
    """The plans that decode the selected rows ``sel`` (a bool array over a chunk group's rows)
    of a field column whose pages are read in at most ``max_runs`` runs: _group_plans, or
    [plan] where every page is dense. ``cache`` (a dict per chunk group) keeps them by
    ``max_runs``: the columns of a group share them."""
    if max_runs not in cache:
        cache[max_runs] = _group_plans(plan, sel, max_runs)
    got = cache[max_runs]
    return [plan] if got is None else got
