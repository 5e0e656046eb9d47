# cython: language_level=3
"""A bounded, decaying reuse pool for the memory of read results (numpy's NEP 49 hook).

A whole-table read returns fresh arrays, and the kernel clears every fresh page when it is first
touched: on the reads measured, that clearing was 45-70 % of the CPU. So the read entry points
(tsfile.read_table, to_dataframe, read_arrow, query_table, the multi-file reads) allocate their
results inside ``pooled()``: numpy then takes large blocks (1 MiB and more) from this pool, and
when the program drops such an array, from any thread, its block comes back here and the next
result reuses it without a page fault. The arrays are ordinary numpy arrays that own their data
(no odd ``.base``); a block in use is never unmapped by the pool, whatever is set or released.

Policy (the same idea as pyarrow's default jemalloc pool, which keeps dirty pages ~1 s):

* **what**: blocks of freed results of 1 MiB and more (smaller ones go back to malloc at once);
* **how much**: at most ``max_bytes`` kept (default: 1/4 of physical memory, or of the
  container's memory limit (cgroup) when lower, at most 8 GiB; the oldest go first);
* **how long**: a block unused for ``decay`` seconds (default 1.0) is returned to the OS by a
  background thread that exists only while the pool keeps memory, so an idle program gives its
  memory back on its own;
* **off**: ``TSFILE_MEMORY_RETAIN=0`` (or ``off``, ``no``, ``false``) in the environment or
  ``set_memory_retention(0)``: nothing is kept and numpy's own allocator serves the reads
  (but for the lazily zeroed arrays of ``unpooled()``, which always get fresh mappings).
  ``TSFILE_MEMORY_RETAIN=<bytes>`` (suffix K, M or G allowed) sets the bound; ``on``, ``yes``
  or ``true`` is the default bound.

The C side is include/mempool.h.
"""

import operator
import os
import warnings

cimport numpy as cnp
from cpython.pycapsule cimport PyCapsule_New
from libc.stdint cimport uint32_t, uint64_t
from libc.string cimport strncpy

cdef extern from "numpy/arrayobject.h":
    ctypedef struct PyDataMemAllocator:
        void *ctx
        void *(*malloc)(void *ctx, size_t size) noexcept nogil
        void *(*calloc)(void *ctx, size_t nelem, size_t elsize) noexcept nogil
        void *(*realloc)(void *ctx, void *ptr, size_t new_size) noexcept nogil
        void (*free)(void *ctx, void *ptr, size_t size) noexcept nogil
    ctypedef struct PyDataMem_Handler:
        char name[127]
        unsigned char version
        PyDataMemAllocator allocator
    object PyDataMem_SetHandler(object handler)

cdef extern from "mempool.h" nogil:
    ctypedef struct tsf_pool_stats:
        uint64_t max_retain, decay_ns
        uint64_t retained_bytes, retained_blocks
        uint64_t in_use_bytes, in_use_blocks
        uint64_t hits, misses
        uint64_t cleared_bytes
        uint64_t decayed_bytes, evicted_bytes, released_bytes
        int decay_thread
    int TSF_POOL_AVAILABLE
    size_t TSF_POOL_MIN
    void *tsf_pool_malloc(void *ctx, size_t size) noexcept
    void *tsf_pool_calloc(void *ctx, size_t nelem, size_t elsize) noexcept
    void *tsf_pool_realloc(void *ctx, void *ptr, size_t new_size) noexcept
    void tsf_pool_free(void *ctx, void *ptr, size_t size) noexcept
    void *tsf_fresh_malloc(void *ctx, size_t size) noexcept
    void *tsf_fresh_calloc(void *ctx, size_t nelem, size_t elsize) noexcept
    void tsf_pool_configure(uint64_t max_retain, uint64_t decay_ns) noexcept
    uint64_t tsf_pool_release() noexcept
    tsf_pool_stats tsf_pool_get_stats() noexcept
    int tsf_pool_init(uint64_t max_retain, uint64_t decay_ns) noexcept
    size_t tsf_class_len(size_t need, uint32_t *cls) noexcept
    size_t TSF_HEADER
    uint32_t TSF_KIND_UNPOOLED
    size_t TSF_ALIGN

cnp.import_array()

ENV = "TSFILE_MEMORY_RETAIN"
DEFAULT_DECAY = 1.0  # seconds, as pyarrow's jemalloc (dirty_decay_ms and muzzy_decay_ms 1000)
MIN_POOLED = TSF_POOL_MIN  # bytes: smaller requests are never kept
AVAILABLE = bool(TSF_POOL_AVAILABLE)  # False where there is no mmap (Windows): never kept

ctypedef void *(*_malloc_fn)(void *ctx, size_t size) noexcept nogil
ctypedef void *(*_calloc_fn)(void *ctx, size_t nelem, size_t elsize) noexcept nogil


cdef object _capsule_of(PyDataMem_Handler *handler, const char *name, _malloc_fn malloc,
                        _calloc_fn calloc):
    """``handler`` filled in and wrapped as numpy takes it. Both handlers tag what they hand out
    the same way, so the pool's realloc and free serve the arrays of either."""
    strncpy(handler.name, name, 126)
    handler.version = 1
    handler.allocator.ctx = NULL
    handler.allocator.malloc = malloc
    handler.allocator.calloc = calloc
    handler.allocator.realloc = tsf_pool_realloc
    handler.allocator.free = tsf_pool_free
    return PyCapsule_New(handler, "mem_handler", NULL)


# The handlers live as long as the process: arrays made by one free through it, at any time.
# pooled(): large blocks kept and reused.
cdef PyDataMem_Handler _handler
_capsule = _capsule_of(&_handler, b"tsfile_result_pool", tsf_pool_malloc, tsf_pool_calloc)
# unpooled(): a fresh mapping for each large array, given back when it is freed (never kept).
cdef PyDataMem_Handler _fresh_handler
_fresh_capsule = _capsule_of(&_fresh_handler, b"tsfile_fresh_memory", tsf_fresh_malloc,
                             tsf_fresh_calloc)

cdef bint _enabled = False  # max_bytes > 0: pooled() installs the handler
cdef int _bypass_depth = 0  # inside bypassed(): pooled() does nothing


# The memory limit of this process's container (cgroup v2, then v1), where one is set.
_CGROUP_LIMITS = ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")


def _physical_memory():
    """The machine's memory, or the container's limit when that is lower (memory kept for
    reuse counts against it: sized by the host, the pool could outgrow the container)."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        total = 8 << 30
    for path in _CGROUP_LIMITS:
        try:
            with open(path) as f:
                text = f.read().strip()
        except OSError:
            continue
        if text.isdigit() and 0 < int(text) < total:  # "max" or a huge number: no limit
            total = int(text)
    return total


def default_retention():
    """The default bound on kept bytes: 1/4 of physical memory (or of the container's memory
    limit, when lower), at most 8 GiB (a whole-table read of 20 M rows x 10 columns holds 1.7 GB
    of result blocks, two such reads at once twice that; a smaller bound would keep only part of
    what the next reads need, and the decay gives it all back within a second of the program
    going idle)."""
    return min(8 << 30, _physical_memory() // 4) if AVAILABLE else 0


def parse_size(text):
    """Bytes from ``text``: an int, optionally with a K, M or G suffix (powers of 1024)."""
    s = str(text).strip().upper().removesuffix("B").removesuffix("I")
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(s[-1:], 1)
    if scale != 1:
        s = s[:-1]
    try:
        value = int(float(s) * scale) if "." in s else int(s) * scale
    except OverflowError:  # a decimal too large for a float ("1" * 400 + ".0")
        raise ValueError(f"not a byte count: {text!r}") from None
    if value < 0:
        raise ValueError(f"a byte count cannot be negative: {text!r}")
    return value


MAX_BOUND = (1 << 64) - 1  # the C side's bound is 64-bit: a larger one means the same, no bound
# seconds (about 146 years): a longer decay means the same, never, and keeps a block's expiry
# (its monotonic free time + the decay, in ns) within 64 bits
MAX_DECAY = (1 << 62) / 1e9


# TSFILE_MEMORY_RETAIN words (any case) besides byte counts: retention off, or the default bound
_OFF_WORDS = frozenset({"off", "no", "false"})
_ON_WORDS = frozenset({"on", "yes", "true"})


def _retention_from_env():
    raw = os.environ.get(ENV)
    if raw is None or not raw.strip():
        return default_retention()
    word = raw.strip().lower()
    if word in _OFF_WORDS:
        return 0
    if word in _ON_WORDS:
        return default_retention()
    try:
        return parse_size(raw)
    except ValueError:
        warnings.warn(
            f"{ENV}={raw!r} is no byte count (e.g. 0, off, 536870912, 512M, 2G); "
            f"using the default {default_retention()}",
            RuntimeWarning,
            stacklevel=2,
        )
        return default_retention()


cdef class _Handler:
    """The context of ``pooled()`` (``pool`` true) and ``unpooled()``: numpy's handler set on
    entry, the pool's or numpy's default (in this thread's context), the previous one restored
    on exit."""

    cdef object _previous
    cdef bint _pool

    def __cinit__(self, bint pool):
        self._pool = pool

    def __enter__(self):
        if not self._pool:
            self._previous = PyDataMem_SetHandler(_fresh_capsule)
        elif _enabled and _bypass_depth == 0:
            self._previous = PyDataMem_SetHandler(_capsule)
        return self

    def __exit__(self, *exc):
        if self._previous is not None:
            PyDataMem_SetHandler(self._previous)
            self._previous = None
        return False


def unpooled():
    """``with unpooled():`` fresh memory inside a pooled() block (this thread's context): each
    array of 1 MiB or more gets a mapping of its own, untouched until written and given back
    when freed, never kept; smaller ones come from malloc. For arrays best left lazily zeroed,
    such as null masks that only a null ever touches (the pool would zero a reused block whole,
    and glibc's calloc on a thread's arena memsets it: see include/mempool.h)."""
    return _Handler(False)


def pooled():
    """``with pooled():`` numpy arrays allocated in this block (this thread's context, and the
    JobPool jobs it starts) take their memory from the pool. Nests; a no-op when retention is
    off."""
    return _Handler(True)


cdef class _Bypassed:
    def __enter__(self):
        global _bypass_depth
        _bypass_depth += 1
        return self

    def __exit__(self, *exc):
        global _bypass_depth
        _bypass_depth -= 1
        return False


def bypassed():
    """``with bypassed():`` reads use numpy's allocator, as with retention off, but what the
    pool keeps stays kept (process-wide, for benchmarks that interleave the pool on and off:
    set_memory_retention(0) would give the kept blocks back)."""
    return _Bypassed()


def set_memory_retention(max_bytes=None, decay=None):
    """Set how much freed result memory tsfile keeps for its next reads, and for how long.

    ``max_bytes``: the bound on kept bytes (an int >= 0, or a str such as ``"512M"``); 0 keeps
    nothing (and reads use numpy's allocator), and what is kept beyond the new bound is returned
    to the OS now (a bound beyond 2**64-1 bytes is that). ``decay``: seconds a kept block may
    stay unused before it is returned to the OS (> 0; MAX_DECAY, about 146 years, and more mean
    never). None leaves a setting as it is. Arrays already handed out are not affected."""
    global _enabled
    info = memory_info()
    limit = info["max_retained_bytes"] if max_bytes is None else _checked_bytes(max_bytes)
    seconds = info["decay_seconds"] if decay is None else float(decay)
    if not seconds > 0 or seconds != seconds or seconds == float("inf"):
        raise ValueError(f"decay must be a finite number of seconds > 0, not {decay!r}")
    if not AVAILABLE:
        limit = 0
    limit = min(limit, MAX_BOUND)
    tsf_pool_configure(limit, <uint64_t>(min(seconds, MAX_DECAY) * 1e9))
    _enabled = limit > 0


def _checked_bytes(value):
    if isinstance(value, str):
        return parse_size(value)
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"max_bytes must be an int or a size string, not {type(value).__name__}")
    value = int(value)
    if value < 0:
        raise ValueError(f"max_bytes must be >= 0, not {value}")
    return value


def block_room(nbytes):
    """The bytes a pooled array of ``nbytes`` bytes could hold at no cost: the pool hands out
    blocks by size class (1/8 steps of a power of two beyond 16 MiB) and keeps them so, so an
    array that a later, exact request may reuse is best sized to its class's room (an array
    reserved from an estimate, tsfile._read.ahead: a margin that crossed into the next class
    made every such read miss the blocks the exact reads left). ``nbytes`` for requests the
    pool does not keep (under MIN_POOLED bytes, or beyond its classes)."""
    cdef uint32_t cls
    cdef size_t n, room
    # a byte count (an int >= 0): not a size string nor a bool, as _checked_bytes takes for
    # set_memory_retention, whose messages name max_bytes
    if isinstance(nbytes, bool) or not hasattr(nbytes, "__index__"):
        raise TypeError(f"block_room takes a number of bytes (an int), not "
                        f"{type(nbytes).__name__}")
    asked = operator.index(nbytes)
    if asked < 0:
        raise ValueError(f"block_room takes a number of bytes >= 0, not {asked}")
    if asked < TSF_POOL_MIN or asked > (<size_t>-1) - TSF_HEADER - 2 * TSF_ALIGN:
        return asked
    n = asked
    room = tsf_class_len(n + TSF_HEADER, &cls)
    if cls == TSF_KIND_UNPOOLED:
        return n
    return int(room - TSF_HEADER)


def release_memory():
    """Return every kept block to the OS now; the bytes released. Arrays in use stay valid."""
    return int(tsf_pool_release())


def memory_info():
    """The pool's settings and counters: ``max_retained_bytes``, ``decay_seconds``,
    ``retained_bytes`` / ``retained_blocks`` (kept, free), ``in_use_bytes`` / ``in_use_blocks``
    (blocks of 1 MiB and more held by live arrays: pooled ones, and the fresh mappings of
    ``unpooled()``), ``hits`` (requests served by a kept block) and
    ``misses`` (requests that mapped fresh memory), ``cleared_bytes`` (bytes a zeroed request
    had to clear in a reused block: np.zeros costs a memset there), and the bytes returned to
    the OS so far by ``decayed_bytes`` (idle too long), ``evicted_bytes`` (over the bound) and
    ``released_bytes`` (release_memory); ``decay_thread``: whether the background thread is
    running."""
    cdef tsf_pool_stats s = tsf_pool_get_stats()
    return {
        "enabled": bool(_enabled),
        "max_retained_bytes": int(s.max_retain),
        "decay_seconds": s.decay_ns / 1e9,
        "retained_bytes": int(s.retained_bytes),
        "retained_blocks": int(s.retained_blocks),
        "in_use_bytes": int(s.in_use_bytes),
        "in_use_blocks": int(s.in_use_blocks),
        "hits": int(s.hits),
        "misses": int(s.misses),
        "cleared_bytes": int(s.cleared_bytes),
        "decayed_bytes": int(s.decayed_bytes),
        "evicted_bytes": int(s.evicted_bytes),
        "released_bytes": int(s.released_bytes),
        "decay_thread": bool(s.decay_thread),
    }


def _init():
    global _enabled
    limit = min(_retention_from_env(), MAX_BOUND) if AVAILABLE else 0
    if tsf_pool_init(limit, <uint64_t>(DEFAULT_DECAY * 1e9)) != 0:
        limit = 0  # no condition variable on the monotonic clock or no fork handlers: keep none
        tsf_pool_configure(0, <uint64_t>(DEFAULT_DECAY * 1e9))
    _enabled = limit > 0


_init()
