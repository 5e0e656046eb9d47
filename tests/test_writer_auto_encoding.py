"""encoding="auto" for FLOAT/DOUBLE columns in the writer: ALP or GORILLA per chunk.

Expectations are independent of the writer's choice logic: the sizes of the alternatives are
obtained by writing the same rows with each explicit encoding, the chunk encodings are read from
the chunk headers by tests/interop/chunk_scan.py, the values are compared bit for bit with what
was written, on every decode path of our reader.
"""

from __future__ import annotations

import numpy as np
import pytest
from interop.chunk_scan import iter_pages, scan_chunks

import tsfile
from tsfile.codecs import alp
from tsfile.errors import UnsupportedError
from tsfile.schema import ColumnSchema, TableSchema
from tsfile.types import AUTO, ColumnCategory, Compressor, TSDataType, TSEncoding
from tsfile.writer import TsFileTableWriter

T = TSDataType
NP = {T.DOUBLE: np.float64, T.FLOAT: np.float32}
BITS = {T.DOUBLE: np.uint64, T.FLOAT: np.uint32}
CANONICAL_NAN = {T.DOUBLE: 0x7FF8000000000000, T.FLOAT: 0x7FC00000}


def _paths():
    paths = ["per_value", "batch", "auto"]
    if tsfile.is_simd_enabled():  # not simd_available(): TSFILE_SIMD=off leaves that true
        paths.append("simd")
    return paths


PATHS = _paths()


def decimal_prices(rng, n, dt=T.DOUBLE, decimals=2):
    return np.round(100 + np.cumsum(rng.normal(0, 0.1, n)), decimals).astype(NP[dt])


def noise(rng, n, dt=T.DOUBLE):
    # full-precision values in [0, 1): no decimal form, GORILLA's XOR windows do better
    return rng.random(n).astype(NP[dt])


def value_chunks(path):
    return [c for c in scan_chunks(path.read_bytes()) if c["kind"] == "value"]


def chunk_pages(path, chunk):
    """The pages of a chunk as (sizes, body) pairs, statistics stepped over."""
    data = path.read_bytes()
    return [
        (p["uncompressed_size"], p["compressed_size"], p["body"]) for p in iter_pages(data, chunk)
    ]


def write_one(path, dt, values, encoding, present=None, **options):
    schema = TableSchema("t", [ColumnSchema("v", dt, encoding=encoding)])
    options.setdefault("compression", Compressor.UNCOMPRESSED)
    masks = None if present is None else {"v": ~present}
    with TsFileTableWriter(path, schema, **options) as w:
        w.write_arrays(np.arange(len(values), dtype=np.int64), {"v": values}, masks)
    return path


def assert_bits_equal(got, want, dt):
    got = np.asarray(got)
    assert got.dtype == NP[dt]
    np.testing.assert_array_equal(got.view(BITS[dt]), np.asarray(want, NP[dt]).view(BITS[dt]))


def read_every_path(path, column, dt, want, present=None):
    """read_table on each decode path, a time range cutting pages, and query_table blocks."""
    times = np.arange(len(want), dtype=np.int64)
    for p in PATHS:
        out = tsfile.read_table(path, "t", [column], decode_path=p)
        np.testing.assert_array_equal(out["time"], times)
        col = out[column]
        if present is None:
            assert not isinstance(col, np.ma.MaskedArray)
            assert_bits_equal(col, want, dt)
        else:
            np.testing.assert_array_equal(np.ma.getmaskarray(col), ~present)
            assert_bits_equal(np.asarray(col.data)[present], want[present], dt)
        lo, hi = len(want) // 3 + 7, 2 * len(want) // 3 + 5
        part = tsfile.read_table(path, "t", [column], lo, hi, decode_path=p)
        np.testing.assert_array_equal(part["time"], times[lo : hi + 1])
        sel = slice(lo, hi + 1)
        if present is None:
            assert_bits_equal(part[column], want[sel], dt)
        else:
            pc = part[column]
            np.testing.assert_array_equal(np.ma.getmaskarray(pc), ~present[sel])
            assert_bits_equal(np.asarray(pc.data)[present[sel]], want[sel][present[sel]], dt)
    with tsfile.TsFileReader(path) as r, r.query_table("t", [column], batch_size=700) as rs:
        ts, vals, nulls = [], [], []
        while (blk := rs.get_next_tsblock()) is not None:
            ts.append(blk.timestamps)
            vals.append(blk.columns[column])
            m = blk.nulls.get(column) if blk.nulls else None
            nulls.append(np.zeros(len(blk), bool) if m is None else np.asarray(m, bool))
    np.testing.assert_array_equal(np.concatenate(ts), times)
    got, null = np.concatenate(vals), np.concatenate(nulls)
    keep = np.ones(len(want), bool) if present is None else present
    np.testing.assert_array_equal(null, ~keep)
    assert_bits_equal(got[keep], want[keep], dt)


# -- the choice -----------------------------------------------------------------------------------


@pytest.mark.parametrize("dt", [T.DOUBLE, T.FLOAT], ids=["DOUBLE", "FLOAT"])
@pytest.mark.parametrize(
    "kind, n, expected",
    [
        ("decimal", 1500, "ALP"),  # a chunk <= 2048 values: exact sizes
        ("decimal", 25_000, "ALP"),  # 3 pages, sampled estimate
        ("noise", 1500, "GORILLA"),
        ("noise", 25_000, "GORILLA"),
    ],
)
def test_choice_is_the_smaller_encoding(tmp_path, dt, kind, n, expected):
    rng = np.random.default_rng(n + int(dt))
    values = decimal_prices(rng, n, dt) if kind == "decimal" else noise(rng, n, dt)
    opts = {"page_size": 10_000}
    auto = write_one(tmp_path / "auto.tsfile", dt, values, "auto", **opts)
    files = {
        e: write_one(tmp_path / f"{e}.tsfile", dt, values, TSEncoding[e], **opts)
        for e in ("ALP", "GORILLA")
    }
    sizes = {e: value_chunks(p)[0]["data_size"] for e, p in files.items()}
    (chunk,) = value_chunks(auto)
    assert chunk["encoding"] == expected
    # the choice is really the smaller one, and its pages are exactly that encoding's pages
    assert chunk["data_size"] == min(sizes.values()) < max(sizes.values())
    assert chunk["data_size"] == sizes[expected]
    assert chunk_pages(auto, chunk) == chunk_pages(
        files[expected], value_chunks(files[expected])[0]
    )
    if expected == "GORILLA":
        # nothing of the file tells "auto" from a declared GORILLA column
        assert auto.read_bytes() == files["GORILLA"].read_bytes()
    read_every_path(auto, "v", dt, values)


def test_mixed_chunks_across_flushes_and_devices(tmp_path):
    rng = np.random.default_rng(7)
    schema = TableSchema(
        "t",
        [
            ColumnSchema("dev", T.STRING, ColumnCategory.TAG),
            ColumnSchema("d", T.DOUBLE, encoding=AUTO),
            ColumnSchema("f", T.FLOAT, encoding="Auto"),
        ],
    )
    path = tmp_path / "mixed.tsfile"
    rows = {}  # (dev, t) -> (d, f)
    plan = [  # per flush: device -> (kind of d, kind of f)
        {"a": ("decimal", "noise"), "b": ("noise", "decimal")},
        {"a": ("noise", "decimal"), "b": ("decimal", "noise")},
    ]
    expected = []
    n = 3000
    with TsFileTableWriter(path, schema, page_size=1000) as w:
        for flush, devices in enumerate(plan):
            for dev, (kd, kf) in devices.items():
                t = np.arange(flush * n, (flush + 1) * n, dtype=np.int64)
                d = decimal_prices(rng, n) if kd == "decimal" else noise(rng, n)
                f = (
                    decimal_prices(rng, n, T.FLOAT, 1)
                    if kf == "decimal"
                    else noise(rng, n, T.FLOAT)
                )
                w.write_arrays(t, {"dev": dev, "d": d, "f": f})
                for i in range(n):
                    rows[(dev, int(t[i]))] = (d[i], f[i])
            w.flush()
            for dev in sorted(devices):
                kd, kf = devices[dev]
                expected += [
                    ("d", "ALP" if kd == "decimal" else "GORILLA"),
                    ("f", "ALP" if kf == "decimal" else "GORILLA"),
                ]
    got = [(c["measurement"], c["encoding"]) for c in value_chunks(path)]
    assert got == expected
    keys = sorted(rows)
    want_d = np.array([rows[k][0] for k in keys])
    want_f = np.array([rows[k][1] for k in keys], dtype=np.float32)
    for p in PATHS:
        out = tsfile.read_table(path, "t", ["dev", "d", "f"], decode_path=p)
        order = sorted(range(len(out["time"])), key=lambda i: (out["dev"][i], int(out["time"][i])))
        assert [(out["dev"][i], int(out["time"][i])) for i in order] == keys
        assert_bits_equal(out["d"][order], want_d, T.DOUBLE)
        assert_bits_equal(out["f"][order], want_f, T.FLOAT)
    # the same on the scalar kernels with SIMD switched off process-wide
    tsfile.set_simd_enabled(False)
    try:
        out = tsfile.read_table(path, "t", ["d"], decode_path="auto")
        assert np.array_equal(np.sort(out["d"]), np.sort(want_d))
    finally:
        tsfile.set_simd_enabled(True)
    df = tsfile.to_dataframe(str(path), "t", ["dev", "d", "f"])
    assert len(df) == len(keys)
    got_df = sorted(zip(df["dev"], df["time"], df["d"], df["f"], strict=True))
    assert [(a, int(b)) for a, b, _, _ in got_df] == keys
    assert_bits_equal(np.array([x[2] for x in got_df]), want_d, T.DOUBLE)


def test_nulls_choice_uses_present_values_only(tmp_path):
    rng = np.random.default_rng(3)
    n = 6000
    values = decimal_prices(rng, n)
    present = rng.random(n) < 0.6
    present[2000:3100] = False  # an all-null page (page_size 1000)
    # garbage where the rows are null: the writer must not look at it
    raw = np.where(present, values, noise(rng, n))
    path = write_one(tmp_path / "n.tsfile", T.DOUBLE, raw, "auto", present, page_size=1000)
    (chunk,) = value_chunks(path)
    assert chunk["encoding"] == "ALP" and chunk["empty_pages"] == 1
    read_every_path(path, "v", T.DOUBLE, raw, present)
    # the same rows with noise where present: GORILLA
    raw2 = np.where(present, noise(rng, n), values)
    path2 = write_one(tmp_path / "n2.tsfile", T.DOUBLE, raw2, "auto", present, page_size=1000)
    assert value_chunks(path2)[0]["encoding"] == "GORILLA"
    read_every_path(path2, "v", T.DOUBLE, raw2, present)


def test_all_null_chunk_is_gorilla(tmp_path):
    schema = TableSchema(
        "t", [ColumnSchema("a", T.DOUBLE, encoding="auto"), ColumnSchema("b", T.DOUBLE)]
    )
    path = tmp_path / "z.tsfile"
    with TsFileTableWriter(path, schema) as w:
        w.write_arrays(np.arange(10), {"b": np.arange(10.0)})  # column a: all null
    chunks = {c["measurement"]: c for c in value_chunks(path)}
    assert chunks["a"]["encoding"] == "GORILLA" and chunks["a"]["empty_pages"] == 1
    out = tsfile.read_table(path, "t", ["a", "b"])
    assert np.ma.getmaskarray(out["a"]).all()


# -- the schema -----------------------------------------------------------------------------------


def test_schema_byte_is_the_chunks_encoding(tmp_path):
    # The table schema is written at close(): an "auto" column whose chunks are all ALP declares
    # ALP (tests/test_writer_safety.py has the mixed case, declared GORILLA).
    rng = np.random.default_rng(11)
    n = 2000
    schema = TableSchema(
        "t",
        [
            ColumnSchema("a", T.DOUBLE, encoding="auto"),  # ALP chunks
            ColumnSchema("b", T.FLOAT),  # auto through the writer's per-type option
            ColumnSchema("c", T.DOUBLE, encoding=TSEncoding.GORILLA),  # the option does not apply
            ColumnSchema("e", T.DOUBLE, encoding=TSEncoding.ALP),
        ],
    )
    path = tmp_path / "s.tsfile"
    cols = {
        "a": decimal_prices(rng, n),
        "b": decimal_prices(rng, n, T.FLOAT, 1),
        "c": decimal_prices(rng, n),
        "e": noise(rng, n),
    }
    with TsFileTableWriter(path, schema, encodings={T.FLOAT: "auto"}) as w:
        w.write_arrays(np.arange(n), cols)
    enc = {c["measurement"]: c["encoding"] for c in value_chunks(path)}
    assert enc == {"a": "ALP", "b": "ALP", "c": "GORILLA", "e": "ALP"}
    with tsfile.TsFileReader(path) as r:
        declared = {c.column_name: c.encoding for c in r.get_table_schema("t").get_columns()}
    assert declared == {
        "a": TSEncoding.ALP,
        "b": TSEncoding.ALP,
        "c": TSEncoding.GORILLA,
        "e": TSEncoding.ALP,
    }
    out = tsfile.read_table(path, "t")
    for k, v in cols.items():
        assert_bits_equal(out[k], v, T.FLOAT if k == "b" else T.DOUBLE)


def test_auto_is_for_float_columns_only(tmp_path):
    assert ColumnSchema("x", T.DOUBLE, encoding="AUTO").encoding == AUTO
    assert "encoding='auto'" in repr(ColumnSchema("x", T.DOUBLE, encoding="auto"))
    with pytest.raises(ValueError, match="'automatic' is not a valid TSEncoding"):
        ColumnSchema("x", T.DOUBLE, encoding="automatic")
    for dt in (T.INT64, T.INT32, T.BOOLEAN, T.TEXT):
        schema = TableSchema("t", [ColumnSchema("v", dt, encoding="auto")])
        with pytest.raises(UnsupportedError, match="FLOAT and DOUBLE"):
            TsFileTableWriter(tmp_path / f"{dt.name}.tsfile", schema)
        with pytest.raises(UnsupportedError, match="FLOAT and DOUBLE"):
            TsFileTableWriter(
                tmp_path / f"{dt.name}2.tsfile",
                TableSchema("t", [ColumnSchema("v", T.DOUBLE)]),
                encodings={dt: "auto"},
            )


# -- GORILLA's end marker and special values -------------------------------------------------------


@pytest.mark.parametrize("dt", [T.DOUBLE, T.FLOAT], ids=["DOUBLE", "FLOAT"])
def test_end_marker_makes_alp_not_a_truncated_page(tmp_path, dt):
    rng = np.random.default_rng(5)
    n = 50_000
    values = noise(rng, n, dt)  # GORILLA territory ...
    at = 20_000  # outside both runs choose_encoding samples (0..1023, 24488..25511)
    values.view(BITS[dt])[at] = CANONICAL_NAN[dt]  # ... but one value is its end marker
    assert alp.choose_encoding(values) == TSEncoding.ALP
    path = write_one(tmp_path / "m.tsfile", dt, values, "auto", page_size=10_000)
    (chunk,) = value_chunks(path)
    assert chunk["encoding"] == "ALP" and chunk["pages"] == 5
    read_every_path(path, "v", dt, values)
    # without the marker the same data is GORILLA (so the marker decided)
    values.view(BITS[dt])[at] = np.asarray(0.5, NP[dt]).view(BITS[dt])
    path = write_one(tmp_path / "m2.tsfile", dt, values, "auto", page_size=10_000)
    assert value_chunks(path)[0]["encoding"] == "GORILLA"


@pytest.mark.parametrize("dt", [T.DOUBLE, T.FLOAT], ids=["DOUBLE", "FLOAT"])
def test_alp_chunks_bit_exact_on_special_values(tmp_path, dt):
    rng = np.random.default_rng(9)
    n = 12_000
    values = decimal_prices(rng, n, dt)
    bits = values.view(BITS[dt])
    if dt == T.DOUBLE:
        special = [
            0x7FF8000000000000,  # canonical NaN
            0x7FF8000000000001,  # NaN payloads, quiet and signalling, both signs
            0xFFF8DEADBEEF0000,
            0x7FF0000000000001,
            0x7FF0000000000000,  # +inf, -inf
            0xFFF0000000000000,
            0x8000000000000000,  # -0.0
            0x0000000000000001,  # smallest subnormal
            0x800FFFFFFFFFFFFF,  # largest negative subnormal
            0x7FEFFFFFFFFFFFFF,  # max double
            np.float64(1e300).view(np.uint64),
            np.float64(-123456789012345680.0).view(np.uint64),
        ]
    else:
        special = [
            0x7FC00000,
            0x7FC00001,
            0xFFC0BEEF,
            0x7F800001,
            0x7F800000,
            0xFF800000,
            0x80000000,
            0x00000001,
            0x807FFFFF,
            0x7F7FFFFF,
            np.float32(1e30).view(np.uint32),
        ]
    pos = rng.choice(n, size=len(special) * 3, replace=False)
    for i, p in enumerate(pos):
        bits[p] = special[i % len(special)]
    path = write_one(tmp_path / "sp.tsfile", dt, values, "auto", page_size=5000)
    (chunk,) = value_chunks(path)
    assert chunk["encoding"] == "ALP"
    read_every_path(path, "v", dt, values)


def test_dataframe_write_chooses_the_same(tmp_path):
    rng = np.random.default_rng(21)
    n = 3000
    values = decimal_prices(rng, n)
    schema = TableSchema("t", [ColumnSchema("v", T.DOUBLE, encoding="auto")])
    a = write_one(tmp_path / "a.tsfile", T.DOUBLE, values, "auto", compression=Compressor.LZ4)
    b = tmp_path / "b.tsfile"
    with TsFileTableWriter(b, schema) as w:
        import pandas as pd

        w.write_dataframe(pd.DataFrame({"time": np.arange(n), "v": values}))
    assert a.read_bytes() == b.read_bytes()
    assert value_chunks(b)[0]["encoding"] == "ALP"


# -- the official 2.5 package ---------------------------------------------------------------------


def test_official_reader_reads_gorilla_auto_files_not_alp(tmp_path):
    from interop.official import OfficialReadError, official_table, skip_unless_official

    skip_unless_official()
    rng = np.random.default_rng(13)
    n = 500
    gor = write_one(tmp_path / "g.tsfile", T.DOUBLE, noise(rng, n), "auto")
    assert value_chunks(gor)[0]["encoding"] == "GORILLA"
    got = official_table(gor, "t")
    assert_bits_equal(np.array(got["v"]), tsfile.read_table(gor, "t")["v"], T.DOUBLE)
    # ALP chunks are this library's extension: the official reader refuses them (an error, not
    # wrong values)
    alp_file = write_one(tmp_path / "a.tsfile", T.DOUBLE, decimal_prices(rng, n), "auto")
    assert value_chunks(alp_file)[0]["encoding"] == "ALP"
    with pytest.raises(OfficialReadError, match="(?i)corrupt"):
        official_table(alp_file, "t")
