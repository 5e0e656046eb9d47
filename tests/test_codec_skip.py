"""count and skip of the codec contract (issue 8 item 3), for every row of the registry.

skip(k) advances over the first k values without materialising them: TS_2DIFF by block headers,
RLE by run headers, ALP by block counts, PLAIN by offset (INT32 by its svarints, text by its
length prefixes), ZIGZAG by block headers, DICTIONARY by its index stream, the serial bit streams
(GORILLA, CHIMP, SPRINTZ, RLBE, CAMEL) walked on their per-value state without storing. Every
row is checked against decode-then-slice: skip(k) succeeds exactly when decoding k values does,
for every k in a range around the codec's block and run boundaries, on whole and on cut pages;
and a k beyond the page is CorruptDataError without allocating for it.

count: exact where the page tells it; None ("cannot tell without decoding") is documented per
codec in NO_COUNT below.
"""

from __future__ import annotations

import numpy as np
import pytest

from tsfile.codecs import _registry
from tsfile.errors import CorruptDataError
from tsfile.types import TSDataType as T
from tsfile.types import TSEncoding as E

ROWS = _registry.rows()

# Rows whose page stores no value count and whose end cannot be told from the bits alone: the end
# marker of GORILLA and CHIMP is a value pattern a page may also hold as a value (readers decode
# by the page header's count, as the official C++ reader does). CAMEL stores no count either (its
# module decodes a count-less page to the end of the data, COUNT_BOUND); an exact count from its
# block headers has not been worked out.
NO_COUNT = {E.GORILLA, E.CHIMP, E.CAMEL}

# Values per block or run where the codec has them (around which k is varied).
BOUNDARIES = {
    E.TS_2DIFF: 129,  # a block of 128 deltas: 129 values
    E.RLE: 504,  # 63 groups of 8 per bit-packed run
    E.DICTIONARY: 504,
    E.ALP: 1024,
}
N_VALUES = 2300


def _dtype(row):
    return T.TEXT if row.kind == "binary" else row.dtype


def _values(row, n=N_VALUES):
    rng = np.random.default_rng(row.encoding * 8 + len(row.kind))
    if row.kind == "bool":
        return rng.integers(0, 2, n).astype(bool)
    if row.kind in ("int32", "int64"):
        return np.cumsum(rng.integers(-40, 40, n)).astype(row.dtype)
    if row.kind in ("float32", "float64"):
        return (np.round(np.cumsum(rng.normal(size=n)) * 100) / 100).astype(row.dtype)
    return [f"v{int(x)}".encode() for x in rng.integers(0, 20, n)]


def _page(row, n=N_VALUES):
    """A page of n values in two encoder calls (two blocks where the codec writes one a call)."""
    values = _values(row, n)
    first, second = values[: n // 3], values[n // 3 :]
    encode = lambda v: _registry.encode(row.encoding, v, _dtype(row))  # noqa: E731
    if row.encoding in (E.RLE, E.ZIGZAG):  # several blocks follow one another in a page
        return encode(first) + encode(second)
    return encode(values)


def _ks(row, n):
    step = BOUNDARIES.get(row.encoding, 64)
    ks = set(range(0, 10)) | {n - 2, n - 1, n}
    for b in range(step, n, step):
        ks |= {b - 2, b - 1, b, b + 1, b + 2}
    ks |= {n // 3 - 1, n // 3, n // 3 + 1}  # the second block of RLE / ZIGZAG
    return sorted(k for k in ks if 0 <= k <= n)


def _decodes(row, page, k):
    """Whether decoding the first k values succeeds (decode-then-slice)."""
    try:
        got = _registry.decode(row.encoding, page, _dtype(row), count=k)
    except CorruptDataError:
        return False
    return len(got) == k


def _skips(row, page, k):
    try:
        assert _registry.skip(row.encoding, page, _dtype(row), k) == k
    except CorruptDataError:
        return False
    return True


@pytest.mark.parametrize("row", ROWS, ids=repr)
def test_every_row_has_its_own_skip(row):
    # none falls back to the registry's decode into scratch
    assert row.has_skip


@pytest.mark.parametrize("row", ROWS, ids=repr)
def test_count_where_the_page_tells_it(row):
    page = _page(row)
    if row.encoding in NO_COUNT:
        assert _registry.count(row.encoding, page, _dtype(row)) is None
    else:
        assert row.has_count
        assert _registry.count(row.encoding, page, _dtype(row)) == N_VALUES


@pytest.mark.parametrize("row", ROWS, ids=repr)
def test_skip_agrees_with_decode_then_slice_around_boundaries(row):
    page = _page(row)
    for k in _ks(row, N_VALUES):
        assert _skips(row, page, k), (row, k)
    for k in (N_VALUES + 1, N_VALUES + 9):
        # beyond the values: as decode (GORILLA and CHIMP decode by count, as the official reader
        # does, so the end marker itself can be read as one more value)
        assert _skips(row, page, k) == _decodes(row, page, k), (row, k)
    for k in (2**40, 2**62):  # no allocation for k: the walk ends at the page's end
        with pytest.raises(CorruptDataError):
            _registry.skip(row.encoding, page, _dtype(row), k)


@pytest.mark.parametrize("row", ROWS, ids=repr)
def test_skip_on_cut_pages_fails_exactly_where_decode_does(row):
    n = 600
    page = _page(row, n)
    cuts = sorted({1, 2, 5, len(page) // 7, len(page) // 3, len(page) // 2, len(page) - 1})
    ks = [1, 8, 9, 100, 129, 130, 300, 504, 505, n]
    for cut in cuts:
        part = page[:cut]
        for k in ks:
            assert _skips(row, part, k) == _decodes(row, part, k), (row, cut, k)


def test_rle_count_is_bounded_as_decode_is():
    # one RLE run of 2^30 values in 7 bytes: count() says CorruptDataError, as decode(count=None)
    # does, instead of a count the engine would allocate for
    run = bytes([0x80, 0x80, 0x80, 0x80, 0x08]) + b"\x05"  # uvarint(2^30 << 1), value 5
    page = bytes([len(run) + 1, 3]) + run
    for dtype in (np.int32, np.int64):
        with pytest.raises(CorruptDataError):
            _registry.count(E.RLE, page, dtype)
        assert _registry.skip(E.RLE, page, dtype, 2**30) == 2**30  # the headers hold them


def test_plain_text_count_and_skip_by_length_prefixes():
    values = [b"", b"a", b"\xc3\xa9t\xc3\xa9", b"x" * 300]
    page = _registry.encode(E.PLAIN, values, T.TEXT)
    assert _registry.count(E.PLAIN, page, T.TEXT) == 4
    assert _registry.skip(E.PLAIN, page, T.TEXT, 4) == 4
    with pytest.raises(CorruptDataError):
        _registry.skip(E.PLAIN, page[:-1], T.TEXT, 4)  # the last value's bytes are cut
    assert _registry.skip(E.PLAIN, page[:-1], T.TEXT, 3) == 3
