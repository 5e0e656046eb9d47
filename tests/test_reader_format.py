"""Format details the official fixtures do not show: Java's variants (mask bits in the
TimeseriesMetadata type byte, trailing null tags dropped from device IDs), aligned tree-model
devices, device ordering, unsupported encodings, and the primitive parsers."""

from __future__ import annotations

import numpy as np
import pytest
from interop.expected import fixture_path, load_expected

import tsfile
from tsfile._format.bytes import Cursor
from tsfile._format.device import DeviceID, read_device_id, tree_device_id
from tsfile._read import engine
from tsfile.types import ColumnCategory, TSDataType


def _patched(tmp_path, name, patches):
    data = bytearray(fixture_path(name).read_bytes())
    for off, value in patches:
        data[off] = value
    p = tmp_path / f"{name}.patched.tsfile"
    p.write_bytes(data)
    return p


def _all_series_offsets(path):
    with tsfile.TsFileReader(path) as r:
        out = []
        for key in r._meta.table_roots:
            for _dev, rng in r._devices(key):
                for tsm in r._walker.series(rng):
                    out.append((tsm.at, tsm.measurement))
        return out


@pytest.mark.parametrize("name", ["two_tables_flushed", "alltypes_multipage"])
def test_java_mask_bits_in_series_type(tmp_path, name):
    """Java ORs 0x80 (time column) / 0x40 (value column) into the TimeseriesMetadata type byte;
    readers use type & 0x3F."""
    src = fixture_path(name)
    data = src.read_bytes()
    patches = []
    for at, measurement in _all_series_offsets(src):
        patches.append((at, data[at] | (0x80 if measurement == "" else 0x40)))
    p = _patched(tmp_path, name, patches)
    exp = load_expected(name)
    for tname, series in exp.tables.items():
        a = tsfile.read_table(src, tname)
        b = tsfile.read_table(p, tname)
        for c in series.columns:
            x, y = np.ma.getdata(a[c]), np.ma.getdata(b[c])
            if x.dtype == object:
                assert list(x) == list(y), c
            else:
                assert x.tobytes() == y.tobytes(), c
                assert (np.ma.getmaskarray(a[c]) == np.ma.getmaskarray(b[c])).all(), c


def test_device_id_rules():
    assert tree_device_id("root.sg1.d1").segments == ("root.sg1", "d1")
    assert tree_device_id("root").segments == ("root",)
    assert tree_device_id("root.a").segments == ("root", "a")
    assert tree_device_id("root.a.b.c.d").segments == ("root.a.b", "c", "d")
    assert tree_device_id("root.`x.y`.d").segments == ("root.`x.y`", "d")
    # ordering: null first, then strings by UTF-8 bytes, a prefix first
    ids = [
        DeviceID(("t", "b")),
        DeviceID(("t", None, "z")),
        DeviceID(("t", "a", "x")),
        DeviceID(("t", "a")),
        DeviceID(("t", "\u00e9")),
    ]
    assert [d.segments for d in sorted(ids)] == [
        ("t", None, "z"),
        ("t", "a"),
        ("t", "a", "x"),
        ("t", "b"),
        ("t", "\u00e9"),
    ]
    # Java drops trailing null tags: missing segments read as null
    assert DeviceID(("t", "a")).tag_values(3) == ("a", None, None)
    assert DeviceID(("t", "a", None)).path == "t.a.null"


def test_device_id_bytes():
    raw = bytes.fromhex("03 0e 73656e736f7273 0a 6e6f727468 01".replace(" ", ""))
    d = read_device_id(Cursor(raw, 0, len(raw)))
    assert d.segments == ("sensors", "north", None)
    assert read_device_id(Cursor(b"\x00", 0, 1)).segments == ("",)
    with pytest.raises(tsfile.CorruptDataError, match="offset 0"):
        read_device_id(Cursor(b"\x05\x02", 0, 2))


def test_cursor_varints():
    c = Cursor(bytes.fromhex("00 7f 8001 ac02 ffffffff0f"), 0, 12)
    assert [c.uvarint() for _ in range(5)] == [0, 127, 128, 300, 0xFFFFFFFF]
    c = Cursor(bytes.fromhex("00 01 02 7f"), 0, 4)
    assert [c.svarint() for _ in range(4)] == [0, -1, 1, -64]
    with pytest.raises(tsfile.CorruptDataError, match="longer than 5 bytes"):
        Cursor(b"\xff" * 6, 0, 6).uvarint()
    with pytest.raises(tsfile.CorruptDataError, match="truncated"):
        Cursor(b"\x80", 0, 1).uvarint()
    with pytest.raises(tsfile.CorruptDataError, match="file offset 4"):
        Cursor(b"\x00\x00\x00\x09abc", 0, 7, "x").binstr()


def test_unsupported_encoding_is_named(tmp_path):
    src = fixture_path("comp_uncompressed")
    with tsfile.TsFileReader(src) as r:
        dev, rng = r._devices(next(iter(r._meta.table_roots)))[0]
        tsm = [t for t in r._walker.series(rng) if t.measurement][0]
        ch = engine.read_chunk(r._fv, tsm.chunks[0].offset)
        enc_at = ch.data_start - 1
    p = _patched(tmp_path, "comp_uncompressed", [(enc_at, 5)])  # BITMAP: legacy, unsupported
    with pytest.raises(tsfile.UnsupportedError, match="BITMAP"):
        tsfile.read_table(p)


def test_aligned_tree_device(tmp_path):
    """An aligned device whose ID reads as a tree path (as IoTDB writes aligned series): served
    by query_timeseries through the aligned path."""
    from tsfile import writer

    p = tmp_path / "aligned_tree.tsfile"
    cols = [
        tsfile.ColumnSchema("dev", TSDataType.STRING, ColumnCategory.TAG),
        tsfile.ColumnSchema("s1", TSDataType.INT64, ColumnCategory.FIELD),
        tsfile.ColumnSchema("s2", TSDataType.DOUBLE, ColumnCategory.FIELD),
    ]
    w = writer.TsFileWriter(str(p), page_size=40)
    w.register_table(tsfile.TableSchema("root.sg1", cols))
    ts = np.arange(100, dtype=np.int64) * 10
    s1 = np.arange(100, dtype=np.int64) - 50
    s2 = np.linspace(0, 1, 100)
    mask = np.zeros(100, bool)
    mask[::7] = True
    w.write_arrays("root.sg1", ts, {"dev": "d1", "s1": s1, "s2": s2}, {"s2": mask})
    w.close()
    with tsfile.TsFileReader(p) as r:
        assert r.get_timeseries_names("root.sg1.d1") == ["s1", "s2"]
        with r.query_timeseries("root.sg1.d1", ["s2", "s1"], 100, 555) as rs:
            md = rs.get_metadata()
            assert md.get_column_list() == ["time", "root.sg1.d1.s2", "root.sg1.d1.s1"]
            rows = []
            while rs.next():
                rows.append(
                    (rs.get_value_by_index(1), rs.get_value_by_index(2), rs.get_value_by_index(3))
                )
    keep = (ts >= 100) & (ts <= 555)
    want = [
        (int(t), None if m else float(b), int(a))
        for t, a, b, m in zip(ts[keep], s1[keep], s2[keep], mask[keep], strict=True)
    ]
    assert rows == want


def test_property_count_forms(tmp_path):
    """Writers store the property count zigzag-encoded (3 -> 0x06); a count stored unsigned
    (0x03, what an old Java reader expects) is tolerated too."""
    src = fixture_path("comp_snappy")
    data = src.read_bytes()
    with tsfile.TsFileReader(src) as r:
        props = r.get_tsfile_properties()
    first = None
    for key in props:
        pat = bytes([len(props) * 2, len(key) * 2]) + key.encode()
        i = data.rfind(pat)
        if i >= 0:
            first = i
    assert first is not None
    p = _patched(tmp_path, "comp_snappy", [(first, len(props))])
    with tsfile.TsFileReader(p) as r:
        assert r.get_tsfile_properties() == props


def test_encrypted_file_is_unsupported(tmp_path):
    """encryptLevel other than "0" means encrypted pages: refuse instead of decoding noise."""
    src = fixture_path("comp_snappy")
    data = bytearray(src.read_bytes())
    key = b"encryptLevel"
    i = data.rfind(bytes([len(key) * 2]) + key + b"\x02" + b"0")
    assert i >= 0
    data[i + 1 + len(key) + 1] = ord("2")
    p = tmp_path / "enc.tsfile"
    p.write_bytes(data)
    with pytest.raises(tsfile.UnsupportedError, match="encrypted"):
        tsfile.TsFileReader(p)


def test_overlong_plain_string_length_is_corrupt(tmp_path):
    """A PLAIN string length whose 5th varint byte carries bits above 31 is an error; it used to
    wrap to a shorter length and decode silently wrong strings."""
    from tsfile import writer

    cols = [
        tsfile.ColumnSchema("dev", TSDataType.STRING, ColumnCategory.TAG),
        tsfile.ColumnSchema("s", TSDataType.STRING, ColumnCategory.FIELD),
    ]
    p = tmp_path / "s.tsfile"
    w = writer.TsFileWriter(
        str(p),
        compression=tsfile.Compressor.UNCOMPRESSED,
        encodings={TSDataType.STRING: tsfile.TSEncoding.PLAIN},
    )
    w.register_table(tsfile.TableSchema("t", cols))
    w.write_arrays("t", np.arange(2, dtype=np.int64), {"dev": "a", "s": ["abcdef", "x"]})
    w.close()
    data = p.read_bytes()
    body = b"\x0cabcdef\x02x"
    assert data.count(body) == 1
    assert tsfile.read_table(p, "t")["s"].tolist() == ["abcdef", "x"]
    # Same size: the length 0x1_0000_0000 (wraps to 0 in 32 bits), then "x" and "y".
    p.write_bytes(data.replace(body, b"\x80\x80\x80\x80\x10\x02x\x02y"))
    with pytest.raises(tsfile.CorruptDataError, match="PLAIN string length"):
        tsfile.read_table(p, "t")
