"""Randomized table-model files written by OUR writer, with their ground truth.

`write_random(path, seed, for_official=True) -> doc`: a random schema (STRING tags incl. null and
non-ASCII values, FIELD columns of all ten types with random per-column encodings and
compressions that our writer supports), random writer options (page size 1..1,000,000 points,
default/time compression, time encoding), random data (extremes, NaN payloads, nulls: none, some,
all), written through a random mix of the write APIs (Tablet row API, Tablet.from_arrays,
write_arrays, write_dataframe, write_arrow_batch) in several rounds with flushes. Returns the
ground truth as a typed-JSON document (tests/interop/typed_json.py; rows in the official order),
its `fixture` entry describing the file. With for_official, only what the official 2.5 reader can
read is used (no ALP).
"""

from __future__ import annotations

import datetime
import math
import struct
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from interop import typed_json  # noqa: E402
from interop.expected import device_order_key  # noqa: E402

import tsfile  # noqa: E402
from tsfile import ColumnCategory, ColumnSchema, Compressor, TableSchema, TSDataType, TSEncoding  # noqa: E402

T = TSDataType
E = TSEncoding
ALL = [
    T.BOOLEAN,
    T.INT32,
    T.INT64,
    T.FLOAT,
    T.DOUBLE,
    T.TEXT,
    T.TIMESTAMP,
    T.DATE,
    T.BLOB,
    T.STRING,
]
INTS = (T.INT32, T.INT64, T.DATE, T.TIMESTAMP)
FLOATS = (T.FLOAT, T.DOUBLE)
BIN = (T.TEXT, T.STRING, T.BLOB)
# what our writer encodes (tsfile/_write/encoders.py SUPPORTED; ALP only for our own reader)
ENCODINGS = {
    E.PLAIN: ALL,
    E.TS_2DIFF: (*INTS, *FLOATS),
    E.GORILLA: (*INTS, *FLOATS),
    E.RLE: INTS,
    E.ZIGZAG: (T.INT32, T.INT64),
    E.DICTIONARY: (T.TEXT, T.STRING),
    E.CHIMP: (*INTS, *FLOATS),
    E.RLBE: (*INTS, *FLOATS),
    E.SPRINTZ: (T.INT32, T.INT64),
    E.CAMEL: (T.DOUBLE,),
    E.ALP: FLOATS,
}
COMPRESSIONS = [
    Compressor.UNCOMPRESSED,
    Compressor.SNAPPY,
    Compressor.GZIP,
    Compressor.LZ4,
    Compressor.ZSTD,
    Compressor.LZMA2,
    Compressor.LZO,
]
PAGE_SIZES = [1, 2, 3, 7, 64, 127, 128, 129, 1000, 10000, 20000, 1_000_000]
WORDS = ["", "a", "süd", "東京", "emoji😀", "x y", "\ue000", "long" * 20, "0", "NULL"]
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def choose(rng, seq):
    return seq[int(rng.integers(0, len(seq)))]


# ------------------------------------------------------------------------------------------------
# values
# ------------------------------------------------------------------------------------------------


def ints(rng, n, bits):
    lo, hi = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    dt = np.int32 if bits == 32 else np.int64
    kind = int(rng.integers(0, 5))
    if kind == 0:
        return rng.integers(lo, hi, size=n, endpoint=True, dtype=dt)
    if kind == 1:  # random walk
        k = int(rng.integers(0, bits - 2))
        steps = rng.integers(-(2**k), 2**k, size=n, endpoint=True, dtype=np.int64)
        return np.clip(np.cumsum(steps), lo, hi).astype(dt)
    if kind == 2:
        return np.full(n, rng.integers(lo, hi, endpoint=True, dtype=dt), dtype=dt)
    if kind == 3:  # extremes
        return rng.choice(np.array([lo, hi, 0, -1, 1, lo + 1, hi - 1], dtype=dt), size=n)
    return rng.integers(-1000, 1000, size=n).astype(dt)


F32_SPECIAL = [
    0x0,
    0x80000000,
    0x7F800000,
    0xFF800000,
    0x1,
    0x807FFFFF,
    0x7F7FFFFF,
    0x7FC00001,
    0xFFC00000,
    0x7FC00000,
    0x3F800000,
]
F64_SPECIAL = [
    0x0,
    0x8000000000000000,
    0x7FF0000000000000,
    0xFFF0000000000000,
    0x1,
    0x800FFFFFFFFFFFFF,
    0x7FEFFFFFFFFFFFFF,
    0x7FF8000000000001,
    0xFFF8000000000000,
    0x7FF8000000000000,
    0x3FF0000000000000,
]


def floats(rng, n, single):
    dt = np.float32 if single else np.float64
    kind = int(rng.integers(0, 5))
    if kind == 0:
        v = np.round(100 + np.cumsum(rng.integers(-50, 51, size=n)) / 100.0, 2)
    elif kind == 1:
        v = rng.normal(0, 1e6, size=n) * rng.random(n)
    elif kind == 2:
        bits = np.array(F32_SPECIAL if single else F64_SPECIAL, np.uint32 if single else np.uint64)
        return rng.choice(bits, size=n).view(dt)
    elif kind == 3:  # random bit patterns (finite and not)
        if single:
            b = rng.integers(0, 2**32, size=n, dtype=np.uint64).astype(np.uint32)
            # signalling NaNs become quiet when a Python float carries them (row API): quiet
            nan = (b & 0x7F800000) == 0x7F800000
            b[nan & ((b & 0x7FFFFF) != 0)] |= 0x400000
            return b.view(dt)
        return rng.integers(0, 2**64, size=n, dtype=np.uint64).view(dt)
    else:
        v = np.repeat(rng.normal(0, 10, size=n // 10 + 1), 10)[:n]
    return v.astype(dt)


def dates(rng, n):
    start = datetime.date(1000 + int(rng.integers(0, 8900)), 1, 1).toordinal()
    days = start + np.cumsum(rng.integers(0, 30, size=n))
    out = []
    for d in days.tolist():
        x = datetime.date.fromordinal(min(d, datetime.date(9999, 12, 31).toordinal()))
        out.append(x.year * 10000 + x.month * 100 + x.day)
    return np.array(out, np.int32)


def texts(rng, n, dictionary):
    if dictionary or rng.random() < 0.3:
        return [choose(rng, WORDS) for _ in range(n)]
    out = []
    for _ in range(n):
        k = int(rng.integers(0, 40))
        out.append("".join(chr(int(c)) for c in rng.choice([0x41, 0xE9, 0x6771, 0x1F600, 0x20], k)))
    return out


def blobs(rng, n):
    return [
        bytes(rng.integers(0, 256, size=int(rng.integers(0, 30)), dtype=np.uint8)) for _ in range(n)
    ]


def values_for(rng, t, enc, n):
    if t == T.BOOLEAN:
        return rng.random(n) < rng.random()
    if t == T.INT32:
        return ints(rng, n, 32)
    if t in (T.INT64, T.TIMESTAMP):
        return ints(rng, n, 64)
    if t == T.DATE:
        return dates(rng, n)
    if t in FLOATS:
        return floats(rng, n, t == T.FLOAT)
    if t == T.BLOB:
        return blobs(rng, n)
    return texts(rng, n, enc == E.DICTIONARY)


def ts2diff_stored(v: float, single: bool) -> float:
    """What FLOAT/DOUBLE TS_2DIFF keeps of v (format notes 8.3, precision 2): round(v * 100) / 100
    with Java Math.round (half up) when the scaled value fits INT32/INT64, else round(v) when that
    fits, else v itself (inf, huge); NaN becomes the canonical NaN. -0.0 becomes 0.0."""
    lim = 2**31 if single else 2**63
    if v != v:
        return float("nan")  # stored as the canonical NaN (payload and sign are not kept)
    if math.isinf(v):
        return v
    x = v * 100.0
    if -lim <= x < lim:
        # floor(x + 0.5) in double arithmetic, as format notes 8.3 and the official writer:
        # where doubles are 1.0 apart, ...649.0 + 0.5 rounds to ...650 (test_differential.py)
        q = math.floor(x + 0.5)
        if -lim <= q < lim:
            r = q / 100.0
            return float(np.float32(r)) if single else r
    r = math.floor(v + 0.5)
    if -lim <= r < lim:
        return float(r)
    return v


# ------------------------------------------------------------------------------------------------


def random_schema(rng, for_official):
    n_tags = int(rng.integers(0, 4))
    n_fields = int(rng.integers(1, 10))
    cols = [ColumnSchema(f"tag{i}", T.STRING, ColumnCategory.TAG) for i in range(n_tags)]
    fields = []
    for i in range(n_fields):
        t = choose(rng, ALL)
        encs = [e for e, ok in ENCODINGS.items() if t in ok and not (for_official and e == E.ALP)]
        enc = choose(rng, encs) if rng.random() < 0.8 else None
        comp = choose(rng, COMPRESSIONS) if rng.random() < 0.6 else None
        name = f"f{i}_{choose(rng, ['v', 'température', '名前', 'x'])}"
        cols.append(ColumnSchema(name, t, ColumnCategory.FIELD, encoding=enc, compression=comp))
        fields.append(cols[-1])
    order = rng.permutation(len(cols))
    cols = [cols[i] for i in order]
    # tags in schema order: the DeviceID segments (and so the device order) follow it
    return cols, [c for c in cols if c.category == ColumnCategory.TAG], fields


def _avoid_known(rng, t, enc, v):
    """Values the writer can store: no SPRINTZ prediction error of MIN_VALUE, no CAMEL NaN (it
    refuses those with EncodeError, see test_differential.OUR_LOSSY_SEEDS), so that every seed
    of a many-seed run writes a file."""
    if enc == E.SPRINTZ:
        return np.cumsum(rng.integers(-1000, 1000, size=len(v))).astype(v.dtype)
    if enc == E.CAMEL:
        v = np.array(v, copy=True)
        v[np.isnan(v)] = 1.5
    return v


def write_random(path, seed: int, for_official: bool = True, avoid_known: bool = False) -> dict:
    rng = np.random.default_rng([2, seed])
    tname = choose(rng, ["t", "mesures_é", "data"])
    cols, tags, fields = random_schema(rng, for_official)
    schema = TableSchema(tname, cols)
    opts = {
        "page_size": int(choose(rng, PAGE_SIZES)),
        "compression": choose(rng, COMPRESSIONS),
        "time_compression": choose(rng, COMPRESSIONS),
        # the official reader decodes time chunks with its configured encoding (TS_2DIFF),
        # whatever the chunk header says (format notes 11.4): PLAIN time only for our reader
        "time_encoding": E.TS_2DIFF if for_official else choose(rng, [E.TS_2DIFF, E.PLAIN]),
    }
    # default encodings per type for columns without their own
    if rng.random() < 0.5:
        enc = {}
        for t in ALL:
            ok = [e for e, ts in ENCODINGS.items() if t in ts and not (for_official and e == E.ALP)]
            enc[t] = choose(rng, ok)
        opts["encodings"] = enc
    small = opts["page_size"] <= 7
    n_dev = int(rng.integers(1, 7)) if tags else 1
    devices = set()
    for _ in range(n_dev * 3):
        if len(devices) >= n_dev:
            break
        devices.add(tuple(None if rng.random() < 0.2 else choose(rng, WORDS) for _ in tags))
    devices = sorted(devices, key=lambda d: device_order_key(list(d)))
    enc_of = {}
    for f in fields:
        e = f.encoding
        if e is None:
            e = opts.get("encodings", {}).get(f.data_type)
        if e is None:
            e = {T.BOOLEAN: E.PLAIN, T.FLOAT: E.GORILLA, T.DOUBLE: E.GORILLA}.get(
                f.data_type, E.PLAIN if f.data_type in BIN else E.TS_2DIFF
            )
        enc_of[f.column_name] = e
    # rows: per device, strictly increasing times
    data = []  # (device, times, {field: (values list, null mask)})
    for d in devices:
        n = int(rng.integers(0, 300 if small else 5000))
        kind = int(rng.integers(0, 3))
        if kind == 0:
            t = 1_700_000_000_000 + np.cumsum(rng.integers(1, 5, size=n))
        elif kind == 1:
            t = np.cumsum(rng.integers(1, 2**40, size=n, dtype=np.int64)) - 2**50
        else:
            t = INT64_MAX - n + np.arange(n, dtype=np.int64) + 1
        t = t.astype(np.int64)
        cols_d = {}
        for f in fields:
            v = values_for(rng, f.data_type, enc_of[f.column_name], n)
            if avoid_known:
                v = _avoid_known(rng, f.data_type, enc_of[f.column_name], v)
            mode = int(rng.integers(0, 5))
            if mode <= 1:
                m = np.zeros(n, np.bool_)
            elif mode == 2:
                m = np.ones(n, np.bool_)
            else:
                m = rng.random(n) < rng.random()
            cols_d[f.column_name] = (v, m)
        data.append((d, t, cols_d))
    # write in rounds through random APIs
    n_rounds = int(rng.integers(1, 4))
    apis = []
    # extra choices from their own stream: the main stream (and so every older seed) unchanged
    rng2 = np.random.default_rng([4, seed])
    if rng2.random() < 0.2:  # small buffers: chunk groups flushed by the memory threshold
        opts["memory_threshold"] = int(rng2.choice([1 << 10, 1 << 13, 1 << 16]))
    shuffle = rng2.random() < 0.3  # rows out of time order within a tablet (the writer sorts)
    if rng2.random() < 0.5:
        w = tsfile.TsFileWriter(path, overwrite=True, **opts)
        w.register_table(schema)
    else:  # the one-table API, with the same calls minus the table name
        w = _OneTable(tsfile.TsFileTableWriter(path, schema, overwrite=True, **opts))
    for rnd in range(n_rounds):
        api = choose(rng, ["rows", "from_arrays", "write_arrays", "dataframe", "arrow"])
        apis.append(api)
        parts = []
        for d, t, cols_d in data:
            n = len(t)
            a, b = n * rnd // n_rounds, n * (rnd + 1) // n_rounds
            if b > a:
                parts.append((d, t[a:b], {k: (v[a:b], m[a:b]) for k, (v, m) in cols_d.items()}))
        if parts:
            _write_round(w, tname, tags, fields, parts, api, rng2 if shuffle else None)
        if rng.random() < 0.5:
            w.flush()
    w.close()
    doc = truth_doc(tname, cols, tags, fields, data, enc_of)
    doc["fixture"] = {
        "seed": seed,
        "writer_options": {k: str(v) for k, v in opts.items()},
        "columns": {
            f.column_name: [f.data_type.name, enc_of[f.column_name].name, str(f.compression)]
            for f in fields
        },
        "devices": [list(d) for d in devices],
        "rows": [len(x[1]) for x in data],
        "apis": apis,
        "shuffled_rows": shuffle,
        "table_writer": isinstance(w, _OneTable),
    }
    return doc


class _OneTable:
    """TsFileTableWriter behind TsFileWriter's method names (the table name is dropped)."""

    def __init__(self, w):
        self.w = w
        self.write_table = w.write_table
        self.flush = w.flush
        self.close = w.close

    def write_arrays(self, _table, ts, columns, null_masks=None):
        self.w.write_arrays(ts, columns, null_masks=null_masks)

    def write_dataframe(self, _table, df):
        self.w.write_dataframe(df)

    def write_arrow_batch(self, _table, data):
        self.w.write_arrow_batch(data)


def _py(t, v):
    if isinstance(v, np.generic):
        v = v.item()
    if t == T.DATE:
        v = int(v)
        return datetime.date(v // 10000, v // 100 % 100, v % 100)
    return v


def _write_round(w, tname, tags, fields, parts, api, shuffle_rng=None):
    ts = np.concatenate([p[1] for p in parts])
    n = len(ts)
    perm = shuffle_rng.permutation(n) if shuffle_rng is not None else None
    if perm is not None:
        ts = ts[perm]
    tagcols = {}
    for i, g in enumerate(tags):
        a = np.empty(n, object)
        pos = 0
        for d, t, _ in parts:
            a[pos : pos + len(t)] = d[i]
            pos += len(t)
        tagcols[g.column_name] = a if perm is None else a[perm]
    fcols, masks = {}, {}
    for f in fields:
        k = f.column_name
        vs = [p[2][k][0] for p in parts]
        if f.data_type in BIN:
            v = np.empty(n, object)
            v[:] = [x for part in vs for x in part]
        else:
            v = np.concatenate(vs)
        fcols[k] = v if perm is None else v[perm]
        m = np.concatenate([p[2][k][1] for p in parts])
        masks[k] = m if perm is None else m[perm]
    if api == "rows":
        names = [g.column_name for g in tags] + [f.column_name for f in fields]
        types = [T.STRING] * len(tags) + [f.data_type for f in fields]
        tab = tsfile.Tablet(names, types, n)
        tab.set_table_name(tname)
        for r in range(n):
            tab.add_timestamp(r, int(ts[r]))
        for ci, name in enumerate(names):
            col = tagcols.get(name)
            if col is not None:
                for r in range(n):
                    if col[r] is not None:
                        tab.add_value_by_index(ci, r, col[r])
                continue
            v, m = fcols[name], masks[name]
            for r in range(n):
                if not m[r]:
                    tab.add_value_by_index(ci, r, _py(types[ci], v[r]))
        w.write_table(tab)
    elif api == "from_arrays":
        cols = {**tagcols, **fcols}
        types = {
            **{g.column_name: T.STRING for g in tags},
            **{f.column_name: f.data_type for f in fields},
        }
        tab = tsfile.Tablet.from_arrays(ts, cols, types=types, null_masks=masks, table_name=tname)
        w.write_table(tab)
    elif api == "write_arrays":
        w.write_arrays(tname, ts, {**tagcols, **fcols}, null_masks=masks)
    elif api == "dataframe":
        import pandas as pd

        d = {"time": ts}
        d.update(tagcols)
        for f in fields:
            k = f.column_name
            v, m = fcols[k], masks[k]
            if f.data_type in BIN:
                o = v.copy()
                o[m] = None
                d[k] = o
            elif f.data_type == T.DATE:
                d[k] = np.array(
                    [None if x else _py(T.DATE, y) for y, x in zip(v, m, strict=False)], object
                )
            elif f.data_type in FLOATS:
                # NaN would be a null here (pandas): nullable floats keep NaN values distinct
                d[k] = pd.arrays.FloatingArray(np.ascontiguousarray(v), m.copy())
            elif f.data_type == T.BOOLEAN:
                d[k] = pd.arrays.BooleanArray(np.asarray(v, bool), m.copy())
            else:
                d[k] = pd.arrays.IntegerArray(np.ascontiguousarray(v), m.copy())
        w.write_dataframe(tname, pd.DataFrame(d))
    else:
        import pyarrow as pa

        arrays, names = [pa.array(ts, pa.int64())], ["time"]
        for g, a in tagcols.items():
            arrays.append(pa.array(list(a), pa.string()))
            names.append(g)
        for f in fields:
            k = f.column_name
            v, m = fcols[k], masks[k]
            t = f.data_type
            if t in BIN:
                typ = pa.binary() if t == T.BLOB else pa.string()
                arrays.append(pa.array([None if x else y for y, x in zip(v, m, strict=False)], typ))
            elif t == T.DATE:
                arrays.append(
                    pa.array(
                        [None if x else _py(T.DATE, y) for y, x in zip(v, m, strict=False)],
                        pa.date32(),
                    )
                )
            else:
                arrays.append(pa.array(v, mask=m))
            names.append(k)
        w.write_arrow_batch(tname, pa.Table.from_arrays(arrays, names=names))


def _cell(t, v):
    if t in (T.INT32, T.INT64, T.TIMESTAMP, T.DATE):
        return int(v)
    if t == T.BOOLEAN:
        return bool(v)
    if t == T.FLOAT:
        return f"0x{int(np.float32(v).view(np.uint32)):08x}"
    if t == T.DOUBLE:
        return f"0x{int(np.float64(v).view(np.uint64)):016x}"
    return typed_json.encode_value(t.name, v)


def truth_doc(tname, cols, tags, fields, data, enc_of) -> dict:
    names = ["time"] + [c.column_name for c in cols if c.category != ColumnCategory.TIME]
    types = ["INT64"] + [c.data_type.name for c in cols]
    cats = ["TIME"] + [c.category.name for c in cols]
    out = {n: [] for n in names}
    tag_idx = {g.column_name: i for i, g in enumerate(tags)}
    for d, t, cols_d in data:  # already in device order
        out["time"].extend(int(x) for x in t)
        for c in cols:
            k = c.column_name
            if k in tag_idx:
                out[k].extend([d[tag_idx[k]]] * len(t))
                continue
            v, m = cols_d[k]
            e = enc_of[k]
            for x, isnull in zip(v, m, strict=False):
                if isnull:
                    out[k].append(None)
                    continue
                if e == E.TS_2DIFF and c.data_type in FLOATS:
                    x = ts2diff_stored(float(x), c.data_type == T.FLOAT)
                out[k].append(_cell(c.data_type, x))
    return {
        "format": typed_json.FORMAT,
        "tables": [
            {"name": tname, "columns": names, "types": types, "categories": cats, "data": out}
        ],
        "devices": [],
    }


__all__ = ["write_random", "ts2diff_stored", "struct"]
