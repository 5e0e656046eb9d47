"""The format constants of TsFile v4 (format notes 3, 5, 9, 10) for the reader and the writer: the
magic and version, the marker bytes of the data area and the index node types.

The codes themselves (data types, encodings, compressions, column categories) are the enums of
tsfile.types. Cython modules cimport the same values from tsfile/_format/codes.pxd;
tests/test_format_layer.py checks that both declarations agree.
"""

from __future__ import annotations

from enum import IntEnum

MAGIC = b"TsFile"
VERSION = 4
HEADER = MAGIC + bytes((VERSION,))  # the first bytes of every file
HEADER_SIZE = len(HEADER)
TAIL_SIZE = 4 + len(MAGIC)  # i32 size of the TsFileMetadata, then the magic again
# Before format version 3 the magic was followed by a 6-character version string, not a byte:
# the bytes a reader looks at to name an old file's version
OLD_HEADER_SIZE = len(MAGIC) + 6


class Marker(IntEnum):
    """The byte before each structure of the data area (format notes 5)."""

    CHUNK_GROUP_HEADER = 0
    CHUNK_HEADER = 1
    SEPARATOR = 2  # ends the data area; the metadata area follows
    OPERATION_INDEX_RANGE = 4
    ONLY_ONE_PAGE_CHUNK_HEADER = 5


# ORed into a chunk header marker: the time chunk / a value chunk of an aligned device.
TIME_COLUMN_MASK = 0x80
VALUE_COLUMN_MASK = 0x40


class IndexNodeType(IntEnum):
    """The last byte of a MetadataIndexNode (format notes 9.4)."""

    INTERNAL_DEVICE = 0
    LEAF_DEVICE = 1
    INTERNAL_MEASUREMENT = 2
    LEAF_MEASUREMENT = 3


__all__ = [
    "MAGIC",
    "VERSION",
    "HEADER",
    "HEADER_SIZE",
    "TAIL_SIZE",
    "OLD_HEADER_SIZE",
    "Marker",
    "TIME_COLUMN_MASK",
    "VALUE_COLUMN_MASK",
    "IndexNodeType",
]
