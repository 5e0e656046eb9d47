"""The writer without the official package: byte layout against the format notes' annotated
example, the Tablet API, the equivalence of all write paths, statistics against numpy, the GORILLA
fallback, large pages, deep index trees, errors, and a round trip through our own reader."""

from __future__ import annotations

import datetime
import re
import struct
from pathlib import Path

import numpy as np
import pytest
from interop.chunk_scan import scan_chunks
from writer_cases import T, random_spec, small_spec

from tsfile._write.statistics import numeric_value_statistics
from tsfile.errors import (
    ColumnNotExistError,
    EncodeError,
    TableNotExistError,
    TsFileError,
    TypeMismatchError,
    UnsupportedError,
)
from tsfile.schema import ColumnSchema, TableSchema
from tsfile.tablet import Tablet
from tsfile.types import ColumnCategory, Compressor, TSEncoding
from tsfile.writer import TsFileTableWriter, TsFileWriter

DOCS = Path(__file__).resolve().parents[2] / "shared" / "docs"
ANNOTATED = DOCS / "tsfile-annotated-example.txt"
ALL_PLAIN = {t: TSEncoding.PLAIN for t in T if t not in (T.VECTOR, T.UNKNOWN)}


def write_small(path):
    small_spec().write_ours(
        path,
        compression=Compressor.UNCOMPRESSED,
        encodings=ALL_PLAIN,
        time_encoding=TSEncoding.PLAIN,
    )
    return path.read_bytes()


def annotated_bytes():
    """{offset: bytes} of every fully shown line of the annotated example."""
    out = {}
    for line in ANNOTATED.read_text().splitlines():
        m = re.match(r"^([0-9a-f]{6})  ((?:[0-9a-f]{2} )*[0-9a-f]{2})(\s|$)", line)
        if not m or "..." in line:
            continue
        out[int(m.group(1), 16)] = bytes.fromhex(m.group(2))
    return out


@pytest.mark.skipif(not ANNOTATED.exists(), reason="shared docs not beside the repository")
def test_annotated_example_byte_for_byte(tmp_path):
    data = write_small(tmp_path / "small.tsfile")
    shown = annotated_bytes()
    assert len(shown) > 300
    assert len(data) == 0x5AA  # 1450 bytes, as the official file
    for off, want in shown.items():
        assert data[off : off + len(want)] == want, f"offset {off:#x}"


def test_small_example_layout(tmp_path):
    # Independent of the docs: a few landmarks of the annotated example.
    data = write_small(tmp_path / "small.tsfile")
    assert data[:7] == b"TsFile\x04"
    assert data[7:18] == b"\x00\x02\x0asmall\x04d1"  # chunk group of ("small", "d1")
    assert data[0x12:0x18] == bytes.fromhex("85001a060000")  # time chunk header
    assert data[0x14F:0x161] == b"\x04" + bytes(16) + b"\x02"
    size = struct.unpack(">i", data[-10:-6])[0]
    assert size == 301 and data[-6:] == b"TsFile"


def test_empty_writer_layout(tmp_path):
    # A registered table without rows (format notes section 3, table_empty.tsfile).
    path = tmp_path / "empty.tsfile"
    schema = TableSchema("empty_t", [ColumnSchema("id", T.STRING, ColumnCategory.TAG)])
    TsFileTableWriter(path, schema).close()
    data = path.read_bytes()
    assert data[:7] == b"TsFile\x04"
    assert data[7:0x18] == b"\x04" + bytes(16)
    assert data[0x18] == 0x02
    meta = data[0x19 : len(data) - 10]
    assert struct.unpack(">i", data[-10:-6])[0] == len(meta)
    assert meta[:3] == b"\x00\x01\x0e" and meta[3:10] == b"empty_t"  # 0 tables, 1 schema
    schema_end = meta.index(b"\x00\x00\x00\x00\x00\x00\x00\x18")
    assert meta[schema_end + 8] == 0x00  # no bloom filter
    assert meta[schema_end + 9] == 0x06  # 3 properties
    assert data[-6:] == b"TsFile"


# -- Tablet ---------------------------------------------------------------------------------------


def test_tablet_row_api():
    tab = Tablet(["Dev", "V", "D", "Day"], [T.STRING, T.INT32, T.DOUBLE, T.DATE], 4)
    assert tab.get_column_name_list() == ["dev", "v", "d", "day"]
    tab.add_timestamp(0, 10)
    tab.add_value_by_name("dev", 0, "x")
    tab.add_value_by_index(1, 0, 2**31 - 1)
    tab.add_value_by_index(3, 0, datetime.date(2024, 1, 4))
    assert tab.get_value_by_index(1, 0) == 2**31 - 1
    assert tab.get_value_by_name("day", 0) == datetime.date(2024, 1, 4)
    assert tab.get_value_by_index(2, 0) is None  # never set: null
    assert tab.get_timestamp_list() == [10, None, None, None]
    with pytest.raises(
        TypeMismatchError, match="column 'v', row 1: 2147483648 is out of the INT32"
    ):
        tab.add_value_by_index(1, 1, 2**31)
    with pytest.raises(TypeMismatchError, match="INT32 needs an int, got 1.5"):
        tab.add_value_by_index(1, 1, 1.5)
    with pytest.raises(TypeMismatchError, match="DOUBLE needs a float, got 'x'"):
        tab.add_value_by_index(2, 1, "x")
    with pytest.raises(IndexError, match="row index 4"):
        tab.add_value_by_index(0, 4, "x")
    with pytest.raises(ValueError, match="'nope' does not exist"):
        tab.add_value_by_name("nope", 0, 1)
    tab.set_timestamp_list([1, 2])
    assert tab.get_timestamp_list() == [1, 2, None, None]


def test_rows_without_timestamp(tmp_path):
    schema = TableSchema(
        "t", [ColumnSchema("id", T.STRING, ColumnCategory.TAG), ColumnSchema("v", T.INT64)]
    )
    tab = Tablet(["id", "v"], [T.STRING, T.INT64], 5)
    for r in (0, 2):
        tab.add_timestamp(r, r)
        tab.add_value_by_index(0, r, "a")
        tab.add_value_by_index(1, r, r * 10)
    a = tmp_path / "a.tsfile"
    with TsFileTableWriter(a, schema) as w:
        w.write_table(tab)  # rows 1, 3, 4 have no timestamp and no value: skipped
    b = tmp_path / "b.tsfile"
    with TsFileTableWriter(b, schema) as w:
        w.write_arrays(np.array([0, 2]), {"id": "a", "v": np.array([0, 20])})
    assert a.read_bytes() == b.read_bytes()
    tab.add_value_by_index(1, 3, 7)
    with (
        TsFileTableWriter(tmp_path / "c.tsfile", schema) as w,
        pytest.raises(ValueError, match="row 3 has a value in column 'v' but no timestamp"),
    ):
        w.write_table(tab)


# -- all write paths give the same file ----------------------------------------------------------


def _spec_arrays(spec):
    """The spec as numpy columns + null masks (write_arrays' input)."""
    cols, masks = {}, {}
    for name, dt, _ in spec.columns:
        vals = spec.data[name]
        nulls = np.array([v is None for v in vals], dtype=bool)
        if dt in (T.TEXT, T.STRING, T.BLOB, T.DATE):
            arr = np.array(vals, dtype=object)
        else:
            fill = {T.BOOLEAN: False, T.FLOAT: 0.0, T.DOUBLE: 0.0}.get(dt, 0)
            arr = np.array([fill if v is None else v for v in vals], dtype=dt.numpy_dtype)
        cols[name] = arr
        if nulls.any():
            masks[name] = nulls
    return np.array(spec.timestamps, dtype=np.int64), cols, masks


def test_write_paths_identical(tmp_path):
    pd = pytest.importorskip("pandas")
    spec = random_spec(3, 3000, devices=("d1", "d2", None))
    ref = tmp_path / "rows.tsfile"
    spec.write_ours(ref, page_size=700)
    want = ref.read_bytes()
    ts, cols, masks = _spec_arrays(spec)

    p = tmp_path / "arrays.tsfile"
    with TsFileTableWriter(p, spec.schema(), page_size=700) as w:
        w.write_arrays(ts, cols, null_masks=masks)
    assert p.read_bytes() == want

    p = tmp_path / "from_arrays.tsfile"
    masked = {
        k: np.ma.MaskedArray(v, mask=masks[k]) if k in masks and v.dtype != object else v
        for k, v in cols.items()
    }
    with TsFileTableWriter(p, spec.schema(), page_size=700) as w:
        w.write_table(Tablet.from_arrays(ts, masked, types={n: t for n, t, _ in spec.columns}))
    assert p.read_bytes() == want

    p = tmp_path / "chunks.tsfile"  # several write calls before one flush
    with TsFileTableWriter(p, spec.schema(), page_size=700) as w:
        for a in range(0, 3000, 1000):
            sub = {k: v[a : a + 1000] for k, v in cols.items()}
            sm = {k: v[a : a + 1000] for k, v in masks.items()}
            w.write_arrays(ts[a : a + 1000], sub, null_masks=sm)
    assert p.read_bytes() == want

    p = tmp_path / "df.tsfile"
    frame = {"Time": ts}
    for name, dt, _ in spec.columns:
        frame[name.upper()] = pd.Series(
            spec.data[name],
            dtype=object if dt in (T.TEXT, T.STRING, T.BLOB, T.DATE) else dt.to_pandas_dtype(),
        )
    df = pd.DataFrame(frame).sample(frac=1.0, random_state=1)  # any row order
    with TsFileTableWriter(p, spec.schema(), page_size=700) as w:
        w.write_dataframe(df)
    assert p.read_bytes() == want


def test_arrow_batch(tmp_path):
    pa = pytest.importorskip("pyarrow")
    spec = random_spec(4, 500, devices=("x", "y"), types=[T.INT64, T.DOUBLE, T.STRING, T.BOOLEAN])
    ref = tmp_path / "rows.tsfile"
    spec.write_ours(ref)
    arrays = {"time": pa.array(spec.timestamps, pa.int64())}
    for name, dt, _ in spec.columns:
        typ = {T.INT64: pa.int64(), T.DOUBLE: pa.float64(), T.BOOLEAN: pa.bool_()}.get(
            dt, pa.string()
        )
        arrays[name] = pa.array(spec.data[name], typ)
    p = tmp_path / "arrow.tsfile"
    with TsFileTableWriter(p, spec.schema()) as w:
        w.write_arrow_batch(pa.table(arrays))
    assert p.read_bytes() == ref.read_bytes()


# -- statistics -----------------------------------------------------------------------------------


@pytest.mark.parametrize("dt", [T.BOOLEAN, T.INT32, T.INT64, T.FLOAT, T.DOUBLE])
def test_numeric_statistics_against_numpy(dt):
    rng = np.random.default_rng(int(dt))
    n = 1000
    vals = (
        rng.integers(-(10**6), 10**6, n).astype(dt.numpy_dtype)
        if dt != T.BOOLEAN
        else (rng.integers(0, 2, n).astype(bool))
    )
    if dt in (T.FLOAT, T.DOUBLE):
        vals = (rng.normal(size=n) * 1000).astype(dt.numpy_dtype)
    times = np.cumsum(rng.integers(1, 5, n)).astype(np.int64)
    offsets = [0, 300, 300, 650, 1000]  # the second page is empty
    pages, chunk = numeric_value_statistics(dt, vals, times, offsets, True)
    assert pages[1] is None
    assert chunk.count == n and chunk.start_time == times[0] and chunk.end_time == times[-1]
    for p, (a, b) in enumerate(zip(offsets[:-1], offsets[1:], strict=True)):
        if a == b:
            continue
        v = vals[a:b]
        head = bytes([b - a]) if b - a < 128 else bytes([(b - a) & 0x7F | 0x80, (b - a) >> 7])
        head += struct.pack(">qq", times[a], times[b - 1])
        seq = 0.0
        for x in v.tolist():
            seq += float(x)
        if dt == T.BOOLEAN:
            typed = struct.pack(">BBq", int(v[0]), int(v[-1]), int(v.sum()))
        elif dt == T.INT32:
            typed = struct.pack(">iiiiq", v.min(), v.max(), v[0], v[-1], int(v.sum()))
        elif dt == T.INT64:
            typed = struct.pack(">qqqqd", v.min(), v.max(), v[0], v[-1], seq)
        elif dt == T.FLOAT:
            typed = struct.pack(">ffffd", v.min(), v.max(), v[0], v[-1], seq)
        else:
            typed = struct.pack(">ddddd", v.min(), v.max(), v[0], v[-1], seq)
        assert pages[p] == head + typed, p
    if dt not in (T.BOOLEAN,):
        assert chunk.min == vals.min() and chunk.max == vals.max()
    assert chunk.first == vals[0] and chunk.last == vals[-1]


def test_nan_statistics_follow_cpp():
    # C++ updates min/max with < and >: a NaN only sticks when it is the first value.
    vals = np.array([1.0, np.nan, -3.0], dtype=np.float64)
    _, chunk = numeric_value_statistics(T.DOUBLE, vals, np.arange(3), [0, 3], False)
    assert chunk.min == -3.0 and chunk.max == 1.0 and np.isnan(chunk.sum)


# -- encodings ------------------------------------------------------------------------------------


@pytest.mark.parametrize("enc", [TSEncoding.GORILLA, TSEncoding.CHIMP])
def test_end_marker_values_keep_the_encoding(tmp_path, enc):
    # GORILLA/CHIMP end-marker values (canonical NaN, MIN_VALUE) are written like the official
    # writer writes them, in a chunk of the declared encoding (no PLAIN chunk: the official reader
    # misreads a series whose chunks change encoding), and read back by count.
    import tsfile

    schema = TableSchema(
        "g", [ColumnSchema("d", T.DOUBLE, encoding=enc), ColumnSchema("i", T.INT32, encoding=enc)]
    )
    path = tmp_path / "g.tsfile"
    d = np.array([1.0, 2.0, 3.0, 1.0, np.nan, 3.0])
    i = np.array([1, 2, 3, 1, np.iinfo(np.int32).min, 3], np.int32)
    with TsFileTableWriter(path, schema, compression=Compressor.UNCOMPRESSED) as w:
        w.write_arrays(np.arange(3), {"d": d[:3], "i": i[:3]})
        w.flush()
        w.write_arrays(np.arange(3, 6), {"d": d[3:], "i": i[3:]})
    chunks = [c for c in scan_chunks(path.read_bytes()) if c["kind"] == "value"]
    assert [c["encoding"] for c in chunks] == [enc.name] * 4
    got = tsfile.read_table(path, "g")
    assert got["d"].tobytes() == d.tobytes()
    assert got["i"].tolist() == i.tolist()


def test_values_an_encoding_would_lose_are_refused(tmp_path):
    # SPRINTZ loses a value whose prediction error is MIN_VALUE, CAMEL a NaN after a page's first
    # value (the official writer writes such pages silently): the write call that brings such a
    # value is refused (EncodeError naming the table, device, column and time), nothing of it is
    # buffered, and the rows of other calls are written.
    import tsfile

    schema = TableSchema(
        "t",
        [
            ColumnSchema("dev", T.STRING, ColumnCategory.TAG),
            ColumnSchema("s", T.INT64, encoding=TSEncoding.SPRINTZ),
            ColumnSchema("c", T.DOUBLE, encoding=TSEncoding.CAMEL),
        ],
    )
    path = tmp_path / "lossy.tsfile"
    ok = {"s": np.array([5, 6, 7]), "c": np.array([np.nan, 2.5, 3.5])}  # NaN first: stored
    w = TsFileTableWriter(path, schema, page_size=10)
    w.write_arrays(np.arange(3), {"dev": "a", **ok})
    with pytest.raises(
        EncodeError,
        match=r"table 't', device \('b',\), column 'c' \(DOUBLE, "
        r"CAMEL\): the value nan at time 2 .* refused .* GORILLA or CHIMP",
    ):
        w.write_arrays(
            np.arange(3), {"dev": "b", "s": np.array([0, 0, 7]), "c": [1.0, 2.0, np.nan]}
        )
    lost = np.array([0, np.iinfo(np.int64).min] + [0] * 8)  # a full SPRINTZ block of 9
    with pytest.raises(
        EncodeError, match=r"device \('c',\), column 's' \(INT64, SPRINTZ\).* at time 1 "
    ):
        w.write_arrays(np.arange(10), {"dev": "c", "s": lost, "c": np.zeros(10)})
    w.close()
    got = tsfile.read_table(path, "t")
    assert got["dev"].tolist() == ["a"] * 3
    assert got["s"].tolist() == [5, 6, 7]
    assert got["c"].tobytes() == ok["c"].tobytes()


def test_unsupported_encoding_rejected(tmp_path):
    schema = TableSchema("t", [ColumnSchema("v", T.INT64, encoding=TSEncoding.DICTIONARY)])
    with pytest.raises(UnsupportedError):
        TsFileTableWriter(tmp_path / "x.tsfile", schema)
    schema = TableSchema("t", [ColumnSchema("v", T.BOOLEAN, encoding=TSEncoding.RLE)])
    with pytest.raises(UnsupportedError):
        TsFileTableWriter(tmp_path / "y.tsfile", schema)


# -- shapes ---------------------------------------------------------------------------------------


def test_pages_and_empty_pages(tmp_path):
    n = 2500
    schema = TableSchema(
        "p", [ColumnSchema("a", T.INT64), ColumnSchema("b", T.FLOAT), ColumnSchema("c", T.STRING)]
    )
    b_nulls = np.zeros(n, dtype=bool)
    b_nulls[1000:2000] = True  # page 2 of b is all null
    path = tmp_path / "p.tsfile"
    with TsFileTableWriter(path, schema, page_size=1000) as w:
        w.write_arrays(
            np.arange(n),
            {"a": np.arange(n), "b": np.ones(n, np.float32)},
            null_masks={"b": b_nulls},
        )
    chunks = scan_chunks(path.read_bytes())
    assert [(c["measurement"], c["pages"], c["empty_pages"]) for c in chunks] == [
        ("", 3, 0),
        ("a", 3, 0),
        ("b", 3, 1),
        ("c", 3, 3),
    ]
    assert chunks[3]["data_size"] == 3  # the never-written column: three 0x00 pages


def test_large_page(tmp_path):
    n = 1_100_000
    schema = TableSchema("big", [ColumnSchema("v", T.INT64), ColumnSchema("w", T.DOUBLE)])
    path = tmp_path / "big.tsfile"
    rng = np.random.default_rng(0)
    v = np.cumsum(rng.integers(-5, 6, n))
    wv = rng.normal(size=n)
    with TsFileTableWriter(path, schema, page_size=2_000_000) as w:
        w.write_arrays(np.arange(n) * 7, {"v": v, "w": wv})
    chunks = scan_chunks(path.read_bytes())
    assert [c["pages"] for c in chunks] == [1, 1, 1]
    got = _our_reader()(str(path))
    assert np.array_equal(got["time"], np.arange(n) * 7)
    assert np.array_equal(got["v"], v) and np.array_equal(got["w"], wv)


def test_deep_index_trees_read_back(tmp_path):
    # index_degree 4: INTERNAL_DEVICE levels (20 devices) and INTERNAL_MEASUREMENT levels
    # (21 series per device > 4 * 4) that the default degree only makes with > 65,536 series.
    read_table = _our_reader()
    spec = random_spec(
        9, 400, devices=tuple(f"d{i:02d}" for i in range(20)), types=[T.INT32] * 20, null_rate=0.0
    )
    path = tmp_path / "deep.tsfile"
    spec.write_ours(path, index_degree=4)
    _compare_with_reader(read_table, path, spec)


def test_round_trip_our_reader(tmp_path):
    read_table = _our_reader()
    spec = random_spec(10, 5000, devices=("α", "b", None))
    path = tmp_path / "rt.tsfile"
    spec.write_ours(path, page_size=800, tablet_rows=1700, flush_each_tablet=True)
    _compare_with_reader(read_table, path, spec)


def _our_reader():
    # Imported here, not skipped when missing: the reader is part of the package, and an import
    # error there must fail these round trips, not turn them into skips or silent passes.
    from tsfile.dataframe import read_table

    return read_table


def _compare_with_reader(read_table, path, spec):
    got = read_table(str(path), spec.table)
    tags = [c[0] for c in spec.columns if c[2] == ColumnCategory.TAG]

    def key(i):
        return (
            tuple(
                (0, b"") if spec.data[t][i] is None else (1, spec.data[t][i].encode()) for t in tags
            ),
            spec.timestamps[i],
        )

    order = sorted(range(len(spec.timestamps)), key=key)
    assert got["time"].tolist() == [spec.timestamps[i] for i in order]
    for name, dt, _ in spec.columns:
        col = got[name]
        want = [spec.data[name][i] for i in order]
        if isinstance(col, np.ma.MaskedArray):
            vals = [
                None if m else v
                for v, m in zip(col.data.tolist(), np.ma.getmaskarray(col).tolist(), strict=True)
            ]
        else:
            vals = col.tolist()
        if dt == T.DATE:
            want = [None if v is None else v.year * 10000 + v.month * 100 + v.day for v in want]
        assert vals == want, name


# -- errors ---------------------------------------------------------------------------------------


def test_errors(tmp_path):
    schema = TableSchema(
        "t", [ColumnSchema("id", T.STRING, ColumnCategory.TAG), ColumnSchema("v", T.INT32)]
    )
    w = TsFileTableWriter(tmp_path / "e.tsfile", schema)
    with pytest.raises(ColumnNotExistError):
        w.write_arrays(np.arange(2), {"nope": np.arange(2)})
    with pytest.raises(TypeMismatchError, match="'v', row 1: 1099511627776 is out of the INT32"):
        w.write_arrays(np.arange(2), {"v": np.array([0, 2**40])})
    with pytest.raises(TypeMismatchError, match="'v', row 0: 0.5 is not an integer"):
        w.write_arrays(np.arange(2), {"v": np.array([0.5, 1.0])})
    with pytest.raises(TypeMismatchError, match="'id', row 0: TAG values must be str"):
        w.write_arrays(np.arange(2), {"id": np.array([1, 2], dtype=object), "v": np.arange(2)})
    with pytest.raises(ValueError, match="'v' must be 1-D with 2 values"):
        w.write_arrays(np.arange(2), {"v": np.arange(3)})
    tab = Tablet(["v"], [T.INT32], 1)
    tab.set_table_name("other")
    with pytest.raises(TableNotExistError):
        w.write_table(tab)
    w.close()
    with pytest.raises(TsFileError, match="closed"):
        w.write_arrays(np.arange(1), {"v": np.arange(1)})
    low = TsFileWriter(tmp_path / "f.tsfile")
    with pytest.raises(TableNotExistError):
        low.write_arrays("t", np.arange(1), {"v": np.arange(1)})
    low.close()


def test_memory_threshold_flushes(tmp_path):
    schema = TableSchema("m", [ColumnSchema("v", T.INT64)])
    path = tmp_path / "m.tsfile"
    with TsFileTableWriter(path, schema, memory_threshold=100_000) as w:
        for k in range(5):
            w.write_arrays(np.arange(k * 10_000, (k + 1) * 10_000), {"v": np.arange(10_000)})
    chunks = scan_chunks(path.read_bytes())
    assert len([c for c in chunks if c["kind"] == "time"]) == 5


def test_buffered_rows_do_not_alias_inputs(tmp_path):
    schema = TableSchema(
        "t", [ColumnSchema("id", T.STRING, ColumnCategory.TAG), ColumnSchema("v", T.INT64)]
    )
    ref = tmp_path / "ref.tsfile"
    with TsFileTableWriter(ref, schema) as w:
        w.write_arrays(np.array([1, 2, 3, 4]), {"id": "a", "v": np.array([10, 20, 30, 40])})
    # The same rows from one reused tablet and one reused array, all before the flush.
    p = tmp_path / "reuse.tsfile"
    with TsFileTableWriter(p, schema) as w:
        tab = Tablet(["id", "v"], [T.STRING, T.INT64], 2)
        for start in (0, 2):
            for r in range(2):
                tab.add_timestamp(r, start + r + 1)
                tab.add_value_by_index(0, r, "a")
                tab.add_value_by_index(1, r, (start + r + 1) * 10)
            w.write_table(tab)
    assert p.read_bytes() == ref.read_bytes()
    p = tmp_path / "reuse2.tsfile"
    with TsFileTableWriter(p, schema) as w:
        ts, v = np.array([1, 2]), np.array([10, 20])
        w.write_arrays(ts, {"id": "a", "v": v})
        ts[:] = [3, 4]
        v[:] = [30, 40]
        w.write_arrays(ts, {"id": "a", "v": v})
    assert p.read_bytes() == ref.read_bytes()


@pytest.mark.parametrize("bits", [20, 50, 62])
def test_int64_sum_is_the_sequential_double_sum(bits):
    # Small values take an exact integer shortcut, large ones the double additions: both must
    # give the double that adding the values one by one gives.
    rng = np.random.default_rng(bits)
    vals = rng.integers(-(2**bits), 2**bits, 5001)
    _, chunk = numeric_value_statistics(T.INT64, vals, np.arange(5001), [0, 5001], False)
    seq = 0.0
    for x in vals.tolist():
        seq += float(x)
    assert chunk.sum == seq
    assert chunk.min == vals.min() and chunk.max == vals.max()


def test_properties_and_low_level_dataframe(tmp_path):
    pd = pytest.importorskip("pandas")
    schema = TableSchema("t", [ColumnSchema("v", T.DOUBLE)])
    path = tmp_path / "p.tsfile"
    with TsFileWriter(path) as w:
        w.add_tsfile_property("owner", b"me")
        w.write_dataframe("t", pd.DataFrame({"time": [1, 2], "v": [0.5, 1.5]}), schema)
    data = path.read_bytes()
    tail = data[-10 - struct.unpack(">i", data[-10:-6])[0] : -10]
    assert b"\x08\x14encryptKey\x01" in tail  # 4 properties (svarint 4 = 0x08), C++ ones first
    assert tail.endswith(b"\x0aowner\x04me")


def test_property_round_trip_our_reader(tmp_path_factory):
    # Random shapes (types, null rates, devices, page sizes, write-call splits, flushes) written by
    # us and read back by our reader give the rows that were written.
    read_table = _our_reader()
    hyp = pytest.importorskip("hypothesis")
    st = hyp.strategies
    all_types = [
        T.BOOLEAN,
        T.INT32,
        T.INT64,
        T.FLOAT,
        T.DOUBLE,
        T.TEXT,
        T.STRING,
        T.TIMESTAMP,
        T.DATE,
        T.BLOB,
    ]

    @hyp.settings(max_examples=25, deadline=None, database=None)
    @hyp.given(
        seed=st.integers(0, 10_000),
        n=st.integers(1, 700),
        ndev=st.integers(1, 4),
        types=st.lists(st.sampled_from(all_types), min_size=1, max_size=5),
        null_rate=st.sampled_from([0.0, 0.05, 0.5, 1.0]),
        page=st.integers(1, 300),
        step=st.integers(1, 700),
        flush=st.booleans(),
        comp=st.sampled_from([Compressor.UNCOMPRESSED, Compressor.LZ4, Compressor.SNAPPY]),
    )
    def check(seed, n, ndev, types, null_rate, page, step, flush, comp):
        devices = tuple(f"d{i}" for i in range(ndev))
        spec = random_spec(seed, n, devices=devices, null_rate=null_rate, types=types)
        path = tmp_path_factory.mktemp("prop") / "p.tsfile"
        spec.write_ours(
            path, tablet_rows=step, flush_each_tablet=flush, page_size=page, compression=comp
        )
        _compare_with_reader(read_table, path, spec)

    check()


def test_tablet_value_lists():
    # The whole-column getters of the official Tablet, on each storage form: row-API lists (unset
    # cells are None), from_arrays arrays with a null mask, a scalar shared by every row, DATE
    # stored as yyyyMMdd and given back as datetime.date.
    tab = Tablet(["Id", "v", "d"], [T.STRING, T.INT64, T.DATE], 3)
    tab.add_value_by_index(0, 0, "a")
    tab.add_value_by_name("v", 2, -7)
    tab.add_value_by_index(2, 1, datetime.date(2024, 2, 29))
    assert tab.get_max_row_num() == 3
    assert tab.get_value_list_by_name("ID") == ["a", None, None]
    assert tab.get_value_list() == [
        ["a", None, None],
        [None, None, -7],
        [None, datetime.date(2024, 2, 29), None],
    ]
    arr = Tablet.from_arrays(
        np.array([5, 6]),
        {"id": "dev", "v": np.array([1, 2], dtype=np.int32), "b": np.array([True, False])},
        null_masks={"v": np.array([False, True])},
    )
    assert arr.get_max_row_num() == 2
    assert arr.get_value_list() == [["dev", "dev"], [1, None], [True, False]]
    assert [type(x) for x in arr.get_value_list_by_name("b")] == [bool, bool]
    assert [type(x) for x in arr.get_value_list_by_name("v")] == [int, type(None)]
