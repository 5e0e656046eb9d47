"""Walking the metadata index (format notes 9.3, 13.2): devices of a table in index order, and the
TimeseriesMetadata records of one device.

A damaged index ends in CorruptDataError naming the offending node or entry, never in a loop or a
silently hidden or borrowed series:

* child ranges must lie inside the metadata area, and walks are depth-bounded;
* every node is reached at most once per walk (a cycle, or two parents sharing a child);
* entries of a node are sorted and distinct (read_index_node), and an internal entry is named
  after its child's first key (a reader that searches the index would otherwise miss keys);
* devices of a table and series of a device strictly increase (a duplicate would be hidden), and
  no two devices share one series index (one would read the other's rows).
"""

from __future__ import annotations

from tsfile._format.bytes import Cursor
from tsfile._format.constants import IndexNodeType
from tsfile._format.cparse import (
    ascii_device_order,
    read_device_node,
    read_leaf_series,
    read_measurement_node,
)
from tsfile._format.metadata import (
    MAX_INDEX_DEPTH,
    IndexNode,
    KeyOrder,
    first_unordered,
    key_text,
)


class IndexWalker:
    def __init__(self, buf, meta_offset: int, meta_start: int, path: str):
        self.buf = buf
        self.lo = meta_offset
        self.hi = meta_start
        self.path = path

    def _error(self, what: str, at: int):
        return Cursor(self.buf, at, at, self.path).error(what)

    def _range_cursor(self, start: int, end: int, node: IndexNode) -> Cursor:
        if not (self.lo <= start < end <= self.hi):
            raise self._error(
                f"index child range [{start}, {end}) outside the metadata area", node.at
            )
        return Cursor(self.buf, start, end, self.path)

    def _child(self, cur: Cursor, seen: set, device_level: bool) -> IndexNode:
        """The node at the start of ``cur``, reached for the first time in this walk."""
        if cur.pos in seen:
            raise self._error("index node reached twice (a cycle or a shared child)", cur.pos)
        seen.add(cur.pos)
        # compiled (read_index_node is the reference they are tested against)
        if not device_level:
            return read_measurement_node(self.buf, cur.pos, cur.end, self.path)
        return read_device_node(self.buf, cur.pos, cur.end, self.path)[0]

    def _check_child_key(self, node: IndexNode, i: int, child: IndexNode) -> None:
        """An internal entry is named after its child's first entry (format notes 9.4)."""
        e = node.entries[i]
        if not child.entries or child.entries[0].key != e.key:
            first = child.entries[0].key if child.entries else None
            raise self._error(
                f"index entry {key_text(e.key)} names a child node whose first key is "
                f"{key_text(first)}",
                e.at,
            )

    def devices(self, root: IndexNode):
        """Yield (DeviceID, measurement-root range) for every device under a table root, strictly
        increasing and each with its own series index (a duplicate or misplaced device, or one
        reusing another's series index, is named at its entry)."""
        prev = None
        order = KeyOrder()
        series_indexes = set()
        for key, rng, at in self._devices(root, 0, {root.at}):
            if prev is not None and not _follows(order, prev, key):
                what = "duplicate" if prev == key else "out of order"
                raise self._error(
                    f"device {key_text(key)} {what} in the index (after {key_text(prev)})", at
                )
            if rng[0] in series_indexes:  # one device would read the other's series
                raise self._error(
                    f"device {key_text(key)} points to a series index at file offset {rng[0]} "
                    "that another device uses",
                    at,
                )
            series_indexes.add(rng[0])
            prev = key
            yield key, rng

    def _devices(self, node: IndexNode, depth: int, seen: set):
        if depth > MAX_INDEX_DEPTH:
            raise self._error("index too deep", node.at)
        if node.node_type == IndexNodeType.LEAF_DEVICE:
            for i, e in enumerate(node.entries):
                start, end = node.child_range(i)
                self._range_cursor(start, end, node)
                yield e.key, (start, end), e.at
        elif node.node_type == IndexNodeType.INTERNAL_DEVICE:
            for i in range(len(node.entries)):
                start, end = node.child_range(i)
                child = self._child(self._range_cursor(start, end, node), seen, True)
                self._check_child_key(node, i, child)
                yield from self._devices(child, depth + 1, seen)
        else:
            raise self._error(
                f"measurement-level node type {node.node_type} in the device index", node.at
            )

    def series(self, dev_range: tuple[int, int]) -> list:
        """All TimeseriesMetadata of one device, in index order: strictly increasing by
        measurement (a duplicate series is named at its record)."""
        start, end = dev_range
        node = read_measurement_node(self.buf, start, end, self.path)
        out = []
        self._series(node, out, 0, {start})
        i = first_unordered([tsm.measurement for tsm in out])
        if i is not None:
            prev, tsm = out[i - 1], out[i]
            what = "duplicate" if prev.measurement == tsm.measurement else "out of order"
            raise self._error(
                f"series {tsm.measurement!r} {what} in its device (after {prev.measurement!r})",
                tsm.at,
            )
        return out

    def _series(self, node: IndexNode, out: list, depth: int, seen: set):
        if depth > MAX_INDEX_DEPTH:
            raise self._error("index too deep", node.at)
        if node.node_type == IndexNodeType.LEAF_MEASUREMENT:
            # compiled, one call per leaf node (the records are most of a file's index); the
            # same walk in Python over metadata.read_series_range is the reference it is tested
            # against (tests/test_cparse.py)
            read_leaf_series(self.buf, node, self.lo, self.hi, self.path, out)
            return
        for i in range(len(node.entries)):
            start, end = node.child_range(i)
            cur = self._range_cursor(start, end, node)
            if node.node_type == IndexNodeType.INTERNAL_MEASUREMENT:
                child = self._child(cur, seen, False)
                self._check_child_key(node, i, child)
                self._series(child, out, depth + 1, seen)
            else:
                raise cur.error(f"device-level node type {node.node_type} in a measurement index")


def _follows(order: KeyOrder, prev, key) -> bool:
    """order.increases(prev, key) for two DeviceIDs, in C when every segment of both is ASCII
    or null: for such a pair both writers' orders agree, so ``order`` would keep its state when
    the pair increases (and the walk ends when it does not)."""
    c = ascii_device_order(prev.segments, key.segments)
    if c is None:
        return order.increases(prev, key)
    return c < 0
