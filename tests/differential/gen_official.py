"""Randomized TsFiles written by the official Apache `tsfile` 2.5.0 package, with ground truth.

Runs ONLY with the official venv's python (tests/interop/official_env.py), as a subprocess:

    <official python> -I tests/differential/gen_official.py OUTDIR SEED... [--no-official-read]

For every SEED it writes OUTDIR/SEED.tsfile and OUTDIR/SEED.json: the data that was WRITTEN
(ground truth, typed JSON as tests/interop/typed_json.py, rows in the official reader's order),
plus a description of the file (model, config per table, encodings, page sizes, operations).
The official reader is run on the file too; its disagreements with the ground truth are recorded,
each either explained by a known official-reader bug (tests/fixtures/official/README.md) or listed
as "unexplained" (then the generator made something the official writer does not keep: the test
skips the affected seed's columns rather than trusting a wrong ground truth).

Seeds >= 0 make table-model files, negative seeds tree-model files (non-aligned series).
The building blocks (Fixture, writing, truth ordering, value generators) come from
tests/interop/make_fixtures.py, imported, so both agree on what the official writer keeps.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "interop"))

import make_fixtures as mf  # noqa: E402
import numpy as np  # noqa: E402
import typed_json  # noqa: E402

INT32_MIN, INT32_MAX = mf.INT32_MIN, mf.INT32_MAX
INT64_MIN, INT64_MAX = mf.INT64_MIN, mf.INT64_MAX
ALL_TYPES = mf.ALL_TYPES
MATRIX = mf.ENCODING_TYPES  # encoding -> types the official writer accepts (format notes 8.1)
COMPRESSIONS = ["UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "LZ4", "ZSTD", "LZMA2"]
PAGE_SIZES = [1, 2, 3, 5, 8, 31, 64, 100, 127, 128, 129, 300, 1000, 4096, 10000, 20000]
# config key -> the column types whose encoding it decides (format notes 14)
KEY_TYPES: dict[str, list[str]] = {}
for _t, _k in mf.ENCODING_KEY.items():
    KEY_TYPES.setdefault(_k, []).append(_t)

TAG_WORDS = ["a", "b", "north", "süd", "東京", "x y", "emoji😀", "", "\ue000", "z" * 30, "0"]
NAME_WORDS = ["v", "temp", "température", "名前", "s_1", "x", "val", "m", "q"]


def encodings_for(types_: list[str]) -> list[str]:
    """Encodings the official writer accepts for every type in TYPES_."""
    return [e for e, ok in MATRIX.items() if all(t in ok for t in types_)]


def choose(rng, seq):
    return seq[int(rng.integers(0, len(seq)))]


def default_config_in(tmp: str) -> None:
    # make_fixtures probes the defaults with a file in the fixture directory; use our own
    # temp dir instead so parallel runs never race on one probe file.
    if mf._DEFAULT_CONFIG is None:
        probe = os.path.join(tmp, "probe.tsfile")
        mf.TsFileWriter(probe).close()
        os.unlink(probe)
        mf._DEFAULT_CONFIG = dict(mf.tsfile.get_tsfile_config())


# ------------------------------------------------------------------------------------------------
# Values
# ------------------------------------------------------------------------------------------------


def canonical_nan(values: list) -> list:
    return [float("nan") if (v is not None and v != v) else v for v in values]


def column_values(rng, type_name: str, enc: str, n: int, times: list[int]) -> list:
    """N values of TYPE_NAME that ENC keeps exactly (or whose stored form truth_fn predicts)."""
    if n == 0:
        return []
    kind = int(rng.integers(0, 4))
    if type_name in ("FLOAT", "DOUBLE"):
        single = type_name == "FLOAT"
        if enc == "CAMEL":
            v = mf.camel_floats(rng, n, single)
        elif enc == "SPRINTZ":
            v = mf.sprintz_floats(rng, n, single)
        else:
            v = mf.mixed_floats(rng, n, single)
            if kind == 0:  # a short column made only of the special values
                v = (mf.f32_from_bits if single else mf.f64_from_bits)(
                    mf.F32_SPECIAL_BITS if single else mf.F64_SPECIAL_BITS
                ) * (n // 14 + 1)
                v = v[:n]
                rng.shuffle(v)
        if enc in ("PLAIN", "TS_2DIFF"):
            # the official writer keeps NaN payloads only sometimes here (README): canonical NaN
            v = canonical_nan(v)
        return v
    if type_name in ("INT32", "INT64") and enc == "SPRINTZ":
        bits = 32 if type_name == "INT32" else 64
        # random walks and full-range values; no min/max alternation (a residual of exactly
        # MIN_VALUE is lost by the official SPRINTZ writer, README)
        if kind == 0:
            hi = 2 ** (bits - 2)
            return [int(x) for x in rng.integers(-hi, hi, size=n, dtype=np.int64)]
        steps = rng.integers(-(2 ** int(rng.integers(0, bits - 4))), 2**10, size=n)
        return [int(x) for x in np.cumsum(steps, dtype=np.int64) % 2**20]
    if type_name in ("TEXT", "STRING") and enc == "DICTIONARY":
        return mf.words(rng, n)
    if type_name == "DATE":
        if kind == 0:  # extremes
            return [choose(rng, [10000101, 99991231, 19700101, 20000229]) for _ in range(n)]
        start = mf.datetime.date(1000 + int(rng.integers(0, 8000)), 1, 1)
        return mf.dates_ascending(rng, n, start)
    if type_name == "BOOLEAN" and kind == 0:
        return [bool(rng.integers(0, 2))] * n  # constant column
    if type_name == "TIMESTAMP":  # (make_fixtures' scales the row times: overflows near MAX)
        return mf.mixed_ints(rng, n, 64)
    return mf.type_values(rng, type_name, n, times)


def apply_nulls(rng, values: list) -> list:
    mode = int(rng.integers(0, 6))
    if mode <= 2:
        return values
    if mode == 3:
        return [None] * len(values)
    return mf.with_nulls(rng, values, float(rng.choice([0.01, 0.3, 0.9])))


def device_times(rng, n: int) -> list[int]:
    """N strictly increasing timestamps: ms-like, negative, near INT64_MIN/MAX, or sparse."""
    kind = int(rng.integers(0, 6))
    if n == 0:
        return []
    if kind == 5:  # sparse over the whole int64 range: deltas that overflow int64
        t = np.unique(rng.integers(INT64_MIN + 1, INT64_MAX, size=n, endpoint=True, dtype=np.int64))
        while len(t) < n:
            t = np.unique(np.concatenate([t, rng.integers(-(2**62), 2**62, size=n - len(t))]))
        return [int(x) for x in t[:n]]
    if kind == 0:
        return mf.times_ms(rng, n, 1_700_000_000_000)
    if kind == 1:
        return mf.times_ms(rng, n, -5000 - 3 * n)
    if kind == 2:
        return [INT64_MAX - n + i + 1 for i in range(n)]
    if kind == 3:
        return [INT64_MIN + 1 + i * 7 for i in range(n)]
    steps = rng.integers(1, 2**40, size=n, dtype=np.int64)
    return [int(x) for x in np.cumsum(steps, dtype=np.int64)]


# ------------------------------------------------------------------------------------------------
# Table model
# ------------------------------------------------------------------------------------------------


def unique_names(rng, k: int, words: list[str], prefix: str) -> list[str]:
    out = []
    for i in range(k):
        out.append(f"{prefix}{choose(rng, words)}_{i}".lower())
    return out


def table_fixture(seed: int) -> tuple[mf.Fixture, dict]:
    rng = np.random.default_rng(seed)
    fx = mf.Fixture(f"seed{seed}", "", "table")
    fx.known.append(mf.BLOB_TRUNCATION)
    desc = {"tables": {}}
    n_tables = int(rng.integers(1, 4))
    flush_prob = float(rng.choice([0.0, 0.3, 0.8]))
    subset_prob = float(rng.choice([0.0, 0.0, 0.3]))
    partial = subset_prob > 0 and rng.random() < 0.25
    big_devices = rng.random() < 0.08  # > 256 devices (two-level index)
    for ti in range(n_tables):
        tname = f"t{ti}_{choose(rng, ['data', 'mesures_é', 'x'])}".lower()
        n_tags = int(rng.integers(0, 4))
        n_fields = int(rng.integers(1, 13)) if rng.random() > 0.05 else int(rng.integers(257, 300))
        tags = unique_names(rng, n_tags, ["tag", "ville", "id"], "g")
        fields = unique_names(rng, n_fields, NAME_WORDS, "f")
        ftypes = [choose(rng, ALL_TYPES) for _ in fields]
        cols = [mf.Col(g, "STRING", "TAG") for g in tags]
        cols += [mf.Col(f, t) for f, t in zip(fields, ftypes, strict=True)]
        order = rng.permutation(len(cols))  # tags and fields interleaved in the schema
        cols = [cols[i] for i in order]
        cfg = {
            "time_encoding_type_": mf.TSEncoding[choose(rng, ["TS_2DIFF", "TS_2DIFF", "PLAIN"])],
            "time_compress_type_": mf.Compressor[choose(rng, COMPRESSIONS)],
            "default_compression_type_": mf.Compressor[choose(rng, COMPRESSIONS)],
        }
        page = int(choose(rng, PAGE_SIZES))
        cfg["page_writer_max_point_num_"] = page
        encs = {}
        for key, ktypes in KEY_TYPES.items():
            present = [t for t in ftypes if t in ktypes]
            enc = choose(rng, encodings_for(present or ktypes[:1]))
            cfg[key] = mf.TSEncoding[enc]
            for t in ktypes:
                encs[t] = enc
        fx.table(tname, cols, cfg)
        col_enc = {}
        for f, t in zip(fields, ftypes, strict=True):
            col_enc[f] = encs[t]
            if encs[t] == "TS_2DIFF" and t in ("FLOAT", "DOUBLE"):
                fx.truth_fn[(tname, f)] = mf.ts2diff_float_truth(t == "FLOAT")
            if encs[t] == "SPRINTZ":
                fx.known.append(
                    mf.Known(
                        mf.SPRINTZ_FLOAT if t in ("FLOAT", "DOUBLE") else mf.SPRINTZ_INT,
                        series=tname,
                        column=f,
                    )
                )
        # devices: distinct tag tuples (None and non-ASCII included)
        if big_devices and ti == 0:
            n_dev = int(rng.integers(257, 320))
        else:
            n_dev = int(rng.integers(1, 9)) if tags else 1
        devices = set()
        for _ in range(n_dev * 3):
            if len(devices) >= n_dev:
                break
            if big_devices and ti == 0 and tags:
                tup = tuple([f"d{len(devices)}"] + [None] * (len(tags) - 1))
            else:
                tup = tuple(None if rng.random() < 0.15 else choose(rng, TAG_WORDS) for _ in tags)
            devices.add(tup)
        devices = sorted(devices, key=lambda d: mf.device_order_key(list(d)))
        max_rows = 200 if page <= 8 else 3000
        if len(devices) > 256 or n_fields > 256:
            max_rows = 4
        rows = {d: int(rng.integers(0 if rng.random() < 0.1 else 1, max_rows)) for d in devices}
        times = {d: device_times(rng, rows[d]) for d in devices}
        values = {
            d: {
                f: apply_nulls(rng, column_values(rng, t, col_enc[f], rows[d], times[d]))
                for f, t in zip(fields, ftypes, strict=True)
            }
            for d in devices
        }
        n_rounds = int(rng.integers(1, 5))
        cuts = {
            d: sorted(int(x) for x in rng.integers(0, rows[d] + 1, size=n_rounds - 1))
            for d in devices
        }
        desc["tables"][tname] = {
            "tags": tags,
            "fields": dict(zip(fields, ftypes, strict=True)),
            "encodings": col_enc,
            "config": {k: getattr(v, "name", v) for k, v in cfg.items()},
            "devices": [list(d) for d in devices],
            "rows": [rows[d] for d in devices],
            "rounds": n_rounds,
        }
        fx._gen_rounds = getattr(fx, "_gen_rounds", [])
        fx._gen_rounds.append((tname, tags, fields, devices, times, values, cuts, n_rounds))
    # Write round by round, tables interleaved; one tablet per (table, round) holding the rows of
    # every device (official order inside: device after device), sometimes a subset of fields.
    max_rounds = max(r[-1] for r in fx._gen_rounds)
    missing = False
    for rnd in range(max_rounds):
        for tname, tags, fields, devices, times, values, cuts, n_rounds in fx._gen_rounds:
            if rnd >= n_rounds:
                continue
            subset = fields
            if rng.random() < subset_prob:
                k = int(rng.integers(1, len(fields) + 1))
                subset = [fields[i] for i in sorted(rng.choice(len(fields), k, replace=False))]
                missing = missing or len(subset) < len(fields)
            ts, data = [], {g: [] for g in tags}
            data.update({f: [] for f in subset})
            for d in devices:
                b = [0, *cuts[d], len(times[d])]
                lo, hi = b[rnd], b[rnd + 1]
                ts.extend(times[d][lo:hi])
                for g, v in zip(tags, d, strict=True):
                    data[g].extend([v] * (hi - lo))
                for f in subset:
                    data[f].extend(values[d][f][lo:hi])
                for f in fields:
                    if f not in subset:  # never written: null in the truth
                        values[d][f][lo:hi] = [None] * (hi - lo)
            isolate = len(subset) < len(fields) and not partial
            if ts and isolate:
                # A tablet without some columns, alone in its chunk groups: those value chunks
                # are missing (format notes 5.4). Sharing a chunk group with other tablets
                # instead makes the official writer leave the rows of the tablets that lack
                # the column out of its value pages (pages then cover fewer rows than the time
                # pages, with nothing saying which): `partial` seeds make such files.
                fx.flush()
            if ts:
                # tablet columns in schema order: the official writer takes the DeviceID segments
                # in the tablet's tag-column order, not the schema's (found by this generator)
                order = [c.name for c in fx.tables[tname] if c.name in data]
                fx.write(tname, ts, {c: data[c] for c in order})
                if isolate:
                    fx.flush()
        if rng.random() < flush_prob:
            fx.flush()
    if missing:
        for tname in fx.tables:
            fx.known.append(mf.Known(mf.MISSING_CHUNK, series=tname))
    desc["flush_prob"] = flush_prob
    desc["subset_prob"] = subset_prob
    desc["missing_value_chunks_possible"] = missing
    desc["partial_value_chunks"] = missing and partial
    return fx, desc


# ------------------------------------------------------------------------------------------------
# Tree model
# ------------------------------------------------------------------------------------------------

TREE_PATHS = [
    "root.a",
    "root.sg1.d1",
    "root.sg1.d2",
    "root.sg2.dev",
    "root.a.b.c.d",
    "root.ln.wf01.wt01",
    "root.x.y.z.w.v",
    "root.東京.d1",
    "root.sg_1.d_é.s",
]


def tree_fixture(seed: int) -> tuple[mf.Fixture, dict]:
    rng = np.random.default_rng([1, -seed])
    page = int(choose(rng, PAGE_SIZES))
    fx = mf.Fixture(f"seed{seed}", "", "tree", config={"page_writer_max_point_num_": page})
    fx.known.append(mf.BLOB_TRUNCATION)
    desc = {"page": page, "series": [], "flush_every": int(choose(rng, [0, 0, 7, 100, 1000]))}
    n_dev = int(rng.integers(1, 5))
    devs = [TREE_PATHS[i] for i in rng.choice(len(TREE_PATHS), n_dev, replace=False)]
    for dev in devs:
        for si in range(int(rng.integers(1, 7))):
            t = choose(rng, ALL_TYPES)
            enc = choose(rng, [e for e, ok in MATRIX.items() if t in ok])
            comp = choose(rng, COMPRESSIONS)
            n = int(rng.integers(1, 150 if page <= 8 else 1500))
            step = int(rng.integers(1, 4))
            start = int(rng.integers(-500, 500))
            times = [start + step * i for i in range(n)]
            vals = column_values(rng, t, enc, n, times)
            if t == "FLOAT":  # the tree API's Field refuses +-inf and NaN for FLOAT
                vals = [1.5 if v in (float("inf"), float("-inf")) or v != v else v for v in vals]
            m = f"s{si}_{t.lower()}"
            if enc == "TS_2DIFF" and t in ("FLOAT", "DOUBLE"):
                fx.truth_fn[(dev, m)] = mf.ts2diff_float_truth(t == "FLOAT")
            if enc == "SPRINTZ":
                fx.known.append(
                    mf.Known(
                        mf.SPRINTZ_FLOAT if t in ("FLOAT", "DOUBLE") else mf.SPRINTZ_INT,
                        series=dev,
                        column=f"{dev}.{m}",
                    )
                )
            fx.series(dev, m, t, enc, comp, times, vals)
            desc["series"].append([dev, m, t, enc, comp, n])
    return fx, desc


# ------------------------------------------------------------------------------------------------


def write_tree(fx: mf.Fixture, path: Path, flush_every: int) -> None:
    """make_fixtures.write_tree_fixture with a flush() every FLUSH_EVERY row records (0: none)
    and the devices' records interleaved: several chunks per series, chunk groups of the
    devices alternating."""
    w = mf.TsFileWriter(str(path))
    mf.apply_config(fx.config)
    for dev, ms in fx.tree.items():
        for m, (tn, enc, comp, _t, _v) in ms.items():
            w.register_timeseries(
                dev,
                mf.TimeseriesSchema(m, mf.TSDataType[tn], mf.TSEncoding[enc], mf.Compressor[comp]),
            )
    records = []
    for dev, ms in fx.tree.items():
        points: dict[int, list] = {}
        for m, (tn, _e, _c, times, values) in ms.items():
            for t, v in zip(times, values, strict=True):
                points.setdefault(t, []).append(mf.Field(m, mf._py_value(tn, v), mf.TSDataType[tn]))
        records.extend((t, dev, points[t]) for t in sorted(points))
    records.sort(key=lambda x: x[0])  # time order within a device is kept; devices interleave
    for i, (t, dev, fields) in enumerate(records):
        w.write_row_record(mf.RowRecord(dev, t, fields))
        if flush_every and (i + 1) % flush_every == 0:
            w.flush()
    w.close()


def official_read_subprocess(path: Path, tmp: str):
    """What the official reader returns for PATH, or a string saying how it failed: it crashes
    (SIGSEGV) on some valid files, so it runs in a child process."""
    out = os.path.join(tmp, "official.json")
    script = HERE.parent / "interop" / "official_read.py"
    try:
        proc = subprocess.run(
            [sys.executable, "-I", str(script), str(path), out],
            capture_output=True,
            text=True,
            timeout=300,
        )
    except subprocess.TimeoutExpired:
        return "official reader timed out (300 s)"
    if proc.returncode != 0:
        return f"official reader exit status {proc.returncode}: {proc.stderr[-300:]}"
    with open(out, encoding="utf-8") as f:
        return json.load(f)


def build(seed: int, outdir: Path, tmp: str, check_official: bool = True) -> dict:
    default_config_in(tmp)
    fx, desc = table_fixture(seed) if seed >= 0 else tree_fixture(seed)
    path = outdir / f"{seed}.tsfile"
    path.unlink(missing_ok=True)
    if fx.model == "table":
        mf.write_table_fixture(fx, path)
        tables = [mf.table_truth(fx, t) for t in fx.tables]
        devices = []
    else:
        write_tree(fx, path, desc["flush_every"])
        tables = []
        order = sorted(fx.tree, key=lambda d: mf.device_order_key(mf.tree_segments(d)))
        devices = [mf.device_truth(fx, d) for d in order]
    disagreements, unexplained, crash = [], None, None
    official = official_read_subprocess(path, tmp) if check_official else "not run"
    if isinstance(official, str):
        # the official reader died (or was not run): only the ground truth is left
        crash = official if check_official else None
    else:
        try:
            disagreements = mf.compare(fx, tables, official["tables"], "tables")
            disagreements += mf.compare(fx, devices, official["devices"], "devices")
        except SystemExit as e:  # record, the test decides
            unexplained = str(e)
    for d in disagreements:
        d.pop("official", None)
        d.pop("rows", None)
    doc = {
        "format": typed_json.FORMAT,
        "file": path.name,
        "fixture": {
            "seed": seed,
            "model": fx.model,
            "description": desc,
            "official_reader_disagreements": disagreements,
            "unexplained": unexplained,
            "official_reader_crash": crash,
        },
        "tables": tables,
        "devices": devices,
    }
    with open(outdir / f"{seed}.json", "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, separators=(",", ":"))
    return doc


def main(argv: list[str]) -> int:
    check = "--no-official-read" not in argv
    argv = [a for a in argv if a != "--no-official-read"]
    if len(argv) < 3:
        print("usage: gen_official.py OUTDIR SEED [SEED ...] [--no-official-read]", file=sys.stderr)
        return 2
    outdir = Path(argv[1])
    outdir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="tsfile-gen-") as tmp:
        for s in argv[2:]:
            doc = build(int(s), outdir, tmp, check)
            u = doc["fixture"]["unexplained"]
            c = doc["fixture"]["official_reader_crash"]
            msg = "UNEXPLAINED " + u if u else ("OFFICIAL CRASH " + c if c else "ok")
            print(f"seed {s}: {msg}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
