"""The result memory pool (tsfile._mem.pool): arrays allocated inside ``pooled()`` are ordinary
numpy arrays whose large blocks come back to the pool when dropped (from any thread) and are
reused without fresh page faults; what is kept is bounded, decays, can be released or turned
off; reads give the same results with the pool on or off, and the read entry points (and their
worker threads) allocate their results from it."""

from __future__ import annotations

import gc
import os
import pickle
import subprocess
import sys
import textwrap
import threading
import time
import warnings

import numpy as np
import pytest

import tsfile
from tsfile._mem import pool
from tsfile._read.columns import JobPool
from tsfile.types import ColumnCategory, TSDataType

try:
    import resource
except ImportError:  # Windows
    resource = None

try:
    from numpy._core.multiarray import get_handler_name
except ImportError:  # numpy 1.x
    from numpy.core.multiarray import get_handler_name

POOL_NAME = "tsfile_result_pool"
BIG = 600_000  # int64 rows: 4.8 MB, above the pool's 1 MiB threshold
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

pytestmark = pytest.mark.skipif(not pool.AVAILABLE, reason="no mmap: the pool keeps nothing")


def in_use(key="in_use_blocks"):
    """Pooled blocks (or bytes) held by live arrays, beyond those alive when the test began."""
    return pool.memory_info()[key] - _START[key]


_START = {}  # memory_info() when the running test began (fresh_pool)


@pytest.fixture(autouse=True)
def fresh_pool():
    """Each test starts from an empty pool with the default settings, and leaves it so."""
    gc.collect()  # pooled arrays of earlier tests caught in cycles: freed now, not mid-test
    info = pool.memory_info()
    _START.update(info)
    pool.release_memory()
    yield
    pool.set_memory_retention(info["max_retained_bytes"], info["decay_seconds"])
    pool.release_memory()


def wait_for(cond, timeout=5.0):
    """Poll ``cond`` (a few ms apart) until it holds or ``timeout`` seconds pass."""
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            return False
        time.sleep(0.005)
    return True


# -- pooled arrays are numpy arrays ---------------------------------------------------------------


def test_pooled_array_owns_its_data_and_behaves():
    with pool.pooled():
        a = np.arange(BIG, dtype=np.int64)
        small = np.arange(10)
    assert get_handler_name(a) == POOL_NAME
    assert get_handler_name(small) == POOL_NAME  # small ones: malloc behind the same handler
    assert a.base is None and a.flags.owndata and a.flags.writeable
    assert a.ctypes.data % 64 == 0
    a[::2] = -1
    assert a[1] == 1 and a[0] == -1 and a.sum() == np.arange(BIG)[1::2].sum() - BIG // 2
    grown = np.resize(a, BIG * 2)  # a copy (numpy's allocator: outside pooled())
    assert np.array_equal(grown[:BIG], a) and np.array_equal(grown[BIG:], a)
    back = pickle.loads(pickle.dumps(a))
    assert np.array_equal(back, a)
    assert np.array_equal(small, np.arange(10))


def test_ndarray_resize_reallocates_through_the_pool():
    with pool.pooled():
        a = np.arange(BIG, dtype=np.int64)
        a.resize(BIG * 3, refcheck=False)  # realloc: a larger block, the values copied
        assert np.array_equal(a[:BIG], np.arange(BIG)) and not a[BIG:].any()
        a.resize(BIG // 2, refcheck=False)
        assert np.array_equal(a, np.arange(BIG // 2))
        b = np.arange(100, dtype=np.int64)
        b.resize(BIG, refcheck=False)  # small (malloc) to pooled
        assert np.array_equal(b[:100], np.arange(100))
        b.resize(50, refcheck=False)  # and back
        assert np.array_equal(b, np.arange(50))
    del a, b
    assert in_use() == 0


def test_size_classes_fit_every_size_with_little_waste():
    """Blocks from 1 MiB to 1 GiB (mapped, not touched but at their ends): each mapping holds
    the request and wastes at most an eighth of it (beyond the 2 MiB step of small classes)."""
    sizes = sorted({int(1.13**k * (1 << 20)) for k in range(0, 60, 3)} | {(1 << 20) - 1})
    for size in sizes:
        with pool.pooled():
            a = np.empty(size, np.uint8)
        a[0], a[-1] = 1, 2
        mapped = in_use("in_use_bytes")
        if size < pool.MIN_POOLED:
            assert mapped == 0
        else:
            assert size + 64 <= mapped <= max(size * 9 // 8 + 64, size + (2 << 20)), size
        del a
    assert in_use("in_use_bytes") == 0


def test_a_view_outlives_its_parent():
    with pool.pooled():
        a = np.arange(BIG, dtype=np.int64)
    view = a[10:20]
    del a
    assert in_use() == 1  # the view holds the block
    with pool.pooled():
        churn = [np.full(BIG, 7, np.int64) for _ in range(3)]  # must not take the view's block
    assert np.array_equal(view, np.arange(10, 20))
    del churn
    del view
    assert in_use() == 0


def test_an_array_of_numpys_allocator_resized_and_freed_inside_pooled_stays_numpys():
    """numpy keeps each array's handler: realloc and free of an array made outside pooled()
    go to numpy's allocator even inside it (the pool's free given numpy's pointer would read
    a tag that is not there)."""
    a = np.arange(BIG, dtype=np.int64)
    expected = a.copy()
    assert get_handler_name(a) != POOL_NAME
    with pool.pooled():
        a.resize(BIG * 2, refcheck=False)
        same = get_handler_name(a) != POOL_NAME and np.array_equal(a[:BIG], expected)
        del a  # (no pooled temporaries in this block: they would be kept when freed)
    assert same
    info = pool.memory_info()
    assert in_use() == 0 and info["retained_blocks"] == 0 and info["hits"] == _START["hits"]


def test_freed_on_another_thread_returns_to_the_pool():
    with pool.pooled():
        a = np.ones(BIG, np.int64)
    box = [a]
    del a
    t = threading.Thread(target=box.clear)
    t.start()
    t.join()
    info = pool.memory_info()
    assert in_use() == 0 and info["retained_blocks"] == 1


def test_reuse_is_a_hit_and_calloc_reuse_is_zeroed():
    with pool.pooled():
        a = np.full(BIG, -1, np.int64)
    del a
    before = pool.memory_info()
    with pool.pooled():
        z = np.zeros(BIG, np.int64)  # the dirty block again: must read as zeros
    after = pool.memory_info()
    assert after["hits"] == before["hits"] + 1 and after["misses"] == before["misses"]
    assert not z.any()


@pytest.mark.parametrize("zero_rows", [0, 1, 8, BIG // 2, BIG - 1, BIG])
def test_calloc_reuse_clears_what_is_not_known_zero(zero_rows):
    """A freed block's zero prefix is measured (numpy clears object arrays before freeing
    them, so a tag column comes back zero and calloc need not clear it again); the rest of a
    reused block must still be cleared."""
    with pool.pooled():
        a = np.arange(1, BIG + 1, dtype=np.int64)
    a[:zero_rows] = 0
    del a
    with pool.pooled():
        z = np.zeros(BIG, np.int64)
    assert pool.memory_info()["hits"] - _START["hits"] == 1
    assert not z.any()


def test_a_freed_object_column_is_reused_as_null_slots():
    from tsfile._read import tagfill

    with pool.pooled():
        col = tagfill.empty_column(BIG)
        dirty = np.full(BIG, -1, np.int64)
    tagfill.fill(col, 0, BIG, "tag")
    del col, dirty  # both blocks kept: one zero (numpy cleared the slots), one not
    with pool.pooled():
        ints = np.empty(BIG, np.int64)  # takes the dirty one, leaving the zero one for calloc
        again = tagfill.empty_column(BIG)
    assert pool.memory_info()["hits"] - _START["hits"] == 2
    assert all(v is None for v in again[:: BIG // 97])
    tagfill.fill(again, 0, BIG, "x")  # refuses a slot that is not NULL: all were
    assert again[0] == "x" and again[-1] == "x" and len(ints) == BIG


# -- bound, decay, release, off -------------------------------------------------------------------


def test_retention_bound_is_respected():
    bound = 12 << 20
    pool.set_memory_retention(bound)
    with pool.pooled():
        arrays = [np.ones(BIG, np.int64) for _ in range(6)]  # 6 blocks of 6 MiB
    del arrays
    info = pool.memory_info()
    assert 0 < info["retained_bytes"] <= bound
    assert info["evicted_bytes"] >= 6 * (6 << 20) - bound
    pool.set_memory_retention(6 << 20)  # lowering the bound gives back the excess now
    assert pool.memory_info()["retained_bytes"] <= 6 << 20


def test_a_block_larger_than_the_bound_is_not_kept():
    pool.set_memory_retention(2 << 20)
    with pool.pooled():
        a = np.ones(BIG, np.int64)
    del a
    assert pool.memory_info()["retained_bytes"] == 0


def test_decay_returns_idle_memory_and_the_thread_ends():
    pool.set_memory_retention(decay=0.05)
    with pool.pooled():
        a = np.ones(BIG, np.int64)
    del a
    assert pool.memory_info()["retained_blocks"] == 1
    assert wait_for(lambda: pool.memory_info()["retained_bytes"] == 0)
    assert wait_for(lambda: not pool.memory_info()["decay_thread"])
    assert pool.memory_info()["decayed_bytes"] > 0


def test_release_and_resize_leave_arrays_in_use_valid():
    with pool.pooled():
        kept = np.arange(BIG, dtype=np.int64)
        dropped = np.ones(BIG, np.int64)
    del dropped
    assert pool.release_memory() > 0
    assert pool.memory_info()["retained_bytes"] == 0
    pool.set_memory_retention(0)
    assert not pool.memory_info()["enabled"]
    assert np.array_equal(kept, np.arange(BIG))
    kept[:] = 3  # still mapped and writable
    del kept  # freed with retention off: unmapped, not kept
    assert pool.memory_info()["retained_bytes"] == 0


def test_retention_zero_uses_numpys_allocator():
    pool.set_memory_retention(0)
    with pool.pooled():
        a = np.ones(BIG, np.int64)
    assert get_handler_name(a) != POOL_NAME


@pytest.mark.parametrize("value", [-1, 1.5, True, "lots"])
def test_bad_settings_are_refused(value):
    with pytest.raises((TypeError, ValueError)):
        pool.set_memory_retention(value)


@pytest.mark.parametrize("decay", [0, -1, float("nan"), float("inf")])
def test_bad_decay_is_refused(decay):
    with pytest.raises(ValueError, match="decay"):
        pool.set_memory_retention(decay=decay)


def test_sizes_parse():
    assert pool.parse_size("0") == 0
    assert pool.parse_size("1048576") == 1 << 20
    assert pool.parse_size("512M") == 512 << 20
    assert pool.parse_size("2g") == 2 << 30
    assert pool.parse_size("1.5GiB") == 3 << 29
    assert pool.set_memory_retention("64M") is None
    assert pool.memory_info()["max_retained_bytes"] == 64 << 20


def test_a_bound_beyond_64_bits_means_no_bound_and_a_huge_decimal_is_no_size():
    pool.set_memory_retention(1 << 70)
    assert pool.memory_info()["max_retained_bytes"] == (1 << 64) - 1
    with pytest.raises(ValueError):
        pool.parse_size("1" * 400 + ".0")


@pytest.mark.parametrize("decay", [1e11, 1e300])
def test_a_decay_beyond_146_years_means_never(decay):
    """Its nanoseconds beyond 64 bits raised OverflowError; just below, a block's expiry (free
    time + decay) could wrap around and expire it at once."""
    pool.set_memory_retention(decay=decay)
    assert pool.memory_info()["decay_seconds"] == pytest.approx(pool.MAX_DECAY)
    with pool.pooled():
        a = np.ones(BIG, np.int64)
    del a
    time.sleep(0.05)
    assert pool.memory_info()["retained_blocks"] == 1


@pytest.mark.parametrize(
    ("limit", "expected"),
    [("1073741824\n", 256 << 20), ("max\n", None), ("9223372036854771712", None)],
)
def test_default_retention_follows_a_container_memory_limit(tmp_path, monkeypatch, limit, expected):
    """Kept memory counts against a container's limit: the default is a quarter of that limit
    when it is below the machine's memory ("max" and v1's huge number: no limit)."""
    monkeypatch.setattr(pool, "_CGROUP_LIMITS", (str(tmp_path / "absent"),))
    unlimited = pool.default_retention()  # the machine's (this machine may be in a container)
    cgroup = tmp_path / "memory.max"
    cgroup.write_text(limit)
    monkeypatch.setattr(pool, "_CGROUP_LIMITS", (str(tmp_path / "absent"), str(cgroup)))
    assert pool.default_retention() == (unlimited if expected is None else expected)


def _run(code, env_value):
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop(pool.ENV, None)
    if env_value is not None:
        env[pool.ENV] = env_value
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    return out


def test_env_zero_means_no_retention():
    out = _run(
        """
        import numpy as np
        from tsfile._mem import pool
        info = pool.memory_info()
        assert not info["enabled"] and info["max_retained_bytes"] == 0, info
        with pool.pooled():
            a = np.ones(1 << 20)
        del a
        info = pool.memory_info()
        assert info["retained_bytes"] == 0 and info["misses"] == 0, info
        print("ok")
        """,
        "0",
    )
    assert out.stdout.strip() == "ok"


def test_env_sets_the_bound_and_a_bad_value_warns():
    out = _run(
        "from tsfile._mem import pool; print(pool.memory_info()['max_retained_bytes'])", "256M"
    )
    assert int(out.stdout) == 256 << 20
    out = _run(
        "from tsfile._mem import pool; print(pool.memory_info()['max_retained_bytes'])", "lots"
    )
    assert "RuntimeWarning" in out.stderr and "TSFILE_MEMORY_RETAIN" in out.stderr
    assert int(out.stdout) == pool.default_retention()
    out = _run(  # larger than the C side's 64-bit bound: the import must not fail
        "from tsfile._mem import pool; print(pool.memory_info()['max_retained_bytes'])",
        "99999999999999999999999G",
    )
    assert int(out.stdout) == (1 << 64) - 1


@pytest.mark.parametrize("word", ["off", "OFF", " No ", "false"])
def test_env_off_no_false_turn_retention_off(word, monkeypatch):
    """As a user writes a switch: no "not a byte count" warning and the default bound, but off."""
    monkeypatch.setenv(pool.ENV, word)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert pool._retention_from_env() == 0


@pytest.mark.parametrize("word", ["on", "Yes", "TRUE"])
def test_env_on_yes_true_keep_the_default_bound(word, monkeypatch):
    monkeypatch.setenv(pool.ENV, word)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert pool._retention_from_env() == pool.default_retention()


def test_env_off_at_import_keeps_nothing():
    out = _run(
        "from tsfile._mem import pool; i = pool.memory_info(); "
        "print(i['enabled'], i['max_retained_bytes'])",
        "off",
    )
    assert out.stdout.split() == ["False", "0"]
    assert "RuntimeWarning" not in out.stderr


def test_the_interpreter_exits_with_memory_kept_and_threads_freeing():
    """Exit while the decay thread waits and a daemon thread allocates and frees pooled blocks
    (arrays are freed through the pool during finalization): no crash, no hang."""
    out = _run(
        """
        import threading
        import numpy as np
        from tsfile._mem import pool

        def churn():
            with pool.pooled():
                while True:
                    a = np.ones(3 << 20)
                    del a

        threading.Thread(target=churn, daemon=True).start()
        with pool.pooled():
            kept = [np.ones(2 << 20) for _ in range(4)]
            held = np.ones(2 << 20)  # freed at exit
        del kept
        print(pool.memory_info()["decay_thread"])
        """,
        None,
    )
    assert out.stdout.strip() == "True"


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork")
def test_a_forked_child_starts_with_an_empty_pool():
    with pool.pooled():
        a = np.ones(BIG, np.int64)
    del a
    assert pool.memory_info()["retained_blocks"] == 1
    pid = os.fork()
    if pid == 0:  # the child: nothing kept, and the pool still works
        code = 1
        try:
            info = pool.memory_info()
            with pool.pooled():
                b = np.full(BIG, 5, np.int64)
            ok = info["retained_bytes"] == 0 and int(b.sum()) == 5 * BIG
            del b
            ok = ok and pool.memory_info()["retained_blocks"] == 1
            code = 0 if ok else 1
        finally:
            os._exit(code)
    _pid, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert pool.memory_info()["retained_blocks"] == 1  # the parent's pool is untouched


# -- threads --------------------------------------------------------------------------------------


def test_concurrent_alloc_and_free_from_four_threads():
    pool.set_memory_retention(64 << 20)
    errors = []
    handoff = []  # arrays made on one thread, freed on another
    lock = threading.Lock()

    def work(seed):
        rng = np.random.default_rng(seed)
        try:
            with pool.pooled():
                for i in range(150):
                    n = int(rng.integers(BIG // 4, BIG * 2))
                    a = np.empty(n, np.int64) if i % 3 else np.zeros(n, np.int64)
                    if i % 3 == 0 and a.any():
                        errors.append("calloc not zero")
                    a[:] = seed * 1000 + i
                    if a[0] != a[-1] or a[n // 2] != seed * 1000 + i:
                        errors.append("overwritten")
                    with lock:
                        handoff.append(a)
                        if len(handoff) > 6:
                            handoff.pop(0)
        except Exception as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(repr(exc))

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert all(a[0] == a[-1] for a in handoff)  # the last arrays still hold their values
    handoff.clear()
    info = pool.memory_info()
    assert in_use() == 0 and info["retained_bytes"] <= 64 << 20
    assert info["hits"] > 0


def test_calloc_is_zero_after_partly_zero_frees_resizes_and_handoffs():
    """calloc trusts the zero prefix measured as a block is freed: blocks freed with zero
    prefixes of every length and dirty tails, resized in place and moved across the 1 MiB
    boundary, freed on other threads, must still come back all zero from np.zeros."""
    pool.set_memory_retention(96 << 20)
    errors = []
    handoff = []
    lock = threading.Lock()
    mib = 1 << 20

    def work(seed):
        rng = np.random.default_rng(seed)
        try:
            with pool.pooled():
                for i in range(80):
                    n = int(rng.integers(mib - 4096, 20 * mib))
                    if i % 3 == 0:
                        a = np.zeros(n, np.uint8)
                        if a.any():
                            errors.append(f"np.zeros({n}) not zero at {np.flatnonzero(a)[0]}")
                    else:
                        a = np.empty(n, np.uint8)
                        a[:] = 0xA5
                    # a zero prefix of any length, or all but the last byte, or all
                    a[: (int(rng.integers(0, n + 1)), n - 1, n)[i // 3 % 3]] = 0
                    if i % 4 == 1:  # realloc: in place or moved, across 1 MiB either way
                        a.resize(int(rng.integers(mib // 2, 20 * mib)), refcheck=False)
                        a[-1] = 0x5A
                    with lock:
                        handoff.append(a)  # freed later by whichever thread pops it
                        if len(handoff) > 5:
                            handoff.pop(int(rng.integers(0, len(handoff))))
                    del a
        except Exception as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(repr(exc))

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    handoff.clear()
    assert not errors, errors[:5]
    assert pool.memory_info()["hits"] - _START["hits"] > 0
    assert in_use() == 0


def test_jobpool_workers_allocate_from_the_pool():
    def make(_):
        return get_handler_name(np.empty(BIG, np.int64))

    with JobPool(2) as jobs:
        with pool.pooled():
            inside = jobs.map(make, range(4))
        outside = jobs.map(make, range(4))
    assert inside == [POOL_NAME] * 4
    assert POOL_NAME not in outside


# -- the read entry points ------------------------------------------------------------------------

ROWS = 300_000


def _write(path, seed, rows=ROWS):
    from tsfile import writer

    rng = np.random.default_rng(seed)
    cols = [
        tsfile.ColumnSchema("dev", TSDataType.STRING, ColumnCategory.TAG),
        tsfile.ColumnSchema("v", TSDataType.INT64, ColumnCategory.FIELD),
        tsfile.ColumnSchema("x", TSDataType.DOUBLE, ColumnCategory.FIELD),
    ]
    w = writer.TsFileWriter(str(path))
    w.register_table(tsfile.TableSchema("t", cols))
    half = rows // 2
    for d, dev in enumerate(("a", "b")):
        ts = np.arange(half, dtype=np.int64) * 3 + seed * 10_000_000
        data = {
            "dev": dev,
            "v": np.cumsum(rng.integers(-50, 50, half)).astype(np.int64) + d,
            "x": rng.normal(size=half),
        }
        w.write_arrays("t", ts, data, {"x": rng.random(half) < 0.05})
    w.close()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    where = tmp_path_factory.mktemp("mempool")
    paths = [where / "p0.tsfile", where / "p1.tsfile"]
    for seed, p in enumerate(paths):
        _write(p, seed)
    return paths


def _handler(arr):
    """The allocator's name of the array that owns ``arr``'s memory (results are slices)."""
    arr = np.ma.getdata(arr)
    while not arr.flags.owndata and isinstance(arr.base, np.ndarray):
        arr = arr.base
    return get_handler_name(arr)


def _same(a, b):
    assert list(a) == list(b)
    for k in a:
        assert type(a[k]) is type(b[k]), k
        if isinstance(a[k], np.ma.MaskedArray):
            assert np.array_equal(a[k].mask, b[k].mask), k
            assert np.array_equal(a[k].filled(0), b[k].filled(0)), k
        else:
            assert np.array_equal(a[k], b[k]), k


@pytest.mark.parametrize("threads", [1, 2])
def test_read_results_equal_with_the_pool_on_and_off(files, threads):
    pool.set_memory_retention(0)
    off = tsfile.read_table(files[0], "t", threads=threads)
    off_many = tsfile.read_table([str(p) for p in files], "t", threads=threads)
    pool.set_memory_retention(256 << 20)
    for _ in range(2):  # fresh blocks, then reused ones
        on = tsfile.read_table(files[0], "t", threads=threads)
        on_many = tsfile.read_table([str(p) for p in files], "t", threads=threads)
        _same(on, off)
        _same(on_many, off_many)
        assert _handler(on["v"]) == POOL_NAME
        assert _handler(on_many["v"]) == POOL_NAME
        assert _handler(off["time"]) != POOL_NAME
        del on, on_many


@pytest.mark.parametrize("many", [False, True])
def test_a_read_does_not_clear_its_tag_column_in_a_reused_block(files, many):
    """The slots of a read's tag column are cleared by the read's jobs, without the GIL, not
    by np.zeros at allocation (a memset of the whole reused block with the GIL held, before
    any thread could decode: 8 bytes a row, ~16 ms for 20 M rows)."""
    source = [str(p) for p in files] if many else files[0]
    first = tsfile.read_table(source, "t", threads=2)
    rows = len(first["time"])
    del first  # its blocks are kept: the next read reuses them
    before = pool.memory_info()["cleared_bytes"]
    again = tsfile.read_table(source, "t", threads=2)
    assert pool.memory_info()["cleared_bytes"] - before < 8 * rows
    assert set(again["dev"][:5]) == {"a"} and again["dev"][-1] == "b"


def test_a_second_read_hits_the_pool(files):
    first = tsfile.read_table(files[0], "t", threads=2)
    big = sum(1 for v in first.values() if np.ma.getdata(v).nbytes >= pool.MIN_POOLED)
    assert big >= 4  # time, v, x and the tag column at least
    del first
    before = pool.memory_info()
    second = tsfile.read_table(files[0], "t", threads=2)
    after = pool.memory_info()
    assert after["hits"] - before["hits"] >= big
    assert after["misses"] == before["misses"]
    assert len(second["time"]) == ROWS


def test_arrow_and_dataframe_results_come_from_the_pool(files):
    pytest.importorskip("pyarrow")
    pd = pytest.importorskip("pandas")
    table = tsfile.read_arrow(files[0], "t")
    assert in_use() >= 3
    assert table.num_rows == ROWS
    del table
    df = tsfile.to_dataframe(files[0], "t")
    assert isinstance(df, pd.DataFrame) and len(df) == ROWS
    assert pool.memory_info()["hits"] > 0


def test_query_table_blocks_come_from_the_pool(files):
    with tsfile.TsFileReader(str(files[0])) as r:
        with r.query_table("t", ["v"], batch_size=0) as rs:  # whole chunk groups
            blk = rs.get_next_tsblock()
            assert blk is not None and len(blk) * 8 >= pool.MIN_POOLED
            assert _handler(blk.timestamps) == POOL_NAME
            del blk


def test_unpooled_inside_pooled_does_not_use_the_pool():
    with pool.pooled():
        with pool.unpooled():
            a = np.zeros(BIG, np.int64)
        b = np.zeros(BIG, np.int64)
    assert get_handler_name(a) != POOL_NAME and get_handler_name(b) == POOL_NAME


FRESH_NAME = "tsfile_fresh_memory"


def test_unpooled_arrays_get_fresh_mappings_given_back_when_freed():
    with pool.pooled(), pool.unpooled():
        a = np.zeros(BIG, np.int64)
        small = np.zeros(16, np.int64)
    assert get_handler_name(a) == FRESH_NAME and get_handler_name(small) == FRESH_NAME
    assert in_use() == 1 and not a.any()
    a[-1] = 7  # writable, and the whole length is there
    del a, small
    assert in_use() == 0 and pool.memory_info()["retained_blocks"] == 0  # never kept


@pytest.mark.skipif(not hasattr(resource, "RUSAGE_THREAD"), reason="RUSAGE_THREAD: Linux only")
def test_unpooled_zeros_on_a_thread_touch_no_page():
    """A null mask of a read on a thread other than the main one: glibc's calloc served it from
    that thread's malloc arena once a freed block of the same size had raised its mmap
    threshold, and cleared it with memset: every page faulted though no null was written."""
    n = 20_000_000  # bytes: below glibc's largest dynamic mmap threshold (32 MiB)
    faults = []

    def masks():
        for _ in range(4):  # the first free of a mapped block raises the threshold
            before = resource.getrusage(resource.RUSAGE_THREAD).ru_minflt
            with pool.pooled(), pool.unpooled():
                m = np.zeros(n, np.bool_)
            faults.append(resource.getrusage(resource.RUSAGE_THREAD).ru_minflt - before)
            del m

    t = threading.Thread(target=masks)
    t.start()
    t.join()
    # each mask faults the page of its header; a calloc that memsets faulted ~800 (huge pages)
    assert sum(faults) < 32, faults


def test_null_masks_stay_lazily_zeroed(files):
    """A read's null masks are fresh mappings (untouched pages but where a null is): from the
    pool a reused block would be zeroed whole for every mask, most of them dropped unread."""
    with tsfile.TsFileReader(str(files[0])) as r:
        _n, _t, ts, cols, nulls = r.read_columns("t", ["v", "x"])
    assert _handler(ts) == POOL_NAME and _handler(cols["v"]) == POOL_NAME
    assert "x" in nulls and _handler(nulls["x"]) != POOL_NAME
    filtered = tsfile.read_table(files[0], "t", value_filter=tsfile.col("v") > 0)
    assert _handler(filtered["x"].mask) != POOL_NAME


def test_bypassed_reads_use_numpy_and_keep_what_is_kept():
    with pool.pooled():
        a = np.ones(BIG, np.int64)
    del a
    with pool.bypassed(), pool.pooled():
        b = np.ones(BIG, np.int64)
    assert get_handler_name(b) != POOL_NAME
    assert pool.memory_info()["retained_blocks"] == 1  # not given back, unlike retention 0
    with pool.pooled():
        c = np.ones(BIG, np.int64)
    assert get_handler_name(c) == POOL_NAME  # bypassed() ended


# -- the benchmarks print pool on and off ----------------------------------------------------------


def test_read_bench_threads_times_pool_on_off_and_cold(capsys, tmp_path):
    from tsfile.__main__ import main

    args = ["bench", "read", "--threads", "--rows", "4000", "--repeat", "1"]
    assert main([*args, "--cache-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    for label in ("read_table, 1 thread", "2 files, 2 threads"):
        assert f"\n{label} " in out and f"{label} [pool off]" in out  # no tag: pool on
    assert "read_table, 1 thread [pool cold]" in out
    assert "pool on vs off, read_table(threads=2)" in out
    assert pool.memory_info()["decay_seconds"] == pool.DEFAULT_DECAY  # restored after the run


def test_dataset_bench_times_pool_on_and_off(capsys):
    from tsfile.__main__ import main

    assert main(["bench", "dataset", "--small", "--parts", "threads", "--pool", "both"]) == 0
    out = capsys.readouterr().out
    assert "4 files, 2 threads  " in out and "4 files, 2 threads [pool off]" in out
    assert "2 threads vs 1 [pool off]" in out and "pool on vs off, 4 files, 1 thread" in out
