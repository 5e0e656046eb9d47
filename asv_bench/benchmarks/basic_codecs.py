"""Per-ISA micro-benchmarks of the RLE and PLAIN decoders (issue 8: AVX-512 beside AVX2).

Each class times one decode of a cache-resident page per implementation row of the codec's table
(include/rle_impls.h, include/plain_impls.h), so the rows compare in one run. A row this
build/CPU lacks, or a commit without the per-ISA tables, raises NotImplementedError in ``setup``
(asv skips it).
"""

import numpy as np

# Values per page: 4 Ki keeps the RLE page and its output, and PLAIN's 32 KiB of values, in L1/L2.
CACHE_RESIDENT = 4096
ISAS = ["avx512", "avx2", "neon", "scalar"]
RLE_CASES = ["int32-w3", "int32-w20", "int32-w28", "int64-w20", "int64-w45", "int64-w62"]
PLAIN_DTYPES = ["int64", "float64", "float32"]


def _module(name):
    try:
        import importlib

        module = importlib.import_module(f"tsfile.codecs.{name}")
    except ImportError as exc:
        raise NotImplementedError(f"tsfile.codecs.{name} not available: {exc}") from None
    if not hasattr(module, "active_implementation"):
        raise NotImplementedError(f"{name} has no implementation table in this commit")
    return module


def _require_isa(module, isa):
    """Make `isa` the level and check the codec runs a row of that name; the path that runs it."""
    import tsfile
    from tsfile.errors import SimdUnavailableError

    try:
        tsfile.set_simd(isa)
    except SimdUnavailableError:
        raise NotImplementedError(f"{isa} cannot run on this build/CPU") from None
    if module.active_implementation() != isa:
        tsfile.set_simd("best")
        raise NotImplementedError(f"{module.__name__} has no {isa} row on this CPU")
    return "batch" if isa == "scalar" else "simd"


def _restore_isa():
    import tsfile

    tsfile.set_simd("best")


class RleDecodeISA:
    """RLE decode of a page of bit-packed runs of one width, per implementation row."""

    params = (RLE_CASES, ISAS)
    param_names = ["case", "isa"]

    def setup(self, case, isa):
        self.rle = _module("rle")
        self.path = _require_isa(self.rle, isa)
        dtype, width = case.split("-w")
        values = np.random.default_rng(int(width)).integers(0, 1 << int(width), CACHE_RESIDENT)
        self.data = self.rle.encode(values.astype(dtype), dtype)
        self.out = np.empty(CACHE_RESIDENT, dtype=dtype)

    def teardown(self, case, isa):
        _restore_isa()

    def time_decode(self, case, isa):
        self.rle.decode_into(self.data, self.out, self.path)


class PlainDecodeISA:
    """PLAIN decode (big-endian to native byte swap) of a page, per implementation row."""

    params = (PLAIN_DTYPES, ISAS)
    param_names = ["dtype", "isa"]

    def setup(self, dtype, isa):
        self.plain = _module("plain")
        self.path = _require_isa(self.plain, isa)
        values = np.random.default_rng(1).standard_normal(CACHE_RESIDENT) * 1e6
        self.data = self.plain.encode(values.astype(dtype), dtype)
        self.out = np.empty(CACHE_RESIDENT, dtype=dtype)

    def teardown(self, dtype, isa):
        _restore_isa()

    def time_decode(self, dtype, isa):
        self.plain.decode_into(self.data, self.out, self.path)
