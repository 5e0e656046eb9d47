"""RLBE decoder tests: round trips against a reference encoder written from the format notes (8.10),
hand-checked bytes, block boundaries, path equivalence, truncation and hostile input."""

import numpy as np
import pytest
from codec_checks import check_mutations_agree, check_random_bytes, same_bits
from hypothesis import given, settings
from hypothesis import strategies as st
from serial_ref import fibonacci_code, float_shapes, int_shapes, rlbe_encode, words

from tsfile.codecs import rlbe
from tsfile.errors import CorruptDataError, SimdUnavailableError
from tsfile.types import TSDataType

DTYPES = [np.int32, np.int64, np.float32, np.float64]
PATHS = ["per_value", "batch"]


def enc(values: np.ndarray, block: int = 10000) -> bytes:
    return rlbe_encode(words(values), values.dtype.itemsize * 8, block)


def shapes(dtype, n, seed=1):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        return float_shapes(dtype, rng, n)
    d = int_shapes(dtype, rng, n)
    info = np.iinfo(dtype)
    d["minmax"] = np.resize(np.array([info.min, info.max, info.min, 0], dtype=dtype), n)
    return d


def test_fibonacci_codes():
    assert fibonacci_code(1) == "11"
    assert fibonacci_code(2) == "011"
    assert fibonacci_code(3) == "0011"
    assert fibonacci_code(4) == "1011"
    assert fibonacci_code(12) == "101011"  # 1 + 3 + 8


def test_hand_checked_bytes():
    # INT32 [5, 6, 7]: block count 3 (32 bits); deltas 5, 1, 1 -> segments (L=3, k=1: '11', 101)
    # and (L=1, k=2: '011', 1, 1). Bits: 000011 11 101 | 000001 011 1 1 -> 30 bits, 4 bytes.
    data = bytes.fromhex("00000003") + int("000011111010000010111100", 2).to_bytes(3, "big")
    assert enc(np.array([5, 6, 7], dtype=np.int32)) == data
    for path in PATHS:
        assert rlbe.decode(data, np.int32, path=path).tolist() == [5, 6, 7]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 8, 9, 10, 17, 1000])
def test_round_trip_shapes(dtype, n):
    for name, values in shapes(dtype, n).items():
        data = enc(values)
        for path in PATHS:
            assert same_bits(rlbe.decode(data, dtype, path=path), values), (name, path)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [10000, 10001, 20000, 25003])
def test_block_boundaries(dtype, n):
    values = shapes(dtype, n, seed=n)["walk"]
    data = enc(values)
    for path in PATHS:
        assert same_bits(rlbe.decode(data, dtype, path=path), values), path
    out = np.empty(n, dtype=dtype)
    assert rlbe.decode_into(data, out) == len(data)
    assert same_bits(out, values)
    assert same_bits(rlbe.decode(data, dtype, count=n - 1), values[: n - 1])


def test_small_blocks_and_empty():
    v = np.arange(100, dtype=np.int64) ** 2
    assert same_bits(rlbe.decode(enc(v, block=7), np.int64), v)
    assert rlbe.decode(b"", np.int32).size == 0


def test_args():
    data = enc(np.array([20240101, 20240102], dtype=np.int32))
    assert rlbe.decode(data, TSDataType.DATE).tolist() == [20240101, 20240102]
    with pytest.raises(SimdUnavailableError):
        rlbe.decode(data, np.int32, path="simd")
    with pytest.raises(TypeError):
        rlbe.decode(data, TSDataType.BOOLEAN)
    with pytest.raises(CorruptDataError):
        rlbe.decode(data, np.int32, count=3)
    with pytest.raises(CorruptDataError):
        rlbe.decode_into(data, np.empty(3, np.int32))
    dec = rlbe.RlbeDecoder(data, TSDataType.INT32)
    assert list(dec) == [20240101, 20240102]


def test_streaming_floats():
    v = shapes(np.float32, 50)["specials"]
    got = list(rlbe.RlbeDecoder(enc(v), np.float32))
    assert same_bits(np.array(got, dtype=np.float32), v)


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_truncation_raises(dtype):
    values = shapes(dtype, 30, seed=2)["random_bits"]
    data = enc(values)
    for cut in range(1, len(data)):
        for path in PATHS:
            with pytest.raises(CorruptDataError):
                rlbe.decode(data[:cut], dtype, path=path)


def test_hostile_headers():
    with pytest.raises(CorruptDataError):  # block count 0
        rlbe.decode(b"\x00\x00\x00\x00\xff", np.int32)
    with pytest.raises(CorruptDataError):  # block count > 10000
        rlbe.decode(b"\x7f\xff\xff\xff\xff", np.int32)
    with pytest.raises(CorruptDataError):  # length field 0
        rlbe.decode(b"\x00\x00\x00\x01\x03\xff", np.int32)
    with pytest.raises(CorruptDataError):  # length 33 for a 32-bit word
        rlbe.decode(b"\x00\x00\x00\x01\x87\xff\xff\xff\xff\xff", np.int32)
    with pytest.raises(CorruptDataError):  # run longer than the block
        rlbe.decode(b"\x00\x00\x00\x01\x04\x6f\xff", np.int32)
    with pytest.raises(CorruptDataError):  # a Fibonacci code that never ends
        rlbe.decode(b"\x00\x00\x00\x05\x04" + b"\x00" * 20, np.int32)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=120), st.sampled_from(DTYPES), st.sampled_from(PATHS))
def test_random_bytes_never_crash(data, dtype, path):
    check_random_bytes(rlbe.decode, data, dtype, path)


def _decode_page(body, dt, count, path):
    return rlbe.decode(body, dt, count=count, path=path)


def test_official_fixture():
    from fixture_pages import check_fixture

    assert check_fixture("enc_rlbe", "RLBE", _decode_page) > 1000


def test_official_tree_fixture_compressed_pages():
    from fixture_pages import check_nonaligned

    assert check_nonaligned("tree_nonaligned", "RLBE", _decode_page) >= 50


@pytest.mark.parametrize("dtype", DTYPES)
def test_encoder_matches_reference(dtype):
    for n in (0, 1, 9, 10, 17, 10000, 10001):
        for name, values in shapes(dtype, n, seed=n + 2).items():
            assert rlbe.encode(values) == enc(values), (name, n)


def test_encoder_streaming_and_args():
    e = rlbe.RlbeEncoder(TSDataType.INT64)
    for x in (5, 6, 7, -100):
        e.encode(x)
    data = e.flush()
    assert data == enc(np.array([5, 6, 7, -100], dtype=np.int64))
    assert rlbe.decode(data, np.int64).tolist() == [5, 6, 7, -100]
    with pytest.raises(TypeError):
        rlbe.encode([1.5], TSDataType.INT32)


@pytest.mark.parametrize("dt", DTYPES)
def test_mutated_pages_never_crash(dt):
    check_mutations_agree(rlbe.decode, enc(shapes(dt, 300, seed=6)["walk"]), dt, PATHS)


def test_encoder_writes_the_official_pages():
    # every page of the official fixture, re-encoded from its written values: the same bytes
    from fixture_pages import pages_with_values

    n = 0
    for dt, values, body in pages_with_values("enc_rlbe", "RLBE"):
        assert rlbe.encode(values, dt) == body, (dt, n)
        n += 1
    assert n >= 6
