"""ALP vs GORILLA on float data (issue 4, section 3): bits per value, encode and decode per path.

Data sets come from tsfile._bench.floats.datasets() (synthetic, 65536 values per chunk, plus the
real `seattle_temps` shipped in the vega_datasets wheel). Combinations that do not exist are
reported as not applicable (NotImplementedError in setup): GORILLA has no SIMD path, SIMD needs a
build and CPU with it, and older commits lack the modules.
"""

import numpy as np

from ._isa import require_isa, restore_isa
from ._settings import *  # noqa: F403 (sample counts as module attributes)

N = 65536
DATASETS = [
    "prices_2dp",
    "temps_1dp",
    "prices_2dp_f32",
    "temps_1dp_f32",
    "w0_double_5",
    "w0_double_0.5",
    "w0_float_5",
    "w0_float_0.5",
    "sine",
    "random",
    "constant",
    "seattle_temps",
]
CODECS = ["ALP", "GORILLA"]


def _load_datasets():
    """Every data set, or {} where the commit has no benchmark data."""
    try:
        from tsfile._bench.floats import datasets
    except ImportError:
        return {}
    return datasets(N)


# Built once at import: asv imports this module in its fork server and forks one process per
# parameter combination, so each combination inherits the data instead of rebuilding all
# data sets (seconds per combination on a loaded machine).
_DATA = _load_datasets()


def _data(name):
    if not _DATA:
        raise NotImplementedError("no float benchmark data in this commit")
    if name not in _DATA:
        raise NotImplementedError(f"data set {name} not available (vega_datasets missing?)")
    return _DATA[name]


def _codec(codec):
    try:
        if codec == "ALP":
            from tsfile.codecs import alp as mod
        else:
            from tsfile.codecs import gorilla as mod
    except ImportError:
        raise NotImplementedError(f"{codec} not in this commit") from None
    return mod


def _check_path(mod, codec, path):
    if path == "simd":
        if not getattr(mod, "HAS_SIMD", False):
            raise NotImplementedError(f"{codec} has no SIMD path")
        from tsfile._simd import is_simd_enabled

        if not is_simd_enabled():
            raise NotImplementedError("SIMD not available on this machine/build")


def _page(mod, arr):
    try:
        return mod.encode(arr)
    except ValueError:  # GORILLA: the data hold its end marker
        raise NotImplementedError("data not storable with this codec") from None


class BitsPerValue:
    params = (DATASETS, CODECS)
    param_names = ["dataset", "codec"]

    def setup(self, dataset, codec):
        self.arr = _data(dataset)
        self.page = _page(_codec(codec), self.arr)

    def track_bits_per_value(self, dataset, codec):
        return len(self.page) * 8 / len(self.arr)

    track_bits_per_value.unit = "bits/value"


class Decode:
    params = (DATASETS, CODECS, ["per_value", "batch", "simd"])
    param_names = ["dataset", "codec", "path"]

    def setup(self, dataset, codec, path):
        self.mod = _codec(codec)
        _check_path(self.mod, codec, path)
        arr = _data(dataset)
        self.page = _page(self.mod, arr)
        self.out = np.empty_like(arr)

    def time_decode(self, dataset, codec, path):
        self.mod.decode_into(self.page, self.out, path=path)


ISAS = ["avx512", "avx2", "neon", "scalar"]
ISA_DATASETS = ["prices_2dp", "prices_2dp_f32"]


class DecodeISA:
    """ALP decode of a cache-resident 64 Ki chunk per implementation row (the ISA comparison:
    AVX-512 against AVX2 in the same run)."""

    params = (ISA_DATASETS, ISAS)
    param_names = ["dataset", "isa"]

    def setup(self, dataset, isa):
        self.mod = _codec("ALP")
        self.path = require_isa(self.mod, isa, "ALP")
        arr = _data(dataset)
        self.page = _page(self.mod, arr)
        self.out = np.empty_like(arr)

    def teardown(self, dataset, isa):
        restore_isa()

    def time_decode(self, dataset, isa):
        self.mod.decode_into(self.page, self.out, path=self.path)


class Encode:
    params = (DATASETS, CODECS, ["batch", "simd"])
    param_names = ["dataset", "codec", "path"]

    def setup(self, dataset, codec, path):
        self.mod = _codec(codec)
        _check_path(self.mod, codec, path)
        self.arr = _data(dataset)
        _page(self.mod, self.arr)
        self.kw = {"path": path} if codec == "ALP" else {}

    def time_encode(self, dataset, codec, path):
        self.mod.encode(self.arr, **self.kw)


class LargeArray:
    """8 M doubles (2-decimal prices) in 64K-value ALP pages decoded into one array, next to a
    plain numpy copy of the same output (the store-bandwidth bound)."""

    timeout = 300
    params = ["alp_simd", "alp_batch", "numpy_copy"]
    param_names = ["what"]

    def setup(self, what):
        n, per = 8_000_000, 65536
        rng = np.random.default_rng(7)
        self.src = np.round(100.0 + np.cumsum(rng.normal(0, 0.5, n)), 2)
        self.out = np.empty_like(self.src)
        if what == "numpy_copy":
            return
        mod = _codec("ALP")
        self.path = what.split("_")[1]
        _check_path(mod, "ALP", self.path)
        self.mod = mod
        self.pages = [(i, mod.encode(self.src[i : i + per])) for i in range(0, n, per)]
        self.per = per

    def time_large(self, what):
        if what == "numpy_copy":
            np.copyto(self.out, self.src)
            return
        out, per, path, dec = self.out, self.per, self.path, self.mod.decode_into
        for i, page in self.pages:
            dec(page, out[i : i + per], path=path)
