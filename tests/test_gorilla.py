"""GORILLA codec: byte-exact against an independent bit-string model of format notes 8.4, every
path, end-marker refusal, corrupt input, and (when present) the official sample file."""

import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tsfile.codecs import gorilla
from tsfile.errors import CorruptDataError, EncodeError, SimdUnavailableError

PATHS = ["per_value", "batch"]
DTYPES = [np.int32, np.int64, np.float32, np.float64]
END = {
    np.dtype(np.int32): 0x80000000,
    np.dtype(np.int64): 0x8000000000000000,
    np.dtype(np.float32): 0x7FC00000,
    np.dtype(np.float64): 0x7FF8000000000000,
}


def _words(values, dtype):
    dt = np.dtype(dtype)
    u = np.uint32 if dt.itemsize == 4 else np.uint64
    return [int(x) for x in np.asarray(values, dtype=dt).view(u)]


def reference_encode(values, dtype):
    """Straight transcription of notes 8.4 into a string of '0'/'1' characters."""
    dt = np.dtype(dtype)
    w = dt.itemsize * 8
    lw = 6 if w == 64 else 5
    words = _words(values, dtype) + [END[dt]]
    bits = [format(words[0], f"0{w}b")]
    prev, s_lead, s_trail = words[0], None, 0
    for v in words[1:]:
        x = v ^ prev
        prev = v
        if x == 0:
            bits.append("0")
            continue
        lead = w - x.bit_length()
        trail = (x & -x).bit_length() - 1
        if s_lead is not None and lead >= s_lead and trail >= s_trail:
            n = w - s_lead - s_trail
            bits.append("10" + format(x >> s_trail, f"0{n}b"))
        else:
            sig = w - lead - trail
            bits.append("11" + format(lead, f"0{lw}b") + format(sig - 1, f"0{lw}b"))
            bits.append(format(x >> trail, f"0{sig}b"))
            s_lead, s_trail = lead, trail
    s = "".join(bits)
    s += "0" * (8 - len(s) % 8)  # final byte rule: always one more (padded or 0x00) byte
    return bytes(int(s[i : i + 8], 2) for i in range(0, len(s), 8))


def _roundtrip(values, dtype):
    arr = np.asarray(values, dtype=dtype)
    data = gorilla.encode(arr)
    assert data == reference_encode(arr, dtype)
    for path in PATHS:
        got = gorilla.decode(data, dtype, path=path)
        assert got.dtype == np.dtype(dtype)
        assert got.view(np.uint8).tobytes() == arr.view(np.uint8).tobytes(), path
        got = gorilla.decode(data, dtype, count=len(arr), path=path)
        assert got.view(np.uint8).tobytes() == arr.view(np.uint8).tobytes(), path
        out = np.empty(len(arr), dtype=dtype)
        used = gorilla.decode_into(data, out, path=path)
        assert used == (len(data) if len(arr) else 0)  # count 0 reads nothing
        assert out.view(np.uint8).tobytes() == arr.view(np.uint8).tobytes()
    return data


@pytest.mark.parametrize("dtype", DTYPES)
def test_known_sequences(dtype):
    rng = np.random.default_rng(7)
    if np.dtype(dtype).kind == "f":
        walk = np.round(np.cumsum(rng.uniform(-5, 5, 3000)) + 100, 2)
    else:
        walk = np.cumsum(rng.integers(-50, 50, 3000)) + 10_000
    for vals in ([], [5], [5, 5], [0, 0, 0], [1, 2, 3, 3, 3, 4], walk, np.repeat(walk[:30], 100)):
        _roundtrip(vals, dtype)


def test_empty_page_is_end_value_plus_final_byte():
    assert gorilla.encode(np.array([], np.float64)) == bytes.fromhex("7ff8000000000000") + b"\0"
    assert gorilla.encode(np.array([], np.int32)) == bytes.fromhex("80000000") + b"\0"


@pytest.mark.parametrize("dtype", DTYPES)
def test_extremes(dtype):
    dt = np.dtype(dtype)
    if dt.kind == "f":
        fi = np.finfo(dt)
        vals = [fi.max, -fi.max, fi.tiny, fi.smallest_subnormal, np.inf, -np.inf, 0.0, -0.0, 1.0]
    else:
        ii = np.iinfo(dt)
        vals = [ii.max, ii.min + 1, 0, -1, 1, ii.max, ii.max, ii.min + 1]
    _roundtrip(vals, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_end_marker_refused_with_position(dtype):
    dt = np.dtype(dtype)
    u = np.uint32 if dt.itemsize == 4 else np.uint64
    arr = np.zeros(10, dtype=dt)
    arr.view(u)[6] = END[dt]
    with pytest.raises(EncodeError, match="value 6"):
        gorilla.encode(arr)
    enc = gorilla.GorillaEncoder(dt)
    enc.encode(arr[0])
    with pytest.raises(EncodeError):
        enc.encode(arr[6])


@pytest.mark.parametrize(
    "dtype,bits",
    [
        (np.float32, 0x7FC00001),
        (np.float32, 0xFFC00000),
        (np.float64, 0x7FF8000000000001),
        (np.float64, 0xFFF8000000000000),
        (np.float64, 0x7FF0000000000001),
    ],
)
def test_non_canonical_nan_is_stored(dtype, bits):
    u = np.uint32 if np.dtype(dtype).itemsize == 4 else np.uint64
    arr = np.array([1.0, 2.0, 0.0, 3.0], dtype=dtype)
    arr.view(u)[2] = bits
    _roundtrip(arr, dtype)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 2**64 - 1), max_size=300), st.sampled_from([32, 64]), st.booleans())
def test_property_arbitrary_bit_patterns(words, width, as_int):
    dtype = (
        (np.int64 if as_int else np.float64)
        if width == 64
        else (np.int32 if as_int else np.float32)
    )
    u = np.uint64 if width == 64 else np.uint32
    arr = np.array([w & ((1 << width) - 1) for w in words], dtype=u)
    # repeats and small XORs matter for GORILLA: duplicate a few values
    arr = np.repeat(arr, 1 + (np.arange(len(arr)) % 3)).view(dtype)
    arr = arr[arr.view(u) != END[np.dtype(dtype)]]
    _roundtrip(arr, dtype)


def test_streaming_classes_match_batch():
    rng = np.random.default_rng(1)
    arr = np.round(rng.normal(20, 3, 500), 1)
    enc = gorilla.GorillaEncoder(np.float64)
    for v in arr:
        enc.encode(v)
    data = enc.flush()
    assert data == gorilla.encode(arr)
    dec = gorilla.GorillaDecoder(data, np.float64)
    got = []
    while dec.has_next():
        got.append(dec.next())
    assert got == arr.tolist()
    assert dec.bytes_consumed() == len(data)
    # the encoder is reset by flush(): a second page starts over
    enc.encode(1.0)
    assert enc.flush() == gorilla.encode(np.array([1.0]))
    ints = gorilla.GorillaEncoder(np.int32)
    for v in (3, -7, 3):
        ints.encode(v)
    assert list(gorilla.GorillaDecoder(ints.flush(), "int32")) == [3, -7, 3]


def test_paths_and_types():
    data = gorilla.encode(np.arange(10, dtype=np.int64))
    assert gorilla.HAS_SIMD is False
    with pytest.raises(SimdUnavailableError):
        gorilla.decode(data, np.int64, path="simd")
    with pytest.raises(ValueError):
        gorilla.decode(data, np.int64, path="fast")
    with pytest.raises(TypeError):
        gorilla.decode(data, np.int16)
    with pytest.raises(TypeError):
        gorilla.decode("text", np.int64)
    with pytest.raises(TypeError):
        gorilla.encode(np.arange(3, dtype=np.uint8))
    np.testing.assert_array_equal(gorilla.decode(data, np.int64, count=4), np.arange(4))
    assert gorilla.decode(memoryview(data), np.int64).tolist() == list(range(10))
    assert gorilla.decode(bytearray(data), np.int64, count=0).tolist() == []


@pytest.mark.parametrize("path", PATHS)
def test_count_larger_than_page(path):
    data = gorilla.encode(np.arange(10, dtype=np.int32))
    # Decoding by count trusts the count (as the official C++ reader does): one value too many is
    # the end marker itself, indistinguishable from a stored one; further on the data run out.
    got = gorilla.decode(data, np.int32, count=11, path=path)
    assert got.tolist() == list(range(10)) + [-(2**31)]
    with pytest.raises(CorruptDataError, match="of the 40 values"):
        gorilla.decode(data, np.int32, count=40, path=path)
    with pytest.raises(CorruptDataError):
        gorilla.decode_into(data, np.empty(40, np.int32), path=path)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_end_markers_by_count(path, dtype):
    """allow_end_markers writes them (as the official C++ writer does); by count they come back,
    without a count decoding stops at the first one."""
    dt = np.dtype(dtype)
    u = np.uint32 if dt.itemsize == 4 else np.uint64
    rng = np.random.default_rng(8)
    arr = rng.integers(0, 1000, 300).astype(dtype)
    for pos in (0, 1, 57, 58, 59, 298, 299):
        arr.view(u)[pos] = END[dt]
    data = gorilla.encode(arr, allow_end_markers=True)
    assert data == reference_encode(arr, dtype)
    got = gorilla.decode(data, dtype, count=len(arr), path=path)
    assert got.tobytes() == arr.tobytes()
    out = np.empty_like(arr)
    assert gorilla.decode_into(data, out, path=path) == len(data)
    assert out.tobytes() == arr.tobytes()
    assert len(gorilla.decode(data, dtype, path=path)) == 0  # stops at value 0, a marker
    dec = gorilla.GorillaDecoder(data, dtype, count=len(arr))
    assert np.array(list(dec), dtype=dtype).tobytes() == arr.tobytes()
    enc = gorilla.GorillaEncoder(dtype, allow_end_markers=True)
    for v in arr:
        enc.encode(v)
    assert enc.flush() == data


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_truncated_pages(path, dtype):
    rng = np.random.default_rng(3)
    arr = (rng.normal(0, 1000, 200)).astype(dtype)
    data = gorilla.encode(arr)
    # Cutting anywhere inside the end value leaves no end marker. (A cut in the final padding byte
    # only is tolerated: the end value is complete.)
    for cut in range(0, len(data) - 2):
        with pytest.raises(CorruptDataError):
            gorilla.decode(data[:cut], dtype, path=path)
        # by count: either every value was still complete, or an error; never a wrong value
        try:
            got = gorilla.decode(data[:cut], dtype, count=len(arr), path=path)
        except CorruptDataError:
            continue
        assert got.tobytes() == arr.tobytes()


@pytest.mark.parametrize("path", PATHS)
def test_random_bytes_never_crash(path):
    rng = np.random.default_rng(11)
    for _ in range(400):
        data = rng.integers(0, 256, int(rng.integers(0, 80)), dtype=np.uint8).tobytes()
        for dtype in DTYPES:
            try:
                out = gorilla.decode(data, dtype, path=path)
            except CorruptDataError:
                continue
            assert len(out) <= 8 * len(data) + 1
        # zeros only: the first value repeats until the data end -> no end value -> corrupt
    with pytest.raises(CorruptDataError):
        gorilla.decode(bytes(100), np.float64, path=path)


def test_paths_identical_on_corrupt_data():
    rng = np.random.default_rng(5)
    arr = np.cumsum(rng.normal(0, 1, 300))
    data = bytearray(gorilla.encode(arr))
    for _ in range(200):
        bad = bytearray(data)
        bad[int(rng.integers(0, len(bad)))] ^= 1 << int(rng.integers(0, 8))
        for count in (None, len(arr)):
            results = []
            for path in PATHS:
                try:
                    got = gorilla.decode(bytes(bad), np.float64, count=count, path=path)
                    results.append(got.tobytes())
                except CorruptDataError:
                    results.append("corrupt")
            assert results[0] == results[1]


# ---------------------------------------------------------------- official sample files

_TYPES = {1: np.int32, 2: np.int64, 3: np.float32, 4: np.float64, 8: np.int64, 9: np.int32}


def _gorilla_value_pages(name):
    """Minimal sequential walk (notes 13.5, 5.1-5.3) of an UNCOMPRESSED table-model file:
    {(device tag, measurement, type code): [(value bytes, present count), ...]} (GORILLA)."""
    from tests.interop.chunk_scan import TYPE_NAMES, _Buf, _skip_statistics
    from tests.interop.expected import fixture_path

    data = fixture_path(name).read_bytes()
    assert data[:7] == b"TsFile\x04"
    b = _Buf(data, 7)
    device = None
    pages = {}
    while True:
        m = b.u8()
        if m == 0x02:
            return pages
        if m == 0x00:
            device = [b.varstr() for _ in range(b.uvarint())]
            continue
        if m == 0x04:
            b.skip(16)
            continue
        assert m & 0x3F in (0x01, 0x05), m
        meas = b.varstr()
        size = b.uvarint()
        dtype, comp, enc = b.u8(), b.u8(), b.u8()
        end = b.p + size
        if not (enc == 8 and m & 0xC0 == 0x40):
            b.skip(size)
            continue
        assert comp == 0
        while b.p < end:
            usize = b.uvarint()
            if usize == 0:
                continue
            csize = b.uvarint()
            if m & 0x3F == 0x01:
                _skip_statistics(b, TYPE_NAMES[dtype])
            body = data[b.p : b.p + csize]
            b.skip(csize)
            rows = struct.unpack(">i", body[:4])[0]
            bitmap = body[4 : 4 + (rows + 7) // 8]
            present = sum(bin(x).count("1") for x in bitmap)
            key = (device[-1], meas, dtype)
            pages.setdefault(key, []).append((bytes(body[4 + len(bitmap) :]), present))


def _fixture_or_skip(name):
    from tests.interop.expected import fixture_path

    if not fixture_path(name).exists():
        pytest.skip(f"official fixture {name} not present")


def test_official_gorilla_pages_decode_and_reencode_byte_identical():
    """GORILLA pages written by the official TsFile 2.5: decode == expected data, and our encoder
    reproduces every page byte for byte."""
    _fixture_or_skip("gorilla_uncompressed")
    from tests.interop.expected import load_expected

    table = load_expected("gorilla_uncompressed").tables["gorilla"]
    pages = _gorilla_value_pages("gorilla_uncompressed")
    assert len(pages) >= 2 * 8
    for (dev, meas, code), plist in pages.items():
        dtype = _TYPES[code]
        rows = table.values["device"] == dev
        assert not table.nulls[meas][rows].any()
        want = table.values[meas][rows].astype(dtype)
        got = []
        for body, present in plist:
            for path in PATHS:
                vals = gorilla.decode(body, dtype, path=path)
                assert len(vals) == present, (dev, meas)
                out = np.empty(present, dtype)
                assert gorilla.decode_into(body, out, path=path) == len(body)
                assert out.tobytes() == vals.tobytes()
            assert gorilla.encode(vals) == body, (dev, meas)
            got.append(vals)
        got = np.concatenate(got)
        assert got.tobytes() == want.tobytes(), (dev, meas)


def test_official_pages_with_end_markers_by_count():
    """The official writer stores end-marker values anyway and its reader decodes by count: so do
    we (byte-identical pages with allow_end_markers); without a count decoding stops at the first
    marker; by default our encoder refuses such values."""
    _fixture_or_skip("gorilla_end_markers")
    from tests.interop.expected import load_expected

    table = load_expected("gorilla_end_markers").tables["gorilla"]
    pages = _gorilla_value_pages("gorilla_end_markers")
    assert pages
    for (_dev, meas, code), plist in pages.items():
        dtype = np.dtype(_TYPES[code])
        u = np.uint32 if dtype.itemsize == 4 else np.uint64
        want = table.values[meas].astype(dtype)
        start = 0
        for body, present in plist:
            page_vals = want[start : start + present]
            start += present
            marks = np.flatnonzero(page_vals.view(u) == END[dtype])
            assert len(marks), "every page of this fixture holds a marker"
            for path in PATHS:
                got = gorilla.decode(body, dtype, count=present, path=path)
                assert got.tobytes() == page_vals.tobytes(), (meas, path)
                first = gorilla.decode(body, dtype, path=path)
                assert first.tobytes() == page_vals[: marks[0]].tobytes()
            assert gorilla.encode(page_vals, allow_end_markers=True) == body
            with pytest.raises(EncodeError, match=f"value {marks[0]} "):
                gorilla.encode(page_vals)


def test_byte_order():
    vals = np.arange(50, dtype=np.int64)
    data = gorilla.encode(vals.astype(">i8"))
    assert data == gorilla.encode(vals)
    with pytest.raises(ValueError, match="byte order"):
        gorilla.decode_into(data, np.empty(50, ">i8"))
