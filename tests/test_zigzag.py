"""ZIGZAG (format notes 8.6): blocks of uvarint encoded_len, uvarint count and zigzag LEB128
varints, checked against a pure-Python model; several blocks; per_value == batch; hostile input."""

import numpy as np
import pytest
from codec_checks import check_mutated_page, check_paths_agree
from hypothesis import given, settings
from hypothesis import strategies as st
from serial_ref import uvarint

from tsfile.codecs import zigzag
from tsfile.errors import CorruptDataError, SimdUnavailableError, UnsupportedError
from tsfile.types import TSDataType as T

PATHS = ["batch", "per_value"]


def model_block(values, bits):
    mask = (1 << bits) - 1
    body = b"".join(uvarint(((v << 1) ^ (v >> (bits - 1))) & mask) for v in values)
    return uvarint(len(body)) + uvarint(len(values)) + body


def decode_all(data, dtype, count=None):
    results = [zigzag.decode(data, dtype, count=count, path=p) for p in PATHS]
    assert results[0].tolist() == results[1].tolist()
    assert results[0].dtype == results[1].dtype
    return results[0]


def test_hand_built_block():
    # 0, -1, 1, -64, 64 -> zigzag 0, 1, 2, 127, 128 -> 00 01 02 7f 80 01
    data = bytes.fromhex("06 05 00 01 02 7f 8001".replace(" ", ""))
    assert decode_all(data, T.INT32).tolist() == [0, -1, 1, -64, 64]
    assert decode_all(data, T.INT64).tolist() == [0, -1, 1, -64, 64]
    assert zigzag.encode(np.array([0, -1, 1, -64, 64], np.int32)) == data
    assert zigzag.encode([0, -1, 1, -64, 64], T.INT64) == data
    assert decode_all(data, T.INT32).dtype == np.int32
    assert decode_all(data, T.INT64).dtype == np.int64


@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 127, 128, 129, 5000])
def test_matches_model(n):
    rng = np.random.default_rng(n)
    v32 = rng.integers(-(2**31), 2**31, n).astype(np.int32)
    if n:
        v32[0] = -(2**31)
    assert zigzag.encode(v32) == model_block(v32.tolist(), 32)
    assert decode_all(zigzag.encode(v32), T.INT32).tolist() == v32.tolist()
    v64 = rng.integers(-(2**63), 2**63, n, dtype=np.int64)
    if n:
        v64[-1] = 2**63 - 1
    assert zigzag.encode(v64) == model_block(v64.tolist(), 64)
    assert decode_all(zigzag.encode(v64), T.INT64).tolist() == v64.tolist()


def test_empty_block_like_cpp():
    assert zigzag.encode(np.array([], np.int32)) == b"\x00\x00"
    assert decode_all(b"\x00\x00", T.INT32).tolist() == []
    assert decode_all(b"", T.INT64).tolist() == []


def test_several_blocks_and_consumed():
    b1 = model_block([1, 2, 3], 32)
    b2 = model_block([-4, 5], 32)
    assert decode_all(b1 + b"\x00\x00" + b2, T.INT32).tolist() == [1, 2, 3, -4, 5]
    out = np.empty(2, np.int32)
    for p in PATHS:
        assert zigzag.decode_into(b1 + b2, out, path=p) == len(b1)
        assert out.tolist() == [1, 2]
    out = np.empty(4, np.int32)
    for p in PATHS:
        assert zigzag.decode_into(b1 + b2, out, path=p) == len(b1) + len(b2)
        assert out.tolist() == [1, 2, 3, -4]


def test_streaming_api():
    data = zigzag.encode(np.array([3, -3, 300], np.int64))
    dec = zigzag.ZigzagDecoder(data, T.INT64)
    got = []
    while dec.has_next():
        got.append(dec.next())
    assert got == [3, -3, 300]
    with pytest.raises(StopIteration):
        dec.next()
    enc = zigzag.ZigzagEncoder(T.INT32)
    for v in (3, -3, 300):
        enc.encode(v)
    assert enc.flush() == model_block([3, -3, 300], 32)


def test_argument_errors():
    with pytest.raises(UnsupportedError):
        zigzag.decode(b"", T.DOUBLE)
    with pytest.raises(UnsupportedError):
        zigzag.decode(b"", T.BOOLEAN)
    with pytest.raises(UnsupportedError):
        zigzag.encode(["a"], T.TEXT)
    with pytest.raises(TypeError):
        zigzag.decode(b"", "bogus")
    with pytest.raises(SimdUnavailableError):
        zigzag.decode(b"", T.INT32, path="simd")
    assert zigzag.HAS_SIMD is False


def _all_paths_raise(data, dtype, count=None):
    for p in PATHS:
        with pytest.raises(CorruptDataError):
            zigzag.decode(data, dtype, count=count, path=p)


def test_hostile():
    good = model_block([1, 200, -3], 32)
    for cut in range(1, len(good)):
        _all_paths_raise(good[:cut], T.INT32)
    _all_paths_raise(good, T.INT32, count=4)
    _all_paths_raise(b"\x02\x05\x00\x00", T.INT32)  # count larger than the varint bytes
    _all_paths_raise(b"\x03\x02\x00\x00\x00", T.INT32)  # a byte left over in the block
    _all_paths_raise(b"\x02\x02\x00\x80", T.INT32)  # varint crossing the block end
    _all_paths_raise(b"\x06\x01\x80\x80\x80\x80\x80\x00", T.INT32)  # 6-byte INT32 varint
    _all_paths_raise(b"\x05\x01\xff\xff\xff\xff\x1f", T.INT32)  # beyond 32 bits
    _all_paths_raise(b"\x0b\x01" + b"\x80" * 10 + b"\x00", T.INT64)  # 11-byte varint
    _all_paths_raise(b"\x0a\x01" + b"\xff" * 9 + b"\x02", T.INT64)  # beyond 64 bits
    _all_paths_raise(uvarint(2**31) + b"\x01\x00", T.INT64)  # block longer than the data


@settings(max_examples=300, deadline=None)
@given(
    st.binary(max_size=64),
    st.sampled_from([T.INT32, T.INT64]),
    st.one_of(st.none(), st.integers(0, 70)),
)
def test_random_bytes_never_crash(data, dtype, count):
    check_paths_agree(zigzag.decode, data, dtype, count, PATHS)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(-(2**63), 2**63 - 1), max_size=200))
def test_round_trip_property(values):
    data = zigzag.encode(values, T.INT64)
    assert data == model_block(values, 64)
    assert decode_all(data, T.INT64).tolist() == values


VALID_PAGES = [
    (zigzag.encode(np.arange(-150, 150, dtype=np.int32) * 7919), T.INT32),
    (
        zigzag.encode(np.array([2**62, -(2**63), 5, 0], np.int64)) + zigzag.encode([1, 2], T.INT64),
        T.INT64,
    ),
]
MOD = zigzag
BINARY = ()


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_mutated_pages_never_crash(data):
    """Valid pages with flipped bytes, cuts and splices: every path raises CorruptDataError or
    returns the same values as the others."""
    check_mutated_page(data, VALID_PAGES, MOD, PATHS, BINARY)


def test_pages_written_by_the_official_writer():
    """Single-value pages written by the official 2.5 package (captured from its output)."""
    assert zigzag.encode([-(2**31)], T.INT32) == bytes.fromhex("0501ffffffff0f")
    assert zigzag.encode([2**63 - 1], T.INT64) == bytes.fromhex("0a01feffffffffffffffff01")
    assert decode_all(bytes.fromhex("0501ffffffff0f"), T.INT32).tolist() == [-(2**31)]
    assert decode_all(bytes.fromhex("0a01feffffffffffffffff01"), T.INT64).tolist() == [2**63 - 1]
