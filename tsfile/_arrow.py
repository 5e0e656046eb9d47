"""Arrow export through the PyCapsule stream interface (``__arrow_c_stream__``), so pyarrow,
polars, duckdb and pandas take a query's result without a copy into Python objects.

A stream is a ``pyarrow.RecordBatchReader`` over the query's blocks, with a schema fixed before
the first block (an empty result still has its columns' types): ``time`` int64 (the file's
milliseconds, as tsfile.read_arrow), BOOLEAN bool, INT32 int32, INT64 int64, FLOAT float32,
DOUBLE float64, TIMESTAMP ``timestamp[ms]``, DATE ``date32``, TEXT/STRING ``string``, BLOB
``binary``; nulls are validity bitmaps. The values are converted by tsfile.dataframe's
``_arrow_array`` (one conversion for every Arrow path). pyarrow is imported on first use.
"""

from __future__ import annotations

from tsfile.types import TSDataType


def arrow_type(dtype):
    """The pyarrow type of a column of TSDataType ``dtype``."""
    import pyarrow as pa

    t = TSDataType(dtype)
    types = {
        TSDataType.BOOLEAN: pa.bool_(),
        TSDataType.INT32: pa.int32(),
        TSDataType.INT64: pa.int64(),
        TSDataType.FLOAT: pa.float32(),
        TSDataType.DOUBLE: pa.float64(),
        TSDataType.TEXT: pa.string(),
        TSDataType.STRING: pa.string(),
        TSDataType.BLOB: pa.binary(),
        TSDataType.DATE: pa.date32(),
        TSDataType.TIMESTAMP: pa.timestamp("ms"),
    }
    if t not in types:
        from tsfile.errors import UnsupportedError

        raise UnsupportedError(f"no Arrow type for TsFile data type {t.name}")
    return types[t]


def schema_for(names, types):
    """The pyarrow.Schema of a result: ``names[0]`` is the time column (int64)."""
    import pyarrow as pa

    fields = [pa.field(names[0], pa.int64())]
    fields += [pa.field(n, arrow_type(t)) for n, t in zip(names[1:], types[1:], strict=True)]
    return pa.schema(fields)


def block_batch(blk, names, types, schema):
    """A TsBlock as a pyarrow.RecordBatch of ``schema``. Columns of ``names`` the block lacks
    (a file without the column, schema="union") are all null."""
    import pyarrow as pa

    from tsfile.dataframe import _arrow_array

    n = len(blk.timestamps)
    origins = getattr(blk, "origins", None) or {}
    arrays = [pa.array(blk.timestamps, pa.int64())]
    for name, t, f in zip(names[1:], types[1:], list(schema)[1:], strict=True):
        if name in blk.columns:
            arr = _arrow_array(blk.columns[name], blk.nulls.get(name), t, name, origins.get(name))
            arrays.append(arr if arr.type == f.type else arr.cast(f.type))
        else:
            arrays.append(pa.nulls(n, f.type))
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def blocks_reader(next_block, names, types):
    """A pyarrow.RecordBatchReader over the blocks ``next_block()`` returns until None."""
    import pyarrow as pa

    schema = schema_for(names, types)

    def batches():
        while (blk := next_block()) is not None:
            yield block_batch(blk, names, types, schema)

    return pa.RecordBatchReader.from_batches(schema, batches())


def result_set_stream(next_block, names, types, requested_schema=None):
    """``ResultSet.__arrow_c_stream__``: the rest of the result set's blocks as an Arrow C
    stream capsule (consuming them, as reading the blocks does)."""
    return blocks_reader(next_block, names, types).__arrow_c_stream__(requested_schema)


__all__ = ["arrow_type", "schema_for", "block_batch", "blocks_reader", "result_set_stream"]
