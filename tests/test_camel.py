"""CAMEL decoder tests: round trips against a reference encoder written from the format notes
(8.11) and the official writer's rules, hand-checked bytes, path equivalence, truncation and
hostile input."""

import math

import numpy as np
import pytest
from codec_checks import check_mutations_agree, check_random_bytes
from hypothesis import given, settings
from hypothesis import strategies as st
from serial_ref import camel_encode, f64_bits, svarint32

from tsfile.codecs import camel
from tsfile.errors import CorruptDataError, SimdUnavailableError
from tsfile.types import TSDataType

PATHS = ["per_value", "batch"]


def check(values, exact=True):
    data, expected_bits = camel_encode([float(x) for x in values])
    exp = np.array(expected_bits, dtype=np.uint64).view(np.float64)
    for path in PATHS:
        got = camel.decode(data, TSDataType.DOUBLE, path=path)
        assert got.tobytes() == exp.tobytes(), path
    if exact:  # the format reproduces these values exactly
        assert exp.tobytes() == np.asarray(values, dtype=np.float64).tobytes()
    return data


def test_hand_checked_bytes():
    # [1.5, 2.5]: nbits = 64 + (sign 0, type 1, varlong(2 - 1 = 1): zigzag 2 = '0000010' + '0',
    # c - 1 = 0 '0000', D = 5 >= 5^1 -> flag '1', xor bits: bits(0.5 + 1) ^ bits(0 + 1) >> 51
    # -> '1', m = 0: '0000000' '0') = 64 + 2 + 8 + 4 + 1 + 1 + 8 = 88 bits = 11 bytes.
    bits = "01" + "00000100" + "0000" + "1" + "1" + "00000000"
    stream = f64_bits(1.5).to_bytes(8, "big") + int(bits, 2).to_bytes(3, "big")
    data = svarint32(88) + stream
    assert camel_encode([1.5, 2.5])[0] == data
    for path in PATHS:
        assert camel.decode(data, path=path).tolist() == [1.5, 2.5]


@pytest.mark.parametrize("n", [1, 2, 9, 100, 2000])
def test_decimals(n):
    rng = np.random.default_rng(n)
    check(np.round(rng.uniform(-1000, 1000, n), 2))
    check(np.round(rng.uniform(0, 10, n), 4))
    check(np.round(np.cumsum(rng.normal(0, 1, n)) + 100, 1))


def test_other_shapes():
    rng = np.random.default_rng(7)
    check(np.full(50, 3.0))
    check(rng.normal(0, 1, 300), exact=False)  # long fractions: GORILLA path, exact anyway
    check(rng.integers(-(10**6), 10**6, 300).astype(np.float64))
    check([0.0, -0.0, 1e300, -1e-300, np.inf, -np.inf, 5e-324, 123456789.5, 1e10, 12345.678])
    check([12.5, 7.25, -3.125, 99.99, -0.01, 0.001, 1e-9, 2.0**62, 9.9e18])


def test_nan_handling():
    payload = np.array([0x7FF8000000000123], dtype=np.uint64).view(np.float64)[0]
    # the first value keeps its raw bits; a later NaN is written by the writer as the decimal 0.0
    data, exp = camel_encode([payload, 1.0, math.nan, 2.0])
    got = camel.decode(data)
    assert got.view(np.uint64)[0] == 0x7FF8000000000123
    assert got.tobytes() == np.array(exp, dtype=np.uint64).tobytes()
    assert got[2] == 0.0


def test_many_magnitudes_match_the_reconstruction_formula():
    # the decoder must return what the format's reconstruction yields (the reference computes it
    # independently; for these values it also equals the input), with its GORILLA state following
    # the reconstructed values
    rng = np.random.default_rng(3)
    vals = rng.uniform(0, 1, 2000) * 10.0 ** rng.integers(-3, 6, 2000)
    digits = rng.integers(0, 9, 2000)
    check([round(float(v), int(d)) for v, d in zip(vals, digits, strict=True)], exact=False)


def test_multiple_blocks_and_count():
    a, _ = camel_encode([1.25, 2.5, 3.75])
    b, _ = camel_encode([-4.0, 5.5])
    for path in PATHS:
        assert camel.decode(a + b, path=path).tolist() == [1.25, 2.5, 3.75, -4.0, 5.5]
    assert camel.decode(a + b, count=4).tolist() == [1.25, 2.5, 3.75, -4.0]
    out = np.empty(5)
    assert camel.decode_into(a + b, out) == len(a + b)
    with pytest.raises(CorruptDataError):
        camel.decode_into(a + b, np.empty(6))
    assert list(camel.CamelDecoder(a + b)) == [1.25, 2.5, 3.75, -4.0, 5.5]


def test_args():
    data, _ = camel_encode([1.0])
    with pytest.raises(TypeError):
        camel.decode(data, np.float32)
    with pytest.raises(TypeError):
        camel.decode(data, TSDataType.INT64)
    with pytest.raises(SimdUnavailableError):
        camel.decode(data, path="simd")
    assert camel.decode(b"").size == 0


def test_every_truncation_raises():
    data, _ = camel_encode(list(np.round(np.linspace(-5, 5, 40), 3)) + [math.pi, 1e200])
    for cut in range(1, len(data)):
        for path in PATHS:
            with pytest.raises(CorruptDataError):
                camel.decode(data[:cut], path=path)


def test_hostile():
    with pytest.raises(CorruptDataError):  # nbits 0
        camel.decode(b"\x00")
    with pytest.raises(CorruptDataError):  # negative nbits
        camel.decode(b"\x01\x00")
    with pytest.raises(CorruptDataError):  # nbits 65: the 2nd value's fields cross the block end
        camel.decode(svarint32(65) + b"\x00" * 9)
    with pytest.raises(CorruptDataError):  # nbits > the bytes present
        camel.decode(svarint32(1000) + b"\x00" * 9)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=120), st.sampled_from(PATHS))
def test_random_bytes_never_crash(data, path):
    check_random_bytes(camel.decode, data, TSDataType.DOUBLE, path)


def _decode_page(body, dt, count, path):
    return camel.decode(body, dt, count=count, path=path)


def test_official_fixture():
    from fixture_pages import check_fixture

    assert check_fixture("enc_camel", "CAMEL", _decode_page) > 1000


def test_official_tree_fixture_compressed_pages():
    from fixture_pages import check_nonaligned

    assert check_nonaligned("tree_nonaligned", "CAMEL", _decode_page) >= 50


def test_mutated_pages_never_crash():
    data = camel_encode(
        [float(x) for x in np.round(np.linspace(-50, 50, 300), 2)] + [math.pi, 1e300]
    )[0]
    check_mutations_agree(camel.decode, data, TSDataType.DOUBLE, PATHS, n=400)


def test_encoder_matches_reference():
    rng = np.random.default_rng(12)
    cases = [
        [1.5, 2.5],
        list(np.round(rng.uniform(-1000, 1000, 500), 2)),
        list(rng.normal(0, 1, 300)),
        [0.0, -0.0, 1e300, -1e-300, np.inf, -np.inf, 5e-324, 123456789.5, 1e10, 12345.678, np.nan],
        [12.5, 7.25, -3.125, 99.99, -0.01, 0.001, 1e-9, 2.0**62, 9.9e18, 2.675, 0.1 + 0.2],
        list(rng.uniform(0, 1, 500) * 10.0 ** rng.integers(-3, 6, 500)),
    ]
    for vals in cases:
        data, exp = camel_encode([float(x) for x in vals])
        assert camel.encode(np.array(vals, dtype=np.float64)) == data
        assert camel.decode(data).tobytes() == np.array(exp, dtype=np.uint64).tobytes()
    e = camel.CamelEncoder()
    for x in (1.25, -7.5, 3.0):
        e.encode(x)
    assert camel.decode(e.flush()).tolist() == [1.25, -7.5, 3.0]
    assert camel.encode([]) == b""


def test_encoder_splits_huge_pages_into_blocks():
    # more than 2**20 values: several blocks, each below 2**31 bits
    v = np.round(np.random.default_rng(1).uniform(-100, 100, (1 << 20) + 5), 2)
    data = camel.encode(v)
    assert camel.decode(data).tobytes() == v.tobytes()


def test_encoder_writes_the_official_pages():
    # every page of the official fixture, re-encoded from its written values: the same bytes
    from fixture_pages import pages_with_values

    n = 0
    for dt, values, body in pages_with_values("enc_camel", "CAMEL"):
        assert camel.encode(values, dt) == body, (dt, n)
        n += 1
    assert n >= 6


def test_streaming_decoder_reports_a_bad_block_header_where_decode_does():
    # A block header corrupted (byte 1 zeroed): the streaming decoder reported byte 2 where both
    # decode() paths report byte 7 (it took the offset inside a block it had not started).
    rng = np.random.default_rng(1)
    page = bytearray(camel.encode(np.round(np.cumsum(rng.normal(0, 1, 3000)), 2)))
    page[1] = 0
    messages = set()
    for run in (
        lambda: camel.decode(bytes(page), path="batch"),
        lambda: camel.decode(bytes(page), path="per_value"),
        lambda: list(camel.CamelDecoder(bytes(page))),
    ):
        with pytest.raises(CorruptDataError) as err:
            run()
        messages.add(str(err.value))
    assert messages == {f"CAMEL DOUBLE: corrupt field at byte offset 7 (of {len(page)})"}
