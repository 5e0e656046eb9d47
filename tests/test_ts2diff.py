"""TS_2DIFF codec: byte-exact encoding, all decode paths, scalar and SIMD, bad input.

Expectations come from an independent pure-Python model of the format notes (8.3), from the
notes' own example, and from TS_2DIFF pages of a file written by the official Apache TsFile
package (tests/fixtures/official/ts2diff_uncompressed.tsfile).

TSFILE_TEST_QUICK=1 shrinks the large and property-based cases (used under CPU emulation).
"""

import random
import struct
import sys
from pathlib import Path

import numpy as np
import pytest
from codec_checks import QUICK, examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tsfile
from tsfile import CorruptDataError, SimdUnavailableError
from tsfile.codecs import ts2diff

LARGE = 20_000 if QUICK else 1_000_003
FUZZ_EXAMPLES = examples(300)

I32 = np.iinfo(np.int32)
I64 = np.iinfo(np.int64)


# ---- an independent model of the format (tsfile-format.md 8.3) ----


def _signed(x, bits):
    x &= (1 << bits) - 1
    return x - (1 << bits) if x >> (bits - 1) else x


def ref_encode(values, bits, block_size=128, prev_min=0):
    """Blocks of a first value + up to block_size deltas; deltas minus the block minimum, packed
    MSB-first in the width of the largest; wrapping arithmetic. A block without deltas has width 0
    and the previous block's min_delta (what the C++ 2.5 writer leaves there; format notes 8.3),
    `prev_min` when the page starts with one."""
    mask = (1 << bits) - 1
    vals = [int(v) for v in values]
    out = bytearray()
    for s in range(0, len(vals), block_size + 1):
        blk = vals[s : s + block_size + 1]
        n = len(blk) - 1
        if n == 0:
            w, mn, packed = 0, prev_min, b""
        else:
            deltas = [_signed(blk[i + 1] - blk[i], bits) for i in range(n)]
            mn = min(deltas)
            rs = [(d - mn) & mask for d in deltas]
            w = max(rs).bit_length()
            acc = 0
            for r in rs:
                acc = (acc << w) | r
            nbits = n * w
            nbytes = (nbits + 7) // 8
            packed = (acc << (nbytes * 8 - nbits)).to_bytes(nbytes, "big") if nbytes else b""
            prev_min = mn
        out += struct.pack(">ii", n, w)
        out += (mn & mask).to_bytes(bits // 8, "big") + (blk[0] & mask).to_bytes(bits // 8, "big")
        out += packed
    return bytes(out)


def ref_decode(data, bits):
    mask = (1 << bits) - 1
    hdr = 8 + bits // 4
    pos, out = 0, []
    while pos < len(data):
        n, w = struct.unpack_from(">ii", data, pos)
        mn = int.from_bytes(data[pos + 8 : pos + 8 + bits // 8], "big")
        v = int.from_bytes(data[pos + 8 + bits // 8 : pos + hdr], "big")
        nbytes = (n * w + 7) // 8
        acc = int.from_bytes(data[pos + hdr : pos + hdr + nbytes], "big") >> (nbytes * 8 - n * w)
        out.append(_signed(v, bits))
        for i in range(n):
            r = (acc >> ((n - 1 - i) * w)) & ((1 << w) - 1)
            v = (v + mn + r) & mask
            out.append(_signed(v, bits))
        pos += hdr + nbytes
    return out


# ---- helpers ----


# Every implementation row of the TS_2DIFF table this CPU runs (ts2diff_impls.h), best first:
# read from the module, not a hand-kept list, so a new ISA row is tested as soon as it exists.
IMPLEMENTATIONS = ts2diff.implementations()


@pytest.fixture(params=IMPLEMENTATIONS)
def simd(request):
    """Run the test once per implementation row; "auto" and "simd" run that row. Yields whether a
    SIMD row is in use."""
    previous = tsfile.set_simd(request.param)
    try:
        assert ts2diff.active_implementation() == request.param
        yield request.param != "scalar"
    finally:
        tsfile.set_simd(previous)


def test_every_row_is_listed_and_the_best_is_active():
    assert IMPLEMENTATIONS[-1] == "scalar"
    previous = tsfile.set_simd("best")  # TSFILE_SIMD may have chosen a lower level
    try:
        assert ts2diff.active_implementation() == IMPLEMENTATIONS[0]
    finally:
        tsfile.set_simd(previous)
    assert set(IMPLEMENTATIONS) <= set(tsfile.simd_info()["compiled"])


def paths():
    return ["per_value", "batch", "auto"] + (["simd"] if tsfile.is_simd_enabled() else [])


def encode_all_paths(values, block_size=128):
    """Encode with every available encode path; all must write the same bytes."""
    paths_ = ["batch", "auto"] + (["simd"] if tsfile.is_simd_enabled() else [])
    results = {p: ts2diff.encode(values, block_size=block_size, path=p) for p in paths_}
    assert len(set(results.values())) == 1, {p: len(b) for p, b in results.items()}
    return results["batch"]


def bits_of(dtype):
    return np.dtype(dtype).itemsize * 8


def decode_all_paths(data, dtype, count=None):
    """Decode with every available path; all must agree. Returns the array."""
    results = {p: ts2diff.decode(data, dtype, count, path=p) for p in paths()}
    first = results["per_value"]
    for p, arr in results.items():
        assert arr.dtype == np.dtype(dtype), p
        np.testing.assert_array_equal(arr, first, err_msg=f"path {p}")
    return first


def values_of_width(dtype, width, length, rng):
    """`length` values whose every block has delta width `width` (if it has >= 2 deltas)."""
    bits = bits_of(dtype)
    if length == 0:
        return np.zeros(0, dtype)
    r = random.Random(int(rng.integers(0, 1 << 62)))
    span = (1 << bits) - (1 << width)  # bases keeping base + r inside the signed range
    base = -(1 << (bits - 1)) + r.randrange(span + 1)
    mask = (1 << bits) - 1
    v = r.getrandbits(bits)
    out = [v]
    for i in range(1, length):
        if i % 129 == 1:
            d = (1 << width) - 1  # every block reaches the full width ...
        elif i % 129 == 2:
            d = 0  # ... and the minimum
        else:
            d = r.getrandbits(width) if width else 0
        v = (v + base + d) & mask
        out.append(v)
    return np.array([_signed(x, bits) for x in out], dtype=dtype)


# ---- byte-exact encoding ----


def test_format_notes_example():
    ts = np.array([1000, 1001, 1002], dtype=np.int64)
    expected = bytes.fromhex("0000000200000000000000000000000100000000000003e8")
    assert ts2diff.encode(ts) == expected
    np.testing.assert_array_equal(decode_all_paths(expected, np.int64), ts)
    # INT32 / DATE blocks: same layout with 4-byte min_delta and first (16-byte header)
    expected32 = bytes.fromhex("000000020000000000000001000003e8")
    assert ts2diff.encode(ts.astype(np.int32)) == expected32


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("block_size", [1, 2, 7, 8, 128, 200])
def test_encode_matches_model(simd, dtype, block_size):
    rng = np.random.default_rng(block_size)
    bits = bits_of(dtype)
    for length in (0, 1, 2, 3, 129, 130, 258, 600):
        for kind in range(4):
            if kind == 0:
                vals = np.cumsum(rng.integers(-100, 101, size=length)).astype(dtype)
            elif kind == 1:
                info = np.iinfo(dtype)
                vals = rng.integers(info.min, info.max, size=length, dtype=dtype, endpoint=True)
            elif kind == 2:
                vals = np.full(length, 7, dtype=dtype)
            else:
                vals = values_of_width(dtype, int(rng.integers(0, bits + 1)), length, rng)
            got = encode_all_paths(vals, block_size)
            assert got == ref_encode(vals, bits, block_size), (length, kind)
            assert ref_decode(got, bits) == vals.tolist()


def _last_block_header(data, is64):
    """(n, width, min_delta, first) of the last block of TS_2DIFF bytes (n = 0: no packed bytes)."""
    fmt, size = (">iiqq", 24) if is64 else (">iiii", 16)
    return struct.unpack_from(fmt, data, len(data) - size)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_block_without_deltas_has_width_0_and_previous_min_delta(simd, dtype):
    # 130 values: a full block of width > 0, then a block holding only a first value. The official
    # writer gives that block width 0 and the first block's min_delta (format notes 8.3; checked on
    # its pages in test_official_one_value_blocks_byte_exact); before the fix the previous block's
    # width was written too.
    is64 = dtype == np.int64
    vals = (np.arange(130, dtype=np.int64) * 3).astype(dtype)
    vals[5] = 100
    data = encode_all_paths(vals)
    n, w, mn, _ = struct.unpack_from(">iiqq" if is64 else ">iiii", data, 0)
    assert (n, mn) == (128, -82) and w > 0
    assert _last_block_header(data, is64) == (0, 0, -82, 387)
    assert data == ref_encode(vals, bits_of(dtype))
    # a page that starts with such a block (a one-value page) carries the min_delta it is given
    for prev in (0, -82, 7):
        one = encode_all_paths_with(vals[:1], prev_min_delta=prev)
        assert one == ref_encode(vals[:1], bits_of(dtype), prev_min=prev)
        assert _last_block_header(one, is64) == (0, 0, prev, 0)
    # 129k + 1 values with a carried min_delta: only the last block has no deltas
    walk = np.cumsum(np.arange(1, 129 * 3 + 2) % 7 - 2).astype(dtype)
    got = encode_all_paths_with(walk, prev_min_delta=-9)
    assert got == ref_encode(walk, bits_of(dtype), prev_min=-9)
    assert _last_block_header(got, is64)[:3] == (0, 0, int(np.diff(walk[258:387]).min()))


def encode_all_paths_with(values, **kw):
    """encode() on every encode path with extra arguments; all must write the same bytes."""
    paths_ = ["batch", "auto"] + (["simd"] if tsfile.is_simd_enabled() else [])
    results = {p: ts2diff.encode(values, path=p, **kw) for p in paths_}
    assert len(set(results.values())) == 1, {p: len(b) for p, b in results.items()}
    return results["batch"]


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_streaming_encoder_carries_min_delta_across_pages(dtype):
    # like the official encoder, one Ts2DiffEncoder keeps the last min_delta across flush()
    rng = np.random.default_rng(5)
    pages = [rng.integers(-1000, 1000, n).astype(dtype) for n in (259, 1, 130, 1, 129)]
    enc = ts2diff.Ts2DiffEncoder(dtype)
    carried = 0
    for page in pages:
        for v in page:
            enc.encode(int(v))
        assert enc.flush() == ts2diff.encode(page, prev_min_delta=carried)
        carried = ts2diff.last_min_delta(page, prev_min_delta=carried)
    assert carried == int(np.diff(pages[4].astype(np.int64)).min())


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_last_min_delta(dtype):
    bits = bits_of(dtype)
    lo, hi = np.iinfo(dtype).min, np.iinfo(dtype).max
    # wrapping deltas: hi -> lo is +1, lo -> 0 is MIN_VALUE
    vals = np.array([hi, lo] + [0] * 127 + [5, 7, 6], dtype=dtype)
    assert ts2diff.last_min_delta(vals) == -1  # the last block: 5 -> 7 -> 6
    assert ts2diff.last_min_delta(vals[:130]) == lo  # 130 values: the block before the last
    assert ts2diff.last_min_delta(vals[:2]) == _signed(int(lo) - int(hi), bits) == 1
    assert ts2diff.last_min_delta(vals[:1], prev_min_delta=-3) == -3
    assert ts2diff.last_min_delta(vals[:0], prev_min_delta=4) == 4
    assert ts2diff.last_min_delta(vals, block_size=2) == -1
    with pytest.raises(OverflowError):
        ts2diff.last_min_delta(vals, prev_min_delta=int(hi) + 1)
    with pytest.raises(OverflowError):
        ts2diff.encode(vals, prev_min_delta=int(lo) - 1)
    with pytest.raises(TypeError):
        ts2diff.encode(vals, prev_min_delta=1.5)
    with pytest.raises(TypeError):
        ts2diff.last_min_delta(vals.astype(np.float64))


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_one_value_block_decodes_whatever_width_it_claims(simd, dtype):
    # Files written by this library before the fix carry the previous block's width in a block
    # without deltas; a reader must take the block's one value whatever width (0..32 / 0..64) the
    # header claims (it has no packed bytes), on every path, and still reject impossible widths.
    bits = bits_of(dtype)
    head = ts2diff.encode(np.array([3, 10, 11, 19], dtype=dtype))
    for w in range(bits + 1):
        last = struct.pack(">ii", 0, w) + ((-5) & ((1 << bits) - 1)).to_bytes(bits // 8, "big")
        last += (1 << (bits - 1)).to_bytes(bits // 8, "big")  # first = MIN_VALUE
        for data in (last, head + last):
            want = ([3, 10, 11, 19] if data is not last else []) + [np.iinfo(dtype).min]
            assert decode_all_paths(data, dtype).tolist() == want, w
            assert ts2diff.count_values(data, dtype) == len(want)
    bad = struct.pack(">ii", 0, bits + 1) + bytes(2 * bits // 8)
    with pytest.raises(CorruptDataError, match="width"):
        ts2diff.decode(bad, dtype)


ONE_VALUE_FIXTURE = "ts2diff_one_value_blocks"
ONE_VALUE_PAGE_COUNTS = {130, 259, 1, 517}  # every page of the fixture: 1 mod 129


def official_chunk_pages(name):
    """(device, measurement, chunk type, [page value bytes]) of every chunk of an UNCOMPRESSED
    official fixture without nulls (time chunks: the page body; value pages: after the row count
    and bitmap), from interop.chunk_scan."""
    sys.path.insert(0, str(Path(__file__).parent))
    from interop.expected import fixture_path

    return chunk_pages(fixture_path(name).read_bytes())


def chunk_pages(data):
    """official_chunk_pages() of the bytes of any such file."""
    sys.path.insert(0, str(Path(__file__).parent))
    from interop import chunk_scan

    for ch in chunk_scan.scan_chunks(data):
        bodies = []
        for pg in chunk_scan.iter_pages(data, ch):
            assert not pg["empty"] and ch["compression"] == "UNCOMPRESSED"
            body = pg["body"]
            if ch["kind"] == "value":
                present, body = chunk_scan.split_value_page(body)
                assert all(present)
            bodies.append(body)
        yield ch["device"][1], ch["measurement"] or "time", ch["type"], bodies


def test_official_one_value_blocks_byte_exact(simd):
    """Pages of 130, 259, 1 and 129k+1 values written by the official writer (int32: INT32, DATE;
    int64: INT64, TIMESTAMP, time): each ends in a block without deltas. Decoded on every path,
    they re-encode to the same bytes on every encode path when each page gets the min_delta the
    chunk's previous page left (ts2diff.last_min_delta), and with one streaming encoder per
    chunk. Fails before the fix: the previous block's width was written in that header."""
    sys.path.insert(0, str(Path(__file__).parent))
    from interop.expected import load_expected

    s = load_expected(ONE_VALUE_FIXTURE).tables["one"]
    int_types = {"INT32": np.int32, "DATE": np.int32, "INT64": np.int64, "TIMESTAMP": np.int64}
    int_types["VECTOR"] = np.int64  # the time column
    counts, checked = set(), 0
    for device, column, type_name, bodies in official_chunk_pages(ONE_VALUE_FIXTURE):
        dtype = int_types.get(type_name)
        if dtype is None:  # FLOAT/DOUBLE: test_ts2diff_float
            continue
        carried = 0
        enc = ts2diff.Ts2DiffEncoder(dtype)
        parts = []
        for body in bodies:
            vals = decode_all_paths(body, dtype)
            counts.add(len(vals))
            assert encode_all_paths_with(vals, prev_min_delta=carried) == body, (device, column)
            for v in vals:
                enc.encode(int(v))
            assert enc.flush() == body, (device, column)
            carried = ts2diff.last_min_delta(vals, prev_min_delta=carried)
            parts.append(vals)
            checked += 1
        rows = s.values["dev"] == device
        np.testing.assert_array_equal(np.concatenate(parts), s.values[column][rows])
    assert counts == ONE_VALUE_PAGE_COUNTS
    assert checked == 5 * (1 + 1 + 1 + 1 + 2 + 2 + 3)  # 5 int columns x pages of devices a..g


# ---- round trips ----

LENGTHS = [0, 1, 2, 128, 129, 130, 257]


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_round_trip_every_width(simd, dtype):
    rng = np.random.default_rng(1)
    bits = bits_of(dtype)
    for width in range(bits + 1):
        for length in LENGTHS + [1000 + width]:
            vals = values_of_width(dtype, width, length, rng)
            data = ts2diff.encode(vals)
            if length >= 3:
                assert struct.unpack_from(">i", data, 4)[0] == width
            np.testing.assert_array_equal(decode_all_paths(data, dtype), vals)
            assert ts2diff.count_values(data, dtype) == length


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_every_row_matches_scalar_at_every_width_and_alignment(dtype):
    # The vector kernels load whole groups (up to 64 bytes) past a block's start when the caller's
    # buffer has them: blocks at every byte alignment, followed by 0..80 bytes of other data, must
    # decode to the scalar result on every row.
    rng = np.random.default_rng(7)
    bits = bits_of(dtype)
    previous = tsfile.set_simd("scalar")
    try:
        for width in range(bits + 1):
            vals = values_of_width(dtype, width, 300 + width, rng)
            data = ts2diff.encode(vals)
            for align in (0, 1, 3, 7, 13):
                for tail in (0, 9, 40, 80):
                    buf = memoryview(bytes(align) + data + b"\xa5" * tail)[align:]
                    for row in IMPLEMENTATIONS:
                        tsfile.set_simd(row)
                        path = "batch" if row == "scalar" else "simd"
                        got = ts2diff.decode(buf, dtype, len(vals), path=path)
                        np.testing.assert_array_equal(got, vals, err_msg=f"{row} w{width}")
                        assert ts2diff.encode(vals, path="auto") == data, (row, width)
    finally:
        tsfile.set_simd(previous)


def values_with_every_block_at(dtype, width, length, min_delta, rng):
    """`length` values whose deltas are min_delta + residuals of `width` bits, the residuals 0 and
    2^width - 1 every third delta: every block of 3 or more deltas, at any block size, has exactly
    this width and min_delta."""
    bits = bits_of(dtype)
    top = np.uint64(2**width - 1)
    u = rng.integers(0, 2**63, length - 1, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    u &= top
    u[::3], u[1::3] = 0, top
    deltas = (u + np.uint64(min_delta % 2**64)) & np.uint64(2**bits - 1)
    steps = np.concatenate([[np.uint64(987654321)], deltas])
    vals = np.cumsum(steps, dtype=np.uint64) & np.uint64(2**bits - 1)
    return vals.astype(np.uint32 if bits == 32 else np.uint64).view(dtype)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_every_row_writes_the_scalar_bytes_at_every_width_and_block_size(dtype):
    # The vector bit-packing writers (AVX-512: 16-delta groups for widths <= 32, 8-delta groups
    # with a ninth byte above, narrow widths paired first; the rest of a block by the scalar
    # packer) against the scalar writer, each row forced in turn: every width, block sizes that
    # end a block at every position in a group and blocks cut short at the end, min_deltas at the
    # type's ends (the residuals wrap).
    bits = bits_of(dtype)
    info = np.iinfo(dtype)
    rng = np.random.default_rng(bits)
    previous = tsfile.set_simd("scalar")
    try:
        for width in range(bits + 1):
            min_delta = (int(info.min), -1, 5, int(info.max) - 2**width + 1)[width % 4]
            vals = values_with_every_block_at(dtype, width, 260 + width, min_delta, rng)
            for block_size in list(range(1, 50)) + [63, 64, 65, 96, 127, 128]:
                for length in (len(vals), block_size + 2, 2 * block_size + 19):
                    part = vals[:length]
                    tsfile.set_simd("scalar")
                    want = ts2diff.encode(part, block_size=block_size, path="batch")
                    for row in IMPLEMENTATIONS:
                        tsfile.set_simd(row)
                        path = "batch" if row == "scalar" else "simd"
                        got = ts2diff.encode(part, block_size=block_size, path=path)
                        assert got == want, (row, width, block_size, length)
            assert ts2diff.encode(vals, path="batch") == ref_encode(vals, bits), width
    finally:
        tsfile.set_simd(previous)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("width", [1, 2, 3, 5, 7, 8, 9, 16, 24])
def test_every_row_matches_at_extreme_min_deltas(dtype, width):
    # The AVX-512 kernels fold min_delta into the prefix sum differently per layout (for widths
    # <= 8 as min_delta times 1, 2, 3, 4 added to four-delta windows; for int64 as multiples in
    # the carry): blocks whose min_delta sits at the ends of the type's range, where every one of
    # those products wraps, must decode to the same values on every row.
    bits = bits_of(dtype)
    info = np.iinfo(dtype)
    rng = np.random.default_rng(width)
    for min_delta in (int(info.min), int(info.min) + 1, -1, 1, int(info.max) - 2**width + 1):
        u = rng.integers(0, 2**width, 1000, dtype=np.uint64)
        u[::64], u[1::64] = 0, 2**width - 1  # every block has exactly this min and width
        deltas = (u + np.uint64(min_delta % 2**64)) & np.uint64(2**bits - 1)
        steps = np.concatenate([[np.uint64(12345)], deltas])
        vals = np.cumsum(steps, dtype=np.uint64) & np.uint64(2**bits - 1)
        vals = vals.astype(np.uint32 if bits == 32 else np.uint64).view(dtype)
        data = ts2diff.encode(vals)
        assert struct.unpack_from(">i", data, 4)[0] == width
        for row in IMPLEMENTATIONS:
            previous = tsfile.set_simd(row)
            try:
                path = "batch" if row == "scalar" else "simd"
                got = ts2diff.decode(data, dtype, len(vals), path=path)
            finally:
                tsfile.set_simd(previous)
            np.testing.assert_array_equal(got, vals, err_msg=f"{row} min {min_delta}")


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_wrap_around_and_extremes(simd, dtype):
    info = np.iinfo(dtype)
    cases = [
        [info.min, info.max] * 200,
        [info.max, info.min] * 200,
        [info.min, info.max, 0, -1, 1] * 100,
        [info.max] * 300,
        [info.min] * 300,
        list(range(info.max - 150, info.max)) + list(range(info.min, info.min + 150)),
    ]
    for case in cases:
        vals = np.array(case, dtype=dtype)
        data = encode_all_paths(vals)
        assert data == ref_encode(vals, bits_of(dtype))
        np.testing.assert_array_equal(decode_all_paths(data, dtype), vals)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_large_random_walk(simd, dtype):
    rng = np.random.default_rng(42)
    vals = np.cumsum(rng.integers(-100, 101, size=LARGE)).astype(dtype)
    data = ts2diff.encode(vals)
    np.testing.assert_array_equal(decode_all_paths(data, dtype), vals)
    full = rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max, size=LARGE // 10, dtype=dtype)
    np.testing.assert_array_equal(decode_all_paths(ts2diff.encode(full), dtype), full)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("block_size", [1, 3, 8, 64, 1000, ts2diff.MAX_BLOCK_DELTAS])
def test_other_block_sizes(simd, dtype, block_size):
    rng = np.random.default_rng(block_size)
    a = np.cumsum(rng.integers(-1000, 1001, size=5000)).astype(dtype)
    b = rng.integers(-50, 50, size=777).astype(dtype)
    # blocks of different sizes back to back decode as one stream
    data = ts2diff.encode(a, block_size=block_size) + ts2diff.encode(b)
    np.testing.assert_array_equal(decode_all_paths(data, dtype), np.concatenate([a, b]))


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_count_and_decode_into(simd, dtype):
    vals = np.cumsum(np.random.default_rng(3).integers(-9, 10, size=1000)).astype(dtype)
    data = ts2diff.encode(vals)
    hdr = 8 + bits_of(dtype) // 4
    for count in (0, 1, 5, 129, 130, 500, 1000):
        np.testing.assert_array_equal(decode_all_paths(data, dtype, count), vals[:count])
        for p in paths():
            out = np.full(count, -1, dtype=dtype)
            used = ts2diff.decode_into(data, out, p)
            np.testing.assert_array_equal(out, vals[:count])
            # consumed: whole blocks up to the one holding the last value
            blocks = -(-count // 129)
            expect = 0
            pos = 0
            for _ in range(blocks):
                n, w = struct.unpack_from(">ii", data, pos)
                pos += hdr + (n * w + 7) // 8
                expect = pos
            assert used == expect, (count, p)
    for p in paths():
        with pytest.raises(CorruptDataError, match="1000 values, 1001 requested"):
            ts2diff.decode(data, dtype, 1001, path=p)


def test_bytes_like_inputs(simd):
    vals = np.arange(300, dtype=np.int64) ** 2
    data = ts2diff.encode(vals)
    for form in (
        data,
        bytearray(data),
        memoryview(data),
        np.frombuffer(data, np.uint8),
        memoryview(b"xx" + data)[2:],
    ):
        np.testing.assert_array_equal(ts2diff.decode(form, np.int64), vals)
    strided = np.frombuffer(data * 2, np.uint8).reshape(2, -1)[:, :].ravel()[: len(data)]
    np.testing.assert_array_equal(ts2diff.decode(strided, "int64"), vals)


def test_streaming_encoder_and_decoder():
    rng = np.random.default_rng(5)
    for dtype in (np.int32, np.int64):
        vals = np.cumsum(rng.integers(-500, 500, size=1300)).astype(dtype)
        for bs in (1, 16, 128):
            enc = ts2diff.Ts2DiffEncoder(dtype, block_size=bs)
            for v in vals.tolist():
                enc.encode(v)
            assert enc.flush() == ts2diff.encode(vals, block_size=bs)
            assert enc.flush() == b""
        data = ts2diff.encode(vals)
        dec = ts2diff.Ts2DiffDecoder(data, dtype)
        got = []
        while dec.has_next():
            got.append(dec.next())
        assert got == vals.tolist()
        with pytest.raises(StopIteration):
            dec.next()
        assert list(ts2diff.Ts2DiffDecoder(data, dtype)) == vals.tolist()
        with pytest.raises(CorruptDataError):
            list(ts2diff.Ts2DiffDecoder(data[:-1], dtype))
    enc = ts2diff.Ts2DiffEncoder(np.int32)
    with pytest.raises(OverflowError):
        enc.encode(1 << 31)
    with pytest.raises(TypeError):
        enc.encode(1.5)


def test_argument_errors():
    data = ts2diff.encode(np.arange(10, dtype=np.int64))
    with pytest.raises(TypeError):
        ts2diff.encode([1, 2, 3])
    for bad in (np.float64, np.uint32, np.int16, np.uint64):
        with pytest.raises(TypeError):
            ts2diff.encode(np.zeros(3, bad))
    with pytest.raises(ValueError):
        ts2diff.encode(np.zeros((2, 2), np.int64))
    with pytest.raises(ValueError):
        ts2diff.encode(np.zeros(3, np.int64), block_size=0)
    with pytest.raises(TypeError):
        ts2diff.decode(data, np.float64)
    with pytest.raises(TypeError):
        ts2diff.decode("text", np.int64)
    with pytest.raises(ValueError):
        ts2diff.decode(data, np.int64, path="fast")
    with pytest.raises(ValueError):
        ts2diff.decode(data, np.int64, count=-1)
    with pytest.raises(TypeError):
        ts2diff.decode_into(data, [0] * 3)
    with pytest.raises(TypeError):
        ts2diff.decode_into(data, np.zeros(3, np.float64))
    with pytest.raises(ValueError):
        ts2diff.decode_into(data, np.zeros(6, np.int64)[::2])
    # byte-swapped input arrays encode by value
    vals = np.arange(50, dtype=">i8")
    assert ts2diff.encode(vals) == ts2diff.encode(vals.astype(np.int64))


def test_simd_path_unavailable_is_clear():
    previous = tsfile.set_simd_enabled(False)
    try:
        with pytest.raises(SimdUnavailableError):
            ts2diff.decode(ts2diff.encode(np.arange(5, dtype=np.int64)), np.int64, path="simd")
        with pytest.raises(SimdUnavailableError):
            ts2diff.encode(np.arange(5, dtype=np.int64), path="simd")
    finally:
        tsfile.set_simd_enabled(previous)
    with pytest.raises(ValueError, match="Ts2DiffEncoder"):
        ts2diff.encode(np.arange(5, dtype=np.int64), path="per_value")


# ---- bad input ----


def header(n, w, mn, first, bits):
    return (
        struct.pack(">ii", n, w)
        + (mn & ((1 << bits) - 1)).to_bytes(bits // 8, "big")
        + (first & ((1 << bits) - 1)).to_bytes(bits // 8, "big")
    )


def all_paths_raise(data, dtype, match=None, count=None):
    for p in paths():
        with pytest.raises(CorruptDataError, match=match):
            ts2diff.decode(data, dtype, count, path=p)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_truncated_and_hostile_headers(simd, dtype):
    bits = bits_of(dtype)
    good = ts2diff.encode(np.cumsum(np.arange(300)).astype(dtype))
    hdr = 8 + bits // 4
    for cut in range(1, hdr):
        all_paths_raise(good[:cut], dtype, f"truncated block header at byte 0: needs {hdr}")
    for cut in range(hdr, len(good)):
        try:
            total = ts2diff.count_values(good[:cut], dtype)
        except CorruptDataError:
            all_paths_raise(good[:cut], dtype)
        else:  # a cut at a block boundary is valid data
            np.testing.assert_array_equal(
                decode_all_paths(good[:cut], dtype)[:total],
                np.cumsum(np.arange(300)).astype(dtype)[:total],
            )
    maxw = bits
    all_paths_raise(
        header(-1, 0, 0, 0, bits), dtype, "negative delta count -1 in the block header at byte 0"
    )
    all_paths_raise(header(-(1 << 31), 3, 0, 0, bits), dtype, "negative delta count")
    all_paths_raise(
        header(3, maxw + 1, 0, 0, bits) + bytes(64),
        dtype,
        f"bit width {maxw + 1} outside 0..{maxw}",
    )
    all_paths_raise(header(3, -1, 0, 0, bits) + bytes(64), dtype, "bit width -1")
    all_paths_raise(header(3, 1 << 30, 0, 0, bits) + bytes(64), dtype, "bit width")
    all_paths_raise(header(ts2diff.MAX_BLOCK_DELTAS + 1, 0, 0, 0, bits), dtype, "above the limit")
    all_paths_raise(header((1 << 31) - 1, 0, 0, 0, bits), dtype, "above the limit")
    # a count whose packed bits are not all present
    all_paths_raise(
        header(100, 7, 0, 0, bits) + bytes(87), dtype, "needs 88 bytes of packed deltas, only 87"
    )
    # the second block is bad: the offset names it
    first = ts2diff.encode(np.arange(129, dtype=dtype))
    all_paths_raise(first + header(5, 99, 0, 0, bits), dtype, f"at byte {len(first)}")
    # a width-0 block holds n values in no bytes: fine up to the limit
    blk = header(ts2diff.MAX_BLOCK_DELTAS, 0, 2, 10, bits)
    np.testing.assert_array_equal(
        decode_all_paths(blk, dtype), 10 + 2 * np.arange(ts2diff.MAX_BLOCK_DELTAS + 1, dtype=dtype)
    )
    # a count far beyond what the bytes can hold is refused before any allocation
    with pytest.raises(CorruptDataError, match="cannot hold"):
        ts2diff.decode(blk, dtype, count=1 << 40)
    # trailing junk shorter than a header
    all_paths_raise(good + b"\x00", dtype, "truncated block header")
    with pytest.raises(CorruptDataError):
        ts2diff.count_values(good + b"\x00", dtype)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_decoders_never_read_beyond_their_data(simd, dtype):
    # the packed bits end exactly at the buffer end for every width: decode from a buffer that has
    # nothing after it (a slice of a bigger buffer filled with junk must give the same values)
    rng = np.random.default_rng(11)
    for width in range(bits_of(dtype) + 1):
        vals = values_of_width(dtype, width, 131, rng)
        data = ts2diff.encode(vals)
        junk = np.frombuffer(data + b"\xff" * 64, np.uint8)[: len(data)]
        np.testing.assert_array_equal(decode_all_paths(junk, dtype), vals)


@settings(
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(raw=st.binary(max_size=300), is64=st.booleans(), count=st.none() | st.integers(0, 400))
def test_fuzz_random_bytes(raw, is64, count):
    dtype = np.int64 if is64 else np.int32
    outcomes = {}
    for simd_on in IMPLEMENTATIONS:
        previous = tsfile.set_simd(simd_on)
        try:
            for p in paths():
                try:
                    outcomes[(simd_on, p)] = ts2diff.decode(raw, dtype, count, path=p).tolist()
                except CorruptDataError as e:
                    assert "TS_2DIFF" in str(e)
                    outcomes[(simd_on, p)] = "corrupt"
        finally:
            tsfile.set_simd(previous)
    assert len({repr(v) for v in outcomes.values()}) == 1, outcomes
    result = next(iter(outcomes.values()))
    if result != "corrupt" and count is None:
        assert result == ref_decode(raw, 64 if is64 else 32)


@settings(max_examples=FUZZ_EXAMPLES, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), is64=st.booleans(), flips=st.integers(1, 4))
def test_fuzz_mutated_valid_data(seed, is64, flips):
    dtype = np.int64 if is64 else np.int32
    rng = np.random.default_rng(seed)
    vals = np.cumsum(rng.integers(-1 << 20, 1 << 20, size=int(rng.integers(1, 600)))).astype(dtype)
    data = bytearray(ts2diff.encode(vals, block_size=int(rng.integers(1, 200))))
    for _ in range(flips):
        data[int(rng.integers(0, len(data)))] = int(rng.integers(0, 256))
    data = bytes(data[: int(rng.integers(0, len(data) + 1))])
    outcomes = set()
    for p in ["per_value", "batch"] + (["simd"] if tsfile.is_simd_enabled() else []):
        try:
            outcomes.add(repr(ts2diff.decode(data, dtype, path=p).tolist()))
        except CorruptDataError:
            outcomes.add("corrupt")
    assert len(outcomes) == 1


# ---- pages written by the official package ----

FIXTURE = Path(__file__).parent / "fixtures" / "official" / "ts2diff_uncompressed.tsfile"


def _uvarint(d, p):
    v = shift = 0
    while True:
        b = d[p]
        p += 1
        v |= (b & 0x7F) << shift
        if not b & 0x80:
            return v, p
        shift += 7


def _varstr(d, p):
    n, p = _uvarint(d, p)
    n = (n >> 1) ^ -(n & 1)  # zigzag
    if n < 0:
        return None, p
    return d[p : p + n].decode(), p + n


STAT_TYPED = {1: 24, 9: 24, 2: 40, 8: 40, 6: 0}  # INT32, DATE, INT64, TIMESTAMP, VECTOR
NUMPY_OF = {1: np.int32, 9: np.int32, 2: np.int64, 8: np.int64, 6: np.int64}


def official_ts2diff_pages():
    """Sequential walk of the data area (format notes 13.5, 5.1-5.3) of the UNCOMPRESSED fixture:
    yields (device tag, measurement, numpy dtype, TS_2DIFF bytes of one page)."""
    d = FIXTURE.read_bytes()
    assert d[:7] == b"TsFile\x04"
    p = 7
    device = None
    while True:
        marker = d[p]
        p += 1
        if marker == 0x00:
            nseg, p = _uvarint(d, p)
            segs = []
            for _ in range(nseg):
                s, p = _varstr(d, p)
                segs.append(s)
            device = segs[1]
        elif marker in (0x01, 0x05, 0x41, 0x45, 0x81, 0x85):
            name, p = _varstr(d, p)
            size, p = _uvarint(d, p)
            dtype_code, comp, enc = d[p], d[p + 1], d[p + 2]
            p += 3
            end = p + size
            assert comp == 0  # UNCOMPRESSED
            while p < end:
                usize, p = _uvarint(d, p)
                if usize == 0:
                    continue
                csize, p = _uvarint(d, p)
                if marker & 0x3F == 0x01:  # multi-page chunk: page statistics
                    _, p = _uvarint(d, p)
                    p += 16 + STAT_TYPED[dtype_code]
                body = d[p : p + csize]
                p += csize
                if enc != 4 or dtype_code not in NUMPY_OF:
                    continue
                if marker & 0x80:  # time page: the whole body
                    yield device, "time", np.int64, body
                else:  # value page: row count, not-null bitmap, values
                    rows = struct.unpack_from(">i", body, 0)[0]
                    bitmap = body[4 : 4 + (rows + 7) // 8]
                    assert all(b == 0xFF for b in bitmap[:-1])  # the fixture has no nulls
                    yield device, name, NUMPY_OF[dtype_code], body[4 + (rows + 7) // 8 :]
        elif marker == 0x04:
            p += 16
        elif marker == 0x02:
            return
        else:
            raise AssertionError(f"unexpected marker {marker:#x} at {p - 1}")


@pytest.mark.skipif(not FIXTURE.exists(), reason="official fixture not present")
def test_official_pages_decode_and_reencode_byte_exact(simd):
    sys.path.insert(0, str(Path(__file__).parent))
    from interop.expected import load_expected

    s = load_expected("ts2diff_uncompressed").tables["ts2diff"]
    decoded = {}
    pages = 0
    for device, column, dtype, body in official_ts2diff_pages():
        vals = decode_all_paths(body, dtype)
        assert ts2diff.encode(vals) == body, (device, column, pages)
        decoded.setdefault((device, column), []).append(vals)
        pages += 1
    assert pages >= 3 * 4 * 9  # 3 devices x 4 pages x (time + 8 TS_2DIFF columns)
    devices = s.values["device"]
    for (device, column), parts in decoded.items():
        expected = s.values[column][devices == device]
        np.testing.assert_array_equal(np.concatenate(parts), expected, err_msg=f"{device}.{column}")
    assert {c for _, c in decoded} == {
        c for c, cat in zip(s.columns, s.categories, strict=True) if cat != "TAG"
    }


def test_writer_pages_byte_identical_to_official_one_value_blocks(tmp_path):
    """The file writer chains the min_delta through a chunk's pages (tsfile._write.encoders): the
    integer and time pages it writes for the ts2diff_one_value_blocks data (pages of 517 rows,
    chunks of 130 .. 1035 rows) are the official writer's, byte for byte, also a one-value page
    after other pages (chunks f, g), which needs the previous page's min_delta."""
    sys.path.insert(0, str(Path(__file__).parent))
    from interop.expected import load_expected

    from tsfile import ColumnCategory, ColumnSchema, TableSchema, TSDataType, TSEncoding
    from tsfile.types import Compressor
    from tsfile.writer import TsFileTableWriter

    s = load_expected(ONE_VALUE_FIXTURE).tables["one"]
    columns = {"i32": TSDataType.INT32, "i64": TSDataType.INT64}
    schema = TableSchema(
        "one",
        [ColumnSchema("dev", TSDataType.STRING, ColumnCategory.TAG)]
        + [
            ColumnSchema(name, t, ColumnCategory.FIELD, TSEncoding.TS_2DIFF)
            for name, t in columns.items()
        ],
    )
    path = tmp_path / "ours.tsfile"
    with TsFileTableWriter(
        str(path), schema, page_size=517, compression=Compressor.UNCOMPRESSED
    ) as w:
        for device in dict.fromkeys(s.values["dev"]):
            rows = s.values["dev"] == device
            w.write_arrays(
                s.values["time"][rows], {"dev": device, **{c: s.values[c][rows] for c in columns}}
            )
    official = {
        (dev, col): bodies
        for dev, col, _, bodies in official_chunk_pages(ONE_VALUE_FIXTURE)
        if col in ("time", *columns)
    }
    ours = {(dev, col): bodies for dev, col, _, bodies in chunk_pages(path.read_bytes())}
    assert ours.keys() == official.keys()
    for key, bodies in official.items():
        assert ours[key] == bodies, key
