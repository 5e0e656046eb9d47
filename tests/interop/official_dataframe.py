"""Run the official `tsfile.to_dataframe` and dump its result (columns, dtypes, values) as JSON.

Runs ONLY under the official package's virtualenv, as a subprocess:

    <official python> -I tests/interop/official_dataframe.py FILE.tsfile OUT.json [KWARGS_JSON]

KWARGS_JSON: keyword arguments of `to_dataframe` (table_name, column_names, start_time,
end_time, max_row_num). Output: {"columns": [...], "dtypes": [str(dtype)...], "index": str(type),
"num_rows": n, "data": {column: [cells]}, "error": null} or {"error": "Type: message"}.

Cells, by pandas dtype: numeric/boolean extension dtypes -> int / bool / "0x%016x" float64 bits,
null for <NA>; object columns -> tagged values so that the kinds of nulls stay distinct:
["s", str], ["b", base64], ["d", yyyyMMdd], ["i", int], ["f", "0x%016x"], ["bool", b], ["na"]
(pd.NA), ["nat"], null (None).
"""

from __future__ import annotations

import base64
import datetime
import json
import math
import struct
import sys
import warnings


def _bits(x: float) -> str:
    return f"0x{struct.unpack('<Q', struct.pack('<d', x))[0]:016x}"


def _object_cell(v, pd):
    if v is None:
        return None
    if v is pd.NA:
        return ["na"]
    if v is pd.NaT:
        return ["nat"]
    if isinstance(v, bool):
        return ["bool", v]
    if isinstance(v, str):
        return ["s", v]
    if isinstance(v, (bytes, bytearray)):
        return ["b", base64.b64encode(bytes(v)).decode("ascii")]
    if isinstance(v, datetime.date):
        return ["d", v.year * 10000 + v.month * 100 + v.day]
    if isinstance(v, int) or type(v).__name__.startswith("int"):
        return ["i", int(v)]
    if isinstance(v, float) or type(v).__name__.startswith("float"):
        return ["f", _bits(float(v))]
    return ["repr", repr(v)]


def dump(path: str, kwargs: dict) -> dict:
    import pandas as pd

    import tsfile

    if "site-packages" not in (tsfile.__file__ or ""):
        raise RuntimeError(f"imported {tsfile.__file__}, not the official package")
    try:
        with warnings.catch_warnings():  # pandas' cast warnings precede the official errors
            warnings.simplefilter("ignore")
            df = tsfile.to_dataframe(path, **kwargs)
    except Exception as e:  # recorded: the official function fails on some valid files
        return {"error": f"{type(e).__name__}: {e}"}
    data = {}
    for name in df.columns:
        col = df[name]
        if col.dtype == object:
            data[name] = [_object_cell(v, pd) for v in col.tolist()]
            continue
        cells = []
        for v in col.astype(object).tolist():
            if (
                v is None
                or v is pd.NA
                or (isinstance(v, float) and math.isnan(v) and str(col.dtype)[0].isupper())
            ):
                cells.append(None)
            elif isinstance(v, bool) or type(v).__name__ == "bool_":
                cells.append(bool(v))
            elif isinstance(v, float) or type(v).__name__.startswith("float"):
                cells.append(_bits(float(v)))
            else:
                cells.append(int(v))
        data[name] = cells
    return {
        "columns": [str(c) for c in df.columns],
        "dtypes": [str(t) for t in df.dtypes],
        "index": type(df.index).__name__,
        "num_rows": len(df),
        "data": data,
        "error": None,
    }


def main(argv):
    if len(argv) not in (3, 4):
        print("usage: official_dataframe.py FILE OUT.json [KWARGS_JSON]", file=sys.stderr)
        return 2
    kwargs = json.loads(argv[3]) if len(argv) == 4 else {}
    with open(argv[2], "w", encoding="utf-8") as f:
        json.dump(dump(argv[1], kwargs), f, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
