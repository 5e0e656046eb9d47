"""Zero-filled arrays in memory fresh from the kernel (an anonymous mapping of their own).

A read's null masks (one bool per row and column: 180 MB for 20 M rows x 9 columns) are
all-False and, in most columns, never written: they are dropped unread. ``np.zeros`` of that
size is a calloc, and glibc serves a calloc above its (dynamic) mmap threshold from memory it
freed earlier, which it must clear: 180 MB of memset with the GIL held, before any decode job
can start (measured 2 to 48 ms a read, depending on what was freed before). A mapping of its
own is zero without being written: its pages are only touched where a null is written.
"""

from __future__ import annotations

import mmap

import numpy as np

# Below this an ordinary calloc is cheaper than a mapping (a system call, a VMA, and a
# munmap when the array goes).
FRESH_MIN_BYTES = 1 << 20


def zeros(n, dtype):
    """``np.zeros(n, dtype)``, large ones in an anonymous mapping of their own: zero without a
    memset, freed (unmapped) when the array and every view of it are gone."""
    dtype = np.dtype(dtype)
    nbytes = n * dtype.itemsize
    if nbytes < FRESH_MIN_BYTES:
        return np.zeros(n, dtype)
    # MAP_PRIVATE: a forked child writing a mask gets its own copy, as with np.zeros
    # (mmap.mmap(-1, n) alone is a SHARED mapping: the parent would see the child's writes)
    mapping = mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    return np.frombuffer(mapping, dtype)


__all__ = ["FRESH_MIN_BYTES", "zeros"]
