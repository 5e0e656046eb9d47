"""Device IDs (format notes 4.2), the one definition the reader and the writer share: segments,
their bytes, their order, full names, tree-model paths.

A device ID is a tuple of segments: the table name, then the tag values (str, or None for a null
tag). The writer keys its buffers by such tuples and uses the functions below on them; the reader
wraps them in DeviceID. Both use:

* one byte encoding (serialize_device_id / read_device_id): uvarint segment count, then each
  segment as a varstr (None: the null string);
* one order (sort_key): segment by segment, null before any string, strings by their UTF-8 bytes
  (the C++ writer's std::string order), a prefix before its extensions. Where the reader checks
  the order of a file's devices it also accepts Java's (java_sort_key: strings by UTF-16 units,
  String.compareTo), one order per sequence, as for names (tsfile._format.metadata.KeyOrder);
* one UTF-8 policy, strict: the writer refuses a segment that does not encode to UTF-8 (a lone
  surrogate) before anything is buffered, with TypeMismatchError: a table or column name when
  the schema is made (text_utf8, through tsfile.schema), a tag value at the write call
  (tsfile._write.values.check_tag_value); the reader raises CorruptDataError for segments in the
  file that are not valid UTF-8 (read_device_id).
"""

from __future__ import annotations

from tsfile._format.bytes import Cursor, uvarint, varstr
from tsfile.errors import TypeMismatchError

# A device with more segments than this is certainly corrupt (tables have at most a few thousand
# tag columns); the bound also keeps a damaged count from looping for long.
MAX_SEGMENTS = 1 << 16


def text_utf8(text: str, what: str) -> bytes:
    """The UTF-8 bytes of a name or segment the writer is given; one that cannot be encoded (a
    lone surrogate) is TypeMismatchError naming it and the character."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise TypeMismatchError(
            f"{what} {text!r} is not valid Unicode ({exc.reason} at character {exc.start}): "
            "text is stored as UTF-8"
        ) from None


def serialize_device_id(segments) -> bytes:
    """StringArrayDeviceID: uvarint segment count + varstr segments (None = null segment)."""
    return uvarint(len(segments)) + b"".join(
        varstr(None if s is None else text_utf8(s, "device ID segment")) for s in segments
    )


def sort_key(segments, errors: str = "strict"):
    """The device order above as a tuple key (Python tuple order gives the prefix rule).

    errors="surrogatepass" serves only a reader's lookup key given by a caller: one holding a
    lone surrogate then compares (and matches nothing) instead of raising. Segments read from a
    file are valid UTF-8 (read_device_id), and the writer refuses others (text_utf8)."""
    return tuple((0, b"") if s is None else (1, s.encode("utf-8", errors)) for s in segments)


def java_sort_key(segments):
    """The Java writer's device order (StringArrayDeviceID.compareTo): as sort_key, but strings
    by UTF-16 units. It differs from sort_key only between supplementary characters and
    U+E000..U+FFFF."""
    return tuple(
        (0, b"") if s is None else (1, s.encode("utf-16-be", "surrogatepass")) for s in segments
    )


def device_path(segments) -> str:
    """Segments joined with '.', a null segment as the text 'null' (bloom filter / APIs)."""
    return ".".join("null" if s is None else s for s in segments)


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
        return device_path(self.segments)

    def sort_key(self):
        if self._key is None:
            self._key = sort_key(self.segments, "surrogatepass")
        return self._key

    def serialize(self) -> bytes:
        return serialize_device_id(self.segments)

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
