"""Tree-model write cases that both our writer and the official 2.5 writer can write, so their files
can be compared byte for byte (tests/test_tree_model.py) and the official files committed as
fixtures (tests/interop/make_tree_fixtures.py writes them with the official wheel).

Pure data: this module never imports tsfile; `write_case` is handed the package to write with (ours
or the official one, which share the import name and the tree-model API). Values come from
random.Random with fixed seeds, so every run describes the same rows.

A case: {"name", "page_size", "series": [(device, measurement, type, encoding, compression)],
"ops": [("row", device, time, [(measurement, value)]) | ("tablet", device, [measurement],
[time], {measurement: [value or None]}) | ("flush",)]}. Values are Python values of the type
(datetime.date for DATE, bytes for BLOB, str for TEXT/STRING).
"""

from __future__ import annotations

import datetime
import random

ALL_TYPES_SERIES = [
    ("root.sg1.d1", "s_i64", "INT64", "TS_2DIFF", "LZ4"),
    ("root.sg1.d1", "s_f64", "DOUBLE", "GORILLA", "LZ4"),
    ("root.sg1.d1", "s_txt", "TEXT", "DICTIONARY", "GZIP"),
    ("root.sg1.d1", "s_i32", "INT32", "RLE", "ZSTD"),
    ("root.sg1.d1", "s_zz", "INT64", "ZIGZAG", "UNCOMPRESSED"),
    ("root.sg1.d1", "s_bool", "BOOLEAN", "PLAIN", "UNCOMPRESSED"),
    ("root.sg1.d2", "s_f32", "FLOAT", "CHIMP", "LZ4"),
    ("root.sg1.d2", "s_date", "DATE", "RLBE", "ZSTD"),
    ("root.sg1.d2", "s_ts", "TIMESTAMP", "TS_2DIFF", "UNCOMPRESSED"),
    ("root.sg1.d2", "s_str", "STRING", "PLAIN", "ZSTD"),
    ("root.sg1.d2", "s_blob", "BLOB", "PLAIN", "LZ4"),
    ("root.sg1.d2", "s_dbl", "DOUBLE", "PLAIN", "GZIP"),
    ("root.a", "v", "INT64", "PLAIN", "UNCOMPRESSED"),
    ("root.a.b.c.d", "v", "DOUBLE", "GORILLA", "LZ4"),
    ("root.a.b.c.d", "w", "INT32", "TS_2DIFF", "UNCOMPRESSED"),
]


def value_of(rng: random.Random, type_name: str, i: int):
    """A value of the type (no 0x00 in BLOBs: the official reader cuts BLOBs there)."""
    if type_name == "BOOLEAN":
        return rng.random() < 0.5
    if type_name == "INT32":
        return rng.randint(-(2**31), 2**31 - 1) if i % 17 == 0 else rng.randint(-1000, 1000)
    if type_name in ("INT64", "TIMESTAMP"):
        return rng.randint(-(2**62), 2**62) if i % 13 == 0 else rng.randint(-(10**6), 10**6)
    if type_name == "FLOAT":
        return float(int(rng.gauss(0, 1e4))) / 8
    if type_name == "DOUBLE":
        return rng.gauss(0, 1e3)
    if type_name == "DATE":
        return datetime.date(1970, 1, 1) + datetime.timedelta(days=rng.randint(0, 40000))
    if type_name == "BLOB":
        return bytes(rng.randint(1, 255) for _ in range(rng.randint(0, 12)))
    if type_name == "STRING":
        return "".join(rng.choice("abcxyzé中") for _ in range(rng.randint(0, 10)))
    return rng.choice(["on", "off", "idle", "mode-é", ""])  # TEXT: few distinct (DICTIONARY)


def rows_case() -> dict:
    """Row records: every type, each series with its own timestamps (a row holds the series that
    have a point at its time), pages of 300 points, a flush in the middle."""
    rng = random.Random(1101)
    points = {}  # device -> time -> [(measurement, value)]
    for dev, m, ty, _e, _c in ALL_TYPES_SERIES:
        n = rng.randint(200, 900)
        step, start = rng.randint(1, 3), rng.randint(0, 400)
        for i in range(n):
            points.setdefault(dev, {}).setdefault(start + step * i, []).append(
                (m, value_of(rng, ty, i))
            )
    ops = []
    for dev, by_time in points.items():
        times = sorted(by_time)
        half = len(times) // 2
        for k, t in enumerate(times):
            if k == half:
                ops.append(("flush",))
            ops.append(("row", dev, t, by_time[t]))
    return {"name": "tree_rows", "page_size": 300, "series": ALL_TYPES_SERIES, "ops": ops}


def tablets_case() -> dict:
    """Tablets with null cells (a null writes no point), two devices, several tablets per
    device, one flush; pages of 10,000 points (the default)."""
    rng = random.Random(1102)
    series = [s for s in ALL_TYPES_SERIES if s[0] in ("root.sg1.d1", "root.sg1.d2")]
    ops = []
    for dev in ("root.sg1.d1", "root.sg1.d2"):
        mine = [s for s in series if s[0] == dev]
        t0 = 0
        for k in range(3):
            n = rng.randint(50, 400)
            times = [t0 + i for i in range(n)]
            t0 += n
            cols = {}
            for _d, m, ty, _e, _c in mine:
                cols[m] = [None if rng.random() < 0.15 else value_of(rng, ty, i) for i in range(n)]
            ops.append(("tablet", dev, [s[1] for s in mine], times, cols))
            if k == 1:
                ops.append(("flush",))
    return {"name": "tree_tablets", "page_size": 10000, "series": series, "ops": ops}


CASES = {"tree_rows": rows_case, "tree_tablets": tablets_case}


def write_case(ts, case: dict, path: str, official: bool) -> None:
    """Write `case` to `path` with the package `ts` (ours: official=False, the page size is an
    option; the official one: through its process-wide config)."""
    if official:
        w = ts.TsFileWriter(path)
        ts.set_tsfile_config({"page_writer_max_point_num_": case["page_size"]})
    else:
        w = ts.TsFileWriter(path, page_size=case["page_size"])
    types = {}
    for dev, m, ty, enc, comp in case["series"]:
        types[(dev, m)] = ts.TSDataType[ty]
        schema = ts.TimeseriesSchema(m, ts.TSDataType[ty], ts.TSEncoding[enc], ts.Compressor[comp])
        w.register_timeseries(dev, schema)
    for op in case["ops"]:
        if op[0] == "flush":
            w.flush()
        elif op[0] == "row":
            _, dev, t, fields = op
            w.write_row_record(
                ts.RowRecord(dev, t, [ts.Field(m, v, types[(dev, m)]) for m, v in fields])
            )
        else:
            _, dev, names, times, cols = op
            tab = ts.Tablet(names, [types[(dev, m)] for m in names], len(times))
            tab.set_table_name(dev)
            for r, t in enumerate(times):
                tab.add_timestamp(r, t)
            for c, m in enumerate(names):
                for r, v in enumerate(cols[m]):
                    if v is not None:
                        tab.add_value_by_index(c, r, v)
            w.write_tablet(tab)
    w.close()
