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

Threads: several threads may fill DISJOINT rows of one column at once (the read's tag jobs do:
each job's rows are fixed by the plan). The refusal of a filled slot is a plain check, not an
atomic one: two threads filling the same row at once would both write it and one reference
would leak (never a freed object). Nothing but the read that made a column may fill it, and
its slots are read only once every fill has returned.
"""

cimport numpy as cnp
from cpython.ref cimport PyObject, Py_DECREF

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
    """
    void tsfile_incref_n(PyObject *o, Py_ssize_t n)

cnp.import_array()


def empty_column(Py_ssize_t n):
    """An object array of ``n`` slots, all NULL (None to numpy), its memory untouched."""
    if n < 0:
        raise ValueError(f"column length {n} is negative")
    cdef cnp.npy_intp dims[1]
    dims[0] = n
    # PyArray_SimpleNew of an object dtype leaves NULL pointers (numpy calloc's the memory of
    # dtypes that need initialising; np.empty and np.zeros would then write None or 0 objects)
    return cnp.PyArray_SimpleNew(1, dims, cnp.NPY_OBJECT)


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


def fill(cnp.ndarray column, Py_ssize_t lo, Py_ssize_t hi, object value):
    """Rows [lo, hi) of the object array ``column`` (made by empty_column, those rows not filled
    before) all refer to ``value``; the pointers are written without the GIL."""
    if cnp.PyArray_TYPE(column) != cnp.NPY_OBJECT or cnp.PyArray_NDIM(column) != 1 or \
            not cnp.PyArray_IS_C_CONTIGUOUS(column) or not cnp.PyArray_ISWRITEABLE(column):
        raise TypeError("fill needs a writable one-dimensional contiguous object array")
    if not 0 <= lo <= hi <= cnp.PyArray_DIM(column, 0):
        raise IndexError(f"rows [{lo}, {hi}) outside a column of {cnp.PyArray_DIM(column, 0)}")
    cdef Py_ssize_t n = hi - lo, i, taken
    cdef PyObject *v = <PyObject *>value
    cdef PyObject **slots = (<PyObject **>cnp.PyArray_DATA(column)) + lo
    tsfile_incref_n(v, n)  # the references first, while the GIL is held
    with nogil:
        taken = write_refs(slots, n, v)
    if taken:
        for i in range(taken):  # references counted for slots that were not written
            Py_DECREF(value)
        raise ValueError(f"{taken} rows of [{lo}, {hi}) were filled already")
