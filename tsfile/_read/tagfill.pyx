# cython: language_level=3, boundscheck=False, wraparound=False
"""Object columns filled mostly without the GIL (tag columns of whole-table reads,
tsfile._read.columns).

A tag column holds one str (or None) per row, the same object for every row of a device: 20 M
rows are 20 M references to a handful of objects. Filled the numpy way (``np.empty(n, object)``
writes None into every slot, then ``a[lo:hi] = v`` writes and increfs each slot), all of that work,
the page faults of a fresh 160 MB array included, runs with the GIL held and stalls the threads
decoding beside it.

Here instead:

* empty_column(n): the array is made with its slots NULL (numpy treats a NULL slot as None, and
  its memory is calloc'ed: no page is touched until a slot is written);
* fill(column, lo, hi, value): the references the slots will hold are counted up front, in one
  step with the GIL held, and the pointers are written with the GIL released (a memset-like loop
  that also takes the column's page faults). Writing a pointer needs no GIL; only the reference
  count does, and it is settled before the slots exist.

Every slot of such a column is filled at most once (fill refuses a slot that already holds a
reference), so the counts stay exact.

Clearing the slots is work too: a memset of a reused block (160 MB for 20 M rows) before the
fill, which then reads each slot to check that it is NULL: three passes over the column's
memory where one would do. So a read asks for ``empty_column(n, cleared=False)`` instead: the
slots' memory is taken as it is, and the read writes each row it keeps exactly once, a range at
a time, on any thread: fill_runs() writes the pointers without looking at the slots (the write
of a memset), clear() writes NULL where no value goes. Every range written is recorded (with the
GIL); settle() then checks that the ranges tile the rows the result keeps, exactly, and only
the column it returns can be read: until then the array the read holds is a handle of no rows
over the slots (a read that fails leaves it in its state, which a debugger or a traceback's
locals may show; a repr of the slots would dereference whatever the memory held). The block,
freed unsettled, gives back the references its recorded ranges counted, never what its slots
hold: a read that fails half way reads no slot, and its counts stay exact whatever it wrote.

Freeing such a column the numpy way costs as much again with the GIL held: a decref per slot (20
M for a 20 M-row read, ~30 ms, while any other thread waits). So the column's memory belongs to
a _SlotBlock, the array's base (the array does not own its data, and numpy then leaves its
slots alone when it is freed): when the last array or view of it goes, the block gives its
references back one batch per run of equal pointers (a device's rows: a handful of runs, not a
decref per row). It reads the slots as they are then, so a slot the user replaced (numpy
decrefs the old object and increfs the new one in the slot) is given back as what it holds.

Threads: several threads may fill DISJOINT rows of one column at once (the read's tag jobs do:
each job's rows are fixed by the plan). The refusal of a filled slot is a plain check, not an
atomic one: two threads filling the same row at once would both write it and one reference
would leak (never a freed object); in a column being written (cleared=False) settle() refuses
such rows, and the block then gives back exactly what was counted. Nothing but the read that
made a column may fill it, and its slots are read only once every fill has returned.
"""

cimport cython
cimport numpy as cnp
from cpython.ref cimport PyObject
from libc.stdlib cimport free, malloc
from libc.string cimport memset

import numpy as np

cdef extern from *:
    """
    /* n new references to o, with the GIL held: one addition where the reference count is a
       plain counter (3.11), else one Py_INCREF each (immortal objects, free-threaded builds). */
    static inline void tsfile_incref_n(PyObject *o, Py_ssize_t n) {
    #if PY_VERSION_HEX < 0x030C0000 && !defined(Py_GIL_DISABLED)
        Py_SET_REFCNT(o, Py_REFCNT(o) + n);
    #else
        for (Py_ssize_t i = 0; i < n; i++) Py_INCREF(o);
    #endif
    }

    /* n references to o given back, with the GIL held: the last Py_DECREF frees the object if
       they were its last ones. */
    static inline void tsfile_decref_n(PyObject *o, Py_ssize_t n) {
    #if PY_VERSION_HEX < 0x030C0000 && !defined(Py_GIL_DISABLED)
        if (n > 1) Py_SET_REFCNT(o, Py_REFCNT(o) - (n - 1));
        Py_DECREF(o);
    #else
        for (Py_ssize_t i = 0; i < n; i++) Py_DECREF(o);
    #endif
    }
    """
    void tsfile_incref_n(PyObject *o, Py_ssize_t n)
    void tsfile_decref_n(PyObject *o, Py_ssize_t n)

cnp.import_array()


# The value recorded for a range clear() wrote (NULL slots: no reference counted).
_CLEARED = object()


@cython.no_gc_clear  # __dealloc__ reads ``ranges``: the collector must not empty it first
cdef class _SlotBlock:
    """The slots of an object column made by empty_column, as the memory of an intp array
    (zeroed: NULL pointers, None to numpy; numpy's allocator: calloc'ed, untouched until
    written, huge pages for large ones, and freeing an intp array touches no slot; or, made
    with cleared=False, as it came, written range by range until settle()). Once settled, the
    references its slots hold are given back (release_refs) when the last array using them is
    freed; before, those its recorded ranges counted."""

    cdef object memory  # the intp array owning the slots' memory
    cdef PyObject **slots
    cdef Py_ssize_t n  # the slots read when freed (settle() may lower it)
    cdef bint settled  # every slot is NULL or a counted reference (fill() allowed)
    # empty_column(cleared=False), until settled: (lo, hi, value or _CLEARED) of every range
    # written, each range's references counted (hi - lo of them)
    cdef list ranges

    def __dealloc__(self):
        cdef Py_ssize_t lo, hi
        if self.slots == NULL:
            return
        if self.settled:
            release_refs(self.slots, self.n)
        elif self.ranges is not None:  # the counts, not the slots (never read unsettled)
            for lo, hi, value in self.ranges:
                if value is not _CLEARED and hi > lo:
                    tsfile_decref_n(<PyObject *>value, hi - lo)
        self.slots = NULL


cdef void release_refs(PyObject **slots, Py_ssize_t n) noexcept:
    """Give back the reference of every non-NULL slot: one tsfile_decref_n per run of equal
    pointers. With the GIL held (an object may be freed)."""
    cdef Py_ssize_t i = 0, start
    cdef PyObject *o
    while i < n:
        o = slots[i]
        start = i
        i += 1
        while i < n and slots[i] == o:
            i += 1
        if o != NULL:
            tsfile_decref_n(o, i - start)


def empty_column(Py_ssize_t n, bint cleared=True):
    """An object array of ``n`` slots, all NULL (None to numpy), its memory untouched; its base
    is the _SlotBlock owning the slots (freed a run at a time, see the module notes).

    ``cleared=False``: the slots are left as they are, and the array returned has no rows (a
    handle: nothing can read a slot through it); the caller writes each row it keeps exactly
    once through it (fill_runs / fill, or clear for NULL; rows [0, n), disjoint ranges, on any
    threads), then reads only the column settle() returns."""
    if n < 0:
        raise ValueError(f"column length {n} is negative")
    cdef _SlotBlock block = _SlotBlock()
    cdef cnp.ndarray memory = np.zeros(n, np.intp) if cleared else np.empty(n, np.intp)
    block.memory = memory
    block.slots = <PyObject **>cnp.PyArray_DATA(memory)
    block.n = n
    block.settled = cleared
    block.ranges = None if cleared else []
    # unsettled: a handle of NO rows over the slots (fill_runs, clear and settle find the block
    # through it), so that nothing holding it (the read's state, reached from a traceback by a
    # debugger, a repr) can read a slot before settle() hands out the column of the rows written
    return column_over(block, n if cleared else 0)


cdef cnp.ndarray column_over(_SlotBlock block, Py_ssize_t n):
    """The object array of the first ``n`` slots of ``block``, its base: writable and
    contiguous, not owning its data (numpy frees neither the slots nor their references, the
    block does)."""
    cdef cnp.npy_intp dims[1]
    dims[0] = n
    cdef cnp.ndarray column = cnp.PyArray_SimpleNewFromData(
        1, dims, cnp.NPY_OBJECT, <void *>block.slots)
    cnp.set_array_base(column, block)
    return column


cdef _SlotBlock slot_block(cnp.ndarray column):
    """The _SlotBlock of a column made by empty_column(cleared=False) and not settled (the
    handle itself, not a view of it); else ValueError."""
    block = cnp.get_array_base(column)
    if not isinstance(block, _SlotBlock) or \
            <PyObject **>cnp.PyArray_DATA(column) != (<_SlotBlock>block).slots:
        raise ValueError("clear and settle take a column made by empty_column(cleared=False)")
    if (<_SlotBlock>block).ranges is None:
        raise ValueError("the column's slots are settled (clear would drop references)")
    return <_SlotBlock>block


def clear(cnp.ndarray column not None, Py_ssize_t lo, Py_ssize_t hi):
    """Write NULL (None) into rows [lo, hi) of a column made by empty_column(cleared=False), not
    settled, without the GIL: rows the result keeps that no fill writes. An empty range does
    nothing."""
    cdef _SlotBlock block = slot_block(column)
    if not 0 <= lo <= hi <= block.n:
        raise IndexError(f"rows [{lo}, {hi}) outside a column of {block.n}")
    if lo == hi:
        return
    block.ranges.append((lo, hi, _CLEARED))
    with nogil:
        memset(block.slots + lo, 0, (hi - lo) * sizeof(PyObject *))


def settle(cnp.ndarray column not None, Py_ssize_t rows):
    """The column of the first ``rows`` rows of a column made by empty_column(cleared=False),
    once the ranges written into it (fill_runs, fill, clear) tile [0, rows) exactly: each row
    written once, none outside. ValueError naming the first row missed or written twice, else:
    the block is settled (it gives back what its ``rows`` slots hold when freed) and the column
    returned, of those rows only, is the one to read (the slots after ``rows`` were never
    written; ``column``, the handle, stays of no rows)."""
    cdef _SlotBlock block = slot_block(column)
    cdef Py_ssize_t pos = 0, lo, hi
    if not 0 <= rows <= block.n:
        raise IndexError(f"{rows} rows of a column of {block.n}")
    for lo, hi in sorted((r[0], r[1]) for r in block.ranges if r[1] > r[0]):
        if lo != pos:
            what = "written twice" if lo < pos else "not written"
            raise ValueError(f"row {min(lo, pos)} of the column {what}")
        pos = hi
    if pos != rows:
        raise ValueError(f"rows [{min(pos, rows)}, {max(pos, rows)}) of the column "
                         + ("not written" if pos < rows else "written past its end"))
    block.n = rows
    block.settled = True
    block.ranges = None
    return column_over(block, rows)


cdef Py_ssize_t write_refs(PyObject **slots, Py_ssize_t n, PyObject *value) noexcept nogil:
    """Write ``value`` into the NULL slots of ``slots[:n]``; returns how many were not NULL (left
    as they are)."""
    cdef Py_ssize_t i, taken = 0
    for i in range(n):
        if slots[i] == NULL:
            slots[i] = value
        else:
            taken += 1
    return taken


cdef void put_refs(PyObject **slots, Py_ssize_t n, PyObject *value) noexcept nogil:
    """Write ``value`` into ``slots[:n]`` without reading them (a range of a column being
    written, whose slots hold nothing yet: one pass of stores, as a memset)."""
    cdef Py_ssize_t i
    for i in range(n):
        slots[i] = value


def fill(cnp.ndarray column not None, Py_ssize_t lo, Py_ssize_t hi, object value):
    """Rows [lo, hi) of the object array ``column`` (made by empty_column, those rows not filled
    before) all refer to ``value``; the pointers are written without the GIL."""
    fill_runs(column, [lo], [hi], [value])


cdef struct Run:
    PyObject **slots    # the run's first slot
    Py_ssize_t n        # its rows
    PyObject *value     # what they refer to (borrowed: the caller's list holds it)
    Py_ssize_t taken    # rows that were filled already (left as they were)


def fill_runs(cnp.ndarray column not None, list starts, list stops, list values):
    """fill() over several row ranges of one column (a tag job's chunk groups): rows
    [starts[k], stops[k]) all refer to values[k]. Every range is checked and every reference
    counted first, then the pointers of all of them are written in ONE nogil region: one GIL
    hand-over per call, not one per range. Rows filled before are left as they are and raise
    ValueError (naming the first such range) after the others are written.

    A column made by empty_column(cleared=False), not settled yet: the ranges are recorded and
    their slots written without being read (each row is written once; settle() checks it)."""
    cdef Py_ssize_t k, lo, hi, dim, n = len(starts)
    cdef PyObject **base_slots
    cdef Run *runs
    if cnp.PyArray_TYPE(column) != cnp.NPY_OBJECT or cnp.PyArray_NDIM(column) != 1 or \
            not cnp.PyArray_IS_C_CONTIGUOUS(column) or not cnp.PyArray_ISWRITEABLE(column):
        raise TypeError("fill needs a writable one-dimensional contiguous object array")
    if len(stops) != n or len(values) != n:
        raise ValueError("fill_runs takes a start, a stop and a value per range")
    dim = cnp.PyArray_DIM(column, 0)
    base = cnp.get_array_base(column)
    while isinstance(base, cnp.ndarray):  # a view's owner: the block is at the chain's end
        base = cnp.get_array_base(base)
    cdef _SlotBlock block = None  # a column being written (cleared=False, not settled)
    if isinstance(base, _SlotBlock) and not (<_SlotBlock>base).settled:
        block = slot_block(column)  # the column itself: a view would record shifted rows
        dim = block.n  # the handle has no rows: the block's slots are the ones written
    runs = <Run *>malloc(n * sizeof(Run) + 1)
    if runs == NULL:
        raise MemoryError()
    try:
        base_slots = <PyObject **>cnp.PyArray_DATA(column)
        # each bound converted ONCE, then checked and used as that C value: an object whose
        # __index__ answers differently on a second call cannot pass the check with one value
        # and place the write with another
        for k in range(n):
            lo = starts[k]
            hi = stops[k]
            if not 0 <= lo <= hi <= dim:
                raise IndexError(f"rows [{lo}, {hi}) outside a column of {dim}")
            runs[k].slots = base_slots + lo
            runs[k].n = hi - lo
            runs[k].value = <PyObject *>values[k]
            runs[k].taken = 0
        if block is not None:
            # the bounds as converted and checked above (runs[k]), not converted again
            recorded = [(runs[k].slots - base_slots, runs[k].slots - base_slots + runs[k].n,
                         values[k]) for k in range(n)]
        for k in range(n):  # the references first, while the GIL is held
            tsfile_incref_n(runs[k].value, runs[k].n)
        if block is not None:
            try:
                block.ranges.extend(recorded)
            except BaseException:  # (a MemoryError) nothing written: the counts taken back
                for k in range(n):
                    if runs[k].n:
                        tsfile_decref_n(runs[k].value, runs[k].n)
                raise
            with nogil:
                for k in range(n):
                    put_refs(runs[k].slots, runs[k].n, runs[k].value)
            return
        with nogil:
            for k in range(n):
                runs[k].taken = write_refs(runs[k].slots, runs[k].n, runs[k].value)
        first = None
        for k in range(n):
            if runs[k].taken:  # references counted for slots that were not written
                tsfile_decref_n(runs[k].value, runs[k].taken)
                if first is None:
                    first = (runs[k].taken, starts[k], stops[k])
    finally:
        free(runs)
    if first is not None:
        raise ValueError(f"{first[0]} rows of [{first[1]}, {first[2]}) were filled already")
