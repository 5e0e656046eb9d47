"""The table schema read by C loads (cparse.table_schema_columns + metadata._schema_of) against
the Python reference (metadata._read_table_schema) it falls back to: read_file_metadata gives the
same schemas (names, types, categories, encodings, compressions) or the same CorruptDataError,
message for message, on every fixture and on mutants of the metadata area of written files."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

import tsfile
from tsfile import CorruptDataError
from tsfile._format import cparse, metadata
from tsfile._format.constants import TAIL_SIZE
from tsfile.errors import TsFileError
from tsfile.types import ColumnCategory, TSDataType

FIXTURES = sorted((Path(__file__).parent / "fixtures").rglob("*.tsfile"))


def _outcome(data):
    try:
        meta = metadata.read_file_metadata(data, len(data), "f")
    except TsFileError as exc:
        return ("error", type(exc).__name__, str(exc))
    return (
        "ok",
        {
            name: [
                (c.column_name, c.data_type, c.category, c.encoding, c.compression)
                for c in s.columns
            ]
            for name, s in meta.schemas.items()
        },
    )


def _both(data, monkeypatch):
    fast = _outcome(data)
    with monkeypatch.context() as m:
        m.setattr(cparse, "table_schema_columns", lambda *a: None)  # the reference only
        ref = _outcome(data)
    return fast, ref


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_every_fixture_reads_the_same_schemas(path, monkeypatch):
    fast, ref = _both(path.read_bytes(), monkeypatch)
    assert fast == ref


def _write(path):
    cols = [
        tsfile.ColumnSchema("region", TSDataType.STRING, ColumnCategory.TAG),
        tsfile.ColumnSchema("dev", TSDataType.TEXT, ColumnCategory.TAG),
        tsfile.ColumnSchema("x", TSDataType.DOUBLE, ColumnCategory.FIELD),
        tsfile.ColumnSchema("y", TSDataType.INT32, ColumnCategory.FIELD),
        tsfile.ColumnSchema("s", TSDataType.STRING, ColumnCategory.FIELD),
    ]
    ts = np.arange(20, dtype=np.int64)
    with tsfile.TsFileWriter(str(path)) as w:
        w.register_table(tsfile.TableSchema("t", cols))
        w.write_arrays(
            "t", ts, {"region": "r", "dev": "d", "x": ts * 0.5, "y": ts.astype(np.int32)}
        )


def test_fast_path_is_taken(tmp_path, monkeypatch):
    path = tmp_path / "f.tsfile"
    _write(path)
    calls = []
    real = metadata._read_table_schema
    monkeypatch.setattr(metadata, "_read_table_schema", lambda *a: calls.append(a) or real(*a))
    with tsfile.TsFileReader(str(path)) as r:
        assert [c.column_name for c in r.get_table_schema("t").columns] == [
            "region",
            "dev",
            "x",
            "y",
            "s",
        ]
    assert calls == []


@pytest.mark.parametrize("seed", range(3))
def test_mutants_read_the_same(tmp_path, monkeypatch, seed):
    path = tmp_path / "f.tsfile"
    _write(path)
    data = path.read_bytes()
    meta = metadata.read_file_metadata(data, len(data), "f")
    lo, hi = meta.meta_start, len(data) - TAIL_SIZE
    rng = random.Random(seed)
    errors = 0
    for _ in range(300):
        bad = bytearray(data)
        for _k in range(rng.randint(1, 2)):
            at = rng.randrange(lo, hi)
            bad[at] = rng.choice([0, 1, 3, 0x7F, 0x80, 0xFF, bad[at] ^ (1 << rng.randrange(8))])
        fast, ref = _both(bytes(bad), monkeypatch)
        assert fast == ref
        errors += fast[0] == "error"
    assert errors  # damage was met, and named the same way


def test_cut_schemas_fail_the_same(tmp_path, monkeypatch):
    path = tmp_path / "f.tsfile"
    _write(path)
    data = path.read_bytes()
    meta = metadata.read_file_metadata(data, len(data), "f")
    for end in range(meta.meta_start, len(data) - TAIL_SIZE, 3):
        try:
            got = cparse.table_schema_columns(data, meta.meta_start, end)
        except CorruptDataError:  # never: the fast path declines, it does not raise
            pytest.fail("table_schema_columns raised")
        assert got is None or got[1] <= end
