"""DICTIONARY (format notes 8.7): svarint entry count, varstr entries in order of first appearance,
INT32 RLE indices. Hand-built bytes (incl. Java-style RLE runs in the indices), round trips,
per_value == batch, hostile input -> CorruptDataError."""

import numpy as np
import pytest
from codec_checks import check_mutated_page, check_paths_agree
from hypothesis import given, settings
from hypothesis import strategies as st
from serial_ref import uvarint

from tsfile.codecs import dictionary
from tsfile.errors import CorruptDataError, SimdUnavailableError, UnsupportedError
from tsfile.types import TSDataType as T

PATHS = ["batch", "per_value"]


def svarint(n):
    return uvarint(((n << 1) ^ (n >> 31)) & 0xFFFFFFFF)


def varstr(b):
    return svarint(len(b)) + b


def bitpacked_block(indices, w):
    """One RLE block of bit-packed runs (<= 63 groups each), MSB-first, built with big ints."""
    body = bytes([w])
    for r in range(0, len(indices), 504):
        chunk = indices[r : r + 504]
        groups = (len(chunk) + 7) // 8
        body += uvarint(groups << 1 | 1) + bytes([len(chunk) - (groups - 1) * 8])
        padded = chunk + [0] * (groups * 8 - len(chunk))
        for g in range(groups):
            acc = 0
            for v in padded[8 * g : 8 * g + 8]:
                acc = (acc << w) | v
            body += acc.to_bytes(w, "big") if w else b""
    return uvarint(len(body)) + body


def model(values):
    """The C++ writer's page: entries by first appearance, width = bit length of the top index."""
    entries, idx = [], []
    for v in values:
        if v not in entries:
            entries.append(v)
        idx.append(entries.index(v))
    w = max(1, (len(entries) - 1).bit_length()) if entries else 0
    head = svarint(len(entries)) + b"".join(varstr(e) for e in entries)
    return head + (bitpacked_block(idx, w) if values else bytes.fromhex("03000108"))


def decode_all(data, dtype=T.TEXT, count=None):
    results = [dictionary.decode(data, dtype, count=count, path=p) for p in PATHS]
    assert results[0].tolist() == results[1].tolist()
    assert results[0].dtype == object
    return results[0]


def test_hand_built():
    # entries "a", "bb"; indices 0 1 0 with width 1: 0b010 padded -> 0x40
    data = bytes.fromhex("04 0261 046262 04 01 03 03 40".replace(" ", ""))
    assert decode_all(data).tolist() == [b"a", b"bb", b"a"]
    assert dictionary.encode(["a", "bb", "a"]) == data
    assert dictionary.encode([b"a", b"bb", b"a"], T.STRING) == data
    assert decode_all(data, T.STRING, count=2).tolist() == [b"a", b"bb"]


def test_single_entry_width_one_and_empty():
    # the official 2.5 writer's value bytes for a TEXT page "a", "a", "a" (DICTIONARY,
    # uncompressed): one entry, then an RLE block of width 1 (not 0)
    official = bytes.fromhex("02 0261 04 01 03 03 00".replace(" ", ""))
    assert dictionary.encode(["a", "a", "a"]) == official
    assert decode_all(official).tolist() == [b"a"] * 3
    data = dictionary.encode(["x"] * 5)
    assert data == bytes.fromhex("02 0278 04 01 03 05 00".replace(" ", ""))
    assert decode_all(data).tolist() == [b"x"] * 5
    # a single value (official writer: STRING "é")
    assert dictionary.encode(["é"], T.STRING) == bytes.fromhex("0204c3a90401030100")
    # width 0 (all indices 0, no packed bytes) still decodes
    assert decode_all(bytes.fromhex("02 0278 03 00 03 05".replace(" ", ""))).tolist() == [b"x"] * 5
    assert dictionary.encode([]) == bytes.fromhex("00 03000108".replace(" ", ""))
    assert decode_all(dictionary.encode([])).tolist() == []


def test_java_style_rle_runs_in_indices():
    # indices: RLE run of 12 x index 1, then bit-packed 0, 2, 1 (width 2)
    idx_block = bytes([2]) + uvarint(12 << 1) + b"\x01" + uvarint(1 << 1 | 1) + b"\x03"
    idx_block += (0b00_10_01_00 << 8).to_bytes(2, "big")  # 0,2,1 then padding
    data = svarint(3) + varstr(b"p") + varstr("é".encode()) + varstr(b"")
    data += uvarint(len(idx_block)) + idx_block
    want = ["é".encode()] * 12 + [b"p", b"", "é".encode()]
    assert decode_all(data).tolist() == want
    entries, indices = dictionary.decode_indices(data)
    assert entries.tolist() == [b"p", "é".encode(), b""]
    assert indices.tolist() == [1] * 12 + [0, 2, 1]


@pytest.mark.parametrize("n", [1, 7, 8, 9, 503, 504, 505, 1200])
@pytest.mark.parametrize("vocab", [1, 2, 3, 200, 5000])
def test_round_trip_against_model(n, vocab):
    rng = np.random.default_rng(n * 7 + vocab)
    words = [f"w{i}-ü".encode() for i in range(vocab)] + [b""]
    values = [words[i] for i in rng.integers(0, len(words), n)]
    data = dictionary.encode(values)
    assert data == model(values)
    assert decode_all(data).tolist() == values
    out = np.empty(n, object)
    for p in PATHS:
        assert dictionary.decode_into(data, out, path=p) == len(data)
        assert out.tolist() == values


def test_strings_option():
    values = ["Zürich", "", "東京", "Zürich", "x"]
    data = dictionary.encode(values)
    for p in PATHS:
        got = dictionary.decode(data, T.STRING, path=p, strings=True)
        assert got.tolist() == values
        assert all(type(v) is str for v in got)
    out = np.empty(5, object)
    assert dictionary.decode_into(data, out, strings=True) == len(data)
    assert out.tolist() == values
    # invalid UTF-8 is corruption (the reader's text policy), named by entry; bytes still read
    bad = dictionary.encode([b"ok", b"\xff\xfe"])
    for p in PATHS:
        with pytest.raises(CorruptDataError, match="entry 1 is not valid UTF-8"):
            dictionary.decode(bad, strings=True, path=p)
        with pytest.raises(CorruptDataError, match="entry 1 is not valid UTF-8"):
            dictionary.decode_into(bad, np.empty(2, object), path=p, strings=True)
    assert dictionary.decode(bad).tolist() == [b"ok", b"\xff\xfe"]


def test_large_and_unicode_entries():
    values = ["", "Zürich", "東京", "\U0001f600", "x" * 100_000, "Zürich"]
    data = dictionary.encode(values)
    assert decode_all(data).tolist() == [v.encode() for v in values]


def test_streaming_api():
    data = dictionary.encode(["a", "b", "a"])
    dec = dictionary.DictionaryDecoder(data)
    assert dec.entries.tolist() == [b"a", b"b"]
    got = []
    while dec.has_next():
        got.append(dec.next())
    assert got == [b"a", b"b", b"a"]
    enc = dictionary.DictionaryEncoder(T.STRING)
    for v in ("a", "b", "a"):
        enc.encode(v)
    assert enc.flush() == data


def test_argument_errors():
    data = dictionary.encode(["a"])
    with pytest.raises(UnsupportedError):
        dictionary.decode(data, T.INT32)
    with pytest.raises(UnsupportedError):
        dictionary.encode([1], T.INT64)
    with pytest.raises(TypeError):
        dictionary.encode([None])
    with pytest.raises(TypeError):
        dictionary.encode("abc")
    with pytest.raises(SimdUnavailableError):
        dictionary.decode(data, path="simd")
    with pytest.raises(TypeError):
        dictionary.decode_into(data, np.empty(1, np.int32))
    assert dictionary.HAS_SIMD is False


def _all_paths_raise(data, count=None):
    for p in PATHS:
        with pytest.raises(CorruptDataError):
            dictionary.decode(data, count=count, path=p)


def test_hostile():
    good = dictionary.encode(["alpha", "beta", "alpha", "gamma"])
    for cut in range(1, len(good)):
        _all_paths_raise(good[:cut], count=4)
    _all_paths_raise(good, count=5)
    _all_paths_raise(good, count=10**13)  # refused before allocating
    _all_paths_raise(svarint(-1) + bitpacked_block([0], 1))  # negative entry count
    _all_paths_raise(svarint(1000) + varstr(b"a"))  # more entries than bytes
    _all_paths_raise(svarint(1) + b"\x01" + bitpacked_block([0], 1))  # null entry
    _all_paths_raise(svarint(2) + varstr(b"a") + varstr(b"b") + bitpacked_block([0, 2], 2))
    _all_paths_raise(svarint(0) + bitpacked_block([0], 1))  # index into an empty dictionary
    with pytest.raises(CorruptDataError, match="index 3 outside the 2-entry"):
        dictionary.decode(svarint(2) + varstr(b"a") + varstr(b"b") + bitpacked_block([1, 3], 2))


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64), st.one_of(st.none(), st.integers(0, 50)))
def test_random_bytes_never_crash(data, count):
    check_paths_agree(dictionary.decode, data, T.TEXT, count, PATHS, binary=(T.TEXT,))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["", "a", "bb", "é", "東", "z" * 300]), max_size=600))
def test_round_trip_property(values):
    data = dictionary.encode(values)
    assert data == model([v.encode() for v in values])
    assert decode_all(data).tolist() == [v.encode() for v in values]


VALID_PAGES = [
    (dictionary.encode(["a", "bb", "", "é", "a", "bb"] * 30), T.TEXT),
    (dictionary.encode(["x"] * 20), T.STRING),
    (dictionary.encode([f"w{i}" for i in range(300)]), T.TEXT),
]
MOD = dictionary
BINARY = (T.TEXT, T.STRING)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_mutated_pages_never_crash(data):
    """Valid pages with flipped bytes, cuts and splices: every path raises CorruptDataError or
    returns the same values as the others."""
    check_mutated_page(data, VALID_PAGES, MOD, PATHS, BINARY)
