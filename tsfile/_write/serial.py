"""Byte-level building blocks of the TsFile format (format notes section 1): varints, the two
string forms, big-endian fixed-width numbers, DeviceIDs."""

from __future__ import annotations

import struct

_I32 = struct.Struct(">i")
_I64 = struct.Struct(">q")


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


def device_id(segments) -> bytes:
    """StringArrayDeviceID: uvarint segment count + varstr segments (None = null segment)."""
    return uvarint(len(segments)) + b"".join(varstr(s) for s in segments)


def device_sort_key(segments):
    """Device order (format notes 4.2): segment by segment, null before any string, strings by
    UTF-8 byte order, a prefix before its extensions (Python tuple order gives the last rule)."""
    return tuple((0, b"") if s is None else (1, s.encode("utf-8")) for s in segments)


def device_full_name(segments) -> str:
    """Segments joined with '.', a null segment as 'null' (bloom filter entries)."""
    return ".".join("null" if s is None else s for s in segments)
