# cython: language_level=3, boundscheck=False, wraparound=False
"""The measurement level of the metadata index (format notes 9.2-9.4), parsed in C: the index
nodes of a device's series (the same IndexNode as tsfile._format.metadata.read_index_node with
device_level=False) and the TimeseriesMetadata records (the same objects as
read_timeseries_metadata: TimeseriesMeta, ChunkMeta, Statistics), with the same CorruptDataError,
message for message (tests/test_cparse.py checks both on every fixture and on damaged and
truncated bytes). The device level too: its index nodes (DeviceID keys: the same IndexNode as
read_index_node with device_level=True), read once per file when it is opened and walked.

Reading a file's index is most of what opening and planning it costs: about 6 us per series in
Python, all of it holding the GIL, while the threads of a many-file read wait. The bytes are
read here with C loads; what is left under the GIL is making the result objects.

Every read checks the bytes left in the range before touching them (a length read from the file
is compared with the bytes present before anything of that size is made), and every error names
the absolute file offset as the Python cursor (tsfile._format.bytes.Cursor) does.
"""

cimport cython
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy

from cpython.unicode cimport PyUnicode_Compare

from tsfile._format.device import MAX_SEGMENTS, DeviceID
from tsfile._format.metadata import (
    ChunkMeta,
    IndexEntry,
    IndexNode,
    TimeseriesMeta,
    first_unordered,
    key_text,
)
from tsfile._format.statistics import Statistics
from tsfile.errors import CorruptDataError

# data type and index node type codes: tsfile._format.codes (C constants, checked against
# tsfile.types and tsfile._format.constants by tests/test_format_layer.py)
from tsfile._format.cursor cimport (
    UVARINT_OVERFLOW, UVARINT_TOO_LONG, UVARINT_TRUNCATED, Cur, be32, be64, read_uvarint32,
)
from tsfile._format.codes cimport (
    NODE_LEAF_DEVICE, NODE_LEAF_MEASUREMENT, T_BLOB, T_BOOLEAN, T_DATE, T_DOUBLE, T_FLOAT,
    T_INT32, T_INT64, T_STRING, T_TEXT, T_TIMESTAMP, T_UNKNOWN,
)


# No automatic pickling: Cython would copy the raw pointer below as a NUL-terminated string,
# so a copy.copy() of this object pointed into a temporary while keeping the whole length
# (reads of freed memory); copy and pickle are a TypeError instead.
@cython.auto_pickle(False)
cdef class _Reader:
    """The buffer being parsed and the file name for messages."""

    cdef const uint8_t[::1] view
    cdef const uint8_t *ptr
    cdef str path

    cdef object error(self, str what, Py_ssize_t at):
        return CorruptDataError(f"{self.path}: {what} at file offset {at}")

    cdef int need(self, Cur *c, Py_ssize_t n, str what) except -1:
        if n < 0 or c.pos + n > c.end:
            raise self.error(f"truncated {what}: need {n} bytes, {c.end - c.pos} left", c.pos)
        return 0

    cdef int u8(self, Cur *c, str what) except -1:
        self.need(c, 1, what)
        c.pos += 1
        return c.buf[c.pos - 1]

    cdef int64_t i64(self, Cur *c, str what) except? -1:
        self.need(c, 8, what)
        c.pos += 8
        return <int64_t>be64(c.buf + c.pos - 8)

    cdef int32_t i32(self, Cur *c, str what) except? -1:
        self.need(c, 4, what)
        c.pos += 4
        return <int32_t>be32(c.buf + c.pos - 4)

    cdef int64_t uvarint(self, Cur *c, str what) except -1:
        """Java writeUnsignedVarInt: at most 5 bytes, a 32-bit unsigned value."""
        cdef Py_ssize_t start = c.pos
        cdef int64_t value
        cdef int got = read_uvarint32(c, &value)
        if got == UVARINT_TRUNCATED:
            raise self.error(f"truncated {what}", start)
        if got == UVARINT_TOO_LONG:
            raise self.error(f"{what} longer than 5 bytes", start)
        if got == UVARINT_OVERFLOW:
            raise self.error(f"{what} overflows 32 bits", start)
        return value

    cdef object varstr(self, Cur *c, str what, str what_length):
        """svarint length (named ``what_length``) + UTF-8 text; None for the null string (length
        -1). The names come in whole: no string is built per call."""
        cdef Py_ssize_t start = c.pos
        cdef uint64_t u = <uint64_t>self.uvarint(c, what_length)
        cdef int64_t n = <int64_t>(u >> 1) ^ -<int64_t>(u & 1)
        if n == -1:
            return None
        if n < 0:
            raise self.error(f"negative {what} length {n}", start)
        self.need(c, n, what)
        c.pos += n
        try:
            return (<const char *>c.buf)[c.pos - n:c.pos].decode("utf-8")
        except UnicodeDecodeError as exc:
            raise self.error(f"invalid UTF-8 in {what} ({exc.reason})",
                             c.pos - n + exc.start) from None

    cdef bytes binstr_bytes(self, Cur *c, str what, str what_length):
        """i32 length (named ``what_length``) + bytes."""
        cdef Py_ssize_t start = c.pos
        cdef int32_t n = self.i32(c, what_length)
        if n < 0:
            raise self.error(f"negative {what} length {n}", start)
        self.need(c, n, what)
        c.pos += n
        return (<const char *>c.buf)[c.pos - n:c.pos]

    cdef object statistics(self, Cur *c, int t):
        """read_statistics: count, start/end time and the typed part of data type ``t``."""
        cdef int64_t count = self.uvarint(c, "statistics count")
        self.need(c, 16, "statistics start/end time")
        cdef int64_t start = <int64_t>be64(c.buf + c.pos)
        cdef int64_t end = <int64_t>be64(c.buf + c.pos + 8)
        c.pos += 16
        cdef const uint8_t *p
        cdef object mn = None, mx = None, first = None, last = None, total = None
        if t == T_BOOLEAN:
            self.need(c, 10, "statistics")
            p = c.buf + c.pos
            first, last, total = p[0] != 0, p[1] != 0, <int64_t>be64(p + 2)
            c.pos += 10
        elif t == T_INT32 or t == T_DATE:
            self.need(c, 24, "statistics")
            p = c.buf + c.pos
            mn, mx = <int32_t>be32(p), <int32_t>be32(p + 4)
            first, last = <int32_t>be32(p + 8), <int32_t>be32(p + 12)
            total = <int64_t>be64(p + 16)
            c.pos += 24
        elif t == T_INT64 or t == T_TIMESTAMP:
            self.need(c, 40, "statistics")
            p = c.buf + c.pos
            mn, mx = <int64_t>be64(p), <int64_t>be64(p + 8)
            first, last = <int64_t>be64(p + 16), <int64_t>be64(p + 24)
            total = f64(p + 32)  # the sum of integers is a double
            c.pos += 40
        elif t == T_FLOAT:
            self.need(c, 24, "statistics")
            p = c.buf + c.pos
            mn, mx, first, last = f32(p), f32(p + 4), f32(p + 8), f32(p + 12)
            total = f64(p + 16)
            c.pos += 24
        elif t == T_DOUBLE:
            self.need(c, 40, "statistics")
            p = c.buf + c.pos
            mn, mx, first, last = f64(p), f64(p + 8), f64(p + 16), f64(p + 24)
            total = f64(p + 32)
            c.pos += 40
        elif t == T_TEXT:
            first = self.binstr_bytes(c, "statistics first", "statistics first length")
            last = self.binstr_bytes(c, "statistics last", "statistics last length")
        elif t == T_STRING:
            first = self.binstr_bytes(c, "statistics first", "statistics first length")
            last = self.binstr_bytes(c, "statistics last", "statistics last length")
            mn = self.binstr_bytes(c, "statistics min", "statistics min length")
            mx = self.binstr_bytes(c, "statistics max", "statistics max length")
        # BLOB and VECTOR: count and times only
        return Statistics(t, count, start, end, mn, mx, first, last, total)

    cdef object series(self, Cur *c):
        """read_timeseries_metadata at the cursor."""
        cdef Py_ssize_t at = c.pos
        cdef int ts_type = self.u8(c, "timeseries metadata type")
        name = self.varstr(c, "measurement id", "measurement id length")
        if name is None:
            raise self.error("null measurement id", at + 1)
        cdef Py_ssize_t dt_at = c.pos
        cdef int t = self.u8(c, "data type")
        if t == T_UNKNOWN or t > T_STRING:
            raise self.error(f"unknown data type {t}", dt_at)
        cdef int64_t cm_bytes = self.uvarint(c, "chunk metadata size")
        stats = self.statistics(c, t)
        self.need(c, cm_bytes, "chunk metadata list")
        cdef Cur sub
        sub.buf = c.buf
        sub.pos = c.pos
        sub.end = c.pos + cm_bytes
        c.pos += cm_bytes
        cdef bint multi = (ts_type & 0x3F) != 0
        cdef int64_t off
        chunks = []
        while sub.pos < sub.end:
            off = self.i64(&sub, "chunk offset")
            chunks.append(ChunkMeta(off, self.statistics(&sub, t) if multi else stats))
            if not multi:
                break
        if sub.pos != sub.end:
            raise self.error(f"{sub.end - sub.pos} unexpected bytes in chunk metadata list",
                             sub.pos)
        if not chunks:
            raise self.error(f"series {name!r} has no chunk", at)
        return TimeseriesMeta(name, t, stats, chunks, at)


    cdef object measurement_node(self, Cur *c):
        """read_index_node(device_level=False) at the cursor."""
        cdef Py_ssize_t at = c.pos, entry_at
        cdef int64_t n = self.uvarint(c, "index node child count"), k, off
        if n * 9 > c.end - c.pos:  # each entry takes at least 1 + 8 bytes
            raise self.error(f"index node child count {n} exceeds the bytes present", at)
        entries = []
        keys = []
        for k in range(n):
            entry_at = c.pos
            key = self.varstr(c, "index entry name", "index entry name length")
            if key is None:
                raise self.error("null index entry name", entry_at)
            off = self.i64(c, "index entry offset")
            entries.append(IndexEntry(key, off, entry_at))
            keys.append(key)
        cdef int64_t end_offset = self.i64(c, "index node end offset")
        cdef int node_type = self.u8(c, "index node type")
        if node_type > NODE_LEAF_MEASUREMENT:
            raise self.error(f"unknown index node type {node_type}", c.pos - 1)
        if node_type <= NODE_LEAF_DEVICE:
            raise self.error(
                f"index node type {node_type} where a measurement level node was expected",
                c.pos - 1)
        i = first_unordered(keys)
        if i is not None:
            prev, e = entries[i - 1], entries[i]
            what = "duplicate" if prev.key == e.key else "out of order"
            raise self.error(
                f"index entry {key_text(e.key)} {what} (after {key_text(prev.key)})", e.at)
        return IndexNode(node_type, entries, end_offset, at)


    cdef object device_id(self, Cur *c):
        """read_device_id at the cursor: a DeviceID of the segments' text (None: a null one)."""
        cdef Py_ssize_t start = c.pos, k
        cdef int64_t n = self.uvarint(c, "device id segment count")
        if n > MAX_SEGMENTS or n > c.end - c.pos:  # each segment takes at least one byte
            raise self.error(f"device id segment count {n} exceeds the bytes present", start)
        if n == 0:
            return DeviceID(("",))  # Java reads an empty ID as the single segment ""
        segments = [None] * n
        for k in range(n):
            segments[k] = self.varstr(c, "device id segment", "device id segment length")
        return DeviceID(segments)

    cdef object device_node(self, Cur *c):
        """read_index_node(device_level=True) at the cursor."""
        cdef Py_ssize_t at = c.pos, entry_at
        cdef int64_t n = self.uvarint(c, "index node child count"), k, off
        if n * 9 > c.end - c.pos:  # each entry takes at least 1 + 8 bytes
            raise self.error(f"index node child count {n} exceeds the bytes present", at)
        entries = []
        for k in range(n):
            entry_at = c.pos
            key = self.device_id(c)
            off = self.i64(c, "index entry offset")
            entries.append(IndexEntry(key, off, entry_at))
        cdef int64_t end_offset = self.i64(c, "index node end offset")
        cdef int node_type = self.u8(c, "index node type")
        if node_type > NODE_LEAF_MEASUREMENT:
            raise self.error(f"unknown index node type {node_type}", c.pos - 1)
        if node_type > NODE_LEAF_DEVICE:
            raise self.error(
                f"index node type {node_type} where a device level node was expected", c.pos - 1)
        cdef Py_ssize_t i = first_unordered_device(entries)
        if i >= 0:
            prev, e = entries[i - 1], entries[i]
            what = "duplicate" if prev.key == e.key else "out of order"
            raise self.error(
                f"index entry {key_text(e.key)} {what} (after {key_text(prev.key)})", e.at)
        return IndexNode(node_type, entries, end_offset, at)


cdef extern from "Python.h":
    bint PyUnicode_IS_ASCII(object) noexcept


cdef bint ascii_segments(tuple segments) noexcept:
    """Whether every segment is None or ASCII text (O(1) per str)."""
    for s in segments:
        if s is not None and not PyUnicode_IS_ASCII(s):
            return False
    return True


cdef int compare_ascii_segments(tuple a, tuple b) except -2:
    """-1, 0 or 1 as the device order (tsfile._format.device.sort_key) puts ``a`` before, equal
    to or after ``b``, for segments that are None or ASCII text: segment by segment, None first,
    text by code points (for ASCII, by its UTF-8 bytes and by its UTF-16 units alike: both
    writers' orders), a prefix first."""
    cdef Py_ssize_t i, na = len(a), nb = len(b)
    cdef int c
    for i in range(min(na, nb)):
        x, y = a[i], b[i]
        if x is None or y is None:
            if x is None and y is None:
                continue
            return -1 if x is None else 1
        c = PyUnicode_Compare(x, y)
        if c != 0:
            return -1 if c < 0 else 1
    return (na > nb) - (na < nb)


def ascii_device_order(tuple a, tuple b):
    """-1, 0 or 1 as the device order puts the segments ``a`` before, equal to or after ``b``
    when every segment of both is None or ASCII text (then both writers' orders agree, see
    compare_ascii_segments), else None (KeyOrder must tell the orders apart)."""
    if not (ascii_segments(a) and ascii_segments(b)):
        return None
    return compare_ascii_segments(a, b)


cdef Py_ssize_t first_unordered_device(list entries) except -2:
    """metadata.first_unordered over the entries' DeviceIDs (-1: they strictly increase). Keys
    of ASCII (and null) segments, the common case, are compared here: for them the two writers'
    orders agree, so KeyOrder's choice between them cannot matter; any other key is left to
    first_unordered (its KeyOrder tells the orders apart)."""
    cdef Py_ssize_t i, n = len(entries)
    segments = [(<object>entries[i]).key.segments for i in range(n)]
    for i in range(n):
        if not ascii_segments(segments[i]):
            keys = [(<object>e).key for e in entries]
            found = first_unordered(keys)
            return -1 if found is None else found
    for i in range(1, n):
        if compare_ascii_segments(segments[i - 1], segments[i]) >= 0:
            return i
    return -1


cdef inline double f64(const uint8_t *p) noexcept nogil:
    cdef uint64_t v = be64(p)
    cdef double d
    memcpy(&d, &v, 8)
    return d


cdef inline double f32(const uint8_t *p) noexcept nogil:
    cdef uint32_t v = be32(p)
    cdef float f
    memcpy(&f, &v, 4)
    return f


cdef _Reader _reader(buf, Py_ssize_t start, Py_ssize_t end, str path, Cur *c):
    cdef _Reader r = _Reader()
    r.path = path
    cdef Py_ssize_t size = len(buf)
    if not 0 <= start <= end <= size:
        raise ValueError(f"range [{start}, {end}) outside a buffer of {size} bytes")
    c.buf = NULL
    if size:
        r.view = buf
        r.ptr = &r.view[0]
        c.buf = r.ptr
    c.pos = start
    c.end = end
    return r


def read_series_range(buf, Py_ssize_t start, Py_ssize_t end, str path):
    """Every TimeseriesMeta record of ``buf[start:end]`` (a leaf range of a measurement index),
    in order: what calling read_timeseries_metadata until the range is used up returns."""
    cdef Cur c
    cdef _Reader r = _reader(buf, start, end, path, &c)
    out = []
    while c.pos < c.end:
        out.append(r.series(&c))
    return out


def read_series_at(buf, Py_ssize_t start, Py_ssize_t end, str path):
    """One TimeseriesMeta record at ``start`` (not past ``end``): (record, offset after it)."""
    cdef Cur c
    cdef _Reader r = _reader(buf, start, end, path, &c)
    tsm = r.series(&c)
    return tsm, c.pos


def read_statistics_at(buf, Py_ssize_t start, Py_ssize_t end, int data_type, str path):
    """Statistics of ``data_type`` at ``start`` (not past ``end``): (Statistics, offset after
    them). ``data_type`` must be a known code (the records' parser checks it first)."""
    if data_type == T_UNKNOWN or not 0 <= data_type <= T_STRING:
        raise ValueError(f"statistics of unknown data type {data_type}")
    cdef Cur c
    cdef _Reader r = _reader(buf, start, end, path, &c)
    st = r.statistics(&c, data_type)
    return st, c.pos


def read_measurement_node(buf, Py_ssize_t start, Py_ssize_t end, str path):
    """The measurement-level index node at ``start`` (not past ``end``): what
    read_index_node(Cursor(buf, start, end, path), device_level=False) returns."""
    cdef Cur c
    cdef _Reader r = _reader(buf, start, end, path, &c)
    return r.measurement_node(&c)


def read_device_node(buf, Py_ssize_t start, Py_ssize_t end, str path):
    """The device-level index node at ``start`` (not past ``end``): what
    read_index_node(cur := Cursor(buf, start, end, path), device_level=True) returns, and the
    offset after it (cur.pos then)."""
    cdef Cur c
    cdef _Reader r = _reader(buf, start, end, path, &c)
    node = r.device_node(&c)
    return node, c.pos


def read_leaf_series(buf, node, Py_ssize_t lo, Py_ssize_t hi, str path, list out):
    """tsfile._format.index.IndexWalker._series over one LEAF_MEASUREMENT ``node`` in one call
    (a call per leaf entry, each acquiring the buffer, was most of a device's series read):
    for each entry in order, its child range checked to lie in the metadata area [lo, hi), the
    TimeseriesMeta records of that range appended to ``out`` (as read_series_range reads them),
    and the first of them checked to be the one the entry names. The walker's errors, message
    for message, in the walker's order."""
    entries = node.entries
    cdef Py_ssize_t i, n = len(entries), start, end, first
    cdef Py_ssize_t size = len(buf)
    cdef Cur c
    cdef _Reader r = _reader(buf, 0, 0, path, &c)
    for i in range(n):
        e = entries[i]
        start = e.offset
        end = entries[i + 1].offset if i + 1 < n else node.end_offset
        if not (lo <= start < end <= hi):
            raise r.error(f"index child range [{start}, {end}) outside the metadata area",
                          node.at)
        if end > size:  # as _reader refuses it: [lo, hi) lies in the buffer for a reader
            raise ValueError(f"range [{start}, {end}) outside a buffer of {size} bytes")
        c.pos = start
        c.end = end
        first = len(out)
        while c.pos < c.end:
            out.append(r.series(&c))
        if len(out) == first or out[first].measurement != e.key:
            raise r.error(f"index entry {e.key!r} does not name the first series of its range",
                          e.at)


cdef inline int _binstr_span(Cur *c, Py_ssize_t *at, Py_ssize_t *n) noexcept:
    """An i32 length (not negative) + that many bytes present: their offset and length; -1 when
    they are not there."""
    cdef int32_t k
    if c.end - c.pos < 4:
        return -1
    k = <int32_t>be32(c.buf + c.pos)
    c.pos += 4
    if k < 0 or k > c.end - c.pos:
        return -1
    at[0] = c.pos
    n[0] = k
    c.pos += k
    return 0


def table_schema_columns(buf, Py_ssize_t start, Py_ssize_t end):
    """The columns of the table schema at ``start`` (not past ``end``) as raw codes, for
    metadata.read_table_schema's fast path: ([(name, data type, encoding, compression,
    category)], offset after the schema), or None when a length or count is out of bounds or a
    name is not valid UTF-8 (the Python parse then reads it and names the error). The codes
    are not checked here: the caller checks them against the codes it knows."""
    cdef Cur c
    cdef _Reader r = _reader(buf, start, end, "", &c)
    cdef int64_t n
    cdef Py_ssize_t k, q, at, ln
    cdef int32_t props, cat
    cdef int dt, enc, comp
    # the column count, as _Reader.uvarint reads it, declined instead of raising
    if read_uvarint32(&c, &n) != 0:
        return None
    if n * 14 > c.end - c.pos:  # a column takes at least 4+0+3+4+4 bytes
        return None
    columns = []
    for k in range(n):
        if _binstr_span(&c, &at, &ln) < 0:
            return None
        try:
            name = (<const char *>c.buf)[at:at + ln].decode("utf-8")
        except UnicodeDecodeError:
            return None
        if c.end - c.pos < 7:
            return None
        dt, enc, comp = c.buf[c.pos], c.buf[c.pos + 1], c.buf[c.pos + 2]
        props = <int32_t>be32(c.buf + c.pos + 3)
        c.pos += 7
        if props < 0 or <int64_t>props * 8 > c.end - c.pos:
            return None
        for q in range(2 * props):
            if _binstr_span(&c, &at, &ln) < 0:
                return None
        if c.end - c.pos < 4:
            return None
        cat = <int32_t>be32(c.buf + c.pos)
        c.pos += 4
        columns.append((name, dt, enc, comp, cat))
    return columns, c.pos
