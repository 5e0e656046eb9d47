"""Read a whole TsFile with the official Apache `tsfile` package and dump it as typed JSON.

Runs ONLY under the official package's virtualenv (official_env.py), as a subprocess:

    <official python> -I tests/interop/official_read.py FILE.tsfile OUT.json

Output (see typed_json.py for the cell encoding):

    {"format": ..., "file": ..., "tables": [SERIES...], "devices": [SERIES...]}
    SERIES = {"name", "columns": [names], "types": [TSDataType names],
              "categories": [TIME/TAG/FIELD], "data": {column: [cells]}}

Tables: every table of the file in schema order, `query_table(table, all columns)` over the whole
time range, rows in the reader's order (devices in index order, time order within a device).
Tree-model devices (devices that belong to no table): every device in `get_all_devices()` order,
`query_timeseries(device, all its measurements, INT64_MIN, INT64_MAX)`; columns are named
`<device>.<measurement>` as the official reader names them.

Known official-reader bug reproduced faithfully here (not corrected): BLOB values come back
truncated at their first 0x00 byte (format notes 15.10). Comparisons must know it.
"""

from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import typed_json  # noqa: E402

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1


def _drain(rs, types):
    ncol = len(types)
    cols = [[] for _ in range(ncol)]
    while rs.next():
        for i in range(ncol):
            if rs.is_null_by_index(i + 1):
                cols[i].append(None)
            else:
                cols[i].append(typed_json.encode_value(types[i], rs.get_value_by_index(i + 1)))
    return cols


def _series(name, rs, categories):
    md = rs.get_metadata()
    columns = list(md.get_column_list())
    types = [t.name for t in md.get_data_type_list()]
    data = _drain(rs, types)
    return {
        "name": name,
        "columns": columns,
        "types": types,
        "categories": categories,
        "data": dict(zip(columns, data, strict=True)),
    }


def read_file(path: str) -> dict:
    import tsfile

    # The project's own package has the same name; never let it stand in for the official one.
    if "site-packages" not in (tsfile.__file__ or ""):
        raise RuntimeError(f"imported {tsfile.__file__}, not the official package")

    out = {"format": typed_json.FORMAT, "file": os.path.basename(path), "tables": [], "devices": []}
    with tsfile.TsFileReader(path) as reader:
        schemas = reader.get_all_table_schemas()
        for tname, schema in schemas.items():
            names = [c.get_column_name() for c in schema.get_columns()]
            cats = {c.get_column_name(): c.get_category().name for c in schema.get_columns()}
            # A TIME column in the schema is returned as the leading `time` column, not again.
            fields = [n for n in names if cats[n] != "TIME"]
            with reader.query_table(tname, fields, INT64_MIN, INT64_MAX) as rs:
                md_cols = list(rs.get_metadata().get_column_list())
                categories = ["TIME"] + [cats.get(c, "FIELD") for c in md_cols[1:]]
                out["tables"].append(_series(tname, rs, categories))
        tree = reader.get_all_timeseries_schemas() if _has_tree_devices(reader, schemas) else {}
        for dev in reader.get_all_devices():
            if dev.table_name in schemas or dev.path not in tree:
                continue
            sensors = [ts.get_timeseries_name() for ts in tree[dev.path].get_timeseries_list()]
            with reader.query_timeseries(dev.path, sensors, INT64_MIN, INT64_MAX) as rs:
                categories = ["TIME"] + ["FIELD"] * len(sensors)
                out["devices"].append(_series(dev.path, rs, categories))
    return out


def _has_tree_devices(reader, schemas) -> bool:
    return any(d.table_name not in schemas for d in reader.get_all_devices())


def main(argv):
    if len(argv) != 3:
        print("usage: official_read.py FILE.tsfile OUT.json", file=sys.stderr)
        return 2
    result = read_file(argv[1])
    with open(argv[2], "w", encoding="utf-8") as f:
        json.dump(result, f, ensure_ascii=False, separators=(",", ":"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
