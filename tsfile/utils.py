"""The official package's ``tsfile.utils``: ``to_dataframe`` (tsfile.dataframe) and
``dataframe_to_tsfile``, which writes a pandas DataFrame as a new one-table TsFile with a
schema inferred from its dtypes."""

from __future__ import annotations

import datetime
import os

from tsfile.constants import TIME_COLUMN
from tsfile.dataframe import to_dataframe
from tsfile.types import ColumnCategory, TSDataType

DEFAULT_TABLE_NAME = "default_table"


def _find_column(dataframe, name) -> str | None:
    """The DataFrame column named ``name`` case-insensitively (the exact spelling first)."""
    if name in dataframe.columns:
        return name
    lowered = str(name).lower()
    for c in dataframe.columns:
        if str(c).lower() == lowered:
            return c
    return None


def infer_object_column_type(column_series) -> TSDataType:
    """The TsFile data type of a column of Python objects, from its first non-null value (the
    official helper of ``tsfile.tsfile_table_writer``): bytes BLOB, datetime.date DATE, bool
    BOOLEAN, str STRING; STRING for a column without values. A datetime.datetime is refused
    (TypeError) rather than cut to its date."""
    first = column_series.first_valid_index()
    if first is None:
        return TSDataType.STRING
    value = column_series[first]
    if isinstance(value, (bytes, bytearray)):
        return TSDataType.BLOB
    if isinstance(value, datetime.date) and not isinstance(value, datetime.datetime):
        return TSDataType.DATE
    if isinstance(value, bool):
        return TSDataType.BOOLEAN
    if isinstance(value, str):
        return TSDataType.STRING
    raise TypeError(
        f"column {column_series.name!r}: no TsFile data type for values of type "
        f"{type(value).__name__} (expected str, bytes, datetime.date or bool)"
    )


def validate_dataframe_for_tsfile(df) -> None:
    """Check a DataFrame before it is written (the official helper): not None or empty, every
    column named (not None, NaN or ""), names unique case-insensitively, every dtype one a
    TsFile column can hold. Raises ValueError saying which columns are wrong."""
    import pandas as pd

    if df is None or df.empty:
        raise ValueError("DataFrame cannot be None or empty")
    seen, duplicates = set(), []
    for name in df.columns:
        if name is None or name == "" or (not isinstance(name, str) and pd.isna(name)):
            raise ValueError("Column name cannot be None or empty")
        key = str(name).lower()
        if key in seen:
            duplicates.append(name)
        seen.add(key)
    if duplicates:
        raise ValueError(
            f"Column names must be unique (case-insensitive). Duplicate columns: {duplicates}"
        )
    unsupported = []
    for position, name in enumerate(df.columns):
        try:
            _column_type(df.iloc[:, position], name)
        except TypeError as exc:
            unsupported.append(f"  - {name}: dtype={df.iloc[:, position].dtype} ({exc})")
    if unsupported:
        raise ValueError("Data types not supported by tsfile:\n" + "\n".join(unsupported))


def _column_type(series, name) -> TSDataType:
    """The TsFile data type of a DataFrame column, from its dtype (object columns: from their
    values). Nullable pandas dtypes map as their numpy counterparts."""
    import pandas as pd

    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype):
        return TSDataType.BOOLEAN
    if pd.api.types.is_string_dtype(dtype) or pd.api.types.is_object_dtype(dtype):
        return infer_object_column_type(series)
    try:
        return TSDataType.from_pandas_datatype(dtype)
    except TypeError:
        raise TypeError(f"column {name!r}: no TsFile data type for dtype {dtype}") from None


def _time_series(dataframe, time_column):
    """(name of the time column in the file, DataFrame with that column first): ``time_column``
    if given, else a column named ``time`` in any case, else the index."""
    import pandas as pd

    if time_column is not None:
        found = _find_column(dataframe, time_column)
        if found is None:
            raise ValueError(f"Time column '{time_column}' not found in DataFrame")
        return str(found), dataframe
    found = _find_column(dataframe, TIME_COLUMN)
    if found is not None:
        return str(found), dataframe
    frame = dataframe.copy(deep=False)
    frame.insert(0, TIME_COLUMN, pd.Series(dataframe.index.to_numpy(), index=dataframe.index))
    return TIME_COLUMN, frame


def dataframe_to_tsfile(
    dataframe,
    file_path,
    table_name: str | None = None,
    time_column: str | None = None,
    tag_column: list[str] | None = None,
) -> None:
    """Write ``dataframe`` as a new TsFile holding one table (``default_table`` unless
    ``table_name`` is given), as the official function does.

    The time column is ``time_column``, else a column named ``time`` (any case), else the index;
    it must hold integers (milliseconds) and becomes the table's TIME column. ``tag_column``
    names the TAG columns; every other column is a FIELD. Types come from the dtypes: bool
    BOOLEAN, int32 INT32, other integers INT64, float32 FLOAT, float64 DOUBLE; object columns by
    their values: str STRING, bytes BLOB, datetime.date DATE. Missing values are nulls.

    Raises ValueError for an empty DataFrame, a missing time or tag column or no data column,
    TypeError for a non-integer time column, AlreadyExistsError when ``file_path`` exists."""
    import pandas as pd

    from tsfile.schema import ColumnSchema, TableSchema
    from tsfile.writer import TsFileTableWriter

    validate_dataframe_for_tsfile(dataframe)
    time_name, frame = _time_series(dataframe, time_column)
    if not pd.api.types.is_integer_dtype(frame[time_name].dtype):
        raise TypeError(
            f"Time column '{time_name}' must be integer type, got {frame[time_name].dtype}"
        )
    tags = []
    for tag in tag_column or []:
        found = _find_column(frame, tag)
        if found is None:
            raise ValueError(f"Tag column '{tag}' not found in DataFrame")
        tags.append(found)
    data_columns = [c for c in frame.columns if c != time_name]
    if not data_columns:
        raise ValueError("DataFrame must have at least one data column besides the time column")
    columns = [ColumnSchema(time_name, TSDataType.TIMESTAMP, ColumnCategory.TIME)]
    for c in data_columns:
        category = ColumnCategory.TAG if c in tags else ColumnCategory.FIELD
        data_type = _column_type(frame[c], c)
        if category == ColumnCategory.TAG and data_type != TSDataType.STRING:
            raise TypeError(f"Tag column '{c}' must hold strings, got {frame[c].dtype}")
        columns.append(ColumnSchema(str(c), data_type, category))
    schema = TableSchema(table_name or DEFAULT_TABLE_NAME, columns)
    with TsFileTableWriter(os.fspath(file_path), schema) as writer:
        writer.write_dataframe(frame)


__all__ = [
    "to_dataframe",
    "dataframe_to_tsfile",
    "infer_object_column_type",
    "validate_dataframe_for_tsfile",
]
