"""The compiled TimeseriesMetadata parser (tsfile._format.cparse) against the Python one
(tsfile._format.metadata): the same records on every fixture, and the same outcome, record for
record or CorruptDataError message for message (file offset included), on damaged, cut and
randomly mutated ranges. The reader walks the index with the compiled parser, so any difference
here would be a difference in what it reads or reports."""

from __future__ import annotations

import copy
import math
import random
import struct
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tsfile import CorruptDataError
from tsfile._format import cparse
from tsfile._format.bytes import Cursor, binstr, i64, svarint, uvarint
from tsfile._format.constants import TAIL_SIZE, IndexNodeType
from tsfile._format.metadata import (
    KeyOrder,
    first_unordered,
    read_file_metadata,
    read_index_node,
    read_series_range,
    read_timeseries_metadata,
)
from tsfile._format.statistics import LAYOUTS, Statistics, read_statistics
from tsfile.types import TSDataType

FIXTURES = sorted((Path(__file__).parent / "fixtures").rglob("*.tsfile"))


def _value(v):
    """A statistics field comparable exactly: floats by their bits (NaN equals itself)."""
    if isinstance(v, float):
        return ("float", struct.pack(">d", v))
    return (type(v).__name__, v)


def _stats(st: Statistics):
    return tuple(_value(getattr(st, n)) for n in Statistics.__slots__)


def _record(tsm):
    chunks = [(c.offset, _stats(c.statistics), c.statistics is tsm.statistics) for c in tsm.chunks]
    return (tsm.measurement, tsm.data_type, _stats(tsm.statistics), chunks, tsm.at)


def _outcome(fn, *args):
    """The records fn returns, or the error it raises (type and message)."""
    try:
        return ("ok", [_record(t) for t in fn(*args)])
    except CorruptDataError as exc:
        return ("error", str(exc))


def _index_ranges(buf, meta, path):
    """Every measurement-level node range and every leaf (series) range of the file's index:
    ([(start, end)] of the nodes, [(start, end)] of the leaves)."""
    nodes, leaves = [], []

    def walk(node):
        for i in range(len(node.entries)):
            start, end = node.child_range(i)
            if node.node_type == IndexNodeType.LEAF_MEASUREMENT:
                leaves.append((start, end))
            elif node.node_type == IndexNodeType.INTERNAL_DEVICE:
                walk(read_index_node(Cursor(buf, start, end, path), device_level=True))
            else:  # a device's measurement root, or an internal measurement node's child
                nodes.append((start, end))
                walk(read_index_node(Cursor(buf, start, end, path), device_level=False))

    for root in meta.table_roots.values():
        walk(root)
    return nodes, leaves


def _file_index(path):
    data = path.read_bytes()
    meta = read_file_metadata(data, len(data), str(path))
    return (data, *_index_ranges(data, meta, str(path)))


def _file_ranges(path):
    data, _nodes, leaves = _file_index(path)
    return data, leaves


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_every_fixture_parses_the_same(path):
    data, ranges = _file_ranges(path)
    for start, end in ranges:
        want = _outcome(read_series_range, data, start, end, str(path))
        assert want[0] == "ok" and want[1]
        assert _outcome(cparse.read_series_range, data, start, end, str(path)) == want


def test_fixtures_cover_every_statistics_layout():
    """The fixture test above saw every data type's statistics (else a layout is untested)."""
    seen = set()
    for path in FIXTURES:
        data, ranges = _file_ranges(path)
        for start, end in ranges:
            seen.update(t.data_type for t in cparse.read_series_range(data, start, end, "f"))
    assert set(LAYOUTS) <= seen, set(LAYOUTS) - seen


# The damage tests parse a range once per cut or damaged byte, so their cost grows with the
# square of its length. A range is cut to its first SAMPLE_RECORDS whole records: the compiled
# parser reads record after record in one loop with nothing that depends on a record's index, so
# past every data type of the range (fields_300's leaf of 256 records, 17 KB, repeats a cycle of
# 11 types; every other sampled leaf holds at most 9 records and stays whole) more records add
# offsets, not paths. _prefix_of_records checks that the prefix keeps every type of the range.
SAMPLE_RECORDS = 24


def _prefix_of_records(data, start, end, count):
    """The end of the first ``count`` whole records of data[start:end] (end if it has fewer),
    found with the Python parser; the prefix holds every data type of the whole range."""
    cur = Cursor(data, start, end, "prefix")
    kinds, kept, cut = set(), set(), end
    while cur.remaining() > 0:
        tsm = read_timeseries_metadata(cur)
        kinds.add(tsm.data_type)
        if count:
            count -= 1
            kept.add(tsm.data_type)
            cut = cur.pos
    assert kept == kinds, (kinds - kept, "raise SAMPLE_RECORDS")
    return cut


def _sample_ranges(limit=12):
    """A few leaf ranges from different fixtures (the damage tests parse them many times), each
    cut to its first SAMPLE_RECORDS records."""
    out = []
    for path in FIXTURES[:: max(1, len(FIXTURES) // limit)]:
        data, ranges = _file_ranges(path)
        if not ranges:  # a file with no series
            continue
        start, end = ranges[0]
        end = _prefix_of_records(data, start, end, SAMPLE_RECORDS)
        out.append(pytest.param(data[:end], start, end, id=path.stem))
    return out


@pytest.mark.parametrize(("data", "start", "end"), _sample_ranges())
def test_every_cut_fails_the_same(data, start, end):
    for cut in range(start, end):
        want = _outcome(read_series_range, data, start, cut, "cut")
        assert _outcome(cparse.read_series_range, data, start, cut, "cut") == want, cut


@pytest.mark.parametrize(("data", "start", "end"), _sample_ranges())
def test_damaged_bytes_fail_the_same(data, start, end):
    buf = bytearray(data)
    rng = random.Random(start)
    positions = list(range(start, min(end, start + 120)))
    positions += rng.sample(range(start, end), min(120, end - start))
    for pos in positions:
        old = buf[pos]
        for b in {0x00, 0xFF, 0x80, 0x7F, old ^ 0x01, rng.randrange(256)}:
            buf[pos] = b
            want = _outcome(read_series_range, buf, start, end, "dmg")
            got = _outcome(cparse.read_series_range, buf, start, end, "dmg")
            assert got == want, (pos, b)
        buf[pos] = old


def _series_bytes(name: bytes, data_type: int, stats: bytes, chunks: bytes, ts_type=1) -> bytes:
    return (
        bytes([ts_type])
        + svarint(len(name))
        + name
        + bytes([data_type])
        + uvarint(len(chunks))
        + stats
        + chunks
    )


def _stats_bytes(t, count=3, start=10, end=20, values=None):
    st = Statistics(t, count, start, end)
    for name, v in (values or {}).items():
        setattr(st, name, v)
    return st.serialize()


HOSTILE = {
    "negative name length": bytes([1]) + svarint(-5),
    "name length past the end": bytes([1]) + svarint(1 << 30) + b"x",
    "six-byte varint": bytes([1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]),
    "varint over 32 bits": bytes([1, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]),
    "null name": bytes([1]) + svarint(-1),
    "bad UTF-8 name": _series_bytes(b"a\xffb", 2, b"", b""),
    "unknown data type 7": _series_bytes(b"s", 7, b"", b""),
    "unknown data type 12": _series_bytes(b"s", 12, b"", b""),
    "chunk list past the end": bytes([1]) + svarint(1) + b"s" + bytes([2]) + uvarint(1 << 31),
    "no chunk": _series_bytes(b"s", 2, _stats_bytes(TSDataType.INT64), b""),
    "bytes after the one chunk": _series_bytes(
        b"s", 2, _stats_bytes(TSDataType.INT64), i64(100) + b"\x00", ts_type=0
    ),
    "negative string statistics length": _series_bytes(
        b"s", 5, uvarint(1) + i64(1) + i64(2) + struct.pack(">i", -3), b""
    ),
    "huge string statistics length": _series_bytes(
        b"s", 11, uvarint(1) + i64(1) + i64(2) + struct.pack(">i", 1 << 30), b""
    ),
    "statistics cut in the times": _series_bytes(b"s", 4, uvarint(1) + i64(1), b""),
}


@pytest.mark.parametrize("raw", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_records_fail_the_same(raw):
    buf = b"\x00" * 7 + raw  # the record at file offset 7
    want = _outcome(read_series_range, buf, 7, len(buf), "h")
    assert want[0] == "error" and "at file offset" in want[1]
    assert _outcome(cparse.read_series_range, buf, 7, len(buf), "h") == want


def _typed_values(t):
    """Statistics values of data type ``t`` at the edges of their ranges."""
    if t in (TSDataType.INT32, TSDataType.DATE):
        return {"min": -(2**31), "max": 2**31 - 1, "first": -1, "last": 7, "sum": -(2**63)}
    if t in (TSDataType.INT64, TSDataType.TIMESTAMP):
        return {"min": -(2**63), "max": 2**63 - 1, "first": 0, "last": -9, "sum": -1.5e300}
    if t in (TSDataType.FLOAT, TSDataType.DOUBLE):
        return {"min": -math.inf, "max": math.nan, "first": -0.0, "last": 1.5, "sum": math.nan}
    if t == TSDataType.BOOLEAN:
        return {"first": True, "last": False, "sum": 2**62}
    if t == TSDataType.TEXT:
        return {"first": b"", "last": b"\xff\x00"}
    if t == TSDataType.STRING:
        return {"first": b"a", "last": b"zz", "min": b"", "max": b"\xfe"}
    return {}


@pytest.mark.parametrize("t", list(LAYOUTS), ids=lambda t: t.name)
def test_statistics_of_every_type_match(t):
    raw = _stats_bytes(t, 5, -(2**63), 2**63 - 1, _typed_values(t))
    buf = b"\x00" * 3 + raw
    want, pos = read_statistics(Cursor(buf, 3, len(buf), "s"), int(t)), len(buf)
    got, got_pos = cparse.read_statistics_at(buf, 3, len(buf), int(t), "s")
    assert _stats(got) == _stats(want) and got_pos == pos
    # multi-chunk record: its chunks' statistics are parsed by the same code
    rec = _series_bytes(b"m", int(t), raw, i64(9) + raw + i64(19) + raw)
    assert _outcome(cparse.read_series_range, rec, 0, len(rec), "r") == _outcome(
        read_series_range, rec, 0, len(rec), "r"
    )


def test_read_series_at_is_one_record():
    data, ranges = _file_ranges(FIXTURES[0])
    start, end = ranges[0]
    cur = Cursor(data, start, end, "x")
    want = read_timeseries_metadata(cur)
    got, pos = cparse.read_series_at(data, start, end, "x")
    assert _record(got) == _record(want) and pos == cur.pos


def test_ranges_outside_the_buffer_are_refused():
    with pytest.raises(ValueError):
        cparse.read_series_range(b"abc", 2, 5, "x")
    with pytest.raises(ValueError):
        cparse.read_series_range(b"abc", -1, 2, "x")
    with pytest.raises(ValueError):
        cparse.read_statistics_at(b"abc" * 10, 0, 30, 7, "x")
    assert cparse.read_series_range(b"", 0, 0, "x") == []


def test_the_walker_uses_the_compiled_parser(monkeypatch):
    """The reader reads series through cparse (so the tests above cover what it reads)."""
    import tsfile
    from tsfile._format import index

    calls = []

    def spy(*args):
        calls.append(args[1])
        return cparse.read_leaf_series(*args)

    monkeypatch.setattr(index, "read_leaf_series", spy)
    with tsfile.TsFileReader(str(FIXTURES[0])) as r:
        r.get_timeseries_metadata()
    assert calls


def test_binstr_helper_is_the_one_the_statistics_use():
    # the hostile cases above build statistics bytes with this writer-side helper
    assert binstr(b"ab") == struct.pack(">i", 2) + b"ab"


def _first_unordered_by_pairs(keys):
    """The reference: KeyOrder over every pair, as the index checks were written first."""
    order = KeyOrder()
    for i in range(1, len(keys)):
        if not order.increases(keys[i - 1], keys[i]):
            return i
    return None


# ASCII, a supplementary character and one in U+E000..U+FFFF (the two writers' orders differ
# only between those), so that both the one-pass ASCII path and KeyOrder are taken
_NAME = st.text(alphabet=st.sampled_from(["a", "b", "Z", "\U0001f600", "\ue000", "\uffff"]))


@given(st.lists(_NAME, max_size=8))
@settings(max_examples=400, deadline=None)
def test_first_unordered_is_the_pairwise_key_order(keys):
    assert first_unordered(keys) == _first_unordered_by_pairs(keys)


@pytest.mark.parametrize(
    "keys",
    [
        ["a", "b", "c"],
        ["a", "a"],
        ["b", "a"],
        ["\U0001f600", "\ue000", "\U0001f600"],  # a mix of the two orders names X twice
        ["\ue000", "\U0001f600"],  # C++ order
        ["\U0001f600", "\ue000"],  # Java order
        [],
        ["x"],
    ],
)
def test_first_unordered_examples(keys):
    assert first_unordered(keys) == _first_unordered_by_pairs(keys)


def _node(node):
    return (
        node.node_type,
        [(e.key, e.offset, e.at) for e in node.entries],
        node.end_offset,
        node.at,
    )


def _py_node(buf, start, end, path):
    return read_index_node(Cursor(buf, start, end, path), device_level=False)


def _node_outcome(fn, *args):
    try:
        return ("ok", _node(fn(*args)))
    except CorruptDataError as exc:
        return ("error", str(exc))


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_every_fixture_index_node_parses_the_same(path):
    data, nodes, _leaves = _file_index(path)
    for start, end in nodes:
        want = _node_outcome(_py_node, data, start, end, str(path))
        assert want[0] == "ok"
        assert _node_outcome(cparse.read_measurement_node, data, start, end, str(path)) == want


def _sample_nodes(limit=8):
    out = []
    for path in FIXTURES[:: max(1, len(FIXTURES) // limit)]:
        data, nodes, _leaves = _file_index(path)
        if nodes:
            start, end = nodes[0]
            out.append(pytest.param(data[:end], start, end, id=path.stem))
    return out


@pytest.mark.parametrize(("data", "start", "end"), _sample_nodes())
def test_index_node_cuts_and_damage_fail_the_same(data, start, end):
    for cut in range(start, end):
        want = _node_outcome(_py_node, data, start, cut, "cut")
        assert _node_outcome(cparse.read_measurement_node, data, start, cut, "cut") == want
    buf = bytearray(data)
    rng = random.Random(end)
    for pos in range(start, end):
        old = buf[pos]
        for b in {0x00, 0xFF, 0x80, 0x02, old ^ 0x01, rng.randrange(256)}:
            buf[pos] = b
            want = _node_outcome(_py_node, buf, start, end, "dmg")
            assert _node_outcome(cparse.read_measurement_node, buf, start, end, "dmg") == want
        buf[pos] = old


def _node_bytes(names, node_type, offsets=None, end_offset=1000):
    offsets = offsets or [100 + 10 * i for i in range(len(names))]
    body = b"".join(
        (b"\x01" if n is None else svarint(len(n)) + n) + i64(o)
        for n, o in zip(names, offsets, strict=True)
    )
    return uvarint(len(names)) + body + i64(end_offset) + bytes([node_type])


HOSTILE_NODES = {
    "child count past the bytes": uvarint(1000) + b"\x00" * 20,
    "null entry name": _node_bytes([None], 3),
    "unknown node type": _node_bytes([b"a"], 4),
    "device-level node type": _node_bytes([b"a"], 1),
    "duplicate name": _node_bytes([b"a", b"a"], 3),
    "names out of order": _node_bytes([b"b", b"a"], 2),
    "mixed writer orders": _node_bytes(
        ["\U0001f600".encode(), "\ue000".encode(), "\U0001f600".encode()], 3
    ),
    "bad UTF-8 name": _node_bytes([b"\xc3("], 3),
    "cut before the type": _node_bytes([b"a"], 3)[:-1],
}


@pytest.mark.parametrize("raw", HOSTILE_NODES.values(), ids=HOSTILE_NODES.keys())
def test_hostile_index_nodes_fail_the_same(raw):
    buf = b"\x00" * 5 + raw
    want = _node_outcome(_py_node, buf, 5, len(buf), "n")
    assert want[0] == "error" and "at file offset" in want[1]
    assert _node_outcome(cparse.read_measurement_node, buf, 5, len(buf), "n") == want


# -- a leaf node's series in one call (cparse.read_leaf_series, the index walker's leaf step) --


def _leaf_series_reference(buf, node, lo, hi, path):
    """The walker's leaf step in Python (as IndexWalker._series ran it before it was compiled):
    per entry, the range check, metadata.read_series_range, the entry naming the first."""
    out = []
    for i, e in enumerate(node.entries):
        start, end = node.child_range(i)
        if not (lo <= start < end <= hi):
            raise Cursor(buf, node.at, node.at, path).error(
                f"index child range [{start}, {end}) outside the metadata area", node.at
            )
        first = len(out)
        out += read_series_range(buf, start, end, path)
        if len(out) == first or out[first].measurement != e.key:
            raise Cursor(buf, e.at, e.at, path).error(
                f"index entry {e.key!r} does not name the first series of its range", e.at
            )
    return out


def _compiled_leaf(buf, node, lo, hi, path):
    out = []
    cparse.read_leaf_series(buf, node, lo, hi, path, out)
    return out


def _leaf_nodes(path):
    """(file bytes, metadata area (lo, hi), [leaf measurement nodes]) of a fixture."""
    data = path.read_bytes()
    meta = read_file_metadata(data, len(data), str(path))
    _nodes, _leaves = _index_ranges(data, meta, str(path))
    leaves = []
    for start, end in _nodes:
        node = read_index_node(Cursor(data, start, end, str(path)), device_level=False)
        if node.node_type == IndexNodeType.LEAF_MEASUREMENT:
            leaves.append(node)
    return data, (meta.meta_offset, meta.meta_start), leaves


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_leaf_series_in_one_call_are_the_walkers(path):
    data, (lo, hi), leaves = _leaf_nodes(path)
    for node in leaves:
        want = _outcome(_leaf_series_reference, data, node, lo, hi, str(path))
        assert want[0] == "ok" and want[1]
        assert _outcome(_compiled_leaf, data, node, lo, hi, str(path)) == want


def _leaf_samples(limit=8):
    out = []
    for path in FIXTURES[:: max(1, len(FIXTURES) // limit)]:
        data, area, leaves = _leaf_nodes(path)
        if leaves:
            out.append(pytest.param(data, area, leaves[0], id=path.stem))
    return out


@pytest.mark.parametrize(("data", "area", "node"), _leaf_samples())
def test_leaf_series_fail_as_the_walker_on_damaged_bytes(data, area, node):
    """Bytes of a leaf node's records damaged, entries moved outside the metadata area or onto
    another record, the area cut short: the same records or the same error, message and file
    offset included."""
    lo, hi = area
    buf = bytearray(data)
    start, end = node.entries[0].offset, node.end_offset
    rng = random.Random(start)
    for pos in rng.sample(range(start, end), min(150, end - start)):
        old = buf[pos]
        for b in {0x00, 0xFF, 0x80, old ^ 0x01}:
            buf[pos] = b
            want = _outcome(_leaf_series_reference, buf, node, lo, hi, "dmg")
            assert _outcome(_compiled_leaf, buf, node, lo, hi, "dmg") == want, (pos, b)
        buf[pos] = old
    for e in node.entries:
        for offset in (lo - 1, hi, e.offset + 1, end):
            moved = copy.deepcopy(node)
            moved.entries[node.entries.index(e)].offset = offset
            want = _outcome(_leaf_series_reference, data, moved, lo, hi, "mv")
            assert want[0] == "error"
            assert _outcome(_compiled_leaf, data, moved, lo, hi, "mv") == want
    for cut in (end - 1, start + 1):
        want = _outcome(_leaf_series_reference, data, node, lo, cut, "cut")
        assert want[0] == "error"
        assert _outcome(_compiled_leaf, data, node, lo, cut, "cut") == want


# -- device-level index nodes (cparse.read_device_node: a file's table roots and their internal
# device nodes, read when the file is opened and its devices walked) --


def _py_device_node(buf, start, end, path):
    cur = Cursor(buf, start, end, path)
    return read_index_node(cur, device_level=True), cur.pos


def _device_outcome(fn, *args):
    """(the node, the offset after it) fn returns, or the error it raises."""
    try:
        node, pos = fn(*args)
        key_types = [type(e.key).__name__ for e in node.entries]
        segments = [e.key.segments for e in node.entries]
        return ("ok", _node(node), key_types, segments, pos)
    except CorruptDataError as exc:
        return ("error", str(exc))


def _device_ranges(path):
    """(file bytes, [(start, end)] of every device-level node of the file's index): the table
    roots (up to the end of the metadata, as read_file_metadata reads them) and the nodes under
    an internal device node."""
    data = path.read_bytes()
    meta = read_file_metadata(data, len(data), str(path))
    ranges = []

    def walk(node, start, end):
        ranges.append((start, end))
        if node.node_type == IndexNodeType.INTERNAL_DEVICE:
            for i in range(len(node.entries)):
                a, b = node.child_range(i)
                walk(read_index_node(Cursor(data, a, b, str(path)), device_level=True), a, b)

    for root in meta.table_roots.values():
        walk(root, root.at, len(data) - TAIL_SIZE)
    return data, ranges


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_every_fixture_device_node_parses_the_same(path):
    data, ranges = _device_ranges(path)
    for start, end in ranges:
        want = _device_outcome(_py_device_node, data, start, end, str(path))
        assert want[0] == "ok"
        assert _device_outcome(cparse.read_device_node, data, start, end, str(path)) == want


def test_fixtures_have_device_nodes_of_both_kinds():
    """The fixture test above saw internal and leaf device nodes and null tag segments."""
    kinds, null_segment = set(), False
    for path in FIXTURES:
        data, ranges = _device_ranges(path)
        for start, end in ranges:
            node, _pos = cparse.read_device_node(data, start, end, "f")
            kinds.add(node.node_type)
            null_segment |= any(None in e.key.segments for e in node.entries)
    assert kinds == {IndexNodeType.INTERNAL_DEVICE, IndexNodeType.LEAF_DEVICE}
    assert null_segment


def _sample_device_nodes(limit=8):
    out = []
    for path in FIXTURES[:: max(1, len(FIXTURES) // limit)]:
        data, ranges = _device_ranges(path)
        start, end = ranges[0]
        _node_, pos = _py_device_node(data, start, end, str(path))
        out.append(pytest.param(data[:pos], start, pos, id=path.stem))
    return out


@pytest.mark.parametrize(("data", "start", "end"), _sample_device_nodes())
def test_device_node_cuts_and_damage_fail_the_same(data, start, end):
    for cut in range(start, end):
        want = _device_outcome(_py_device_node, data, start, cut, "cut")
        assert want[0] == "error"
        assert _device_outcome(cparse.read_device_node, data, start, cut, "cut") == want
    buf = bytearray(data)
    rng = random.Random(end)
    positions = range(start, end)
    if len(positions) > 300:
        positions = sorted(rng.sample(positions, 300))
    for pos in positions:
        old = buf[pos]
        for b in {0x00, 0xFF, 0x80, 0x02, 0x41, old ^ 0x01, rng.randrange(256)}:
            buf[pos] = b
            want = _device_outcome(_py_device_node, buf, start, end, "dmg")
            got = _device_outcome(cparse.read_device_node, buf, start, end, "dmg")
            assert got == want, (pos, b)
        buf[pos] = old


def _device_bytes(segments):
    return uvarint(len(segments)) + b"".join(
        b"\x01" if s is None else svarint(len(s)) + s for s in segments
    )


def _device_node_bytes(devices, node_type=1, end_offset=1000):
    body = b"".join(
        (d if isinstance(d, bytes) else _device_bytes(d)) + i64(100 + 10 * i)
        for i, d in enumerate(devices)
    )
    return uvarint(len(devices)) + body + i64(end_offset) + bytes([node_type])


_SMILE, _E000 = "\U0001f600".encode(), "\ue000".encode()
HOSTILE_DEVICE_NODES = {
    "child count past the bytes": uvarint(1000) + b"\x00" * 20,
    "measurement-level node type": _device_node_bytes([[b"t", b"a"]], 3),
    "unknown node type": _device_node_bytes([[b"t", b"a"]], 9),
    "duplicate device": _device_node_bytes([[b"t", b"a"], [b"t", b"a"]]),
    "devices out of order": _device_node_bytes([[b"t", b"b"], [b"t", b"a"]]),
    "a prefix after its extension": _device_node_bytes([[b"t", b"a"], [b"t"]]),
    "a null segment after text": _device_node_bytes([[b"t", b""], [b"t", None]]),
    "duplicate null segments": _device_node_bytes([[b"t", None], [b"t", None]]),
    "mixed writer orders": _device_node_bytes([[b"t", _SMILE], [b"t", _E000], [b"t", _SMILE]]),
    "Java order then ASCII out of order": _device_node_bytes(
        [[b"t", _SMILE], [b"t", _E000], [b"t", b"b"], [b"t", b"a"]]
    ),
    "bad UTF-8 segment": _device_node_bytes([[b"t", b"\xc3("]]),
    "segment count past the bytes": _device_node_bytes([uvarint(200) + b"\x01"]),
    "segment count over the bound": _device_node_bytes([uvarint((1 << 16) + 1)]),
    "negative segment length": _device_node_bytes([uvarint(1) + svarint(-4)]),
    "segment past the end": _device_node_bytes([uvarint(1) + svarint(1 << 20)]),
    "cut before the type": _device_node_bytes([[b"t", b"a"]])[:-1],
}
GOOD_DEVICE_NODES = {
    "nulls before text, prefixes first": _device_node_bytes(
        [[b"t"], [b"t", None], [b"t", None, b"x"], [b"t", b""], [b"t", b"a"], [b"t", b"a", b"b"]]
    ),
    "an empty device ID": _device_node_bytes([uvarint(0)], 0),
    "C++ order": _device_node_bytes([[b"t", _E000], [b"t", _SMILE]]),
    "Java order": _device_node_bytes([[b"t", _SMILE], [b"t", _E000], [b"u"]]),
    "no entry": _device_node_bytes([]),
}


@pytest.mark.parametrize("raw", HOSTILE_DEVICE_NODES.values(), ids=HOSTILE_DEVICE_NODES.keys())
def test_hostile_device_nodes_fail_the_same(raw):
    buf = b"\x00" * 5 + raw
    want = _device_outcome(_py_device_node, buf, 5, len(buf), "n")
    assert want[0] == "error" and "at file offset" in want[1]
    assert _device_outcome(cparse.read_device_node, buf, 5, len(buf), "n") == want


@pytest.mark.parametrize("raw", GOOD_DEVICE_NODES.values(), ids=GOOD_DEVICE_NODES.keys())
def test_valid_device_nodes_parse_the_same(raw):
    buf = b"\x00" * 3 + raw + b"tail"
    want = _device_outcome(_py_device_node, buf, 3, len(buf), "v")
    assert want[0] == "ok"
    assert _device_outcome(cparse.read_device_node, buf, 3, len(buf), "v") == want


def test_opening_a_file_reads_its_roots_with_the_compiled_parser(monkeypatch):
    """read_file_metadata and the walker's internal device nodes go through cparse (so the
    tests above cover what the reader reads)."""
    import tsfile

    calls = []

    def spy(*args):
        calls.append(args[1])
        return real(*args)

    real = cparse.read_device_node
    monkeypatch.setattr(cparse, "read_device_node", spy)
    from tsfile._format import index

    monkeypatch.setattr(index, "read_device_node", spy)
    deep = next(p for p in FIXTURES if _has_internal_device_node(p))
    with tsfile.TsFileReader(str(deep)) as r:
        r.get_all_devices()
    meta = read_file_metadata(deep.read_bytes(), deep.stat().st_size, str(deep))
    roots = {n.at for n in meta.table_roots.values()}
    assert roots <= set(calls) and len(calls) > len(roots)


def _has_internal_device_node(path):
    data = path.read_bytes()
    meta = read_file_metadata(data, len(data), str(path))
    return any(n.node_type == IndexNodeType.INTERNAL_DEVICE for n in meta.table_roots.values())


# -- the device order of an index walk (IndexWalker.devices: C compares for ASCII devices) --

_SEGMENT = st.one_of(
    st.none(),
    st.text(alphabet=st.sampled_from(["a", "b", "Z", "\U0001f600", "\ue000"]), max_size=2),
)
_DEVICE = st.lists(_SEGMENT, min_size=1, max_size=3).map(tuple)


def _first_not_following(devices, follows):
    from tsfile._format.device import DeviceID

    order = KeyOrder()
    ids = [DeviceID(d) for d in devices]
    for i in range(1, len(ids)):
        if not follows(order, ids[i - 1], ids[i]):
            return i
    return None


@given(st.lists(_DEVICE, max_size=8))
@settings(max_examples=400, deadline=None)
def test_the_walks_device_order_is_key_order(devices):
    from tsfile._format.index import _follows

    want = _first_not_following(devices, lambda order, a, b: order.increases(a, b))
    assert _first_not_following(devices, _follows) == want


@given(_DEVICE, _DEVICE)
@settings(max_examples=400, deadline=None)
def test_ascii_device_order_is_the_sort_key_order(a, b):
    from tsfile._format.device import sort_key

    got = cparse.ascii_device_order(a, b)
    if not all(s is None or s.isascii() for s in a + b):
        assert got is None
    else:
        ka, kb = sort_key(a), sort_key(b)
        assert got == (ka > kb) - (ka < kb)
