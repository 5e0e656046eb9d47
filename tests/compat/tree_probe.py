"""Exercise the tree-model API of whichever `tsfile` package is importable and print what it saw
as JSON (run by tests/compat/test_tree_api.py with our package and with the official 2.5 wheel,
so that a difference in behaviour shows up as a failing test).

    python tests/compat/tree_probe.py OUT_DIR    # writes OUT_DIR/probe.tsfile and probe.json

Only public names shared by both packages are used; every observation is a JSON value.
"""

from __future__ import annotations

import datetime
import json
import os
import sys

import tsfile
from tsfile import (
    DeviceSchema,
    Field,
    RowRecord,
    Tablet,
    TimeseriesSchema,
    TSDataType,
    TsFileReader,
    TsFileWriter,
)

T = TSDataType


def _raises(fn) -> bool:
    try:
        fn()
    except Exception:  # noqa: BLE001 - the observation is only whether it raised
        return True
    return False


def _try(fn):
    """["ok", value] or ["raised", exception class name]."""
    try:
        return ["ok", fn()]
    except Exception as exc:  # noqa: BLE001
        return ["raised", type(exc).__name__]


def schema_observations() -> dict:
    s = TimeseriesSchema("Temp", T.DOUBLE)
    d = DeviceSchema("root.sg1.d1", [s, TimeseriesSchema("n", T.INT32)])
    return {
        "ts_repr": repr(s),
        "ts_getters": [
            s.get_timeseries_name(),
            s.get_data_type().name,
            s.get_encoding_type().name,
            s.get_compression_type().name,
        ],
        "dev_repr": repr(d),
        "dev_name": d.get_device_name(),
        "dev_series": [x.get_timeseries_name() for x in d.get_timeseries_list()],
    }


def field_observations() -> dict:
    f32 = Field("a", 10, T.INT32)
    big = Field("b", 2**31, T.INT64)
    untyped = Field("t", 100)
    untyped.set_value(200)
    untyped.set_data_type(T.DOUBLE)
    return {
        "int32_long": int(f32.get_long_value()),
        "int32_string": f32.get_string_value(),
        "int32_double": float(f32.get_double_value()),
        "big_int_overflows": _raises(big.get_int_value),
        "big_timestamp": int(big.get_timestamp_value()),
        "string_int_raises": _raises(Field("s", "x", T.STRING).get_int_value),
        "set_then_float": float(untyped.get_float_value()),
        "null_int": Field("n", None, T.INT32).get_int_value(),
        "is_null": [Field("n", None, T.INT32).is_null(), f32.is_null()],
        "blob_bytes": Field("z", b"ab", T.BLOB).get_bytes_value().hex(),
        "date": _try(lambda: str(Field("d", datetime.date(2024, 1, 4), T.DATE).get_date_value())),
        "bool": Field("b", True, T.BOOLEAN).get_bool_value(),
    }


def row_record_observations() -> dict:
    r = RowRecord("root.a.b", 10, [Field("x", 1, T.INT32)])
    r.set_timestamp(11)
    r.set_device_id("root.a.c")
    return {
        "num": r.get_fields_num(),
        "ts": r.get_timestamp(),
        "dev": r.get_device_id(),
        "field": r.get_fields()[0].get_field_name(),
    }


def write_probe_file(path: str) -> dict:
    w = TsFileWriter(path)
    w.register_timeseries("root.sg1.d1", TimeseriesSchema("a", T.INT64))
    w.register_timeseries("root.sg1.d1", TimeseriesSchema("b", T.DOUBLE))
    w.register_device(
        DeviceSchema(
            "root.sg1.d2",
            [TimeseriesSchema("a", T.INT64), TimeseriesSchema("s", T.STRING)],
        )
    )
    twice = _raises(lambda: w.register_timeseries("root.sg1.d1", TimeseriesSchema("a", T.INT64)))
    unknown_device = _raises(
        lambda: w.write_row_record(RowRecord("root.nope", 1, [Field("a", 1, T.INT64)]))
    )
    for i in range(6):
        fields = [Field("a", i * 10, T.INT64)]
        if i % 2 == 0:
            fields.append(Field("b", i * 0.5, T.DOUBLE))
        w.write_row_record(RowRecord("root.sg1.d1", 100 + i, fields))
    tab = Tablet(["a", "s"], [T.INT64, T.STRING], 4)
    tab.set_table_name("root.sg1.d2")
    for r in range(4):
        tab.add_timestamp(r, 200 + r)
        tab.add_value_by_index(0, r, -r)
        if r != 2:
            tab.add_value_by_index(1, r, f"s{r}")
    w.write_tablet(tab)
    w.close()
    return {"register_twice_raises": twice, "unknown_device_raises": unknown_device}


def _rows(rs) -> list:
    names = rs.get_metadata().get_column_list()
    out = []
    while rs.next():
        out.append([rs.get_value_by_index(i) for i in range(1, len(names) + 1)])
    return [names, out]


def _locator(ts) -> list:
    return [
        ts.value_metadata_offset,
        ts.value_metadata_length,
        ts.time_metadata_offset,
        ts.time_metadata_length,
        ts.time_chunk_meta_count,
        ts.layout,
        ts.locator_flags,
    ]


def table_metadata_observations(out_dir: str) -> dict:
    """get_timeseries_metadata of a table-model (aligned) file: the time column's records and
    the timeline statistics (a null in y: its own count is smaller)."""
    from tsfile import ColumnCategory, ColumnSchema, TableSchema, TsFileTableWriter

    path = os.path.join(out_dir, "probe_table.tsfile")
    if os.path.exists(path):
        os.remove(path)
    schema = TableSchema(
        "t",
        [
            ColumnSchema("dev", T.STRING, ColumnCategory.TAG),
            ColumnSchema("x", T.INT64, ColumnCategory.FIELD),
            ColumnSchema("y", T.DOUBLE, ColumnCategory.FIELD),
        ],
    )
    with TsFileTableWriter(path, schema) as w:
        tab = Tablet(["dev", "x", "y"], [T.STRING, T.INT64, T.DOUBLE], 5)
        for i in range(5):
            tab.add_timestamp(i, 10 + i)
            tab.add_value_by_index(0, i, "a")
            tab.add_value_by_index(1, i, i)
            if i != 2:
                tab.add_value_by_index(2, i, i * 0.5)
        w.write_table(tab)
    out = {}
    with TsFileReader(path) as r:
        for key, group in r.get_timeseries_metadata().items():
            for ts in group.timeseries:
                out[f"{'|'.join(key)}|{ts.measurement_name}"] = [
                    ts.statistic.row_count,
                    list(vars(ts.timeline_statistic).values()),
                    _locator(ts),
                ]
    return out


def read_observations(path: str) -> dict:
    out = {}
    with TsFileReader(path) as r:
        schemas = r.get_all_timeseries_schemas()
        out["schemas"] = {k: repr(v) for k, v in sorted(schemas.items())}
        with r.query_timeseries("root.sg1.d1", ["a", "b"], 0, 1000) as rs:
            out["d1"] = _rows(rs)
        with r.query_timeseries("root.sg1.d2", ["s", "a"], 201, 202) as rs:
            out["d2_range"] = _rows(rs)
        with r.query_table_on_tree(["a", "b"], 0, 1000) as rs:
            out["on_tree"] = _rows(rs)
        meta = r.get_timeseries_metadata()
        out["meta"] = {}
        for key, group in sorted(meta.items()):
            series = {}
            for ts in group.timeseries:
                st = ts.statistic
                fields = {
                    k: v
                    for k, v in vars(st).items()
                    if k in ("row_count", "start_time", "end_time", "has_statistic")
                    or k.startswith(("min_", "max_", "first_", "last_", "str_"))
                    or k == "sum"
                }
                series[ts.measurement_name] = [
                    type(st).__name__,
                    ts.data_type.name,
                    ts.chunk_meta_count,
                    fields,
                    type(ts.timeline_statistic).__name__,
                    _locator(ts),
                ]
            out["meta"]["|".join(key)] = [group.table_name, list(group.segments), series]
    df = tsfile.to_dataframe(path)
    out["df_columns"] = sorted(df.columns)
    out["df_shape"] = list(df.shape)
    out["df_a"] = sorted(int(x) for x in df["a"])
    return out


def main(out_dir: str) -> None:
    path = os.path.join(out_dir, "probe.tsfile")
    if os.path.exists(path):
        os.remove(path)
    obs = {
        "schema": schema_observations(),
        "field": field_observations(),
        "row_record": row_record_observations(),
        "write": write_probe_file(path),
    }
    obs["read"] = read_observations(path)
    obs["table_metadata"] = table_metadata_observations(out_dir)
    # a file, not stdout: the official to_dataframe prints to stdout
    with open(os.path.join(out_dir, "probe.json"), "w", encoding="utf-8") as f:
        json.dump(obs, f, sort_keys=True, default=str)


if __name__ == "__main__":
    main(sys.argv[1])
