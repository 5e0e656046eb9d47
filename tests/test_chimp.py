"""CHIMP decoder tests: round trips against a reference encoder written from the format notes (8.8),
path equivalence, the streaming decoder, truncation and hostile input."""

import numpy as np
import pytest
from codec_checks import check_mutations_agree, check_random_bytes, same_bits
from hypothesis import given, settings
from hypothesis import strategies as st
from serial_ref import END, chimp_encode, float_shapes, from_words, int_shapes, words

from tsfile.codecs import chimp
from tsfile.errors import CorruptDataError, SimdUnavailableError
from tsfile.types import TSDataType

DTYPES = [np.int32, np.int64, np.float32, np.float64]
PATHS = ["per_value", "batch"]


def enc(values: np.ndarray) -> bytes:
    dt = values.dtype
    return chimp_encode(words(values), dt.itemsize * 8, END[dt])


def shapes(dtype, n, seed=1):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        return float_shapes(dtype, rng, n)
    d = int_shapes(dtype, rng, n)
    endv = END[np.dtype(dtype)]
    for k, v in d.items():  # the end marker (MIN_VALUE) cannot be stored
        u = v.view(np.uint32 if v.itemsize == 4 else np.uint64)
        v[u == endv] = 7
        d[k] = v
    return d


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 2, 63, 64, 65, 129, 1000])
def test_round_trip_shapes(dtype, n):
    for name, values in shapes(dtype, n).items():
        data = enc(values)
        for path in PATHS:
            got = chimp.decode(data, dtype, path=path)
            assert same_bits(got, values), (name, path)


@pytest.mark.parametrize("dtype", DTYPES)
def test_long_page_and_count(dtype):
    values = shapes(dtype, 10000, seed=5)["walk"]
    data = enc(values)
    assert same_bits(chimp.decode(data, dtype), values)
    assert same_bits(chimp.decode(data, dtype, count=1234, path="per_value"), values[:1234])
    out = np.empty(10000, dtype=dtype)
    used = chimp.decode_into(data, out, path="batch")
    assert same_bits(out, values)
    assert used == len(data)
    with pytest.raises(CorruptDataError):
        chimp.decode_into(data, np.empty(10001, dtype=dtype))


def test_tsdatatype_arguments():
    v = np.array([20240101, 20240102, 20250101], dtype=np.int32)
    data = enc(v)
    assert same_bits(chimp.decode(data, TSDataType.DATE), v)
    assert same_bits(chimp.decode(data, TSDataType.INT32), v)
    t = np.arange(5, dtype=np.int64) * 1000
    assert same_bits(chimp.decode(enc(t), TSDataType.TIMESTAMP), t)
    with pytest.raises(TypeError):
        chimp.decode(data, TSDataType.TEXT)
    with pytest.raises(TypeError):
        chimp.decode(data, np.uint16)
    with pytest.raises(TypeError):
        chimp.decode("abc", np.int32)


def test_paths():
    data = enc(np.arange(10, dtype=np.int64))
    with pytest.raises(SimdUnavailableError):
        chimp.decode(data, np.int64, path="simd")
    with pytest.raises(ValueError):
        chimp.decode(data, np.int64, path="fast")
    assert chimp.HAS_SIMD is False
    assert same_bits(chimp.decode(data, np.int64, path="auto"), np.arange(10, dtype=np.int64))


def test_hand_checked_bytes():
    # INT32 [1, 1]: first value 32 bits 0x00000001, then '00' + ref 0 (6 bits) for the repeat,
    # then the end value 0x80000000: x = 0x80000001 has 0 trailing zeros -> '11', lead class 0
    # (code 000), 32 bits of x. Bits: 32 + 8 + 2 + 3 + 32 = 77 -> 10 bytes:
    # '11' '000' '1' + 30 x '0' + '1' = c4 00 00 00, then '00001' + 3 pad bits = 08.
    data = bytes.fromhex("0000000100c400000008")
    assert chimp.decode(data, np.int32).tolist() == [1, 1]
    assert enc(np.array([1, 1], dtype=np.int32)) == data


def test_end_marker_value_truncates_page():
    # canonical NaN is the DOUBLE end marker: a page "containing" it ends there
    v = np.array([1.0, 2.0], dtype=np.float64)
    data = chimp_encode(words(v) + [END[np.dtype(np.float64)]], 64, END[np.dtype(np.float64)])
    assert chimp.decode(data, np.float64).tolist() == [1.0, 2.0]


@pytest.mark.parametrize("dtype", DTYPES)
def test_end_marker_values_decode_with_a_known_count(dtype):
    # the writer stores MIN_VALUE / canonical NaN like any value; readers that know the page's
    # value count (the official one does) return them
    endv = END[np.dtype(dtype)]
    ws = words(shapes(dtype, 20, seed=8)["walk"])
    ws[0] = ws[7] = ws[19] = endv
    data = chimp_encode(ws, np.dtype(dtype).itemsize * 8, endv)
    exp = from_words(ws, dtype)
    for path in PATHS:
        assert same_bits(chimp.decode(data, dtype, count=20, path=path), exp)
        out = np.empty(20, dtype=dtype)
        assert chimp.decode_into(data, out, path=path) == len(data)
        assert same_bits(out, exp)
    assert chimp.decode(data, dtype).size == 0  # without a count the first one ends the page


def test_streaming_decoder():
    v = shapes(np.float32, 300)["specials"]
    dec = chimp.ChimpDecoder(enc(v), TSDataType.FLOAT)
    got = []
    while dec.has_next():
        got.append(dec.next())
    assert same_bits(np.array(got, dtype=np.float32), v)
    assert list(chimp.ChimpDecoder(enc(np.array([5, -6], dtype=np.int64)), np.int64)) == [5, -6]


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_truncation_raises(dtype):
    values = shapes(dtype, 40, seed=3)["random_bits"]
    data = enc(values)
    assert chimp.decode(b"", dtype).size == 0  # no bytes: no values
    for cut in range(1, len(data) - 1):
        for path in PATHS:
            try:
                got = chimp.decode(data[:cut], dtype, path=path)
            except CorruptDataError:
                continue
            # the only cut that can decode is one that still holds the end marker's bits
            assert same_bits(got, values), cut


def test_hostile_count():
    with pytest.raises(CorruptDataError):
        chimp.decode(b"\x00" * 8, np.int64, count=10**12)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200), st.sampled_from(DTYPES), st.sampled_from(PATHS))
def test_random_bytes_never_crash(data, dtype, path):
    # whatever decodes must be what the other path decodes
    check_random_bytes(chimp.decode, data, dtype, path)


def test_from_words_helper_consistency():
    v = np.array([1.5, -2.25], dtype=np.float64)
    assert same_bits(from_words(words(v), np.float64), v)


def _decode_page(body, dt, count, path):
    return chimp.decode(body, dt, count=count, path=path)


def test_official_fixture_enc_chimp():
    from fixture_pages import check_fixture

    assert check_fixture("enc_chimp", "CHIMP", _decode_page) > 5000


def test_official_fixture_end_marker_values():
    # table `chimp` holds MIN_VALUE / canonical NaN at page starts, middles and ends
    from fixture_pages import check_fixture

    n = check_fixture("gorilla_end_markers", "CHIMP", _decode_page, without_count=False)
    assert n == 4 * 300


def test_official_tree_fixture_compressed_pages():
    from fixture_pages import check_nonaligned

    assert check_nonaligned("tree_nonaligned", "CHIMP", _decode_page) >= 50


@pytest.mark.parametrize("dtype", DTYPES)
def test_encoder_matches_reference(dtype):
    for n in (0, 1, 2, 65, 129, 3000):
        for name, values in shapes(dtype, n, seed=n + 1).items():
            assert chimp.encode(values) == enc(values), (name, n)
    ws = words(shapes(dtype, 50)["walk"])
    ws[3] = END[np.dtype(dtype)]
    v = from_words(ws, dtype)
    data = chimp.encode(v)
    assert same_bits(chimp.decode(data, dtype, count=50), v)


def test_encoder_args_and_streaming():
    assert chimp.encode([1, 2, 3], TSDataType.INT32) == enc(np.array([1, 2, 3], dtype=np.int32))
    assert chimp.encode([1.5, 2.5], TSDataType.FLOAT) == enc(np.array([1.5, 2.5], np.float32))
    with pytest.raises(TypeError):
        chimp.encode([1.5], TSDataType.INT64)
    with pytest.raises(TypeError):
        chimp.encode(np.array([1, 2], dtype=np.uint8))
    from tsfile.errors import EncodeError

    with pytest.raises(EncodeError):
        chimp.encode([2**40], TSDataType.INT32)
    e = chimp.ChimpEncoder(TSDataType.DOUBLE)
    for x in (1.0, 2.0, 2.5):
        e.encode(x)
    assert chimp.decode(e.flush(), np.float64).tolist() == [1.0, 2.0, 2.5]
    assert chimp.decode(e.flush(), np.float64).size == 0


@pytest.mark.parametrize("dt", DTYPES)
def test_mutated_pages_never_crash(dt):
    check_mutations_agree(chimp.decode, enc(shapes(dt, 300, seed=6)["walk"]), dt, PATHS)


def test_encoder_writes_the_official_pages():
    # every page of the official fixture, re-encoded from its written values: the same bytes
    from fixture_pages import pages_with_values

    n = 0
    for name in ("enc_chimp", "gorilla_end_markers"):  # the latter stores end-marker values
        for dt, values, body in pages_with_values(name, "CHIMP"):
            assert chimp.encode(values, dt) == body, (name, dt, n)
            n += 1
    assert n >= 18
