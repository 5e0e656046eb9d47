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


def value_pages(name):
    """Yield (device segments, measurement, data type code, encoding code, row_count, bitmap,
    value bytes) for every value page of the file, in file order."""
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
            if not marker & 0x40:  # time chunk or non-aligned chunk: not needed here
                c.p = end
                continue
            assert compression == 0, "the walk needs UNCOMPRESSED pages"
            while c.p < end:
                usize = c.uvarint()
                assert usize, "an empty page (all nulls) is not expected in these fixtures"
                csize = c.uvarint()
                assert csize == usize
                if marker & 0x3F == 0x01:  # multi-page chunk: skip the page statistics
                    c.uvarint()
                    c.take(16)
                    c.take(_STAT_FIXED.get(dtype, 0))
                    for _ in range(_STAT_BINSTR.get(dtype, 0)):
                        c.take(struct.unpack(">i", c.take(4))[0])
                body = c.take(csize)
                rows = struct.unpack(">i", body[:4])[0]
                nb = (rows + 7) // 8
                bitmap = np.unpackbits(np.frombuffer(body[4 : 4 + nb], np.uint8))[:rows]
                yield (
                    device,
                    measurement,
                    dtype,
                    encoding,
                    rows,
                    bitmap.astype(bool),
                    body[4 + nb :],
                )
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


def _check_fixture(name, table, encodings):
    exp = load_expected(name)
    series = exp.tables[table]
    offsets = {}
    checked = 0
    for device, column, dtype, enc, rows, bitmap, vbytes in value_pages(name):
        if device[0] != table or enc not in encodings:
            continue
        codec = CODECS[enc]
        t = TSDataType(dtype)
        idx = _expected_rows(series, device)
        start = offsets.get((device, column), 0)
        offsets[(device, column)] = start + rows
        page_rows = idx[start : start + rows]
        assert len(page_rows) == rows
        nulls = series.nulls[column][page_rows]
        np.testing.assert_array_equal(~bitmap, nulls)
        want = _as_stored(series.values[column][page_rows][~nulls], t.name)
        n = len(want)
        for path in PATHS:
            for count in (n, None):
                got = codec.decode(vbytes, t, count=count, path=path)
                assert len(got) == n, (device, column, path)
                if got.dtype == object:
                    assert got.tolist() == list(want), (device, column, path)
                else:  # bit-exact, NaN payloads included
                    assert got.tobytes() == np.asarray(want, got.dtype).tobytes()
        out = np.empty(n, dtype=got.dtype)
        assert codec.decode_into(vbytes, out) == len(vbytes)
        # the encoder writes what the official writer wrote
        assert codec.encode(want, t) == vbytes, (device, column)
        checked += 1
    return checked


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
