"""The format layer shared by the reader and the writer (issue 8, item 5): one set of codes and
format constants, declared once for Python (tsfile.types, tsfile._format.constants) and once for
Cython (tsfile/_format/codes.pxd), and every table that still names codes agreeing with them."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import numpy as np
import pytest

from tsfile._format import codes, constants
from tsfile._format.bytes import Cursor, uvarint, varstr
from tsfile._format.device import serialize_device_id
from tsfile._format.metadata import read_index_node
from tsfile._read import engine
from tsfile.errors import CorruptDataError
from tsfile.types import ColumnCategory, Compressor, TSDataType, TSEncoding

ROOT = Path(__file__).resolve().parent.parent


def _members(enum_cls, prefix: str = "") -> dict[str, int]:
    """{name without prefix: value} of an enum's members."""
    return {
        name[len(prefix) :]: int(m)
        for name, m in enum_cls.__members__.items()
        if name.startswith(prefix)
    }


# (Cython enum of codes.pxd, its member prefix, the Python declaration)
CODE_PAIRS = [
    (codes.DataTypeCode, "T_", TSDataType),
    (codes.EncodingCode, "E_", TSEncoding),
    (codes.CompressorCode, "C_", Compressor),
    (codes.ColumnCategoryCode, "CAT_", ColumnCategory),
    (codes.IndexNodeTypeCode, "NODE_", constants.IndexNodeType),
]


@pytest.mark.parametrize(
    "pxd_enum, prefix, py_enum", CODE_PAIRS, ids=lambda x: getattr(x, "__name__", x)
)
def test_pxd_codes_equal_python_enums(pxd_enum, prefix, py_enum):
    # Same names and same values in both directions: a code added, removed or renumbered on one
    # side only fails here.
    assert _members(pxd_enum, prefix) == _members(py_enum)
    assert len(_members(pxd_enum, prefix)) == len(pxd_enum.__members__)


def test_pxd_markers_and_version_equal_python_constants():
    pxd = _members(codes.MarkerCode, "MARKER_")
    py = _members(constants.Marker)
    py["TIME_COLUMN_MASK"] = constants.TIME_COLUMN_MASK
    py["VALUE_COLUMN_MASK"] = constants.VALUE_COLUMN_MASK
    assert pxd == py
    assert int(codes.FormatVersionCode.FORMAT_VERSION) == constants.VERSION


def test_header_and_tail_constants():
    assert constants.HEADER == b"TsFile\x04"
    assert constants.HEADER_SIZE == 7
    assert constants.TAIL_SIZE == 10


def _engine_source() -> str:
    return (ROOT / "tsfile" / "_read" / "engine.pyx").read_text()


def test_engine_spells_no_encoding_codes_and_the_registry_names_them_as_the_format():
    """Codecs are found through the registry (tsfile.codecs._registry), whose names are
    TSEncoding's; the engine keeps no encoding table of its own that could drift."""
    from tsfile.codecs import _registry

    src = _engine_source()
    assert not re.search(r"^\s+E_[A-Z0-9_]+ = \d+\s*$", src, re.M)
    assert "_ENCODING_NAMES" not in src
    for enc in TSEncoding:
        assert _registry.encoding_name(int(enc)) == enc.name
    for row in _registry.rows():
        assert TSEncoding(row.encoding).name == _registry.encoding_name(row.encoding)


def test_engine_spells_no_type_or_compression_codes_of_its_own():
    # The engine cimports them from codes.pxd; a local copy could drift.
    src = _engine_source()
    assert not re.search(r"^\s+[TC]_[A-Z0-9_]+ = \d+\s*$", src, re.M)
    assert "from tsfile._format.codes cimport" in src


@pytest.mark.parametrize("dt", [t for t in TSDataType if t != TSDataType.UNKNOWN], ids=str)
def test_engine_numpy_dtype_is_the_types_table(dt):
    assert engine.numpy_dtype(int(dt)) == dt.numpy_dtype


def test_written_file_starts_and_ends_with_the_constants(tmp_path):
    from tsfile import ColumnCategory as Cat
    from tsfile import ColumnSchema, TableSchema, Tablet, TsFileWriter

    path = tmp_path / "f.tsfile"
    schema = TableSchema(
        "t", [ColumnSchema("id", TSDataType.STRING, Cat.TAG), ColumnSchema("v", TSDataType.INT64)]
    )
    with TsFileWriter(str(path)) as w:
        w.register_table(schema)
        tab = Tablet(["id", "v"], [TSDataType.STRING, TSDataType.INT64], 2)
        for r in range(2):
            tab.add_timestamp(r, r)
            tab.add_value_by_name("id", r, "d")
            tab.add_value_by_name("v", r, np.int64(r))
        w.write_table(tab)
    data = path.read_bytes()
    assert data.startswith(constants.HEADER)
    assert data.endswith(constants.MAGIC)
    # the chunk group of the one device follows the header
    assert data[constants.HEADER_SIZE] == constants.Marker.CHUNK_GROUP_HEADER


# ------------------------------------------------------------------------------------------------
# DeviceID: one byte encoding, one order, one UTF-8 policy


def _schema(table="t", tag="id", field="v"):
    from tsfile import ColumnSchema, TableSchema

    return TableSchema(
        table,
        [
            ColumnSchema(tag, TSDataType.STRING, ColumnCategory.TAG),
            ColumnSchema(field, TSDataType.INT64, ColumnCategory.FIELD),
        ],
    )


def _write_devices(path, tags, schema=None):
    """One row per tag value (None: a null tag) into table t; returns the writer's file bytes."""
    from tsfile import Tablet, TsFileWriter

    schema = schema or _schema()
    names = [c.column_name for c in schema.get_columns()]
    with TsFileWriter(str(path)) as w:
        w.register_table(schema)
        tab = Tablet(names, [TSDataType.STRING, TSDataType.INT64], len(tags))
        for r, tag in enumerate(tags):
            tab.add_timestamp(r, r)
            if tag is not None:
                tab.add_value_by_name(names[0], r, tag)
            tab.add_value_by_name(names[1], r, np.int64(r))
        w.write_table(tab)
    return path.read_bytes()


# Segments whose UTF-8 order differs from their UTF-16 (Java) and code point orders are all
# covered: U+FFFD sorts before U+1F600 in UTF-8 bytes and after it in UTF-16 units.
SEGMENTS = [None, "", "a", "a.b", "\u00e9", "\ufffd", "\U0001f600", "z" * 200]


@pytest.mark.parametrize("tag", SEGMENTS, ids=repr)
def test_device_id_bytes_round_trip(tag):
    from tsfile._format.bytes import Cursor
    from tsfile._format.device import DeviceID, read_device_id, serialize_device_id

    segments = ("t", tag)
    data = serialize_device_id(segments)
    assert DeviceID(segments).serialize() == data
    got = read_device_id(Cursor(data, 0, len(data)))
    assert got.segments == segments
    assert got == DeviceID(segments)


def test_device_order_is_utf8_bytes_null_first_prefix_first():
    from tsfile._format.device import DeviceID, sort_key

    devices = [("t", s) for s in SEGMENTS] + [("t",), ("t", "a", "b")]
    by_key = sorted(devices, key=sort_key)
    expected = sorted(
        devices,
        key=lambda d: [(s is not None, (s or "").encode("utf-8")) for s in d],
    )
    assert by_key == expected
    assert sort_key(("t", "\ufffd")) < sort_key(("t", "\U0001f600"))  # UTF-8, not UTF-16
    assert sorted(DeviceID(d) for d in devices) == [DeviceID(d) for d in by_key]


def test_written_devices_are_read_back_in_the_shared_order(tmp_path):
    from tsfile import TsFileReader
    from tsfile._format.device import DeviceID, sort_key

    tags = ["\U0001f600", "b", None, "\ufffd", "a", "\u00e9"]
    _write_devices(tmp_path / "d.tsfile", tags)
    with TsFileReader(str(tmp_path / "d.tsfile")) as r:
        got = r.get_all_devices()
    assert got == [DeviceID(d) for d in sorted((("t", s) for s in tags), key=sort_key)]


def test_table_name_with_lone_surrogate_is_refused_at_registration(tmp_path):
    # before: accepted, then UnicodeEncodeError while sorting devices at close(), and close()
    # itself failed, leaving a file without its metadata
    from tsfile import TsFileReader, TsFileWriter
    from tsfile.errors import TypeMismatchError

    path = tmp_path / "s.tsfile"
    with TsFileWriter(str(path)) as w:
        with pytest.raises(TypeMismatchError, match=r"table name 't\\udc80'.*character 1"):
            w.register_table(_schema(table="t\udc80"))
    with TsFileReader(str(path)) as r:  # the file is complete (and empty)
        assert r.get_all_devices() == []


def test_column_name_with_lone_surrogate_is_refused(tmp_path):
    # before: UnicodeEncodeError (not a TsFileError) from register_table
    from tsfile import TsFileWriter
    from tsfile.errors import TypeMismatchError

    with TsFileWriter(str(tmp_path / "c.tsfile")) as w:
        with pytest.raises(TypeMismatchError, match=r"column name 'v\\udc81'"):
            w.register_table(_schema(field="v\udc81"))
        w.register_table(_schema())  # the writer stays usable


def test_property_with_lone_surrogate_is_refused_when_added(tmp_path):
    # before: the key was accepted and close() raised UnicodeEncodeError writing the metadata;
    # a str value raised UnicodeEncodeError (not a TsFileError)
    from tsfile import TsFileReader, TsFileWriter
    from tsfile.errors import TypeMismatchError

    path = tmp_path / "p.tsfile"
    with TsFileWriter(str(path)) as w:
        with pytest.raises(TypeMismatchError, match="property key"):
            w.add_tsfile_property("k\udc80", b"v")
        with pytest.raises(TypeMismatchError, match="value"):
            w.add_tsfile_property("k", "v\udc80")
        with pytest.raises(TypeMismatchError, match="must be bytes"):
            w.add_tsfile_property("k", "v")  # the official rule: values are bytes
        w.add_tsfile_property("k", b"v")
    with TsFileReader(str(path)) as r:
        assert r.get_tsfile_properties()["k"] == b"v"


def test_tag_value_with_lone_surrogate_is_refused_at_the_write_call(tmp_path):
    from tsfile.errors import TypeMismatchError

    with pytest.raises(TypeMismatchError, match="not valid Unicode"):
        _write_devices(tmp_path / "g.tsfile", ["ok", "x\udc80"])


# ------------------------------------------------------------------------------------------------
# statistics: one model for both directions

SAMPLES = {
    TSDataType.BOOLEAN: [True, False, True],
    TSDataType.INT32: [5, -(2**31), 2**31 - 1],
    TSDataType.DATE: [20240101, 19700101, 99991231],
    TSDataType.INT64: [7, -(2**63), 2**63 - 1],
    TSDataType.TIMESTAMP: [0, -5, 1 << 40],
    TSDataType.FLOAT: [1.5, -np.inf, 3.25],
    TSDataType.DOUBLE: [0.1, -0.0, 1e300],
    TSDataType.TEXT: [b"b", b"\xc3\xa9", b""],
    TSDataType.STRING: [b"m", b"a", b"\xf0\x9f\x98\x80"],
    TSDataType.BLOB: [b"\x00", b"\xff", b"x"],
    TSDataType.VECTOR: [1, 2, 3],
}


def _model_statistics(dt, values, times):
    """Statistics of values by the rules of format notes 6, computed independently here."""
    from tsfile._format.statistics import LAYOUTS, Statistics

    fields = LAYOUTS[dt].fields
    if dt in (TSDataType.INT64, TSDataType.TIMESTAMP, TSDataType.FLOAT, TSDataType.DOUBLE):
        total = 0.0  # a double, added value by value as the official writers do
        for v in values:
            total += float(v)
    else:
        total = int(sum(values)) if "sum" in fields else None
    computed = {
        "min": min(values),
        "max": max(values),
        "first": values[0],
        "last": values[-1],
        "sum": total,
    }
    st = Statistics(dt, len(values), times[0], times[-1])
    for name in fields:
        setattr(st, name, computed[name])
    return st


def test_every_written_type_has_one_statistics_layout():
    from tsfile._format.statistics import LAYOUTS, NUMERIC_TYPES

    assert set(LAYOUTS) == set(TSDataType) - {TSDataType.UNKNOWN}
    assert NUMERIC_TYPES == {
        TSDataType.BOOLEAN,
        TSDataType.INT32,
        TSDataType.DATE,
        TSDataType.INT64,
        TSDataType.TIMESTAMP,
        TSDataType.FLOAT,
        TSDataType.DOUBLE,
    }
    # the reader and the writer use the same class
    import tsfile._format.metadata as reader_meta
    import tsfile._write.metadata as writer_meta
    import tsfile._write.statistics as writer_stats
    from tsfile._format.statistics import Statistics

    assert reader_meta.Statistics is writer_stats.Statistics is writer_meta.Statistics is Statistics


@pytest.mark.parametrize("dt", list(SAMPLES), ids=str)
def test_statistics_serialize_then_parse_round_trips(dt):
    from tsfile._format.bytes import Cursor
    from tsfile._format.statistics import read_statistics

    st = _model_statistics(dt, SAMPLES[dt], [10, 20, 30])
    data = st.serialize()
    back = read_statistics(Cursor(data, 0, len(data)), int(dt))
    assert back == st
    assert back.serialize() == data


@pytest.mark.parametrize("dt", list(SAMPLES), ids=str)
def test_empty_statistics_are_zeros(dt):
    from tsfile._format.statistics import LAYOUTS, Statistics

    layout = LAYOUTS[dt]
    typed = layout.fixed.size if layout.fixed is not None else 4 * len(layout.fields)
    assert Statistics(dt).serialize() == bytes(1 + 16 + typed)


@pytest.mark.parametrize(
    "dt",
    [
        t
        for t in SAMPLES
        if t not in (TSDataType.TEXT, TSDataType.STRING, TSDataType.BLOB, TSDataType.VECTOR)
    ],
    ids=str,
)
def test_compiled_page_statistics_equal_the_model(dt):
    """_stats.pyx serializes numeric page statistics in C: byte for byte the model's layout, and
    its chunk statistics the model's merge of the pages."""
    from tsfile._format.statistics import Statistics
    from tsfile._write.statistics import numeric_value_statistics

    vals = SAMPLES[dt] + SAMPLES[dt][::-1] + SAMPLES[dt][:1]
    arr = np.array(vals, dtype=dt.numpy_dtype)
    times = np.arange(100, 100 + len(vals), dtype=np.int64)
    offsets = [0, 3, 3, 7]  # three pages, the middle one empty
    pages, chunk = numeric_value_statistics(dt, arr, times, offsets, True)
    expected_pages, merged = [], Statistics(dt)
    for a, b in zip(offsets[:-1], offsets[1:], strict=True):
        if a == b:
            expected_pages.append(None)
            continue
        st = _model_statistics(dt, arr[a:b].tolist(), times[a:b].tolist())
        expected_pages.append(st.serialize())
        merged.merge(st)
    assert pages == expected_pages
    assert chunk.serialize() == merged.serialize()


def test_statistics_of_a_written_file_parse_to_the_writers_statistics(tmp_path):
    """What the writer serializes into the index is what the reader parses (one model)."""
    from tsfile import TsFileReader
    from tsfile._format.statistics import Statistics

    _write_devices(tmp_path / "w.tsfile", ["a", "a", "a"])
    with TsFileReader(str(tmp_path / "w.tsfile")) as r:
        ((dev, rng),) = r._devices("t")
        series = r._series("t", rng)
    st = series["v"].statistics
    assert isinstance(st, Statistics)
    assert (st.count, st.start_time, st.end_time) == (3, 0, 2)
    assert (st.min, st.max, st.first, st.last, st.sum) == (0, 2, 0, 2, 3.0)


def test_devices_in_the_java_writers_order_are_read(tmp_path, monkeypatch):
    """The Java writer sorts devices by String.compareTo (UTF-16 units): U+1F600 before U+FFFD,
    the reverse of the C++ (UTF-8) order. Before: such an index was CorruptDataError "out of
    order" (and a bisect in the UTF-8 order could not find its devices)."""
    import tsfile._write.metadata as writer_meta
    import tsfile.writer as writer_mod
    from tsfile import TsFileReader
    from tsfile._format.device import DeviceID, java_sort_key, sort_key

    tags = ["\ufffd", "\U0001f600", "a", "\ue000x", None]
    java = sorted((("t", s) for s in tags), key=java_sort_key)
    assert java != sorted(java, key=sort_key)  # the two orders differ for these devices
    monkeypatch.setattr(writer_meta, "sort_key", java_sort_key)  # write as Java would
    monkeypatch.setattr(writer_mod, "sort_key", java_sort_key)
    _write_devices(tmp_path / "j.tsfile", tags)
    monkeypatch.undo()
    with TsFileReader(str(tmp_path / "j.tsfile")) as r:
        assert r.get_all_devices() == [DeviceID(d) for d in java]
        for d in java:
            assert r.get_timeseries_names(DeviceID(d)) == ["v"]


def test_duplicate_device_is_refused_in_either_order():
    from tsfile._format.device import DeviceID
    from tsfile._format.metadata import KeyOrder

    a, b = DeviceID(("t", "\ufffd")), DeviceID(("t", "\U0001f600"))
    assert KeyOrder().increases(a, b) and KeyOrder().increases(b, a)  # C++ order, Java order
    assert not KeyOrder().increases(a, DeviceID(("t", "\ufffd")))
    assert not KeyOrder().increases(DeviceID(("t", "b")), DeviceID(("t", "a")))
    order = KeyOrder()  # one order per sequence: a, b (C++) then b, a (Java) is a mix
    assert order.increases(a, b) and not order.increases(b, a)


# -- one order per sequence of index keys (issue-8 review) ------------------------------

# U+10000 sorts before U+FFFF in Java's order (UTF-16 units) and after it in C++'s (UTF-8 bytes).
_SUPP, _BMP = "\U00010000", "\uffff"


def _device_leaf(devices) -> bytes:
    body = b"".join(
        serialize_device_id(d) + struct.pack(">q", 100 * (i + 1)) for i, d in enumerate(devices)
    )
    return uvarint(len(devices)) + body + struct.pack(">q", 100 * (len(devices) + 1)) + b"\x01"


def _measurement_leaf(names) -> bytes:
    body = b"".join(varstr(n) + struct.pack(">q", 100 * (i + 1)) for i, n in enumerate(names))
    return uvarint(len(names)) + body + struct.pack(">q", 100 * (len(names) + 1)) + b"\x03"


def test_index_node_rejects_a_repeated_device_in_mixed_order():
    """_check_keys_increase accepts each adjacent pair if it is increasing in EITHER the C++ or
    the Java order (DeviceID.precedes). Mixing the two lets [X, Y, X] through: X->Y is increasing
    in Java's order, Y->X in C++'s. The node then names device X twice (the reader's dict keeps
    the second, so the first entry's series are unreachable) and no error is raised. The order
    check should pick one order per node (or per file) and hold every pair to it."""
    x, y = ("t", _SUPP), ("t", _BMP)
    buf = _device_leaf([x, y, x])
    with pytest.raises(CorruptDataError):
        read_index_node(Cursor(buf, 0, len(buf), "<review8>"), device_level=True)


def test_index_node_rejects_a_repeated_measurement_in_mixed_order():
    """The same for measurement names (names_increase): ['\\U00010000', '\\uffff',
    '\\U00010000'] passes."""
    buf = _measurement_leaf([_SUPP, _BMP, _SUPP])
    with pytest.raises(CorruptDataError):
        read_index_node(Cursor(buf, 0, len(buf), "<review8>"), device_level=False)


def test_index_node_rejects_an_order_that_is_neither_cpp_nor_java():
    """[U+10001, U+FFFF, U+10000] is sorted in neither writer's order (U+10000 < U+10001 in
    both), yet each adjacent pair is increasing in one of them, so it passes."""
    a, b, c = ("t", "\U00010001"), ("t", _BMP), ("t", _SUPP)
    buf = _device_leaf([a, b, c])
    with pytest.raises(CorruptDataError):
        read_index_node(Cursor(buf, 0, len(buf), "<review8>"), device_level=True)
