"""``python -m tsfile bench skip``: block skip inside TS_2DIFF time pages and the SIMD predicate
kernels (issue 10, parts 3 and 4; the TsFile batch-read study's experiment E5-4).

1. E5-4: one in-memory time page of ``--blocks`` blocks x 129 timestamps (deltas of 1000 plus
   uniform jitter of 0, 4, 8 or 12 bits), a 10 % window in the middle. Per plan: the skip rate
   (blocks skipped / blocks holding no match), phantom blocks (decoded, no match) and the p50
   latency of :func:`tsfile._read.pushdown.time_window`.
2. The predicate kernel on a cache-resident int64 block (``[lo, hi]`` range, about 50 % match):
   G values/s per path and ISA row, and a numpy mask ``(v >= lo) & (v <= hi)`` (and
   ``flatnonzero`` of it, for the index form) in the same run.
3. Files: ``--rows`` rows of one device (time and one INT64 random-walk field, both TS_2DIFF),
   LZ4 and uncompressed, pages of 10 k, 100 k and 1 M points: file size, and the p50 time of a
   1 % time-range query against a full scan of the same file (plan C and plan off).
4. Value codecs: ``--value-rows`` rows of one device in pages of 1 M points, one file per value
   codec (ALP DOUBLE, RLE INT64, GORILLA DOUBLE; time TS_2DIFF), LZ4 and uncompressed: a 1 %
   time-range query in the middle of a page as a share of a full scan of the same file, with the
   value pages read through the codecs' row-range decoders ("rows": blocks and runs before the
   range passed by their headers, GORILLA walked without storing, the page decompressed only as
   far as the range) and as before them ("whole": the page decompressed whole and decoded from
   its first value; tsfile._read.engine.set_row_ranges(False)), in the same run.

Plan A and the study. The study reports plan A skipping 0 % of the skippable blocks at jitter
widths 4, 8 and 12; here it skips all but at most one. The generator matches the study's
description (10,000 blocks x 129 timestamps, deltas of 1000 plus uniform jitter of 0/4/8/12 bits,
a 10 % window in the middle); the difference is arithmetic, not data. Plan A's bound on a block's
last value, first + 128 * (min_delta + 2^w - 1), overshoots the real last value by
128 * (2^w - 1 - mean jitter) ~ 128 * 2^(w-1), while a block spans 128 * (1000 + 2^(w-1)): the
"A slack" column measures 0.007, 0.11 and 0.68 block spans (mean; max 0.009, 0.13, 0.81) at widths
4, 8 and 12, so only the one block just before the window can be a phantom. Blocks after the
window start after t2, and plan A skips them by their exact first value. For plan A to miss all
4,500 blocks before a middle window, the slack would need 4,500 block spans: with any strictly
increasing integer timestamps a block spans at least 128 + max delta - min delta, and the slack is
below 128 * 2^w / that <= 2^w = 4096 spans even at width 12 with 1 ms steps and one 4 s gap per
block (the heavy-tailed worst case measures ~123 spans, a 98.6 % skip rate). A 0 % rate needs a
different plan A (say, one that ignores the block's own first value or bounds from the page start
cumulatively) or a different skip-rate definition; the issue does not say which, so we report
ours as measured.

Medians of ``--repeat`` runs of process CPU time; ratios are between figures of the same run
(the machine may be shared: compare ratios, not absolute times, across runs).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from functools import partial

import numpy as np

from tsfile._bench.ts2diff import _cpu_name, _isa_of, _median_rate

BLOCK = 129
WIDTHS = (0, 4, 8, 12)
PAGE_SIZES = (10_000, 100_000, 1_000_000)


def jittered_times(count: int, width: int, seed: int = 0) -> np.ndarray:
    """Increasing timestamps: deltas of 1000 plus uniform jitter of `width` bits."""
    rng = np.random.default_rng(seed)
    jitter = rng.integers(0, 1 << width, count) if width else np.zeros(count, np.int64)
    return 1_700_000_000_000 + np.cumsum(1000 + jitter).astype(np.int64)


def plan_a_slack(times: np.ndarray) -> tuple[float, float]:
    """How far plan A's bound on a block's last value (``first + n * (min_delta + 2^width -
    1)``, from the block's TS_2DIFF header) lies past the real last value, in mean block spans:
    (mean, max) over the page's full blocks. Plan A decodes a block needlessly only when this
    slack reaches into the window, so a slack below s blocks costs at most ceil(s) phantom
    blocks before a window (the blocks after it start after t2: plan A skips them by their
    first value, which is exact)."""
    full = len(times) // BLOCK * BLOCK
    blocks = times[:full].reshape(-1, BLOCK)
    deltas = np.diff(blocks, axis=1)
    min_delta = deltas.min(axis=1)
    spread = (deltas - min_delta[:, None]).max(axis=1)
    width = np.array([int(x).bit_length() for x in spread])
    bound = blocks[:, 0] + (BLOCK - 1) * (min_delta + (1 << width) - 1)
    span = float(np.mean(blocks[:, -1] - blocks[:, 0] + min_delta))
    slack = (bound - blocks[:, -1]) / span
    return float(slack.mean()), float(slack.max())


def p50(repeat: int, fn, *args, **kwargs) -> float:
    """Median CPU time of this process (all its threads) for fn(*args, **kwargs), in seconds, one
    warm-up call first: on a shared machine wall time also counts other processes' turns."""
    fn(*args, **kwargs)
    samples = []
    for _ in range(repeat):
        t0 = time.process_time()
        fn(*args, **kwargs)
        samples.append(time.process_time() - t0)
    return statistics.median(samples)


def e5_4(blocks: int, repeat: int) -> None:
    from tsfile._read import pushdown
    from tsfile.codecs import ts2diff

    n = blocks * BLOCK
    print(f"## E5-4: one page of {blocks} blocks x {BLOCK} timestamps, a 10 % window")
    head = (
        f"{'width':>5} {'plan':>7} {'blocks':>7} {'skippable':>9} {'skipped':>8} "
        f"{'skip rate':>9} {'phantom':>8} {'p50 ms':>8} {'vs off':>7} {'A slack':>8}"
    )
    print(head)
    print("-" * len(head))
    before = pushdown.block_skip()
    try:
        for width in WIDTHS:
            times = jittered_times(n, width, seed=width)
            page = ts2diff.encode(times)
            t1, t2 = int(times[int(n * 0.45)]), int(times[int(n * 0.55)])
            rows = np.flatnonzero((times >= t1) & (times <= t2))
            skippable = blocks - len(np.unique(rows // BLOCK))
            slack, slack_max = plan_a_slack(times)
            latency = {}
            for plan in pushdown.PLANS:
                pushdown.set_block_skip(plan)
                values, _, st = pushdown.time_window(page, t1, t2)
                if not np.array_equal(values, times[rows]):
                    raise AssertionError(f"plan {plan} width {width}: wrong timestamps")
                latency[plan] = p50(repeat, pushdown.time_window, page, t1, t2)
                rate = st["skipped"] / skippable if skippable else float("nan")
                print(
                    f"{width:>5} {plan:>7} {st['blocks']:>7} {skippable:>9} {st['skipped']:>8} "
                    f"{rate:>9.1%} {st['phantom']:>8} {latency[plan] * 1e3:>8.2f} "
                    f"{latency[plan] / latency['off']:>7.2f} "
                    + (f"{slack:4.2f}/{slack_max:4.2f}" if plan == "plan_a" else "")
                )
    finally:
        pushdown.set_block_skip(before)
    print(
        "(A slack: plan A's bound on a block's last timestamp past the real one, in block\n"
        " spans, mean/max: a block is a phantom only when its slack reaches the window, so plan\n"
        " A misses at most ceil(max) skippable blocks; see 'Plan A and the study' in\n"
        " tsfile/_bench/skip.py)"
    )
    print()


def kernels(count: int, repeat: int, min_time: float) -> None:
    import tsfile
    from tsfile._read import pushdown

    rng = np.random.default_rng(1)
    values = rng.integers(-(10**9), 10**9, count).astype(np.int64)
    lo, hi = -(5 * 10**8), 5 * 10**8
    info = tsfile.simd_info()
    rows = [r for r in pushdown.implementations() if r != "scalar"]
    simd = [f"simd:{r}" for r in rows] if info["active"] != "none" else []
    labels = ["per_value", "batch", *simd]
    print(f"## predicate kernel, int64 in [lo, hi] (~50 % match), {count} values (cache-resident)")
    print(f"CPU: {_cpu_name()}; G values/s, medians of {repeat} runs (thread CPU time)")

    def rate(fn, *args, calls=1, **kwargs):
        """G values/s of fn(*args, **kwargs), which tests `calls` blocks of `count` values."""
        return _median_rate(partial(fn, *args, **kwargs), count * calls, repeat, min_time) / 1e3

    def numpy_mask():
        return (values >= lo) & (values <= hi)

    base_mask = rate(numpy_mask)
    base_idx = rate(lambda: np.flatnonzero(numpy_mask()))
    head = (
        f"{'path':>12} {'bitmap':>8} {'indices':>8} {'bitmap/np':>10} {'idx/np':>8} "
        f"{'kern bm':>8} {'kern idx':>8}"
    )
    print(head)
    print("-" * len(head))
    for label in labels:
        path = "simd" if label.startswith("simd") else label
        with _isa_of(label):
            bits = rate(pushdown.select_range, values, lo, hi, form="bitmap", path=path)
            idx = rate(pushdown.select_range, values, lo, hi, path=path)
            # the kernel alone: 100 calls from one C loop, no Python call or allocation each time
            kernel = pushdown._kernel_loop_i64
            k_bits = rate(kernel, values, lo, hi, "bitmap", path, 100, calls=100)
            k_idx = rate(kernel, values, lo, hi, "indices", path, 100, calls=100)
        print(
            f"{label:>12} {bits:8.2f} {idx:8.2f} {bits / base_mask:10.2f} {idx / base_idx:8.2f} "
            f"{k_bits:8.2f} {k_idx:8.2f}"
        )
    print(f"{'numpy':>12} {base_mask:8.2f} {base_idx:8.2f}   (mask; flatnonzero of the mask)")
    print("(select_range calls from Python; 'kernel' columns: the C kernel alone)")
    print()


def _write_file(path, times, field, page: int, compression) -> None:
    import tsfile

    schema = tsfile.TableSchema(
        "t",
        [
            tsfile.ColumnSchema("id", tsfile.TSDataType.STRING, tsfile.ColumnCategory.TAG),
            tsfile.ColumnSchema("v", tsfile.TSDataType.INT64, tsfile.ColumnCategory.FIELD),
        ],
    )
    ids = np.array(["d"] * len(times), object)
    with tsfile.TsFileTableWriter(path, schema, page_size=page, compression=compression) as w:
        w.write_arrays(times, {"id": ids, "v": field})


def _time_around_scans(query, variants, pair, samples, repeat: int) -> None:
    """Process CPU time samples of query(*variants[name]) into samples[name]: the "scan" variant
    before and after (half the repeats each), the two variants of ``pair`` alternating between
    (a query timed right after a scan pays for the scan's freed arrays, fresh pages to fault
    in, which is not what a run of queries costs; alternating, a change of load hits both)."""
    for stage in (("scan",), pair, ("scan",)):
        for _ in range(repeat if len(stage) > 1 else (repeat + 1) // 2):
            for name in stage:
                t0 = time.process_time()
                query(*variants[name])
                samples[name].append(time.process_time() - t0)


def _query_file(path, times, t1, t2, repeat: int) -> dict:
    """Medians of the scan (timed before and after the queries) and of the window query under
    plans C and off (alternating: a change of load hits both alike); the
    share of the blocks of the time pages read that stayed packed and of the SNAPPY / LZ4 page
    bytes that were decompressed (plan C)."""
    import tsfile
    from tsfile._read import pushdown

    def query(plan, *window):
        pushdown.set_block_skip(plan)
        return tsfile.read_table(path, "t", ["v"], *window)

    variants = {"scan": ("plan_c",), "plan_c": ("plan_c", t1, t2), "off": ("off", t1, t2)}
    before = pushdown.block_skip()
    samples = {name: [] for name in variants}
    out = {}
    try:
        for plan in ("plan_c", "off"):
            got = query(plan, t1, t2)
            if not np.array_equal(got["time"], times[(times >= t1) & (times <= t2)]):
                raise AssertionError(f"{path}, plan {plan}: wrong rows")
        pushdown.reset_skip_counts()
        query("plan_c", t1, t2)
        counts = pushdown.skip_counts()
        out["skipped"] = counts["skipped"] / max(counts["blocks"], 1)
        inflated, stored = counts["prefix_decompressed"], counts["prefix_bytes"]
        out["inflated"] = inflated / stored if stored else 1.0
        _time_around_scans(query, variants, ("plan_c", "off"), samples, repeat)
    finally:
        pushdown.set_block_skip(before)
    out.update({name: statistics.median(v) for name, v in samples.items()})
    return out


def files(rows: int, repeat: int, page_sizes) -> None:
    import tsfile

    times = jittered_times(rows, 8, seed=9)
    field = np.cumsum(np.random.default_rng(3).integers(-100, 101, rows))
    t1, t2 = int(times[rows // 2]), int(times[rows // 2 + rows // 100])
    print(
        f"## files: {rows} rows of one device (time + one INT64 random walk, both TS_2DIFF), "
        "a 1 % time-range query"
    )
    head = (
        f"{'comp':>6} {'page pts':>9} {'file MB':>8} {'scan ms':>8} {'1% C ms':>8} "
        f"{'1% off ms':>9} {'C/scan':>7} {'off/scan':>8} {'skipped':>8} {'inflated':>8}"
    )
    print(head)
    print("-" * len(head))
    with tempfile.TemporaryDirectory() as tmp:
        for comp in (tsfile.Compressor.LZ4, tsfile.Compressor.UNCOMPRESSED):
            for page in page_sizes:
                path = os.path.join(tmp, f"p{page}_{int(comp)}.tsfile")
                _write_file(path, times, field, page, comp)
                r = _query_file(path, times, t1, t2, repeat)
                print(
                    f"{comp.name[:6]:>6} {page:>9} {os.path.getsize(path) / 1e6:8.2f} "
                    f"{r['scan'] * 1e3:8.2f} {r['plan_c'] * 1e3:8.2f} {r['off'] * 1e3:9.2f} "
                    f"{r['plan_c'] / r['scan']:7.1%} {r['off'] / r['scan']:8.1%} "
                    f"{r['skipped']:8.1%} {r['inflated']:8.1%}"
                )
    print("(skipped: blocks of the time pages read that stayed packed, plan C (of the blocks")
    print(" reached: a compressed page's blocks after the window are never decompressed, nor")
    print(" counted); inflated: share of")
    print(" the bytes of the compressed pages read that were decompressed: a page is decompressed")
    print(" only as far as the window's last block; C and off samples alternate, the scan's are")
    print(" taken before and after them)")
    print()


VALUE_CODECS = ("ALP", "RLE", "GORILLA")


def _value_column(codec: str, rows: int) -> tuple:
    """(data type, values) of a value codec's column: decimals of a random walk for the float
    codecs, a small-step integer walk for RLE."""
    import tsfile

    rng = np.random.default_rng(5)
    if codec == "RLE":
        return tsfile.TSDataType.INT64, np.cumsum(rng.integers(-8, 9, rows)).astype(np.int64)
    return tsfile.TSDataType.DOUBLE, np.round(np.cumsum(rng.normal(size=rows)) * 100) / 100


def _write_value_file(path, times, codec: str, page: int, compression) -> None:
    import tsfile

    data_type, values = _value_column(codec, len(times))
    schema = tsfile.TableSchema(
        "t",
        [
            tsfile.ColumnSchema("id", tsfile.TSDataType.STRING, tsfile.ColumnCategory.TAG),
            tsfile.ColumnSchema(
                "v", data_type, tsfile.ColumnCategory.FIELD, encoding=tsfile.TSEncoding[codec]
            ),
        ],
    )
    ids = np.array(["d"] * len(times), object)
    with tsfile.TsFileTableWriter(path, schema, page_size=page, compression=compression) as w:
        w.write_arrays(times, {"id": ids, "v": values})


def _query_value_file(path, want, t1, t2, repeat: int) -> dict:
    """Medians of process CPU time: the scan (timed before and after the queries), and the
    window query with the row-range decoders ("rows") and without ("whole"), alternating (a
    change of load hits both alike; a query timed right after a scan would pay for the scan's
    freed arrays, as in _query_file)."""
    import tsfile
    from tsfile._read import engine

    def query(ranges, *window):
        engine.set_row_ranges(ranges)
        return tsfile.read_table(path, "t", ["v"], *window)

    variants = {"scan": (True,), "rows": (True, t1, t2), "whole": (False, t1, t2)}
    before = engine.set_row_ranges(True)
    samples = {name: [] for name in variants}
    try:
        for ranges in (True, False):
            got = query(ranges, t1, t2)
            if not np.array_equal(np.asarray(got["v"]), want):
                raise AssertionError(f"{path}, row ranges {ranges}: wrong values")
        _time_around_scans(query, variants, ("rows", "whole"), samples, repeat)
    finally:
        engine.set_row_ranges(before)
    return {name: statistics.median(v) for name, v in samples.items()}


def values(rows: int, repeat: int, page: int) -> None:
    import tsfile

    times = jittered_times(rows, 8, seed=9)
    # a window in the middle of a page: a serial stream is walked from the page's start to it
    r1 = (rows // page // 2) * page + page // 2 if rows >= 2 * page else rows // 2
    r2 = min(r1 + rows // 100, rows - 1)
    t1, t2 = int(times[r1]), int(times[r2])
    print(
        f"## value codecs: {rows} rows of one device in pages of {page} points, a 1 % time-range"
        f" query (rows {r1}..{r2}, from row {r1 % page} of its page)"
    )
    head = (
        f"{'codec':>8} {'comp':>6} {'file MB':>8} {'scan ms':>8} {'whole ms':>9} {'rows ms':>8} "
        f"{'whole/scan':>10} {'rows/scan':>9} {'speed-up':>8}"
    )
    print(head)
    print("-" * len(head))
    with tempfile.TemporaryDirectory() as tmp:
        for codec in VALUE_CODECS:
            want = _value_column(codec, rows)[1][r1 : r2 + 1]
            for comp in (tsfile.Compressor.LZ4, tsfile.Compressor.UNCOMPRESSED):
                path = os.path.join(tmp, f"{codec}_{int(comp)}.tsfile")
                _write_value_file(path, times, codec, page, comp)
                r = _query_value_file(path, want, t1, t2, repeat)
                print(
                    f"{codec:>8} {comp.name[:6]:>6} {os.path.getsize(path) / 1e6:8.2f} "
                    f"{r['scan'] * 1e3:8.2f} {r['whole'] * 1e3:9.2f} {r['rows'] * 1e3:8.2f} "
                    f"{r['whole'] / r['scan']:10.1%} {r['rows'] / r['scan']:9.1%} "
                    f"{r['whole'] / r['rows']:8.1f}"
                )
                os.remove(path)
    print("(whole: the value pages the window cuts decompressed whole and decoded from their")
    print(" first value, as before the row-range decoders; rows: through them. The time pages take")
    print(" plan C in both; medians of process CPU time, rows and whole alternating, the scan's")
    print(" samples taken before and after them)")
    print()


PARTS = ("e5_4", "kernels", "files", "values")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tsfile bench skip")
    parser.add_argument("--blocks", type=int, default=10_000, help="blocks in the E5-4 page")
    parser.add_argument("--kernel-values", type=int, default=16_384, help="predicate block size")
    parser.add_argument("--rows", type=int, default=10_000_000, help="rows of the file part")
    parser.add_argument(
        "--page-sizes", type=str, default=",".join(map(str, PAGE_SIZES)), help="points per page"
    )
    parser.add_argument("--value-rows", type=int, default=10_000_000, help="rows of part 4")
    parser.add_argument("--value-page", type=int, default=1_000_000, help="points per page, part 4")
    parser.add_argument("--repeat", type=int, default=7, help="timed samples per figure (median)")
    parser.add_argument("--min-time", type=float, default=0.02, help="seconds per kernel sample")
    parser.add_argument(
        "--parts", type=str, default=",".join(PARTS), help=f"parts to run, of {','.join(PARTS)}"
    )
    args = parser.parse_args(argv)
    parts = [p for p in args.parts.split(",") if p]
    unknown = set(parts) - set(PARTS)
    if unknown:
        parser.error(f"unknown parts {sorted(unknown)}: choose from {','.join(PARTS)}")
    if "e5_4" in parts:
        e5_4(args.blocks, args.repeat)
    if "kernels" in parts:
        kernels(args.kernel_values, args.repeat, args.min_time)
    if "files" in parts:
        files(args.rows, args.repeat, [int(p) for p in args.page_sizes.split(",")])
    if "values" in parts:
        values(args.value_rows, args.repeat, args.value_page)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
