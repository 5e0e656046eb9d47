"""E5-1 micro-benchmarks of the TS_2DIFF codec (the TsFile batch-read study).

Workload W0: a random walk with integer steps uniform in [-100, 100],
``numpy.random.default_rng(42)``, 20 M values. Every benchmark imports the codec in ``setup`` and
raises NotImplementedError there when the commit under test lacks what it needs (asv runs this
suite from the working tree against older commits too), or when a path does not exist (no SIMD
kernel on this build/CPU, no SIMD encoder).
"""

import numpy as np

from ._isa import require_isa, restore_isa
from ._settings import *  # noqa: F403 (sample counts as module attributes)

LARGE = 20_000_000
CACHE_RESIDENT = 64 * 1024
SWEEP = 1 << 20
PER_VALUE_ENCODE = 1_000_000
DTYPES = ["int32", "int64"]
PATHS = ["per_value", "batch", "simd"]
# Implementation rows of the TS_2DIFF table by ISA; a row this build/CPU lacks is skipped.
ISAS = ["avx512", "avx2", "neon", "scalar"]


def _codec(*names):
    """The ts2diff module, or NotImplementedError if it (or one of `names`) is missing."""
    try:
        from tsfile.codecs import ts2diff
    except ImportError as exc:
        raise NotImplementedError(f"tsfile.codecs.ts2diff not available: {exc}") from None
    for name in names:
        if not hasattr(ts2diff, name):
            raise NotImplementedError(f"ts2diff.{name} not available")
    return ts2diff


def _require_path(ts2diff, path):
    if path == "simd":
        import tsfile

        if not (ts2diff.HAS_SIMD and tsfile.simd_available()):
            raise NotImplementedError("no SIMD kernels on this build/CPU")
        tsfile.set_simd_enabled(True)


def _w0_int64(count):
    steps = np.random.default_rng(42).integers(-100, 101, size=count, dtype=np.int64)
    return np.cumsum(steps)


# The 20 M-value walk, built once at import: asv imports this module in its fork server and forks
# one process per parameter combination, which then share it instead of rebuilding it.
_W0_LARGE = _w0_int64(LARGE)


def w0(count, dtype):
    walk = _W0_LARGE[:count] if count <= LARGE else _w0_int64(count)
    return walk.astype(dtype)


def of_width(count, dtype, width):
    """Values whose deltas span exactly `width` bits in every block (random in [0, 2^width))."""
    rng = np.random.default_rng(width)
    if width == 0:
        deltas = np.full(count, 3, dtype=np.uint64)
    elif width == 64:
        deltas = rng.integers(0, 1 << 63, size=count, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    else:
        deltas = rng.integers(0, 1 << width, size=count, dtype=np.uint64)
        deltas[1::129] = (1 << width) - 1
        deltas[2::129] = 0
    return np.cumsum(deltas, dtype=np.uint64).view(np.int64).astype(dtype)


class DecodeW0:
    """Decode 20 M W0 values into a preallocated array."""

    params = (DTYPES, PATHS)
    param_names = ["dtype", "path"]
    timeout = 300

    def setup(self, dtype, path):
        self.ts2diff = _codec("decode_into", "encode")
        _require_path(self.ts2diff, path)
        self.data = self.ts2diff.encode(w0(LARGE, dtype))
        self.out = np.empty(LARGE, dtype=dtype)

    def time_decode(self, dtype, path):
        self.ts2diff.decode_into(self.data, self.out, path)


class DecodeCacheResident:
    """Decode 64 Ki W0 values again and again into the same (cache-resident) buffer."""

    params = (DTYPES, PATHS)
    param_names = ["dtype", "path"]

    def setup(self, dtype, path):
        self.ts2diff = _codec("decode_into", "encode")
        _require_path(self.ts2diff, path)
        self.data = self.ts2diff.encode(w0(CACHE_RESIDENT, dtype))
        self.out = np.empty(CACHE_RESIDENT, dtype=dtype)

    def time_decode(self, dtype, path):
        self.ts2diff.decode_into(self.data, self.out, path)


class DecodeCacheResidentISA:
    """DecodeCacheResident per implementation row of the TS_2DIFF table (the ISA comparison:
    AVX-512 against AVX2 in the same run)."""

    params = (DTYPES, ISAS)
    param_names = ["dtype", "isa"]

    def setup(self, dtype, isa):
        self.ts2diff = _codec("decode_into", "encode")
        self.path = require_isa(self.ts2diff, isa, "TS_2DIFF")
        self.data = self.ts2diff.encode(w0(CACHE_RESIDENT, dtype))
        self.out = np.empty(CACHE_RESIDENT, dtype=dtype)

    def teardown(self, dtype, isa):
        restore_isa()

    def time_decode(self, dtype, isa):
        self.ts2diff.decode_into(self.data, self.out, self.path)


class EncodeISA:
    """Encode 1 Mi W0 values per implementation row (the planning pass differs per ISA)."""

    params = (DTYPES, ISAS)
    param_names = ["dtype", "isa"]

    def setup(self, dtype, isa):
        self.ts2diff = _codec("encode")
        self.path = require_isa(self.ts2diff, isa, "TS_2DIFF")
        self.values = w0(SWEEP, dtype)

    def teardown(self, dtype, isa):
        restore_isa()

    def time_encode(self, dtype, isa):
        self.ts2diff.encode(self.values, path=self.path)


class DecodeWidthSweep:
    """Decode 1 Mi values whose blocks all have the given delta bit width."""

    params = (DTYPES, [0, 1, 4, 8, 12, 16, 24, 32, 48, 64], PATHS)
    param_names = ["dtype", "width", "path"]

    def setup(self, dtype, width, path):
        if dtype == "int32" and width > 32:
            raise NotImplementedError("int32 widths stop at 32")
        self.ts2diff = _codec("decode_into", "encode")
        _require_path(self.ts2diff, path)
        self.data = self.ts2diff.encode(of_width(SWEEP, dtype, width))
        self.out = np.empty(SWEEP, dtype=dtype)

    def time_decode(self, dtype, width, path):
        self.ts2diff.decode_into(self.data, self.out, path)

    def track_bytes_per_value(self, dtype, width, path):
        return len(self.data) / SWEEP

    track_bytes_per_value.unit = "bytes/value"


class EncodeW0:
    """Encode 20 M W0 values with `encode(values, path=...)`: batch (scalar) or simd (the pass
    finding each block's min/max delta on AVX2 / NEON). The per-value encoder is timed by
    EncodeW0PerValue."""

    params = (DTYPES, ["batch", "simd"])
    param_names = ["dtype", "path"]
    timeout = 300

    def setup(self, dtype, path):
        self.ts2diff = _codec("encode")
        _require_path(self.ts2diff, path)
        try:
            self.ts2diff.encode(w0(10, dtype), path=path)
        except TypeError:
            raise NotImplementedError("encode() has no path argument in this commit") from None
        self.values = w0(LARGE, dtype)

    def time_encode(self, dtype, path):
        self.ts2diff.encode(self.values, path=path)


class EncodeW0PerValue:
    """The streaming encoder driven one value per call from Python (`Ts2DiffEncoder.encode`),
    on the first 1 M W0 values (20 M Python ints would need ~1 GB as a list)."""

    params = DTYPES
    param_names = ["dtype"]
    timeout = 300
    number = 1
    repeat = 5

    def setup(self, dtype):
        self.ts2diff = _codec("Ts2DiffEncoder")
        self.items = w0(PER_VALUE_ENCODE, dtype).tolist()

    def time_encode(self, dtype):
        enc = self.ts2diff.Ts2DiffEncoder(dtype)
        for v in self.items:
            enc.encode(v)
        enc.flush()


class SizeW0:
    """Encoded size of W0 (20 M values)."""

    params = DTYPES
    param_names = ["dtype"]

    def setup(self, dtype):
        self.ts2diff = _codec("encode")

    def track_bytes_per_value(self, dtype):
        return len(self.ts2diff.encode(w0(LARGE, dtype))) / LARGE

    track_bytes_per_value.unit = "bytes/value"
