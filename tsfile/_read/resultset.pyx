# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""ResultSet: the row-by-row and block-by-block views of a query (official API names).

Blocks of decoded rows come from a Python iterator (tsfile.reader plans and decodes them one
chunk group at a time); the row methods read straight from the block's arrays through raw
pointers, so ``next()`` and ``get_value_by_index()`` cost one C call each and no per-row Python
work besides building the returned value.
"""

cimport cython
from cpython.number cimport PyNumber_Index
from cpython.ref cimport PyObject
from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.stdlib cimport free, malloc

import numpy as np

cimport numpy as cnp

from tsfile.errors import (
    ClosedError, ColumnNotExistError, CorruptDataError, NoCurrentRowError, TsFileError,
)
from tsfile.exceptions import OutOfRangeError
from tsfile.types import TSDataType, int_to_date

cnp.import_array()

cdef enum:
    K_I64 = 0
    K_I32 = 1
    K_F32 = 2
    K_F64 = 3
    K_BOOL = 4
    K_DATE = 5
    K_OBJ = 6


cdef int kind_of(int t):
    if t in (2, 8, 6):
        return K_I64
    if t == 1:
        return K_I32
    if t == 3:
        return K_F32
    if t == 4:
        return K_F64
    if t == 0:
        return K_BOOL
    if t == 9:
        return K_DATE
    return K_OBJ


cdef object _date_cache = {}


cdef object make_date(int32_t v):
    d = _date_cache.get(v)
    if d is None:
        d = int_to_date(v)  # CorruptDataError for an invalid yyyyMMdd value
        if len(_date_cache) < 100000:
            _date_cache[v] = d
    return d


class TsBlock:
    """A block of result rows as numpy arrays.

    ``timestamps``: int64 array; ``columns``: {name: array} in result order (tag columns
    included; TEXT/STRING as str objects, BLOB bytes, DATE int32 yyyyMMdd, BOOLEAN bool);
    ``nulls``: {name: bool array (True = null)} for every column that has a null in this block.
    ``origins``: {name: file offset of the chunk the column's values come from} where known (for
    the messages of errors found when a value is converted, e.g. an invalid DATE).

    Threads: a block's arrays are the caller's once it is returned (the reader reuses them only
    after every reference to them is gone), so any thread may use them, also after the reader
    is closed.
    """

    __slots__ = ("timestamps", "columns", "nulls", "types", "origins")

    def __init__(self, timestamps, columns, nulls, types=None, origins=None):
        self.timestamps = timestamps
        self.columns = columns
        self.nulls = nulls
        self.types = types
        self.origins = origins

    @property
    def num_rows(self):
        return len(self.timestamps)

    def __len__(self):
        return len(self.timestamps)

    def slice(self, start, stop=None):
        cols = {k: v[start:stop] for k, v in self.columns.items()}
        nulls = {}
        for k, m in self.nulls.items():
            m = m[start:stop]
            if m.any():
                nulls[k] = m
        return TsBlock(self.timestamps[start:stop], cols, nulls, self.types, self.origins)

    def __repr__(self):
        return f"TsBlock({len(self)} rows, columns={list(self.columns)})"


cdef int check_column_index(object i, int ncols) except -1:
    """OutOfRangeError (an IndexError) unless 1 <= i <= ncols: the accessors are 1-based, so 0
    and negative indexes are errors, never Python's from-the-end indexing."""
    if not 1 <= i <= ncols:
        raise OutOfRangeError(f"column index {i} out of range 1..{ncols}")
    return 0


cdef inline int _index_arg(object index, int ncols) except? -1:
    """A column index as a C int. Only integers (``__index__``): a float was truncated by the
    `int i` argument (1.5 read column 1); other types are a TypeError. An int beyond C int's
    range is out of range like any other (OutOfRangeError, an IndexError), not OverflowError."""
    if type(index) is not int:
        index = PyNumber_Index(index)
    try:
        return index
    except OverflowError:
        check_column_index(index, ncols)  # raises: |index| >= 2**31 is never in 1..ncols
        raise


class ResultSetMetaData:
    """Column names and types of a result (1-based accessors). Immutable: safe in any thread."""

    def __init__(self, names, types):
        self._names = list(names)
        self._types = list(types)

    def get_column_list(self):
        """Every column name, ``time`` first."""
        return list(self._names)

    def get_data_type_list(self):
        """Every column's TSDataType, in column order."""
        return list(self._types)

    def get_column_name(self, i):
        """The name of column ``i`` (1-based; OutOfRangeError outside 1..get_column_num())."""
        check_column_index(i, len(self._names))
        return self._names[i - 1]

    def get_data_type(self, i):
        """The TSDataType of column ``i`` (1-based; OutOfRangeError outside the columns)."""
        check_column_index(i, len(self._names))
        return self._types[i - 1]

    def get_column_num(self):
        """The number of columns, time included."""
        return len(self._names)

    def __repr__(self):
        return f"ResultSetMetaData({list(zip(self._names, [t.name for t in self._types]))})"


@cython.final
cdef class ResultSet:
    """Rows of a query: ``next()`` + ``get_value_by_index(i)`` (1-based, 1 = time) or blocks
    with ``get_next_tsblock()``. A context manager.

    Closed (by close(), or by its reader's close()), every row and block method raises
    ClosedError, as the official package's result sets do; a closed result set never looks like
    the end of a complete result. get_metadata() and get_column_names() stay available.

    Threads: one consumer at a time. It may be handed from thread to thread, but a call made
    while another thread is inside a call of the same result set (e.g. next() fetching a block)
    raises TsFileError rather than racing on the cursor. Its reader may be closed from another
    thread at any moment: the next call raises ClosedError.
    """

    cdef object _blocks
    cdef object _block
    cdef list _arrays
    cdef list _masks
    cdef Py_ssize_t _row
    cdef Py_ssize_t _n
    cdef int _ncols
    cdef int *_kinds
    cdef char **_ptrs
    cdef uint8_t **_mptrs
    cdef list _names
    cdef list _types
    cdef dict _index
    cdef bint _closed  # closed: every row / block call raises ClosedError(_why)
    cdef str _why
    cdef bint _busy  # a thread is inside a call that changes the cursor (see _enter)
    cdef object _on_close
    cdef Py_ssize_t _batch_rows  # > 0: blocks handed out hold at most this many rows

    def __cinit__(self):
        self._kinds = NULL
        self._ptrs = NULL
        self._mptrs = NULL

    def __init__(self, blocks, names, types, on_close=None):
        cdef int i
        self._blocks = iter(blocks)
        self._names = list(names)
        self._types = [TSDataType(t) for t in types]
        self._ncols = len(self._names)
        self._index = {n: i for i, n in enumerate(self._names)}
        self._kinds = <int *>malloc(self._ncols * sizeof(int))
        self._ptrs = <char **>malloc(self._ncols * sizeof(char *))
        self._mptrs = <uint8_t **>malloc(self._ncols * sizeof(uint8_t *))
        if self._kinds == NULL or self._ptrs == NULL or self._mptrs == NULL:
            raise MemoryError()
        for i in range(self._ncols):
            self._kinds[i] = kind_of(int(self._types[i]))
            self._ptrs[i] = NULL
            self._mptrs[i] = NULL
        self._row = -1
        self._n = 0
        self._on_close = on_close
        self._batch_rows = 0

    def _set_batch_rows(self, rows):
        """Hand out blocks of at most ``rows`` rows (the query's batch_size)."""
        self._batch_rows = max(int(rows), 0)

    def __dealloc__(self):
        free(self._kinds)
        free(self._ptrs)
        free(self._mptrs)

    # -- block handling ---------------------------------------------------------------------

    cdef int _usable(self) except -1:
        """Raise unless the cursor may be read now: closed, or in use by another thread."""
        if self._busy:
            raise TsFileError(
                "ResultSet used from two threads at once: it serves one consumer at a time "
                "(another thread is inside a call on it)")
        if self._closed:
            self._drop()  # what close() left to this thread (the cursor was in use then)
            raise ClosedError(f"{self._why}: no rows can be read from this result set")
        return 0

    cdef int _enter(self) except -1:
        """Start a call that changes the cursor; the caller resets _busy when it ends. Between
        the check and the flag no Python code runs (the GIL is held throughout), so two threads
        cannot both get in."""
        self._usable()
        self._busy = True
        return 0

    cdef int _drop(self) except -1:
        """Let go of the current block and the block iterator (a suspended generator is closed)."""
        self._install(None)
        self._blocks = iter(())
        return 0

    cdef object _fetch(self):
        """The next non-empty block from the iterator, or None."""
        for blk in self._blocks:
            if len(blk.timestamps):
                return blk
        return None

    cdef int _install(self, blk) except -1:
        cdef int i
        cdef cnp.ndarray a
        self._block = blk
        if blk is None:
            self._arrays = None
            self._masks = None
            self._n = 0
            self._row = -1
            for i in range(self._ncols):
                self._ptrs[i] = NULL
                self._mptrs[i] = NULL
            return 0
        arrays = [np.ascontiguousarray(blk.timestamps)]
        masks = [None]
        for name in self._names[1:]:
            arr = blk.columns[name]
            if self._kinds[self._index[name]] == K_OBJ:
                arr = np.ascontiguousarray(arr, dtype=object)
            else:
                arr = np.ascontiguousarray(arr)
            arrays.append(arr)
            m = blk.nulls.get(name)
            masks.append(None if m is None else np.ascontiguousarray(m, dtype=np.bool_))
        self._arrays = arrays
        self._masks = masks
        for i in range(self._ncols):
            a = arrays[i]
            self._ptrs[i] = <char *>cnp.PyArray_DATA(a)
            if masks[i] is None:
                self._mptrs[i] = NULL
            else:
                a = masks[i]
                self._mptrs[i] = <uint8_t *>cnp.PyArray_DATA(a)
        self._n = len(blk.timestamps)
        self._row = -1
        return 0

    # -- row API ----------------------------------------------------------------------------

    def next(self):
        """Advance to the next row; False at the end."""
        if self._busy or self._closed:
            self._usable()  # raises
        if self._row + 1 < self._n:
            self._row += 1
            return True
        self._enter()
        try:
            self._install(self._fetch())
        finally:
            self._busy = False
        if self._n == 0:
            return False
        self._row = 0
        return True

    cdef inline int _check(self, int i) except -1:
        if self._busy or self._closed:
            self._usable()  # raises
        if i < 1 or i > self._ncols:
            check_column_index(i, self._ncols)  # raises OutOfRangeError (an IndexError)
        if self._row < 0 or self._row >= self._n:
            raise NoCurrentRowError(
                "no current row: call next() first and check that it returned True (after "
                "read_data_frame() used up the result there is none)")
        return 0

    cdef inline object _value(self, int c):
        cdef Py_ssize_t r = self._row
        cdef uint8_t *m = self._mptrs[c]
        cdef int k
        if m != NULL and m[r]:
            return None
        k = self._kinds[c]
        if k == K_I64:
            return (<int64_t *>self._ptrs[c])[r]
        if k == K_F64:
            return (<double *>self._ptrs[c])[r]
        if k == K_I32:
            return (<int32_t *>self._ptrs[c])[r]
        if k == K_F32:
            return <double>(<float *>self._ptrs[c])[r]
        if k == K_BOOL:
            return (<uint8_t *>self._ptrs[c])[r] != 0
        if k == K_DATE:
            try:
                return make_date((<int32_t *>self._ptrs[c])[r])
            except CorruptDataError as exc:
                raise CorruptDataError(
                    f"{exc} (column {self._names[c]!r}, row {r} of the current block; "
                    f"{self._origin(c)})") from None
        return <object>(<PyObject **>self._ptrs[c])[r]

    cdef str _origin(self, int c):
        origins = getattr(self._block, "origins", None) or {}
        at = origins.get(self._names[c])
        if at is None:
            return "file offset unknown"
        return f"its values come from file offset {at}"

    def get_value_by_index(self, i):
        """Value of column i (1-based; 1 is the time column) of the current row; None if null."""
        cdef int c = _index_arg(i, self._ncols)
        self._check(c)
        return self._value(c - 1)

    def is_null_by_index(self, i):
        cdef int c = _index_arg(i, self._ncols)
        self._check(c)
        cdef uint8_t *m = self._mptrs[c - 1]
        if m != NULL and m[self._row]:
            return True
        if self._kinds[c - 1] == K_OBJ:
            return (<PyObject **>self._ptrs[c - 1])[self._row] == <PyObject *>None
        return False

    cdef int _col(self, name) except -1:
        try:
            return self._index[name] + 1
        except KeyError:
            pass
        if isinstance(name, str) and name.lower() in self._index:
            return self._index[name.lower()] + 1
        raise ColumnNotExistError(f"no column {name!r} in this result")

    def get_value_by_name(self, name):
        return self.get_value_by_index(self._col(name))

    def is_null_by_name(self, name):
        return self.is_null_by_index(self._col(name))

    def get_row(self):
        """The current row as a tuple (convenience)."""
        cdef int c
        self._check(1)
        self._enter()  # values can run Python code (DATE): the cursor must not move meanwhile
        try:
            return tuple([self._value(c) for c in range(self._ncols)])
        finally:
            self._busy = False

    # -- metadata, blocks -------------------------------------------------------------------

    def get_metadata(self):
        return ResultSetMetaData(self._names, self._types)

    def get_column_names(self):
        return list(self._names)

    def get_next_tsblock(self):
        """The next block of rows (a TsBlock of numpy arrays) or None at the end.

        If rows of the current block were consumed with next(), the rest of that block comes
        first. A query opened with ``batch_size`` > 0 gives blocks of at most that many rows."""
        cdef object blk
        self._enter()
        try:
            if self._block is not None and self._row + 1 < self._n:
                blk = self._block.slice(self._row + 1)
            else:
                blk = self._fetch()
            self._install(None)
            if blk is not None and 0 < self._batch_rows < len(blk):
                # the rest stays the current block, positioned before its first row
                self._install(blk.slice(self._batch_rows))
                blk = blk.slice(0, self._batch_rows)
        finally:
            self._busy = False
        return blk

    def read_arrow_batch(self):
        """The next block as a pyarrow.Table (needs pyarrow), or None at the end."""
        blk = self.get_next_tsblock()
        if blk is None:
            return None
        from tsfile.dataframe import block_to_arrow

        return block_to_arrow(blk, self._names, self._types)

    def read_arrow_record_batch(self):
        """The next block as a pyarrow.RecordBatch (needs pyarrow), or None at the end."""
        table = self.read_arrow_batch()
        if table is None:
            return None
        return table.combine_chunks().to_batches()[0] if table.num_rows else None

    def read_data_frame(self, max_row_num=1024):
        """Up to ``max_row_num`` rows as a pandas DataFrame (the columns and nullable dtypes of
        ``tsfile.to_dataframe``), starting with the current row (the first row when next() was
        not called yet). The cursor is left on the last row returned, so ``next()`` continues
        after it; when the result ran out before ``max_row_num`` rows there is no current row
        any more (``next()`` returns False). At the end of the result the DataFrame is empty
        (its columns named)."""
        cdef list parts = []
        cdef Py_ssize_t want, start, take
        want = int(max_row_num)
        if want < 0:
            raise ValueError(f"max_row_num must be >= 0, got {max_row_num}")
        self._enter()
        try:
            while want > 0:
                if self._row < 0 and self._n > 0:
                    self._row = 0  # a block installed by get_next_tsblock, not started yet
                elif self._row < 0 or self._row >= self._n:
                    self._install(self._fetch())
                    if self._n == 0:
                        break
                    self._row = 0
                start = self._row
                take = min(want, self._n - start)
                parts.append(self._block.slice(start, start + take))
                want -= take
                self._row = start + take - 1  # the last row returned is the current row
                if want > 0:
                    self._row = self._n  # this block is used up: the next loop fetches
        finally:
            self._busy = False
        from tsfile.dataframe import blocks_to_dataframe

        return blocks_to_dataframe(parts, self._names, self._types)

    def __arrow_c_stream__(self, requested_schema=None):
        """The rest of the result as an Arrow C stream (the PyCapsule interface; needs pyarrow):
        pyarrow, polars and duckdb read a result set directly. Consumes its blocks. A closed
        result set raises ClosedError here; an error while the stream is read reaches the
        consumer as its Arrow error, with this package's message."""
        from tsfile._arrow import result_set_stream

        self._usable()

        return result_set_stream(self.get_next_tsblock, self._names, self._types, requested_schema)

    def close(self):
        """Close the result set (idempotent): later row and block calls raise ClosedError."""
        self._shut("the result set is closed")

    def _reader_closed(self):
        """Called by the reader's close() (from any thread)."""
        self._shut("its TsFileReader is closed")

    cdef int _shut(self, str why) except -1:
        if self._closed:
            return 0
        self._closed = True
        self._why = why
        if not self._busy:  # else the thread inside a call drops them at its next call
            self._drop()
        on_close, self._on_close = self._on_close, None
        if on_close is not None:
            on_close(self)
        return 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __iter__(self):
        while self.next():
            yield self.get_row()
