"""A minimal sequential walk over the value pages of the official UNCOMPRESSED fixtures, for codec
tests (independent of the library's reader): chunk offsets come from the fixture's metadata, page
headers are stepped over by interop.chunk_scan (standard library only, format notes 5.1-5.3 and
6), page bodies are parsed here."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from interop.chunk_scan import iter_pages, split_value_page, ts2diff_int64_count
from interop.expected import fixture_path, load_expected

_DTYPES = {
    "INT32": np.int32,
    "DATE": np.int32,
    "INT64": np.int64,
    "TIMESTAMP": np.int64,
    "FLOAT": np.float32,
    "DOUBLE": np.float64,
}


def _uvarint(b: bytes, pos: int) -> tuple[int, int]:
    v = shift = 0
    while True:
        x = b[pos]
        pos += 1
        v |= (x & 0x7F) << shift
        shift += 7
        if not x & 0x80:
            return v, pos


def _chunk_pages(data: bytes, ch: dict) -> list:
    """[(stored page body)] of one chunk, empty pages as b"" (interop.chunk_scan.iter_pages)."""
    return [pg["body"] for pg in iter_pages(data, ch)]


def value_pages(name: str, encoding: str):
    """Yield (device segments, measurement, type name, [(count, value bytes), ...]) for every
    UNCOMPRESSED value chunk of the fixture written with `encoding`."""
    exp = load_expected(name)
    data = Path(fixture_path(name)).read_bytes()
    for ch in exp.meta["chunks"]:
        if ch["kind"] != "value" or ch["encoding"] != encoding:
            continue
        assert ch["compression"] == "UNCOMPRESSED"
        pages = []
        for body in _chunk_pages(data, ch):
            if not body:
                pages.append((0, b""))
                continue
            present, values = split_value_page(body)
            pages.append((sum(present), values))
        yield ch["device"], ch["measurement"], ch["type"], pages


def expected_values(name: str, device: list[str], column: str) -> np.ndarray:
    """The non-null written values of one device's column, in time order."""
    exp = load_expected(name)
    table = device[0]
    s = exp.tables[table]
    rows = np.ones(len(s.values["time"]), dtype=bool)
    tags = [c for c, cat in zip(s.columns, s.categories, strict=True) if cat == "TAG"]
    for tag, seg in zip(tags, device[1:], strict=False):
        rows &= s.values[tag] == seg
    keep = rows & ~s.nulls[column]
    return np.ascontiguousarray(s.values[column][keep])


def check_fixture(
    name: str, encoding: str, decode, paths=("per_value", "batch"), without_count=True
) -> int:
    """Decode every page of the fixture's `encoding` chunks with decode(bytes, dtype, count, path)
    and compare with the written values bit by bit; with `without_count`, count=None must find
    each page's value count by itself. Returns the number of values checked."""
    checked = 0
    for device, meas, tname, pages in value_pages(name, encoding):
        dt = _DTYPES[tname]
        exp = expected_values(name, device, meas)
        for path in paths:
            parts = [decode(body, dt, count, path) for count, body in pages if count]
            if without_count:
                alone = [decode(body, dt, None, path) for count, body in pages if count]
                assert [len(a) for a in alone] == [len(p) for p in parts]
                assert all(a.tobytes() == p.tobytes() for a, p in zip(alone, parts, strict=True))
            got = np.concatenate(parts) if parts else np.empty(0, dtype=dt)
            assert got.dtype == np.dtype(dt)
            assert got.tobytes() == exp.astype(dt).tobytes(), (name, device, meas, path)
        checked += len(exp)
    return checked


def _decompress(body: bytes, comp: str, size: int) -> bytes:
    import gzip

    import cramjam

    if comp == "UNCOMPRESSED":
        return body
    if comp == "SNAPPY":
        return bytes(cramjam.snappy.decompress_raw(body))
    if comp == "LZ4":
        return bytes(cramjam.lz4.decompress_block(body, output_len=size))
    if comp == "GZIP":
        return gzip.decompress(body)
    if comp == "ZSTD":
        return bytes(cramjam.zstd.decompress(body))
    if comp == "LZO":
        import lzokay

        return lzokay.decompress(body, size)
    raise NotImplementedError(comp)


def nonaligned_pages(name: str, encoding: str):
    """Yield (device name, column name, type name, [(count, value bytes), ...]) for every
    non-aligned (tree-model) chunk of the fixture written with `encoding`; pages decompressed,
    the value count taken from the block headers of the page's TS_2DIFF timestamps."""
    exp = load_expected(name)
    data = Path(fixture_path(name)).read_bytes()
    for ch in exp.meta["chunks"]:
        if ch["kind"] != "nonaligned" or ch["encoding"] != encoding:
            continue
        pages = []
        for pg in iter_pages(data, ch):
            assert not pg["empty"]
            body = _decompress(pg["body"], ch["compression"], pg["uncompressed_size"])
            tlen, tpos = _uvarint(body, 0)
            count = ts2diff_int64_count(body, tpos, tpos + tlen)
            pages.append((count, body[tpos + tlen :]))
        dev = ".".join(ch["device"])
        yield dev, f"{dev}.{ch['measurement']}", ch["type"], pages


def check_nonaligned(name: str, encoding: str, decode, paths=("per_value", "batch")) -> int:
    """As check_fixture, for the non-aligned chunks of a tree-model fixture."""
    exp = load_expected(name)
    checked = 0
    for dev, col, tname, pages in nonaligned_pages(name, encoding):
        dt = _DTYPES[tname]
        s = exp.devices[dev]
        want = np.ascontiguousarray(s.values[col][~s.nulls[col]]).astype(dt)
        for path in paths:
            got = np.concatenate([decode(body, dt, count, path) for count, body in pages])
            assert got.tobytes() == want.tobytes(), (name, col, path)
        checked += len(want)
    return checked


def pages_with_values(name: str, encoding: str):
    """Yield (numpy dtype, the page's written values, the page's value bytes) for every non-empty
    page of the fixture's UNCOMPRESSED aligned chunks written with `encoding`."""
    for device, meas, tname, pages in value_pages(name, encoding):
        dt = _DTYPES[tname]
        exp = expected_values(name, device, meas).astype(dt)
        at = 0
        for count, body in pages:
            if count:
                yield np.dtype(dt), exp[at : at + count], body
                at += count
        assert at == len(exp)
