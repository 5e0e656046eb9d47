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


# -- freeing: the column's slots belong to its base, which gives their references back a run of
# equal pointers at a time (numpy would decref slot by slot, with the GIL held) --


def test_freeing_gives_back_every_reference_once():
    v, w = _fresh("v"), _fresh("w")
    bv, bw = sys.getrefcount(v), sys.getrefcount(w)
    col = tagfill.empty_column(12)
    assert not col.flags.owndata  # numpy leaves the slots to the base
    tagfill.fill(col, 0, 4, v)
    tagfill.fill(col, 4, 5, w)
    tagfill.fill(col, 5, 9, v)  # a second run of v
    tagfill.fill(col, 9, 10, None)
    # rows 10 and 11 are never filled (NULL): nothing to give back for them
    assert sys.getrefcount(v) == bv + 8 and sys.getrefcount(w) == bw + 1
    del col
    assert sys.getrefcount(v) == bv and sys.getrefcount(w) == bw


def test_slots_the_user_replaced_are_given_back_as_what_they_hold():
    v, w, x = _fresh("v"), _fresh("w"), _fresh("x")
    bv, bw, bx = sys.getrefcount(v), sys.getrefcount(w), sys.getrefcount(x)
    col = tagfill.empty_column(8)
    tagfill.fill(col, 0, 8, v)
    col[2] = w  # numpy: w increfed, v decrefed
    col[5:7] = x
    col[7] = None
    assert sys.getrefcount(v) == bv + 4
    del col
    assert (sys.getrefcount(v), sys.getrefcount(w), sys.getrefcount(x)) == (bv, bw, bx)


def test_a_view_keeps_the_slots_and_their_references():
    v = _fresh("v")
    before = sys.getrefcount(v)
    col = tagfill.empty_column(6)
    tagfill.fill(col, 0, 6, v)
    tail = col[3:]
    del col
    assert sys.getrefcount(v) == before + 6
    assert tail.tolist() == [v] * 3
    copied = tail.copy()  # a copy holds references of its own
    del tail
    assert sys.getrefcount(v) == before + 3
    del copied
    assert sys.getrefcount(v) == before


def test_the_last_reference_of_a_run_frees_its_object():
    import weakref

    class Tag(str):
        pass

    v = Tag("only in the column")
    gone = weakref.ref(v)
    col = tagfill.empty_column(1000)
    tagfill.fill(col, 0, 1000, v)
    del v
    assert gone() is not None
    del col
    assert gone() is None


def test_an_empty_column_frees_cleanly():
    col = tagfill.empty_column(0)
    assert col.shape == (0,) and col.dtype == object
    del col


def test_an_uncleared_column_takes_fill_only_once_every_row_is_cleared():
    """empty_column(cleared=False): the read's time jobs clear disjoint ranges on several
    threads; fill is refused until every row is cleared, then counts as usual."""
    import threading

    v = _fresh("dev")
    before = sys.getrefcount(v)
    col = tagfill.empty_column(1000, cleared=False)
    tagfill.clear(col, 0, 300)
    with pytest.raises(ValueError, match="not all cleared"):
        tagfill.fill(col, 0, 300, v)
    assert sys.getrefcount(v) == before
    with pytest.raises(ValueError, match="overlapping"):
        tagfill.clear(col, 0, 800)
    with pytest.raises(ValueError, match="empty_column"):
        tagfill.clear(col[300:], 0, 10)  # a view: not the column's own slots
    ranges = [(300, 500), (500, 750), (750, 1000)]
    threads = [threading.Thread(target=tagfill.clear, args=(col, a, b)) for a, b in ranges]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with pytest.raises(ValueError, match="cleared already"):
        tagfill.clear(col, 0, 1)
    tagfill.clear(col, 7, 7)  # an empty range (a time job of groups without rows)
    empty = tagfill.empty_column(0, cleared=False)
    tagfill.clear(empty, 0, 0)
    tagfill.fill(empty, 0, 0, v)
    tagfill.fill(col, 0, 1000, v)
    assert sys.getrefcount(v) - before == 1000
    del col
    assert sys.getrefcount(v) == before


def test_an_uncleared_column_dropped_before_it_was_cleared_reads_no_slot():
    """A read that fails before its time jobs cleared the tag slots drops the column: its
    memory (here a block that held other data: every slot an invalid pointer) is not read as
    references."""
    from tsfile._mem import pool

    n = 600_000  # 4.8 MB: a pooled block
    with pool.pooled():
        dirty = np.full(n, 0x7FFF_DEAD_BEEF, np.int64)
        del dirty  # kept by the pool, not cleared
        col = tagfill.empty_column(n, cleared=False)
        tagfill.clear(col, 0, n // 2)
    del col  # half its slots garbage: dealloc must not give them back


def test_none_is_refused_before_it_is_read_as_an_array():
    """None passes a typed ndarray argument unless refused: its fields would be read as an
    array's (data pointer, base, flags) from the memory after it."""
    with pytest.raises(TypeError):
        tagfill.clear(None, 0, 0)
    with pytest.raises(TypeError):
        tagfill.fill(None, 0, 0, "v")


def test_fill_runs_fills_every_range_with_exact_counts():
    """fill_runs: several ranges of one column, each with its value, in one call: the same
    slots and reference counts as one fill() per range."""
    v, w = _fresh("d1"), _fresh("d2")
    before_v, before_w = sys.getrefcount(v), sys.getrefcount(w)
    col = tagfill.empty_column(12)
    tagfill.fill_runs(col, [0, 3, 8, 10], [3, 8, 8, 12], [v, w, v, None])
    assert col.tolist() == [v] * 3 + [w] * 5 + [None] * 4
    assert sys.getrefcount(v) - before_v == 3 and sys.getrefcount(w) - before_w == 5
    del col
    assert sys.getrefcount(v) == before_v and sys.getrefcount(w) == before_w


def test_fill_runs_refuses_filled_rows_after_writing_the_others():
    """A range over rows filled before: the other ranges are written, the filled rows keep
    their value, the counts stay exact, and ValueError names the first such range."""
    v, w, x = _fresh("a"), _fresh("b"), _fresh("c")
    col = tagfill.empty_column(8)
    tagfill.fill(col, 2, 4, v)
    before = [sys.getrefcount(o) for o in (v, w, x)]
    with pytest.raises(ValueError, match="1 rows of \\[3, 5\\) were filled already"):
        tagfill.fill_runs(col, [0, 3, 5], [2, 5, 8], [w, x, w])
    assert col.tolist() == [w, w, v, v, x, w, w, w]
    after = [sys.getrefcount(o) for o in (v, w, x)]
    assert [a - b for a, b in zip(after, before, strict=True)] == [0, 5, 1]


def test_fill_runs_checks_every_range_before_writing():
    v = _fresh("a")
    before = sys.getrefcount(v)
    col = tagfill.empty_column(4)
    with pytest.raises(IndexError):
        tagfill.fill_runs(col, [0, 2], [2, 5], [v, v])
    with pytest.raises(ValueError, match="a start, a stop and a value per range"):
        tagfill.fill_runs(col, [0, 2], [2], [v, v])
    assert col.tolist() == [None] * 4 and sys.getrefcount(v) == before
    uncleared = tagfill.empty_column(4, cleared=False)
    with pytest.raises(ValueError, match="not all cleared"):
        tagfill.fill_runs(uncleared, [0], [1], [v])
    assert sys.getrefcount(v) == before
