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

Every slot is filled at most once (fill refuses a slot that already holds a reference), so the
counts stay exact.

Clearing the slots is work too: inside the result pool (tsfile._mem.pool.pooled(), where the
reads allocate) np.zeros of a reused block is a memset of the whole block (160 MB for 20 M rows,
~16 ms with the GIL held, before any thread could start decoding). So a read asks for
``empty_column(n, cleared=False)``: the slots' memory is taken as it is, and the read's jobs
clear it a range at a time, without the GIL, on every thread (clear(); the time jobs of
tsfile._read.columns cover every row). Until every slot has been cleared the column refuses
fill(), and if it is dropped before that (a read that failed) its slots are not read: they can
hold no reference.

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
would leak (never a freed object). Nothing but the read that made a column may fill it, and
its slots are read only once every fill has returned.
"""

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


cdef class _SlotBlock:
    """The slots of an object column made by empty_column, as the memory of an intp array
    (zeroed: NULL pointers, None to numpy; numpy's allocator: calloc'ed, untouched until
    written, huge pages for large ones, and freeing an intp array touches no slot; or, made
    with cleared=False, as it came until clear() has covered every slot): their references
    are given back (release_refs) when the last array using them is freed, if it was
    settled."""

    cdef object memory  # the intp array owning the slots' memory
    cdef PyObject **slots
    cdef Py_ssize_t n
    cdef Py_ssize_t cleared  # slots cleared by clear() (empty_column(cleared=False))
    cdef bint settled  # every slot is NULL or a counted reference (fill() allowed)

    def __dealloc__(self):
        if self.slots != NULL and self.settled:  # an unsettled block was never filled
            release_refs(self.slots, self.n)
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

    ``cleared=False``: the slots are not cleared here; the caller clears every one of them with
    clear() (disjoint ranges, on any threads) before the column is filled or read."""
    if n < 0:
        raise ValueError(f"column length {n} is negative")
    cdef _SlotBlock block = _SlotBlock()
    cdef cnp.ndarray memory = np.zeros(n, np.intp) if cleared else np.empty(n, np.intp)
    block.memory = memory
    block.slots = <PyObject **>cnp.PyArray_DATA(memory)
    block.n = n
    block.cleared = n if cleared else 0
    block.settled = block.cleared == n
    cdef cnp.npy_intp dims[1]
    dims[0] = n
    # writable and contiguous, not owning its data: numpy frees neither the slots nor their
    # references, the base does
    cdef cnp.ndarray column = cnp.PyArray_SimpleNewFromData(
        1, dims, cnp.NPY_OBJECT, <void *>block.slots)
    cnp.set_array_base(column, block)
    return column


cdef _SlotBlock slot_block(cnp.ndarray column):
    """The _SlotBlock of a column made by empty_column (the column itself, not a view of it);
    else ValueError."""
    block = cnp.get_array_base(column)
    if not isinstance(block, _SlotBlock) or \
            <PyObject **>cnp.PyArray_DATA(column) != (<_SlotBlock>block).slots:
        raise ValueError("clear takes a column made by empty_column(cleared=False)")
    return <_SlotBlock>block


def clear(cnp.ndarray column not None, Py_ssize_t lo, Py_ssize_t hi):
    """Clear slots [lo, hi) of a column made by empty_column(cleared=False), without the GIL.
    Ranges of one column must not overlap (the column counts the rows cleared: once it counts
    them all, it takes fill()). An empty range does nothing."""
    cdef _SlotBlock block = slot_block(column)
    if not 0 <= lo <= hi <= block.n:
        raise IndexError(f"rows [{lo}, {hi}) outside a column of {block.n}")
    if lo == hi:
        return
    if block.settled:
        raise ValueError("the column's slots are cleared already (clear would drop references)")
    if hi - lo > block.n - block.cleared:
        raise ValueError(f"rows [{lo}, {hi}): more than the {block.n - block.cleared} rows left "
                         "to clear (overlapping ranges)")
    with nogil:
        memset(block.slots + lo, 0, (hi - lo) * sizeof(PyObject *))
    block.cleared += hi - lo  # with the GIL: ranges cleared at once on several threads add up
    block.settled = block.cleared == block.n


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
    ValueError (naming the first such range) after the others are written."""
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
    if isinstance(base, _SlotBlock) and not (<_SlotBlock>base).settled:
        raise ValueError("the column's slots are not all cleared yet (empty_column(cleared=False) "
                         "needs clear() over every row before fill)")
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
        for k in range(n):  # the references first, while the GIL is held
            tsfile_incref_n(runs[k].value, runs[k].n)
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
