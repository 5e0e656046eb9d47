"""SPRINTZ decoder tests: round trips against a reference encoder written from the format notes
(8.9: Fire predictor, 9-value blocks, RLE / GORILLA tails), path equivalence, truncation and
hostile input."""

import numpy as np
import pytest
from codec_checks import check_mutations_agree, check_random_bytes, same_bits
from hypothesis import given, settings
from hypothesis import strategies as st
from serial_ref import SprintzLossy, float_shapes, int_shapes, sprintz_encode, uvarint, words

from tsfile.codecs import sprintz
from tsfile.errors import CorruptDataError, SimdUnavailableError
from tsfile.types import TSDataType

DTYPES = [np.int32, np.int64, np.float32, np.float64]
KIND = {np.int32: "i32", np.int64: "i64", np.float32: "f32", np.float64: "f64"}
PATHS = ["per_value", "batch"]


def enc(values: np.ndarray, tail_runs: bool = False) -> bytes:
    return sprintz_encode(words(values), KIND[values.dtype.type], tail_runs)


def shapes(dtype, n, seed=1):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        d = float_shapes(dtype, rng, n)
        u = np.uint32 if np.dtype(dtype).itemsize == 4 else np.uint64
        canon = 0x7FC00000 if u is np.uint32 else 0x7FF8000000000000
        d["canonical_nan"] = np.resize(np.array([canon, 0], dtype=u).view(dtype), n)
        return d
    d = int_shapes(dtype, rng, n)
    info = np.iinfo(dtype)
    d["minmax"] = np.resize(np.array([info.min + 1, info.max, info.min + 1, 0, 5], dtype=dtype), n)
    # large steps: exercise wrapping and the exact 64-bit product of the predictor
    d["big_steps"] = (np.arange(n, dtype=np.int64) * (info.max // 7)).astype(dtype)
    return d


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 8, 9, 10, 17, 18, 19, 200])
def test_round_trip_shapes(dtype, n):
    skipped = []
    for name, values in shapes(dtype, n).items():
        try:
            data = enc(values)
        except SprintzLossy:  # not representable (see test_error_of_min_value_is_lost...)
            skipped.append(name)
            continue
        for path in PATHS:
            got = sprintz.decode(data, dtype, path=path)
            assert same_bits(got, values), (name, path)
    assert not {"walk", "constant", "random_bits"} & set(skipped), skipped


@pytest.mark.parametrize("dtype", DTYPES)
def test_long_page(dtype):
    values = shapes(dtype, 10001, seed=9)["walk"]
    data = enc(values)
    for path in PATHS:
        assert same_bits(sprintz.decode(data, dtype, path=path), values)
    out = np.empty(10001, dtype=dtype)
    assert sprintz.decode_into(data, out) == len(data)
    assert same_bits(out, values)
    assert same_bits(sprintz.decode(data, dtype, count=100), values[:100])
    with pytest.raises(CorruptDataError):
        sprintz.decode(data, dtype, count=10002)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_rle_run_tail(dtype):
    # Java-style writers use an RLE run for repeated values (INT32 little-endian, INT64 big-endian)
    v = np.array(list(range(9)) + [300] * 5, dtype=dtype)
    data = enc(v, tail_runs=True)
    assert same_bits(sprintz.decode(data, dtype), v)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_error_of_min_value_is_lost_by_the_format(dtype):
    # e = -2**(W-1) has residual -2e = 0 (wrapping), which decodes as e = 0: the writers lose such a
    # value. The decoder must return what the bytes say (the prediction), like any reader would.
    info = np.iinfo(dtype)
    v = np.array([0, info.min] + [0] * 7, dtype=dtype)
    with pytest.raises(SprintzLossy):
        enc(v)
    data = sprintz_encode(words(v), KIND[v.dtype.type], strict=False)
    got = sprintz.decode(data, dtype)
    assert got[0] == 0 and got[1] == 0  # the first prediction is the previous value, 0


def test_hand_checked_bytes():
    # INT32 [0..8] then tail [9]: predictor residuals. v = 0, 1, ..., 8: first pred = 0 (delta 0)
    # -> e = 1, r = 1; then acc grows by delta each step, alpha = acc >> 2, diff = alpha*1 >> 8 = 0,
    # pred = prev, e = 1, r = 1 for every value: w = 1, packed byte 0xff.
    # Tail: 0x81, RLE block: len 7, width 4, header 03 (1 group), last count 1, then the group of
    # 8 x 4 bits = 4 bytes: 90 00 00 00.
    data = bytes([1, 0, 0xFF, 0x81, 7, 4, 3, 1, 0x90, 0, 0, 0])
    assert sprintz_encode(list(range(10)), "i32") == data
    for path in PATHS:
        assert sprintz.decode(data, np.int32, path=path).tolist() == list(range(10))


def test_rle_tail_example_from_the_notes():
    # format notes 8.5: INT32 5, 15, 25 as an RLE block = 08 05 03 03 2b f2 00 00 00
    data = bytes([0x83]) + bytes.fromhex("080503032bf2000000")
    for path in PATHS:
        assert sprintz.decode(data, np.int32, path=path).tolist() == [5, 15, 25]


def test_args_and_streaming():
    data = enc(np.arange(20, dtype=np.int64))
    with pytest.raises(SimdUnavailableError):
        sprintz.decode(data, np.int64, path="simd")
    with pytest.raises(TypeError):
        sprintz.decode(data, TSDataType.TEXT)
    assert list(sprintz.SprintzDecoder(data, TSDataType.INT64)) == list(range(20))
    v = shapes(np.float64, 30)["random_bits"]
    v[-3:] = np.array([np.nan, -0.0, np.inf])  # in the GORILLA tail: canonical NaN included
    got = list(sprintz.SprintzDecoder(enc(v), TSDataType.DOUBLE))
    assert same_bits(np.array(got, dtype=np.float64), v)


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_truncation_raises(dtype):
    values = shapes(dtype, 23, seed=4)["random_bits"]
    data = enc(values)
    for cut in range(1, len(data)):
        for path in PATHS:
            try:
                got = sprintz.decode(data[:cut], dtype, path=path)
            except CorruptDataError:
                continue
            # a cut exactly between blocks is a shorter valid page; a GORILLA tail missing only
            # its padding byte still holds every value
            assert same_bits(got, values[: len(got)]), cut
            assert len(got) % 9 == 0 or len(got) == len(values), cut


def test_hostile():
    with pytest.raises(CorruptDataError):  # width 33 for INT32
        sprintz.decode(bytes([33, 0]) + b"\x00" * 33, np.int32)
    with pytest.raises(CorruptDataError):  # tail of 0 values
        sprintz.decode(bytes([0x80]), np.int32)
    with pytest.raises(CorruptDataError):  # tail claims 5 values, RLE block holds 1
        sprintz.decode(bytes([0x85]) + uvarint(4) + bytes([4, 3, 1, 0x90]), np.int32)
    with pytest.raises(CorruptDataError):  # over-long first-value varint
        sprintz.decode(bytes([1]) + b"\xff" * 6 + b"\x00", np.int32)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=120), st.sampled_from(DTYPES), st.sampled_from(PATHS))
def test_random_bytes_never_crash(data, dtype, path):
    check_random_bytes(sprintz.decode, data, dtype, path)


def _decode_page(body, dt, count, path):
    return sprintz.decode(body, dt, count=count, path=path)


def test_official_fixture():
    from fixture_pages import check_fixture

    assert check_fixture("enc_sprintz", "SPRINTZ", _decode_page) > 1000


def test_official_tree_fixture_compressed_pages():
    from fixture_pages import check_nonaligned

    assert check_nonaligned("tree_nonaligned", "SPRINTZ", _decode_page) >= 50


@pytest.mark.parametrize("dt", DTYPES)
def test_mutated_pages_never_crash(dt):
    check_mutations_agree(sprintz.decode, enc(shapes(dt, 300, seed=6)["walk"]), dt, PATHS)


@pytest.mark.parametrize("dtype", DTYPES)
def test_encoder_matches_reference(dtype):
    for n in (0, 1, 8, 9, 10, 17, 18, 19, 1000):
        for name, values in shapes(dtype, n, seed=n + 3).items():
            want = sprintz_encode(words(values), KIND[values.dtype.type], strict=False)
            assert sprintz.encode(values) == want, (name, n)


def test_encoder_streaming():
    e = sprintz.SprintzEncoder(TSDataType.INT32)
    for x in range(12):
        e.encode(x * 3)
    assert sprintz.decode(e.flush(), np.int32).tolist() == [x * 3 for x in range(12)]


def test_encoder_writes_the_official_pages():
    # every page of the official fixture, re-encoded from its written values: the same bytes
    from fixture_pages import pages_with_values

    n = 0
    for dt, values, body in pages_with_values("enc_sprintz", "SPRINTZ"):
        assert sprintz.encode(values, dt) == body, (dt, n)
        n += 1
    assert n >= 6
