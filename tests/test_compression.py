"""Page compression: round trips, the stored formats (checked with independent decoders), and
hostile input (truncated, wrong size, garbage) -> CorruptDataError without large allocations."""

import gzip
import lzma
import os

import numpy as np
import pytest

from tsfile import CorruptDataError, UnsupportedError
from tsfile import compression as C
from tsfile.types import Compressor

ALL = [
    Compressor.UNCOMPRESSED,
    Compressor.SNAPPY,
    Compressor.GZIP,
    Compressor.LZO,
    Compressor.LZ4,
    Compressor.ZSTD,
    Compressor.LZMA2,
]

PAYLOADS = [
    b"",
    b"a",
    bytes(range(256)) * 40,
    os.urandom(3000),
    np.arange(5000, dtype=">i8").tobytes(),
]


@pytest.mark.parametrize("code", ALL, ids=lambda c: c.name)
@pytest.mark.parametrize("payload", PAYLOADS, ids=lambda p: f"len{len(p)}")
def test_round_trip(code, payload):
    stored = C.compress(code, payload)
    assert C.decompress(code, stored, len(payload)) == payload
    out = bytearray(len(payload))
    assert C.decompress_into(code, stored, out) == len(payload)
    assert bytes(out) == payload
    # into a slice of a reused numpy buffer (the reader's use)
    buf = np.zeros(len(payload) + 16, np.uint8)
    C.decompress_into(code, stored, memoryview(buf)[: len(payload)])
    assert buf[: len(payload)].tobytes() == payload


def test_stored_formats_match_independent_decoders():
    data = bytes(range(200)) * 30
    assert gzip.decompress(C.compress(Compressor.GZIP, data)) == data
    xz = C.compress(Compressor.LZMA2, data)
    assert xz[:6] == b"\xfd7zXZ\x00"
    assert lzma.decompress(xz, format=lzma.FORMAT_XZ) == data
    zs = C.compress(Compressor.ZSTD, data)
    assert zs[:4] == b"\x28\xb5\x2f\xfd"
    # raw snappy starts with the uvarint of the length (6000 = 0xf0 0x2e)
    assert C.compress(Compressor.SNAPPY, data)[:2] == b"\xf0\x2e"
    import lz4.block

    assert (
        lz4.block.decompress(C.compress(Compressor.LZ4, data), uncompressed_size=len(data)) == data
    )
    assert C.compress(Compressor.LZO, data)[-3:] == b"\x11\x00\x00"  # LZO1X end marker


def test_lzo_pages_are_the_official_writers_bytes():
    """Every LZO page body of the official fixture (C++ writer) is what compress() makes of its
    decompressed bytes, and decompresses to them (python-lzo, which needs liblzo2-dev to build,
    is not needed for either direction)."""
    from interop.chunk_scan import iter_pages, scan_chunks

    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "fixtures", "official", "comp_lzo.tsfile"), "rb") as f:
        data = f.read()
    pages = [
        p
        for c in scan_chunks(data)
        if c["compression"] == "LZO"
        for p in iter_pages(data, c)
        if not p["empty"]
    ]
    assert len(pages) > 10
    for p in pages:
        raw = C.decompress(Compressor.LZO, p["body"], p["uncompressed_size"])
        assert C.compress(Compressor.LZO, raw) == p["body"]


def test_snappy_known_bytes():
    # A hand-made raw snappy block: length 3, literal tag (len-1)<<2 = 0x08, "abc".
    assert C.decompress(Compressor.SNAPPY, b"\x03\x08abc", 3) == b"abc"


@pytest.mark.parametrize("code", ALL[1:], ids=lambda c: c.name)
def test_wrong_size_and_truncation(code):
    payload = bytes(range(256)) * 20
    stored = C.compress(code, payload)
    with pytest.raises(CorruptDataError):
        C.decompress(code, stored, len(payload) - 1)
    with pytest.raises(CorruptDataError):
        C.decompress(code, stored, len(payload) + 1)
    with pytest.raises(CorruptDataError):
        C.decompress_into(code, stored, bytearray(len(payload) + 7))
    for cut in (0, 1, len(stored) // 2, len(stored) - 1):
        with pytest.raises(CorruptDataError):
            C.decompress(code, stored[:cut], len(payload))


@pytest.mark.parametrize("code", ALL[1:], ids=lambda c: c.name)
def test_garbage_never_crashes(code):
    rng = np.random.default_rng(1)
    payload = bytes(range(256)) * 8
    stored = bytearray(C.compress(code, payload))
    for _ in range(60):
        bad = bytearray(stored)
        for _ in range(rng.integers(1, 4)):
            bad[rng.integers(0, len(bad))] ^= 1 << int(rng.integers(0, 8))
        try:
            out = C.decompress(code, bytes(bad), len(payload))
        except CorruptDataError:
            continue
        assert len(out) == len(payload)  # a flip that still decodes must still give the size


def test_bomb_is_bounded():
    # 64 MiB of zeros compress to a few KiB; a page header claiming 100 bytes must not inflate it.
    bomb_gz = gzip.compress(bytes(64 << 20))
    with pytest.raises(CorruptDataError):
        C.decompress(Compressor.GZIP, bomb_gz, 100)
    bomb_xz = lzma.compress(bytes(16 << 20), format=lzma.FORMAT_XZ)
    with pytest.raises(CorruptDataError):
        C.decompress(Compressor.LZMA2, bomb_xz, 100)
    bomb_zs = C.compress(Compressor.ZSTD, bytes(16 << 20))
    with pytest.raises(CorruptDataError):
        C.decompress(Compressor.ZSTD, bomb_zs, 100)


def test_unknown_compressor():
    with pytest.raises(UnsupportedError):
        C.decompress(4, b"", 0)
    with pytest.raises(UnsupportedError):
        C.compress(42, b"x")


@pytest.mark.parametrize("code", [Compressor.SNAPPY, Compressor.LZ4], ids=lambda c: c.name)
def test_reader_c_decompressors(code):
    """The page reader's nogil SNAPPY / LZ4 decoders: same bytes as the libraries, and damaged
    input is a CorruptDataError (never a crash or an overrun)."""
    from tsfile._read import engine

    rng = np.random.default_rng(int(code))
    payloads = PAYLOADS + [
        np.repeat(rng.integers(0, 4, 3000), rng.integers(1, 40, 3000)).astype(np.uint8).tobytes(),
        b"ab" * 5000,
    ]
    for payload in payloads:
        stored = C.compress(code, payload)
        assert engine.c_decompress(int(code), stored, len(payload)) == payload
        with pytest.raises(CorruptDataError):
            engine.c_decompress(int(code), stored, len(payload) + 1)
        for _ in range(40):
            bad = bytearray(stored)
            if not bad:
                break
            for _ in range(int(rng.integers(1, 4))):
                bad[int(rng.integers(0, len(bad)))] = int(rng.integers(0, 256))
            cut = bytes(bad[: int(rng.integers(0, len(bad) + 1))])
            for data in (bytes(bad), cut):
                try:
                    out = engine.c_decompress(int(code), data, len(payload))
                except CorruptDataError:
                    continue
                assert len(out) == len(payload)
