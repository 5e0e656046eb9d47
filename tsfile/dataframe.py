"""Whole-result conveniences: ``read_table`` (numpy), ``to_dataframe`` (pandas, the official
function's signature and result) and ``read_arrow`` / ResultSet.read_arrow_batch (pyarrow, only
imported when asked for).

TEXT/STRING columns hold the str the reader decoded: text that is not valid UTF-8 has already
raised CorruptDataError there (the reader's one text policy), so no str reaching pyarrow or
pandas can hold surrogates. ATTRIBUTE columns come as all-null columns (tsfile.reader)."""

from __future__ import annotations

import contextlib

import numpy as np

from tsfile._args import int_arg
from tsfile._dataset.hook import many_files
from tsfile.errors import ColumnNotExistError, CorruptDataError, TableNotExistError
from tsfile.exceptions import InvalidArgumentError
from tsfile.types import ColumnCategory, TSDataType

_OFFICIAL_ITER_ROWS = 1024  # the official read_data_frame() default batch


def _open(path):
    """A reader of ``path``, closed by its ``with``; given an open TsFileReader (the multi-file
    reads plan and read with one reader per file), that reader, left open."""
    from tsfile.reader import TsFileReader

    if isinstance(path, TsFileReader):
        return contextlib.nullcontext(path)
    return TsFileReader(path)


def _resolve_table(reader, table_name):
    from tsfile.reader import _table_name_arg

    _table_name_arg(table_name)
    schemas = reader.get_all_table_schemas()
    if table_name is None:
        if not schemas:
            raise TableNotExistError(f"{reader._path} holds no table (a tree-model file?)")
        return next(iter(schemas))
    try:
        return reader._table_key(table_name)  # as listed, else lower-cased (the reader's rule)
    except TableNotExistError:
        raise TableNotExistError(f"Table '{table_name.lower()}' does not exist") from None


# -- DATE values ---------------------------------------------------------------------------------


def _invalid_date(values, mask):
    """The first non-null value of an int32 yyyyMMdd array that is no date (datetime.date's
    years 1..9999), or None. Whole-array numpy work, on the conversion path only."""
    v = np.asarray(values, np.int64)
    y, mo, d = v // 10000, v // 100 % 100, v % 100
    good = (y >= 1) & (y <= 9999) & (mo >= 1) & (mo <= 12) & (d >= 1)
    month = np.where(good, (y - 1970) * 12 + (mo - 1), 0).astype("datetime64[M]")
    days_in_month = ((month + 1).astype("datetime64[D]") - month.astype("datetime64[D]")).astype(
        np.int64
    )
    bad = ~(good & (d <= days_in_month))
    if mask is not None:
        bad &= ~mask
    return int(v[np.argmax(bad)]) if bad.any() else None


def _check_dates(values, mask, name, locate):
    """CorruptDataError for an invalid DATE value, naming where it was read from: ``locate`` is
    a file offset, or a callable (column, value) -> offset (a second, error-path-only read)."""
    bad = _invalid_date(values, mask)
    if bad is None:
        return
    at = locate(name, bad) if callable(locate) else locate
    where = "file offset unknown" if at is None else f"its values come from file offset {at}"
    raise CorruptDataError(
        f"DATE value {bad} is not a valid yyyyMMdd date (column {name!r}; {where})"
    )


def _date_locator(path, table, start_time, end_time):
    """(column, value) -> the file offset of the chunk that holds the value, found by querying
    the column again block by block (blocks know their chunks)."""

    def locate(column, value):
        try:
            with _open(path) as r, r.query_table(table, [column], start_time, end_time) as rs:
                while (b := rs.get_next_tsblock()) is not None:
                    hit = b.columns[column] == value
                    m = b.nulls.get(column)
                    if m is not None:
                        hit &= ~m
                    if hit.any():
                        return (b.origins or {}).get(column)
        except Exception:  # noqa: BLE001 - only an error message is being built
            return None
        return None

    return locate


@many_files("read_table")
def read_table(
    path,
    table_name=None,
    column_names=None,
    start_time=None,
    end_time=None,
    decode_path="auto",
    tag_filter=None,
    value_filter=None,
    threads=1,
):
    """The whole query result as ``{"time": int64 array, column: array, ...}``.

    Columns come in the order asked for (all non-time columns of the schema by default). Columns
    with nulls are ``numpy.ma.MaskedArray`` (mask True = null); TEXT/STRING are object arrays of
    str (None for null), BLOB of bytes, DATE int32 ``yyyyMMdd``, BOOLEAN bool. The arrays are
    decoded in place: no per-block copies. ``tag_filter`` / ``value_filter`` as in
    TsFileReader.query_table. ``threads``: decode chunk groups and columns on that many threads
    (1 by default: the caller may already run reads in parallel; None: one per core); the
    result is the same for any number.
    """
    with _open(path) as r:
        table = _resolve_table(r, table_name)
        names, types, ts, cols, nulls = r.read_columns(
            table,
            column_names,
            start_time,
            end_time,
            decode_path,
            tag_filter,
            value_filter,
            threads,
        )
    out = {"time": ts}
    for n in names[1:]:
        v = cols[n]
        m = nulls.get(n)
        if m is not None and v.dtype != object:
            v = np.ma.MaskedArray(v, mask=m)
        out[n] = v
    return out


# -- pandas --------------------------------------------------------------------------------------


def _date_objects(ints, mask):
    """int32 yyyyMMdd -> object array of datetime.date (None where masked; the values were
    checked by _check_dates, masked ones may be anything)."""
    from tsfile.types import int_to_date

    out = np.empty(len(ints), dtype=object)
    if len(ints) == 0:
        return out
    if mask is not None:
        ints = np.where(mask, 19700101, ints)
    uniq, inv = np.unique(ints, return_inverse=True)
    objs = np.empty(len(uniq), dtype=object)
    for i, u in enumerate(uniq.tolist()):
        objs[i] = int_to_date(u)
    out[:] = objs[inv]
    if mask is not None:
        out[mask] = None
    return out


def _masked_objects(values, mask):
    """An object column (TEXT/STRING/BLOB) for pandas with None in every masked cell. The mask
    is what says null: a cell under it may hold anything (the tree as a table fills the
    columns a device lacks from a zeroed array), and a value there would be shown as data (0
    in a STRING column). The caller's array is copied only when a masked cell holds a value;
    the test is one C loop over the column (pandas.isna), not a Python one over its nulls."""
    if mask is None or not mask.any():
        return values
    import pandas as pd

    values = np.asarray(values, dtype=object)
    held = mask & ~pd.isna(values)
    if not held.any():
        return values
    values = values.copy()
    values[held] = None
    return values


def _pandas_column(values, mask, dtype, name=None, locate=None):
    """A nullable pandas array as the official to_dataframe makes them (Int32/Int64/Float32/
    Float64/boolean, object for text, blobs and dates), built without copying the values."""
    import pandas as pd

    t = TSDataType(dtype)
    n = len(values)
    m = np.zeros(n, np.bool_) if mask is None else mask
    if t in (TSDataType.INT32, TSDataType.INT64, TSDataType.TIMESTAMP, TSDataType.VECTOR):
        return pd.arrays.IntegerArray(values, m)
    if t in (TSDataType.FLOAT, TSDataType.DOUBLE):
        return pd.arrays.FloatingArray(values, m)
    if t == TSDataType.BOOLEAN:
        return pd.arrays.BooleanArray(values, m)
    if t == TSDataType.DATE:
        _check_dates(values, mask, name, locate)
        values = _date_objects(values, mask)
    else:
        values = _masked_objects(values, mask)
    # object columns stay object (pandas 3 would infer its string dtype; the official gives object)
    return pd.Series(values, dtype=object, copy=False)


def _frame(names, types, ts, cols, nulls, rename_time=None, locate=None):
    import pandas as pd

    data = {"time": _pandas_column(ts, None, TSDataType.INT64)}
    for n, t in zip(names[1:], types[1:], strict=True):
        data[n] = _pandas_column(cols[n], nulls.get(n), t, n, locate)
    index = pd.RangeIndex(len(ts))
    data = {
        k: (v if isinstance(v, pd.Series) else pd.Series(v, index=index, copy=False))
        for k, v in data.items()
    }
    df = pd.DataFrame(data, copy=False)
    if rename_time:
        df = df.rename(columns={"time": rename_time})
    return df


def blocks_to_dataframe(blocks, names, types):
    """Consecutive TsBlocks of one result as one DataFrame (ResultSet.read_data_frame): the
    columns and nullable dtypes of to_dataframe; an empty DataFrame with the columns named when
    there are no blocks."""
    for blk in blocks:  # an invalid DATE is reported with the offset its block knows
        origins = getattr(blk, "origins", None) or {}
        for n, t in zip(names[1:], types[1:], strict=True):
            if TSDataType(t) == TSDataType.DATE:
                _check_dates(blk.columns[n], blk.nulls.get(n), n, origins.get(n))
    if len(blocks) == 1:
        blk = blocks[0]
        return _frame(names, types, blk.timestamps, blk.columns, blk.nulls)
    ts = np.concatenate([b.timestamps for b in blocks]) if blocks else np.empty(0, np.int64)
    cols, nulls = {}, {}
    for n, t in zip(names[1:], types[1:], strict=True):
        if blocks:
            cols[n] = np.concatenate([np.asarray(b.columns[n]) for b in blocks])
        else:
            cols[n] = np.empty(0, TSDataType(t).numpy_dtype)
        if any(n in b.nulls for b in blocks):
            nulls[n] = np.concatenate([b.nulls.get(n, np.zeros(len(b), np.bool_)) for b in blocks])
    return _frame(names, types, ts, cols, nulls)


@many_files("to_dataframe")
def to_dataframe(
    file_path,
    table_name=None,
    column_names=None,
    start_time=None,
    end_time=None,
    max_row_num=None,
    as_iterator=False,
    tag_filter=None,
    value_filter=None,
    threads=1,
):
    """The official ``tsfile.to_dataframe``: a DataFrame of a table (the first table when
    ``table_name`` is None) with ``time`` first, then the columns (all by default), nullable
    pandas dtypes; or, with ``as_iterator``, an iterator of DataFrames of ``max_row_num`` rows
    (1024 by default, like the official reader's batches). ``tag_filter`` / ``value_filter``
    as in TsFileReader.query_table; ``threads`` as for read_table (not an official argument)."""
    _row_limit(max_row_num, as_iterator)  # a bad value raises before the file is read
    with _open(file_path) as r:
        if table_name is None and not r.get_all_table_schemas() and r.get_all_devices():
            # a tree-model file: read as one table, as the official function does
            names, types, ts, cols, nulls = r.read_tree_columns(column_names, start_time, end_time)
            return _shaped(_frame(names, types, ts, cols, nulls), max_row_num, as_iterator)
        table = _resolve_table(r, table_name)
        schema = r.get_table_schema(table)
        time_col = None
        in_file = []
        for c in schema.columns:
            if c.category == ColumnCategory.TIME:
                time_col = c.column_name
            else:
                in_file.append(c.column_name)
        # a name of another type is no column (ColumnNotExistError below), not an AttributeError
        req = (
            None
            if column_names is None
            else [c.lower() if isinstance(c, str) else c for c in column_names]
        )
        if req is not None:
            for c in req:
                if c not in in_file and c != time_col:
                    raise ColumnNotExistError(f"Column '{c}' does not exist")
        query = [c for c in req if c != time_col] if req is not None else in_file
        names, types, ts, cols, nulls = r.read_columns(
            table,
            query,
            start_time,
            end_time,
            tag_filter=tag_filter,
            value_filter=value_filter,
            threads=threads,
        )
    rename = time_col if (time_col is not None and (req is None or time_col not in req)) else None
    if req is not None and time_col is not None and time_col in req:
        rename = None
    locate = _date_locator(file_path, table, start_time, end_time)
    df = _frame(names, types, ts, cols, nulls, rename, locate)
    if req is not None and time_col is not None and time_col in req:
        # asked for by name, the TIME column is both "time" and its own name, as in the
        # official function (before: only "time", so df[time_col] was a KeyError)
        df.insert(1, time_col, df["time"].copy())
        df = df[["time", *dict.fromkeys(req)]]
    if req is not None:
        has_field = any(schema.get_column(c).category == ColumnCategory.FIELD for c in req)
        if not has_field:
            # the official function then queries every column and keeps time + the asked ones
            df = df[["time", *[c for c in req if c != "time"]]] if "time" in df else df
    return _shaped(df, max_row_num, as_iterator)


def _shaped(df, max_row_num, as_iterator):
    """to_dataframe's result from the whole frame: an iterator of max_row_num-row frames, or
    at most max_row_num rows (an empty result is an empty DataFrame, as the official's)."""
    limit = _row_limit(max_row_num, as_iterator)
    if as_iterator:
        step = _OFFICIAL_ITER_ROWS if limit is None else limit
        return (df.iloc[i : i + step].reset_index(drop=True) for i in range(0, len(df), step))
    if len(df) == 0 or (limit is not None and limit <= 0):
        import pandas as pd

        return pd.DataFrame()  # the official function returns this for no rows and for <= 0
    if limit is not None and len(df) > limit:
        df = df.iloc[:limit]
    return df


def _row_limit(max_row_num, as_iterator):
    """to_dataframe's ``max_row_num`` checked: None or an int (``df.iloc[:-1]`` of a negative
    one dropped the last row, silently). Batches of an iterator hold at least one row (the
    official function, given 0 or less, yields the rows one frame each)."""
    if max_row_num is None:
        return None
    limit = int_arg("max_row_num", max_row_num)
    if as_iterator and limit < 1:
        raise InvalidArgumentError(
            f"max_row_num must be >= 1 with as_iterator=True (the rows of each batch), got {limit}"
        )
    return limit


# -- arrow ---------------------------------------------------------------------------------------


def _arrow_array(values, mask, dtype, name=None, locate=None):
    import pyarrow as pa

    t = TSDataType(dtype)
    if t == TSDataType.DATE:
        _check_dates(values, mask, name, locate)  # else they would become other dates
        v = values.astype(np.int64)
        y, mo, d = v // 10000, v // 100 % 100, v % 100
        ok = (mo >= 1) & (mo <= 12) & (d >= 1) & (d <= 31)
        if mask is not None:
            ok &= ~mask
        y, mo, d = np.where(ok, y, 1970), np.where(ok, mo, 1), np.where(ok, d, 1)
        days = ((y - 1970).astype("datetime64[Y]").astype("datetime64[M]") + (mo - 1)).astype(
            "datetime64[D]"
        ) + (d - 1)
        return pa.array(days, pa.date32(), mask=None if mask is None else mask)
    # TEXT/STRING/BLOB: the mask makes the nulls, whatever a masked cell holds (the tree as a
    # table leaves 0 there; pyarrow refused it as a str/bytes value)
    if t in (TSDataType.TEXT, TSDataType.STRING):
        return pa.array(values, pa.string(), from_pandas=True, mask=mask)
    if t == TSDataType.BLOB:
        return pa.array(values, pa.binary(), from_pandas=True, mask=mask)
    if t == TSDataType.TIMESTAMP:  # milliseconds, the writers' time unit
        return pa.array(values, pa.timestamp("ms"), mask=mask)
    if mask is not None:
        return pa.array(values, mask=mask)
    return pa.array(values)


def block_to_arrow(blk, names, types):
    """A TsBlock as a pyarrow.Table (time int64, then the columns)."""
    import pyarrow as pa

    arrays = [pa.array(blk.timestamps)]
    for n, t in zip(names[1:], types[1:], strict=True):
        origin = (getattr(blk, "origins", None) or {}).get(n)
        arrays.append(_arrow_array(blk.columns[n], blk.nulls.get(n), t, n, origin))
    return pa.Table.from_arrays(arrays, names=list(names))


@many_files("read_arrow")
def read_arrow(
    path,
    table_name=None,
    column_names=None,
    start_time=None,
    end_time=None,
    tag_filter=None,
    value_filter=None,
    threads=1,
):
    """The whole query result as one pyarrow.Table (needs pyarrow). ``tag_filter`` /
    ``value_filter`` as in TsFileReader.query_table; ``threads`` as for read_table."""
    import pyarrow as pa

    with _open(path) as r:
        table = _resolve_table(r, table_name)
        names, types, ts, cols, nulls = r.read_columns(
            table,
            column_names,
            start_time,
            end_time,
            tag_filter=tag_filter,
            value_filter=value_filter,
            threads=threads,
        )
    arrays = [pa.array(ts)]
    locate = _date_locator(path, table, start_time, end_time)
    for n, t in zip(names[1:], types[1:], strict=True):
        arrays.append(_arrow_array(cols[n], nulls.get(n), t, n, locate))
    return pa.Table.from_arrays(arrays, names=list(names))


__all__ = ["read_table", "to_dataframe", "read_arrow", "block_to_arrow", "blocks_to_dataframe"]
