"""tsfile._read.columns.JobPool: the calling thread works, helpers claim their own items, and a
failure is reported as one thread running the items in order would report it."""

import signal
import threading
import time
import types
from concurrent.futures import ThreadPoolExecutor

import pytest

from tsfile._read import columns
from tsfile._read.columns import JobPool


def test_the_caller_runs_items_and_one_helper_the_rest_with_two_threads():
    """threads=2 is the caller and ONE helper (a pool thread per item woke a worker and then the
    waiting caller for every item, and left the caller's core idle)."""
    ran = []

    def fn(x):
        ran.append(threading.get_ident())
        time.sleep(0.002)  # lets the helper claim items while the caller sleeps
        return x * x

    with JobPool(2) as pool:
        assert pool.map(fn, range(40)) == [x * x for x in range(40)]
    assert threading.get_ident() in ran
    assert len(set(ran)) == 2


def test_results_are_in_item_order_whoever_ran_them():
    def fn(x):
        time.sleep(0.001 * (x % 3))
        return x

    with JobPool(3) as pool:
        for _ in range(3):
            assert pool.map(fn, list(range(30))) == list(range(30))


def test_the_first_failing_item_in_order_is_raised_and_later_items_are_not_started():
    """Item 1 fails after item 3 failed (the other thread ran 2 and 3 meanwhile): item 1's
    error is raised (as one thread would raise it); no item after the failures is started."""
    started = []
    three_failed = threading.Event()

    def fn(x):
        started.append(x)
        if x == 1:
            assert three_failed.wait(10)
            raise ValueError("item 1")
        if x == 3:
            three_failed.set()
            raise KeyError("item 3")
        return x

    with JobPool(2) as pool:
        with pytest.raises(ValueError, match="item 1"):
            pool.map(fn, list(range(50)))
    assert sorted(started) == [0, 1, 2, 3]


def test_a_pool_is_reused_by_maps_and_closes():
    with JobPool(2) as pool:
        assert pool.map(str, [1, 2]) == ["1", "2"]
        helper = pool._pool
        assert pool.map(str, [3, 4, 5]) == ["3", "4", "5"]
        assert pool._pool is helper
    assert pool._pool is None


def test_an_interrupt_while_the_caller_waits_is_raised_once_the_helpers_items_ended():
    """Ctrl-C while the calling thread waits for a helper's item: the item ends before map
    raises KeyboardInterrupt (the caller's cleanup, closing the files the item reads, must not
    run beside it), and the helper starts no other item."""
    if not hasattr(signal, "pthread_kill"):
        pytest.skip("no signal.pthread_kill on this platform")
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("a signal's handler runs on the main thread only")
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        pytest.skip("SIGINT does not raise KeyboardInterrupt here")
    started = []
    helper_started = threading.Event()
    ended = threading.Event()
    caller = threading.get_ident()

    def fn(x):
        if threading.get_ident() == caller:
            assert helper_started.wait(10)
            return x
        started.append(x)
        helper_started.set()
        time.sleep(0.1)  # the caller has claimed every other item and waits
        signal.pthread_kill(caller, signal.SIGINT)
        time.sleep(0.3)
        ended.set()
        return x

    with JobPool(2) as pool:
        with pytest.raises(KeyboardInterrupt):
            pool.map(fn, list(range(20)))
        assert ended.is_set()
    assert len(started) == 1


def test_an_interrupt_between_the_callers_items_stops_the_helpers(monkeypatch):
    """A KeyboardInterrupt the calling thread takes outside fn (here while it claims its next
    item) stops the map as a failure does: the helper starts no item after it, and it is
    raised (the helper went on through every item left)."""
    started = []
    caller = threading.get_ident()
    helper_ran = threading.Event()

    class Count:  # itertools.count, the caller interrupted at its second claim
        def __init__(self):
            self.n = 0
            self.lock = threading.Lock()

        def __next__(self):
            if threading.get_ident() == caller and self.n > 0:
                assert helper_ran.wait(10)
                raise KeyboardInterrupt
            with self.lock:
                self.n += 1
                return self.n - 1

    def fn(x):
        started.append(x)
        if threading.get_ident() != caller:
            helper_ran.set()
            time.sleep(0.01)
        return x

    monkeypatch.setattr(columns, "itertools", types.SimpleNamespace(count=Count))
    with JobPool(2) as pool:
        with pytest.raises(KeyboardInterrupt):
            pool.map(fn, list(range(200)))
    assert len(started) < 10


def test_a_helper_that_cannot_start_stops_the_map_once_the_started_ones_ended():
    """The second helper's thread cannot start (a process out of threads: RuntimeError from
    submit): map raises it once the first helper's item has ended, and that helper starts no
    other item (it went on through every item, beside the caller's cleanup)."""
    started = []
    running = threading.Event()
    ended = threading.Event()

    def fn(x):
        started.append(x)
        running.set()
        time.sleep(0.2)
        ended.set()
        return x

    class OutOfThreads:
        def __init__(self, pool):
            self.pool = pool
            self.submitted = 0

        def submit(self, *args):
            self.submitted += 1
            if self.submitted == 2:
                assert running.wait(10)  # the first helper runs an item
                raise RuntimeError("can't start new thread")
            return self.pool.submit(*args)

        def shutdown(self, **kw):
            self.pool.shutdown(**kw)

    with JobPool(3) as pool:
        pool._pool = OutOfThreads(ThreadPoolExecutor(max_workers=2))
        with pytest.raises(RuntimeError, match="new thread"):
            pool.map(fn, list(range(30)))
        assert ended.is_set()
        assert len(started) == 1
