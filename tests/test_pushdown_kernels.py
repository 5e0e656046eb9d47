"""The SIMD predicate kernels (include/filter_*.h through tsfile._read.pushdown): every path and
every ISA row against numpy on random and edge data."""

import ctypes
import ctypes.util
import mmap
from contextlib import contextmanager

import numpy as np
import pytest

import tsfile
from tsfile._read import pushdown as pd
from tsfile.errors import TypeMismatchError

DTYPES = [np.int32, np.int64, np.float32, np.float64]
# lengths around every vector width (4, 8, 16 lanes; 32-value unrolled loops)
LENGTHS = [0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 129, 1000]
OPS = ["==", "!=", "<", "<=", ">", ">="]


def isas():
    return [i for i in tsfile._simd.available_isas() if i not in ("off", "none", "scalar")]


def paths_at_every_isa():
    """(path, isa) pairs: per_value and batch once, simd at every ISA level the CPU runs."""
    return [("per_value", None), ("batch", None)] + [("simd", i) for i in isas()]


@pytest.fixture(params=paths_at_every_isa(), ids=lambda p: f"{p[0]}-{p[1]}")
def path(request):
    name, isa = request.param
    before = tsfile._simd.active_isa()
    if isa is not None:
        tsfile.set_simd(isa)
    yield name
    tsfile.set_simd(before if before != "none" else "off")


def exact_mask(values, op, a, b=None):
    """numpy's mask of the comparison made exactly (the values as Python numbers)."""
    x = values.tolist()
    fns = {
        "==": lambda v: v == a,
        "=": lambda v: v == a,
        "!=": lambda v: v != a,
        "<": lambda v: v < a,
        "<=": lambda v: v <= a,
        ">": lambda v: v > a,
        ">=": lambda v: v >= a,
        "between": lambda v: a <= v <= b,
        "not between": lambda v: not (a <= v <= b),
    }
    return np.array([fns[op](v) for v in x], dtype=bool)


def check_all_forms(values, op, a, b=None, path="auto"):
    want = exact_mask(values, op, a, b)
    idx = pd.select(values, op, a, b, path=path)
    assert idx.dtype == np.int32
    np.testing.assert_array_equal(idx, np.flatnonzero(want), err_msg=f"{values.dtype} {op} {a}")
    np.testing.assert_array_equal(pd.select(values, op, a, b, form="mask", path=path), want)
    np.testing.assert_array_equal(
        pd.select(values, op, a, b, form="bitmap", path=path),
        np.packbits(want, bitorder="little"),
    )


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_random_values_every_length_and_operator(dtype, path):
    rng = np.random.default_rng(7)
    for n in LENGTHS:
        values = rng.integers(-20, 20, n).astype(dtype)
        if np.dtype(dtype).kind == "f" and n:
            values[rng.random(n) < 0.2] = np.nan
        for op in OPS:
            for a in (-21, -3, 0, 5, 19, 20, 2.5):
                check_all_forms(values, op, a, path=path)
        check_all_forms(values, "between", -5, 7, path=path)
        check_all_forms(values, "not between", -5, 7, path=path)


def test_int64_extremes(path):
    lo, hi = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    values = np.array([lo, lo + 1, -1, 0, 1, hi - 1, hi] * 5, np.int64)
    for op in OPS:
        for a in (lo, lo + 1, 0, hi - 1, hi, 2**63, -(2**63) - 1, 2.0**63, -(2.0**70)):
            check_all_forms(values, op, a, path=path)
    check_all_forms(values, "between", lo, hi, path=path)
    check_all_forms(values, "between", hi, lo, path=path)  # an empty range


def test_int32_operands_beyond_the_type(path):
    values = np.array([-(2**31), -1, 0, 2**31 - 1] * 9, np.int32)
    for op in OPS:
        for a in (2**31, -(2**31) - 1, 2**40, 2**31 - 1, -(2**31)):
            check_all_forms(values, op, a, path=path)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
def test_nan_inf_and_signed_zero(dtype, path):
    values = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf, 1.5, -1.5, np.nan] * 5, dtype)
    for op in OPS:
        for a in (0.0, -0.0, np.inf, -np.inf, 1.5, 0.1):
            check_all_forms(values, op, a, path=path)
    # NaN matches nothing but the negations, as in numpy
    assert pd.select(values, "==", np.nan, path=path).size == 0
    assert pd.select(values, "<", np.inf, form="mask", path=path)[0] == np.False_
    assert pd.select(values, "!=", np.nan, path=path).size == values.size
    mask = pd.select(values, "not between", -1, 1, form="mask", path=path)
    np.testing.assert_array_equal(mask, ~((values >= -1) & (values <= 1)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
def test_float_operands_beyond_the_type(dtype, path):
    # ints beyond the double range, doubles beyond float32's, neighbours of the largest value
    big = float(np.finfo(dtype).max)
    values = np.array([-np.inf, -big, -1.0, 0.0, 1.0, big, np.inf, np.nan] * 3, dtype)
    for op in OPS:
        for a in (2**1100, -(2**1100), 1e300, -1e300, big, -big, np.nextafter(big, 0), 2**64):
            check_all_forms(values, op, a, path=path)


def test_float32_operand_not_representable(path):
    # 0.1 is between two float32 values: the comparison is the exact one, not float32(0.1)'s
    values = np.array([np.float32(0.1), np.nextafter(np.float32(0.1), np.float32(1))] * 8)
    for op in OPS:
        check_all_forms(values, op, 0.1, path=path)


def test_exclusive_and_inclusive_range_ends(path):
    values = np.arange(-10, 10, dtype=np.int64)
    for lo_inc in (True, False):
        for hi_inc in (True, False):
            got = pd.select_range(
                values, -3, 4, lo_inclusive=lo_inc, hi_inclusive=hi_inc, form="mask", path=path
            )
            want = ((values >= -3) if lo_inc else (values > -3)) & (
                (values <= 4) if hi_inc else (values < 4)
            )
            np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(pd.select_range(values, None, None, path=path), np.arange(20))


def _libc():
    return ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)


@contextmanager
def array_before_unmapped_page(values):
    """A copy of `values` whose last byte is the last byte before a PROT_NONE page."""
    page = mmap.PAGESIZE
    nbytes = values.nbytes
    span = max(page, -(-nbytes // page) * page)
    m = mmap.mmap(-1, span + page)
    anchor = ctypes.c_char.from_buffer(m)
    addr = ctypes.addressof(anchor)
    assert _libc().mprotect(ctypes.c_void_p(addr + span), page, 0) == 0  # PROT_NONE
    arr = np.frombuffer(m, values.dtype, count=values.size, offset=span - nbytes)
    arr[:] = values
    try:
        yield arr
    finally:
        _libc().mprotect(ctypes.c_void_p(addr + span), page, 3)  # PROT_READ | PROT_WRITE
        del arr, anchor


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_tails_end_at_an_unmapped_page(dtype, path):
    """No kernel reads past the last value: a read past it faults (the test process dies)."""
    rng = np.random.default_rng(3)
    for n in [1, 3, 5, 7, 9, 15, 17, 31, 33, 63, 65]:
        values = rng.integers(-9, 9, n).astype(dtype)
        with array_before_unmapped_page(values) as arr:
            for form in ("indices", "bitmap"):
                got = pd.select(arr, ">=", 0, form=form, path=path)
                want = values >= 0
                if form == "indices":
                    np.testing.assert_array_equal(got, np.flatnonzero(want))
                else:
                    np.testing.assert_array_equal(got, np.packbits(want, bitorder="little"))


def test_bad_input():
    with pytest.raises(TypeMismatchError, match="int8"):
        pd.select(np.zeros(3, np.int8), "==", 1)
    with pytest.raises(TypeMismatchError, match="not a number"):
        pd.select(np.zeros(3, np.int64), "==", "1")
    with pytest.raises(ValueError, match="unknown predicate operator"):
        pd.select(np.zeros(3, np.int64), "~", 1)
    with pytest.raises(TypeError, match="two operands"):
        pd.select(np.zeros(3, np.int64), "between", 1)
    with pytest.raises(ValueError, match="unknown selection form"):
        pd.select(np.zeros(3, np.int64), "==", 1, form="list")
    # non-native byte order and 2-D arrays are refused, not misread
    with pytest.raises(TypeMismatchError):
        pd.select(np.zeros(3, ">i8"), "==", 0)
    with pytest.raises(TypeError):
        pd.select(np.zeros((2, 2), np.int64), "==", 0)


def test_every_isa_row_is_reachable():
    rows = {"scalar"}
    for isa in isas():
        before = tsfile._simd.active_isa()
        tsfile.set_simd(isa)
        rows.add(pd.active_implementation())
        tsfile.set_simd(before if before != "none" else "off")
    assert rows == set(pd.implementations())
