"""Loading the Java-written fixtures of tests/fixtures/java (see its README): each NAME.tsfile
has NAME.expected.tsv.gz, the values the Java program handed to the writer, one line per
non-null value: device, measurement, timestamp, typed value (``v:`` decimal or true/false,
``f:``/``d:`` the IEEE bits of a FLOAT/DOUBLE as a signed decimal, ``b:`` hex bytes of a
TEXT/STRING/BLOB, ``date:`` ISO date)."""

from __future__ import annotations

import datetime
import gzip
import struct
from collections import defaultdict
from pathlib import Path

JAVA_DIR = Path(__file__).resolve().parent / "fixtures" / "java"


def path(name: str) -> str:
    return str(JAVA_DIR / f"{name}.tsfile")


def _value(text: str):
    kind, _, x = text.partition(":")
    if kind == "f":
        return struct.unpack(">f", struct.pack(">i", int(x)))[0]
    if kind == "d":
        return struct.unpack(">d", struct.pack(">q", int(x)))[0]
    if kind == "b":
        return bytes.fromhex(x)
    if kind == "date":
        return datetime.date.fromisoformat(x)
    if x in ("true", "false"):
        return x == "true"
    return int(x)


def expected(name: str) -> dict:
    """{(device, measurement): {time: value}}"""
    out = defaultdict(dict)
    with gzip.open(JAVA_DIR / f"{name}.expected.tsv.gz", "rt", encoding="utf-8") as f:
        for line in f:
            dev, m, t, v = line.rstrip("\n").split("\t")
            out[(dev, m)][int(t)] = _value(v)
    return dict(out)


def same(got, want, lossy_2dp: bool = False) -> bool:
    """A value read back equals the one written (TEXT/STRING as str, BLOB as bytes; FLOAT and
    DOUBLE TS_2DIFF keep two decimals, rounded as Java's Math.round does)."""
    if isinstance(want, bytes):
        if isinstance(got, str):
            got = got.encode("utf-8")
        return bytes(got) == want
    if isinstance(want, float):
        if lossy_2dp:
            want = float(int((want * 100 + 0.5) // 1)) / 100
            return abs(float(got) - want) <= 1e-6 * max(1.0, abs(want))
        return float(got) == want
    if isinstance(want, bool):
        return bool(got) is want
    if isinstance(want, datetime.date):
        return got == want
    return int(got) == want
