"""Files of our writer against the official writer and reader (tsfile 2.5.0 in its own venv).

* Byte-identical files: the same rows written by both writers with the same settings give the same
  bytes wherever the page compressor is deterministic across implementations (UNCOMPRESSED, LZ4,
  ZSTD, GZIP); this checks every structure at once (chunk groups, pages, statistics, index tree,
  table schema, bloom filter, properties, tail).
* Values: the official reader reads our files back with the values that were written (SNAPPY and
  LZMA2, whose compressors differ in bytes between implementations, and the encodings our codecs
  write).

Skipped when the official venv is absent (tests/interop/official_env.py makes it; CI does).
"""

from __future__ import annotations

import datetime

import numpy as np
import pytest
from interop.official import official_python, read_with_official
from writer_cases import (
    CONFIG_KEYS,
    Spec,
    T,
    first_difference,
    official_config,
    random_spec,
    small_spec,
    write_official_many,
)

from tsfile.types import ColumnCategory, Compressor, TSEncoding

PY = official_python()
pytestmark = pytest.mark.skipif(PY is None, reason="official tsfile venv not available")


# -- byte-identical files ------------------------------------------------------------------------
# Every case: (spec, official config, tablet rows, flush after each tablet, our writer's options).
# The official files of all cases are written in one subprocess (module fixture): its start-up
# dominates the cost of a case.


def _with_sparse_columns(spec):
    """Add a column null on all but the last rows (empty pages) and an all-null column."""
    n = len(spec.timestamps)
    spec.columns.append(("late", T.INT64, ColumnCategory.FIELD))
    spec.data["late"] = [None if i < n - 50 else i for i in range(n)]
    spec.columns.append(("never", T.DOUBLE, ColumnCategory.FIELD))
    spec.data["never"] = [None] * n
    return spec


def _sums_spec(layout):
    # Non-dyadic doubles and full-range INT64 values: their double sums depend on the order of
    # the additions. The official writer sums null-free write segments in two lanes (SIMD) and
    # other values one by one; our writer follows the same segments, so the bytes agree.
    rng = np.random.default_rng(21)
    n = 2600
    if layout == "contiguous":
        dev = ["a"] * (n // 2) + ["b"] * (n - n // 2)
    else:
        dev = [("a", "b")[(i // 7) % 2] for i in range(n)]
    ts, count = [], {}
    for d in dev:
        count[d] = count.get(d, 0) + 1
        ts.append(1000 + count[d])
    dbl = [float(x) for x in rng.normal(size=n) * 1e3]
    big = [int(x) for x in rng.integers(-(2**62), 2**62, n)]
    holes = rng.random(n) < 0.002  # a few nulls: their segments are summed one by one
    columns = [
        ("dev", T.STRING, ColumnCategory.TAG),
        ("d", T.DOUBLE, ColumnCategory.FIELD),
        ("i", T.INT64, ColumnCategory.FIELD),
    ]
    data = {"dev": dev, "d": [None if holes[k] else dbl[k] for k in range(n)], "i": big}
    return Spec("sums", columns, ts, data)


def _cases():
    cases = {}
    for comp in (Compressor.UNCOMPRESSED, Compressor.LZ4, Compressor.ZSTD, Compressor.GZIP):
        spec = _with_sparse_columns(random_spec(11, 6000, devices=("d1", "d2", None)))
        cases[f"defaults-{comp.name}"] = (
            spec,
            official_config(comp, page_size=1000),
            None,
            False,
            {"compression": comp, "page_size": 1000},
        )
    spec = _with_sparse_columns(random_spec(12, 3000, devices=("b", "a")))
    cfg = official_config(
        Compressor.UNCOMPRESSED, {t: TSEncoding.PLAIN for t in CONFIG_KEYS}, page_size=700
    )
    cfg["time_encoding_type_"] = TSEncoding.PLAIN
    ours = {t: TSEncoding.PLAIN for t in (*CONFIG_KEYS, T.TEXT, T.BLOB, T.DATE, T.TIMESTAMP)}
    cases["plain-everything"] = (
        spec,
        cfg,
        None,
        False,
        {
            "compression": Compressor.UNCOMPRESSED,
            "encodings": ours,
            "time_encoding": TSEncoding.PLAIN,
            "page_size": 700,
        },
    )
    # the annotated example of the format notes (test_writer.py compares it with the notes' dump
    # where the docs are at hand); here against the official writer itself, as in CI
    cfg = official_config(Compressor.UNCOMPRESSED, {t: TSEncoding.PLAIN for t in CONFIG_KEYS})
    cfg["time_encoding_type_"] = TSEncoding.PLAIN
    cases["annotated-small"] = (
        small_spec(),
        cfg,
        None,
        False,
        {
            "compression": Compressor.UNCOMPRESSED,
            "encodings": ours,
            "time_encoding": TSEncoding.PLAIN,
        },
    )
    for encoding, types in ENCODING_CASES:
        spec = random_spec(13, 2500, devices=("x",), null_rate=0.2, types=list(types))
        if encoding == TSEncoding.TS_2DIFF:
            # TS_2DIFF keeps 2 decimals of a FLOAT/DOUBLE: the writer refuses values it would
            # round (eighths such as -21.375), so these columns get quarters, which it stores.
            for name, dt, _ in spec.columns:
                if dt == T.FLOAT:
                    column = spec.data[name]
                    spec.data[name] = [None if v is None else round(v * 4) / 4 for v in column]
        enc = {t: encoding for t in types}
        cases[f"enc-{encoding.name}"] = (
            spec,
            official_config(Compressor.UNCOMPRESSED, enc, page_size=1000),
            None,
            False,
            {"compression": Compressor.UNCOMPRESSED, "encodings": enc, "page_size": 1000},
        )
    # > 256 devices: LEAF_DEVICE nodes under an INTERNAL_DEVICE root.
    devices = tuple(f"dev{i:03d}" for i in range(300))
    spec = random_spec(14, 900, devices=devices, types=[T.INT64, T.STRING])
    cases["300-devices"] = (
        spec,
        official_config(Compressor.LZ4),
        None,
        False,
        {"compression": Compressor.LZ4},
    )
    # > 256 series in one device: a LEAF_MEASUREMENT node with two entries.
    spec = random_spec(15, 40, devices=("only",), types=[T.INT32, T.DOUBLE, T.BOOLEAN] * 100)
    cases["300-fields"] = (
        spec,
        official_config(Compressor.UNCOMPRESSED),
        None,
        False,
        {"compression": Compressor.UNCOMPRESSED},
    )
    # Several chunk groups per device: multi-chunk series with ChunkMetadata statistics.
    spec = random_spec(16, 3000, devices=("p", "q"))
    cases["flushes"] = (
        spec,
        official_config(Compressor.LZ4),
        1000,
        True,
        {"compression": Compressor.LZ4},
    )
    spec = random_spec(17, 500, devices=("Zürich", "東京", "a.b", "😀"), types=[T.FLOAT])
    spec.columns[1] = ("温度", T.FLOAT, ColumnCategory.FIELD)
    spec.data["温度"] = spec.data.pop("c0_float")
    spec.table = "Tabelle_ä"
    cases["unicode"] = (
        spec,
        official_config(Compressor.LZ4),
        None,
        False,
        {"compression": Compressor.LZ4},
    )
    spec = Spec(
        "empty_t",
        [("id", T.STRING, ColumnCategory.TAG), ("v", T.INT64, ColumnCategory.FIELD)],
        [],
        {"id": [], "v": []},
    )
    cases["empty-table"] = (
        spec,
        official_config(Compressor.LZ4),
        None,
        False,
        {"compression": Compressor.LZ4},
    )
    plain = {T.DOUBLE: TSEncoding.PLAIN, T.INT64: TSEncoding.PLAIN}
    for layout in ("contiguous", "interleaved"):
        cases[f"sums-{layout}"] = (
            _sums_spec(layout),
            official_config(Compressor.UNCOMPRESSED, plain, page_size=500),
            700,
            False,
            {"compression": Compressor.UNCOMPRESSED, "encodings": plain, "page_size": 500},
        )
    return cases


ENCODING_CASES = [
    (TSEncoding.TS_2DIFF, (T.INT32, T.INT64, T.FLOAT, T.DOUBLE)),
    (TSEncoding.RLE, (T.INT32, T.INT64)),
    (TSEncoding.ZIGZAG, (T.INT32, T.INT64)),
    (TSEncoding.GORILLA, (T.INT32, T.INT64, T.FLOAT, T.DOUBLE)),
    (TSEncoding.DICTIONARY, (T.STRING,)),
    (TSEncoding.CHIMP, (T.INT32, T.INT64, T.FLOAT, T.DOUBLE)),
    (TSEncoding.RLBE, (T.INT32, T.INT64, T.FLOAT, T.DOUBLE)),
    (TSEncoding.SPRINTZ, (T.INT32, T.INT64)),
    (TSEncoding.CAMEL, (T.DOUBLE,)),
    (TSEncoding.PLAIN, (T.INT32, T.INT64, T.FLOAT, T.DOUBLE, T.BOOLEAN, T.STRING)),
]
CASES = _cases() if PY is not None else {}


@pytest.fixture(scope="module")
def official_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("official")
    paths = {name: d / f"{i}.tsfile" for i, name in enumerate(CASES)}
    write_official_many(PY, [(c[0], paths[n], c[1], c[2], c[3]) for n, c in CASES.items()])
    return paths


@pytest.mark.parametrize("name", list(CASES) or ["none"])
def test_byte_identical(tmp_path, official_files, name):
    spec, _, tablet_rows, flush, ours = CASES[name]
    # every case's encodings have an encoder in a full build: a missing one fails the test
    mine = tmp_path / "ours.tsfile"
    spec.write_ours(mine, tablet_rows, flush_each_tablet=flush, **ours)
    a, b = official_files[name].read_bytes(), mine.read_bytes()
    diff = first_difference(a, b)
    assert diff is None, f"files differ at byte {diff} (sizes {len(a)} / {len(b)})"


def _expected_rows(spec):
    """The spec's rows in the official reader's order: devices in device order, time order."""
    tags = [c[0] for c in spec.columns if c[2] == ColumnCategory.TAG]

    def key(i):
        dev = tuple(
            (0, b"") if spec.data[t][i] is None else (1, spec.data[t][i].encode()) for t in tags
        )
        return dev, spec.timestamps[i]

    return sorted(range(len(spec.timestamps)), key=key)


def _check_values(path, spec):
    got = read_with_official(path)["tables"][spec.table.lower()]["values"]
    order = _expected_rows(spec)
    assert got["time"] == [spec.timestamps[i] for i in order]
    for name, dt, _ in spec.columns:
        want = [spec.data[name][i] for i in order]
        if dt == T.BLOB:  # the official reader cuts BLOBs at 0x00 (format notes 15.10)
            want = [None if v is None else v.split(b"\x00")[0] for v in want]
        assert got[name] == want, name


@pytest.mark.parametrize(
    "compression", [Compressor.SNAPPY, Compressor.LZMA2, Compressor.LZO], ids=lambda c: c.name
)
def test_official_reads_values(tmp_path, compression):
    from tsfile.compression import available

    if not available(compression):
        pytest.skip(f"{compression.name} compressor not installed")
    spec = _with_sparse_columns(random_spec(18, 4000, devices=("n", "m", None)))
    path = tmp_path / "ours.tsfile"
    spec.write_ours(path, compression=compression, page_size=900)
    _check_values(path, spec)


def test_official_reads_fast_path_and_end_markers(tmp_path):
    # write_arrays, GORILLA chunks holding NaN / MIN_VALUE (its end markers), nulls via masks.
    from tsfile.schema import ColumnSchema, TableSchema
    from tsfile.writer import TsFileTableWriter

    n = 3000
    rng = np.random.default_rng(5)
    ts = np.arange(n, dtype=np.int64) * 10
    d = rng.normal(size=n)
    d[7] = np.nan
    i64 = rng.integers(-1000, 1000, n)
    i64[9] = np.iinfo(np.int64).min
    f = rng.normal(size=n).astype(np.float32)
    nulls = rng.random(n) < 0.3
    schema = TableSchema(
        "fast",
        [
            ColumnSchema("dev", T.STRING, ColumnCategory.TAG),
            ColumnSchema("d", T.DOUBLE),
            ColumnSchema("i", T.INT64, encoding=TSEncoding.GORILLA),
            ColumnSchema("f", T.FLOAT),
            ColumnSchema("day", T.DATE),
        ],
    )
    days = [datetime.date(2020, 1, 1) + datetime.timedelta(days=int(k)) for k in range(n)]
    path = tmp_path / "fast.tsfile"
    with TsFileTableWriter(path, schema, page_size=1000) as w:
        w.write_arrays(
            ts,
            {"dev": "one", "d": d, "i": i64, "f": f, "day": np.array(days, dtype=object)},
            null_masks={"f": nulls},
        )
    got = read_with_official(path)["tables"]["fast"]["values"]
    assert got["time"] == ts.tolist()
    assert got["dev"] == ["one"] * n
    assert np.isnan(got["d"][7])
    assert np.array_equal(np.array(got["d"]), d, equal_nan=True)
    assert got["i"] == i64.tolist()
    assert got["f"] == [None if nulls[k] else float(f[k]) for k in range(n)]
    assert got["day"] == days


def test_official_reads_deep_index(tmp_path):
    # index_degree 4: INTERNAL_DEVICE levels and INTERNAL_MEASUREMENT levels (21 series > 4 * 4),
    # which degree 256 only produces beyond 65,536 series per device.
    spec = random_spec(
        19, 300, devices=tuple(f"d{i:02d}" for i in range(20)), types=[T.INT32, T.DOUBLE] * 10
    )
    path = tmp_path / "deep.tsfile"
    spec.write_ours(path, index_degree=4)
    _check_values(path, spec)


def test_official_reads_two_tables_and_time_column(tmp_path):
    from tsfile.schema import ColumnSchema, TableSchema
    from tsfile.writer import TsFileWriter

    path = tmp_path / "two.tsfile"
    a = TableSchema(
        "alpha", [ColumnSchema("k", T.STRING, ColumnCategory.TAG), ColumnSchema("v", T.INT64)]
    )
    b = TableSchema(
        "beta", [ColumnSchema("ts", T.TIMESTAMP, ColumnCategory.TIME), ColumnSchema("x", T.DOUBLE)]
    )
    pd = pytest.importorskip("pandas")
    with TsFileWriter(path) as w:
        w.register_table(b)
        w.register_table(a)
        w.write_arrays(
            "alpha",
            np.array([5, 1, 3]),
            {"k": np.array(["q", "p", "q"], dtype=object), "v": np.array([50, 10, 30])},
        )
        w.write_dataframe("beta", pd.DataFrame({"TS": [2, 1], "x": [0.5, None]}))
    got = read_with_official(path)["tables"]
    assert got["alpha"]["values"] == {"time": [1, 3, 5], "k": ["p", "q", "q"], "v": [10, 30, 50]}
    assert got["beta"]["values"]["time"] == [1, 2]
    assert got["beta"]["values"]["x"] == [None, 0.5]


def test_official_reads_million_point_page(tmp_path):
    from tsfile.schema import ColumnSchema, TableSchema
    from tsfile.writer import TsFileTableWriter

    n = 1_000_000
    rng = np.random.default_rng(8)
    v = np.cumsum(rng.integers(-1000, 1001, n))
    path = tmp_path / "big.tsfile"
    with TsFileTableWriter(
        path, TableSchema("big", [ColumnSchema("v", T.INT64)]), page_size=n
    ) as w:
        w.write_arrays(np.arange(n, dtype=np.int64) * 3, {"v": v})
    got = read_with_official(path)["tables"]["big"]["values"]
    assert got["time"] == (np.arange(n) * 3).tolist()
    assert got["v"] == v.tolist()


def test_official_reads_end_markers_in_any_chunk(tmp_path):
    # GORILLA/CHIMP columns with end-marker values (MIN_VALUE, canonical NaN) in the first or the
    # second chunk of the series: every chunk keeps the declared encoding, so the official reader
    # (one decoder per series, decoding by count) reads them all. With a PLAIN chunk in the mix it
    # returned garbage, hung (marker chunk first) or raised PartialReadError (INT32).
    from tsfile.schema import ColumnSchema, TableSchema
    from tsfile.writer import TsFileTableWriter

    marker = {T.INT32: np.iinfo(np.int32).min, T.INT64: np.iinfo(np.int64).min}
    marker.update({T.FLOAT: np.nan, T.DOUBLE: np.nan})
    cols, first, second = [], {}, {}
    for enc in (TSEncoding.GORILLA, TSEncoding.CHIMP):
        for dt in marker:
            for where in (0, 1):
                name = f"{enc.name}_{dt.name}_{where}".lower()
                cols.append(ColumnSchema(name, dt, encoding=enc))
                plain = np.array([3, 4, 5, 6], dt.numpy_dtype)
                with_marker = np.array([1, marker[dt], 2, 7], dt.numpy_dtype)
                first[name], second[name] = (
                    (with_marker, plain) if where == 0 else (plain, with_marker)
                )
    path = tmp_path / "markers.tsfile"
    with TsFileTableWriter(path, TableSchema("m", cols), page_size=3) as w:
        w.write_arrays(np.arange(4, dtype=np.int64), first)
        w.flush()
        w.write_arrays(np.arange(4, 8, dtype=np.int64), second)
    got = read_with_official(path)["tables"]["m"]["values"]
    for name in first:
        want = np.concatenate([first[name], second[name]])
        assert np.array_equal(np.array(got[name], want.dtype), want, equal_nan=True), name
