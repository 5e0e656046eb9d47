"""Block skip inside TS_2DIFF time pages (E5-4 of the TsFile batch-read study) and the SIMD
predicate kernels (issue 10, parts 3 and 4).

* ``TimeWindowPage``: one in-memory page of 10,000 blocks x 129 timestamps (deltas of 1000 plus
  uniform jitter of 0, 4, 8 or 12 bits), a 10 % window, per plan (off / plan A / plan C): the
  latency, and as tracked values the skip rate (skipped / skippable blocks) and the phantom
  blocks (decoded, no match).
* ``PredicateKernel``: an int64 range predicate on a cache-resident block, bitmap and index forms,
  per path and ISA row, and the numpy mask it replaces.
* ``RangeQueryFile``: a 1 % time-range query against a full scan of a file of 10 M rows (time
  and one INT64 field, LZ4) in pages of 10 k, 100 k or 1 M points.

Every ``setup`` raises NotImplementedError when the commit under test lacks tsfile._read.pushdown
(asv runs this suite from the working tree against older commits too).
"""

import os

import numpy as np

BLOCKS = 10_000
BLOCK = 129
WIDTHS = [0, 4, 8, 12]
PLANS = ["off", "plan_a", "plan_c"]
KERNEL_VALUES = 16_384


def _pushdown():
    try:
        from tsfile._read import pushdown
    except ImportError as exc:
        raise NotImplementedError(f"tsfile._read.pushdown not available: {exc}") from None
    return pushdown


def _times(count, width, seed=0):
    rng = np.random.default_rng(seed)
    jitter = rng.integers(0, 1 << width, count) if width else np.zeros(count, np.int64)
    return 1_700_000_000_000 + np.cumsum(1000 + jitter).astype(np.int64)


class TimeWindowPage:
    params = [WIDTHS, PLANS]
    param_names = ["jitter_bits", "plan"]
    timeout = 120

    def setup(self, width, plan):
        self.pushdown = _pushdown()
        from tsfile.codecs import ts2diff

        n = BLOCKS * BLOCK
        times = _times(n, width, seed=width)
        self.page = ts2diff.encode(times)
        self.t1, self.t2 = int(times[int(n * 0.45)]), int(times[int(n * 0.55)])
        rows = np.flatnonzero((times >= self.t1) & (times <= self.t2))
        self.skippable = BLOCKS - len(np.unique(rows // BLOCK))
        self.previous = self.pushdown.set_block_skip(plan)

    def teardown(self, width, plan):
        self.pushdown.set_block_skip(self.previous)

    def time_window(self, width, plan):
        self.pushdown.time_window(self.page, self.t1, self.t2)

    def track_skip_rate(self, width, plan):
        stats = self.pushdown.time_window(self.page, self.t1, self.t2)[2]
        return stats["skipped"] / self.skippable

    track_skip_rate.unit = "fraction of skippable blocks"

    def track_phantom_blocks(self, width, plan):
        return self.pushdown.time_window(self.page, self.t1, self.t2)[2]["phantom"]

    track_phantom_blocks.unit = "blocks"


class PredicateKernel:
    params = [["per_value", "batch", "avx2", "avx512", "neon", "numpy"], ["bitmap", "indices"]]
    param_names = ["path", "form"]

    def setup(self, path, form):
        self.pushdown = _pushdown()
        rng = np.random.default_rng(1)
        self.values = rng.integers(-(10**9), 10**9, KERNEL_VALUES).astype(np.int64)
        self.lo, self.hi = -(5 * 10**8), 5 * 10**8
        self.previous = None
        self.path = path
        if path in ("avx2", "avx512", "neon"):
            import tsfile
            from tsfile.errors import SimdUnavailableError

            try:
                self.previous = tsfile.set_simd(path)
            except SimdUnavailableError:
                raise NotImplementedError(f"{path} cannot run on this build/CPU") from None
            if self.pushdown.active_implementation() != path:
                tsfile.set_simd(self.previous)
                raise NotImplementedError(f"no {path} row for the predicate kernels here")
            self.path = "simd"

    def teardown(self, path, form):
        if self.previous is not None:
            import tsfile

            tsfile.set_simd(self.previous)

    def time_select(self, path, form):
        if self.path == "numpy":
            mask = (self.values >= self.lo) & (self.values <= self.hi)
            if form == "indices":
                np.flatnonzero(mask)
        else:
            self.pushdown.select_range(self.values, self.lo, self.hi, form=form, path=self.path)


class RangeQueryFile:
    params = [[10_000, 100_000, 1_000_000], ["scan", "1%_plan_c", "1%_off"]]
    param_names = ["page_points", "query"]
    timeout = 300
    rows = 10_000_000

    def setup_cache(self):
        import tsfile

        _pushdown()
        times = _times(self.rows, 8, seed=9)
        field = np.cumsum(np.random.default_rng(3).integers(-100, 101, self.rows))
        schema = tsfile.TableSchema(
            "t",
            [
                tsfile.ColumnSchema("id", tsfile.TSDataType.STRING, tsfile.ColumnCategory.TAG),
                tsfile.ColumnSchema("v", tsfile.TSDataType.INT64, tsfile.ColumnCategory.FIELD),
            ],
        )
        # asv runs setup_cache in a temporary working directory it removes afterwards
        folder = os.path.abspath("skip_files")
        os.makedirs(folder, exist_ok=True)
        for page in self.params[0]:
            path = os.path.join(folder, f"p{page}.tsfile")
            with tsfile.TsFileTableWriter(path, schema, page_size=page) as w:
                w.write_arrays(times, {"id": np.array(["d"] * self.rows, object), "v": field})
        t1, t2 = int(times[self.rows // 2]), int(times[self.rows // 2 + self.rows // 100])
        return folder, t1, t2

    def setup(self, cache, page, query):
        self.pushdown = _pushdown()
        folder, self.t1, self.t2 = cache
        self.path = os.path.join(folder, f"p{page}.tsfile")
        self.previous = self.pushdown.set_block_skip("off" if query == "1%_off" else "plan_c")

    def teardown(self, cache, page, query):
        self.pushdown.set_block_skip(self.previous)

    def time_query(self, cache, page, query):
        import tsfile

        if query == "scan":
            tsfile.read_table(self.path, "t", ["v"])
        else:
            tsfile.read_table(self.path, "t", ["v"], self.t1, self.t2)

    def track_file_bytes(self, cache, page, query):
        return os.path.getsize(self.path)

    track_file_bytes.unit = "bytes"
