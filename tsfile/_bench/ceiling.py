"""What two cores of this machine give a benchmark's work, measured in the same run.

A thread-scaling target ("2 threads at least 1.8x one") is only meaningful against what the
hardware allows: on a shared 2-vCPU VM, memory bandwidth, the shared cache and the neighbours
cap how much faster two cores finish any work, however it is split. So the dataset and write
benchmarks also time the same work split between two *processes* (nothing shared: no GIL, no
locks, no common result arrays), started together, and the memory write bandwidth of one process
against two. The in-process ratio is then read against that ceiling.

A "job" is a function importable by name (``module:function``) that takes the process's
arguments and returns an object with ``run()`` (the timed work) and optionally ``before()``
(untimed, before each round: e.g. removing the previous round's file). Every process of a mode
builds its job, then each round starts behind one barrier: the round's time is from the first
start to the last end (``time.perf_counter`` is the system-wide monotonic clock on Linux).
"""

from __future__ import annotations

import importlib
import multiprocessing as mp
import queue
import statistics
import time


def _worker(job, args, rounds, barrier, results):
    module, name = job.split(":")
    work = getattr(importlib.import_module(module), name)(*args)
    before = getattr(work, "before", None)
    for r in range(rounds + 1):  # round 0 warms up (imports, caches, the result pool)
        if before is not None:
            before()
        barrier.wait()
        t0 = time.perf_counter()
        work.run()
        results.put((r, t0, time.perf_counter()))
        barrier.wait()


def lockstep(job, per_process, rounds):
    """Wall seconds of each of ``rounds`` rounds of ``job`` run at once in one process per
    entry of ``per_process`` (the job's arguments in that process)."""
    ctx = mp.get_context("spawn")  # a fresh interpreter each: no state inherited from the bench
    barrier = ctx.Barrier(len(per_process))
    results = ctx.Queue()
    procs = [
        ctx.Process(target=_worker, args=(job, args, rounds, barrier, results), daemon=True)
        for args in per_process
    ]
    for p in procs:
        p.start()
    try:
        got = _collect(results, procs, barrier, (rounds + 1) * len(procs))
    finally:
        for p in procs:
            p.join(timeout=60)
            if p.is_alive():
                p.terminate()
    walls = []
    for r in range(1, rounds + 1):
        this = [(t0, t1) for k, t0, t1 in got if k == r]
        walls.append(max(t1 for _t0, t1 in this) - min(t0 for t0, _t1 in this))
    return walls


def _collect(results, procs, barrier, n, limit=600):
    """The ``n`` round results of ``procs``; a process that died (its job failed: the child
    printed why) fails the run at once, the others' barrier broken so that they end too."""
    got, deadline = [], time.monotonic() + limit
    while len(got) < n:
        try:
            got.append(results.get(timeout=0.5))
            continue
        except queue.Empty:
            pass
        dead = [p.exitcode for p in procs if p.exitcode not in (None, 0)]
        if dead or time.monotonic() > deadline:
            barrier.abort()  # the processes waiting for the failed one stop waiting
            what = f"exit code {dead[0]}" if dead else f"no result in {limit} s"
            raise RuntimeError(f"a ceiling process failed ({what})")
    return got


def interleaved(modes, rounds, reps=3):
    """{mode name: median wall seconds} of ``modes`` {name: (job, per_process)}, each run
    ``reps`` times in turn (``rounds`` rounds each): a load that comes and goes falls on all."""
    walls = {name: [] for name in modes}
    for _ in range(reps):
        for name, (job, per_process) in modes.items():
            walls[name] += lockstep(job, per_process, rounds)
    return {name: statistics.median(w) for name, w in walls.items()}


class _Fill:
    """Writes ``nbytes`` of memory (a numpy fill of an array already faulted in): the memory
    write bandwidth one process gets."""

    def __init__(self, nbytes):
        import numpy as np

        self._a = np.ones(nbytes // 8, np.int64)
        self._k = 0

    def run(self):
        self._k += 1
        self._a.fill(self._k)


def fill_job(nbytes):
    return _Fill(nbytes)


def memory_scaling(nbytes, rounds=5, reps=2):
    """(one process writing ``nbytes``, two processes writing half each): median seconds."""
    job = "tsfile._bench.ceiling:fill_job"
    got = interleaved({"one": (job, [(nbytes,)]), "two": (job, [(nbytes // 2,)] * 2)}, rounds, reps)
    return got["one"], got["two"]


def print_memory_scaling(nbytes):
    one, two = memory_scaling(nbytes)
    gb = nbytes / 1e9
    print(
        f"  memory writes, {gb:.1f} GB: one process {gb / one:5.1f} GB/s, two processes "
        f"{gb / two:5.1f} GB/s: {one / two:.2f}x"
    )


__all__ = ["interleaved", "lockstep", "memory_scaling", "print_memory_scaling"]
