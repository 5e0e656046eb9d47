"""Byte-level building blocks of the TsFile format (format notes section 1), in both directions:
the encoders the writer uses (varints, the two string forms, big-endian fixed-width numbers) and a
bounds-checked cursor the reader parses with.

Every read of the cursor checks the bytes left in the region before touching them and raises
CorruptDataError naming the absolute file offset and what was being read.

Text policy (the same for every name and value the reader decodes, see tsfile.reader): the format
stores names and TEXT/STRING values as UTF-8, and bytes that are not valid UTF-8 are corruption.
They raise CorruptDataError naming the file offset of the first bad byte; nothing is replaced or
kept as surrogates, so a str the reader returns is always the text that was written.
"""

from __future__ import annotations

import struct

from tsfile.errors import CorruptDataError

_I32 = struct.Struct(">i")
_I64 = struct.Struct(">q")
_F32 = struct.Struct(">f")
_F64 = struct.Struct(">d")


# ------------------------------------------------------------------------------------------------
# encoding (the writer)


def uvarint(value: int) -> bytes:
    """Unsigned LEB128 of a 32-bit value (Java writeUnsignedVarInt); writers never need more."""
    if value < 0 or value > 0xFFFFFFFF:
        raise ValueError(f"uvarint out of the 32-bit range: {value}")
    if value < 0x80:
        return bytes((value,))
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def svarint(value: int) -> bytes:
    """Zigzag varint of a 32-bit signed value (Java writeVarInt)."""
    if value < -(1 << 31) or value >= (1 << 31):
        raise ValueError(f"svarint out of the 32-bit range: {value}")
    return uvarint(((value << 1) ^ (value >> 31)) & 0xFFFFFFFF)


def varstr(value: bytes | str | None) -> bytes:
    """svarint length + bytes; None is the null string (length -1)."""
    if value is None:
        return b"\x01"
    if isinstance(value, str):
        value = value.encode("utf-8")
    return svarint(len(value)) + value


def binstr(value: bytes | str) -> bytes:
    """i32 big-endian length + bytes (statistics and table schemas)."""
    if isinstance(value, str):
        value = value.encode("utf-8")
    return _I32.pack(len(value)) + value


def i32(value: int) -> bytes:
    return _I32.pack(value)


def i64(value: int) -> bytes:
    return _I64.pack(value)


# ------------------------------------------------------------------------------------------------
# decoding (the reader)


class Cursor:
    """Reads big-endian numbers, varints and strings from ``buf[pos:end]``.

    ``buf`` is any object supporting slicing to bytes and ``struct.unpack_from`` (bytes, mmap,
    memoryview); offsets are absolute file offsets.
    """

    __slots__ = ("buf", "pos", "end", "path")

    def __init__(self, buf, pos: int, end: int, path: str = "<buffer>"):
        self.buf = buf
        self.pos = pos
        self.end = end
        self.path = path

    def error(self, what: str, at: int | None = None) -> CorruptDataError:
        where = self.pos if at is None else at
        return CorruptDataError(f"{self.path}: {what} at file offset {where}")

    def need(self, n: int, what: str) -> None:
        if n < 0 or self.pos + n > self.end:
            raise self.error(f"truncated {what}: need {n} bytes, {self.end - self.pos} left")

    def remaining(self) -> int:
        return self.end - self.pos

    def u8(self, what: str = "byte") -> int:
        self.need(1, what)
        v = self.buf[self.pos]
        self.pos += 1
        return v

    def i32(self, what: str = "int32") -> int:
        self.need(4, what)
        v = _I32.unpack_from(self.buf, self.pos)[0]
        self.pos += 4
        return v

    def i64(self, what: str = "int64") -> int:
        self.need(8, what)
        v = _I64.unpack_from(self.buf, self.pos)[0]
        self.pos += 8
        return v

    def f32(self, what: str = "float") -> float:
        self.need(4, what)
        v = _F32.unpack_from(self.buf, self.pos)[0]
        self.pos += 4
        return v

    def f64(self, what: str = "double") -> float:
        self.need(8, what)
        v = _F64.unpack_from(self.buf, self.pos)[0]
        self.pos += 8
        return v

    def raw(self, n: int, what: str = "bytes") -> bytes:
        self.need(n, what)
        v = bytes(self.buf[self.pos : self.pos + n])
        self.pos += n
        return v

    def skip(self, n: int, what: str = "bytes") -> None:
        self.need(n, what)
        self.pos += n

    def uvarint(self, what: str = "uvarint") -> int:
        """Java writeUnsignedVarInt: at most 5 bytes, accumulated in 32 bits (unsigned)."""
        start = self.pos
        value = 0
        shift = 0
        while True:
            if self.pos >= self.end:
                raise self.error(f"truncated {what}", start)
            b = self.buf[self.pos]
            self.pos += 1
            value |= (b & 0x7F) << shift
            if not b & 0x80:
                break
            shift += 7
            if shift > 28:
                raise self.error(f"{what} longer than 5 bytes", start)
        if value > 0xFFFFFFFF:
            raise self.error(f"{what} overflows 32 bits", start)
        return value

    def svarint(self, what: str = "svarint") -> int:
        u = self.uvarint(what)
        return (u >> 1) ^ -(u & 1)

    def varstr_bytes(self, what: str = "string") -> bytes | None:
        """svarint length + bytes; length -1 is null."""
        start = self.pos
        n = self.svarint(f"{what} length")
        if n == -1:
            return None
        if n < 0:
            raise self.error(f"negative {what} length {n}", start)
        return self.raw(n, what)

    def varstr(self, what: str = "string") -> str | None:
        b = self.varstr_bytes(what)
        if b is None:
            return None
        return self.text(b, self.pos - len(b), what)

    def binstr_bytes(self, what: str = "string") -> bytes:
        """i32 length + bytes (statistics and table schemas)."""
        start = self.pos
        n = self.i32(f"{what} length")
        if n < 0:
            raise self.error(f"negative {what} length {n}", start)
        return self.raw(n, what)

    def binstr(self, what: str = "string") -> str:
        b = self.binstr_bytes(what)
        return self.text(b, self.pos - len(b), what)

    def text(self, b: bytes, at: int, what: str) -> str:
        """``b``, stored at file offset ``at``, as text: invalid UTF-8 is corruption (the text
        policy above), named at its first bad byte."""
        try:
            return b.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise self.error(f"invalid UTF-8 in {what} ({exc.reason})", at + exc.start) from None
