"""Typed column values <-> JSON, shared by the official-venv scripts and the test-side loaders.

Standard library only: this module is imported both inside the official package's virtualenv
(official_read.py, make_fixtures.py) and by the tests. Encoding of one cell by TsFile data type:

    BOOLEAN                  true / false
    INT32, INT64, TIMESTAMP  JSON integer
    DATE                     JSON integer yyyyMMdd (the stored form)
    FLOAT                    "0x" + 8 hex digits of the IEEE-754 binary32 bits
    DOUBLE                   "0x" + 16 hex digits of the IEEE-754 binary64 bits
    TEXT, STRING             JSON string
    BLOB                     base64 (standard alphabet, padded)
    null                     null

Floats are stored as bit patterns so that NaN payloads, -0.0, infinities and subnormals survive
exactly; JSON numbers cannot carry them.
"""

from __future__ import annotations

import base64
import datetime
import math
import struct

FORMAT = "tsfile-interop-typed-json/1"

TYPE_NAMES = (
    "BOOLEAN",
    "INT32",
    "INT64",
    "FLOAT",
    "DOUBLE",
    "TEXT",
    "TIMESTAMP",
    "DATE",
    "BLOB",
    "STRING",
)


def encode_value(type_name: str, value):
    """One Python value (as the official reader returns it) -> its JSON form."""
    if value is None:
        return None
    if type_name == "BOOLEAN":
        return bool(value)
    if type_name in ("INT32", "INT64", "TIMESTAMP"):
        return int(value)
    if type_name == "DATE":
        if isinstance(value, datetime.date):
            return value.year * 10000 + value.month * 100 + value.day
        return int(value)
    if type_name == "FLOAT":
        # The official reader widens float32 to a Python float; narrowing back is exact.
        return "0x{:08x}".format(struct.unpack("<I", struct.pack("<f", value))[0])
    if type_name == "DOUBLE":
        return "0x{:016x}".format(struct.unpack("<Q", struct.pack("<d", value))[0])
    if type_name in ("TEXT", "STRING"):
        if isinstance(value, bytes):
            value = value.decode("utf-8")
        return str(value)
    if type_name == "BLOB":
        return base64.b64encode(bytes(value)).decode("ascii")
    raise ValueError(f"unknown TsFile data type {type_name!r}")


def decode_value(type_name: str, cell):
    """JSON form -> Python value: int, float, bool, str, bytes, datetime.date or None."""
    if cell is None:
        return None
    if type_name == "BOOLEAN":
        return bool(cell)
    if type_name in ("INT32", "INT64", "TIMESTAMP"):
        return int(cell)
    if type_name == "DATE":
        return datetime.date(cell // 10000, cell // 100 % 100, cell % 100)
    if type_name == "FLOAT":
        return struct.unpack("<f", struct.pack("<I", int(cell, 16)))[0]
    if type_name == "DOUBLE":
        return struct.unpack("<d", struct.pack("<Q", int(cell, 16)))[0]
    if type_name in ("TEXT", "STRING"):
        return cell
    if type_name == "BLOB":
        return base64.b64decode(cell)
    raise ValueError(f"unknown TsFile data type {type_name!r}")


def float32_bits(value: float) -> int:
    return struct.unpack("<I", struct.pack("<f", value))[0]


def float32_from_bits(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def float64_from_bits(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def same_cell(a, b) -> bool:
    """Equality of two JSON-encoded cells (bit patterns compare as strings, so NaN == NaN)."""
    return a == b and type(a) is type(b)


def is_float_nan(type_name: str, cell) -> bool:
    if cell is None or type_name not in ("FLOAT", "DOUBLE"):
        return False
    return math.isnan(decode_value(type_name, cell))
