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


def test_an_uncleared_column_is_written_range_by_range_then_settled():
    """empty_column(cleared=False): a read's tag jobs write disjoint ranges on several threads
    (fill_runs writes without reading the slots; clear writes NULL), then settle() checks the
    ranges tile the rows kept and returns the column of those rows, counts exact."""
    import threading

    v, w = _fresh("dev"), _fresh("other")
    before = sys.getrefcount(v), sys.getrefcount(w)
    col = tagfill.empty_column(1000, cleared=False)
    jobs = [
        (tagfill.fill_runs, (col, [0, 100], [100, 300], [v, w])),
        (tagfill.fill, (col, 300, 500, v)),
        (tagfill.clear, (col, 500, 600)),
        (tagfill.fill_runs, (col, [600], [900], [None])),
    ]
    threads = [threading.Thread(target=fn, args=args) for fn, args in jobs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    del jobs, threads  # (their arguments hold references too)
    tagfill.clear(col, 7, 7)  # an empty range (a job of groups without rows)
    out = tagfill.settle(col, 900)  # rows 900.. (a reserve's slack) never written
    assert out.shape == (900,) and out.dtype == object
    assert out.tolist() == [v] * 100 + [w] * 200 + [v] * 200 + [None] * 400
    assert sys.getrefcount(v) - before[0] == 300 and sys.getrefcount(w) - before[1] == 200
    with pytest.raises(ValueError, match="settled"):
        tagfill.clear(col, 900, 1000)
    with pytest.raises(ValueError, match="settled"):
        tagfill.settle(col, 900)
    del col
    out[5] = "replaced by the user"  # given back as what the slot holds
    del out
    assert (sys.getrefcount(v), sys.getrefcount(w)) == before


@pytest.mark.parametrize(
    "ranges, rows, message",
    [
        ([(0, 5), (6, 10)], 10, "row 5 of the column not written"),
        ([(0, 6), (5, 10)], 10, "row 5 of the column written twice"),
        ([(0, 5), (0, 5), (5, 10)], 10, "row 0 of the column written twice"),
        ([(0, 5)], 10, r"rows \[5, 10\) of the column not written"),
        ([(0, 10)], 8, r"rows \[8, 10\) of the column written past its end"),
        ([(2, 10)], 10, "row 0 of the column not written"),
    ],
)
def test_settle_refuses_rows_missed_or_written_twice(ranges, rows, message):
    """An unsettled column that settle() refuses is never read: dropped, it gives back the
    counts of the ranges written (overlapping ones too), not what its slots hold."""
    v = _fresh("dev")
    before = sys.getrefcount(v)
    col = tagfill.empty_column(10, cleared=False)
    for lo, hi in ranges:
        tagfill.fill(col, lo, hi, v)
    with pytest.raises(ValueError, match=message):
        tagfill.settle(col, rows)
    del col
    assert sys.getrefcount(v) == before


def test_ranges_of_an_unsettled_column_go_to_the_column_itself():
    col = tagfill.empty_column(10, cleared=False)
    with pytest.raises(ValueError, match="empty_column"):
        tagfill.fill(col[3:], 0, 2, "x")  # a view would record rows shifted by 3
    with pytest.raises(ValueError, match="empty_column"):
        tagfill.clear(col[3:], 0, 2)
    with pytest.raises(IndexError):
        tagfill.clear(col, 5, 11)
    with pytest.raises(IndexError):
        tagfill.settle(col, 11)
    assert tagfill.settle(tagfill.empty_column(0, cleared=False), 0).shape == (0,)


def test_an_uncleared_column_dropped_before_it_was_settled_reads_no_slot():
    """A read that fails before its tag columns were settled drops them: their memory (here a
    block that held other data: every slot not written an invalid pointer) is not read as
    references; the ranges written give back exactly what they counted."""
    from tsfile._mem import pool

    v = _fresh("dev")
    before = sys.getrefcount(v)
    n = 600_000  # 4.8 MB: a pooled block
    with pool.pooled():
        dirty = np.full(n, 0x7FFF_DEAD_BEEF, np.int64)
        del dirty  # kept by the pool, not cleared
        col = tagfill.empty_column(n, cleared=False)
        tagfill.clear(col, 0, n // 4)
        tagfill.fill(col, n // 4, n // 2, v)
    assert sys.getrefcount(v) - before == n // 4 + 1  # its slots, and the range's record
    del col  # half its slots garbage: dealloc must not give them back
    assert sys.getrefcount(v) == before


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
    unsettled = tagfill.empty_column(4, cleared=False)
    with pytest.raises(IndexError):  # nothing counted nor recorded
        tagfill.fill_runs(unsettled, [0, 2], [2, 5], [v, v])
    with pytest.raises(ValueError, match="not written"):
        tagfill.settle(unsettled, 4)
    assert sys.getrefcount(v) == before
