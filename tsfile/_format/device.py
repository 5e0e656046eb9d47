"""Device IDs (format notes 4.2): segments, ordering, full names, tree-model paths."""

from __future__ import annotations

from tsfile._format.bytes import Cursor

# A device with more segments than this is certainly corrupt (tables have at most a few thousand
# tag columns); the bound also keeps a damaged count from looping for long.
MAX_SEGMENTS = 1 << 16


class DeviceID:
    """An immutable device ID: a tuple of segments (str or None for a null tag)."""

    __slots__ = ("segments", "_key")

    def __init__(self, segments):
        self.segments = tuple(segments)
        self._key = None

    @property
    def table_name(self) -> str:
        s = self.segments[0] if self.segments else ""
        return s if s is not None else "null"

    @property
    def tags(self) -> tuple:
        return self.segments[1:]

    @property
    def path(self) -> str:
        """Segments joined with '.', a null segment as the text 'null' (bloom filter / APIs)."""
        return ".".join("null" if s is None else s for s in self.segments)

    def sort_key(self):
        # null sorts before any string; strings by UTF-8 bytes; a prefix sorts first (tuples do).
        # Segments read from a file are valid UTF-8 (read_device_id decodes strictly, as the
        # writer encodes); "surrogatepass" only serves a caller's lookup key holding a lone
        # surrogate, which then compares (and matches nothing) instead of raising
        # UnicodeEncodeError.
        if self._key is None:
            self._key = tuple(
                (0, b"") if s is None else (1, s.encode("utf-8", "surrogatepass"))
                for s in self.segments
            )
        return self._key

    def tag_values(self, n_tags: int) -> tuple:
        """The tag values padded with None (Java strips trailing null segments)."""
        tags = self.segments[1:]
        if len(tags) < n_tags:
            tags = tags + (None,) * (n_tags - len(tags))
        return tags[:n_tags]

    def __eq__(self, other):
        if not isinstance(other, DeviceID):
            return NotImplemented
        return self.sort_key() == other.sort_key()

    def __lt__(self, other):
        return self.sort_key() < other.sort_key()

    def __le__(self, other):
        return self.sort_key() <= other.sort_key()

    def __hash__(self):
        return hash(self.sort_key())

    def __repr__(self):
        return f"DeviceID({self.segments!r})"

    def __str__(self):
        return self.path


def read_device_id(cur: Cursor) -> DeviceID:
    """A serialized DeviceID; a segment that is not valid UTF-8 is CorruptDataError (the text
    policy of tsfile._format.bytes), naming the offset of its first bad byte."""
    start = cur.pos
    n = cur.uvarint("device id segment count")
    if n > MAX_SEGMENTS or n > cur.remaining():  # each segment takes at least one byte
        raise cur.error(f"device id segment count {n} exceeds the bytes present", start)
    if n == 0:
        return DeviceID(("",))  # Java reads an empty ID as the single segment ""
    return DeviceID(cur.varstr("device id segment") for _ in range(n))


def split_tree_path(path: str) -> list[str]:
    """Split a dotted tree path; backquoted nodes may contain dots."""
    nodes, cur, quoted = [], [], False
    for ch in path:
        if ch == "`":
            quoted = not quoted
            cur.append(ch)
        elif ch == "." and not quoted:
            nodes.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    nodes.append("".join(cur))
    return nodes


def tree_device_id(path: str) -> DeviceID:
    """`root.sg1.d1` -> ("root.sg1", "d1"); rule of format notes 4.2."""
    p = split_tree_path(path)
    n = len(p)
    if n == 1:
        return DeviceID((p[0],))
    if n <= 3:
        return DeviceID((".".join(p[:-1]), p[-1]))
    return DeviceID((".".join(p[:3]), *p[3:]))
