"""A decode ``count`` beyond the largest array (2**63 and more) is a ValueError naming the count,
in every codec (it was an OverflowError from the C conversion, naming nothing); the largest count
that converts is checked against the bytes present before anything is allocated."""

import numpy as np
import pytest

from tsfile.codecs import alp, dictionary, gorilla, plain, rle, ts2diff, zigzag
from tsfile.errors import CorruptDataError
from tsfile.types import TSDataType

VALUES = np.arange(10, dtype=np.int64)
CASES = {
    "alp": (alp, alp.encode(VALUES.astype(np.float64)), np.float64),
    "dictionary": (dictionary, dictionary.encode(["a", "b"] * 5), TSDataType.TEXT),
    "gorilla": (gorilla, gorilla.encode(VALUES), np.int64),
    "plain": (plain, plain.encode(VALUES), np.int64),
    "rle": (rle, rle.encode(VALUES), np.int64),
    "ts2diff": (ts2diff, ts2diff.encode(VALUES), np.int64),
    "zigzag": (zigzag, zigzag.encode(VALUES), np.int64),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("count", [2**63, 2**64, 10**30])
def test_count_beyond_any_array_is_a_value_error(name, count):
    mod, data, dtype = CASES[name]
    with pytest.raises(ValueError, match=f"count {count} is more values than an array can hold"):
        mod.decode(data, dtype, count=count)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_largest_count_is_checked_against_the_data(name):
    mod, data, dtype = CASES[name]
    with pytest.raises(CorruptDataError):
        mod.decode(data, dtype, count=2**63 - 1)
