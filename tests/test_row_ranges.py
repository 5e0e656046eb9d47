"""Row ranges of value pages (issue 10 part 3): the codecs' row-range decoders
(codec_row.decode_rows) read values [a, b) of a page decoding only what they must: ALP blocks and
RLE runs / bit-packed groups before a are passed by their headers, PLAIN values found by offset
(INT32 svarints walked), the serial bit streams (GORILLA, CHIMP, SPRINTZ, RLBE, CAMEL) walked
without storing; nothing after value b-1 is read, and a SNAPPY / LZ4 page is decompressed only as
far as the decoder reads.

Every range equals decode-then-slice, for random and block-aligned ranges, every bit width, every
codec path and ISA row, compressed and not; hostile pages raise CorruptDataError; and the file
reader (tsfile._read.engine.value_range) reads a time window's value rows through them.
"""

from __future__ import annotations

import struct

import cramjam
import numpy as np
import pytest

import tsfile
from tsfile import _simd
from tsfile._read import engine
from tsfile._read import pushdown as pd
from tsfile.codecs import _registry, alp
from tsfile.errors import CorruptDataError, UnsupportedError
from tsfile.types import TSDataType as T
from tsfile.types import TSEncoding as E

DATA_TYPES = {
    "bool": T.BOOLEAN,
    "int32": T.INT32,
    "int64": T.INT64,
    "float32": T.FLOAT,
    "float64": T.DOUBLE,
}
PATHS = ("per_value", "batch", "simd")
# values per block / run / group where the codec has them: ranges start and end around them
BOUNDARIES = {E.ALP: 1024, E.RLE: 8, E.PLAIN: 1, E.SPRINTZ: 8}


def _has_rows(row) -> bool:
    if row.kind == "binary":
        return False
    try:
        engine.decode_value_rows(row.encoding, int(DATA_TYPES[row.kind]), b"", 0, 0)
    except UnsupportedError:
        return False
    return True


ROWS = [r for r in _registry.rows() if _has_rows(r)]
ROW_IDS = [f"{r.label}-{r.kind}" for r in ROWS]


def test_the_codecs_the_issue_names_have_row_range_decoders():
    have = {(r.encoding, r.kind) for r in ROWS}
    for enc, kinds in {
        E.ALP: ("float32", "float64"),
        E.RLE: ("bool", "int32", "int64"),
        E.PLAIN: ("bool", "int32", "int64", "float32", "float64"),
        E.GORILLA: ("int32", "int64", "float32", "float64"),
        E.CHIMP: ("int32", "int64", "float32", "float64"),
        E.SPRINTZ: ("int32", "int64", "float32", "float64"),
        E.RLBE: ("int32", "int64", "float32", "float64"),
        E.CAMEL: ("float64",),
        E.TS_2DIFF: ("float32", "float64"),  # integers: pushdown.value_rows
    }.items():
        for kind in kinds:
            assert (int(enc), kind) in have, (enc, kind)


def _values(row, n, seed, width=None):
    """n values of the row's kind; `width`: integers of that many bits (RLE widths), else a
    random walk with repeats (runs for GORILLA, ALP-friendly decimals for floats)."""
    rng = np.random.default_rng(seed)
    if row.kind == "bool":
        return rng.integers(0, 2, n).astype(bool)
    if row.kind in ("int32", "int64"):
        if width is not None:
            top = (1 << width) - 1 if width else 0
            if width == np.dtype(row.dtype).itemsize * 8:
                info = np.iinfo(row.dtype)
                return rng.integers(info.min, info.max, n, dtype=row.dtype, endpoint=True)
            return rng.integers(0, top, n, endpoint=True).astype(row.dtype)
        steps = rng.integers(-40, 40, n) * (rng.random(n) < 0.7)
        return np.cumsum(steps).astype(row.dtype)
    walk = np.cumsum(rng.normal(size=n) * (rng.random(n) < 0.7))
    return (np.round(walk * 100) / 100).astype(row.dtype)


def _same(got, want):
    want = np.ascontiguousarray(want)
    assert got.dtype.itemsize == want.dtype.itemsize
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


def _ranges(n, boundary, rng, count=12):
    out = [(0, 0), (0, n), (0, 1), (n - 1, n), (n // 2, n // 2), (1, n - 1)]
    for k in range(boundary, n, max(boundary, n // 7 // boundary * boundary)):
        out += [(k, k + 1), (k - 1, k + 1), (k, min(n, k + boundary)), (k - boundary, k)]
    for _ in range(count):
        a, b = sorted(int(x) for x in rng.integers(0, n + 1, 2))
        out.append((a, b))
    return [(a, b) for a, b in out if 0 <= a <= b <= n]


def _compress(page: bytes, how: str) -> bytes:
    if how == "lz4":
        return bytes(cramjam.lz4.compress_block(page, store_size=False))
    return bytes(cramjam.snappy.compress_raw(page))


def _check_page(row, page, full, rng, paths=PATHS, compressions=(None, "lz4", "snappy")):
    t = int(DATA_TYPES[row.kind])
    n = len(full)
    for comp in compressions:
        data = page if comp is None else _compress(page, comp)
        for path in paths:
            for a, b in _ranges(n, BOUNDARIES.get(row.encoding, 64), rng):
                got, _ = engine.decode_value_rows(
                    row.encoding, t, data, a, b, path, comp, len(page)
                )
                _same(got, full[a:b])


@pytest.fixture(params=_simd.available_isas())
def isa(request):
    before = _simd.active_isa()
    _simd.set_simd(request.param)
    yield request.param
    _simd.set_simd(before)


@pytest.mark.parametrize("row", ROWS, ids=ROW_IDS)
def test_ranges_equal_decode_then_slice(row, isa):
    rng = np.random.default_rng(row.encoding * 16 + len(row.kind))
    n = 5000
    values = _values(row, n, seed=row.encoding)
    page = _registry.encode(row.encoding, values, row.dtype)
    full = _registry.decode(row.encoding, page, row.dtype, count=n)
    _same(full, values)
    compressions = (None, "lz4", "snappy") if isa == _simd.available_isas()[0] else (None,)
    _check_page(row, page, full, rng, compressions=compressions)


RLE_ROWS = [r for r in ROWS if r.encoding == E.RLE and r.kind != "bool"]


@pytest.mark.parametrize("row", RLE_ROWS, ids=[f"RLE-{r.kind}" for r in RLE_ROWS])
def test_rle_every_bit_width(row, isa):
    bits = np.dtype(row.dtype).itemsize * 8
    rng = np.random.default_rng(bits)
    for width in range(bits + 1):
        values = _values(row, 700 + width, seed=width, width=width)
        page = _registry.encode(row.encoding, values, row.dtype)
        full = _registry.decode(row.encoding, page, row.dtype, count=len(values))
        _same(full, values)
        _check_page(row, page, full, rng, compressions=(None,))


def _uvarint(x: int) -> bytes:
    out = bytearray()
    while x >= 0x80:
        out.append(x & 0x7F | 0x80)
        x >>= 7
    out.append(x)
    return bytes(out)


def _rle_run_block(value: int, count: int, width: int, is64: bool) -> bytes:
    """One RLE block holding a single RLE run (the official writer writes bit-packed runs only;
    readers must take both)."""
    nbytes = (width + 7) // 8
    raw = (value & ((1 << 64) - 1)).to_bytes(8, "big" if is64 else "little")
    val = raw[8 - nbytes :] if is64 else raw[:nbytes]
    body = bytes([width]) + _uvarint(count << 1) + val
    return _uvarint(len(body)) + body


@pytest.mark.parametrize("row", RLE_ROWS, ids=[f"RLE-{r.kind}" for r in RLE_ROWS])
def test_rle_pages_of_several_blocks_with_rle_runs(row, isa):
    is64 = row.kind == "int64"
    rng = np.random.default_rng(7)
    parts, pages = [], []
    for i, (count, width) in enumerate([(300, 5), (1000, 0), (77, 13), (5, 8), (900, 3), (1, 9)]):
        if i % 2:
            value = int(rng.integers(0, 1 << max(width, 1))) if width else 0
            parts.append(np.full(count, value, row.dtype))
            pages.append(_rle_run_block(value, count, width, is64))
        else:
            values = _values(row, count, seed=i, width=width)
            parts.append(values)
            pages.append(_registry.encode(row.encoding, values, row.dtype))
    page = b"".join(pages)
    want = np.concatenate(parts)
    full = _registry.decode(row.encoding, page, row.dtype, count=len(want))
    _same(full, want)
    _check_page(row, page, full, rng)


def test_alp_blocks_of_every_kind():
    """ALP pages whose blocks differ: widths from 0 up, exceptions (NaN, inf, -0.0), PLAIN
    blocks (random bits), a last block that is partial."""
    rng = np.random.default_rng(3)
    for dtype in (np.float64, np.float32):
        blocks = [np.full(1024, 1.5)]  # width 0
        for digits in range(1, 9):
            blocks.append(np.round(rng.uniform(0, 10.0**digits, 1024)) / 100)
        special = np.round(rng.normal(size=1024) * 100) / 100
        special[rng.integers(0, 1024, 40)] = [np.nan, np.inf, -np.inf, -0.0] * 10
        blocks.append(special)
        blocks.append(rng.random(1024) * np.pi)  # PLAIN where ALP does not pay
        blocks.append(np.round(rng.normal(size=333) * 10, 1))
        values = np.concatenate(blocks).astype(dtype)
        page = alp.encode(values)
        full = alp.decode(page, dtype)
        _same(full, values)
        row = next(r for r in ROWS if r.encoding == E.ALP and r.dtype == dtype)
        _check_page(row, page, full, rng)


def test_gorilla_end_marker_values_inside_a_range():
    """GORILLA pages are read by count: a value equal to the end marker is a value (as the
    official C++ reader takes it), in the walked part and in the range alike."""
    values = np.round(np.cumsum(np.random.default_rng(2).normal(size=3000)), 2)
    values[[10, 1500, 2999]] = np.float64("nan")  # the canonical NaN: GORILLA's end marker
    page = _registry.encode(E.GORILLA, values, np.float64)
    full = _registry.decode(E.GORILLA, page, np.float64, count=len(values))
    _same(full, values)
    row = next(r for r in ROWS if r.encoding == E.GORILLA and r.kind == "float64")
    _check_page(row, page, full, np.random.default_rng(0))


@pytest.mark.parametrize("comp", ["lz4", "snappy"])
@pytest.mark.parametrize(
    "enc, dtype",
    [
        (E.ALP, np.float64),
        (E.RLE, np.int64),
        (E.GORILLA, np.float64),
        (E.PLAIN, np.int32),
        (E.PLAIN, np.float64),
    ],
)
def test_a_range_near_the_start_decompresses_only_a_prefix(enc, dtype, comp):
    rng = np.random.default_rng(4)
    n = 400_000
    if dtype == np.float64:
        values = np.round(rng.normal(size=n) * 1000, 2)
    else:
        values = rng.integers(-(1 << 20), 1 << 20, n).astype(dtype)
    page = _registry.encode(enc, values, dtype)
    data = _compress(page, comp)
    t = int(T.DOUBLE if dtype == np.float64 else (T.INT32 if dtype == np.int32 else T.INT64))
    got, decompressed = engine.decode_value_rows(enc, t, data, 1000, 2000, "batch", comp, len(page))
    _same(got, values[1000:2000])
    assert decompressed < len(page) // 4, (decompressed, len(page))
    # and to the end of the page: everything
    got, decompressed = engine.decode_value_rows(enc, t, data, n - 5, n, "batch", comp, len(page))
    _same(got, values[n - 5 :])
    assert decompressed == len(page)


TEXT_ENCODINGS = (E.DICTIONARY, E.PLAIN)


@pytest.mark.parametrize("enc", TEXT_ENCODINGS, ids=lambda e: e.name)
@pytest.mark.parametrize("data_type", [T.STRING, T.TEXT, T.BLOB], ids=lambda t: t.name)
def test_text_ranges_equal_decode_then_slice(enc, data_type):
    """DICTIONARY: the index stream's runs before the range passed by their headers; PLAIN text:
    the values before it passed by their length prefixes; no object built for them."""
    rng = np.random.default_rng(int(enc))
    n = 3000
    words = [f"w{i}-é".encode() for i in range(37)]
    values = [words[int(i)] for i in rng.integers(0, len(words), n)]
    values[100:700] = [words[3]] * 600  # a long run of one index
    page = _registry.encode(enc, values, T.BLOB)
    want = [v.decode() for v in values] if data_type != T.BLOB else values
    for a, b in _ranges(n, 8, rng):
        got, _ = engine.decode_value_rows(enc, int(data_type), page, a, b)
        assert list(got) == want[a:b], (a, b)


def test_dictionary_ranges_refuse_bad_indices_and_runs():
    values = [b"a", b"b", b"c"] * 400
    page = bytearray(_registry.encode(E.DICTIONARY, values, T.BLOB))
    t = int(T.STRING)
    # the dictionary has 3 entries: point an index run past them (the last index bytes are
    # packed indices of the final group)
    bad = bytearray(page)
    bad[-1] = 0xFF
    with pytest.raises(CorruptDataError, match="DICTIONARY"):
        engine.decode_value_rows(E.DICTIONARY, t, bytes(bad), 1190, 1200)
    with pytest.raises(CorruptDataError, match="DICTIONARY"):  # fewer values than asked
        engine.decode_value_rows(E.DICTIONARY, t, bytes(page), 1199, 1201)
    with pytest.raises(CorruptDataError, match="DICTIONARY"):  # cut in the entries
        engine.decode_value_rows(E.DICTIONARY, t, bytes(page[:4]), 0, 1)
    # invalid UTF-8 in an entry used by the range
    text = _registry.encode(E.DICTIONARY, [b"ok", b"\xff\xfe"] * 10, T.BLOB)
    with pytest.raises(CorruptDataError, match="UTF-8"):
        engine.decode_value_rows(E.DICTIONARY, t, text, 5, 8)


# ---- hostile pages ------------------------------------------------------------------------------


def _decode_first(row, data, b):
    """The first b values of a page by the codec's decode_into (the count known, as the reader
    decodes), or None when that raises CorruptDataError."""
    out = np.empty(b, row.dtype)
    try:
        _registry.module_of(row.encoding, row.dtype).decode_into(data, out)
    except CorruptDataError:
        return None
    return out


def _raises_or_equals(row, data, full_ok, a, b, comp=None, size=-1):
    """decode_value_rows on a damaged page: CorruptDataError, or the values that decoding the
    first b values gives (when that succeeds). Never anything else."""
    t = int(DATA_TYPES[row.kind])
    try:
        got, _ = engine.decode_value_rows(row.encoding, t, data, a, b, "batch", comp, size)
    except CorruptDataError:
        return
    if full_ok is not None and len(full_ok) >= b:
        _same(got, full_ok[a:b])


@pytest.mark.parametrize("row", ROWS, ids=ROW_IDS)
def test_damaged_pages_raise_corrupt_data_error(row):
    rng = np.random.default_rng(row.encoding * 7 + len(row.kind))
    n = 3000
    values = _values(row, n, seed=1)
    page = bytearray(_registry.encode(row.encoding, values, row.dtype))
    t = int(DATA_TYPES[row.kind])
    # cut pages: what a range returns is the page's values (a cut removes only the bytes after
    # it), and a range succeeds wherever decoding the values up to its end does (a bit stream's
    # last byte may hold only its end marker); reaching past the cut raises, never reads past it
    intact = _registry.decode(row.encoding, bytes(page), row.dtype, count=n)
    for cut in sorted({0, 1, 3, len(page) // 3, len(page) // 2, len(page) - 1, len(page)}):
        data = bytes(page[:cut])
        for a, b in [(0, n), (n - 1, n), (n // 4, n // 4 + 10), (n, n + 1)]:
            try:
                got, _ = engine.decode_value_rows(row.encoding, t, data, a, b)
            except CorruptDataError:
                assert _decode_first(row, data, b) is None, (cut, a, b)
            else:
                # a range that succeeds is what decoding its first b values gives (that decode
                # must succeed too: a range past the page's values is not made up)
                full = _decode_first(row, data, b) if b > n else intact
                assert full is not None, (cut, a, b)
                _same(got, full[a:b])
    # random damage: CorruptDataError or the values a decode of the first b values gives
    for _ in range(60):
        bad = bytearray(page)
        for _ in range(int(rng.integers(1, 4))):
            bad[int(rng.integers(0, len(bad)))] = int(rng.integers(0, 256))
        bad = bytes(bad[: int(rng.integers(len(bad) // 2, len(bad) + 1))])
        a, b = sorted(int(x) for x in rng.integers(0, n + 1, 2))
        full_ok = _decode_first(row, bad, b)
        _raises_or_equals(row, bad, full_ok, a, b)
        _raises_or_equals(row, _compress(bad, "lz4"), full_ok, a, b, "lz4", len(bad))


def _alp_page(values):
    return bytearray(alp.encode(np.asarray(values, np.float64)))


def test_alp_headers_that_lie():
    values = np.round(np.random.default_rng(1).normal(size=3000) * 100, 2)
    page = _alp_page(values)
    t = int(T.DOUBLE)
    first_block = 16
    second = first_block + struct.unpack_from("<I", page, first_block + 12)[0] + 28
    cases = {
        "block count 0": (first_block + 4, struct.pack("<I", 0)),
        "block count 1025": (first_block + 4, struct.pack("<I", 1025)),
        "body past the page": (first_block + 12, struct.pack("<I", 1 << 31)),
        "second block's width 65": (second + 24, bytes([65])),
        "page count beyond the blocks": (4, struct.pack("<I", 10**6)),
        "unknown scheme": (second, bytes([7])),
    }
    for what, (at, patch) in cases.items():
        bad = bytearray(page)
        bad[at : at + len(patch)] = patch
        for a, b in [(0, 10), (1500, 1600), (2990, 3000)]:
            if what.startswith("second") and b <= 1024 or (what == "unknown scheme" and b <= 1024):
                continue  # the damage lies after the range: never read
            with pytest.raises(CorruptDataError, match="ALP"):
                engine.decode_value_rows(E.ALP, t, bytes(bad), a, b)


def _varint_len(buf, at):
    k = at
    while buf[k] & 0x80:
        k += 1
    return k + 1 - at


def test_rle_headers_that_lie():
    values = np.random.default_rng(1).integers(0, 1000, 2000).astype(np.int32)
    page = _registry.encode(E.RLE, values, np.int32)
    t = int(T.INT32)
    # block: uvarint length, width byte, runs (uvarint header, last-group count, groups)
    blen = _varint_len(page, 0)
    width_at = blen
    run_at = width_at + 1
    hdr = _varint_len(page, run_at)
    last_at = run_at + hdr
    cases = {
        "block length past the page": _uvarint(len(page) * 4) + page[blen:],
        "width 33": page[:width_at] + bytes([33]) + page[width_at + 1 :],
        "run past its block": page[:run_at] + _uvarint((1 << 21) | 1) + page[last_at:],
        "last group count 0": page[:last_at] + b"\x00" + page[last_at + 1 :],
        "last group count 9": page[:last_at] + b"\x09" + page[last_at + 1 :],
    }
    for bad in cases.values():
        for a, b in [(0, 5), (600, 700), (1990, 2000)]:
            with pytest.raises(CorruptDataError, match="RLE"):
                engine.decode_value_rows(E.RLE, t, bad, a, b)


@pytest.mark.parametrize("data_type", [T.INT32, T.INT64, T.BOOLEAN], ids=lambda t: t.name)
@pytest.mark.parametrize("path", PATHS)
def test_rle_width_0_bit_packed_runs(data_type, path):
    """A block of width 0 (no writer here emits one; the page decoders read its bit-packed runs
    as zeros): its whole groups must not reach the group kernels, which need a width of 1 at
    least (a division by the width: SIGFPE)."""
    # block: length 4, width 0, a bit-packed run of 3 groups (last one full, no packed bytes),
    # an RLE run of 5 values (no value bytes at width 0); then a block of width 8 holding a
    # bit-packed run of 2 groups, 1..16 (bytes after the width-0 groups: the kernels would run)
    packed = bytes(range(1, 17))
    page = bytes([4, 0, (3 << 1) | 1, 8, 5 << 1, 19, 8, (2 << 1) | 1, 8]) + packed
    dtype = {T.INT32: np.int32, T.INT64: np.int64, T.BOOLEAN: np.bool_}[data_type]
    full = np.asarray(_registry.decode(E.RLE, page, dtype, count=45))
    assert full.astype(np.int64).tolist() == [0] * 29 + [
        int(bool(v)) if data_type == T.BOOLEAN else v for v in packed
    ]
    for a, b in [(0, 24), (0, 45), (3, 20), (8, 16), (7, 30), (29, 45)]:
        got, _ = engine.decode_value_rows(E.RLE, int(data_type), page, a, b, path)
        _same(got, np.asarray(full)[a:b])


def test_dictionary_indices_of_width_0():
    """DICTIONARY's index stream is an RLE stream read by the same row-range decoder: a width-0
    block's whole groups must not reach the group kernels either."""
    # one entry "a"; indices: a width-0 block (bit-packed 3 groups, an RLE run of 5), then a
    # width-8 block of 2 bit-packed groups of index 0
    page = bytes([2, 2]) + b"a" + bytes([4, 0, (3 << 1) | 1, 8, 5 << 1, 19, 8, (2 << 1) | 1, 8])
    page += bytes(16)
    for a, b in [(0, 24), (0, 45), (8, 16), (29, 45)]:
        for path in ("per_value", "batch"):
            got, _ = engine.decode_value_rows(E.DICTIONARY, int(T.STRING), page, a, b, path)
            assert got.tolist() == ["a"] * (b - a)


def test_a_damaged_compressed_body_is_corrupt_data_error():
    values = np.round(np.random.default_rng(1).normal(size=50_000) * 100, 2)
    for enc in (E.ALP, E.GORILLA, E.PLAIN):
        page = _registry.encode(enc, values, np.float64)
        data = bytearray(_compress(page, "lz4"))
        del data[len(data) // 2 :]
        with pytest.raises(CorruptDataError, match="LZ4"):
            engine.decode_value_rows(
                enc, int(T.DOUBLE), bytes(data), 49_000, 50_000, "batch", "lz4", len(page)
            )


def test_bad_arguments():
    page = _registry.encode(E.ALP, np.arange(10.0), np.float64)
    with pytest.raises(ValueError):
        engine.decode_value_rows(E.ALP, int(T.DOUBLE), page, 5, 4)
    with pytest.raises(ValueError):
        engine.decode_value_rows(E.ALP, int(T.DOUBLE), page, -1, 4)
    with pytest.raises(UnsupportedError):
        engine.decode_value_rows(E.ZIGZAG, int(T.INT64), page, 0, 1)


# ---- the file reader ------------------------------------------------------------------------

FILE_COLUMNS = [
    ("alp", T.DOUBLE, E.ALP),
    ("alpf", T.FLOAT, E.ALP),
    ("rle", T.INT64, E.RLE),
    ("rle32", T.INT32, E.RLE),
    ("gor", T.DOUBLE, E.GORILLA),
    ("gori", T.INT64, E.GORILLA),
    ("chimp", T.DOUBLE, E.CHIMP),
    ("sprintz", T.INT64, E.SPRINTZ),
    ("rlbe", T.INT32, E.RLBE),
    ("camel", T.DOUBLE, E.CAMEL),
    ("pi32", T.INT32, E.PLAIN),
    ("pdbl", T.DOUBLE, E.PLAIN),
    ("pbool", T.BOOLEAN, E.PLAIN),
    ("t2df", T.DOUBLE, E.TS_2DIFF),
    ("t2dff", T.FLOAT, E.TS_2DIFF),
    ("dict", T.STRING, E.DICTIONARY),
    ("ptxt", T.STRING, E.PLAIN),
]
FILE_ROWS = 100_000


@pytest.fixture(scope="module", params=["UNCOMPRESSED", "LZ4", "SNAPPY"])
def value_file(request, tmp_path_factory):
    rng = np.random.default_rng(11)
    times = 1_000_000 + np.cumsum(rng.integers(1, 50, FILE_ROWS)).astype(np.int64)
    data, masks = {}, {}
    cols = [tsfile.ColumnSchema("id", T.STRING, tsfile.ColumnCategory.TAG)]
    for name, t, enc in FILE_COLUMNS:
        cols.append(tsfile.ColumnSchema(name, t, tsfile.ColumnCategory.FIELD, encoding=enc))
        if t == T.STRING:
            v = np.array([f"s{i}" for i in rng.integers(0, 50, FILE_ROWS)], dtype=object)
        elif t == T.BOOLEAN:
            v = rng.integers(0, 2, FILE_ROWS).astype(bool)
        elif t in (T.INT32, T.INT64):
            v = np.cumsum(rng.integers(-30, 30, FILE_ROWS)).astype(t.numpy_dtype)
        else:
            # + 0.0: a -0.0 from the rounding, which TS_2DIFF would store as 0.0 (the writer
            # refuses it), becomes 0.0
            v = np.round(np.cumsum(rng.normal(size=FILE_ROWS)) * 100) / 100 + 0.0
            v = v.astype(t.numpy_dtype)
        nulls = name.startswith(("alp", "gor", "rle", "dict", "ptxt"))
        mask = rng.random(FILE_ROWS) < (0.1 if nulls else 0.0)
        data[name], masks[name] = v, mask
    path = tmp_path_factory.mktemp("rows") / f"v_{request.param}.tsfile"
    comp = tsfile.Compressor[request.param]
    with tsfile.TsFileTableWriter(
        str(path), tsfile.TableSchema("t", cols), page_size=FILE_ROWS, compression=comp
    ) as w:
        arrays = {"id": np.array(["d"] * FILE_ROWS, object)}
        for name, _, _ in FILE_COLUMNS:
            arrays[name] = (
                np.ma.masked_array(data[name], masks[name]) if masks[name].any() else data[name]
            )
        w.write_arrays(times, arrays)
    return str(path), request.param, times, data, masks


def _check_window(path, times, data, masks, t1, t2, names, decode_path="auto"):
    got = tsfile.read_table(path, "t", names, t1, t2, decode_path=decode_path)
    want = (times >= t1) & (times <= t2)
    np.testing.assert_array_equal(got["time"], times[want])
    for name in names:
        col = got[name]
        mask = masks[name][want]
        if col.dtype == object:  # text: None where null
            got_mask = np.array([x is None for x in col], bool)
        else:
            got_mask = np.ma.getmaskarray(col)
        np.testing.assert_array_equal(got_mask, mask, err_msg=name)
        vals = np.ma.getdata(col) if isinstance(col, np.ma.MaskedArray) else np.asarray(col)
        np.testing.assert_array_equal(vals[~mask], data[name][want][~mask], err_msg=name)


def test_file_windows_equal_the_data(value_file):
    path, _, times, data, masks = value_file
    names = [n for n, _, _ in FILE_COLUMNS]
    rng = np.random.default_rng(5)
    rows = [(0, 0), (0, 1023), (1024, 2047), (FILE_ROWS - 1, FILE_ROWS - 1), (1, FILE_ROWS - 2)]
    rows += [tuple(sorted(int(x) for x in rng.integers(0, FILE_ROWS, 2))) for _ in range(5)]
    for r1, r2 in rows:
        _check_window(path, times, data, masks, int(times[r1]), int(times[r2]), names)
    for decode_path in ("per_value", "batch", "simd"):
        _check_window(
            path, times, data, masks, int(times[500]), int(times[9000]), names, decode_path
        )
    before = engine.set_row_ranges(False)
    try:  # the baseline the benchmark compares with reads the same rows
        _check_window(path, times, data, masks, int(times[500]), int(times[9000]), names)
    finally:
        engine.set_row_ranges(before)


def test_file_window_decompresses_only_what_it_needs(value_file):
    """Rows 1000..1600 of a 100,000 row page: ALP, RLE, GORILLA and svarint PLAIN value pages
    are decompressed only about that far (they were decompressed whole and decoded from their
    first value before the row-range decoders)."""
    path, comp, times, _, _ = value_file
    if comp == "UNCOMPRESSED":
        pytest.skip("nothing to decompress")
    t1, t2 = int(times[1000]), int(times[1600])
    before = pd.set_block_skip("plan_c")
    try:
        for name in ("alp", "rle", "gor", "pi32"):
            pd.reset_skip_counts()
            tsfile.read_table(path, "t", [name], t1, t2)
            counts = pd.skip_counts()
            assert counts["prefix_pages"] == 2, name  # the time page and the value page
            share = counts["prefix_decompressed"] / counts["prefix_bytes"]
            assert share < 0.5, (name, counts)
    finally:
        pd.set_block_skip(before)


def test_damaged_value_page_in_a_file_names_the_page(tmp_path):
    n = 5000
    times = np.arange(n, dtype=np.int64)
    values = np.round(np.random.default_rng(1).normal(size=n) * 100, 2)
    cols = [
        tsfile.ColumnSchema("id", T.STRING, tsfile.ColumnCategory.TAG),
        tsfile.ColumnSchema("v", T.DOUBLE, tsfile.ColumnCategory.FIELD, encoding=E.ALP),
    ]
    path = tmp_path / "alp.tsfile"
    with tsfile.TsFileTableWriter(
        str(path),
        tsfile.TableSchema("t", cols),
        page_size=n,
        compression=tsfile.Compressor.UNCOMPRESSED,
    ) as w:
        w.write_arrays(times, {"id": np.array(["d"] * n, object), "v": values})
    raw = bytearray(path.read_bytes())
    # the ALP page header (version 1, DOUBLE, value count n) of the value page: lie about the
    # first block's value count
    head = bytes([1, 1, 0, 0]) + struct.pack("<I", n)
    at = raw.find(head)
    assert at > 0
    struct.pack_into("<I", raw, at + 16 + 4, 2000)
    path.write_bytes(bytes(raw))
    with pytest.raises(CorruptDataError, match="ALP page.*file offset"):
        tsfile.read_table(str(path), "t", ["v"], 3000, 3100)


def test_tree_model_windows_read_value_rows_through_the_decoders(tmp_path):
    """Non-aligned (tree-model) pages: the values of the points in a window are read through
    the row-range decoders too (TS_2DIFF integers by their block headers, the rest through
    codec_row.decode_rows), and equal the points written."""
    from tsfile import Tablet, TimeseriesSchema, TsFileReader, TsFileWriter

    n = 6000
    series = [
        ("alp", T.DOUBLE, E.ALP),
        ("gor", T.DOUBLE, E.GORILLA),
        ("rle", T.INT64, E.RLE),
        ("t2d", T.INT64, E.TS_2DIFF),
        ("pi32", T.INT32, E.PLAIN),
    ]
    rng = np.random.default_rng(2)
    data = {
        "alp": np.round(np.cumsum(rng.normal(size=n)) * 100) / 100,
        "gor": np.round(np.cumsum(rng.normal(size=n)) * 100) / 100,
        "rle": np.cumsum(rng.integers(-5, 6, n)).astype(np.int64),
        "t2d": np.cumsum(rng.integers(-50, 60, n)).astype(np.int64),
        "pi32": rng.integers(-(1 << 30), 1 << 30, n).astype(np.int32),
    }
    path = tmp_path / "tree.tsfile"
    with TsFileWriter(str(path), page_size=n) as w:
        for name, t, enc in series:
            w.register_timeseries("root.sg.d", TimeseriesSchema(name, t, enc))
        tab = Tablet([s[0] for s in series], [s[1] for s in series], n)
        tab.set_table_name("root.sg.d")
        for r in range(n):
            tab.add_timestamp(r, 10 * r)
            for i, (name, _, _) in enumerate(series):
                tab.add_value_by_index(i, r, data[name][r].item())
        w.write_tablet(tab)
    names = [s[0] for s in series]
    for r1, r2 in [(0, 0), (1000, 1099), (1023, 2049), (n - 3, n - 1), (5, n - 5)]:
        got = {m: [] for m in names}
        with (
            TsFileReader(str(path)) as r,
            r.query_timeseries("root.sg.d", names, 10 * r1, 10 * r2) as rs,
        ):
            while rs.next():
                for i, m in enumerate(names):
                    got[m].append(rs.get_value_by_index(i + 2))
        for m in names:
            np.testing.assert_array_equal(np.array(got[m]), data[m][r1 : r2 + 1], err_msg=m)
