"""The writer's integer page statistics kernels (include/stats_encode.h): every implementation row
this CPU runs gives the min, max and sum of a plain reference, on page lengths around the vector
widths and on the integer extremes (wrapping INT64 sums, INT32 sums beyond 32 bits)."""

from __future__ import annotations

import numpy as np
import pytest

import tsfile
from tsfile._write import _stats

# The rows this CPU runs, read from the module: a new ISA row is tested as soon as it exists.
IMPLEMENTATIONS = _stats.implementations()
LENGTHS = [1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 100, 1000]


@pytest.fixture(params=IMPLEMENTATIONS)
def impl(request):
    previous = tsfile.set_simd(request.param)
    try:
        assert _stats.active_implementation() == request.param
        yield request.param
    finally:
        tsfile.set_simd(previous)


def _one_page(values):
    times = np.arange(values.shape[0], dtype=np.int64)
    offsets = np.array([0, values.shape[0]], dtype=np.int64)
    _, chunk = _stats.numeric_chunk_stats(values, times, offsets, False)
    return chunk  # (count, start, end, min, max, first, last, sum)


def _extreme_pages(dtype, rng):
    info = np.iinfo(dtype)
    for n in LENGTHS:
        walk = np.cumsum(rng.integers(-1000, 1001, n)).astype(dtype)
        yield walk
        for at in {0, n // 2, n - 1}:  # the extreme in the first lane, a middle one, the tail
            for extreme in (info.min, info.max):
                v = walk.copy()
                v[at] = extreme
                yield v
        yield np.full(n, info.min, dtype)
        yield np.full(n, info.max, dtype)


def test_the_table_ends_with_scalar():
    assert IMPLEMENTATIONS[-1] == "scalar"


def test_int64_pages_min_max_sum(impl):
    rng = np.random.default_rng(64)
    for v in _extreme_pages(np.int64, rng):
        count, _, _, lo, hi, first, last, total = _one_page(v)
        assert (count, lo, hi, first, last) == (v.size, v.min(), v.max(), v[0], v[-1])
        exact = sum(int(x) for x in v)
        if max(abs(int(v.min())), abs(int(v.max()))) * v.size < 2**53:
            assert total == float(exact)  # the exact sum (any order)
        else:  # sequential double additions, as the official writer
            expect = 0.0
            for x in v:
                expect += float(x)
            assert total == expect


def test_int32_pages_min_max_sum(impl):
    rng = np.random.default_rng(32)
    for v in _extreme_pages(np.int32, rng):
        count, _, _, lo, hi, first, last, total = _one_page(v)
        assert (count, lo, hi, first, last) == (v.size, v.min(), v.max(), v[0], v[-1])
        assert total == sum(int(x) for x in v)  # an exact int64 sum, never wrapped at 32 bits


def test_every_row_gives_the_same_page_statistics_bytes():
    """Page statistics as serialized (what lands in the file) agree between the rows."""
    rng = np.random.default_rng(3)
    values = np.cumsum(rng.integers(-(2**40), 2**40, 5000)).astype(np.int64)
    times = np.arange(values.size, dtype=np.int64)
    offsets = np.array([0, 1, 17, 1000, 1033, 5000], dtype=np.int64)
    previous = tsfile.set_simd(IMPLEMENTATIONS[0])
    try:
        results = []
        for name in IMPLEMENTATIONS:
            tsfile.set_simd(name)
            results.append(_stats.numeric_chunk_stats(values, times, offsets, True))
    finally:
        tsfile.set_simd(previous)
    assert all(r == results[-1] for r in results)
