"""The metadata area (format notes sections 3, 5.1, 9, 10): tail, TsFileMetadata, table schemas,
index nodes, TimeseriesMetadata, ChunkMetadata, chunk headers, bloom filter.

Everything is parsed lazily from the file buffer with bounds-checked cursors; offsets read from the
file are validated against the region they must point into before they are followed, and index
walks are bounded so that a cyclic or hostile index cannot loop.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass, field

from tsfile._format.bytes import Cursor
from tsfile._format.constants import (
    HEADER_SIZE,
    MAGIC,
    OLD_HEADER_SIZE,
    TAIL_SIZE,
    VERSION,
    IndexNodeType,
)
from tsfile._format.device import DeviceID, java_sort_key, read_device_id
from tsfile._format.statistics import VECTOR, Statistics, check_data_type, read_statistics
from tsfile.errors import CorruptDataError, UnsupportedError
from tsfile.schema import ColumnSchema, TableSchema
from tsfile.types import ColumnCategory, Compressor, TSDataType, TSEncoding

# code -> enum member: a dict lookup, where calling the enum (TSEncoding(code)) costs about a
# microsecond, four times per column of every file opened
_ENCODINGS = {int(e): e for e in TSEncoding}
_COMPRESSORS = {int(c): c for c in Compressor}
_CATEGORIES = {int(c): c for c in ColumnCategory}
# Data types a table column can have: VECTOR (6) is only the type of an aligned device's time
# series, never a column's, and UNKNOWN (7) is never written.
_COLUMN_TYPES = {int(t): t for t in TSDataType if t not in (TSDataType.VECTOR, TSDataType.UNKNOWN)}

# An index deeper than this cannot come from a real writer (degree >= 2 and < 2^40 series).
MAX_INDEX_DEPTH = 40


# ------------------------------------------------------------------------------------------------
# index nodes


@dataclass(slots=True)
class IndexEntry:
    key: object  # DeviceID (device-level nodes) or str (measurement-level nodes)
    offset: int
    at: int = 0  # file offset of the entry (for messages)


class KeyOrder:
    """Checks that keys (names, or DeviceIDs) strictly increase in ONE writer's order: by UTF-8
    bytes (C++, std::string; Python's code point order) or by UTF-16 units (Java,
    String.compareTo). The two differ only between supplementary characters and U+E000..U+FFFF.
    Each pair rules out the orders it does not increase in; a sequence in either order passes,
    and an equal key never does. Allowing either order per pair would let a mix through
    ([X, Y, X] with X a supplementary character and Y in U+E000..U+FFFF names X twice)."""

    __slots__ = ("cpp", "java")

    def __init__(self):
        self.cpp = self.java = True

    def increases(self, a, b) -> bool:
        """False if b does not follow a in an order every earlier pair followed."""
        less = a < b
        self.cpp = self.cpp and less
        if self.java:
            if _ascii(a) and _ascii(b):
                # ASCII text sorts the same by UTF-8 bytes and by UTF-16 units: no second key
                self.java = less
            elif isinstance(a, DeviceID):
                self.java = java_sort_key(a.segments) < java_sort_key(b.segments)
            else:
                self.java = a.encode("utf-16-be") < b.encode("utf-16-be")
        return self.cpp or self.java


def first_unordered(keys: list) -> int | None:
    """The index of the first of ``keys`` that does not follow the one before it in the order
    all the pairs before it followed (KeyOrder), or None when they strictly increase."""
    if _all_ascii_str(keys):
        # ASCII names: both writers' orders are str order (the common case: checked by C loops,
        # the index of the first pair out of order looked for only when there is one)
        if all(map(operator.lt, keys, keys[1:])):
            return None
        return next(i for i in range(1, len(keys)) if not keys[i - 1] < keys[i])
    order = KeyOrder()
    return next((i for i in range(1, len(keys)) if not order.increases(keys[i - 1], keys[i])), None)


def _all_ascii_str(keys: list) -> bool:
    """Whether every key is an ASCII str (joined in C: str.isascii() is O(1), and the join of
    ASCII strs is ASCII; a key of another type makes the join fail)."""
    try:
        return "".join(keys).isascii()
    except TypeError:
        return False


def _ascii(key) -> bool:
    """Whether a name or every segment of a DeviceID is ASCII (str.isascii() is O(1))."""
    if isinstance(key, DeviceID):
        return all(s is None or s.isascii() for s in key.segments)
    return key.isascii()


@dataclass(slots=True)
class IndexNode:
    node_type: int
    entries: list
    end_offset: int
    at: int  # file offset of the node (for messages)

    def child_range(self, i: int) -> tuple[int, int]:
        start = self.entries[i].offset
        end = self.entries[i + 1].offset if i + 1 < len(self.entries) else self.end_offset
        return start, end


def read_index_node(cur: Cursor, device_level: bool | None = None) -> IndexNode:
    """Parse a MetadataIndexNode. ``device_level`` says which key form the entries use; None
    accepts either (the node type byte comes last, so the caller must know)."""
    at = cur.pos
    n = cur.uvarint("index node child count")
    # each entry takes at least 1 + 8 bytes
    if n * 9 > cur.remaining():
        raise cur.error(f"index node child count {n} exceeds the bytes present", at)
    entries = []
    for _ in range(n):
        entry_at = cur.pos
        key = read_device_id(cur) if device_level else cur.varstr("index entry name")
        if key is None:
            raise cur.error("null index entry name", entry_at)
        entries.append(IndexEntry(key, cur.i64("index entry offset"), entry_at))
    end_offset = cur.i64("index node end offset")
    node_type = cur.u8("index node type")
    if node_type > IndexNodeType.LEAF_MEASUREMENT:
        raise cur.error(f"unknown index node type {node_type}", cur.pos - 1)
    if device_level is not None and (node_type <= IndexNodeType.LEAF_DEVICE) != device_level:
        raise cur.error(
            f"index node type {node_type} where a {'device' if device_level else 'measurement'}"
            " level node was expected",
            cur.pos - 1,
        )
    _check_keys_increase(cur, entries, node_type <= IndexNodeType.LEAF_DEVICE)
    return IndexNode(node_type, entries, end_offset, at)


def _check_keys_increase(cur: Cursor, entries: list, device_level: bool) -> None:
    """The entries of a node are sorted and distinct (format notes 9.4); a reader that searches
    the index (13.2) would miss every key after a duplicate or misplaced one, so either is
    corruption, named at the entry."""
    i = first_unordered([e.key for e in entries])
    if i is not None:
        prev, e = entries[i - 1], entries[i]
        what = "duplicate" if prev.key == e.key else "out of order"
        raise cur.error(f"index entry {key_text(e.key)} {what} (after {key_text(prev.key)})", e.at)


def key_text(key) -> str:
    return repr(key.path) if isinstance(key, DeviceID) else repr(key)


# ------------------------------------------------------------------------------------------------
# series metadata


@dataclass(slots=True)
class ChunkMeta:
    offset: int  # offset of the chunk's marker byte
    statistics: Statistics


@dataclass(slots=True)
class TimeseriesMeta:
    measurement: str
    data_type: int
    statistics: Statistics
    chunks: list = field(default_factory=list)
    at: int = 0


def read_timeseries_metadata(cur: Cursor) -> TimeseriesMeta:
    at = cur.pos
    ts_type = cur.u8("timeseries metadata type")
    name = cur.varstr("measurement id")
    if name is None:
        raise cur.error("null measurement id", at + 1)
    dt_at = cur.pos
    data_type = check_data_type(cur, cur.u8("data type"), dt_at)
    cm_bytes = cur.uvarint("chunk metadata size")
    stats = read_statistics(cur, data_type)
    cur.need(cm_bytes, "chunk metadata list")
    sub = Cursor(cur.buf, cur.pos, cur.pos + cm_bytes, cur.path)
    cur.pos += cm_bytes
    chunks = []
    multi = (ts_type & 0x3F) != 0
    while sub.remaining() > 0:
        off = sub.i64("chunk offset")
        chunks.append(ChunkMeta(off, read_statistics(sub, data_type) if multi else stats))
        if not multi:
            break
    if sub.remaining() != 0:
        raise sub.error(f"{sub.remaining()} unexpected bytes in chunk metadata list")
    if not chunks:
        raise cur.error(f"series {name!r} has no chunk", at)
    return TimeseriesMeta(name, data_type, stats, chunks, at)


def read_series_range(buf, start: int, end: int, path: str) -> list:
    """Every TimeseriesMeta record of ``buf[start:end]`` (a leaf range of a measurement index),
    in order. The reference the compiled parser (tsfile._format.cparse.read_series_range, and
    read_leaf_series, which the reader uses) is tested against, record for record and error for
    error."""
    cur = Cursor(buf, start, end, path)
    out = []
    while cur.remaining() > 0:
        out.append(read_timeseries_metadata(cur))
    return out


# ------------------------------------------------------------------------------------------------
# table schema, bloom filter, TsFileMetadata


def read_table_schema(cur: Cursor, table_name: str) -> TableSchema:
    """The table schema at the cursor (moved past it). Read by C loads first
    (cparse.table_schema_columns, then _schema_of); anything that path does not take (a bad
    length, code or name) is read again below, which raises the error naming it."""
    from tsfile._format.cparse import table_schema_columns

    raw = table_schema_columns(cur.buf, cur.pos, cur.end)
    schema = None if raw is None else _schema_of(table_name, raw[0])
    if schema is not None:
        cur.pos = raw[1]
        return schema
    return _read_table_schema(cur, table_name)


def _schema_of(table_name: str, raw: list) -> TableSchema | None:
    """The TableSchema of columns [(name, data type, encoding, compression, category)] as
    _read_table_schema makes it, or None where it would raise."""
    columns = []
    try:
        for name, data_type, encoding, compression, category in raw:
            cat = _CATEGORIES.get(category)
            dtype = _COLUMN_TYPES.get(data_type)
            enc = _ENCODINGS.get(encoding)
            comp = _COMPRESSORS.get(compression)
            if cat is None or dtype is None or enc is None or comp is None:
                return None
            col = ColumnSchema(name or f"col{len(columns)}", dtype, cat)
            col.encoding = enc
            col.compression = comp
            columns.append(col)
        return TableSchema(table_name, columns)
    except (TypeError, ValueError, KeyError):
        return None


def _read_table_schema(cur: Cursor, table_name: str) -> TableSchema:
    """read_table_schema in Python: the reference, and the path that names the errors."""
    at = cur.pos
    n = cur.uvarint("table schema column count")
    if n * 14 > cur.remaining():  # a column takes at least 4+0+3+4+4 bytes
        raise cur.error(f"table schema column count {n} exceeds the bytes present", at)
    columns = []
    for _ in range(n):
        name_at = cur.pos
        name = cur.binstr("column name")
        dt_at = cur.pos
        data_type = cur.u8("column data type")
        encoding = cur.u8("column encoding")
        compression = cur.u8("column compression")
        props = cur.i32("column property count")
        if props < 0 or props * 8 > cur.remaining():
            raise cur.error(f"column property count {props}", cur.pos - 4)
        for _ in range(props):
            cur.binstr_bytes("column property key")
            cur.binstr_bytes("column property value")
        cat_at = cur.pos
        category = cur.i32("column category")
        cat = _CATEGORIES.get(category)
        if cat is None:
            raise cur.error(f"unknown column category {category}", cat_at)
        if data_type not in _COLUMN_TYPES:
            raise cur.error(f"unknown column data type {data_type}", dt_at)
        # the recorded encoding/compression are informational (chunk headers rule), but a code
        # no writer has is damage all the same
        if encoding not in _ENCODINGS:
            raise cur.error(f"unknown column encoding {encoding}", dt_at + 1)
        if compression not in _COMPRESSORS:
            raise cur.error(f"unknown column compression {compression}", dt_at + 2)
        try:
            col = ColumnSchema(name or f"col{len(columns)}", _COLUMN_TYPES[data_type], cat)
        except (TypeError, ValueError) as exc:
            raise cur.error(f"bad column {name!r}: {exc}", name_at) from None
        col.encoding = _ENCODINGS[encoding]
        col.compression = _COMPRESSORS[compression]
        columns.append(col)
    try:
        return TableSchema(table_name, columns)
    except (TypeError, ValueError, KeyError) as exc:
        raise cur.error(f"bad table schema {table_name!r}: {exc}", at) from None


@dataclass(slots=True)
class BloomFilter:
    bits: bytes
    size: int
    hash_count: int
    usable: bool


def read_bloom_filter(cur: Cursor) -> BloomFilter | None:
    nbytes = cur.uvarint("bloom filter size")
    if nbytes == 0:
        return None
    bits = cur.raw(nbytes, "bloom filter bits")
    size = cur.uvarint("bloom filter bit count")
    k = cur.uvarint("bloom filter hash count")
    usable = True
    if k == 0x7FFFFFFF:  # newer Java "cheap hash" variant: a second uvarint with the real k
        cur.uvarint("bloom filter hash count")
        usable = False
    if size == 0 or k == 0 or k > 8:
        usable = False
    return BloomFilter(bits, size, k, usable)


@dataclass
class FileMetadata:
    table_roots: dict  # table name -> IndexNode (device level)
    schemas: dict  # table name -> TableSchema
    meta_offset: int
    bloom: BloomFilter | None
    properties: dict
    meta_start: int
    property_offsets: dict = field(default_factory=dict)  # key -> file offset of its value
    # A property key that is not valid UTF-8, when it cannot be the encryption level (see
    # _decode_properties): raised by TsFileReader.get_tsfile_properties, not when opening.
    property_error: CorruptDataError | None = None


def read_tail(buf, size: int, path: str) -> int:
    """Check header and tail magic, return meta_start."""
    if size < HEADER_SIZE + TAIL_SIZE:
        raise CorruptDataError(f"{path}: {size} bytes is too short for a TsFile at file offset 0")
    if bytes(buf[0 : len(MAGIC)]) != MAGIC:
        raise CorruptDataError(f"{path}: bad magic {bytes(buf[0:6])!r} at file offset 0")
    if buf[len(MAGIC)] != VERSION:
        if buf[6] in (1, 2, 3):
            raise UnsupportedError(
                f"{path}: TsFile format version {buf[6]} at file offset 6 (only 4 is supported)"
            )
        # before format version 3 (TsFile 0.x, IoTDB up to 0.11) the magic was followed by a
        # 6-character version string ("000001", "000002", and "v0.3.0"-style in the earliest
        # releases), not a version byte: an old file, not a damaged one
        old = bytes(buf[len(MAGIC) : OLD_HEADER_SIZE])
        if re.fullmatch(rb"v?[0-9][0-9.]{4,5}", old):
            raise UnsupportedError(
                f"{path}: TsFile format version string {old.decode('ascii')!r} at file offset "
                "6 (a TsFile from before format version 3; only version 4 is supported)"
            )
        raise CorruptDataError(f"{path}: bad version byte {buf[6]} at file offset 6")
    if bytes(buf[size - len(MAGIC) : size]) != MAGIC:
        raise CorruptDataError(
            f"{path}: no tail magic at file offset {size - 6} (incomplete or truncated file)"
        )
    cur = Cursor(buf, size - TAIL_SIZE, size - len(MAGIC), path)
    msize = cur.i32("metadata size")
    meta_start = size - TAIL_SIZE - msize
    if msize <= 0 or meta_start < HEADER_SIZE:
        raise CorruptDataError(f"{path}: bad metadata size {msize} at file offset {size - 10}")
    return meta_start


def read_file_metadata(buf, size: int, path: str) -> FileMetadata:
    # compiled device-level nodes (read_index_node is the reference tests/test_cparse.py checks
    # them against); imported here: cparse builds this module's classes
    from tsfile._format.cparse import read_device_node

    meta_start = read_tail(buf, size, path)
    cur = Cursor(buf, meta_start, size - TAIL_SIZE, path)
    at = cur.pos
    n_tables = cur.uvarint("table count")
    if n_tables * 3 > cur.remaining():
        raise cur.error(f"table count {n_tables} exceeds the bytes present", at)
    roots = {}
    prev = None
    order = KeyOrder()
    for _ in range(n_tables):
        name_at = cur.pos
        name = _table_name(cur)
        # sorted and distinct (9.5): a second root of one name would hide the first's devices
        if prev is not None and not order.increases(prev, name):
            what = "duplicate" if name == prev else "out of order"
            raise cur.error(f"table index root {name!r} {what} (after {prev!r})", name_at)
        roots[name], cur.pos = read_device_node(buf, cur.pos, cur.end, path)
        prev = name
    at = cur.pos
    n_schemas = cur.uvarint("table schema count")
    if n_schemas * 2 > cur.remaining():
        raise cur.error(f"table schema count {n_schemas} exceeds the bytes present", at)
    schemas = {}
    for _ in range(n_schemas):
        name_at = cur.pos
        name = _table_name(cur)
        if name in schemas:  # schemas come in any order, but one per table
            raise cur.error(f"duplicate table schema {name!r}", name_at)
        schemas[name] = read_table_schema(cur, name)
    mo_at = cur.pos
    meta_offset = cur.i64("meta offset")
    if not HEADER_SIZE <= meta_offset < meta_start:
        raise cur.error(f"meta offset {meta_offset} outside the file", mo_at)
    bloom = read_bloom_filter(cur)
    prop_at = {}
    props, prop_error = _read_properties(cur, prop_at)
    for name, node in roots.items():
        for e in node.entries:
            if not meta_offset <= e.offset < meta_start:
                raise cur.error(f"index entry of table {name!r} points to {e.offset}", node.at)
    return FileMetadata(roots, schemas, meta_offset, bloom, props, meta_start, prop_at, prop_error)


def _table_name(cur: Cursor) -> str:
    at = cur.pos
    name = cur.varstr("table name")
    if name is None:
        raise cur.error("null table name", at)
    return name


def _read_properties(cur: Cursor, offsets: dict) -> tuple[dict, CorruptDataError | None]:
    """Properties and the error of a key that is not valid UTF-8 (None when every key is).

    The count is zigzag (the writers) or, tolerated, unsigned (what an old Java reader expects);
    a damaged property block only loses the properties, never the data. The keys are decoded
    once the block's structure has been read, outside that tolerance, so a bad key can neither
    lose the properties (an encryptLevel unseen) silently nor come back as a surrogate-escaped
    str: see _decode_properties for what a bad key does."""
    start = cur.pos
    for signed in (True, False):
        cur.pos = start
        raw = []  # (key bytes or None, offset of the key's bytes, value)
        try:
            if cur.remaining() == 0:
                return {}, None
            at = cur.pos
            n = cur.svarint("property count") if signed else cur.uvarint("property count")
            if n < 0 or n * 2 > cur.remaining():
                raise cur.error(f"property count {n}", at)
            for _ in range(n):
                key = cur.varstr_bytes("property key")
                key_at = cur.pos - (0 if key is None else len(key))
                raw.append((key, key_at, cur.pos, cur.varstr_bytes("property value")))
        except CorruptDataError:
            continue
        if cur.remaining() == 0:
            return _decode_properties(cur, raw, offsets)
    offsets.clear()
    return {}, None


def _decode_properties(
    cur: Cursor, raw: list, offsets: dict
) -> tuple[dict, CorruptDataError | None]:
    """The keys as text. A key that is not valid UTF-8 is left out and its CorruptDataError
    returned, to be raised when the properties are asked for (as the official reader does: the
    file opens, get_tsfile_properties raises), provided ``encryptLevel`` was read intact: a
    damaged key could otherwise be the encryption level, and reading an encrypted file as plain
    data would return wrong values, so then the error is raised at once (the file is refused)."""
    offsets.clear()
    props = {}
    first_error = None
    for key_bytes, key_at, value_at, value in raw:
        try:
            key = None if key_bytes is None else _property_key(cur, key_bytes, key_at)
        except CorruptDataError as exc:
            first_error = first_error or exc
            continue
        offsets[key] = value_at
        props[key] = value
    if first_error is not None and "encryptLevel" not in props:
        raise first_error
    return props, first_error


def _property_key(cur: Cursor, key_bytes: bytes, at: int) -> str:
    try:
        return key_bytes.decode("utf-8")
    except UnicodeDecodeError as exc:
        # the official reader's words, so that code matching its message matches ours
        raise cur.error(
            f"TsFile property key is not valid UTF-8 ({exc.reason})", at + exc.start
        ) from None


def check_chunk_offset(cur: Cursor, off: int, meta_offset: int, what: str) -> None:
    if not HEADER_SIZE <= off < meta_offset:
        raise cur.error(f"{what} offset {off} outside the data area")


__all__ = [
    "DeviceID",
    "VECTOR",
    "read_file_metadata",
    "read_index_node",
    "read_series_range",
    "read_timeseries_metadata",
]
