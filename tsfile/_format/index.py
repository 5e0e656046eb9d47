"""Walking the metadata index (format notes 9.3, 13.2): devices of a table in index order, and the
TimeseriesMetadata records of one device. Child ranges are checked to lie inside the metadata area
and walks are depth-bounded, so a damaged index ends in CorruptDataError, never a loop."""

from __future__ import annotations

from tsfile._format.bytes import Cursor
from tsfile._format.metadata import (
    INTERNAL_DEVICE,
    INTERNAL_MEASUREMENT,
    LEAF_DEVICE,
    LEAF_MEASUREMENT,
    MAX_INDEX_DEPTH,
    IndexNode,
    read_index_node,
    read_timeseries_metadata,
)


class IndexWalker:
    def __init__(self, buf, meta_offset: int, meta_start: int, path: str):
        self.buf = buf
        self.lo = meta_offset
        self.hi = meta_start
        self.path = path

    def _range_cursor(self, start: int, end: int, node: IndexNode) -> Cursor:
        if not (self.lo <= start < end <= self.hi):
            raise Cursor(self.buf, node.at, node.at, self.path).error(
                f"index child range [{start}, {end}) outside the metadata area"
            )
        return Cursor(self.buf, start, end, self.path)

    def devices(self, root: IndexNode):
        """Yield (DeviceID, measurement-root range) for every device under a table root."""
        yield from self._devices(root, 0)

    def _devices(self, node: IndexNode, depth: int):
        if depth > MAX_INDEX_DEPTH:
            raise Cursor(self.buf, node.at, node.at, self.path).error("index too deep")
        if node.node_type == LEAF_DEVICE:
            for i, e in enumerate(node.entries):
                start, end = node.child_range(i)
                self._range_cursor(start, end, node)
                yield e.key, (start, end)
        elif node.node_type == INTERNAL_DEVICE:
            for i in range(len(node.entries)):
                start, end = node.child_range(i)
                cur = self._range_cursor(start, end, node)
                child = read_index_node(cur, device_level=True)
                yield from self._devices(child, depth + 1)
        else:
            raise Cursor(self.buf, node.at, node.at, self.path).error(
                f"measurement-level node type {node.node_type} in the device index"
            )

    def series(self, dev_range: tuple[int, int]) -> list:
        """All TimeseriesMetadata of one device, in index order (sorted by measurement)."""
        start, end = dev_range
        cur = Cursor(self.buf, start, end, self.path)
        node = read_index_node(cur, device_level=False)
        out = []
        self._series(node, out, 0)
        return out

    def _series(self, node: IndexNode, out: list, depth: int):
        if depth > MAX_INDEX_DEPTH:
            raise Cursor(self.buf, node.at, node.at, self.path).error("index too deep")
        for i in range(len(node.entries)):
            start, end = node.child_range(i)
            cur = self._range_cursor(start, end, node)
            if node.node_type == LEAF_MEASUREMENT:
                while cur.remaining() > 0:
                    out.append(read_timeseries_metadata(cur))
            elif node.node_type == INTERNAL_MEASUREMENT:
                child = read_index_node(cur, device_level=False)
                self._series(child, out, depth + 1)
            else:
                raise cur.error(f"device-level node type {node.node_type} in a measurement index")
