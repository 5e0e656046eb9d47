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
import sys
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import chunk_scan  # noqa: E402
import official_read  # noqa: E402
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
    register_only: list[str] = field(default_factory=list)  # tables registered, never written

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
    cols = fx.tables[tname]
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
    official = official_read.read_file(str(path))
    disagreements = compare(fx, truth_tables, official["tables"], "tables")
    disagreements += compare(fx, truth_devices, official["devices"], "devices")
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
        f"{sum(d['count'] for d in disagreements)} explained official disagreements",
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
