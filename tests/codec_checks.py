"""Checks the codec test modules share: hostile-input properties (random or mutated bytes decode
the same on every path or raise CorruptDataError) and the bit-exact array comparison."""

import os

import numpy as np
from hypothesis import strategies as st

from tsfile.errors import CorruptDataError

# TSFILE_TEST_QUICK=1: test_isa_emulation.py runs the codec suites under qemu with a CPU model
# without AVX2, where every Python step is emulated (~30x slower) and the property tests were most
# of its time. They draw fewer examples there: the same properties over the same paths are drawn
# in full by the native run; under emulation what is new is the CPU's dispatch to the scalar
# rows, which every example goes through.
QUICK = os.environ.get("TSFILE_TEST_QUICK", "") == "1"


def examples(n: int) -> int:
    """max_examples for a property test: n, or an eighth of n (at least 20) under emulation."""
    return max(20, n // 8) if QUICK else n


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Same dtype, shape and bytes (NaN payloads and -0.0 included)."""
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def other_path(path: str) -> str:
    return "batch" if path == "per_value" else "per_value"


def check_random_bytes(decode, data, dtype, path):
    """``decode(data, dtype, path=...)`` and the other non-SIMD path both raise CorruptDataError,
    or both return the same values, bit for bit."""
    results = []
    for p in (path, other_path(path)):
        try:
            results.append(decode(data, dtype, path=p))
        except CorruptDataError:
            results.append(None)
    a, b = results
    if a is None or b is None:
        assert a is None and b is None, f"only one of {path}/{other_path(path)} raised"
    else:
        assert same_bits(a, b)


def check_mutations_agree(decode, page, dtype, paths, n=150):
    """``n`` mutants of ``page`` (serial_ref.mutations, seed 1): every path of ``paths`` raises
    CorruptDataError or returns the same bytes."""
    from serial_ref import mutations

    for b in mutations(page, n, seed=1):
        res = []
        for p in paths:
            try:
                res.append(decode(b, dtype, path=p).tobytes())
            except CorruptDataError:
                res.append("error")
        assert all(r == res[0] for r in res), [r == "error" for r in res]


def mutate(data, page: bytes) -> bytes:
    """``page`` with 1 to 4 hypothesis-drawn flips, cuts, splices and insertions."""
    buf = bytearray(page)
    for _ in range(data.draw(st.integers(1, 4))):
        if not buf:
            break
        op = data.draw(st.sampled_from(["flip", "cut", "splice", "insert"]))
        i = data.draw(st.integers(0, len(buf) - 1))
        if op == "flip":
            buf[i] ^= data.draw(st.integers(1, 255))
        elif op == "cut":
            del buf[i:]
        elif op == "splice":
            j = data.draw(st.integers(0, len(buf) - 1))
            buf[i:i] = buf[j : j + data.draw(st.integers(1, 16))]
        else:
            buf[i:i] = data.draw(st.binary(min_size=1, max_size=6))
    return bytes(buf)


def check_mutated_page(data, valid_pages, mod, paths, binary=(), max_count=400):
    """A drawn page of ``valid_pages`` ((bytes, dtype) pairs), mutated, decoded with a drawn count
    (None or 0..max_count) on every path of ``paths``: see check_paths_agree."""
    page, dtype = data.draw(st.sampled_from(valid_pages))
    buf = mutate(data, page)
    count = data.draw(st.one_of(st.none(), st.integers(0, max_count)))
    check_paths_agree(mod.decode, buf, dtype, count, paths, binary)


def check_paths_agree(decode, data, dtype, count, paths, binary=()):
    """``decode(data, dtype, count=count, path=p)`` for every p of ``paths``: each raises
    CorruptDataError or returns the same values as the others (bytes compared; object arrays of
    ``binary`` dtypes as lists)."""
    results = []
    for p in paths:
        try:
            r = decode(data, dtype, count=count, path=p)
        except CorruptDataError:
            results.append(None)
            continue
        results.append(r.tolist() if dtype in binary else r.tobytes())
    assert all(r == results[0] for r in results), [r is None for r in results]
