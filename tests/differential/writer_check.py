"""Our writer -> the official reader (and ours): compare with the ground truth of writer_gen.

`check_official(path, doc) -> [(check, message)]` reads the file with the official 2.5.0 reader
(tests/interop/official.py, a subprocess in its venv) and compares every cell with the truth,
bit-exactly, allowing only the official reader's known bugs: BLOB values cut at the first 0x00
(format notes 15.10) and SPRINTZ INT32/INT64 pages with large deltas (README of the fixtures).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from interop.expected import assert_column_equal, dataset_from_json  # noqa: E402
from interop.official import OfficialReadError, blob_as_official, read_with_official_json  # noqa: E402


def check_official(path, doc: dict) -> list:
    truth = dataset_from_json(doc)
    try:
        got = dataset_from_json(read_with_official_json(path))
    except OfficialReadError as e:
        return [("official reader", str(e)[-1500:])]
    fails = []
    sprintz = {c for c, (_t, enc, _c) in doc["fixture"]["columns"].items() if enc == "SPRINTZ"}
    for name, s in truth.tables.items():
        o = got.tables.get(name)
        if o is None:
            fails.append((name, f"official reader has no table {name!r}: {list(got.tables)}"))
            continue
        if o.columns != s.columns:
            fails.append((name, f"official columns {o.columns} != {s.columns}"))
            continue
        for c, t in zip(s.columns, s.types, strict=True):
            if c in sprintz:
                continue
            ev, en = s.values[c], s.nulls[c]
            if t == "BLOB":
                ev = np.array([blob_as_official(v) for v in ev], dtype=object)
            try:
                assert_column_equal(o.values[c], o.nulls[c], ev, en, f"official {name}.{c}")
            except AssertionError as e:
                fails.append((f"{name}.{c} ({t})", str(e)))
    return fails
