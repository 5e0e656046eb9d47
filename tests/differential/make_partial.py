"""Write the small 'partial value chunk' files of tests/differential/data/ with the official writer.

    <official python> -I tests/differential/make_partial.py

Table `t` (tag `dev`; INT64 `a`, `v`), one device `d`, pages of 8 points, UNCOMPRESSED, no flush
between tablets, timestamps 0, 1, 2, ... and values a = t, v = 1000 + t:

* partial_middle.tsfile: tablets of 5 rows with {a, v}, {a}, {a, v}. The official writer leaves
  the 5 rows of the second tablet out of v's pages: time pages of 8 and 7 rows, v pages of 8
  and 2 rows (v = 1000..1004, 1010..1014). Nothing in the file says which rows the v values
  belong to; times 5..9 have no v.
* partial_prefix.tsfile: tablets of 5 rows with {a}, then {a, v}: time pages 8 + 2, v pages
  3 + 2 (v = 1005..1009 at times 5..9).

A reader must return the written data (where v is null for the rows of the tablets that lacked
it) or fail cleanly; it must never pair v values with other rows' times.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import tsfile
from tsfile import (
    ColumnCategory,
    ColumnSchema,
    Compressor,
    TableSchema,
    Tablet,
    TSDataType,
    TsFileWriter,
)

OUT = Path(__file__).resolve().parent / "data"
FILES = {"partial_middle": [True, False, True], "partial_prefix": [False, True]}


def write(path: Path, with_v: list[bool]) -> None:
    path.unlink(missing_ok=True)
    w = TsFileWriter(str(path))
    cfg = dict(tsfile.get_tsfile_config())
    cfg.update(
        {
            "page_writer_max_point_num_": 8,
            "default_compression_type_": Compressor.UNCOMPRESSED,
            "time_compress_type_": Compressor.UNCOMPRESSED,
        }
    )
    tsfile.set_tsfile_config(cfg)
    cols = [ColumnSchema("dev", TSDataType.STRING, ColumnCategory.TAG)]
    cols += [ColumnSchema(c, TSDataType.INT64, ColumnCategory.FIELD) for c in ("a", "v")]
    w.register_table(TableSchema("t", cols))
    t0 = 0
    for has_v in with_v:
        names = ["dev", "a"] + (["v"] if has_v else [])
        tab = Tablet(names, [TSDataType.STRING] + [TSDataType.INT64] * (len(names) - 1), 5)
        tab.set_table_name("t")
        for r in range(5):
            tab.add_timestamp(r, t0 + r)
            tab.add_value_by_index(0, r, "d")
            tab.add_value_by_index(1, r, t0 + r)
            if has_v:
                tab.add_value_by_index(2, r, 1000 + t0 + r)
        t0 += 5
        w.write_table(tab)
    w.close()


def main() -> int:
    if "site-packages" not in tsfile.__file__:
        raise SystemExit("run with the official venv's python")
    OUT.mkdir(exist_ok=True)
    for name, with_v in FILES.items():
        write(OUT / f"{name}.tsfile", with_v)
        print(name, os.path.getsize(OUT / f"{name}.tsfile"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
