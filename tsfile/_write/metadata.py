"""The metadata area and the tail (format notes 9, 10, 12.4-12.5): TimeseriesMetadata with their
ChunkMetadata, the metadata index tree (degree 256 by default), table schemas, the bloom filter,
properties, TsFileMetadata, its size and the tail magic."""

from __future__ import annotations

import struct

from tsfile._format.bytes import binstr, i64, svarint, uvarint, varstr
from tsfile._format.constants import MAGIC, IndexNodeType
from tsfile._format.device import device_path, serialize_device_id, sort_key
from tsfile._write.bloom import DEFAULT_ERROR_RATE, BloomFilter
from tsfile._write.statistics import Statistics
from tsfile.types import ColumnCategory

DEFAULT_DEGREE = 256

# What the C++ 2.5 writer puts in every file (format notes 9.5), in its order.
DEFAULT_PROPERTIES = (
    ("encryptKey", None),
    ("encryptType", b"org.apache.tsfile.encrypt.UNENCRYPTED"),
    ("encryptLevel", b"0"),
)
_I64 = struct.Struct(">q")


class Series:
    """One series of one device: data type, and (chunk offset, chunk statistics) per chunk."""

    __slots__ = ("data_type", "chunks", "_serialized")

    def __init__(self, data_type):
        self.data_type = data_type
        self.chunks = []
        # (name, bytes) of the last serialize(), until a chunk is added: a writer serializes a
        # series while later chunk groups are built, so that close() has little left to do
        self._serialized = None

    def add_chunk(self, offset: int, statistics: Statistics) -> None:
        self.chunks.append((offset, statistics))
        self._serialized = None

    def serialize(self, name: str) -> bytes:
        """The TimeseriesMetadata of the series (named `name`) with its ChunkMetadata."""
        done = self._serialized
        if done is not None and done[0] == name:
            return done[1]
        out = self._serialize(name)
        self._serialized = (name, out)
        return out

    def _serialize(self, name: str) -> bytes:
        multi = len(self.chunks) > 1
        total = Statistics(self.data_type)
        for _, stats in self.chunks:
            total.merge(stats)
        if multi:
            chunk_meta = b"".join(_I64.pack(off) + st.serialize() for off, st in self.chunks)
        else:
            chunk_meta = _I64.pack(self.chunks[0][0])
        return (
            bytes((1 if multi else 0,))
            + varstr(name)
            + bytes((int(self.data_type),))
            + uvarint(len(chunk_meta))
            + total.serialize()
            + chunk_meta
        )


class _Node:
    __slots__ = ("entries", "end", "kind")

    def __init__(self, kind):
        self.kind = kind
        self.entries = []  # (key bytes, first-name for parents, offset)
        self.end = 0

    def serialize(self) -> bytes:
        body = b"".join(key + _I64.pack(off) for key, _, off in self.entries)
        return uvarint(len(self.entries)) + body + _I64.pack(self.end) + bytes((self.kind,))


class _Area:
    """The metadata area being built in memory, with absolute positions."""

    def __init__(self, base: int):
        self.base = base
        self.buf = bytearray()

    @property
    def pos(self) -> int:
        return self.base + len(self.buf)

    def write(self, data: bytes) -> None:
        self.buf += data


def _build_levels(area: _Area, nodes: list, internal_kind: int, degree: int) -> _Node:
    """Bottom-up: serialize the nodes of each level, each under a parent entry keyed like its first
    entry, until one node (the root, not serialized) is left."""
    while len(nodes) > 1:
        parents = []
        parent = _Node(internal_kind)
        for node in nodes:
            if len(parent.entries) == degree:
                parent.end = area.pos
                parents.append(parent)
                parent = _Node(internal_kind)
            key, first, _ = node.entries[0]
            parent.entries.append((key, first, area.pos))
            area.write(node.serialize())
        parent.end = area.pos
        parents.append(parent)
        nodes = parents
    return nodes[0]


def build_metadata(
    base: int,
    meta_offset: int,
    devices: dict,
    schemas: dict,
    properties=(),
    degree: int = DEFAULT_DEGREE,
    bloom_error_rate: float = DEFAULT_ERROR_RATE,
    bloom_entry_count=None,
    bloom_hashes=None,
) -> bytes:
    """Everything after the SEPARATOR: returns the bytes to write at position `base`.

    devices: {segments tuple: {measurement: Series}} (table model: segments[0] = table name);
    schemas: {table name: serialized-schema bytes} (tables registered, with or without data);
    properties: extra (key, bytes or None) pairs appended after the default ones;
    bloom_entry_count: what the bloom filter is sized for (default: the number of series);
    bloom_hashes: {path: bloom.entry_hashes(path, k)} computed already (optional)."""
    if degree < 2:
        raise ValueError("index degree must be at least 2")
    area = _Area(base)
    ordered = sorted(devices, key=sort_key)
    bloom_entries = []
    leaves = {}
    for dev in ordered:
        series = devices[dev]
        names = sorted(series, key=lambda s: s.encode("utf-8"))
        full = device_path(dev)
        dev_leaves = []
        leaf = _Node(IndexNodeType.LEAF_MEASUREMENT)
        for i, name in enumerate(names):
            if i % degree == 0:
                if len(leaf.entries) == degree:
                    leaf.end = area.pos
                    dev_leaves.append(leaf)
                    leaf = _Node(IndexNodeType.LEAF_MEASUREMENT)
                leaf.entries.append((varstr(name), name, area.pos))
            area.write(series[name].serialize(name))
            bloom_entries.append(f"{full}.{name}")
        leaf.end = area.pos
        dev_leaves.append(leaf)
        leaves[dev] = dev_leaves
    roots = {
        dev: _build_levels(area, leaves[dev], IndexNodeType.INTERNAL_MEASUREMENT, degree)
        for dev in ordered
    }

    tables = {}
    for dev in ordered:
        tables.setdefault(dev[0], []).append(dev)
    table_roots = []
    for table in sorted(tables, key=lambda s: s.encode("utf-8")):
        nodes = []
        node = _Node(IndexNodeType.LEAF_DEVICE)
        for dev in tables[table]:
            if len(node.entries) == degree:
                node.end = area.pos
                nodes.append(node)
                node = _Node(IndexNodeType.LEAF_DEVICE)
            node.entries.append((serialize_device_id(dev), None, area.pos))
            area.write(roots[dev].serialize())
        node.end = area.pos
        nodes.append(node)
        table_roots.append(
            (table, _build_levels(area, nodes, IndexNodeType.INTERNAL_DEVICE, degree))
        )

    meta = bytearray(uvarint(len(table_roots)))
    for table, root in table_roots:
        meta += varstr(table) + root.serialize()
    meta += uvarint(len(schemas))
    for table in sorted(schemas, key=lambda s: s.encode("utf-8")):
        meta += varstr(table) + schemas[table]
    meta += i64(meta_offset)
    if bloom_entries:
        bloom = BloomFilter.for_entries(
            bloom_entries, bloom_error_rate, bloom_entry_count, bloom_hashes
        )
        meta += bloom.serialize()
    else:
        meta += b"\x00"
    merged_props = dict(DEFAULT_PROPERTIES)
    merged_props.update(properties)  # a user property replaces a default one of the same key
    props = list(merged_props.items())
    meta += svarint(len(props))
    for key, value in props:
        meta += varstr(key) + varstr(value)
    area.write(bytes(meta))
    area.write(struct.pack(">i", len(meta)) + MAGIC)
    return bytes(area.buf)


def table_schema_bytes(columns) -> bytes:
    """TableSchema (format notes 9.6): columns = [(name, data_type, encoding, compression,
    category)], the TIME column left out (Java cannot read category 3; the time column is
    implicit)."""
    cols = [c for c in columns if int(c[4]) != ColumnCategory.TIME]
    out = bytearray(uvarint(len(cols)))
    for name, data_type, encoding, compression, category in cols:
        out += binstr(name) + bytes((int(data_type), int(encoding), int(compression)))
        out += b"\x00\x00\x00\x00" + struct.pack(">i", int(category))
    return bytes(out)
