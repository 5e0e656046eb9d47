"""Checked conversion of writer input to the storage form of a column.

Every write path (Tablet row API, ``Tablet.from_arrays``, ``write_arrays``, ``write_dataframe``,
``write_arrow_batch``) goes through these functions, so a value is stored only if it fits its
column exactly; otherwise ``tsfile.TypeMismatchError`` is raised naming the column and the first
bad row (the index within the call). The rules:

* integer columns (INT32, INT64, TIMESTAMP, DATE): integers within the type's range; floats only
  when integral, finite and within range (a pandas integer column turns float64 when it has a
  NaN: such values are exact and accepted); bools, strings and other objects are refused;
* FLOAT / DOUBLE: floats (a float64 value into FLOAT is rounded to the nearest float32, the
  meaning of a FLOAT column, but a finite value beyond the FLOAT range is refused: it would become
  infinity); integers only when the float type holds them exactly (an INT64 beyond 2**53 that a
  DOUBLE cannot represent is refused); bools are refused;
* BOOLEAN: bools only;
* TIMESTAMP given datetimes (numpy datetime64 of any unit, pandas / datetime objects, naive taken
  as UTC, aware converted to UTC) is converted to milliseconds since the epoch, the time precision
  of the files this library writes (the TsFile default). A datetime with a sub-millisecond
  remainder is refused rather than silently floored; a datetime64 beyond the INT64 millisecond
  range is refused. In the time column, NaT is refused; in a FIELD column, NaT is a null;
* DATE: ``datetime.date`` values, datetime64 values (arrays or scalars) that are whole days, or
  integers yyyyMMdd that are real calendar dates (month 1-12, day within the month, leap years)
  with a year in 1000..9999, the official package's DATE range; NaT in a DATE array is a null;
  a tz-aware datetime column (pandas) gives the date in its own time zone;
* TEXT / STRING: ``str`` that encodes to UTF-8 (a lone surrogate does not), or ``bytes`` that are
  valid UTF-8; BLOB: bytes-like only (a ``str`` is refused, as the official Tablet refuses it).

Numeric conversions are whole-array numpy operations, done only where a cast happens (an array
already of the column's storage dtype is taken as it is, except DATE, whose values are always
checked to be dates).
"""

from __future__ import annotations

import datetime

import numpy as np

from tsfile.errors import TypeMismatchError
from tsfile.types import TSDataType

T = TSDataType

INT_RANGE = {
    T.INT32: (-(1 << 31), (1 << 31) - 1),
    T.DATE: (-(1 << 31), (1 << 31) - 1),
    T.INT64: (-(1 << 63), (1 << 63) - 1),
    T.TIMESTAMP: (-(1 << 63), (1 << 63) - 1),
}
_INT64_MIN, _INT64_MAX = INT_RANGE[T.INT64]
_FLOAT32_MAX = float(np.finfo(np.float32).max)
# The largest magnitude up to which every integer is exact in the float type (its mantissa).
_EXACT_INT_LIMIT = {np.dtype(np.float32): 1 << 24, np.dtype(np.float64): 1 << 53}
# The official package's DATE range (its date utilities refuse other years).
DATE_MIN_YEAR, DATE_MAX_YEAR = 1000, 9999
# _VALID_MONTH_DAY[MMdd] (0..9999): is MMdd a day of some year (0229 too: leap years are checked
# on their own).
_VALID_MONTH_DAY = np.zeros(10000, dtype=bool)
for _month, _days in enumerate((31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31), start=1):
    _VALID_MONTH_DAY[_month * 100 + 1 : _month * 100 + _days + 1] = True
# Length of one datetime64 unit in attoseconds (exact integers for every unit numpy has).
_ATTOSECONDS = {
    "W": 7 * 86400 * 10**18,
    "D": 86400 * 10**18,
    "h": 3600 * 10**18,
    "m": 60 * 10**18,
    "s": 10**18,
    "ms": 10**15,
    "us": 10**12,
    "ns": 10**9,
    "ps": 10**6,
    "fs": 10**3,
    "as": 1,
}
_MILLISECOND = _ATTOSECONDS["ms"]


def mismatch(reason, column=None, row=None) -> TypeMismatchError:
    """A TypeMismatchError whose message says where (column, row) and what; the parts are kept
    as attributes so that a caller can relocate the row (a tablet's rows without a timestamp are
    not handed to the writer)."""
    where = []
    if column is not None:
        where.append(f"column {column!r}")
    if row is not None:
        where.append(f"row {row}")
    exc = TypeMismatchError(f"{', '.join(where)}: {reason}" if where else reason)
    exc.column, exc.row, exc.reason = column, row, reason
    return exc


def _first_bad(bad, present):
    """Index of the first True of `bad` among the present rows, or None."""
    if present is not None:
        bad = bad & present
    if not bad.any():
        return None
    return int(np.argmax(bad))


def _refuse_first(bad, present, column, reason):
    row = _first_bad(bad, present)
    if row is not None:
        raise mismatch(reason, column, row)


def _describe(value) -> str:
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(value).__name__})"


# -- one value (Tablet row API, scalar columns, object arrays) ----------------------------------


def check_value(data_type, value):
    """`value` in the storage form of a data_type column, or TypeMismatchError (without a
    location: the caller knows the column and row). None is not handled here (a null)."""
    if data_type == T.BOOLEAN:
        if isinstance(value, (bool, np.bool_)):
            return bool(value)
        raise mismatch(f"BOOLEAN needs a bool, got {_describe(value)}")
    if data_type == T.DATE:
        return _date_value(value)
    if data_type in INT_RANGE:
        return _int_value(data_type, value)
    if data_type in (T.FLOAT, T.DOUBLE):
        return _float_value(data_type, value)
    if data_type == T.BLOB:
        if isinstance(value, (bytes, bytearray, memoryview)):
            return bytes(value)
        raise mismatch(f"BLOB needs bytes, got {_describe(value)}")
    return _text_value(data_type, value)


def _int_value(data_type, value):
    lo, hi = INT_RANGE[data_type]
    if data_type == T.TIMESTAMP and _is_datetime(value):
        return int(datetimes_to_ms(None, _datetime64_of(value))[0])
    if isinstance(value, (bool, np.bool_)):
        raise mismatch(f"{data_type.name} needs an int, got {_describe(value)}")
    if isinstance(value, (float, np.floating)):
        if not (np.isfinite(value) and float(value).is_integer()):
            raise mismatch(f"{data_type.name} needs an int, got {_describe(value)}")
        value = int(value)
    elif not isinstance(value, (int, np.integer)):
        raise mismatch(f"{data_type.name} needs an int, got {_describe(value)}")
    value = int(value)
    if not lo <= value <= hi:
        raise mismatch(f"{value} is out of the {data_type.name} range [{lo}, {hi}]")
    return value


def _float_value(data_type, value):
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (float, int, np.floating, np.integer)
    ):
        raise mismatch(f"{data_type.name} needs a float, got {_describe(value)}")
    if isinstance(value, (int, np.integer)):
        value = int(value)
        exact = float(value) if abs(value) < 2.0**1023 else None
        if data_type == T.FLOAT and exact is not None:
            exact = float(np.float32(exact)) if abs(exact) <= _FLOAT32_MAX else None
        if exact is None or int(exact) != value:
            raise mismatch(f"the int {value} has no exact {data_type.name} value")
        return exact
    value = float(value)
    if data_type == T.FLOAT and abs(value) > _FLOAT32_MAX and np.isfinite(value):
        with np.errstate(over="ignore"):
            if np.isinf(np.float32(value)):  # as the array path: refused if it becomes infinity
                raise mismatch(f"{value} is out of the FLOAT range")
    return value


def _text_value(data_type, value):
    if isinstance(value, str):
        if not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise mismatch(
                    f"{data_type.name} text is not valid Unicode ({exc.reason} at "
                    f"character {exc.start})"
                ) from None
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        value = bytes(value)
        try:
            value.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise mismatch(
                f"{data_type.name} bytes are not valid UTF-8 (byte {exc.start}); "
                "BLOB is the type for arbitrary bytes"
            ) from None
        return value
    raise mismatch(f"{data_type.name} needs a str, got {_describe(value)}")


def _date_value(value):
    if isinstance(value, np.datetime64):
        # As the array form takes it (_to_date_ints): a whole day of any unit; NaT is a null
        # there, and a present NaT here is refused by _days_to_ints.
        if np.isnat(value):
            raise mismatch("NaT is not a date")
        days = np.asarray([value]).astype("datetime64[D]")
        if days[0] != value:
            raise mismatch(f"DATE needs whole days, got a time of day: {_describe(value)}")
        return int(_days_to_ints(None, days, None)[0])
    if isinstance(value, datetime.datetime) or not isinstance(value, datetime.date):
        raise mismatch(f"DATE needs a datetime.date, got {_describe(value)}")
    if not DATE_MIN_YEAR <= value.year <= DATE_MAX_YEAR:
        raise mismatch(f"{value} is outside the DATE years {DATE_MIN_YEAR}..{DATE_MAX_YEAR}")
    return value.year * 10000 + value.month * 100 + value.day


def _is_datetime(value) -> bool:
    return isinstance(value, (datetime.datetime, np.datetime64))


def _datetime64_of(value) -> np.ndarray:
    """A one-value datetime64 array of a datetime.datetime / pandas.Timestamp / datetime64
    (aware values converted to UTC, naive ones taken as UTC)."""
    if isinstance(value, np.datetime64):
        return np.asarray([value])
    if getattr(value, "tzinfo", None) is not None:
        value = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    to64 = getattr(value, "to_datetime64", None)  # pandas.Timestamp: keeps its nanoseconds
    return np.asarray([to64() if to64 is not None else np.datetime64(value, "us")])


def check_cells(column, data_type, values, present=None):
    """check_value over a sequence (rows whose present is False, or None values, are nulls and
    kept as None); a list of storage values. Raises for the first bad row."""
    out = []
    rows = values if present is None else zip(values, present, strict=True)
    for row, item in enumerate(rows):
        v = item if present is None else (item[0] if item[1] else None)
        if v is None:
            out.append(None)
            continue
        try:
            out.append(check_value(data_type, v))
        except TypeMismatchError as exc:
            raise mismatch(exc.reason, column, row) from None
    return out


# -- whole arrays ----------------------------------------------------------------------------


def to_storage(column, data_type, arr, present=None):
    """(values, present) of one FIELD column given as a 1-D array: values in the storage dtype of
    data_type (object arrays for text, their items checked), present None (no null) or a bool
    array (True = a value). Raises TypeMismatchError for the first row that does not fit."""
    dt = TSDataType(data_type)
    if dt.is_binary:
        check_text_array(column, dt, arr, present)
        return arr, present
    kind = arr.dtype.kind
    if kind == "O":
        return _objects_to_storage(column, dt, arr, present)
    if dt == T.DATE:
        return _to_date_ints(column, arr, present)
    if kind == "M":
        if dt != T.TIMESTAMP:
            _refuse_first(np.ones(arr.shape[0], bool), present, column, f"{dt.name} got datetimes")
            return arr, present
        nat = np.isnat(arr)
        if nat.any():  # NaT in a FIELD column is a null
            present = ~nat if present is None else present & ~nat
        return datetimes_to_ms(column, arr, present), present
    target = dt.numpy_dtype
    if arr.dtype == target:
        return arr, present
    return _cast_numbers(column, dt, arr, present), present


def _objects_to_storage(column, dt, arr, present):
    cells = check_cells(column, dt, arr.tolist(), present)
    if present is None and any(v is None for v in cells):
        present = np.fromiter((v is not None for v in cells), dtype=bool, count=len(cells))
    if present is not None:
        fill = False if dt == T.BOOLEAN else 0
        cells = [fill if v is None else v for v in cells]
    return np.asarray(cells, dtype=dt.numpy_dtype), present


def _cast_numbers(column, dt, arr, present):
    """A numeric array into a numeric column of another dtype, exactly."""
    target = dt.numpy_dtype
    kind = arr.dtype.kind
    if kind == "b" or target.kind == "b" or kind not in "iuf":
        what = "bools" if kind == "b" else f"{arr.dtype} values"
        _refuse_first(np.ones(arr.shape[0], bool), present, column, f"{dt.name} got {what}")
        return np.zeros(arr.shape[0], dtype=target)  # every row is null
    if kind == "f" and arr.dtype.itemsize > 8 and target != np.float32:
        arr = _long_double_to_float64(column, dt, arr, present)
    if target.kind == "i":
        lo, hi = INT_RANGE[dt]
        if kind == "f":
            _check_integral_floats(column, dt, arr, present, lo, hi)
        else:
            _check_int_range(column, dt, arr, present, lo, hi)
    elif kind in "iu":
        _check_exact_in_float(column, dt, arr, present)
    elif target == np.float32:
        return _float64_to_float32(column, arr, present)
    with np.errstate(invalid="ignore", over="ignore"):  # NaN / garbage in null rows
        return arr.astype(target)


def _long_double_to_float64(column, dt, arr, present):
    """A long double array as float64, refusing a value that float64 cannot hold exactly (the
    later checks see float64 only: 1 + 2**-60 would be stored as 1.0, 2**62 + 0.5 as an INT64
    2**62). FLOAT columns round to float32 anyway, so they do not come here."""
    with np.errstate(over="ignore", invalid="ignore"):
        out = arr.astype(np.float64)
        same = (out.astype(arr.dtype) == arr) | (np.isnan(arr) & np.isnan(out))
    row = _first_bad(~same, present)
    if row is not None:
        raise mismatch(f"{arr[row]!r} ({arr.dtype}) has no exact {dt.name} value", column, row)
    return out


def _check_int_range(column, dt, arr, present, lo, hi):
    if arr.size == 0 or (lo <= int(arr.min()) and int(arr.max()) <= hi):
        return
    bad = arr > hi
    if arr.dtype.kind == "i":
        bad |= arr < lo
    row = _first_bad(bad, present)
    if row is not None:
        raise mismatch(f"{arr[row]} is out of the {dt.name} range [{lo}, {hi}]", column, row)


def _check_integral_floats(column, dt, arr, present, lo, hi):
    a = arr.astype(np.float64, copy=False)
    # float(hi) + 1 is 2**31 / 2**63 exactly; NaN fails every comparison.
    ok = (a >= float(lo)) & (a < float(hi) + 1.0)
    ok &= a == np.trunc(a)
    row = _first_bad(~ok, present)
    if row is not None:
        value = float(a[row])
        if np.isfinite(value) and value.is_integer():
            what = f"is out of the {dt.name} range [{lo}, {hi}]"
        else:
            what = f"is not an integer ({dt.name} needs integral values)"
        raise mismatch(f"{value!r} {what}", column, row)


def _check_exact_in_float(column, dt, arr, present):
    target = dt.numpy_dtype
    limit = _EXACT_INT_LIMIT[target]
    if arr.size == 0 or (-limit <= int(arr.min()) and int(arr.max()) <= limit):
        return
    src = np.iinfo(arr.dtype)
    with np.errstate(over="ignore"):
        f = arr.astype(target).astype(np.float64)
    # Round trip through the source dtype where that is defined: exact iff unchanged.
    inside = (f >= float(src.min)) & (f < float(src.max) + 1.0)
    back = np.where(inside, f, 0).astype(arr.dtype)
    row = _first_bad(~inside | (back != arr), present)
    if row is not None:
        raise mismatch(f"the int {arr[row]} has no exact {dt.name} value", column, row)


def _float64_to_float32(column, arr, present):
    with np.errstate(over="ignore", invalid="ignore"):
        out = arr.astype(np.float32)
    inf = np.isinf(out)
    if inf.any():
        row = _first_bad(inf & np.isfinite(arr), present)
        if row is not None:
            raise mismatch(f"{float(arr[row])!r} is out of the FLOAT range", column, row)
    return out


# -- timestamps ------------------------------------------------------------------------------


def to_timestamps(values, column="time") -> np.ndarray:
    """The time column as a contiguous int64 array (milliseconds for datetimes), or
    TypeMismatchError for the first row that is not an exact in-range timestamp (a fractional
    or out-of-range float, NaT, a masked value of a numpy.ma.MaskedArray, None, a bool, a
    string)."""
    if isinstance(values, np.ma.MaskedArray):
        # A masked timestamp is a null: refused (the data under the mask is not a time).
        masked = np.ma.getmaskarray(values)
        if masked.ndim == 1 and masked.any():
            raise mismatch("a null (masked) is not a timestamp", column, int(np.argmax(masked)))
        values = values.data
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"{column} must be 1-D")
    kind = arr.dtype.kind
    if kind == "O":
        arr = _object_times(column, arr)
        kind = arr.dtype.kind
    if kind == "M":
        return np.ascontiguousarray(datetimes_to_ms(column, arr))
    if arr.dtype == np.int64:
        return np.ascontiguousarray(arr)
    if kind in "iuf":
        return np.ascontiguousarray(_cast_numbers(column, T.INT64, arr, None))
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    raise mismatch(f"timestamps must be integers or datetimes, got {arr.dtype}", column, 0)


def _object_times(column, arr) -> np.ndarray:
    """Object timestamps: Python ints, or datetimes (naive = UTC, aware converted)."""
    values = arr.tolist()
    if values and all(_is_datetime(v) for v in values):
        # One datetime64 array (numpy takes the finest unit of the values), checked below.
        return np.concatenate([_datetime64_of(v) for v in values])
    cells = check_cells(column, T.INT64, values)
    row = next((i for i, v in enumerate(cells) if v is None), None)
    if row is not None:
        raise mismatch("a timestamp is missing", column, row)
    return np.asarray(cells, dtype=np.int64)


def datetimes_to_ms(column, arr, present=None) -> np.ndarray:
    """int64 milliseconds since the epoch of a datetime64 array of any unit. A value with a
    sub-millisecond remainder, or one beyond the INT64 millisecond range, is refused; NaT rows
    must be nulls (present False; they come out as 0), a present NaT is refused."""
    if not arr.dtype.isnative:
        # The int64 view below reads the machine's byte order: a big-endian datetime64 array
        # (one read from a file or a network buffer) would give other instants.
        arr = arr.astype(arr.dtype.newbyteorder("="))
    nat = np.isnat(arr)
    _refuse_first(nat, present, column, "NaT is not a timestamp")
    unit, count = np.datetime_data(arr.dtype)
    if unit in ("Y", "M"):  # calendar units: months differ in length
        arr = arr.astype("datetime64[D]")
        unit, count = "D", 1
    if unit not in _ATTOSECONDS:
        raise mismatch(f"datetime64 unit {unit!r} has no fixed length", column)
    raw = arr.view(np.int64)
    step = _ATTOSECONDS[unit] * count
    if step % _MILLISECOND == 0:
        factor = step // _MILLISECOND
        if factor == 1:
            out = raw
        else:
            limit = _INT64_MAX // factor
            _refuse_first(
                ((raw > limit) | (raw < -limit)) & ~nat,
                present,
                column,
                "the datetime is beyond the INT64 millisecond range",
            )
            with np.errstate(over="ignore"):
                out = raw * factor
    elif _MILLISECOND % step == 0:
        divisor = _MILLISECOND // step
        _refuse_first(
            (raw % divisor != 0) & ~nat,
            present,
            column,
            "the datetime has a sub-millisecond part (the file's time precision is "
            "milliseconds; round it first)",
        )
        out = raw // divisor
    else:
        raise mismatch(f"datetime64 unit {count}{unit} is not a whole number of ms", column)
    if nat.any():
        out = np.where(nat, 0, out)
    return out


# -- DATE ------------------------------------------------------------------------------------


def _to_date_ints(column, arr, present):
    """(int32 yyyyMMdd values, present) of a DATE column given as datetime64 or integers."""
    kind = arr.dtype.kind
    if kind == "M":
        nat = np.isnat(arr)
        if nat.any():  # NaT in a DATE column is a null
            present = ~nat if present is None else present & ~nat
        days = arr.astype("datetime64[D]")
        if np.datetime_data(arr.dtype)[0] not in ("Y", "M", "W", "D"):
            _refuse_first(days != arr, present, column, "DATE needs whole days, got a time of day")
        return _days_to_ints(column, days, present), present
    if kind in "iuf":
        if arr.dtype != np.int32:
            arr = _cast_numbers(column, T.DATE, arr, present)
        check_date_ints(column, arr, present)
        return arr, present
    _refuse_first(np.ones(arr.shape[0], bool), present, column, f"DATE got {arr.dtype} values")
    return np.zeros(arr.shape[0], dtype=np.int32), present


def _days_to_ints(column, days, present):
    """yyyyMMdd of datetime64[D] values (whole-array calendar arithmetic)."""
    months = days.astype("datetime64[M]")
    year = days.astype("datetime64[Y]").view(np.int64) + 1970
    month = months.view(np.int64) % 12 + 1
    day = (days - months.astype("datetime64[D]")).view(np.int64) + 1
    bad = (year < DATE_MIN_YEAR) | (year > DATE_MAX_YEAR)
    _refuse_first(
        bad & ~np.isnat(days),
        present,
        column,
        f"the date is outside the DATE years {DATE_MIN_YEAR}..{DATE_MAX_YEAR}",
    )
    with np.errstate(over="ignore"):
        return (year * 10000 + month * 100 + day).astype(np.int32)


def check_date_ints(column, values, present=None) -> None:
    """Refuse the first present yyyyMMdd integer that is not a calendar date in 1000..9999."""
    if values.size == 0:
        return
    # Floor division by a constant is fast in numpy (divmod and % are several times slower), so
    # remainders are taken as x - (x // k) * k.
    year = values // 10000
    month_day = values - year * 10000  # 0..9999
    ok = _VALID_MONTH_DAY[month_day] & (year >= DATE_MIN_YEAR) & (year <= DATE_MAX_YEAR)
    feb29 = month_day == 229
    if feb29.any():  # valid in leap years only (whole-array: faster than a masked update)
        century = year // 100
        leap = ((year & 3) == 0) & ((century * 100 != year) | ((century & 3) == 0))
        ok &= leap | ~feb29
    row = _first_bad(~ok, present)
    if row is not None:
        raise mismatch(
            f"{int(values[row])} is not a yyyyMMdd date (years {DATE_MIN_YEAR}..{DATE_MAX_YEAR})",
            column,
            row,
        )


# -- text ------------------------------------------------------------------------------------


def check_text_array(column, data_type, arr, present=None) -> None:
    """Refuse the first present value of a TEXT/STRING/BLOB array that its column cannot store
    (see the module docstring). All-ASCII str columns are checked by one C-level join."""
    if arr.dtype.kind not in "OUS":
        what = f"{arr.dtype} values"
        _refuse_first(np.ones(arr.shape[0], bool), present, column, f"{data_type.name} got {what}")
        return
    cells = (arr if present is None else arr[present]).tolist()
    if _all_fine(data_type, cells):
        return
    _check_text_cells(column, data_type, arr.tolist(), present)


def _all_fine(data_type, cells) -> bool:
    """True when one C-level join shows every value fits: all bytes-like for BLOB; all str (or
    all bytes) and ASCII for TEXT/STRING (ASCII cannot hold a lone surrogate or bad UTF-8).
    False means: look at each value (numpy str arrays too can hold lone surrogates)."""
    try:
        if data_type == T.BLOB:
            b"".join(cells)  # TypeError unless every value is bytes-like
            return True
        return "".join(cells).isascii()
    except TypeError:
        pass
    try:
        return data_type != T.BLOB and b"".join(cells).isascii()
    except TypeError:
        return False


def _check_text_cells(column, data_type, cells, present):
    check = _text_value if data_type != T.BLOB else (lambda dt, v: check_value(T.BLOB, v))
    keep = None if present is None else present.tolist()
    for row, v in enumerate(cells):
        if v is None or (keep is not None and not keep[row]):
            continue
        try:
            check(data_type, v)
        except TypeMismatchError as exc:
            raise mismatch(exc.reason, column, row) from None


def check_tag_value(column, value, row=None) -> None:
    """A TAG value: a str that encodes to UTF-8 (None is a null tag)."""
    if value is None:
        return
    if not isinstance(value, str):
        raise mismatch(f"TAG values must be str, got {_describe(value)}", column, row)
    try:
        _text_value(T.STRING, value)
    except TypeMismatchError as exc:
        raise mismatch(exc.reason, column, row) from None


__all__ = [
    "mismatch",
    "check_value",
    "check_cells",
    "to_storage",
    "to_timestamps",
    "datetimes_to_ms",
    "check_date_ints",
    "check_text_array",
    "check_tag_value",
]
