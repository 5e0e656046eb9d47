"""PLAIN, RLE, ZIGZAG and DICTIONARY against pages written by the official package (2.5.0).

The value pages are taken from UNCOMPRESSED fixtures with a minimal sequential walk written here
(format notes 13.5, 4.1-4.2, 5.1-5.3, 6), independent of the library's reader. For every page:
every decode path returns the ground truth's non-null values of the page's rows (bit-exact), and
our encoder reproduces the page's value bytes exactly.
"""

import struct
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from interop.expected import fixture_path, load_expected  # noqa: E402

import tsfile  # noqa: E402
from tsfile import compression as compression_mod  # noqa: E402
from tsfile.codecs import dictionary, plain, rle, zigzag  # noqa: E402
from tsfile.types import TSDataType  # noqa: E402

CODECS = {0: plain, 1: dictionary, 2: rle, 9: zigzag}  # TSEncoding code -> module
PATHS = ["batch", "per_value"]

# typed part of the statistics (notes 6): fixed size, or number of binstr fields
_STAT_FIXED = {0: 10, 1: 24, 9: 24, 2: 40, 8: 40, 3: 24, 4: 40, 10: 0, 6: 0}
_STAT_BINSTR = {5: 2, 11: 4}


class _Cursor:
    def __init__(self, data, pos):
        self.d = data
        self.p = pos

    def u8(self):
        self.p += 1
        return self.d[self.p - 1]

    def uvarint(self):
        v = shift = 0
        while True:
            b = self.u8()
            v |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return v

    def svarint(self):
        u = self.uvarint()
        return (u >> 1) ^ -(u & 1)

    def varstr(self):
        n = self.svarint()
        if n < 0:
            return None
        self.p += n
        return self.d[self.p - n : self.p].decode()

    def take(self, n):
        self.p += n
        return self.d[self.p - n : self.p]


def value_pages(name, decompress=False):
    """Yield (device segments, measurement, data type code, encoding code, row_count, bitmap,
    value bytes) for every value page of the file, in file order. Aligned value pages give their
    row count and null bitmap; non-aligned pages (tree model) give row_count None and bitmap None
    (every point has a value). Compressed pages are skipped unless `decompress`."""
    data = fixture_path(name).read_bytes()
    assert data[:7] == b"TsFile\x04"
    c = _Cursor(data, 7)
    device = None
    while True:
        marker = c.u8()
        if marker == 0x00:
            device = tuple(c.varstr() for _ in range(c.uvarint()))
        elif marker == 0x02:
            return
        elif marker == 0x04:
            c.take(16)
        elif marker & 0x3F in (0x01, 0x05):
            measurement = c.varstr()
            size = c.uvarint()
            dtype, compression, encoding = c.u8(), c.u8(), c.u8()
            end = c.p + size
            if marker & 0x80 or (compression and not decompress):  # a time chunk / compressed
                c.p = end
                continue
            while c.p < end:
                usize = c.uvarint()
                assert usize, "an empty page (all nulls) is not expected in these fixtures"
                csize = c.uvarint()
                if marker & 0x3F == 0x01:  # multi-page chunk: skip the page statistics
                    c.uvarint()
                    c.take(16)
                    c.take(_STAT_FIXED.get(dtype, 0))
                    for _ in range(_STAT_BINSTR.get(dtype, 0)):
                        c.take(struct.unpack(">i", c.take(4))[0])
                body = c.take(csize)
                if compression:
                    body = compression_mod.decompress(compression, body, usize)
                assert len(body) == usize
                if marker & 0x40:  # aligned value page: row count, bitmap, values
                    rows = struct.unpack(">i", body[:4])[0]
                    nb = (rows + 7) // 8
                    bitmap = np.unpackbits(np.frombuffer(body[4 : 4 + nb], np.uint8))[:rows]
                    vbytes = body[4 + nb :]
                    yield device, measurement, dtype, encoding, rows, bitmap.astype(bool), vbytes
                else:  # non-aligned page: uvarint time length, timestamps, values
                    tc = _Cursor(body, 0)
                    tlen = tc.uvarint()
                    yield device, measurement, dtype, encoding, None, None, body[tc.p + tlen :]
            assert c.p == end
        else:
            raise AssertionError(f"unexpected marker {marker:#x} at {c.p - 1}")


def _expected_rows(series, device):
    """Row indices of one device in the ground truth (official order = time order there)."""
    tags = [c for c, k in zip(series.columns, series.categories, strict=True) if k == "TAG"]
    mask = np.ones(series.num_rows, bool)
    for col, seg in zip(tags, list(device[1:]) + [None] * len(tags), strict=False):
        vals = series.values[col]
        nulls = series.nulls[col]
        mask &= nulls if seg is None else (~nulls & (vals == seg))
    return np.flatnonzero(mask)


def _as_stored(values, type_name):
    if type_name in ("TEXT", "STRING"):
        return [v.encode() for v in values]
    return values


def _check_page(codec, t, vbytes, want, what):
    """Every path decodes the page's value bytes to `want`; our encoder writes the same bytes."""
    n = len(want)
    paths = PATHS + (["simd"] if codec.HAS_SIMD and tsfile.is_simd_enabled() else [])
    for path in paths:
        for count in (n, None):
            got = codec.decode(vbytes, t, count=count, path=path)
            assert len(got) == n, (what, path)
            if got.dtype == object:
                assert got.tolist() == list(want), (what, path)
            else:  # bit-exact, NaN payloads included
                assert got.tobytes() == np.asarray(want, got.dtype).tobytes(), (what, path)
    out = np.empty(n, dtype=got.dtype)
    assert codec.decode_into(vbytes, out) == len(vbytes)
    # the encoder writes what the official writer wrote
    assert codec.encode(want, t) == vbytes, what


def _check_fixture(name, table, encodings):
    exp = load_expected(name)
    series = exp.tables[table]
    offsets = {}
    checked = 0
    for device, column, dtype, enc, rows, bitmap, vbytes in value_pages(name):
        if device[0] != table or enc not in encodings:
            continue
        t = TSDataType(dtype)
        idx = _expected_rows(series, device)
        start = offsets.get((device, column), 0)
        offsets[(device, column)] = start + rows
        page_rows = idx[start : start + rows]
        assert len(page_rows) == rows
        nulls = series.nulls[column][page_rows]
        np.testing.assert_array_equal(~bitmap, nulls)
        want = _as_stored(series.values[column][page_rows][~nulls], t.name)
        _check_page(CODECS[enc], t, vbytes, want, (device, column, start))
        checked += 1
    return checked


def test_tree_nonaligned_pages():
    """Non-aligned series of the tree-model fixture (compressed pages decompressed with
    tsfile.compression): pages split a series' values in order."""
    name = "tree_nonaligned"
    if not fixture_path(name).exists():
        pytest.skip(f"fixture {name} not present")
    exp = load_expected(name)
    offsets = {}
    checked = set()
    for device, column, dtype, enc, _rows, _bitmap, vbytes in value_pages(name, decompress=True):
        if enc not in CODECS:
            continue
        path = ".".join(device)
        full = f"{path}.{column}"
        series = exp.devices[path]
        t = TSDataType(dtype)
        values = _as_stored(series.values[full][~series.nulls[full]], t.name)
        start = offsets.get(full, 0)
        n = len(CODECS[enc].decode(vbytes, t))  # the page's own count (its timestamps decide)
        offsets[full] = start + n
        _check_page(CODECS[enc], t, vbytes, values[start : start + n], (full, start))
        checked.add((full, enc))
    for full, n in offsets.items():  # every value of every series was in some page
        assert n == int((~exp.devices[full.rsplit(".", 1)[0]].nulls[full]).sum()), full
    assert {e for _, e in checked} >= {0, 1, 2, 9}, checked


@pytest.mark.parametrize(
    "name,table,encoding",
    [
        ("enc_plain", "e", 0),
        ("enc_rle", "e", 2),
        ("enc_zigzag", "e", 9),
        ("enc_dictionary", "e", 1),
        ("extremes", "plain", 0),
        ("extremes", "defaults", 0),
    ],
)
def test_official_pages(name, table, encoding):
    if not fixture_path(name).exists():
        pytest.skip(f"fixture {name} not present")
    assert _check_fixture(name, table, {encoding}) > 0
