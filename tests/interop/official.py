"""Run the official Apache `tsfile` 2.5.0 reader in its own virtualenv, from the tests.

The official package has the same import name as this project, so it is never imported here: it
runs as a subprocess (`python -I`, so neither PYTHONPATH nor the project tree can shadow it).

    official_python()                 -> path of the venv's python, or None (never installs)
    read_with_official(path)          -> {"tables": {...}, "devices": {...}} of Python values
    read_with_official_arrays(path)   -> expected.Dataset (numpy arrays + null masks)
    official_table(path, table)       -> {column: [values]} for one table (None = null)
    assert_official_table_equals(path, table, columns)  -> checks what the official reader returns
    official_to_dataframe(path, **kw) -> columns, dtypes and values of the official to_dataframe
    skip_unless_official()            -> the python path, or pytest.skip()

Python values: int, float (FLOAT widened exactly), bool, str, bytes, datetime.date, None.
Known official-reader bug, NOT corrected here: BLOB values are truncated at their first 0x00 byte
(format notes 15.10); compare BLOBs with `blob_as_official()` applied to the expected side, or use
BLOB values without 0x00. Other known official-reader errors (FLOAT/DOUBLE SPRINTZ misread, value
chunks missing from a chunk group misaligned) are listed in the fixtures' README.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import tempfile
from pathlib import Path

from . import typed_json
from .expected import Dataset, assert_column_equal, column_array, dataset_from_json

HERE = Path(__file__).resolve().parent
DEFAULT_VENV = "/tmp/tsfile-official-venv"
READY_MARKER = ".tsfile-official-ready"  # written by official_env.py after a successful check


class OfficialUnavailable(RuntimeError):
    pass


class OfficialReadError(RuntimeError):
    pass


def venv_dir() -> Path:
    return Path(os.environ.get("TSFILE_OFFICIAL_VENV") or DEFAULT_VENV)


def official_python() -> str | None:
    """The official venv's python: $TSFILE_OFFICIAL_PYTHON, else the default venv if it was made."""
    p = os.environ.get("TSFILE_OFFICIAL_PYTHON")
    if p:
        return p if os.path.exists(p) else None
    venv = venv_dir()
    py = venv / "bin" / "python"
    if py.exists() and (venv / READY_MARKER).exists():
        return str(py)
    return None


def skip_unless_official() -> str:
    import pytest

    py = official_python()
    if py is None:
        pytest.skip("official tsfile venv not available (run tests/interop/official_env.py)")
    return py


def run_official_script(
    script: str, *args: str, timeout: float = 600
) -> subprocess.CompletedProcess:
    """Run tests/interop/SCRIPT with the official python, isolated from this project."""
    py = official_python()
    if py is None:
        raise OfficialUnavailable(
            "official tsfile venv not available; run tests/interop/official_env.py"
        )
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    with tempfile.TemporaryDirectory(prefix="tsfile-official-") as cwd:
        proc = subprocess.run(
            [py, "-I", str(HERE / script), *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    if proc.returncode != 0:
        raise OfficialReadError(
            f"{script} {' '.join(args)} failed with exit code {proc.returncode}:\n"
            + proc.stderr[-4000:]
        )
    return proc


def read_with_official_json(path) -> dict:
    """The official reader's view of the whole file as a typed-JSON document (typed_json.py)."""
    path = os.path.abspath(os.fspath(path))
    st = os.stat(path)
    return json.loads(_read_cached(path, st.st_mtime_ns, st.st_size))


@functools.lru_cache(maxsize=16)
def _read_cached(path: str, mtime_ns: int, size: int) -> str:
    with tempfile.TemporaryDirectory(prefix="tsfile-official-out-") as d:
        out = os.path.join(d, "out.json")
        run_official_script("official_read.py", path, out)
        with open(out, encoding="utf-8") as f:
            return f.read()


def _python_series(doc: dict) -> dict:
    return {
        "columns": doc["columns"],
        "types": doc["types"],
        "categories": doc["categories"],
        "values": {
            c: [typed_json.decode_value(t, cell) for cell in doc["data"][c]]
            for c, t in zip(doc["columns"], doc["types"], strict=True)
        },
    }


def read_with_official(path) -> dict:
    """{"tables": {table: S}, "devices": {device: S}}, S = {"columns", "types", "categories",
    "values": {column: [Python values]}}; rows in the official reader's order."""
    doc = read_with_official_json(path)
    return {
        "tables": {s["name"]: _python_series(s) for s in doc["tables"]},
        "devices": {s["name"]: _python_series(s) for s in doc["devices"]},
    }


def read_with_official_arrays(path) -> Dataset:
    return dataset_from_json(read_with_official_json(path))


def official_table(path, table: str) -> dict[str, list]:
    """{column: [Python values]} of one table as the official reader returns it ('time' first)."""
    tables = read_with_official(path)["tables"]
    if table.lower() not in tables:
        raise KeyError(f"official reader found no table {table!r} (has {sorted(tables)})")
    return tables[table.lower()]["values"]


def official_device(path, device: str) -> dict[str, list]:
    """{column: [Python values]} of one tree-model device ('time', '<device>.<sensor>', ...)."""
    return read_with_official(path)["devices"][device]["values"]


def official_to_dataframe(path, **kwargs) -> dict:
    """The official `tsfile.to_dataframe(path, **kwargs)` result as a dict: "columns", "dtypes"
    (str), "index" (class name), "num_rows", "data" ({column: cells}, see official_dataframe.py)
    and "error" (None, or "Type: message" when the official function raised)."""
    path = os.path.abspath(os.fspath(path))
    with tempfile.TemporaryDirectory(prefix="tsfile-official-df-") as d:
        out = os.path.join(d, "out.json")
        run_official_script("official_dataframe.py", path, out, json.dumps(kwargs))
        with open(out, encoding="utf-8") as f:
            return json.load(f)


def blob_as_official(value: bytes | None) -> bytes | None:
    """What the official 2.5.0 reader returns for a BLOB value: truncated at the first 0x00."""
    if value is None:
        return None
    i = value.find(b"\x00")
    return value if i < 0 else value[:i]


def assert_official_table_equals(
    path, table: str, columns: dict, nulls: dict | None = None
) -> None:
    """Assert that the official reader returns exactly COLUMNS for TABLE of the file at PATH.

    COLUMNS: {column: values} in the official reader's row order (`expected.official_order`
    sorts rows that way), including "time" and the tag columns. Values are numpy arrays or lists;
    None in a list, or True in NULLS[column], marks a null. Comparison is bit-exact (floats by
    their bits; FLOAT columns compared as float32). BLOB values are truncated at their first 0x00
    before comparing, because the official 2.5.0 reader does that (format notes 15.10).
    Columns of the table that are not in COLUMNS are not checked.
    """
    got = read_with_official_arrays(path).tables
    if table.lower() not in got:
        raise AssertionError(f"official reader found no table {table!r} (has {sorted(got)})")
    s = got[table.lower()]
    for name, vals in columns.items():
        col = name.lower()
        if col not in s.values:
            raise AssertionError(f"official reader returned no column {name!r} (has {s.columns})")
        t = s.type_of(col)
        if isinstance(vals, list) and (nulls is None or name not in nulls):
            cells = [typed_json.encode_value(t, v) for v in vals]
            if t == "BLOB":
                cells = [typed_json.encode_value(t, blob_as_official(v)) for v in vals]
            exp_vals, exp_nulls = column_array(t, cells)
        else:
            import numpy as np

            exp_vals = np.asarray(vals)
            exp_nulls = (
                np.zeros(len(exp_vals), np.bool_)
                if nulls is None or name not in nulls
                else np.asarray(nulls[name], np.bool_)
            )
            if t == "BLOB":
                exp_vals = np.array([blob_as_official(v) for v in exp_vals], dtype=object)
            elif t in ("FLOAT", "DOUBLE"):
                exp_vals = exp_vals.astype(np.float32 if t == "FLOAT" else np.float64)
        assert_column_equal(s.values[col], s.nulls[col], exp_vals, exp_nulls, f"{table}.{name}")
