"""The codec contract (tsfile/codecs/_contract.pxd) and its one registry (tsfile.codecs._registry).

Every test is parametrised over the registry's rows, not a hand-kept list of codecs: a codec added
to the registry is checked here without editing this file. The fault table (same fault -> same
exception class in every codec) is the one in tsfile/codecs/_common.pyx's docstring.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from tsfile._read import engine
from tsfile._write import encoders
from tsfile.codecs import _registry
from tsfile.errors import CorruptDataError, EncodeError, UnsupportedError
from tsfile.types import TSDataType as T
from tsfile.types import TSEncoding as E

ROOT = Path(__file__).resolve().parent.parent

ROWS = _registry.rows()
NUMERIC = [r for r in ROWS if r.kind != "binary"]
BINARY = [r for r in ROWS if r.kind == "binary"]
ENCODERS = [r for r in NUMERIC if r.has_encoder]
COUNTED = [r for r in ROWS if r.has_count]
MODULES = sorted({r.module for r in ROWS})

# one TsFile type per value kind (for the writer-side checks)
TYPE_OF_KIND = {
    "bool": T.BOOLEAN,
    "int32": T.INT32,
    "int64": T.INT64,
    "float32": T.FLOAT,
    "float64": T.DOUBLE,
    "binary": T.TEXT,
}


def _sample(row, n=300):
    """Values every codec of the row's kind stores exactly (TS_2DIFF FLOAT/DOUBLE keeps 2
    decimals; no GORILLA end markers)."""
    rng = np.random.default_rng(row.encoding * 8 + len(row.kind))
    if row.kind == "bool":
        return rng.integers(0, 2, n).astype(bool)
    if row.kind in ("int32", "int64"):
        return np.cumsum(rng.integers(-40, 40, n)).astype(row.dtype)
    if row.kind in ("float32", "float64"):
        return (np.round(np.cumsum(rng.normal(size=n)) * 100) / 100).astype(row.dtype)
    return [f"v{int(x)}".encode() for x in rng.integers(0, 20, n)]


def _page(row, values=None):
    values = _sample(row) if values is None else values
    return _registry.encode(row.encoding, values, row.dtype if row.kind != "binary" else T.TEXT)


def _decode(row, page, count=None, path="auto"):
    dtype = row.dtype if row.kind != "binary" else T.TEXT
    return _registry.decode(row.encoding, page, dtype, count=count, path=path)


def test_registry_holds_every_codec_module():
    # every module under tsfile/codecs with a decoder is in the registry (nothing failed to load)
    assert _registry.missing() == {}
    assert set(MODULES) == set(_registry.CODEC_MODULES)
    assert len({(r.encoding, r.kind) for r in ROWS}) == len(ROWS)


@pytest.mark.parametrize("row", ROWS, ids=repr)
def test_row_describes_itself(row):
    mod = importlib.import_module(f"tsfile.codecs.{row.module}")
    assert E(row.encoding).name == row.label
    assert {"per_value", "batch"} <= set(row.paths)
    # the SIMD path is the module's HAS_SIMD, the one flag path= reads
    assert ("simd" in row.paths) == bool(mod.HAS_SIMD)
    assert _registry.module_of(row.encoding, row.dtype) is mod


@pytest.mark.parametrize("row", ROWS, ids=repr)
@pytest.mark.parametrize("path", ["per_value", "batch", "auto"])
def test_round_trip_on_every_path(row, path):
    values = _sample(row)
    got = _decode(row, _page(row, values), count=len(values), path=path)
    if row.kind == "binary":
        assert list(got) == values
    else:
        assert got.dtype == row.dtype and got.tobytes() == np.asarray(values).tobytes()


@pytest.mark.parametrize("row", ENCODERS, ids=repr)
def test_c_encoder_matches_the_module_encoder(row):
    values = _sample(row)
    mod = importlib.import_module(f"tsfile.codecs.{row.module}")
    if row.module == "gorilla":  # the writer's form (end markers stored, as the official writer)
        want = mod.encode(values, allow_end_markers=True)
    else:
        want = mod.encode(values)
    assert _registry.encode(row.encoding, values, row.dtype) == want


@pytest.mark.parametrize("row", COUNTED, ids=repr)
def test_count_is_exact(row):
    values = _sample(row)
    assert _registry.count(row.encoding, _page(row, values), row.dtype) == len(values)


@pytest.mark.parametrize("row", NUMERIC, ids=repr)
def test_skip_checks_the_page_holds_the_values(row):
    values = _sample(row)
    page = _page(row, values)
    assert _registry.skip(row.encoding, page, row.dtype, 0) == 0
    assert _registry.skip(row.encoding, page, row.dtype, len(values)) == len(values)
    with pytest.raises(CorruptDataError):
        _registry.skip(row.encoding, page[: len(page) // 3], row.dtype, len(values))


# ---- the fault table: the same exception class for the same fault in every codec ----------------


def _module(row):
    return importlib.import_module(f"tsfile.codecs.{row.module}")


@pytest.mark.parametrize("row", NUMERIC, ids=repr)
def test_wrong_dtype_is_type_error(row):
    page = _page(row)
    with pytest.raises(TypeError):
        _module(row).decode(page, np.complex64)
    with pytest.raises(TypeError):
        _module(row).decode_into(page, np.empty(3, np.int8))


@pytest.mark.parametrize("row", NUMERIC, ids=repr)
def test_non_contiguous_out_is_value_error(row):
    page = _page(row)
    out = np.empty(20, row.dtype)[::2]
    with pytest.raises(ValueError, match="contiguous"):
        _module(row).decode_into(page, out)


@pytest.mark.parametrize("row", NUMERIC, ids=repr)
def test_read_only_out_is_value_error(row):
    out = np.empty(10, row.dtype)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="writeable"):
        _module(row).decode_into(_page(row), out)


@pytest.mark.parametrize("row", [r for r in NUMERIC if r.kind != "bool"], ids=repr)
def test_non_native_byte_order_out_is_value_error(row):
    # ts2diff raised TypeError and the PLAIN/RLE/ZIGZAG and serial codecs TypeError("dtype ...")
    out = np.empty(10, row.dtype.newbyteorder())
    with pytest.raises(ValueError, match="byte order"):
        _module(row).decode_into(_page(row), out)


@pytest.mark.parametrize("row", [r for r in NUMERIC if r.kind != "bool"], ids=repr)
def test_non_native_byte_order_values_encode_by_value(row):
    # CHIMP, RLBE, SPRINTZ, CAMEL and TS_2DIFF (float) refused them with TypeError
    values = np.asarray(_sample(row))
    swapped = values.astype(values.dtype.newbyteorder())
    assert _module(row).encode(swapped) == _module(row).encode(values)


@pytest.mark.parametrize("row", [r for r in NUMERIC if r.kind == "int32"], ids=repr)
def test_overflow_is_encode_error(row):
    with pytest.raises(EncodeError):
        _registry.encode(row.encoding, np.array([1, 2**40]), row.dtype)


@pytest.mark.parametrize("row", NUMERIC, ids=repr)
def test_truncated_page_is_corrupt_data_error_on_every_path(row):
    values = _sample(row)
    page = _page(row, values)
    for path in ("per_value", "batch"):
        with pytest.raises(CorruptDataError):
            _decode(row, page[: len(page) // 3], count=len(values), path=path)


def test_unknown_encoding_or_kind_is_unsupported():
    with pytest.raises(UnsupportedError):
        _registry.decode(7, b"", np.int64)  # REGULAR: no codec
    with pytest.raises(UnsupportedError):
        _registry.encode(E.CAMEL, [1], np.int32)  # CAMEL holds DOUBLE only
    assert _registry.encoding_fits(7, T.INT64)  # unknown encodings fail later, by name
    assert not _registry.encoding_fits(E.CAMEL, T.INT32)


# ---- the engine and the writer go through the registry ------------------------------------------


@pytest.mark.parametrize("row", ROWS, ids=repr)
def test_writer_encodes_what_the_registry_holds(row):
    t = TYPE_OF_KIND[row.kind]
    if t in encoders.SUPPORTED.get(E(row.encoding), ()):
        assert encoders._codec(E(row.encoding), t).__name__ == f"tsfile.codecs.{row.module}"


def test_writer_matrix_unchanged():
    # the official C++ 2.5 matrix plus ALP, less SPRINTZ FLOAT/DOUBLE (format notes 8.1, 8.9)
    ints, floats, binary = (
        (T.INT32, T.INT64, T.DATE, T.TIMESTAMP),
        (T.FLOAT, T.DOUBLE),
        (T.TEXT, T.STRING, T.BLOB),
    )
    want = {
        E.PLAIN: (T.BOOLEAN, *ints, *floats, *binary),
        E.TS_2DIFF: (*ints, *floats),
        E.GORILLA: (*ints, *floats),
        E.RLE: ints,
        E.ZIGZAG: (T.INT32, T.INT64),
        E.DICTIONARY: (T.TEXT, T.STRING),
        E.CHIMP: (*ints, *floats),
        E.RLBE: (*ints, *floats),
        E.SPRINTZ: (T.INT32, T.INT64),
        E.CAMEL: (T.DOUBLE,),
        E.ALP: floats,
    }
    assert {k: set(v) for k, v in encoders.SUPPORTED.items()} == {
        k: set(v) for k, v in want.items()
    }


def test_engine_asks_the_registry():
    # the engine's codec tables and per-codec branches are gone (tests/test_format_layer.py
    # checks its source spells no encoding codes): it asks the registry
    assert engine._registry is _registry


# -- a skip count from a file is checked before anything is allocated (issue-8 review) ----------


def _capped_child(code: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a child with 4 GiB of address space: a heap overflow aborts the child,
    not the test run."""
    resource = pytest.importorskip("resource")  # POSIX: the cap needs setrlimit

    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))

    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    # one BLAS thread: numpy's import must fit in the cap whatever the core count
    env.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=str(ROOT),
        env=env,
        preexec_fn=cap,
    )


@pytest.mark.parametrize("k", [2**62, 2**62 + 1])
def test_registry_skip_huge_count_does_not_corrupt_the_heap(k):
    """skip_values (the fallback for rows without a skip op, e.g. PLAIN INT32) mallocs
    ``k * width + 8`` bytes without an overflow check: k = 2**62 with 4-byte values wraps to an
    8-byte buffer, and decode_into then writes the page's 1000 values into it. The child aborts
    with 'free(): corrupted unsorted chunks' (SIGABRT) instead of raising CorruptDataError (the
    page holds 1000 values, fewer than k)."""
    r = _capped_child(
        f"""
        import numpy as np
        from tsfile.codecs import _registry as R
        from tsfile.errors import CorruptDataError
        page = R.encode(0, np.arange(1000, dtype=np.int32), np.int32)   # PLAIN INT32
        try:
            R.skip(0, page, np.int32, {k})
        except CorruptDataError:
            print("CORRUPT")
        """
    )
    assert r.returncode == 0, f"child died (rc {r.returncode}): {r.stderr[-400:]}"
    assert "CORRUPT" in r.stdout


def test_registry_skip_checks_the_page_before_allocating():
    """The same fallback allocates k values of scratch before it learns that the page holds
    fewer: skipping 2**40 values of a 1000-value page is MemoryError (an allocation of 4 TiB was
    attempted) where the contract says CorruptDataError ('fewer present in the page')."""
    page = _registry.encode(0, np.arange(1000, dtype=np.int32), np.int32)
    with pytest.raises(CorruptDataError):
        _registry.skip(0, page, np.int32, 2**40)
