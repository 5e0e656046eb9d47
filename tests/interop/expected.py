"""Loaders of the interop fixtures' ground truth, as numpy arrays plus null masks.

Needs numpy only (never the official package, never pickle). The expected data of fixture NAME is
tests/fixtures/official/NAME.expected.json.gz, a typed-JSON document (typed_json.py; the format is
described in tests/fixtures/official/README.md). The same classes hold what the official reader
returned (official.read_with_official_arrays), so both compare the same way.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import typed_json

FIXTURE_DIR = Path(__file__).resolve().parent.parent / "fixtures" / "official"

_INT_DTYPES = {
    "INT32": np.int32,
    "DATE": np.int32,  # yyyyMMdd, as stored
    "INT64": np.int64,
    "TIMESTAMP": np.int64,
}


@dataclass
class Series:
    """One table (table model) or one device (tree model), rows in the official reader's order.

    `values[c]` is a numpy array: bool, int32 (INT32, DATE as yyyyMMdd), int64 (INT64, TIMESTAMP,
    time), float32, float64, or object (str for TEXT/STRING, bytes for BLOB). `nulls[c]` is a bool
    array, True where the cell is null; the value there is 0 / False / None.
    """

    name: str
    columns: list[str]
    types: list[str]  # TSDataType member names; the `time` column is INT64
    categories: list[str]  # TIME, TAG or FIELD
    values: dict[str, np.ndarray]
    nulls: dict[str, np.ndarray]
    cells: dict[str, list] = field(repr=False, default_factory=dict)  # the raw JSON cells

    @property
    def num_rows(self) -> int:
        return len(self.values[self.columns[0]]) if self.columns else 0

    def type_of(self, column: str) -> str:
        return self.types[self.columns.index(column)]

    def to_lists(self) -> dict[str, list]:
        """{column: [Python values, None for null]} (FLOAT widened to Python float)."""
        return {
            c: [typed_json.decode_value(t, cell) for cell in self.cells[c]]
            for c, t in zip(self.columns, self.types, strict=True)
        }


@dataclass
class Dataset:
    """Everything read from one file: tables (by name, file order) and tree devices (by path)."""

    tables: dict[str, Series]
    devices: dict[str, Series]
    meta: dict = field(default_factory=dict)  # the fixture's description (expected files only)

    @property
    def series(self) -> dict[str, Series]:
        return {**self.tables, **self.devices}


def column_array(type_name: str, cells: list) -> tuple[np.ndarray, np.ndarray]:
    """Typed-JSON cells of one column -> (values, null mask)."""
    n = len(cells)
    nulls = np.fromiter((c is None for c in cells), dtype=np.bool_, count=n)
    if type_name == "BOOLEAN":
        vals = np.fromiter((bool(c) for c in cells), dtype=np.bool_, count=n)
    elif type_name in _INT_DTYPES:
        vals = np.array([0 if c is None else c for c in cells], dtype=_INT_DTYPES[type_name])
    elif type_name == "FLOAT":
        bits = np.array([0 if c is None else int(c, 16) for c in cells], dtype=np.uint32)
        vals = bits.view(np.float32)
    elif type_name == "DOUBLE":
        bits = np.array([0 if c is None else int(c, 16) for c in cells], dtype=np.uint64)
        vals = bits.view(np.float64)
    elif type_name in ("TEXT", "STRING", "BLOB"):
        vals = np.empty(n, dtype=object)
        for i, c in enumerate(cells):
            vals[i] = typed_json.decode_value(type_name, c)
    else:
        raise ValueError(f"unknown TsFile data type {type_name!r}")
    return vals, nulls


def series_from_json(doc: dict) -> Series:
    values, nulls = {}, {}
    for c, t in zip(doc["columns"], doc["types"], strict=True):
        values[c], nulls[c] = column_array(t, doc["data"][c])
    return Series(
        name=doc["name"],
        columns=list(doc["columns"]),
        types=list(doc["types"]),
        categories=list(doc["categories"]),
        values=values,
        nulls=nulls,
        cells={c: doc["data"][c] for c in doc["columns"]},
    )


def dataset_from_json(doc: dict) -> Dataset:
    if doc.get("format") != typed_json.FORMAT:
        raise ValueError(f"not a {typed_json.FORMAT} document: {doc.get('format')!r}")
    return Dataset(
        tables={s["name"]: series_from_json(s) for s in doc["tables"]},
        devices={s["name"]: series_from_json(s) for s in doc["devices"]},
        meta=doc.get("fixture", {}),
    )


def fixture_path(name: str) -> Path:
    """Path of the committed fixture file NAME.tsfile (NAME with or without the suffix)."""
    return FIXTURE_DIR / (name if name.endswith(".tsfile") else name + ".tsfile")


def expected_path(name: str) -> Path:
    return FIXTURE_DIR / (name.removesuffix(".tsfile") + ".expected.json.gz")


def load_expected_json(name: str) -> dict:
    with gzip.open(expected_path(name), "rt", encoding="utf-8") as f:
        return json.load(f)


def load_expected(name: str) -> Dataset:
    """The ground truth of fixture NAME: what was written, in the official reader's row order.

    `Dataset.meta` holds the fixture's description: model, encodings and compressions per column,
    writer config, and `official_reader_disagreements` (cells where the official 2.5.0 reader
    returns something else than what was written, with the reason).
    """
    return dataset_from_json(load_expected_json(name))


def list_fixtures() -> list[str]:
    """Names (without .tsfile) of all fixtures that have expected data."""
    return sorted(
        p.name.removesuffix(".expected.json.gz") for p in FIXTURE_DIR.glob("*.expected.json.gz")
    )


def assert_series_equal(actual: Series, expected: Series, columns=None) -> None:
    """Bit-exact comparison (NaN payloads, -0.0 included) with a readable first difference."""
    cols = list(expected.columns if columns is None else columns)
    for c in cols:
        if c not in actual.values:
            raise AssertionError(f"{expected.name}: column {c!r} missing (have {actual.columns})")
        assert_column_equal(
            actual.values[c],
            actual.nulls[c],
            expected.values[c],
            expected.nulls[c],
            f"{expected.name}.{c}",
        )


def assert_column_equal(values, nulls, exp_values, exp_nulls, what: str = "column") -> None:
    values, exp_values = np.asarray(values), np.asarray(exp_values)
    nulls = np.zeros(len(values), np.bool_) if nulls is None else np.asarray(nulls, np.bool_)
    exp_nulls = np.asarray(exp_nulls, np.bool_)
    if len(values) != len(exp_values):
        raise AssertionError(f"{what}: {len(values)} rows, expected {len(exp_values)}")
    bad = nulls != exp_nulls
    if bad.any():
        i = int(np.argmax(bad))
        raise AssertionError(f"{what}: row {i} null={nulls[i]}, expected null={exp_nulls[i]}")
    valid = ~exp_nulls
    if exp_values.dtype.kind == "f":
        ints = np.uint32 if exp_values.dtype.itemsize == 4 else np.uint64
        a = np.ascontiguousarray(values, dtype=exp_values.dtype).view(ints)
        e = exp_values.view(ints)
        diff = (a != e) & valid
    elif exp_values.dtype == object:
        diff = np.array(
            [valid[i] and values[i] != exp_values[i] for i in range(len(values))], dtype=np.bool_
        )
    else:
        diff = (np.asarray(values) != exp_values) & valid
    if diff.any():
        i = int(np.argmax(diff))
        raise AssertionError(
            f"{what}: {int(diff.sum())} cells differ; first at row {i}: "
            f"{values[i]!r} != expected {exp_values[i]!r}"
        )


def device_order_key(segments) -> list:
    """Sort key of a DeviceID in index order (format notes 4.2): segment by segment, null before
    any string, strings by UTF-8 bytes, a prefix before its extensions."""
    return [(0, b"") if x is None else (1, str(x).encode("utf-8")) for x in segments]


def official_order(times, *tag_columns) -> np.ndarray:
    """Permutation that puts rows in the official reader's order: devices (the tuple of tag
    values of each row, None = null) in index order, then time. Stable for equal keys.

        idx = official_order(times, tags_a, tags_b); sorted_col = col[idx]
    """
    times = np.asarray(times, dtype=np.int64)
    keys = (
        [device_order_key(tags) for tags in zip(*tag_columns, strict=True)] if tag_columns else []
    )
    if not keys:
        return np.argsort(times, kind="stable")
    order = sorted(range(len(times)), key=lambda i: (keys[i], int(times[i])))
    return np.asarray(order, dtype=np.intp)
