"""A minimal sequential scan of a TsFile's data area (format notes 13.5): the chunk headers.

Standard library only. Used by make_fixtures.py to record, from the bytes, which encoding,
compression and how many pages every chunk of a fixture really has (the official writer's config
is global and easy to get wrong), and usable by tests for the same facts. Not a reader: values and
the metadata area are not parsed; page headers are stepped over (their statistics included).
"""

from __future__ import annotations

import struct

TYPE_NAMES = {
    0: "BOOLEAN",
    1: "INT32",
    2: "INT64",
    3: "FLOAT",
    4: "DOUBLE",
    5: "TEXT",
    6: "VECTOR",
    8: "TIMESTAMP",
    9: "DATE",
    10: "BLOB",
    11: "STRING",
}
ENCODING_NAMES = {
    0: "PLAIN",
    1: "DICTIONARY",
    2: "RLE",
    3: "DIFF",
    4: "TS_2DIFF",
    5: "BITMAP",
    6: "GORILLA_V1",
    7: "REGULAR",
    8: "GORILLA",
    9: "ZIGZAG",
    10: "FREQ",
    11: "CHIMP",
    12: "SPRINTZ",
    13: "RLBE",
    14: "CAMEL",
    15: "ALP",
}
COMPRESSION_NAMES = {
    0: "UNCOMPRESSED",
    1: "SNAPPY",
    2: "GZIP",
    3: "LZO",
    4: "SDT",
    5: "PAA",
    6: "PLA",
    7: "LZ4",
    8: "ZSTD",
    9: "LZMA2",
}
# Fixed size of the typed part of statistics (format notes 6); TEXT/STRING are variable.
_STAT_FIXED = {
    "BOOLEAN": 10,
    "INT32": 24,
    "DATE": 24,
    "INT64": 40,
    "TIMESTAMP": 40,
    "FLOAT": 24,
    "DOUBLE": 40,
    "BLOB": 0,
    "VECTOR": 0,
}


class _Buf:
    def __init__(self, data: bytes, pos: int):
        self.d, self.p = data, pos

    def u8(self) -> int:
        v = self.d[self.p]
        self.p += 1
        return v

    def uvarint(self) -> int:
        shift = v = 0
        while True:
            b = self.u8()
            v |= (b & 0x7F) << shift
            if b < 0x80:
                return v
            shift += 7

    def svarint(self) -> int:
        u = self.uvarint()
        return (u >> 1) ^ -(u & 1)

    def varstr(self):
        n = self.svarint()
        if n < 0:
            return None
        s = self.d[self.p : self.p + n].decode("utf-8")
        self.p += n
        return s

    def skip(self, n: int) -> None:
        self.p += n

    def binstr_skip(self) -> None:
        (n,) = struct.unpack_from(">i", self.d, self.p)
        self.p += 4 + n


def _skip_statistics(b: _Buf, type_name: str) -> None:
    b.uvarint()
    b.skip(16)
    if type_name in _STAT_FIXED:
        b.skip(_STAT_FIXED[type_name])
    elif type_name == "TEXT":
        b.binstr_skip(), b.binstr_skip()
    elif type_name == "STRING":
        for _ in range(4):
            b.binstr_skip()
    else:
        raise ValueError(f"statistics of unknown type {type_name}")


def scan_chunks(data: bytes) -> list[dict]:
    """[{offset, device (segments), measurement, kind, type, encoding, compression, pages,
    empty_pages, data_size}] for every chunk in file order."""
    if data[:7] != b"TsFile\x04":
        raise ValueError("not a TsFile v4")
    b = _Buf(data, 7)
    device = None
    out = []
    while True:
        off = b.p
        m = b.u8()
        if m == 0x02:
            return out
        if m == 0x00:
            device = [b.varstr() for _ in range(b.uvarint())]
            continue
        if m == 0x04:
            b.skip(16)
            continue
        if m & 0x3F not in (0x01, 0x05):
            raise ValueError(f"unknown marker 0x{m:02x} at offset {off}")
        meas = b.varstr()
        size = b.uvarint()
        tname = TYPE_NAMES[b.u8()]
        comp = COMPRESSION_NAMES[b.u8()]
        enc = ENCODING_NAMES[b.u8()]
        end = b.p + size
        pages = empty = 0
        while b.p < end:
            pages += 1
            usize = b.uvarint()
            if usize == 0:
                empty += 1
                continue
            csize = b.uvarint()
            if m & 0x3F == 0x01:
                _skip_statistics(b, tname)
            b.skip(csize)
        if b.p != end:
            raise ValueError(f"chunk at {off}: pages overrun data_size")
        kind = {0x80: "time", 0x40: "value", 0x00: "nonaligned"}[m & 0xC0]
        out.append(
            {
                "offset": off,
                "device": device,
                "measurement": meas,
                "kind": kind,
                "type": tname,
                "encoding": enc,
                "compression": comp,
                "pages": pages,
                "empty_pages": empty,
                "data_size": size,
            }
        )


def iter_pages(data: bytes, chunk: dict):
    """The pages of one chunk (a scan_chunks record): dicts with "index", "empty",
    "uncompressed_size", "compressed_size" and "body" (the stored, possibly compressed, bytes)."""
    b = _Buf(data, chunk["offset"])
    marker = b.u8()
    b.varstr()
    size = b.uvarint()
    b.skip(3)
    end = b.p + size
    index = 0
    while b.p < end:
        usize = b.uvarint()
        if usize == 0:
            yield {
                "index": index,
                "empty": True,
                "uncompressed_size": 0,
                "compressed_size": 0,
                "body": b"",
            }
        else:
            csize = b.uvarint()
            if marker & 0x3F == 0x01:
                _skip_statistics(b, chunk["type"])
            yield {
                "index": index,
                "empty": False,
                "uncompressed_size": usize,
                "compressed_size": csize,
                "body": data[b.p : b.p + csize],
            }
            b.skip(csize)
        index += 1
    if b.p != end:
        raise ValueError(f"chunk at {chunk['offset']}: pages overrun data_size")


def ts2diff_int64_count(data: bytes, pos: int, end: int) -> int:
    """Number of INT64 TS_2DIFF values (a non-aligned page's timestamps) in data[pos:end], from
    the block headers only (format notes 8.3): count, width, two INT64, the packed deltas."""
    count = 0
    while pos < end:
        n, width = struct.unpack_from(">ii", data, pos)
        pos += 24 + (n * width + 7) // 8
        count += n + 1
    if pos != end:
        raise ValueError("TS_2DIFF blocks overrun their length")
    return count


def split_value_page(body: bytes) -> tuple[list[bool], bytes]:
    """An aligned value page body (format notes 6): INT32 row count, the null bitmap (MSB first,
    1 = present), the encoded values. Returns (presence per row, the value bytes)."""
    (rows,) = struct.unpack_from(">i", body, 0)
    if rows < 0:
        raise ValueError(f"negative row count {rows}")
    nb = (rows + 7) // 8
    bitmap = body[4 : 4 + nb]
    if len(bitmap) != nb:
        raise ValueError("bitmap cut short")
    present = [bool(bitmap[r >> 3] & (0x80 >> (r & 7))) for r in range(rows)]
    return present, body[4 + nb :]
