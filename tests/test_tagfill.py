"""tsfile._read.tagfill: object columns whose pointers are written without the GIL (the tag
columns of whole-table reads). The reference counts must come out exact: a slot counted but not
written, or written twice, would free a live string or leak it."""

import sys

import numpy as np
import pytest

from tsfile._read import tagfill


def _fresh(text):
    return "".join([text, "!"])  # a str of its own, not an interned constant


def test_empty_column_reads_as_none():
    col = tagfill.empty_column(5)
    assert col.dtype == object and len(col) == 5
    assert col.tolist() == [None] * 5


def test_fill_counts_one_reference_per_row():
    v = _fresh("d01")
    before = sys.getrefcount(v)
    col = tagfill.empty_column(10)
    tagfill.fill(col, 2, 7, v)
    tagfill.fill(col, 0, 2, None)
    assert sys.getrefcount(v) - before == 5
    assert col[2:7].tolist() == [v] * 5 and all(x is v for x in col[2:7])
    assert col[:2].tolist() == [None, None]
    del col
    assert sys.getrefcount(v) == before


def test_refilling_a_row_is_refused_and_counts_stay_exact():
    v, w = _fresh("a"), _fresh("b")
    col = tagfill.empty_column(6)
    tagfill.fill(col, 0, 3, v)
    before_v, before_w = sys.getrefcount(v), sys.getrefcount(w)
    with pytest.raises(ValueError, match="2 rows of \\[1, 5\\) were filled already"):
        tagfill.fill(col, 1, 5, w)
    # rows 3 and 4 were empty and now hold w; rows 1 and 2 keep v
    assert col.tolist() == [v, v, v, w, w, None]
    assert sys.getrefcount(v) == before_v and sys.getrefcount(w) == before_w + 2


@pytest.mark.parametrize(
    ("column", "lo", "hi", "error"),
    [
        (np.empty(4, dtype=object), 0, 5, IndexError),
        (np.empty(4, dtype=object), 3, 2, IndexError),
        (np.empty(4, dtype=object), -1, 2, IndexError),
        (np.empty(4, dtype=np.int64), 0, 1, TypeError),
        (np.empty((2, 2), dtype=object), 0, 1, TypeError),
        (np.empty(8, dtype=object)[::2], 0, 1, TypeError),
    ],
)
def test_fill_checks_its_arguments(column, lo, hi, error):
    with pytest.raises(error):
        tagfill.fill(column, lo, hi, "x")


def test_negative_length_is_refused():
    with pytest.raises(ValueError):
        tagfill.empty_column(-1)
