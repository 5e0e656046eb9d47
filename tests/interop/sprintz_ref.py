"""An independent SPRINTZ page decoder, written from format notes 8.9 (standard library only).

The official 2.5.0 reader returns wrong values for SPRINTZ pages (FLOAT/DOUBLE always, INT32/INT64
with large deltas), so it cannot confirm the ground truth of `enc_sprintz`. make_fixtures.py decodes
that fixture's pages with this module instead and requires the written values back. Deliberately
simple (bit by bit); not used by the library.

Values are returned as W-bit two's-complement integers (FLOAT/DOUBLE: their IEEE bit patterns).
"""

from __future__ import annotations

try:  # as tests/interop/… package module (tests) or top-level (make_fixtures.py in the venv)
    from .chunk_scan import _Buf, iter_pages, split_value_page, ts2diff_int64_count
except ImportError:
    from chunk_scan import _Buf, iter_pages, split_value_page, ts2diff_int64_count


def _wrap(x: int, w: int) -> int:
    x &= (1 << w) - 1
    return x - (1 << w) if x >> (w - 1) else x


class _Bits:
    def __init__(self, data: bytes, pos: int):
        self.d, self.bp = data, pos * 8

    def read(self, n: int) -> int:
        v = 0
        for _ in range(n):
            v = (v << 1) | ((self.d[self.bp >> 3] >> (7 - (self.bp & 7))) & 1)
            self.bp += 1
        return v


def _msb_values(data: bytes, pos: int, width: int, count: int) -> list[int]:
    b = _Bits(data, pos)
    return [b.read(width) for _ in range(count)]


def _rle_block(b: _Buf, w: int) -> list[int]:
    """One TsFile RLE block (format notes 8.5): INT32 run values little-endian, INT64 big-endian."""
    length = b.uvarint()
    end = b.p + length
    width = b.u8()
    out = []
    while b.p < end:
        h = b.uvarint()
        if h & 1:
            groups, last = h >> 1, b.u8()
            vals = _msb_values(b.d, b.p, width, groups * 8)[: (groups - 1) * 8 + last]
            b.skip(groups * width)
            out += [_wrap(v, w) for v in vals]
        else:
            nb = (width + 7) // 8
            v = int.from_bytes(b.d[b.p : b.p + nb], "little" if w == 32 else "big")
            b.skip(nb)
            out += [_wrap(v, w)] * (h >> 1)
    return out


def _gorilla(data: bytes, pos: int, n: int, w: int) -> list[int]:
    """The first N values of a GORILLA stream (format notes 8.4)."""
    lw = 5 if w == 32 else 6
    b = _Bits(data, pos)
    prev = b.read(w)
    out, lead, trail = [prev], None, 0
    while len(out) < n:
        if b.read(1) == 0:
            out.append(prev)
            continue
        if b.read(1) == 0:
            x = b.read(w - lead - trail) << trail
        else:
            lead = b.read(lw)
            sig = b.read(lw) + 1
            trail = w - lead - sig
            x = b.read(sig) << trail
        prev ^= x
        out.append(prev)
    return [_wrap(v, w) for v in out]


def decode_values(b: _Buf, count: int, type_name: str) -> list[int]:
    """COUNT values of a SPRINTZ value stream starting at b.p."""
    w = 32 if type_name in ("INT32", "FLOAT") else 64
    shift, bw = (2, 8) if w == 32 else (3, 16)
    out: list[int] = []
    while len(out) < count:
        h = b.u8()
        if h & 0x80:  # tail: up to 8 raw values, RLE (ints) or GORILLA (floats)
            n = h & 0x7F
            if type_name in ("INT32", "INT64"):
                out += _rle_block(b, w)[:n]
            else:
                out += _gorilla(b.d, b.p, n, w)
                break
            continue
        if type_name == "INT32":
            first = _wrap(b.uvarint(), 32)
        else:
            nb = w // 8
            first = _wrap(int.from_bytes(b.d[b.p : b.p + nb], "big"), w)
            b.skip(nb)
        residuals = _msb_values(b.d, b.p, h, 8)
        b.skip(h)
        acc = delta = 0
        prev = first
        out.append(first)
        for r in residuals:
            prod = _wrap((acc >> shift) * delta, 32) if w == 32 else (acc >> shift) * delta
            pred = _wrap(prev + (prod >> bw), w)
            e = -(r // 2) if r % 2 == 0 else (r + 1) // 2
            v = _wrap(pred + e, w)
            acc = _wrap(acc - (-delta if e > 0 else delta), 32)
            delta = _wrap(v - prev, w)
            out.append(v)
            prev = v
    return out[:count]


def decode_value_chunk(data: bytes, chunk: dict) -> list:
    """All rows of an UNCOMPRESSED aligned SPRINTZ value chunk (chunk_scan record): bit patterns,
    None for nulls."""
    if chunk["compression"] != "UNCOMPRESSED" or chunk["kind"] != "value":
        raise ValueError("only uncompressed value chunks")
    rows: list = []
    for page in iter_pages(data, chunk):
        if page["empty"]:
            raise ValueError("empty pages are not handled here")
        present, value_bytes = split_value_page(page["body"])
        vals = iter(decode_values(_Buf(value_bytes, 0), sum(present), chunk["type"]))
        rows += [next(vals) if p else None for p in present]
    return rows


def decode_nonaligned_chunk(data: bytes, chunk: dict) -> list[int]:
    """All values of an UNCOMPRESSED non-aligned (tree-model) SPRINTZ chunk, in time order."""
    if chunk["compression"] != "UNCOMPRESSED" or chunk["kind"] != "nonaligned":
        raise ValueError("only uncompressed non-aligned chunks")
    out: list[int] = []
    for page in iter_pages(data, chunk):
        b = _Buf(page["body"], 0)
        tlen = b.uvarint()
        count = ts2diff_int64_count(page["body"], b.p, b.p + tlen)
        b.skip(tlen)
        out += decode_values(b, count, chunk["type"])
    return out
