"""Python's cyclic garbage collector paused while a many-file read plans and decodes.

Planning a file makes thousands of small objects that live until the read ends (its index
records: TimeseriesMeta, ChunkMeta, Statistics; the plan's chunk groups). Each 700 of them
start a collection, and the collections of the older generations walk every object the read
made so far: about a quarter of the GIL-held planning of a 100-file read (~17 ms of ~70 ms of
CPU) went there, finding nothing to free (none of these objects is in a cycle).

The pause is shared: the first read to enter records whether the collector was enabled and
disables it, the last to leave enables it again if it was (reads on several threads overlap);
a collector the user disabled stays disabled. Reference counting still frees everything that
is not in a cycle while the collector is paused.
"""

from __future__ import annotations

import gc
import threading
from contextlib import contextmanager

_lock = threading.Lock()
_readers = 0  # reads inside collector_paused() now
_was_enabled = False  # whether the collector was enabled when the first of them entered


@contextmanager
def collector_paused():
    """``with collector_paused():`` around a read (see the module notes)."""
    global _readers, _was_enabled
    with _lock:
        if _readers == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _readers += 1
    try:
        yield
    finally:
        with _lock:
            _readers -= 1
            if _readers == 0 and _was_enabled:
                gc.enable()


__all__ = ["collector_paused"]
