"""tsfile._mem.fresh: zero-filled arrays in mappings of their own (a read's null masks)."""

import gc
import mmap

import numpy as np

from tsfile._mem import fresh
from tsfile._read import columns


def _mapped(a):
    """Whether ``a``'s memory is an mmap object's (numpy holds it through a memoryview)."""
    base = a.base
    return isinstance(getattr(base, "obj", base), mmap.mmap)


def test_large_zeros_are_a_writable_mapping_of_their_own():
    n = fresh.FRESH_MIN_BYTES * 3 + 5
    a = fresh.zeros(n, np.bool_)
    b = fresh.zeros(n, np.bool_)
    assert a.shape == (n,) and a.dtype == np.bool_
    assert _mapped(a)
    assert a.flags.writeable and not a.any()
    a[7] = True
    a[-1] = True
    assert int(a.sum()) == 2 and not b.any()  # no memory shared between two arrays


def test_large_zeros_of_a_wider_dtype():
    n = fresh.FRESH_MIN_BYTES // 8 + 1
    a = fresh.zeros(n, np.int64)
    assert a.shape == (n,) and a.dtype == np.int64 and not a.any()


def test_small_zeros_come_from_numpy():
    a = fresh.zeros(10, np.bool_)
    assert not _mapped(a)
    assert a.shape == (10,) and not a.any()
    assert fresh.zeros(0, np.bool_).shape == (0,)


def test_mapping_lives_as_long_as_a_view():
    a = fresh.zeros(fresh.FRESH_MIN_BYTES, np.bool_)
    view = a[100:200]
    del a
    gc.collect()
    view[:] = True  # the view keeps the mapping
    assert view.all()


def test_null_masks_are_fresh_zeros():
    rows = fresh.FRESH_MIN_BYTES + 1
    masks = columns.null_masks(["a", "b"], rows)
    assert set(masks) == {"a", "b"}
    for m in masks.values():
        assert m.shape == (rows,) and m.dtype == np.bool_ and not m.any()
        assert _mapped(m)
    masks["a"][3] = True
    assert not masks["b"].any()
