"""Write the interop fixtures with the official Apache `tsfile` 2.5.0 package, and their ground
truth.

Run with the official venv's python (never the project's: same import name):

    $(python3 tests/interop/official_env.py) tests/interop/make_fixtures.py [NAME ...]

For every fixture NAME it writes tests/fixtures/official/NAME.tsfile and NAME.expected.json.gz.
The expected data is the data that was WRITTEN (ground truth), arranged in the official reader's row
order (tables: devices in index order, time order within a device; tree devices: the union of the
device's timestamps, null where a series has no point). It is generated from the fixture's data
description, not from the reader. At generation time it is compared cell by cell with what the
official reader returns; every disagreement must be explained by a known official-reader issue
declared with the fixture (`Known`), and is stored in the expected file with its reason.
An unexplained disagreement aborts generation.

Data are pseudo-random with fixed seeds, so re-running produces the same files.
"""

from __future__ import annotations

import datetime
import gzip
import json
import struct
import sys
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import chunk_scan  # noqa: E402
import official_dataframe  # noqa: E402
import official_read  # noqa: E402
import sprintz_ref  # noqa: E402
import typed_json  # noqa: E402

OUT_DIR = HERE.parent / "fixtures" / "official"

try:
    import numpy as np

    import tsfile
    from tsfile import (
        ColumnCategory,
        ColumnSchema,
        Compressor,
        Field,
        RowRecord,
        TableSchema,
        Tablet,
        TimeseriesSchema,
        TSDataType,
        TSEncoding,
        TsFileWriter,
    )
except ImportError as e:  # pragma: no cover - only meaningful in the wrong interpreter
    raise SystemExit(f"run this with the official venv's python (official_env.py): {e}") from e

if "site-packages" not in tsfile.__file__:
    raise SystemExit(f"imported {tsfile.__file__}, not the official package: use the official venv")

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


# ------------------------------------------------------------------------------------------------
# Official writer configuration
# ------------------------------------------------------------------------------------------------

_DEFAULT_CONFIG: dict | None = None

# Which config key decides the encoding of a table-model column of each type (format notes 14).
ENCODING_KEY = {
    "BOOLEAN": "boolean_encoding_type_",
    "INT32": "int32_encoding_type_",
    "DATE": "int32_encoding_type_",
    "INT64": "int64_encoding_type_",
    "TIMESTAMP": "int64_encoding_type_",
    "FLOAT": "float_encoding_type_",
    "DOUBLE": "double_encoding_type_",
    "TEXT": "string_encoding_type_",
    "STRING": "string_encoding_type_",
    "BLOB": "string_encoding_type_",
}


def default_config() -> dict:
    """The official defaults (the process's first writer initialises the global config)."""
    global _DEFAULT_CONFIG
    if _DEFAULT_CONFIG is None:
        probe = OUT_DIR / ".config-probe.tsfile"
        probe.unlink(missing_ok=True)
        TsFileWriter(str(probe)).close()
        probe.unlink(missing_ok=True)
        _DEFAULT_CONFIG = dict(tsfile.get_tsfile_config())
    return _DEFAULT_CONFIG


def apply_config(overrides: dict) -> dict:
    """Reset the process-global config to the defaults plus OVERRIDES; return the effective one."""
    cfg = {**default_config(), **overrides}
    tsfile.set_tsfile_config(cfg)
    return dict(tsfile.get_tsfile_config())


def _cfg_json(cfg: dict) -> dict:
    return {k: (v.name if hasattr(v, "name") else v) for k, v in sorted(cfg.items())}


# ------------------------------------------------------------------------------------------------
# Fixture descriptions
# ------------------------------------------------------------------------------------------------


@dataclass
class Known:
    """An expected disagreement of the official reader: `match(series, column, type)` selects the
    columns concerned; `reason` is stored with every disagreeing cell there."""

    reason: str
    series: str | None = None  # None: any table/device
    column: str | None = None  # None: any column
    type_name: str | None = None  # None: any type

    def matches(self, series: str, column: str, type_name: str) -> bool:
        return (
            (self.series is None or self.series == series)
            and (self.column is None or self.column == column)
            and (self.type_name is None or self.type_name == type_name)
        )


@dataclass
class Col:
    name: str
    type_name: str
    category: str = "FIELD"


@dataclass
class Fixture:
    name: str
    description: str
    model: str  # "table" or "tree"
    config: dict = field(default_factory=dict)  # overrides of the official config (table model)
    known: list[Known] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # table model
    tables: dict[str, list[Col]] = field(default_factory=dict)
    table_config: dict[str, dict] = field(default_factory=dict)  # per-table config overrides
    # ("write", table, times, {column: values}) | ("flush",)
    ops: list[tuple] = field(default_factory=list)
    # ground-truth transforms of written values (lossy encodings): {(table, column): fn(value)}
    truth_fn: dict = field(default_factory=dict)
    # tree model: device -> measurement -> (type, encoding, compression, times, values)
    tree: dict = field(default_factory=dict)
    # extra independent checks of the file against the ground truth: fn(fx, data, chunks, truth)
    verify: list = field(default_factory=list)

    def table(self, name: str, cols: list[Col], config: dict | None = None) -> None:
        self.tables[name] = cols
        if config:
            self.table_config[name] = config

    def write(self, table: str, times, columns: dict) -> None:
        n = len(times)
        for c, v in columns.items():
            assert len(v) == n, (c, len(v), n)
        self.ops.append(("write", table, [int(t) for t in times], columns))

    def flush(self) -> None:
        self.ops.append(("flush",))

    def series(self, device, measurement, type_name, encoding, compression, times, values):
        assert len(times) == len(values)
        self.tree.setdefault(device, {})[measurement] = (
            type_name,
            encoding,
            compression,
            [int(t) for t in times],
            list(values),
        )


# ------------------------------------------------------------------------------------------------
# Writing with the official package
# ------------------------------------------------------------------------------------------------


def _py_value(type_name: str, v):
    """A generated value -> the Python type the official Tablet expects."""
    if v is None:
        return None
    if type_name == "BOOLEAN":
        return bool(v)
    if type_name in ("INT32", "INT64", "TIMESTAMP"):
        return int(v)
    if type_name in ("FLOAT", "DOUBLE"):
        return float(v)
    if type_name == "DATE":
        if isinstance(v, datetime.date):
            return v
        v = int(v)
        return datetime.date(v // 10000, v // 100 % 100, v % 100)
    if type_name == "BLOB":
        return bytes(v)
    return str(v)


def write_table_fixture(fx: Fixture, path: Path) -> dict:
    """Write the fixture; returns {table: effective config} (encodings are fixed per table when it
    is registered, so tables of one file may use different encodings)."""
    w = TsFileWriter(str(path))
    cfgs = {}
    for tname, cols in fx.tables.items():
        cfgs[tname] = apply_config({**fx.config, **fx.table_config.get(tname, {})})
        schema = TableSchema(
            tname,
            [
                ColumnSchema(c.name, TSDataType[c.type_name], ColumnCategory[c.category])
                for c in cols
            ],
        )
        w.register_table(schema)
    for op in fx.ops:
        if op[0] == "flush":
            w.flush()
            continue
        _, tname, times, columns = op
        cols = {c.name: c for c in fx.tables[tname]}
        names = list(columns)
        tab = Tablet(names, [TSDataType[cols[c].type_name] for c in names], len(times))
        tab.set_table_name(tname)
        for r, t in enumerate(times):
            tab.add_timestamp(r, t)
        for ci, c in enumerate(names):
            tn = cols[c].type_name
            for r, v in enumerate(columns[c]):
                if v is not None:
                    tab.add_value_by_index(ci, r, _py_value(tn, v))
        w.write_table(tab)
    w.close()
    return cfgs


def write_tree_fixture(fx: Fixture, path: Path) -> dict:
    w = TsFileWriter(str(path))
    cfg = {"": apply_config(fx.config)}
    for dev, ms in fx.tree.items():
        for m, (tn, enc, comp, _t, _v) in ms.items():
            w.register_timeseries(
                dev, TimeseriesSchema(m, TSDataType[tn], TSEncoding[enc], Compressor[comp])
            )
    for dev, ms in fx.tree.items():
        # One RowRecord per timestamp with the series that have a point there.
        points: dict[int, list] = {}
        for m, (tn, _e, _c, times, values) in ms.items():
            for t, v in zip(times, values, strict=True):
                points.setdefault(t, []).append(Field(m, _py_value(tn, v), TSDataType[tn]))
        for t in sorted(points):
            w.write_row_record(RowRecord(dev, t, points[t]))
    w.close()
    return cfg


# ------------------------------------------------------------------------------------------------
# Ground truth
# ------------------------------------------------------------------------------------------------


def utf8_key(s):
    return (0, b"") if s is None else (1, s.encode("utf-8"))


def device_order_key(segments) -> list:
    """Index order of device IDs (format notes 4.2): segment by segment, null first, UTF-8 bytes."""
    return [utf8_key(s) for s in segments]


def tree_segments(path: str) -> list[str]:
    """Tree-model DeviceID segments of a dotted path (format notes 4.2; no backquotes here)."""
    p = path.split(".")
    if len(p) == 1:
        return p
    if len(p) <= 3:
        return [".".join(p[:-1]), p[-1]]
    return [".".join(p[:3]), *p[3:]]


def table_truth(fx: Fixture, tname: str) -> dict:
    # A TIME column of the schema is returned as the leading `time` column, not again.
    cols = [c for c in fx.tables[tname] if c.category != "TIME"]
    tags = [c.name for c in cols if c.category == "TAG"]
    rows = []
    seq = 0
    for op in fx.ops:
        if op[0] != "write" or op[1] != tname:
            continue
        _, _, times, columns = op
        for r, t in enumerate(times):
            row = {c: columns[c][r] if c in columns else None for c in (x.name for x in cols)}
            key = device_order_key([tname] + [row[g] for g in tags])
            rows.append((key, t, seq, row))
            seq += 1
    rows.sort(key=lambda x: (x[0], x[1], x[2]))
    data = {"time": [typed_json.encode_value("INT64", r[1]) for r in rows]}
    for c in cols:
        fn = fx.truth_fn.get((tname, c.name))
        cells = []
        for r in rows:
            v = r[3][c.name]
            if v is not None and fn is not None:
                v = fn(v)
            cells.append(typed_json.encode_value(c.type_name, _py_value(c.type_name, v)))
        data[c.name] = cells
    return {
        "name": tname,
        "columns": ["time"] + [c.name for c in cols],
        "types": ["INT64"] + [c.type_name for c in cols],
        "categories": ["TIME"] + [c.category for c in cols],
        "data": data,
    }


def device_truth(fx: Fixture, dev: str) -> dict:
    ms = fx.tree[dev]
    names = sorted(ms, key=lambda m: m.encode("utf-8"))
    all_t = sorted({t for m in names for t in ms[m][3]})
    data = {"time": all_t}
    for m in names:
        tn, _e, _c, times, values = ms[m]
        fn = fx.truth_fn.get((dev, m))
        at = {}
        for t, v in zip(times, values, strict=True):
            at[t] = typed_json.encode_value(tn, _py_value(tn, fn(v) if fn else v))
        data[f"{dev}.{m}"] = [at.get(t) for t in all_t]
    return {
        "name": dev,
        "columns": ["time"] + [f"{dev}.{m}" for m in names],
        "types": ["INT64"] + [ms[m][0] for m in names],
        "categories": ["TIME"] + ["FIELD"] * len(names),
        "data": data,
    }


def compare(fx: Fixture, truth: list[dict], official: list[dict], kind: str) -> list[dict]:
    """Cell-by-cell comparison; returns the explained disagreements, raises on unexplained ones."""
    problems, explained = [], []
    off = {s["name"]: s for s in official}
    if sorted(off) != sorted(s["name"] for s in truth):
        problems.append(
            f"{kind}: official has {sorted(off)}, truth has {[s['name'] for s in truth]}"
        )
    for s in truth:
        o = off.get(s["name"])
        if o is None:
            continue
        if set(o["columns"]) != set(s["columns"]):
            problems.append(f"{s['name']}: official columns {o['columns']} != {s['columns']}")
            continue
        n_truth, n_off = len(s["data"]["time"]), len(o["data"]["time"])
        if n_truth != n_off:
            # Rows lost or added: only a whole-series explanation fits; keep the official result.
            why = [k for k in fx.known if k.series == s["name"] and k.column is None]
            if not why:
                problems.append(f"{s['name']}: official {n_off} rows != {n_truth} written")
                continue
            explained.append(
                {
                    "kind": "series",
                    "series": s["name"],
                    "reason": why[0].reason,
                    "rows_written": n_truth,
                    "rows_official": n_off,
                    "official": o,
                }
            )
            continue
        for c, t in zip(s["columns"], s["types"], strict=True):
            ot = o["types"][o["columns"].index(c)]
            if ot != t and c != "time":
                problems.append(f"{s['name']}.{c}: official type {ot} != {t}")
            tc, oc = s["data"][c], o["data"][c]
            if len(tc) != len(oc):
                problems.append(f"{s['name']}.{c}: official {len(oc)} rows != {len(tc)}")
                continue
            rows = [
                i
                for i, (a, b) in enumerate(zip(tc, oc, strict=True))
                if not typed_json.same_cell(a, b)
            ]
            if not rows:
                continue
            why = [k for k in fx.known if k.matches(s["name"], c, t)]
            if not why:
                problems.append(
                    f"{s['name']}.{c} ({t}): {len(rows)} unexplained differences, first row "
                    f"{rows[0]}: official {oc[rows[0]]!r} != written {tc[rows[0]]!r}"
                )
                continue
            explained.append(
                {
                    "kind": "cells",
                    "series": s["name"],
                    "column": c,
                    "type": t,
                    "reason": why[0].reason,
                    "count": len(rows),
                    "rows": rows,
                    "official": [oc[i] for i in rows],
                }
            )
    if problems:
        raise SystemExit(
            f"{fx.name}: official reader disagrees with the ground truth:\n  "
            + "\n  ".join(problems)
        )
    return explained


def column_encodings(fx: Fixture, cfgs: dict) -> dict:
    """{series: {column: {"encoding", "compression"}}} as written (config / TimeseriesSchema)."""
    out = {}
    if fx.model == "table":
        for tname, cols in fx.tables.items():
            cfg = cfgs[tname]
            d = {
                "time": {
                    "encoding": cfg["time_encoding_type_"].name,
                    "compression": cfg["time_compress_type_"].name,
                }
            }
            for c in cols:
                if c.category == "FIELD":
                    d[c.name] = {
                        "encoding": cfg[ENCODING_KEY[c.type_name]].name,
                        "compression": cfg["default_compression_type_"].name,
                    }
            out[tname] = d
    else:
        for dev, ms in fx.tree.items():
            out[dev] = {
                f"{dev}.{m}": {"encoding": e, "compression": c}
                for m, (_t, e, c, _x, _y) in ms.items()
            }
    return out


def check_chunks(fx: Fixture, chunks: list[dict], encodings: dict) -> None:
    """The chunk headers in the file must show the encoding/compression the fixture asked for."""
    for ch in chunks:
        if fx.model == "table":
            want = encodings[ch["device"][0]][ch["measurement"] or "time"]
        else:
            dev = ".".join(s for s in ch["device"])
            want = encodings[dev][f"{dev}.{ch['measurement']}"]
        got = {"encoding": ch["encoding"], "compression": ch["compression"]}
        if got != want:
            raise SystemExit(f"{fx.name}: chunk {ch} has {got}, expected {want}")


def build(fx: Fixture) -> None:
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    path = OUT_DIR / f"{fx.name}.tsfile"
    path.unlink(missing_ok=True)
    if fx.model == "table":
        cfgs = write_table_fixture(fx, path)
        truth_tables = [table_truth(fx, t) for t in fx.tables]
        truth_devices = []
    else:
        cfgs = write_tree_fixture(fx, path)
        truth_tables = []
        devs = sorted(fx.tree, key=lambda d: device_order_key(tree_segments(d)))
        truth_devices = [device_truth(fx, d) for d in devs]
    chunks = chunk_scan.scan_chunks(path.read_bytes())
    encodings = column_encodings(fx, cfgs)
    check_chunks(fx, chunks, encodings)
    for check in fx.verify:
        check(fx, path.read_bytes(), chunks, truth_tables + truth_devices)
    official = official_read.read_file(str(path))
    disagreements = compare(fx, truth_tables, official["tables"], "tables")
    disagreements += compare(fx, truth_devices, official["devices"], "devices")
    # What the official to_dataframe makes of the file (shape, names, dtypes, or its error).
    frames = {}
    for tname in list(fx.tables) or [None]:
        d = official_dataframe.dump(str(path), {"table_name": tname} if tname else {})
        frames[tname or ""] = {k: d.get(k) for k in ("columns", "dtypes", "num_rows", "error")}
    doc = {
        "format": typed_json.FORMAT,
        "file": path.name,
        "fixture": {
            "name": fx.name,
            "description": fx.description,
            "model": fx.model,
            "writer": f"official tsfile {tsfile_version()} (Python, C++ core)",
            "file_size": path.stat().st_size,
            "config": {k: _cfg_json(v) for k, v in cfgs.items()},
            "column_encodings": encodings,
            "chunks": chunks,
            "notes": fx.notes,
            "official_reader_disagreements": disagreements,
            "official_to_dataframe": frames,
        },
        "tables": truth_tables,
        "devices": truth_devices,
    }
    exp = OUT_DIR / f"{fx.name}.expected.json.gz"
    raw = json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    # mtime=0: identical bytes on every run, so re-generation shows no spurious diff.
    with open(exp, "wb") as f, gzip.GzipFile(fileobj=f, mode="wb", mtime=0, filename="") as gz:
        gz.write(raw)
    n = sum(len(s["data"]["time"]) for s in truth_tables + truth_devices)
    print(
        f"{fx.name}: {path.stat().st_size} B, {n} rows, expected {exp.stat().st_size} B, "
        f"{sum(d.get('count', 1) for d in disagreements)} explained official disagreements",
        flush=True,
    )


def tsfile_version() -> str:
    from importlib.metadata import version

    return version("tsfile")


# ------------------------------------------------------------------------------------------------
# Data generators
# ------------------------------------------------------------------------------------------------


def times_ms(rng, n: int, start: int, jitter: bool = True) -> list[int]:
    """Increasing millisecond timestamps, 1 ms apart with some 2..5 ms gaps."""
    steps = np.ones(n, dtype=np.int64)
    if jitter:
        mask = rng.random(n) < 0.05
        steps[mask] = rng.integers(2, 6, size=int(mask.sum()))
    steps[0] = 0
    return (start + np.cumsum(steps)).tolist()


def mixed_ints(rng, n: int, bits: int, avoid_min: bool = False) -> list[int]:
    """Segments (random lengths 60..300, so TS_2DIFF blocks of 128 both fall inside one kind and
    straddle two) of: constant runs (delta width 0), random walks of step sizes 2^k for several k,
    full-range random values (width 32/64), alternating min/max, wrap-around steps, negatives."""
    lo, hi = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    if avoid_min:  # GORILLA/CHIMP end marker (format notes 8.4)
        lo += 1
    dtype = np.int32 if bits == 32 else np.int64
    out: list[int] = []
    kinds = ["const", "walk", "full", "minmax", "wrap", "negwalk", "walk", "walk"]
    seg = 0
    while len(out) < n:
        kind = kinds[seg % len(kinds)]
        m = int(rng.integers(60, 301))
        if kind == "const":
            v = int(rng.integers(lo, hi, endpoint=True, dtype=np.int64 if bits == 64 else np.int32))
            vals = [v] * m
        elif kind in ("walk", "negwalk"):
            k = int(rng.integers(0, bits - 2))
            steps = rng.integers(-(2**k), 2**k, size=m, endpoint=True, dtype=np.int64)
            start = int(rng.integers(-(2**20), 2**20)) if kind == "walk" else -(2 ** (bits - 2))
            acc = np.cumsum(steps, dtype=np.int64) + start
            vals = [int(x) for x in np.clip(acc, lo, hi)]
        elif kind == "full":
            vals = [int(x) for x in rng.integers(lo, hi, size=m, endpoint=True, dtype=dtype)]
        elif kind == "minmax":
            vals = [lo if i % 2 == 0 else hi for i in range(m)]
            vals[m // 2] = 0
        else:  # "wrap": around the extremes, deltas that wrap in two's complement
            vals = [
                hi - int(rng.integers(0, 4)) if i % 3 else lo + int(rng.integers(0, 4))
                for i in range(m)
            ]
        out.extend(vals)
        seg += 1
    return out[:n]


def f32_from_bits(bits) -> list[float]:
    """float32 bit patterns -> Python floats (exact widening; NaN payloads kept)."""
    return np.asarray(bits, dtype=np.uint32).view(np.float32).astype(np.float64).tolist()


def f64_from_bits(bits) -> list[float]:
    return np.asarray(bits, dtype=np.uint64).view(np.float64).tolist()


F32_SPECIAL_BITS = [
    0x00000000,  # +0.0
    0x80000000,  # -0.0
    0x7F800000,  # +inf
    0xFF800000,  # -inf
    0x00000001,  # smallest subnormal
    0x807FFFFF,  # largest negative subnormal
    0x00800000,  # smallest normal
    0x7F7FFFFF,  # FLT_MAX
    0xFF7FFFFF,  # -FLT_MAX
    0x7FC00001,  # quiet NaN with a payload (not the GORILLA end marker 0x7fc00000)
    0xFFC00000,  # negative quiet NaN
    0x3F800000,  # 1.0
    0x3F800000,
    0x3F800000,
]
F64_SPECIAL_BITS = [
    0x0000000000000000,
    0x8000000000000000,
    0x7FF0000000000000,
    0xFFF0000000000000,
    0x0000000000000001,
    0x800FFFFFFFFFFFFF,
    0x0010000000000000,
    0x7FEFFFFFFFFFFFFF,
    0xFFEFFFFFFFFFFFFF,
    0x7FF8000000000001,  # quiet NaN with a payload (not the end marker 0x7ff8000000000000)
    0xFFF8000000000000,
    0x3FF0000000000000,
    0x3FF0000000000000,
    0x3FF0000000000000,
]


def mixed_floats(rng, n: int, single: bool) -> list[float]:
    """Segments of: 2-decimal prices (random walk), 1-decimal temperatures, repeated values,
    random full-precision values, random bit patterns (finite), and the special values above."""
    out: list[float] = []
    seg = 0
    kinds = ["price", "temp", "repeat", "random", "bits", "special"]
    while len(out) < n:
        kind = kinds[seg % len(kinds)]
        m = int(rng.integers(50, 250))
        if kind == "price":
            cents = 10000 + np.cumsum(rng.integers(-50, 51, size=m))
            v = cents / 100.0
        elif kind == "temp":
            v = np.round(20 + np.cumsum(rng.normal(0, 0.3, size=m)), 1)
        elif kind == "repeat":
            v = np.repeat(rng.normal(0, 1000, size=max(1, m // 20)), 20)[:m]
        elif kind == "random":
            v = rng.normal(0, 1e6, size=m) * rng.random(m)
        elif kind == "bits":
            if single:
                b = rng.integers(0, 2**32, size=m, dtype=np.uint64).astype(np.uint32)
                b = b[(b & 0x7F800000) != 0x7F800000]  # finite only (no random NaNs)
                out.extend(f32_from_bits(b))
            else:
                b = rng.integers(0, 2**64, size=m, dtype=np.uint64)
                b = b[(b & 0x7FF0000000000000) != 0x7FF0000000000000]
                out.extend(f64_from_bits(b))
            seg += 1
            continue
        else:
            out.extend(
                f32_from_bits(F32_SPECIAL_BITS) if single else f64_from_bits(F64_SPECIAL_BITS)
            )
            seg += 1
            continue
        if single:
            v = np.asarray(v, dtype=np.float32).astype(np.float64)
        out.extend(float(x) for x in v)
        seg += 1
    return out[:n]


def rng_for(name: str):
    return np.random.default_rng(abs(hash_name(name)))


def hash_name(name: str) -> int:
    # Stable across runs (unlike hash()): seeds derive from the fixture name.
    h = 1469598103934665603
    for b in name.encode():
        h = ((h ^ b) * 1099511628211) % 2**63
    return h


def dates_ascending(rng, n: int, start=datetime.date(1970, 1, 1)) -> list[int]:
    """yyyyMMdd ints of increasing dates with irregular day gaps (TS_2DIFF deltas of many widths:
    day/month/year rollovers give deltas of 1, ~70, ~8870 in the yyyyMMdd form)."""
    days = np.cumsum(rng.integers(0, 40, size=n))
    out = []
    for d in days:
        x = start + datetime.timedelta(days=int(d))
        out.append(x.year * 10000 + x.month * 100 + x.day)
    return out


# ------------------------------------------------------------------------------------------------
# The fixtures
# ------------------------------------------------------------------------------------------------

FIXTURES: dict = {}


def fixture(fn):
    FIXTURES[fn.__name__.removeprefix("fx_")] = fn
    return fn


UNCOMPRESSED_CFG = {
    "time_compress_type_": Compressor.UNCOMPRESSED,
    "default_compression_type_": Compressor.UNCOMPRESSED,
}


@fixture
def fx_ts2diff_uncompressed() -> Fixture:
    name = "ts2diff_uncompressed"
    rng = rng_for(name)
    fx = Fixture(
        name,
        "Table model, UNCOMPRESSED time and values, TS_2DIFF for INT32, INT64, TIMESTAMP and DATE "
        "fields and the time column; pages of 400 points (4 per chunk); 3 devices x 1500 rows; "
        "values cover many bit widths: constant runs (width 0), random walks of steps 2^k, "
        "full-range random int32/int64 (widths 32/64), alternating MIN/MAX, wrap-around "
        "deltas, negatives.",
        "table",
        config={
            **UNCOMPRESSED_CFG,
            "page_writer_max_point_num_": 400,
            "time_encoding_type_": TSEncoding.TS_2DIFF,
            "int32_encoding_type_": TSEncoding.TS_2DIFF,
            "int64_encoding_type_": TSEncoding.TS_2DIFF,
        },
    )
    cols = [
        Col("device", "STRING", "TAG"),
        Col("i32_mix", "INT32"),
        Col("i32_full", "INT32"),
        Col("i32_ext", "INT32"),
        Col("i64_mix", "INT64"),
        Col("i64_full", "INT64"),
        Col("i64_ext", "INT64"),
        Col("ts", "TIMESTAMP"),
        Col("day", "DATE"),
    ]
    fx.table("ts2diff", cols)
    n = 1500
    for di, (dev, start) in enumerate([("d1", 1_700_000_000_000), ("d2", -5_000), ("d3", 0)]):
        t = times_ms(rng, n, start)
        ext32 = [[INT32_MIN, INT32_MAX, 0, -1, 1][i % 5] for i in range(n)]
        ext64 = [[INT64_MIN, INT64_MAX, 0, -1, 1, INT32_MIN, INT32_MAX][i % 7] for i in range(n)]
        ts = (np.array(t, dtype=np.int64) * 1000 + rng.integers(-999, 1000, size=n)).tolist()
        if di == 2:  # extreme TIMESTAMP values too
            ts[:4] = [INT64_MIN, INT64_MAX, INT64_MIN, 0]
        fx.write(
            "ts2diff",
            t,
            {
                "device": [dev] * n,
                "i32_mix": mixed_ints(rng, n, 32),
                "i32_full": [int(x) for x in rng.integers(INT32_MIN, INT32_MAX, n, endpoint=True)],
                "i32_ext": ext32,
                "i64_mix": mixed_ints(rng, n, 64),
                "i64_full": [
                    int(x)
                    for x in rng.integers(INT64_MIN, INT64_MAX, n, endpoint=True, dtype=np.int64)
                ],
                "i64_ext": ext64,
                "ts": ts,
                "day": dates_ascending(rng, n, datetime.date(1900 + 40 * di, 1, 1)),
            },
        )
    return fx


# Rows per device of ts2diff_one_value_blocks, with pages of 517 = 4 * 129 + 1 points: one page
# each of 130, 259, 1 and 517 values (1 mod 129: the page ends in a block holding one value), then
# chunks of 517 + 259, 517 + 1 and 517 + 517 + 1 (a one-value block, or page, after other pages).
ONE_VALUE_BLOCK_ROWS = {"a": 130, "b": 259, "c": 1, "d": 517, "e": 776, "f": 518, "g": 1035}


@fixture
def fx_ts2diff_one_value_blocks() -> Fixture:
    name = "ts2diff_one_value_blocks"
    rng = rng_for(name)
    fx = Fixture(
        name,
        "Table model, UNCOMPRESSED, TS_2DIFF for the time column and every INT32, INT64, DATE, "
        "TIMESTAMP, FLOAT and DOUBLE field, pages of 517 points; 7 devices whose row counts "
        f"({ONE_VALUE_BLOCK_ROWS}) make pages of 130, 259, 1 and 129k+1 values: each ends in a "
        "TS_2DIFF block holding a single value (no deltas), whose header the writer fills with "
        "width 0 and the min_delta of the block before it (format notes 8.3), also across pages.",
        "table",
        config={
            **UNCOMPRESSED_CFG,
            "page_writer_max_point_num_": 517,
            "time_encoding_type_": TSEncoding.TS_2DIFF,
            "int32_encoding_type_": TSEncoding.TS_2DIFF,
            "int64_encoding_type_": TSEncoding.TS_2DIFF,
            "float_encoding_type_": TSEncoding.TS_2DIFF,
            "double_encoding_type_": TSEncoding.TS_2DIFF,
        },
    )
    fx.table(
        "one",
        [
            Col("dev", "STRING", "TAG"),
            Col("i32", "INT32"),
            Col("i64", "INT64"),
            Col("day", "DATE"),
            Col("ts", "TIMESTAMP"),
            Col("f32", "FLOAT"),
            Col("f64", "DOUBLE"),
        ],
    )
    fx.truth_fn[("one", "f32")] = ts2diff_float_truth(True)
    fx.truth_fn[("one", "f64")] = ts2diff_float_truth(False)
    fx.notes.append(
        "FLOAT/DOUBLE TS_2DIFF is lossy (format notes 8.3): the expected values are the stored "
        "ones (see enc_ts_2diff)."
    )
    for dev, n in ONE_VALUE_BLOCK_ROWS.items():
        t = times_ms(rng, n, 1_700_000_000_000)
        fx.write(
            "one",
            t,
            {
                "dev": [dev] * n,
                "i32": mixed_ints(rng, n, 32),
                "i64": mixed_ints(rng, n, 64),
                "day": dates_ascending(rng, n, datetime.date(1900, 1, 1)),
                "ts": timestamp_values(rng, t),
                "f32": mixed_floats(rng, n, single=True),
                "f64": mixed_floats(rng, n, single=False),
            },
        )
    return fx


@fixture
def fx_gorilla_uncompressed() -> Fixture:
    name = "gorilla_uncompressed"
    rng = rng_for(name)
    g = TSEncoding.GORILLA
    fx = Fixture(
        name,
        "Table model, UNCOMPRESSED, GORILLA for INT32, INT64, FLOAT, DOUBLE (and so DATE and "
        "TIMESTAMP), time TS_2DIFF; pages of 500 points; 2 devices x 2000 rows; floats: 2-decimal "
        "prices, 1-decimal temperatures, repeated values, random values and bit patterns, "
        "+-0.0, +-inf, subnormals, FLT/DBL_MAX, NaNs with payloads; ints as in "
        "ts2diff_uncompressed. No GORILLA end-marker values (see gorilla_end_markers).",
        "table",
        config={
            **UNCOMPRESSED_CFG,
            "page_writer_max_point_num_": 500,
            "int32_encoding_type_": g,
            "int64_encoding_type_": g,
            "float_encoding_type_": g,
            "double_encoding_type_": g,
        },
    )
    cols = [
        Col("device", "STRING", "TAG"),
        Col("i32", "INT32"),
        Col("i64", "INT64"),
        Col("f32", "FLOAT"),
        Col("f64", "DOUBLE"),
        Col("f32_special", "FLOAT"),
        Col("f64_special", "DOUBLE"),
        Col("ts", "TIMESTAMP"),
        Col("day", "DATE"),
    ]
    fx.table("gorilla", cols)
    n = 2000
    for di, dev in enumerate(["g1", "g2"]):
        t = times_ms(rng, n, 1_600_000_000_000 + di)
        reps = n // len(F32_SPECIAL_BITS) + 1
        fx.write(
            "gorilla",
            t,
            {
                "device": [dev] * n,
                "i32": mixed_ints(rng, n, 32, avoid_min=True),
                "i64": mixed_ints(rng, n, 64, avoid_min=True),
                "f32": mixed_floats(rng, n, single=True),
                "f64": mixed_floats(rng, n, single=False),
                "f32_special": f32_from_bits(
                    rng.permutation(np.array(F32_SPECIAL_BITS * reps, dtype=np.uint32))[:n]
                ),
                "f64_special": f64_from_bits(
                    rng.permutation(np.array(F64_SPECIAL_BITS * reps, dtype=np.uint64))[:n]
                ),
                "ts": [x * 1000 + int(rng.integers(0, 1000)) for x in t],
                "day": dates_ascending(rng, n, datetime.date(1950 + 30 * di, 6, 15)),
            },
        )
    return fx


@fixture
def fx_gorilla_end_markers() -> Fixture:
    name = "gorilla_end_markers"
    rng = rng_for(name)
    fx = Fixture(
        name,
        "Table model, UNCOMPRESSED; table `gorilla` (GORILLA) and table `chimp` (CHIMP) with "
        "INT32, INT64, FLOAT, DOUBLE columns holding the end-marker values (INT32/INT64 MIN_VALUE, "
        "the canonical NaN 0x7fc00000 / 0x7ff8000000000000) at the start, middle and end of "
        "pages of 100 points, plus other values. The official 2.5.0 writer writes them without "
        "complaint and the official reader returns them all (it decodes a known number of values "
        "per page); a decoder that stops at the end value would lose values.",
        "table",
        config={**UNCOMPRESSED_CFG, "page_writer_max_point_num_": 100},
    )
    cols = [
        Col("i32", "INT32"),
        Col("i64", "INT64"),
        Col("f32", "FLOAT"),
        Col("f64", "DOUBLE"),
    ]
    n = 300
    for tname, enc in [("gorilla", TSEncoding.GORILLA), ("chimp", TSEncoding.CHIMP)]:
        fx.table(
            tname,
            cols,
            config={
                "int32_encoding_type_": enc,
                "int64_encoding_type_": enc,
                "float_encoding_type_": enc,
                "double_encoding_type_": enc,
            },
        )
        marks = {0, 1, 50, 99, 100, 150, 151, 152, 199, 250, 298, 299}
        i32 = [INT32_MIN if i in marks else int(rng.integers(-1000, 1000)) for i in range(n)]
        i64 = [INT64_MIN if i in marks else int(rng.integers(-(10**12), 10**12)) for i in range(n)]
        f32 = [float("nan") if i in marks else float(np.float32(rng.normal())) for i in range(n)]
        f64 = [float("nan") if i in marks else float(rng.normal()) for i in range(n)]
        fx.write(tname, range(n), {"i32": i32, "i64": i64, "f32": f32, "f64": f64})
    fx.notes.append(
        "float('nan') is the canonical quiet NaN (0x7ff8000000000000; as FLOAT 0x7fc00000)."
    )
    return fx


# ---- helpers for the remaining fixtures ---------------------------------------------------------

BLOB_TRUNCATION = Known(
    "official Python reader truncates BLOB values at the first 0x00 byte (format notes 15.10); "
    "the bytes in the file are the written ones",
    type_name="BLOB",
)
SPRINTZ_FLOAT = (
    "official 2.5.0 reader misreads FLOAT/DOUBLE SPRINTZ pages (format notes 8.9); the file "
    "holds the written values"
)
SPRINTZ_INT = (
    "official 2.5.0 reader misreads INT32/INT64 SPRINTZ pages with large deltas; an independent "
    "decoder written from format notes 8.9 reproduces the written values from the file"
)
MISSING_CHUNK = (
    "value chunk missing from a chunk group (column not in the written tablet); the official "
    "reader pairs value chunks with time chunks by index and misaligns (format notes 5.4)"
)


def with_nulls(rng, values: list, p: float) -> list:
    mask = rng.random(len(values)) < p
    return [None if m else v for v, m in zip(values, mask, strict=True)]


WORDS = ["alpha", "beta", "gamma", "", "δέλτα", "東京", "Zürich", "x" * 40, "emoji😀", "tab\tq"]


def words(rng, n: int, vocab=WORDS) -> list[str]:
    return [vocab[int(i)] for i in rng.integers(0, len(vocab), size=n)]


def text_values(rng, n: int) -> list[str]:
    """Strings of varied length (0..60) and content, some repeated, some non-ASCII."""
    out = []
    for i in range(n):
        k = int(rng.integers(0, 4))
        if k == 0:
            out.append(WORDS[i % len(WORDS)])
        elif k == 1:
            out.append(f"row-{i}-{int(rng.integers(0, 10**9))}")
        elif k == 2:
            out.append(
                "".join(
                    chr(int(c)) for c in rng.integers(0x20, 0x7F, size=int(rng.integers(0, 60)))
                )
            )
        else:
            out.append("ä€𝄞" * int(rng.integers(0, 5)))
    return out


def blob_values(rng, n: int, zero_bytes: bool = True) -> list[bytes]:
    """Random bytes of length 0..40; with zero_bytes some contain 0x00 (the official reader
    truncates those, a recorded disagreement)."""
    out = []
    for _ in range(n):
        b = rng.integers(
            1 if not zero_bytes else 0, 256, size=int(rng.integers(0, 40)), dtype=np.uint8
        )
        out.append(bytes(b))
    return out


def bool_values(rng, n: int) -> list[bool]:
    runs = np.repeat(rng.random(n // 8 + 1) < 0.5, 8)[:n]
    noise = rng.random(n) < 0.3
    return [bool(x) for x in np.where(noise, rng.random(n) < 0.5, runs)]


def timestamp_values(rng, times: list[int]) -> list[int]:
    v = [t * 1000 + int(rng.integers(0, 1000)) for t in times]
    if len(v) > 10:
        v[3], v[7] = INT64_MIN + 1, INT64_MAX
    return v


def round_half_up(x: float) -> int:
    return int(np.floor(x + 0.5))


def ts2diff_float_truth(single: bool):
    """What FLOAT/DOUBLE TS_2DIFF (p = 2) stores for v (format notes 8.3): round(v * 100) / 100
    when the scaled value fits INT32/INT64, else the rounded value when that fits, else v exactly
    (NaN, inf, huge values)."""
    lim = 2**31 if single else 2**63

    def fn(v: float) -> float:
        if v != v or v in (float("inf"), float("-inf")):
            return v
        x = v * 100.0
        if -lim <= x < lim:
            q = round_half_up(x)
            if -lim <= q < lim:
                r = q / 100.0
                return float(np.float32(r)) if single else r
        r = round_half_up(v)
        if -lim <= r < lim:
            return float(r)
        return v

    return fn


def int_values(rng, n: int, bits: int, avoid_min: bool = False) -> list[int]:
    return mixed_ints(rng, n, bits, avoid_min=avoid_min)


def type_values(rng, type_name: str, n: int, times: list[int], **kw) -> list:
    """Values of one column of TYPE_NAME (for the encoding fixtures)."""
    avoid_min = kw.get("avoid_min", False)
    if type_name == "BOOLEAN":
        return bool_values(rng, n)
    if type_name == "INT32":
        return int_values(rng, n, 32, avoid_min)
    if type_name == "INT64":
        return int_values(rng, n, 64, avoid_min)
    if type_name == "FLOAT":
        return kw.get("floats", mixed_floats)(rng, n, single=True)
    if type_name == "DOUBLE":
        return kw.get("floats", mixed_floats)(rng, n, single=False)
    if type_name == "DATE":
        return dates_ascending(rng, n, datetime.date(1000 + int(rng.integers(0, 8000)), 1, 1))
    if type_name == "TIMESTAMP":
        v = timestamp_values(rng, times)
        if avoid_min:
            v = [x if x != INT64_MIN else x + 1 for x in v]
        return v
    if type_name in ("TEXT", "STRING"):
        return kw.get("strings", text_values)(rng, n)
    if type_name == "BLOB":
        return blob_values(rng, n)
    raise ValueError(type_name)


ALL_TYPES = [
    "BOOLEAN",
    "INT32",
    "INT64",
    "FLOAT",
    "DOUBLE",
    "TEXT",
    "TIMESTAMP",
    "DATE",
    "BLOB",
    "STRING",
]


# ---- all types, defaults ------------------------------------------------------------------------


@fixture
def fx_alltypes_multipage() -> Fixture:
    name = "alltypes_multipage"
    rng = rng_for(name)
    fx = Fixture(
        name,
        "Table model with the official defaults (LZ4; PLAIN BOOLEAN/TEXT/STRING/BLOB, TS_2DIFF "
        "INT32/INT64/DATE/TIMESTAMP, GORILLA FLOAT/DOUBLE) except pages of 300 points: all ten "
        "types, 4 devices (two tags, one device with a null tag) x 1200 rows (4 pages per chunk), "
        "~20 % random nulls, a page-long null run (empty page), an all-null column (chunk of "
        "empty pages), BLOBs with 0x00 bytes.",
        "table",
        config={"page_writer_max_point_num_": 300},
        known=[BLOB_TRUNCATION],
    )
    cols = [Col("region", "STRING", "TAG"), Col("plant", "STRING", "TAG")]
    cols += [Col(f"v_{t.lower()}", t) for t in ALL_TYPES]
    cols.append(Col("all_null", "INT64"))
    fx.table("sensors", cols)
    n = 1200
    devices = [("north", "p1"), ("north", None), ("south", "p2"), ("east", "p1")]
    for di, (region, plant) in enumerate(devices):
        t = times_ms(rng, n, 1_650_000_000_000 + 7 * di)
        data = {"region": [region] * n, "plant": [plant] * n}
        for ty in ALL_TYPES:
            v = type_values(rng, ty, n, t, avoid_min=True)
            data[f"v_{ty.lower()}"] = with_nulls(rng, v, 0.2)
        if di == 0:  # rows 300..599 = page 2 all null -> an empty page in these value chunks
            for ty in ("DOUBLE", "STRING", "INT32"):
                c = f"v_{ty.lower()}"
                data[c] = data[c][:300] + [None] * 300 + data[c][600:]
        data["all_null"] = [None] * n
        fx.write("sensors", t, data)
    return fx


# ---- one file per compression -------------------------------------------------------------------


def _comp_fixture(comp: str) -> Fixture:
    name = f"comp_{comp.lower()}"
    rng = rng_for(name)
    fx = Fixture(
        name,
        f"Table model, {comp} for the time and value chunks, default encodings, pages of 300 "
        "points; 2 devices x 1000 rows; INT32, INT64, FLOAT, DOUBLE, BOOLEAN, STRING, TEXT fields, "
        "~10 % nulls.",
        "table",
        config={
            "page_writer_max_point_num_": 300,
            "time_compress_type_": Compressor[comp],
            "default_compression_type_": Compressor[comp],
        },
    )
    types = ["INT32", "INT64", "FLOAT", "DOUBLE", "BOOLEAN", "STRING", "TEXT"]
    fx.table("c", [Col("dev", "STRING", "TAG")] + [Col(f"v_{t.lower()}", t) for t in types])
    n = 1000
    for dev in ["a", "b"]:
        t = times_ms(rng, n, 1_700_000_000_000)
        data = {"dev": [dev] * n}
        for ty in types:
            data[f"v_{ty.lower()}"] = with_nulls(
                rng, type_values(rng, ty, n, t, avoid_min=True), 0.1
            )
        fx.write("c", t, data)
    return fx


for _c in ["UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "LZ4", "ZSTD", "LZMA2"]:
    FIXTURES[f"comp_{_c.lower()}"] = (lambda c: lambda: _comp_fixture(c))(_c)


# ---- one file per encoding ----------------------------------------------------------------------

# Support matrix of the official 2.5.0 writer (format notes 8.1; every other combination is refused
# with NotSupportedError / InvalidArgumentError -- see README).
ENCODING_TYPES = {
    "PLAIN": ALL_TYPES,
    "TS_2DIFF": ["INT32", "INT64", "FLOAT", "DOUBLE", "DATE", "TIMESTAMP"],
    "GORILLA": ["INT32", "INT64", "FLOAT", "DOUBLE", "DATE", "TIMESTAMP"],
    "RLE": ["INT32", "INT64", "DATE", "TIMESTAMP"],
    "ZIGZAG": ["INT32", "INT64"],
    "DICTIONARY": ["TEXT", "STRING"],
    "CHIMP": ["INT32", "INT64", "FLOAT", "DOUBLE", "DATE", "TIMESTAMP"],
    "SPRINTZ": ["INT32", "INT64", "FLOAT", "DOUBLE"],
    "RLBE": ["INT32", "INT64", "FLOAT", "DOUBLE", "DATE", "TIMESTAMP"],
    "CAMEL": ["DOUBLE"],
}


def camel_floats(rng, n: int, single: bool) -> list[float]:
    """mixed_floats without NaNs and subnormals: the C++ CAMEL writer does not keep them (a NaN
    reads back as 0.0, 5e-324 as a NaN; see README)."""
    v = mixed_floats(rng, n, single)
    out = []
    for x in v:
        if x != x or (x != 0.0 and abs(x) < 2.2250738585072014e-308):
            x = 1.5
        out.append(x)
    return out


def sprintz_floats(rng, n: int, single: bool) -> list[float]:
    """mixed_floats without the special values: many of them differ from each other by exactly
    the sign bit, which makes a SPRINTZ residual of exactly MIN_VALUE; the C++ writer's wrapped
    residual is then 0 and the value is lost (README). The independent check below would fail."""
    special = set(F32_SPECIAL_BITS if single else F64_SPECIAL_BITS)
    fmt, ifmt = ("<f", "<I") if single else ("<d", "<Q")
    out = []
    for x in mixed_floats(rng, n, single):
        bits = struct.unpack(ifmt, struct.pack(fmt, x))[0]
        out.append(2.25 if bits in special else x)
    return out


def verify_sprintz(fx: Fixture, data: bytes, chunks: list, truth: list) -> None:
    """Decode every SPRINTZ value chunk with the independent decoder (sprintz_ref.py, from format
    notes 8.9) and require exactly the ground truth (chunks in file order = devices in order)."""
    by_col: dict[str, list] = {}
    for ch in chunks:
        if ch["encoding"] == "SPRINTZ":
            by_col.setdefault(ch["measurement"], []).extend(
                sprintz_ref.decode_value_chunk(data, ch)
            )
    if not by_col:
        raise SystemExit(f"{fx.name}: no SPRINTZ chunks to verify")
    (series,) = truth
    for col, got in by_col.items():
        t = series["types"][series["columns"].index(col)]
        width = 32 if t in ("INT32", "FLOAT") else 64
        want = []
        for cell in series["data"][col]:
            if cell is None or t in ("INT32", "INT64"):
                want.append(cell)
            else:
                v = int(cell, 16)
                want.append(v - (1 << width) if v >> (width - 1) else v)
        if got != want:
            bad = [i for i, (a, b) in enumerate(zip(got, want, strict=True)) if a != b]
            raise SystemExit(
                f"{fx.name}: SPRINTZ {col}: independent decoder differs at rows {bad[:10]}"
            )
    print(f"  {fx.name}: independent SPRINTZ decoder reproduces {sorted(by_col)}", flush=True)


def verify_tree_sprintz(fx: Fixture, data: bytes, chunks: list, truth: list) -> None:
    """The tree fixture's SPRINTZ series, decoded independently, must equal the ground truth."""
    series = {s["name"]: s for s in truth}
    n = 0
    for ch in chunks:
        if ch["encoding"] != "SPRINTZ":
            continue
        dev = ".".join(ch["device"])
        got = sprintz_ref.decode_nonaligned_chunk(data, ch)
        want = [c for c in series[dev]["data"][f"{dev}.{ch['measurement']}"] if c is not None]
        if got != want:
            raise SystemExit(f"{fx.name}: SPRINTZ {dev}.{ch['measurement']} differs")
        n += 1
    if not n:
        raise SystemExit(f"{fx.name}: no SPRINTZ chunk to verify")
    print(f"  {fx.name}: independent SPRINTZ decoder reproduces {n} chunk(s)", flush=True)


def _enc_fixture(enc: str) -> Fixture:
    name = f"enc_{enc.lower()}"
    rng = rng_for(name)
    types = ENCODING_TYPES[enc]
    keys = {ENCODING_KEY[t] for t in types}
    fx = Fixture(
        name,
        f"Table model, {enc} for every type it supports ({', '.join(types)}), time TS_2DIFF, "
        "UNCOMPRESSED (pages readable as is), pages of 400 points; 2 devices x 1000 rows; "
        "device `d1` with ~10 % nulls, device `d2` without.",
        "table",
        config={
            **UNCOMPRESSED_CFG,
            "page_writer_max_point_num_": 400,
            **{k: TSEncoding[enc] for k in keys},
        },
    )
    fx.table("e", [Col("dev", "STRING", "TAG")] + [Col(f"v_{t.lower()}", t) for t in types])
    kw = {"avoid_min": enc in ("GORILLA", "CHIMP")}
    if enc == "CAMEL":
        kw["floats"] = camel_floats
    if enc == "DICTIONARY":
        kw["strings"] = lambda rng, n: words(rng, n)
    if enc == "TS_2DIFF":
        fx.truth_fn[("e", "v_float")] = ts2diff_float_truth(True)
        fx.truth_fn[("e", "v_double")] = ts2diff_float_truth(False)
        fx.notes.append(
            "FLOAT/DOUBLE TS_2DIFF is lossy (format notes 8.3): the expected values are the stored "
            "ones, round(v * 100) / 100 (Java Math.round), or v rounded / exact where scaling "
            "overflows; the written values are not kept."
        )
    if enc == "SPRINTZ":
        kw["floats"] = sprintz_floats
        fx.verify.append(verify_sprintz)
        fx.known.append(Known(SPRINTZ_INT, type_name="INT32"))
        fx.known.append(Known(SPRINTZ_INT, type_name="INT64"))
        fx.known.append(Known(SPRINTZ_FLOAT, type_name="FLOAT"))
        fx.known.append(Known(SPRINTZ_FLOAT, type_name="DOUBLE"))
    fx.known.append(BLOB_TRUNCATION)
    n = 1000
    for dev in ["d1", "d2"]:
        t = times_ms(rng, n, 1_700_000_000_000)
        data = {"dev": [dev] * n}
        for ty in types:
            v = type_values(rng, ty, n, t, **kw)
            if dev == "d1" and enc == "PLAIN" and ty in ("FLOAT", "DOUBLE"):
                # The official writer stores the canonical NaN for every NaN of a PLAIN column
                # that has nulls (README); write what it can keep.
                v = [float("nan") if x != x else x for x in v]
            data[f"v_{ty.lower()}"] = with_nulls(rng, v, 0.1) if dev == "d1" else v
        fx.write("e", t, data)
    return fx


for _e in ENCODING_TYPES:
    FIXTURES[f"enc_{_e.lower()}"] = (lambda e: lambda: _enc_fixture(e))(_e)


# ---- index shapes -------------------------------------------------------------------------------


@fixture
def fx_devices_300() -> Fixture:
    name = "devices_300"
    rng = rng_for(name)
    fx = Fixture(
        name,
        "Table model, defaults; 300 devices (> 256: an INTERNAL_DEVICE index level over two "
        "LEAF_DEVICE nodes), two tags (one null for some devices), 1-3 rows each; INT64 and "
        "DOUBLE fields.",
        "table",
    )
    fx.table(
        "many",
        [
            Col("a", "STRING", "TAG"),
            Col("b", "STRING", "TAG"),
            Col("v", "INT64"),
            Col("x", "DOUBLE"),
        ],
    )
    times, data = [], {"a": [], "b": [], "v": [], "x": []}
    for i in range(300):
        k = 1 + i % 3
        for j in range(k):
            times.append(1_000 * i + j)
            data["a"].append(f"a{i // 20:02d}")
            data["b"].append(None if i % 37 == 0 else f"b{i % 20:02d}-{i}")
            data["v"].append(int(rng.integers(-(10**9), 10**9)))
            data["x"].append(float(rng.normal()))
    # rows of all devices in one tablet, shuffled across devices (time order kept per device)
    fx.write("many", times, data)
    return fx


@fixture
def fx_fields_300() -> Fixture:
    name = "fields_300"
    rng = rng_for(name)
    fx = Fixture(
        name,
        "Table model, defaults; 300 FIELD columns of all ten types (> 256 series per device: "
        "a LEAF_MEASUREMENT node with two entries), 2 devices x 6 rows, ~15 % nulls.",
        "table",
        known=[BLOB_TRUNCATION],
    )
    cols = [Col("dev", "STRING", "TAG")]
    cols += [Col(f"f{i:03d}", ALL_TYPES[i % len(ALL_TYPES)]) for i in range(300)]
    fx.table("wide", cols)
    n = 6
    for dev in ["w1", "w2"]:
        t = [10 * i for i in range(n)]
        data = {"dev": [dev] * n}
        for c in cols[1:]:
            data[c.name] = with_nulls(
                rng, type_values(rng, c.type_name, n, t, avoid_min=True), 0.15
            )
        fx.write("wide", t, data)
    return fx


@fixture
def fx_two_tables_flushed() -> Fixture:
    name = "two_tables_flushed"
    rng = rng_for(name)
    fx = Fixture(
        name,
        "Table model, defaults; tables `alpha` (tag dev; INT64, DOUBLE, STRING) and `beta` "
        "(tags site, unit; INT32, BOOLEAN, FLOAT), written in 3 rounds with a flush after each: "
        "3 chunk groups per device, multi-chunk series (ChunkMetadata with statistics), chunk "
        "groups of the two tables interleaved in the file; pages of 50 points.",
        "table",
        config={"page_writer_max_point_num_": 50},
    )
    fx.table(
        "alpha",
        [
            Col("dev", "STRING", "TAG"),
            Col("i64", "INT64"),
            Col("f64", "DOUBLE"),
            Col("s", "STRING"),
        ],
    )
    fx.table(
        "beta",
        [
            Col("site", "STRING", "TAG"),
            Col("unit", "STRING", "TAG"),
            Col("i32", "INT32"),
            Col("flag", "BOOLEAN"),
            Col("f32", "FLOAT"),
        ],
    )
    for rnd in range(3):
        for dev in ["a1", "a2"]:
            n = 40 + 30 * rnd
            t = [rnd * 10_000 + 10 * i + (dev == "a2") for i in range(n)]
            fx.write(
                "alpha",
                t,
                {
                    "dev": [dev] * n,
                    "i64": with_nulls(rng, int_values(rng, n, 64), 0.1),
                    "f64": with_nulls(rng, mixed_floats(rng, n, False), 0.1),
                    "s": with_nulls(rng, text_values(rng, n), 0.1),
                },
            )
        for site, unit in [("s1", "u1"), ("s1", "u2"), ("s2", "u1")]:
            n = 25 + 20 * rnd
            t = [rnd * 10_000 + 7 * i for i in range(n)]
            fx.write(
                "beta",
                t,
                {
                    "site": [site] * n,
                    "unit": [unit] * n,
                    "i32": with_nulls(rng, int_values(rng, n, 32), 0.1),
                    "flag": with_nulls(rng, bool_values(rng, n), 0.1),
                    "f32": with_nulls(rng, mixed_floats(rng, n, True), 0.1),
                },
            )
        fx.flush()
    return fx


# ---- tree model ---------------------------------------------------------------------------------

TREE_SERIES = [
    # device, measurement, type, encoding, compression
    ("root.sg1.d1", "s_i64", "INT64", "TS_2DIFF", "SNAPPY"),
    ("root.sg1.d1", "s_f64", "DOUBLE", "GORILLA", "LZ4"),
    ("root.sg1.d1", "s_txt", "TEXT", "DICTIONARY", "GZIP"),
    ("root.sg1.d1", "s_i32", "INT32", "RLE", "ZSTD"),
    ("root.sg1.d1", "s_zz", "INT64", "ZIGZAG", "UNCOMPRESSED"),
    ("root.sg1.d1", "s_bool", "BOOLEAN", "PLAIN", "LZMA2"),
    ("root.sg1.d2", "s_f32", "FLOAT", "CHIMP", "LZO"),
    ("root.sg1.d2", "s_date", "DATE", "RLBE", "SNAPPY"),
    ("root.sg1.d2", "s_ts", "TIMESTAMP", "GORILLA", "UNCOMPRESSED"),
    ("root.sg1.d2", "s_str", "STRING", "PLAIN", "ZSTD"),
    ("root.sg1.d2", "s_blob", "BLOB", "PLAIN", "LZ4"),
    ("root.sg1.d2", "s_camel", "DOUBLE", "CAMEL", "GZIP"),
    ("root.a", "v", "INT64", "PLAIN", "UNCOMPRESSED"),
    ("root.a.b.c.d", "v", "DOUBLE", "TS_2DIFF", "LZ4"),
    ("root.a.b.c.d", "w", "INT32", "SPRINTZ", "UNCOMPRESSED"),
    ("root.sg2.dev", "only", "INT32", "TS_2DIFF", "LZ4"),
]


@fixture
def fx_tree_nonaligned() -> Fixture:
    name = "tree_nonaligned"
    rng = rng_for(name)
    fx = Fixture(
        name,
        "Tree model (non-aligned chunks, timestamps in every page), written with "
        "register_timeseries + write_row_record: 5 devices (paths of 2, 3 and 5 nodes), 16 series "
        "of all ten types with their own timestamps (different start, step and count per series), "
        "encodings PLAIN/TS_2DIFF/GORILLA/RLE/ZIGZAG/DICTIONARY/CHIMP/RLBE/SPRINTZ(INT32)/CAMEL "
        "and compressions UNCOMPRESSED/SNAPPY/GZIP/LZO/LZ4/ZSTD/LZMA2; pages of 300 points.",
        "tree",
        config={"page_writer_max_point_num_": 300},
        known=[BLOB_TRUNCATION, Known(SPRINTZ_INT, series="root.a.b.c.d", type_name="INT32")],
    )
    fx.verify.append(verify_tree_sprintz)
    for dev, m, ty, enc, comp in TREE_SERIES:
        n = int(rng.integers(50, 1200))
        step = int(rng.integers(1, 4))
        start = int(rng.integers(0, 500))
        t = [start + step * i for i in range(n)]
        kw = {"avoid_min": enc in ("GORILLA", "CHIMP")}
        if enc == "CAMEL":
            kw["floats"] = camel_floats
        if enc == "DICTIONARY":
            kw["strings"] = lambda rng, n: words(rng, n)
        v = type_values(rng, ty, n, t, **kw)
        if enc == "TS_2DIFF" and ty == "DOUBLE":
            fx.truth_fn[(dev, m)] = ts2diff_float_truth(False)
        fx.series(dev, m, ty, enc, comp, t, v)
    return fx


# ---- special chunk layouts ----------------------------------------------------------------------


@fixture
def fx_missing_value_chunk() -> Fixture:
    name = "missing_value_chunk"
    rng = rng_for(name)
    fx = Fixture(
        name,
        "Table model, defaults; 2 devices, 3 flushes; flush 1 writes all FIELD columns a, b, c; "
        "flush 2 only a; flush 3 only b and c. The C++ writer omits the value chunks of columns "
        "absent from a tablet, so chunk groups 2 and 3 lack some value chunks: readers must pair "
        "value chunks with the time chunk of the same chunk group (by file position).",
        "table",
        known=[Known(MISSING_CHUNK, series="t")],
    )
    fx.table(
        "t", [Col("dev", "STRING", "TAG"), Col("a", "INT64"), Col("b", "DOUBLE"), Col("c", "INT32")]
    )
    subsets = [("a", "b", "c"), ("a",), ("b", "c")]
    for rnd, subset in enumerate(subsets):
        for dev in ["x", "y"]:
            n = 20 + 5 * rnd
            t = [rnd * 1000 + i for i in range(n)]
            data = {"dev": [dev] * n}
            if "a" in subset:
                data["a"] = [rnd * 100 + i for i in range(n)]
            if "b" in subset:
                data["b"] = [rnd + i / 4 for i in range(n)]
            if "c" in subset:
                data["c"] = with_nulls(rng, [-(rnd * 100 + i) for i in range(n)], 0.1)
            fx.write("t", t, data)
        fx.flush()
    return fx


@fixture
def fx_allnull_single_page() -> Fixture:
    name = "allnull_single_page"
    fx = Fixture(
        name,
        "Table model, defaults; one device, 50 rows (single-page chunks, no page statistics): "
        "`x` INT64 all null (a single-page value chunk whose only page is empty: `45 ... 00`), "
        "`s` STRING all null, `y` DOUBLE with values; a second device where `x` has values.",
        "table",
    )
    fx.table(
        "t",
        [Col("dev", "STRING", "TAG"), Col("x", "INT64"), Col("s", "STRING"), Col("y", "DOUBLE")],
    )
    n = 50
    fx.write(
        "t",
        list(range(n)),
        {"dev": ["n"] * n, "x": [None] * n, "s": [None] * n, "y": [i * 0.5 for i in range(n)]},
    )
    fx.write(
        "t",
        list(range(5)),
        {
            "dev": ["v"] * 5,
            "x": [1, 2, None, 4, 5],
            "s": [None, "s", None, "t", None],
            "y": [None] * 5,
        },
    )
    return fx


@fixture
def fx_large_strings() -> Fixture:
    name = "large_strings"
    rng = rng_for(name)
    fx = Fixture(
        name,
        "Table model, defaults (LZ4, PLAIN); 4 rows, large values in rows 2-3: TEXT of 1.5 MB "
        "(repetitive), STRING of 200 kB (4-letter alphabet) and 60 kB (2-byte chars), BLOB of "
        "40 kB random bytes (with 0x00: truncated by the official reader) and 20 kB; one page "
        "per chunk regardless of size.",
        "table",
        known=[BLOB_TRUNCATION],
    )
    fx.table(
        "big",
        [Col("id", "STRING", "TAG"), Col("txt", "TEXT"), Col("s", "STRING"), Col("blob", "BLOB")],
    )
    base = "TsFile large string test ✓ 0123456789 "
    # The big values sit in the middle rows and strictly between the min and max STRING: TEXT and
    # STRING statistics (first/last/min/max) would otherwise copy them into the metadata.
    txt = ["short", base * (1_500_000 // len(base)), base * 2000, "end"]
    s = [
        "a",
        "".join("acgt"[int(i)] for i in rng.integers(0, 4, size=200_000)),
        "é" * 30_000,
        "\U0001f600",
    ]
    blob = [
        b"",
        bytes(rng.integers(0, 256, size=40_000, dtype=np.uint8)),
        bytes(rng.integers(1, 256, size=20_000, dtype=np.uint8)),
        None,
    ]
    fx.write("big", [1, 2, 3, 4], {"id": ["k"] * 4, "txt": txt, "s": s, "blob": blob})
    return fx


@fixture
def fx_empty_table() -> Fixture:
    fx = Fixture(
        "empty_table",
        "Table model, defaults; table `empty` registered (TAG dev, INT64 v, STRING s) and never "
        "written: no chunks, no devices; its schema is in the metadata; queries return no rows.",
        "table",
    )
    fx.table("empty", [Col("dev", "STRING", "TAG"), Col("v", "INT64"), Col("s", "STRING")])
    return fx


@fixture
def fx_extremes() -> Fixture:
    name = "extremes"
    rng = rng_for(name)
    fx = Fixture(
        name,
        "Table model, UNCOMPRESSED; table `plain` (PLAIN for every type) and table `defaults` "
        "(TS_2DIFF ints, GORILLA floats, PLAIN strings): INT32/INT64/TIMESTAMP MIN and MAX, "
        "DATE 1000-01-01 and 9999-12-31, FLOAT/DOUBLE +-0.0, +-inf, subnormals, +-MAX, NaNs "
        "(canonical only in `plain`: it is GORILLA's end marker), empty TEXT/STRING/BLOB; time "
        "column values INT64_MIN+1 .. INT64_MAX.",
        "table",
        config=UNCOMPRESSED_CFG,
        known=[BLOB_TRUNCATION],
    )
    types = [
        "INT32",
        "INT64",
        "TIMESTAMP",
        "DATE",
        "FLOAT",
        "DOUBLE",
        "BOOLEAN",
        "TEXT",
        "STRING",
        "BLOB",
    ]
    plain = {ENCODING_KEY[t]: TSEncoding.PLAIN for t in types}
    fx.table(
        "plain",
        [Col("dev", "STRING", "TAG")] + [Col(f"v_{t.lower()}", t) for t in types],
        config=plain,
    )
    fx.table("defaults", [Col("dev", "STRING", "TAG")] + [Col(f"v_{t.lower()}", t) for t in types])
    ex = {
        "INT32": [INT32_MIN, INT32_MAX, 0, -1, INT32_MIN + 1, INT32_MAX - 1],
        "INT64": [INT64_MIN, INT64_MAX, 0, -1, INT64_MIN + 1, INT64_MAX - 1],
        "TIMESTAMP": [INT64_MIN, INT64_MAX, 0, -1, INT64_MIN + 1, INT64_MAX - 1],
        "DATE": [10000101, 99991231, 19700101, 20000229, 10000102, 99991230],
        "FLOAT": f32_from_bits(F32_SPECIAL_BITS[:11]),
        "DOUBLE": f64_from_bits(F64_SPECIAL_BITS[:11]),
        "BOOLEAN": [True, False],
        "TEXT": ["", "a", "ÿ", " "],
        "STRING": ["", "z", "𝄞", "  "],
        "BLOB": [b"", b"\xff", b"\x01\x02", b"\x00\x01"],
    }
    canon_nan = {
        "FLOAT": f32_from_bits([0x7FC00000]),
        "DOUBLE": f64_from_bits([0x7FF8000000000000]),
    }
    n = 60
    for tname in ["plain", "defaults"]:
        t = [INT64_MIN + 1, -(2**40), -1, 0] + list(range(1, n - 4)) + [INT64_MAX]
        data = {"dev": ["e"] * n}
        for ty in types:
            pool = list(ex[ty])
            if tname == "plain" and ty in canon_nan:
                pool += canon_nan[ty]
            vals = [pool[i % len(pool)] for i in range(n)]
            # No nulls in float columns: with nulls, PLAIN stores every NaN as the canonical one.
            data[f"v_{ty.lower()}"] = vals if ty in canon_nan else with_nulls(rng, vals, 0.1)
        fx.write(tname, t, data)
    return fx


@fixture
def fx_unicode() -> Fixture:
    name = "unicode"
    rng = rng_for(name)
    fx = Fixture(
        name,
        "Table model, defaults; non-ASCII table, column and tag names and values: tags with "
        "accents, CJK, characters above U+FFFF and in U+E000..U+FFFF (UTF-8 vs UTF-16 order "
        "differ there), the empty string and null; STRING/TEXT values with multi-byte text. "
        "Device order follows UTF-8 byte order.",
        "table",
    )
    fx.table(
        "mesures_é",
        [
            Col("ville", "STRING", "TAG"),
            Col("capteur", "STRING", "TAG"),
            Col("température", "DOUBLE"),
            Col("名前", "STRING"),
            Col("note", "TEXT"),
        ],
    )
    tags = [
        ("Zürich", "α"),
        ("東京", "β"),
        ("😀", "γ"),
        ("\ue000", "δ"),
        ("", "ε"),
        (None, "ζ"),
        ("Zürich", None),
        ("zurich", "α"),
        ("Ωmega", "😀"),
    ]
    for i, (ville, cap) in enumerate(tags):
        n = 3 + i
        t = [100 * i + j for j in range(n)]
        fx.write(
            "mesures_é",
            t,
            {
                "ville": [ville] * n,
                "capteur": [cap] * n,
                "température": [round(float(rng.normal(15, 8)), 1) for _ in range(n)],
                "名前": words(rng, n),
                "note": text_values(rng, n),
            },
        )
    return fx


@fixture
def fx_time_column() -> Fixture:
    name = "time_column"
    rng = rng_for(name)
    fx = Fixture(
        name,
        "Table model, defaults; the schema declares an explicit TIME column `ts` (category 3, "
        "TIMESTAMP) before the tag; it is stored as the time chunk and returned as `time`.",
        "table",
    )
    fx.table("tc", [Col("ts", "TIMESTAMP", "TIME"), Col("dev", "STRING", "TAG"), Col("v", "INT64")])
    fx.write("tc", [10, 20, 30], {"dev": ["a"] * 3, "v": [int(x) for x in rng.integers(0, 99, 3)]})
    return fx


def main(argv: list[str]) -> int:
    names = argv[1:] or list(FIXTURES)
    unknown = [n for n in names if n not in FIXTURES]
    if unknown:
        raise SystemExit(f"unknown fixtures {unknown}; known: {list(FIXTURES)}")
    for n in names:
        build(FIXTURES[n]())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
