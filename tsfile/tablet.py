"""Tablet: a block of rows for one table, column by column (the official package's class and
methods), backed by numpy arrays so that whole columns can also be handed over at once.

Row API (as the official package): ``Tablet(column_names, types, max_row_num)``, then
``add_timestamp(row, t)`` and ``add_value_by_index(col, row, v)`` / ``add_value_by_name``; a cell
never set is null; rows without a timestamp are not written (a row that has values but no
timestamp is an error when the tablet is written).

Array API (no Python work per value for numeric columns): ``Tablet.from_arrays(timestamps,
columns, types=None, null_masks=None, table_name=None)``, see its docstring.

Both check every value against its column type when it is given (``tsfile._write.values`` has the
rules; e.g. an integral float is accepted for an integer column, 1.5 is not; ``True`` is not a
number; a STRING must encode to UTF-8; a DATE must be a real date in the years 1000..9999) and
raise ``tsfile.TypeMismatchError`` naming the column and the row. The row API is stricter where
the official Tablet is: any float for an integer column is refused (a TypeError), and an int out
of the column's range is a ``ValueOutOfRangeError`` (also an ``OverflowError``). The writer
checks the tablet's columns again against the table schema's types when it is written.

A Tablet is a builder, not thread-safe: one thread fills it (then any thread may hand it to a
writer, whose methods are thread-safe).
"""

from __future__ import annotations

import datetime

import numpy as np

from tsfile._write.values import (
    INT_RANGE,
    check_value,
    mismatch,
    to_storage,
    to_timestamps,
)
from tsfile.errors import ColumnNotExistError, TypeMismatchError, ValueOutOfRangeError
from tsfile.types import TSDataType, int_to_date

T = TSDataType


def storage_dtype(data_type) -> np.dtype:
    """The numpy dtype a column of data_type is held in (DATE as int32 yyyyMMdd, text as object)."""
    return TSDataType(data_type).numpy_dtype


def _infer_type(arr: np.ndarray):
    if arr.dtype.kind == "M":
        return T.TIMESTAMP
    if arr.dtype.kind in "OUS":
        for v in arr.flat:
            if v is None:
                continue
            if isinstance(v, (bytes, bytearray)):
                return T.BLOB
            if isinstance(v, datetime.datetime):
                return T.TIMESTAMP
            if isinstance(v, datetime.date):
                return T.DATE
            break
        return T.STRING
    return T.from_pandas_datatype(arr.dtype)


def _repeated_name(names):
    """The first name that occurs twice in ``names`` (already lower-cased), else None."""
    seen = set()
    for name in names:
        if name in seen:
            return name
        seen.add(name)
    return None


def _not_unique(name):
    from tsfile.exceptions import InvalidArgumentError

    return InvalidArgumentError(
        f"tablet column names must be unique (case-insensitive): duplicate column {name!r}"
    )


class Tablet:
    """A block of rows of one table (TAG and FIELD columns; the time column is the timestamps).

    Storage: a tablet made with the constructor keeps Python lists (the row API sets one cell per
    call, as cheaply as a list store); a tablet made by from_arrays keeps the arrays. A row-API
    call on an array column turns that column into a list first. Not thread-safe (a builder: one
    thread fills it)."""

    def __init__(self, column_name_list, type_list, max_row_num=1024):
        if len(column_name_list) != len(type_list):
            raise ValueError("column_name_list and type_list differ in length")
        if max_row_num < 0:
            raise ValueError("max_row_num must be >= 0")
        self.column_name_list = [str(c).lower() for c in column_name_list]
        # A name given twice (names are case-insensitive) is refused when the tablet is written
        # or a value is set by that name, as the official package does (InvalidArgumentError);
        # never resolved to one of the two columns.
        self._repeated = _repeated_name(self.column_name_list)
        self.type_list = [TSDataType(t) for t in type_list]
        self.max_row_num = int(max_row_num)
        self.target_name = None
        n = self.max_row_num
        self._ts = [None] * n  # list (row API) or int64 array (from_arrays: every row set)
        # per column: a list of storage values (None = null), or (array, present-or-None), or
        # _Const(value) for one value shared by every row
        self._cols = [[None] * n for _ in self.type_list]
        self._index = {c: i for i, c in enumerate(self.column_name_list)}
        self._checks = [_CHECKS[t] for t in self.type_list]

    # -- building -----------------------------------------------------------------------------

    @classmethod
    def from_arrays(cls, timestamps, columns, types=None, null_masks=None, table_name=None):
        """A tablet made of whole columns, without Python work per value.

        timestamps: 1-D array of integers (integral floats accepted) or datetimes (converted to
        milliseconds, see tsfile._write.values.to_timestamps).
        columns: {name: array of len(timestamps), or a scalar that every row shares (handy for
        the TAG columns of a one-device batch)}.
        types: {name: TSDataType} or a list in the order of columns; default: inferred from
        the dtypes (int64 -> INT64, int32 -> INT32, float64 -> DOUBLE, float32 -> FLOAT, bool ->
        BOOLEAN, datetime64 -> TIMESTAMP (in milliseconds), str/object -> STRING or BLOB/DATE/
        TIMESTAMP by the first value). Values are checked against these types here
        (TypeMismatchError, first bad row) and against the table schema's when written.
        null_masks: {name: bool array, True = null} (numpy.ma convention; a scalar column too:
        the scalar in the other rows); a numpy.ma.MaskedArray
        column brings its own mask; None values in object columns are null too.
        Arrays that need no conversion are referenced, not copied (the writer copies what it
        keeps buffered)."""
        ts = to_timestamps(timestamps)
        n = ts.shape[0]
        names = list(columns)
        if types is None:
            types = {}
        elif not isinstance(types, dict):
            types = dict(zip(names, types, strict=True))
        types = {str(k).lower(): TSDataType(v) for k, v in types.items()}
        masks = {str(k).lower(): v for k, v in (null_masks or {}).items()}
        tab = cls.__new__(cls)
        tab.column_name_list = [str(c).lower() for c in names]
        repeated = _repeated_name(tab.column_name_list)
        if repeated is not None:
            raise _not_unique(repeated)
        tab._repeated = None
        unknown = sorted(set(masks) - set(tab.column_name_list))
        if unknown:
            raise ColumnNotExistError(f"null_masks names {unknown[0]!r}, which is not a column")
        tab.max_row_num = n
        tab.target_name = table_name
        tab._ts = ts
        tab._cols = []
        tab.type_list = []
        for name in names:
            data = columns[name]
            key = str(name).lower()
            mask = masks.get(key)
            if np.ndim(data) == 0 and not isinstance(data, np.ma.MaskedArray):
                dt = types.get(key)
                if dt is None:
                    dt = _infer_type(np.asarray([data]))
                if mask is None:
                    tab.type_list.append(dt)
                    tab._cols.append(_Const(_check_const(key, dt, data)))
                    continue
                # A scalar with a null mask: every row holds it except the rows the mask makes
                # null (a _Const would store it in those rows too).
                types[key] = dt
                data = np.full(n, data, dtype=object)
            if isinstance(data, np.ma.MaskedArray):
                m = np.ma.getmaskarray(data)
                mask = m if mask is None else (np.asarray(mask, dtype=bool) | m)
                data = data.data
            arr = np.asarray(data)
            if arr.ndim != 1 or arr.shape[0] != n:
                raise ValueError(f"column {name!r} must be 1-D with {n} values")
            dt = types.get(key)
            if dt is None:
                dt = _infer_type(arr)
            present = None if mask is None else ~np.asarray(mask, dtype=bool)
            if present is not None and present.shape[0] != n:
                raise ValueError(f"null mask of {name!r} must have {n} values")
            if arr.dtype == object:
                isnone = np.equal(arr, None)
                if isnone.any():
                    present = ~isnone if present is None else present & ~isnone
            arr, present = to_storage(key, dt, arr, present)
            tab.type_list.append(dt)
            tab._cols.append((arr, present))
        tab._index = {c: i for i, c in enumerate(tab.column_name_list)}
        tab._checks = [_CHECKS[t] for t in tab.type_list]
        return tab

    def _check_index(self, col_index, row_index):
        if not 0 <= col_index < len(self.column_name_list):
            raise IndexError(
                f"column index {col_index} out of range [0, {len(self.column_name_list) - 1}]"
            )
        if not 0 <= row_index < self.max_row_num:
            raise IndexError(f"row index {row_index} out of range [0, {self.max_row_num - 1}]")

    def _col(self, column_name):
        try:
            if self._repeated is not None and column_name.lower() == self._repeated:
                raise _not_unique(self._repeated)
            return self._index[column_name.lower()]
        except KeyError:
            raise ValueError(f"Column '{column_name}' does not exist") from None

    def _as_list(self, col):
        """The column as a list of storage values (None = null), converting it if needed."""
        data = self._cols[col]
        if isinstance(data, list):
            return data
        n = self.max_row_num
        if isinstance(data, _Const):
            cells = [data.value] * n
        else:
            arr, present = data
            cells = arr.tolist()
            if present is not None:
                cells = [v if p else None for v, p in zip(cells, present.tolist(), strict=True)]
        self._cols[col] = cells
        return cells

    def set_table_name(self, table_name):
        self.target_name = table_name

    def add_timestamp(self, row_index, timestamp):
        if type(row_index) is not int:
            _check_index_type(row_index)
        if not 0 <= row_index < self.max_row_num:
            raise IndexError(f"row index {row_index} out of range [0, {self.max_row_num - 1}]")
        if type(timestamp) is not int or not _INT64_MIN <= timestamp <= _INT64_MAX:
            timestamp = _check_timestamp(timestamp, row_index)
        if not isinstance(self._ts, list):
            self._ts = self._ts.tolist()
        self._ts[row_index] = timestamp

    def set_timestamp_list(self, timestamp_list):
        n = len(timestamp_list)
        if n > self.max_row_num:
            raise ValueError(f"{n} timestamps for a tablet of {self.max_row_num} rows")
        ts = [None] * self.max_row_num
        for i, t in enumerate(timestamp_list):
            if t is not None:
                ts[i] = _check_timestamp(t, i)
        self._ts = ts

    def add_value_by_index(self, col_index, row_index, value):
        if type(row_index) is not int or type(col_index) is not int:
            _check_index_type(row_index)
            _check_index_type(col_index, "column index")
        if not 0 <= row_index < self.max_row_num or not 0 <= col_index < len(self._cols):
            self._check_index(col_index, row_index)
        cells = self._cols[col_index]
        if not isinstance(cells, list):
            cells = self._as_list(col_index)
        try:
            cells[row_index] = None if value is None else self._checks[col_index](value)
        except TypeMismatchError as exc:
            raise _located(exc, self.column_name_list[col_index], row_index) from None

    def add_value_by_name(self, column_name, row_index, value):
        self.add_value_by_index(self._col(column_name), row_index, value)

    # -- getters (official names) -------------------------------------------------------------

    def get_column_name_list(self):
        return list(self.column_name_list)

    def get_data_type_list(self):
        return list(self.type_list)

    def get_target_name(self):
        return self.target_name

    def get_max_row_num(self):
        return self.max_row_num

    def get_timestamp_list(self):
        return list(self._ts) if isinstance(self._ts, list) else self._ts.tolist()

    def _py_value(self, col, row):
        data = self._cols[col]
        if isinstance(data, list):
            v = data[row]
        elif isinstance(data, _Const):
            v = data.value
        else:
            arr, present = data
            if present is not None and not present[row]:
                return None
            v = arr[row]
            v = v.item() if isinstance(v, np.generic) else v
        if v is None:
            return None
        dt = self.type_list[col]
        if dt == T.DATE and isinstance(v, int):
            return int_to_date(v)
        if dt == T.BOOLEAN:
            return bool(v)
        return v

    def get_value_by_index(self, col_index, row_index):
        self._check_index(col_index, row_index)
        return self._py_value(col_index, row_index)

    def get_value_by_name(self, column_name, row_index):
        col = self._col(column_name)
        self._check_index(col, row_index)
        return self._py_value(col, row_index)

    def get_value_list_by_name(self, column_name):
        col = self._col(column_name)
        return [self._py_value(col, r) for r in range(self.max_row_num)]

    def get_value_list(self):
        return [
            [self._py_value(c, r) for r in range(self.max_row_num)]
            for c in range(len(self.column_name_list))
        ]

    # -- for the writer -------------------------------------------------------------------------

    def _export(self):
        """(timestamps int64 array, {name: scalar | (values array, present or None)}, rows) of
        the rows that have a timestamp (rows: their tablet row indexes, None when every row has
        one); a row with values but no timestamp is an error."""
        if self._repeated is not None:
            raise _not_unique(self._repeated)
        ts = self._ts
        rows = None
        if isinstance(ts, list):
            has = [t is not None for t in ts]
            if all(has):
                times = np.array(ts, dtype=np.int64)
            else:
                rows = [i for i, h in enumerate(has) if h]
                missing = [i for i, h in enumerate(has) if not h]
                for c, data in enumerate(self._cols):
                    if isinstance(data, list):
                        bad = next((i for i in missing if data[i] is not None), None)
                    elif isinstance(data, _Const):
                        bad = missing[0] if data.value is not None else None
                    else:
                        pres = data[1]
                        bad = next((i for i in missing if pres is None or pres[i]), None)
                    if bad is not None:
                        raise ValueError(
                            f"tablet row {bad} has a value in column "
                            f"{self.column_name_list[c]!r} but no timestamp"
                        )
                times = np.array([ts[i] for i in rows], dtype=np.int64)
        else:
            times = ts
        out = {}
        for name, dt, data in zip(self.column_name_list, self.type_list, self._cols, strict=True):
            if isinstance(data, list):
                cells = data if rows is None else [data[i] for i in rows]
                out[name] = _cells_to_array(dt, cells)
            elif isinstance(data, _Const):
                out[name] = data.value
            else:
                arr, present = data
                if rows is not None:
                    idx = np.asarray(rows, dtype=np.int64)
                    arr = arr[idx]
                    present = None if present is None else present[idx]
                out[name] = (arr, present)
        return times, out, rows

    def __repr__(self):
        return (
            f"Tablet(table={self.target_name!r}, columns={self.column_name_list}, "
            f"rows={self.max_row_num})"
        )


class _Const:
    """A column given as one scalar for all rows (from_arrays): e.g. the tag of a one-device
    batch, without a column of n identical strings."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def _cells_to_array(dt, cells):
    """A list of storage values (None = null) -> (array, present or None)."""
    present = None
    if None in cells:
        present = np.fromiter((v is not None for v in cells), dtype=bool, count=len(cells))
    if dt.is_binary:
        arr = np.empty(len(cells), dtype=object)
        arr[:] = cells
        return arr, present
    if present is not None:
        zero = False if dt == T.BOOLEAN else 0
        cells = [zero if v is None else v for v in cells]
    return np.array(cells, dtype=storage_dtype(dt)), present


def _make_check(data_type):
    """A validator for one type: fast exact-type tests first, values.check_value for the rest."""
    dt = TSDataType(data_type)
    if dt in (T.INT64, T.TIMESTAMP, T.INT32):
        lo, hi = INT_RANGE[dt]

        def check(v):
            if type(v) is int and lo <= v <= hi:
                return v
            return _row_int(dt, v)

        return check
    if dt == T.DOUBLE:
        return lambda v: v if type(v) is float else check_value(dt, v)
    if dt in (T.STRING, T.TEXT):
        # isascii() is O(1) on CPython's compact strings; other text is encoded once to check it.
        return lambda v: v if type(v) is str and v.isascii() else check_value(dt, v)
    if dt == T.BOOLEAN:
        return lambda v: v if type(v) is bool else check_value(dt, v)
    return lambda v: check_value(dt, v)


def _row_int(dt, value):
    """An integer column's value given to the row API, as the official Tablet takes it: a float
    is refused even when integral (10.0 for an INT32 is a TypeMismatchError, a TypeError; the
    official Tablet raises TypeError), and an int outside the column's range raises
    ValueOutOfRangeError, which is also the OverflowError the official Tablet raises. A datetime
    for a TIMESTAMP column and the rest go to check_value."""
    if isinstance(value, (float, np.floating)):
        raise mismatch(f"{dt.name} needs an int, got {value!r} ({type(value).__name__})")
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        lo, hi = INT_RANGE[dt]
        if not lo <= int(value) <= hi:
            raise _out_of_range(f"{int(value)} is out of the {dt.name} range [{lo}, {hi}]")
    return check_value(dt, value)


def _out_of_range(reason, column=None, row=None):
    """mismatch()'s ValueOutOfRangeError: the same message and attributes."""
    located = mismatch(reason, column, row)
    exc = ValueOutOfRangeError(str(located))
    exc.column, exc.row, exc.reason = column, row, reason
    return exc


def _located(exc, column, row):
    """``exc`` (a TypeMismatchError of one value) again, its message naming the column and the
    row; a ValueOutOfRangeError stays one (it is the OverflowError callers may catch)."""
    if isinstance(exc, ValueOutOfRangeError):
        return _out_of_range(exc.reason, column, row)
    return mismatch(exc.reason, column, row)


_CHECKS = {t: _make_check(t) for t in TSDataType if t not in (T.VECTOR, T.UNKNOWN)}
_INT64_MIN, _INT64_MAX = INT_RANGE[T.INT64]


def _check_index_type(index, what="row index") -> None:
    """A row (or column) index is an int: True is not row 1 (numpy integers are accepted)."""
    if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)):
        raise TypeError(f"{what} must be an int, got {index!r} ({type(index).__name__})")


def _check_timestamp(value, row):
    """A row-API timestamp: an int (or integral float) in the INT64 range, or a datetime (in
    milliseconds), else TypeMismatchError."""
    if type(value) is int and _INT64_MIN <= value <= _INT64_MAX:
        return value
    try:
        return check_value(T.TIMESTAMP, value)
    except TypeMismatchError as exc:
        raise mismatch(exc.reason, "time", row) from None


def _check_const(name, dt, value):
    """A scalar that every row of a from_arrays column shares (None: all null)."""
    if value is None:
        return None
    try:
        return check_value(dt, value)
    except TypeMismatchError as exc:
        raise mismatch(exc.reason, name) from None


__all__ = ["Tablet"]
