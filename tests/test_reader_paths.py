"""``path=`` of the reader's queries reaches every codec.

All decode paths give the same values, so comparing results cannot tell whether a path was
honoured. The engine counts, per (codec, decode path), the pages it hands to a codec entry point
together with the path that entry point runs (``engine.path_counts()``); these tests read files
with one column in each encoding the reader supports and check that the query's path is the one
that ran: "per_value" and "batch" as asked, "simd" and "auto" the codec's SIMD kernels where the
codec module has them (its ``HAS_SIMD``) and SIMD is on, batch otherwise. The old engine called
PLAIN and DICTIONARY through entry points that take no path (batch whatever was asked).
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from interop.expected import fixture_path

import tsfile
from tsfile import SimdUnavailableError
from tsfile._read import engine
from tsfile.types import ColumnCategory, Compressor, TSDataType, TSEncoding

ROWS = 3000
PATHS = ("per_value", "batch", "simd", "auto")
CODEC_PATHS = ("per_value", "batch", "simd")

# encoding case -> (data type, writer encoding, codec module that decodes it)
CASES = {
    "PLAIN": (TSDataType.INT64, TSEncoding.PLAIN, "plain"),
    "PLAIN-double": (TSDataType.DOUBLE, TSEncoding.PLAIN, "plain"),
    "PLAIN-text": (TSDataType.TEXT, TSEncoding.PLAIN, "plain"),
    "DICTIONARY": (TSDataType.STRING, TSEncoding.DICTIONARY, "dictionary"),
    "TS_2DIFF": (TSDataType.INT32, TSEncoding.TS_2DIFF, "ts2diff"),
    "GORILLA": (TSDataType.DOUBLE, TSEncoding.GORILLA, "gorilla"),
    "RLE": (TSDataType.INT32, TSEncoding.RLE, "rle"),
    "ZIGZAG": (TSDataType.INT64, TSEncoding.ZIGZAG, "zigzag"),
    "CHIMP": (TSDataType.DOUBLE, TSEncoding.CHIMP, "chimp"),
    "SPRINTZ": (TSDataType.INT64, TSEncoding.SPRINTZ, "sprintz"),
    "RLBE": (TSDataType.INT64, TSEncoding.RLBE, "rlbe"),
    "CAMEL": (TSDataType.DOUBLE, TSEncoding.CAMEL, "camel"),
    "ALP": (TSDataType.DOUBLE, TSEncoding.ALP, "alp"),
    "TS_2DIFF-float": (TSDataType.DOUBLE, TSEncoding.TS_2DIFF, "ts2diff_float"),
}


def _values(data_type, rng):
    if data_type in (TSDataType.TEXT, TSDataType.STRING):
        return np.array([f"s{int(x)}" for x in rng.integers(0, 30, ROWS)], dtype=object)
    if data_type == TSDataType.DOUBLE:
        return np.round(np.cumsum(rng.normal(size=ROWS)), 2)
    if data_type == TSDataType.INT32:
        return rng.integers(0, 100, ROWS).astype(np.int32)
    return np.cumsum(rng.integers(-50, 50, ROWS)).astype(np.int64)


def _write(path, data_type, encoding):
    from tsfile import writer

    rng = np.random.default_rng(3)
    cols = [
        tsfile.ColumnSchema("dev", TSDataType.STRING, ColumnCategory.TAG),
        tsfile.ColumnSchema("v", data_type, ColumnCategory.FIELD, encoding=encoding),
    ]
    w = writer.TsFileWriter(str(path), compression=Compressor.LZ4, page_size=700)
    w.register_table(tsfile.TableSchema("t", cols))
    ts = np.arange(ROWS, dtype=np.int64) * 5
    # nulls: pages decode densely then scatter, besides whole pages straight into the result
    w.write_arrays(
        "t", ts, {"dev": "a", "v": _values(data_type, rng)}, {"v": rng.random(ROWS) < 0.1}
    )
    w.close()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("paths")
    out = {}
    for case, (data_type, encoding, _codec) in CASES.items():
        out[case] = d / f"{case}.tsfile"
        _write(out[case], data_type, encoding)
    return out


@pytest.fixture
def simd_switch():
    previous = tsfile.is_simd_enabled()
    yield tsfile.set_simd_enabled
    tsfile.set_simd_enabled(previous)


def simd_refused(path):
    """path="simd" where SIMD is off (e.g. the suite run with TSFILE_SIMD=off): refused."""
    return path == "simd" and not tsfile.is_simd_enabled()


def expected_path(codec, path):
    """The codec path a query path must run: the codec module decides whether it has SIMD."""
    if path in ("per_value", "batch"):
        return path
    has_simd = importlib.import_module(f"tsfile.codecs.{codec}").HAS_SIMD
    return "simd" if has_simd and tsfile.is_simd_enabled() else "batch"


def ran_paths(codec, read):
    """{codec path: pages} that ``read()`` handed to ``codec``."""
    engine.reset_path_counts()
    read()
    counts = engine.path_counts()
    return {p: counts.get((codec, p), 0) for p in CODEC_PATHS if counts.get((codec, p), 0)}


def _reads(path_file, path):
    def whole():
        with tsfile.TsFileReader(path_file) as r:
            r.read_columns("t", None, path=path)

    def blocks_in_range():  # partial first and last pages
        with tsfile.TsFileReader(path_file) as r:
            with r.query_table("t", ["v"], 1234, 12001, path=path, batch_size=500) as rs:
                while rs.get_next_tsblock() is not None:
                    pass

    return whole, blocks_in_range


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("case", list(CASES))
def test_every_codec_runs_the_requested_path(files, case, path):
    codec = CASES[case][2]
    want = expected_path(codec, path)
    for read in _reads(files[case], path):
        if simd_refused(path):
            with pytest.raises(SimdUnavailableError):
                read()
            continue
        ran = ran_paths(codec, read)
        assert set(ran) == {want}, (case, path, read.__name__, ran)


@pytest.mark.parametrize("case", list(CASES))
def test_with_simd_switched_off(files, case, simd_switch):
    """SIMD switched off (set_simd_enabled(False), as TSFILE_SIMD=off does): path="simd" is an
    error for every codec, as it is for each codec module's decode(); "auto" runs batch."""
    codec = CASES[case][2]
    simd_switch(False)
    with tsfile.TsFileReader(files[case]) as r:
        with pytest.raises(SimdUnavailableError):
            r.query_table("t", ["v"], path="simd")
        with pytest.raises(SimdUnavailableError):
            r.read_columns("t", None, path="simd")
    for read in _reads(files[case], "auto"):
        assert set(ran_paths(codec, read)) == {"batch"}, (case, read.__name__)


@pytest.mark.parametrize("path", PATHS)
def test_tree_model_pages_run_the_requested_path(path):
    """Non-aligned (tree-model) pages: their TS_2DIFF times and their values."""
    with tsfile.TsFileReader(fixture_path("tree_nonaligned")) as r:
        dev = r.get_all_devices()[0]
        names = r.get_timeseries_names(dev)
        if simd_refused(path):
            with pytest.raises(SimdUnavailableError):
                r.query_timeseries(dev, names, path=path)
            return
        engine.reset_path_counts()
        with r.query_timeseries(dev, names, path=path) as rs:
            while rs.get_next_tsblock() is not None:
                pass
    counts = engine.path_counts()
    codecs = {c for c, _p in counts}
    assert "ts2diff" in codecs
    for codec in codecs:
        ran = {p for c, p in counts if c == codec}
        assert ran == {expected_path(codec, path)}, (codec, path, counts)


def test_path_counts_start_from_zero_after_reset(files):
    with tsfile.TsFileReader(files["PLAIN"]) as r:
        r.read_columns("t", None, path="batch")
    assert engine.path_counts()
    engine.reset_path_counts()
    assert engine.path_counts() == {}
