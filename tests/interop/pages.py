"""Page-level access to the UNCOMPRESSED interop fixtures, for codec tests.

Each page's encoded bytes come with the values they must decode to, taken from the ground truth
(expected.py), so a codec can be tested on pages the official writer produced:

    from interop.pages import value_pages, time_pages, tree_pages
    for pg in value_pages("enc_rle", "e", "v_int64"):
        assert (rle.decode(pg.value_bytes, np.int64) == pg.values).all()

Only fixtures whose chunks are UNCOMPRESSED (ts2diff_uncompressed, gorilla_uncompressed,
gorilla_end_markers, enc_*, extremes, comp_uncompressed) and which have one chunk per series and
device (no repeated flushes) are supported; anything else raises ValueError.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from . import chunk_scan
from .expected import Series, fixture_path, load_expected


@dataclass
class Page:
    device: list  # DeviceID segments
    index: int  # page number within the chunk
    encoding: str
    type_name: str
    row_count: int  # rows covered (aligned value/time pages); points (non-aligned)
    nulls: np.ndarray  # per row, True = null (all False for time and non-aligned pages)
    value_bytes: bytes  # the encoded values (after row count and bitmap / after the time bytes)
    values: np.ndarray  # what value_bytes decode to: the non-null values, in order
    time_bytes: bytes = b""  # non-aligned pages: the TS_2DIFF timestamps
    times: np.ndarray | None = None  # the timestamps of the rows


def _device_rows(series: Series, segments: list) -> np.ndarray:
    """Row indexes of the device with these DeviceID segments in a table series."""
    tags = [c for c, k in zip(series.columns, series.categories, strict=True) if k == "TAG"]
    want = list(segments[1:]) + [None] * (len(tags) - len(segments) + 1)
    mask = np.ones(series.num_rows, dtype=np.bool_)
    for c, w in zip(tags, want, strict=True):
        vals = series.values[c]
        mask &= np.array([v == w if w is not None else v is None for v in vals], dtype=np.bool_)
    return np.flatnonzero(mask)


def _chunks(name: str, pred) -> tuple[bytes, list[dict]]:
    data = fixture_path(name).read_bytes()
    chunks = [c for c in chunk_scan.scan_chunks(data) if pred(c)]
    if not chunks:
        raise ValueError(f"{name}: no such chunk")
    for c in chunks:
        if c["compression"] != "UNCOMPRESSED":
            raise ValueError(f"{name}: chunk at {c['offset']} is {c['compression']}")
    keys = [(tuple(c["device"]), c["measurement"]) for c in chunks]
    if len(set(keys)) != len(keys):
        raise ValueError(f"{name}: several chunks per series and device (flushes)")
    return data, chunks


def value_pages(name: str, table: str, column: str) -> list[Page]:
    """Every page of the value chunks of COLUMN in TABLE (all devices, file order)."""
    series = load_expected(name).tables[table]
    data, chunks = _chunks(
        name,
        lambda c: c["kind"] == "value" and c["device"][0] == table and c["measurement"] == column,
    )
    out = []
    for ch in chunks:
        rows = _device_rows(series, ch["device"])
        pos = 0
        for pg in chunk_scan.iter_pages(data, ch):
            if pg["empty"]:
                raise ValueError(f"{name}: empty page in {column}; row count unknown here")
            flags, value_bytes = chunk_scan.split_value_page(pg["body"])
            n = len(flags)
            present = np.array(flags, dtype=np.bool_)
            r = rows[pos : pos + n]
            if len(r) != n or (series.nulls[column][r] == present).any():
                raise ValueError(f"{name}: page {pg['index']} of {column} does not match the rows")
            out.append(
                Page(
                    ch["device"],
                    pg["index"],
                    ch["encoding"],
                    ch["type"],
                    n,
                    ~present,
                    value_bytes,
                    series.values[column][r][present],
                    times=series.values["time"][r],
                )
            )
            pos += n
        if pos != len(rows):
            raise ValueError(f"{name}: {column} pages cover {pos} of {len(rows)} rows")
    return out


def time_pages(name: str, table: str) -> list[Page]:
    """Every page of the time chunks of TABLE: value_bytes are the encoded timestamps."""
    series = load_expected(name).tables[table]
    data, chunks = _chunks(name, lambda c: c["kind"] == "time" and c["device"][0] == table)
    out = []
    for ch in chunks:
        rows = _device_rows(series, ch["device"])
        # Row counts of time pages are not stored; take them from the device's value pages.
        counts: dict[int, int] = {}
        for c in chunk_scan.scan_chunks(data):
            if c["kind"] == "value" and c["device"] == ch["device"]:
                for pg in chunk_scan.iter_pages(data, c):
                    if not pg["empty"]:
                        counts.setdefault(pg["index"], struct.unpack_from(">i", pg["body"], 0)[0])
        npages = len(list(chunk_scan.iter_pages(data, ch)))
        if npages == 1:
            counts[0] = len(rows)
        pos = 0
        for k, pg in enumerate(chunk_scan.iter_pages(data, ch)):
            n = counts.get(k)
            if n is None:
                raise ValueError(f"{name}: cannot tell the row count of time page {k}")
            r = rows[pos : pos + n]
            out.append(
                Page(
                    ch["device"],
                    k,
                    ch["encoding"],
                    "INT64",
                    n,
                    np.zeros(n, np.bool_),
                    pg["body"],
                    series.values["time"][r],
                    times=series.values["time"][r],
                )
            )
            pos += n
        if pos != len(rows):
            raise ValueError(f"{name}: time pages cover {pos} of {len(rows)} rows")
    return out


def tree_pages(name: str, device: str, measurement: str) -> list[Page]:
    """Pages of a non-aligned (tree-model) series: time_bytes + value_bytes, times and values."""
    series = load_expected(name).devices[device]
    col = f"{device}.{measurement}"
    data, chunks = _chunks(
        name, lambda c: ".".join(c["device"]) == device and c["measurement"] == measurement
    )
    present = ~series.nulls[col]
    times, values = series.values["time"][present], series.values[col][present]
    out, pos = [], 0
    for pg in chunk_scan.iter_pages(data, chunks[0]):
        b = chunk_scan._Buf(pg["body"], 0)
        tlen = b.uvarint()
        tbytes = pg["body"][b.p : b.p + tlen]
        n = chunk_scan.ts2diff_int64_count(tbytes, 0, tlen)
        out.append(
            Page(
                chunks[0]["device"],
                pg["index"],
                chunks[0]["encoding"],
                chunks[0]["type"],
                n,
                np.zeros(n, np.bool_),
                pg["body"][b.p + tlen :],
                values[pos : pos + n],
                time_bytes=tbytes,
                times=times[pos : pos + n],
            )
        )
        pos += n
    if pos != len(times):
        raise ValueError(f"{name}: pages of {col} hold {pos} of {len(times)} points")
    return out
