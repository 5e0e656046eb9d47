"""Hostile and odd file metadata (issue 7): schema codes no writer has, ATTRIBUTE columns, text
that is not UTF-8, and a metadata index with duplicate, misplaced or shared entries.

Every hostile file is a valid file written by tsfile.TsFileTableWriter (or an official fixture)
with bytes patched at offsets found by parsing the format here (format notes 5, 9), independently
of the reader under test: _Meta walks TsFileMetadata and records where every field lies.
"""

from __future__ import annotations

import re
import signal
import struct
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from interop.chunk_scan import _Buf, _skip_statistics, scan_chunks

import tsfile
from tsfile import ColumnCategory as C
from tsfile import ColumnSchema, TableSchema
from tsfile import TSDataType as T
from tsfile import TSEncoding as E
from tsfile.errors import CorruptDataError
from tsfile.types import Compressor

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "official"

# -- a minimal, independent parser of the metadata area (format notes 9.3, 9.5, 9.6) -------------


class _Cur(_Buf):
    """chunk_scan's cursor, plus fixed-width reads and strings returned with their offsets (the
    tests patch bytes where a string starts)."""

    def i32(self) -> int:
        self.p += 4
        return struct.unpack_from(">i", self.d, self.p - 4)[0]

    def i64(self) -> int:
        self.p += 8
        return struct.unpack_from(">q", self.d, self.p - 8)[0]

    def varstr(self):
        """(offset of the string's bytes, bytes); None for the null string."""
        n = self.svarint()
        if n < 0:
            return None
        at = self.p
        self.p += n
        return at, self.d[at : self.p]

    def binstr(self):
        n = self.i32()
        at = self.p
        self.p += n
        return at, self.d[at : self.p]


def _index_node(cur: _Cur, device_level: bool) -> dict:
    node = {"at": cur.p, "entries": []}
    for _ in range(cur.uvarint()):
        entry = {"at": cur.p}
        if device_level:
            entry["segments"] = [cur.varstr() for _ in range(cur.uvarint())]
        else:
            entry["name"] = cur.varstr()
        entry["offset"] = cur.i64()
        node["entries"].append(entry)
    node["end_offset"] = cur.i64()
    node["type"] = cur.u8()
    node["end"] = cur.p
    return node


class _Meta:
    """Where the fields of a file's TsFileMetadata lie: table roots (name and node), table
    schemas (per column: offsets of its name, data type, encoding, compression, category)."""

    def __init__(self, data: bytes):
        self.data = data
        (msize,) = struct.unpack_from(">i", data, len(data) - 10)
        self.meta_start = len(data) - 10 - msize
        cur = _Cur(data, self.meta_start)
        self.roots = []
        for _ in range(cur.uvarint()):
            name = cur.varstr()
            self.roots.append({"name": name, "node": _index_node(cur, True)})
        self.after_roots = cur.p
        self.schemas = []
        for _ in range(cur.uvarint()):
            name = cur.varstr()
            columns = {}
            for _ in range(cur.uvarint()):
                col_name = cur.binstr()
                col = {"name": col_name[0], "data_type": cur.p}
                cur.p += 3
                for _ in range(cur.i32()):
                    cur.binstr(), cur.binstr()
                col["category"] = cur.p
                cur.i32()
                columns[col_name[1].decode()] = col
            self.schemas.append({"name": name, "columns": columns})
        cur.i64()  # meta offset
        bloom_bytes = cur.uvarint()
        if bloom_bytes:
            cur.p += bloom_bytes
            cur.uvarint()
            if cur.uvarint() == 0x7FFFFFFF:
                cur.uvarint()
        u = cur.uvarint()
        self.properties = {}  # key -> (offset of the key's bytes, value)
        for _ in range((u >> 1) ^ -(u & 1)):
            key_at, key = cur.varstr()
            self.properties[key.decode()] = (key_at, cur.varstr())
        assert cur.p == len(data) - 10

    def column(self, name: str) -> dict:
        (schema,) = self.schemas
        return schema["columns"][name]

    def device_entry(self, table: str, tags: tuple) -> dict:
        for root in self.roots:
            if root["name"][1] == table.encode():
                for e in root["node"]["entries"]:
                    if tuple(s[1].decode() for s in e["segments"][1:]) == tags:
                        return e
        raise AssertionError(f"no device {table}.{tags}")

    def series(self, entry: dict) -> list[dict]:
        """The TimeseriesMetadata records under a LEAF_DEVICE entry (one LEAF_MEASUREMENT)."""
        cur = _Cur(self.data, entry["offset"])
        node = _index_node(cur, False)
        assert node["type"] == 3, "one LEAF_MEASUREMENT node expected"
        out = []
        for i, e in enumerate(node["entries"]):
            end = (
                node["entries"][i + 1]["offset"]
                if i + 1 < len(node["entries"])
                else node["end_offset"]
            )
            cur = _Cur(self.data, e["offset"])
            while cur.p < end:
                rec = {"at": cur.p}
                cur.u8()
                rec["name"] = cur.varstr()
                rec["end"] = _skip_timeseries_rest(cur)
                out.append(rec)
        return out


_TYPE_NAMES = {0: "BOOLEAN", 1: "INT32", 2: "INT64", 3: "FLOAT", 4: "DOUBLE", 5: "TEXT"}
_TYPE_NAMES |= {6: "VECTOR", 8: "TIMESTAMP", 9: "DATE", 10: "BLOB", 11: "STRING"}


def _skip_timeseries_rest(cur: _Cur) -> int:
    """After the measurement id of a TimeseriesMetadata: type, statistics, chunk metadata."""
    tname = _TYPE_NAMES[cur.u8()]
    cm_bytes = cur.uvarint()
    b = _Buf(cur.d, cur.p)
    _skip_statistics(b, tname)
    cur.p = b.p + cm_bytes
    return cur.p


# -- files ----------------------------------------------------------------------------------------


def _schema(name="t"):
    return TableSchema(
        name,
        [
            ColumnSchema("dev", T.STRING, C.TAG),
            ColumnSchema("i", T.INT32, C.FIELD),
            ColumnSchema("s", T.STRING, C.FIELD),
            ColumnSchema("x", T.TEXT, C.FIELD, encoding=E.DICTIONARY),
            ColumnSchema("b", T.BLOB, C.FIELD),
        ],
    )


ROWS = 4


def _columns(dev):
    return {
        "dev": dev,
        "i": np.arange(ROWS, dtype=np.int32),
        "s": np.array(["aa", "bb", "cc", "dd"], object),
        "x": np.array(["xx", "yy", "xx", "yy"], object),
        "b": np.array([b"\xff\xfe", b"q", b"r", b"s"], object),
    }


def _write(path, tables=("t",), devices=("d1", "d2")) -> bytes:
    """A valid table-model file, uncompressed (so page bytes can be patched)."""
    with tsfile.TsFileWriter(path, compression=Compressor.UNCOMPRESSED) as w:
        for t in tables:
            w.register_table(_schema(t))
            for dev in devices:
                w.write_arrays(t, np.arange(ROWS, dtype=np.int64), _columns(dev))
    return Path(path).read_bytes()


@pytest.fixture
def base(tmp_path):
    return _write(tmp_path / "base.tsfile")


def _save(tmp_path, data: bytes, patches: dict, name="hostile.tsfile") -> Path:
    d = bytearray(data)
    for off, val in patches.items():
        d[off] = val
    p = tmp_path / name
    p.write_bytes(bytes(d))
    return p


def _offset(exc) -> int:
    m = re.findall(r"file offset (\d+)", str(exc))
    assert m, str(exc)
    return int(m[-1])


def _page_body_offset(data: bytes, chunk: dict) -> int:
    """The body offset of a one-page chunk (format notes 5.1, 5.2: no page statistics)."""
    b = _Buf(data, chunk["offset"])
    assert b.u8() & 0x3F == 0x05, "a one-page chunk expected"
    b.varstr(), b.uvarint(), b.skip(3), b.uvarint(), b.uvarint()
    return b.p


def _value_chunk(data: bytes, device: list, measurement: str) -> dict:
    (chunk,) = [
        c for c in scan_chunks(data) if c["device"] == device and c["measurement"] == measurement
    ]
    return chunk


def _drain_rows(r, table):
    with r.query_table(table, None) as rs:
        n = rs.get_metadata().get_column_num()
        while rs.next():
            for i in range(1, n + 1):
                rs.get_value_by_index(i)
            for name in ("dev", "s", "x", "b"):
                rs.get_value_by_name(name)


def _drain_blocks(r, table):
    with r.query_table(table, None, batch_size=1) as rs:
        while rs.get_next_tsblock() is not None:
            pass


# Every query API of a table: (name, call(path)); each must raise the same error.
API = {
    "rows": lambda p: _with_reader(p, _drain_rows),
    "blocks": lambda p: _with_reader(p, _drain_blocks),
    "read_columns": lambda p: _with_reader(p, lambda r, t: r.read_columns(t)),
    "read_table": lambda p: tsfile.read_table(p, "t"),
    "to_dataframe": lambda p: tsfile.to_dataframe(p, "t"),
    "to_dataframe_iter": lambda p: list(tsfile.to_dataframe(p, "t", as_iterator=True)),
    "read_arrow": lambda p: tsfile.read_arrow(p, "t"),
}


def _with_reader(p, fn):
    with tsfile.TsFileReader(p) as r:
        return fn(r, "t")


def _all_apis_raise(path, offset, match):
    for name, call in API.items():
        with pytest.raises(CorruptDataError, match=match) as ei:
            call(path)
        assert _offset(ei.value) == offset, name


# -- 1. schema codes and ATTRIBUTE columns --------------------------------------------------------


@pytest.mark.parametrize(
    "field, shift, code, match",
    [
        ("data_type", 0, 7, "unknown column data type 7"),  # UNKNOWN: was a bare KeyError
        ("data_type", 0, 6, "unknown column data type 6"),  # VECTOR is no column's type
        ("data_type", 0, 12, "unknown column data type 12"),
        ("data_type", 1, 99, "unknown column encoding 99"),  # was silently dropped
        ("data_type", 2, 99, "unknown column compression 99"),  # (ditto)
        ("category", 3, 9, "unknown column category 9"),  # i32, big-endian: low byte
    ],
)
def test_unknown_schema_codes_are_corruption_at_their_offset(
    tmp_path, base, field, shift, code, match
):
    at = _Meta(base).column("i")[field] + shift
    path = _save(tmp_path, base, {at: code})
    with pytest.raises(CorruptDataError, match=match) as ei:
        tsfile.TsFileReader(path)
    expected = at if field == "data_type" else at - 3  # the category is named at its i32
    assert _offset(ei.value) == expected
    _all_apis_raise(path, expected, match)


@pytest.mark.parametrize("column", ["i", "s"])
def test_attribute_column_is_listed_and_reads_as_all_null(tmp_path, base, column):
    # A FIELD column re-categorised ATTRIBUTE (IoTDB's attribute columns have no chunks in a
    # TsFile): the official reader lists it and returns nulls (checked with tsfile 2.5.0, even
    # though chunks of that name exist); every query API did a bare KeyError here.
    at = _Meta(base).column(column)["category"] + 3
    path = _save(tmp_path, base, {at: int(C.ATTRIBUTE)})
    with tsfile.TsFileReader(path) as r:
        col = r.get_table_schema("t").get_column(column)
        assert col.get_category() == C.ATTRIBUTE
        dtype = col.get_data_type()
        _n, types, ts, cols, nulls = r.read_columns("t")
        assert ts.tolist() == list(range(ROWS)) * 2
        assert nulls[column].all()
        assert types[1 + ["dev", "i", "s", "x", "b"].index(column)] == dtype
        assert cols["x"].tolist() == ["xx", "yy", "xx", "yy"] * 2
        with r.query_table("t", [column, "x"]) as rs:
            rows = []
            while rs.next():
                rows.append((rs.get_value_by_name(column), rs.get_value_by_name("x")))
        assert rows == [(None, v) for v in ["xx", "yy", "xx", "yy"] * 2]
        with r.query_table("t", [column], batch_size=1) as rs:
            while (blk := rs.get_next_tsblock()) is not None:
                assert blk.nulls[column].all()
        # asked for alone (no FIELD column in the query)
        assert r.read_columns("t", [column])[4][column].all()
    table = tsfile.read_table(path, "t")
    assert table[column].mask.all() if column == "i" else all(v is None for v in table[column])
    df = tsfile.to_dataframe(path, "t")
    assert df[column].isna().all() and df["x"].tolist() == ["xx", "yy", "xx", "yy"] * 2
    assert tsfile.to_dataframe(path, "t", [column])[column].isna().all()
    arrow = tsfile.read_arrow(path, "t")
    assert arrow.column(column).null_count == 2 * ROWS


@pytest.mark.parametrize("column", ["i", "dev"])
def test_attribute_column_reads_as_the_official_reader_reads_it(tmp_path, base, column):
    from interop.official import official_table, skip_unless_official

    skip_unless_official()
    at = _Meta(base).column(column)["category"] + 3
    path = _save(tmp_path, base, {at: int(C.ATTRIBUTE)})
    official = official_table(path, "t")
    ours = tsfile.read_table(path, "t")
    assert list(official) == list(ours)
    for name, values in official.items():
        got = ours[name]
        if isinstance(got, np.ma.MaskedArray):
            got = np.array([None if m else v for v, m in zip(got.data, got.mask, strict=True)])
        if name == "b":  # the official reader cuts BLOBs at 0x00 (none here)
            assert [bytes(v) for v in values] == list(got), name
        else:
            assert list(values) == list(got.tolist()), name


def test_tag_recategorised_attribute_reads_as_null(tmp_path, base):
    path = _save(tmp_path, base, {_Meta(base).column("dev")["category"] + 3: int(C.ATTRIBUTE)})
    df = tsfile.to_dataframe(path, "t")
    assert df["dev"].isna().all() and df["i"].tolist() == list(range(ROWS)) * 2


# -- 2. text that is not UTF-8: one policy, CorruptDataError with the offset ----------------------


def test_invalid_utf8_in_a_plain_string_value_on_every_path(tmp_path, base):
    chunk = _value_chunk(base, ["t", "d1"], "s")
    body = _page_body_offset(base, chunk)
    # value page: i32 row count, bitmap of 1 byte (4 rows), then varstr "aa": length, 'a'
    assert base[body + 5 : body + 8] == b"\x04aa"
    path = _save(tmp_path, base, {body + 6: 0xFF})
    # before: surrogate-escaped str ('\udcffa'), and UnicodeEncodeError in read_arrow
    _all_apis_raise(path, body, r"invalid UTF-8 in PLAIN STRING value 0 .*byte 1 of the page")


def test_invalid_utf8_in_a_dictionary_entry_on_every_path(tmp_path, base):
    chunk = _value_chunk(base, ["t", "d1"], "x")
    assert chunk["encoding"] == "DICTIONARY"
    body = _page_body_offset(base, chunk)
    # value page, then the dictionary: svarint entry count 2, varstr "xx", varstr "yy"
    assert base[body + 5 : body + 9] == b"\x04\x04xx"
    path = _save(tmp_path, base, {body + 8: 0xC3})  # "x\xc3": a truncated 2-byte sequence
    _all_apis_raise(path, body, "DICTIONARY entry 0 is not valid UTF-8")


def test_blob_values_are_bytes_and_never_decoded(base, tmp_path):
    path = tmp_path / "b.tsfile"
    path.write_bytes(base)
    assert tsfile.read_table(path, "t")["b"].tolist()[0] == b"\xff\xfe"
    assert tsfile.read_arrow(path, "t").column("b").to_pylist()[0] == b"\xff\xfe"


def test_invalid_utf8_in_a_column_name(tmp_path, base):
    at = _Meta(base).column("s")["name"]
    path = _save(tmp_path, base, {at: 0xFF})
    # before: the column was listed as '\udcff' and read_arrow raised UnicodeEncodeError
    with pytest.raises(CorruptDataError, match="invalid UTF-8 in column name") as ei:
        tsfile.TsFileReader(path)
    assert _offset(ei.value) == at
    _all_apis_raise(path, at, "invalid UTF-8 in column name")


def test_invalid_utf8_in_a_table_name(tmp_path, base):
    meta = _Meta(base)
    at = meta.roots[0]["name"][0]
    path = _save(tmp_path, base, {at: 0xFF})
    with pytest.raises(CorruptDataError, match="invalid UTF-8 in table name") as ei:
        tsfile.TsFileReader(path)
    assert _offset(ei.value) == at


def test_invalid_utf8_in_a_device_id(tmp_path, base):
    entry = _Meta(base).device_entry("t", ("d2",))
    at = entry["segments"][1][0]  # the tag value "d2" of the LEAF_DEVICE entry
    path = _save(tmp_path, base, {at + 1: 0xFF})
    # before: a device 't.d\udcff' (get_all_devices) and UnicodeEncodeError from read_arrow;
    # the table's root node (with this entry) is part of TsFileMetadata, read on opening
    with pytest.raises(CorruptDataError, match="invalid UTF-8 in device id segment") as ei:
        tsfile.TsFileReader(path)
    assert _offset(ei.value) == at + 1
    _all_apis_raise(path, at + 1, "invalid UTF-8 in device id segment")


def test_invalid_utf8_in_a_chunk_header_measurement(tmp_path, base):
    chunk = _value_chunk(base, ["t", "d1"], "s")
    at = chunk["offset"] + 2  # marker, varstr length, then the name "s"
    assert base[at : at + 1] == b"s"
    path = _save(tmp_path, base, {at: 0xFF})
    _all_apis_raise(path, at, "invalid UTF-8 in chunk measurement id")


def test_invalid_utf8_in_a_property_key(tmp_path, base):
    at = _Meta(base).properties["encryptLevel"][0]
    path = _save(tmp_path, base, {at: 0xFF})
    # before: the key came back as '\udcffncryptLevel' (and a bad key inside the property
    # block's tolerance of damage would have lost every property, encryptLevel included)
    with pytest.raises(CorruptDataError, match="property key is not valid UTF-8") as ei:
        tsfile.TsFileReader(path)
    assert _offset(ei.value) == at


def test_invalid_utf8_in_a_tree_model_measurement(tmp_path):
    data = (FIXTURES / "tree_nonaligned.tsfile").read_bytes()
    meta = _Meta(data)
    (root,) = [r for r in meta.roots if r["name"][1] == b"root.sg1"]
    entry = root["node"]["entries"][0]
    rec = meta.series(entry)[1]  # the second series: its name is not an index key
    at = rec["name"][0]
    path = _save(tmp_path, data, {at: 0xFF})
    device = ".".join(s[1].decode() for s in entry["segments"])
    with tsfile.TsFileReader(path) as r:
        with pytest.raises(CorruptDataError, match="invalid UTF-8 in measurement id") as ei:
            r.get_timeseries_names(device)
        assert _offset(ei.value) == at


# -- 3. the metadata index: duplicates, order, shared nodes ---------------------------------------


def test_duplicate_table_root_is_corruption(tmp_path):
    data = _write(tmp_path / "two.tsfile", tables=("a", "b"))
    meta = _Meta(data)
    second = meta.roots[1]["name"]
    assert second[1] == b"b"
    path = _save(tmp_path, data, {second[0]: ord("a")})
    # before: the second root replaced the first, hiding table a's devices (and b had none)
    with pytest.raises(CorruptDataError, match="table index root 'a' duplicate") as ei:
        tsfile.TsFileReader(path)
    assert _offset(ei.value) == second[0] - 1  # the varstr of the name


def test_table_roots_out_of_order_are_corruption(tmp_path):
    data = _write(tmp_path / "two.tsfile", tables=("a", "b"))
    second = _Meta(data).roots[1]["name"]
    path = _save(tmp_path, data, {second[0]: ord("0")})
    with pytest.raises(CorruptDataError, match="out of order") as ei:
        tsfile.TsFileReader(path)
    assert _offset(ei.value) == second[0] - 1


def test_duplicate_table_schema_is_corruption(tmp_path):
    data = _write(tmp_path / "two.tsfile", tables=("a", "b"))
    second = _Meta(data).schemas[1]["name"]
    assert second[1] in (b"a", b"b")
    other = b"a" if second[1] == b"b" else b"b"
    path = _save(tmp_path, data, {second[0]: other[0]})
    # before: one schema silently replaced the other (a table's columns under the other's)
    with pytest.raises(CorruptDataError, match="duplicate table schema") as ei:
        tsfile.TsFileReader(path)
    assert _offset(ei.value) == second[0] - 1


def test_duplicate_device_in_a_leaf_is_named_at_its_entry(tmp_path, base):
    entry = _Meta(base).device_entry("t", ("d2",))
    at = entry["segments"][1][0] + 1
    path = _save(tmp_path, base, {at: ord("1")})  # d2 -> d1
    # the table's LEAF_DEVICE root is part of TsFileMetadata, read on opening; before: the
    # error came only from a query, naming the root node rather than the entry
    with pytest.raises(CorruptDataError, match="index entry 't.d1' duplicate") as ei:
        tsfile.TsFileReader(path)
    assert _offset(ei.value) == entry["at"]
    _all_apis_raise(path, entry["at"], "duplicate")


def test_devices_out_of_order_in_a_leaf_are_named_at_the_entry(tmp_path, base):
    entry = _Meta(base).device_entry("t", ("d2",))
    path = _save(tmp_path, base, {entry["segments"][1][0] + 1: ord("0")})  # d2 -> d0
    with pytest.raises(CorruptDataError, match="out of order") as ei:
        tsfile.TsFileReader(path)
    assert _offset(ei.value) == entry["at"]


def test_duplicate_device_across_leaves_is_named_at_its_entry(tmp_path, base):
    # an INTERNAL_DEVICE root over two leaves: the original (d1, d2) and one holding d2 again
    leaf_node = _Meta(base).roots[0]["node"]
    leaf = base[leaf_node["at"] : leaf_node["end"]]
    d2 = leaf_node["entries"][1]
    key2 = _device_key([s[1] for s in d2["segments"]])
    second_at = {}

    def build(pos, key):
        again = _uvarint(1) + key2 + struct.pack(">qq", d2["offset"], leaf_node["end_offset"])
        again += b"\x01"  # LEAF_DEVICE
        second = pos + len(leaf)
        second_at["entry"] = second + 1
        end = second + len(again)
        root = _uvarint(2) + key + struct.pack(">q", pos) + key2 + struct.pack(">q", second)
        return leaf + again, root + struct.pack(">q", end) + b"\x00"

    path = tmp_path / "twice.tsfile"
    path.write_bytes(_with_index(base, build))
    with tsfile.TsFileReader(path) as r:
        # before: "devices out of order" at the offset of the root node
        with pytest.raises(CorruptDataError, match="device 't.d2' duplicate") as ei:
            r.get_all_devices()
    assert _offset(ei.value) == second_at["entry"]


def test_two_devices_sharing_a_series_index_is_corruption(tmp_path, base):
    # an INTERNAL_DEVICE root over the original leaf (d1, d2) and a leaf whose device d3 points
    # at d1's series index: before, d3 silently read d1's rows
    leaf_node = _Meta(base).roots[0]["node"]
    leaf = base[leaf_node["at"] : leaf_node["end"]]
    d1, d2 = leaf_node["entries"]
    key3 = _device_key([b"t", b"d3"])
    second_at = {}

    def build(pos, key):
        other = _uvarint(1) + key3 + struct.pack(">qq", d1["offset"], d2["offset"]) + b"\x01"
        second = pos + len(leaf)
        second_at["entry"] = second + 1
        root = _uvarint(2) + key + struct.pack(">q", pos) + key3 + struct.pack(">q", second)
        return leaf + other, root + struct.pack(">q", second + len(other)) + b"\x00"

    path = tmp_path / "shared_series.tsfile"
    path.write_bytes(_with_index(base, build))
    _all_apis_raise(path, second_at["entry"], "another device uses")


def test_duplicate_series_in_a_device_is_corruption(tmp_path, base):
    meta = _Meta(base)
    entry = meta.device_entry("t", ("d1",))
    series = {r["name"][1]: r for r in meta.series(entry)}
    assert list(series) == [b"", b"b", b"i", b"s", b"x"]
    rec = series[b"s"]
    path = _save(tmp_path, base, {rec["name"][0]: ord("i")})  # a second series 'i'
    with tsfile.TsFileReader(path) as r:
        # before: the second 'i' was dropped, so column s read as all null for d1
        with pytest.raises(CorruptDataError, match="series 'i' duplicate") as ei:
            r.read_columns("t", ["s"])
        assert _offset(ei.value) == rec["at"]
    _all_apis_raise(path, rec["at"], "series 'i' duplicate")


def test_leaf_measurement_entry_must_name_its_first_series(tmp_path):
    # fields_300: a device's LEAF_MEASUREMENT has two entries, the second named after series 256
    data = (FIXTURES / "fields_300.tsfile").read_bytes()
    meta = _Meta(data)
    dev = meta.roots[0]["node"]["entries"][0]
    node = _index_node(_Cur(data, dev["offset"]), False)
    assert node["type"] == 3 and len(node["entries"]) == 2
    second = node["entries"][1]
    name_at, name = second["name"]
    path = _save(tmp_path, data, {name_at + len(name) - 1: ord("~")})  # still sorted, not equal
    table = meta.roots[0]["name"][1].decode()
    with tsfile.TsFileReader(path) as r:
        with pytest.raises(CorruptDataError, match="does not name the first series") as ei:
            r.read_columns(table)
        assert _offset(ei.value) == second["at"]


@contextmanager
def _deadline(seconds):
    """TimeoutError if the block runs longer (the index walk is Python code, so it is
    interrupted); the old reader walked a shared-node index for ever."""

    def expire(*_):
        raise TimeoutError(f"still running after {seconds} s")

    old = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _uvarint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    return bytes(out + bytes([n]))


def _varstr(b: bytes) -> bytes:
    return _uvarint(len(b) << 1) + b


def _device_key(segments) -> bytes:
    return _uvarint(len(segments)) + b"".join(_varstr(s) for s in segments)


def _internal_device_node(key: bytes, children: list[int], end: int) -> bytes:
    body = b"".join(key + struct.pack(">q", c) for c in children)
    return _uvarint(len(children)) + body + struct.pack(">q", end) + b"\x00"


def _with_index(data: bytes, build) -> bytes:
    """The file with hostile index nodes placed at the end of the metadata area and its table
    root replaced: ``build(pos, key)`` gets the offset where the new nodes start and the
    serialized DeviceID of the first device, and returns (nodes, new root node)."""
    meta = _Meta(data)
    (root,) = meta.roots
    key = _device_key([s[1] for s in root["node"]["entries"][0]["segments"]])
    nodes, new_root = build(meta.meta_start, key)
    head = data[meta.meta_start : root["node"]["at"]]  # table count + root name
    tsfile_meta = head + new_root + data[meta.after_roots : len(data) - 10]
    out = data[: meta.meta_start] + nodes + tsfile_meta
    return out + struct.pack(">i", len(tsfile_meta)) + b"TsFile"


def test_index_cycle_names_the_node_reached_twice(tmp_path, base):
    # one INTERNAL_DEVICE node whose only entry points at itself (keys all consistent)
    def build(pos, key):
        size = len(_internal_device_node(key, [0], 0))
        node = _internal_device_node(key, [pos], pos + size)
        return node, node

    path = tmp_path / "cycle.tsfile"
    path.write_bytes(_with_index(base, build))
    with tsfile.TsFileReader(path) as r:
        # before: "index too deep" after walking the same node 41 times
        with pytest.raises(CorruptDataError, match="reached twice") as ei:
            r.get_all_devices()
    assert _offset(ei.value) == _Meta(base).meta_start


def test_measurement_index_cycle_names_the_node_reached_twice(tmp_path, base):
    # device d1's series index replaced by an INTERNAL_MEASUREMENT node pointing at itself
    def build(pos, key):
        entry = _varstr(b"") + struct.pack(">q", pos)
        size = len(_uvarint(1) + entry) + 9
        node = _uvarint(1) + entry + struct.pack(">q", pos + size) + b"\x02"
        root = _uvarint(1) + key + struct.pack(">qq", pos, pos + size) + b"\x01"
        return node, root

    path = tmp_path / "mcycle.tsfile"
    path.write_bytes(_with_index(base, build))
    # before: "index too deep" after walking the same node 41 times
    _all_apis_raise(path, _Meta(base).meta_start, "reached twice")


def test_index_with_shared_nodes_is_corruption_not_a_hang(tmp_path, base):
    # 30 levels of two INTERNAL_DEVICE nodes X, Y whose two entries both point at the next
    # level's X and Y: 2**30 paths to the leaves (copies of the original LEAF_DEVICE root)
    levels = 30
    leaf_node = _Meta(base).roots[0]["node"]
    leaf = base[leaf_node["at"] : leaf_node["end"]]

    def build(pos, key):
        inner = len(_internal_device_node(key, [0, 0], 0))
        starts = []  # offsets of (X, Y) of each level
        for level in range(levels + 1):
            size = len(leaf) if level == levels else inner
            starts.append((pos, pos + size))
            pos += 2 * size
        nodes = b""
        for level in range(levels):
            x, y = starts[level + 1]
            node = _internal_device_node(key, [x, y], y + (y - x))
            nodes += node + node
        return nodes + leaf + leaf, _internal_device_node(key, [starts[0][0]], pos)

    path = tmp_path / "dag.tsfile"
    path.write_bytes(_with_index(base, build))
    with _deadline(20), tsfile.TsFileReader(path) as r:
        with pytest.raises(CorruptDataError) as ei:  # before: walked for ever
            r.get_all_devices()
    assert _offset(ei.value) >= _Meta(base).meta_start
