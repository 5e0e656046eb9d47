"""PLAIN (format notes 8.2): expected bytes from the notes' varint examples (1.2) and from
``struct`` (big-endian fixed width), bit-exact floats, binary values (empty, non-ASCII, large),
per_value == batch, and hostile input -> CorruptDataError."""

import struct

import numpy as np
import pytest
from codec_checks import check_mutated_page, check_paths_agree, examples
from hypothesis import given, settings
from hypothesis import strategies as st

import tsfile
from tsfile.codecs import plain
from tsfile.errors import CorruptDataError, EncodeError, SimdUnavailableError
from tsfile.types import TSDataType as T

PATHS = ["batch", "per_value"] + (["simd"] if plain.HAS_SIMD and tsfile.is_simd_enabled() else [])


def decode_all(data, dtype, count=None):
    results = [plain.decode(data, dtype, count=count, path=p) for p in PATHS]
    for r in results[1:]:
        assert r.dtype == results[0].dtype
        if r.dtype == object:
            assert r.tolist() == results[0].tolist()
        else:  # bit-exact (NaN payloads)
            assert r.tobytes() == results[0].tobytes()
    return results[0]


def zigzag_varint(n):
    """Reference svarint of a 32-bit value (notes 1.2)."""
    u = ((n << 1) ^ (n >> 31)) & 0xFFFFFFFF
    out = bytearray()
    while u >= 0x80:
        out.append((u & 0x7F) | 0x80)
        u >>= 7
    out.append(u)
    return bytes(out)


# ---- INT32 / DATE: svarint ----------------------------------------------------------------------


def test_svarint_examples_from_the_notes():
    cases = {0: "00", -1: "01", 1: "02", -64: "7f", 3: "06", 150: "ac02", 64: "8001"}
    for v, hx in cases.items():
        assert plain.encode(np.array([v], np.int32)) == bytes.fromhex(hx)
        assert decode_all(bytes.fromhex(hx), T.INT32).tolist() == [v]
    data = bytes.fromhex("".join(cases.values()))
    assert decode_all(data, T.DATE).tolist() == list(cases)


def test_int32_extremes_and_reference():
    rng = np.random.default_rng(0)
    v = np.concatenate(
        [
            np.array([-(2**31), 2**31 - 1, 0, -1, 1, 63, 64, -65, 8191, 8192], np.int32),
            rng.integers(-(2**31), 2**31, 2000).astype(np.int32),
            rng.integers(-300, 300, 2000).astype(np.int32),
        ]
    )
    expected = b"".join(zigzag_varint(int(x)) for x in v)
    assert plain.encode(v) == expected
    assert plain.encode(v, T.INT32) == expected
    assert decode_all(expected, T.INT32).tolist() == v.tolist()
    assert decode_all(expected, np.int32, count=7).tolist() == v[:7].tolist()
    assert plain.encode(np.array([-(2**31)], np.int32)) == bytes.fromhex("ffffffff0f")


# ---- INT64 / FLOAT / DOUBLE: big-endian ---------------------------------------------------------


def test_int64_big_endian():
    v = [0, 1, -1, 2**63 - 1, -(2**63), 0x0102030405060708]
    expected = b"".join(struct.pack(">q", x) for x in v)
    assert plain.encode(np.array(v, np.int64)) == expected
    assert plain.encode(v, T.TIMESTAMP) == expected
    assert expected[-8:] == bytes.fromhex("0102030405060708")
    assert decode_all(expected, T.INT64).tolist() == v
    assert decode_all(expected, T.TIMESTAMP).dtype == np.int64


def test_double_bit_exact():
    bits = [
        0x7FF8000000000000,  # canonical NaN
        0x7FF0000000000001,  # signalling NaN payload
        0xFFF8DEADBEEF0001,  # negative NaN with a payload
        0x8000000000000000,  # -0.0
        0x7FF0000000000000,  # inf
        0x0000000000000001,  # smallest subnormal
    ]
    arr = np.array(bits, dtype=np.uint64).view(np.float64)
    arr = np.concatenate([arr, [1.5, -2.25, 1e300, -1e-300]])
    expected = arr.astype(">f8").tobytes()
    assert expected[:8] == bytes.fromhex("7ff8000000000000")
    assert plain.encode(arr) == expected
    got = decode_all(expected, T.DOUBLE)
    assert got.dtype == np.float64
    assert got.view(np.uint64).tolist() == arr.view(np.uint64).tolist()


def test_float_bit_exact():
    bits = [0x7FC00000, 0x7FA00001, 0xFFC00123, 0x80000000, 0x00000001, 0x7F800000]
    arr = np.array(bits, dtype=np.uint32).view(np.float32)
    arr = np.concatenate([arr, np.array([1.5, -3.25, 3.4e38], np.float32)])
    expected = arr.astype(">f4").tobytes()
    assert struct.unpack(">f", expected[-12:-8])[0] == 1.5
    assert plain.encode(arr) == expected
    got = decode_all(expected, T.FLOAT)
    assert got.dtype == np.float32
    assert got.view(np.uint32).tolist() == arr.view(np.uint32).tolist()


def test_boolean():
    assert plain.encode(np.array([True, False, True])) == b"\x01\x00\x01"
    got = decode_all(b"\x01\x00\x02\xff", T.BOOLEAN)  # any non-zero byte is true
    assert got.dtype == np.bool_
    assert got.tolist() == [True, False, True, True]


# ---- binary -------------------------------------------------------------------------------------


def test_binary_values():
    values = [b"", b"a", "é中".encode(), b"\x00\xff\x00", b"x" * 200, b"y" * 70000]
    expected = b"".join(zigzag_varint(len(v)) + v for v in values)
    assert expected[:3] == b"\x00\x02a"
    for t in (T.TEXT, T.STRING, T.BLOB):
        assert plain.encode(values, t) == expected
        got = decode_all(expected, t)
        assert got.dtype == object
        assert got.tolist() == values
        assert all(type(x) is bytes for x in got)
    # str values are written as UTF-8
    assert plain.encode(["é", "", "ab"], T.TEXT) == b"\x04\xc3\xa9\x00\x04ab"
    assert decode_all(expected, object, count=2).tolist() == values[:2]
    assert decode_all(b"", T.TEXT).tolist() == []


def test_large_string():
    big = bytes(range(256)) * 8192  # 2 MiB
    data = plain.encode([big, b"z"], T.BLOB)
    assert data[:4] == zigzag_varint(len(big))
    assert decode_all(data, T.BLOB).tolist() == [big, b"z"]


# ---- decode_into, streaming API, arguments ------------------------------------------------------


def test_decode_into_reports_bytes_consumed():
    data = plain.encode(np.array([1, 300, -5], np.int32)) + b"\xaa\xbb"
    out = np.empty(3, np.int32)
    for p in PATHS:
        assert plain.decode_into(data, out, path=p) == 4
        assert out.tolist() == [1, 300, -5]
    outd = np.empty(2, np.float64)
    assert plain.decode_into(struct.pack(">dd", 1.0, 2.0) + b"x", outd) == 16
    outs = np.empty(2, object)
    for p in PATHS:
        assert plain.decode_into(b"\x02a\x04bc\x06", outs, path=p) == 5
        assert outs.tolist() == [b"a", b"bc"]


def test_streaming_api():
    data = plain.encode(np.array([5, -7, 1000], np.int32))
    dec = plain.PlainDecoder(data, T.INT32)
    got = []
    while dec.has_next():
        got.append(dec.next())
    assert got == [5, -7, 1000]
    assert dec.position == len(data)
    with pytest.raises(StopIteration):
        dec.next()
    assert list(plain.PlainDecoder(struct.pack(">f", 1.5), T.FLOAT)) == [1.5]
    assert list(plain.PlainDecoder(b"\x02a\x00", T.TEXT)) == [b"a", b""]
    enc = plain.PlainEncoder(T.INT64)
    enc.encode(1)
    enc.encode(-1)
    assert enc.flush() == struct.pack(">qq", 1, -1)
    assert enc.flush() == b""
    senc = plain.PlainEncoder(T.STRING)
    senc.encode("ab")
    senc.encode(b"")
    assert senc.flush() == b"\x04ab\x00"
    denc = plain.PlainEncoder(T.DOUBLE)
    denc.encode(0.5)
    assert denc.flush() == struct.pack(">d", 0.5)


def test_argument_errors():
    with pytest.raises(TypeError):
        plain.decode(b"\x00", "not a dtype")
    with pytest.raises(TypeError):
        plain.decode(b"\x00", np.int16)
    with pytest.raises(TypeError):
        plain.decode(b"\x00", 1.5)
    with pytest.raises(TypeError):
        plain.decode("text", T.INT32)
    with pytest.raises(TypeError):
        plain.decode(b"\x00", T.UNKNOWN)
    previous = tsfile.set_simd_enabled(False)
    try:
        with pytest.raises(SimdUnavailableError):
            plain.decode(b"\x00", T.INT32, path="simd")
    finally:
        tsfile.set_simd_enabled(previous)
    with pytest.raises(ValueError):
        plain.decode(b"\x00", T.INT32, path="nope")
    with pytest.raises(TypeError):
        plain.decode_into(b"\x00", np.empty(1, np.int16))
    with pytest.raises(TypeError):
        plain.encode([None], T.TEXT)
    with pytest.raises(TypeError):
        plain.encode(b"abc", T.TEXT)
    with pytest.raises(EncodeError):
        plain.encode([2**40], T.INT32)
    with pytest.raises(TypeError):
        plain.encode(np.array([1.5]), T.INT64)
    assert isinstance(plain.HAS_SIMD, bool)
    # dtype inference and conversions
    assert plain.encode(np.array([1, 2], np.int16)) == b"\x02\x04"
    assert plain.encode([1, 2], T.DOUBLE) == struct.pack(">dd", 1, 2)
    # a non-native byte order names the same type (the output is native)
    assert plain.decode(struct.pack(">q", 7), ">i8").tolist() == [7]
    assert plain.decode(struct.pack(">q", 7), "<i8").dtype == np.int64
    # a memoryview / bytearray / uint8 array input
    data = struct.pack(">q", 7)
    for d in (bytearray(data), memoryview(data), np.frombuffer(data, np.uint8)):
        assert plain.decode(d, T.INT64).tolist() == [7]


# ---- hostile input ------------------------------------------------------------------------------


def _all_paths_raise(data, dtype, count=None):
    for p in PATHS:
        with pytest.raises(CorruptDataError):
            plain.decode(data, dtype, count=count, path=p)


def test_truncated_and_malformed():
    _all_paths_raise(b"\x80", T.INT32)  # varint cut
    _all_paths_raise(b"\x80\x80\x80\x80\x80\x01", T.INT32)  # six bytes
    _all_paths_raise(b"\xff\xff\xff\xff\x1f", T.INT32)  # beyond 32 bits
    _all_paths_raise(b"\x00" * 7, T.INT64)  # not a whole value
    _all_paths_raise(b"\x00" * 9, T.DOUBLE)
    _all_paths_raise(b"\x00" * 5, T.FLOAT)
    _all_paths_raise(b"\x00" * 8, T.INT64, count=2)
    _all_paths_raise(b"\x02", T.INT32, count=2)
    _all_paths_raise(b"", T.BOOLEAN, count=1)
    _all_paths_raise(b"\x01", T.TEXT)  # length -1 (the varstr null marker)
    _all_paths_raise(b"\x03abc", T.TEXT)  # negative length -2
    _all_paths_raise(b"\x08abc", T.TEXT)  # length 4, 3 bytes left
    _all_paths_raise(b"\xfe\xff\xff\xff\x0f", T.BLOB)  # length 2**31 - 1
    _all_paths_raise(b"\x02a", T.TEXT, count=2)
    _all_paths_raise(b"\x02a" * 3, T.TEXT, count=10**9)  # refused before allocating
    out = np.empty(3, np.int64)
    with pytest.raises(CorruptDataError, match="truncated"):
        plain.decode_into(b"\x00" * 16, out)


@settings(max_examples=examples(300), deadline=None)
@given(
    st.binary(max_size=64),
    st.sampled_from([T.INT32, T.INT64, T.FLOAT, T.DOUBLE, T.BOOLEAN, T.TEXT]),
    st.one_of(st.none(), st.integers(0, 80)),
)
def test_random_bytes_never_crash(data, dtype, count):
    check_paths_agree(plain.decode, data, dtype, count, PATHS, binary=(T.TEXT,))


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.integers(-(2**31), 2**31 - 1), max_size=300))
def test_int32_round_trip_property(values):
    data = plain.encode(values, T.INT32)
    assert data == b"".join(zigzag_varint(v) for v in values)
    assert decode_all(data, T.INT32).tolist() == values


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.binary(max_size=300), max_size=40))
def test_binary_round_trip_property(values):
    data = plain.encode(values, T.BLOB)
    assert decode_all(data, T.BLOB).tolist() == values


VALID_PAGES = [
    (plain.encode(np.arange(-200, 200, dtype=np.int32) * 40503), T.INT32),
    (plain.encode(np.arange(50, dtype=np.int64) << 20), T.INT64),
    (plain.encode(np.linspace(-1, 1, 30)), T.DOUBLE),
    (plain.encode(["a", "", "é" * 40, "zz"] * 10, T.TEXT), T.TEXT),
    (plain.encode(np.arange(10) % 2 == 0), T.BOOLEAN),
]
MOD = plain
BINARY = (T.TEXT,)


@settings(max_examples=examples(300), deadline=None)
@given(st.data())
def test_mutated_pages_never_crash(data):
    """Valid pages with flipped bytes, cuts and splices: every path raises CorruptDataError or
    returns the same values as the others."""
    check_mutated_page(data, VALID_PAGES, MOD, PATHS, BINARY)


# ---- every implementation row of the table (include/plain_impls.h) ------------------------------

IMPLEMENTATIONS = plain.implementations()


@pytest.fixture(params=IMPLEMENTATIONS)
def impl(request):
    """Run the test once per implementation row; path="simd" runs that row."""
    previous = tsfile.set_simd(request.param)
    try:
        assert plain.active_implementation() == request.param
        yield request.param
    finally:
        tsfile.set_simd(previous)


@pytest.mark.parametrize("dtype", [np.int64, np.float64, np.float32])
def test_every_row_swaps_every_count_and_tail(impl, dtype):
    # counts around the 16/32-value iterations and masked tails of the AVX-512 row, at every byte
    # alignment of the source, with and without bytes after the values: bit-exact (NaN payloads)
    rng = np.random.default_rng(3)
    path = "batch" if impl == "scalar" else "simd"
    width = np.dtype(dtype).itemsize
    for n in list(range(0, 70)) + [127, 128, 129, 1000]:
        bits = rng.integers(0, 256, n * width, dtype=np.uint8)
        values = bits.view(dtype)
        data = plain.encode(values, dtype)
        for align in (0, 1, 5):
            for tail in (0, 3, 64):
                buf = memoryview(bytes(align) + data + b"\x5a" * tail)[align:]
                got = plain.decode(buf, dtype, count=n, path=path)
                assert got.tobytes() == values.tobytes(), (impl, n, align, tail)
                out = np.empty(n, dtype)
                assert plain.decode_into(buf, out, path=path) == n * width
                assert out.tobytes() == values.tobytes()
