"""The AVX2 TS_2DIFF bit-packing writer (include/ts2diff_encode_avx2.h) against the scalar writer.

The avx2 row packs widths 1..16 in 32-delta steps (four 8-delta groups, overlapping 16-byte
stores, an exact store for a block's last step) and leaves the rest of a block and the wider
widths to the scalar packer. Each case encodes the same values with the avx2 row and with the
scalar row, each forced in turn, and wants the same bytes: every width of both types, every length
1..200 (so a block ends on every position of a step and a group), multi-block pages at several
block sizes, min_deltas at the ends of the type's range (residuals that wrap), and a page that
starts with a carried min_delta. (The C check, tests/c/ts2diff_check.c, also writes every block
into its own exactly sized buffer under AddressSanitizer: nothing past a block's end.)
"""

import numpy as np
import pytest

import tsfile
from tsfile.codecs import ts2diff

pytestmark = pytest.mark.skipif(
    "avx2" not in ts2diff.implementations(), reason="this CPU cannot run the avx2 row"
)

BLOCK_SIZES = [128, 31, 32, 33, 64, 96, 127, 129, 256]


def bits_of(dtype):
    return 64 if dtype == np.int64 else 32


def values(dtype, width, length, min_delta, rng):
    """`length` values whose deltas are min_delta + residuals of `width` bits (the residuals 0 and
    2^width - 1 every 7th delta, so blocks of 8 or more deltas have exactly this width)."""
    bits = bits_of(dtype)
    top = 2**width - 1
    n = max(length - 1, 0)
    if width == 64:
        r = rng.integers(0, 2**63, n, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    else:
        r = rng.integers(0, top + 1, n, dtype=np.uint64)
    r[::7], r[3::7] = 0, np.uint64(top)
    deltas = (r + np.uint64(min_delta % 2**64)) & np.uint64(2**bits - 1)
    steps = np.concatenate([[np.uint64(0x5DEECE66D)], deltas])[:length]
    vals = np.cumsum(steps, dtype=np.uint64) & np.uint64(2**bits - 1)
    return vals.astype(np.uint32 if bits == 32 else np.uint64).view(dtype)


def encode_by(row, vals, **kw):
    previous = tsfile.set_simd(row)
    try:
        assert ts2diff.active_implementation() == row
        return ts2diff.encode(vals, path="batch" if row == "scalar" else "simd", **kw)
    finally:
        tsfile.set_simd(previous)


def assert_same_bytes(vals, **kw):
    want = encode_by("scalar", vals, **kw)
    got = encode_by("avx2", vals, **kw)
    assert got == want, (len(vals), kw)
    return want


def widths(dtype):
    return range(1, bits_of(dtype) + 1)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_every_width_and_every_length_up_to_200(dtype):
    rng = np.random.default_rng(bits_of(dtype))
    for width in widths(dtype):
        vals = values(dtype, width, 200, -(2 ** (width - 1)) if width < 64 else 0, rng)
        data = None
        for length in range(1, 201):
            data = assert_same_bytes(vals[:length])
        # the block of 129 values has this width (the test would not test it otherwise)
        assert int.from_bytes(data[4:8], "big") == width


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_multi_block_pages_at_several_block_sizes(dtype):
    rng = np.random.default_rng(11)
    for width in widths(dtype):
        vals = values(dtype, width, 1000, 3, rng)
        for block_size in BLOCK_SIZES:
            page = 3 * (block_size + 1)  # three whole blocks
            for length in (1000, page, page + 1, 2 * block_size + 35):
                assert_same_bytes(vals[:length], block_size=block_size)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_min_deltas_at_the_ends_of_the_type(dtype):
    # residuals = deltas - min_delta wrap in the type: the vector step must subtract in the
    # type's width (int32 in 32-bit lanes) to get the scalar writer's residuals
    info = np.iinfo(dtype)
    rng = np.random.default_rng(3)
    for width in widths(dtype):
        for min_delta in (int(info.min), int(info.min) + 1, -1, 0, int(info.max) - 2**width + 1):
            vals = values(dtype, width, 300, min_delta, rng)
            data = assert_same_bytes(vals)
            mn = int.from_bytes(data[8 : 8 + bits_of(dtype) // 8], "big", signed=True)
            assert mn == min_delta or width == bits_of(dtype)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_extreme_values_and_wrapping_deltas(dtype):
    info = np.iinfo(dtype)
    cases = [
        [info.min, info.max] * 150,
        [info.max, info.min, 0, -1, 1] * 60,
        [info.max] * 300,
        list(range(info.max - 150, info.max)) + list(range(info.min, info.min + 150)),
        np.arange(300) * 3 + info.max - 400,  # deltas of 3 that wrap past the maximum
    ]
    for case in cases:
        assert_same_bytes(np.array(case, dtype=np.int64).astype(dtype))


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_min_delta_carried_across_pages(dtype):
    # a page whose first block has no deltas carries the previous page's min_delta; the pages
    # after it are written with it: every page the same bytes on both rows
    rng = np.random.default_rng(5)
    carried = 0
    for n in (259, 1, 130, 1, 129, 257, 1, 64):
        page = values(dtype, int(rng.integers(1, 17)), n, int(rng.integers(-50, 50)), rng)
        assert_same_bytes(page, prev_min_delta=carried)
        carried = ts2diff.last_min_delta(page, prev_min_delta=carried)


def test_the_avx2_row_packs_the_bench_shape():
    # the E5-2 fields: random-walk steps in [-100, 100] (width 8), 200,000 values a page run
    rng = np.random.default_rng(0)
    vals = np.cumsum(rng.integers(-100, 101, 200_000)).astype(np.int64)
    data = assert_same_bytes(vals)
    np.testing.assert_array_equal(ts2diff.decode(data, np.int64), vals)
