"""The page reader's Snappy decoder (include/read_snappy.h) moves short literals and copies as 16
whole bytes when there is room after them: every element kind, length and offset, ending at
every distance from the end of the output, against cramjam's decompression; and damaged streams
still fail with the error of the general path (never a read or write out of bounds: the CI's
ASan build runs these too)."""

import cramjam
import numpy as np
import pytest

from tsfile._read import engine
from tsfile.errors import CorruptDataError

SNAPPY = 1


def _inputs():
    rng = np.random.default_rng(11)
    words = [b"a", b"bc", b"def", b"ghij", b"klmnopq", b"rstuvwxyz0123456", b"z" * 17]
    for n in range(0, 80):  # short streams: elements near the end of the output
        yield rng.integers(0, 4, n, dtype=np.uint8).tobytes()
        yield b"".join(words[i] for i in rng.integers(0, len(words), n))[:n]
    for _ in range(200):  # text-like: short literals, copies of every offset
        n = int(rng.integers(100, 5000))
        yield b" ".join(str(x).encode() for x in rng.integers(0, 300, n // 3))[:n]
        period = int(rng.integers(1, 40))  # copies with offsets below and above 8
        base = rng.integers(0, 256, period, dtype=np.uint8).tobytes()
        yield (base * (n // period + 1))[:n]


def test_short_elements_decode_as_cramjam_does():
    count = 0
    for raw in _inputs():
        stored = bytes(cramjam.snappy.compress_raw(raw))
        assert engine.c_decompress(SNAPPY, stored, len(raw)) == raw
        count += 1
    assert count > 500


@pytest.mark.parametrize("seed", range(4))
def test_damaged_streams_fail_cleanly(seed):
    """Every truncation and single-byte change of short-element streams: the decoder returns
    the bytes cramjam returns or raises CorruptDataError; it never reads or writes past its
    buffers (ASan) and never returns other bytes."""
    rng = np.random.default_rng(seed)
    raw = b" ".join(str(x).encode() for x in rng.integers(0, 50, 200))
    stored = bytes(cramjam.snappy.compress_raw(raw))
    for cut in range(len(stored)):
        with pytest.raises(CorruptDataError):
            engine.c_decompress(SNAPPY, stored[:cut], len(raw))
    for at in range(len(stored)):
        bad = bytearray(stored)
        bad[at] ^= int(rng.integers(1, 256))
        try:
            want = bytes(cramjam.snappy.decompress_raw(bytes(bad)))
        except Exception:  # noqa: BLE001 - cramjam's own error class
            want = None
        try:
            got = engine.c_decompress(SNAPPY, bytes(bad), len(raw))
        except CorruptDataError:
            continue
        assert want is not None and got == want, at
