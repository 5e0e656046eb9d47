"""The Snappy match search's fast paths (include/snappy_compress.h): the first 32 probes four
positions to a load, the runs of probes of one step, and the short literals copied 16 bytes
whole, each ending at every place it can, against cramjam.snappy.compress_raw byte for byte
(the bytes the writer has always written; tests/test_chunk_encode.py covers general inputs).

A 4-byte word is planted twice, the second copy `gap` bytes after the first, in bytes that
never match otherwise: the search finds it on whichever probe lands on it first (a probe in the
step-1 run, in a later run of step 2..8, or in the plain loop past them), or never when the
probes step over it. The input ends `tail` bytes after it, so the search's limit (15 bytes
before the end of a block) falls before, inside and after each run.
"""

import cramjam
import numpy as np
import pytest

from tsfile._write import chunk_encode


def _distinct_bytes(rng, n):
    """n bytes in which no 4-byte word occurs twice (a de Bruijn-like walk would do; random
    bytes from a 2^32 word space make a repeat vanishingly rare, and the test checks it)."""
    while True:
        b = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        words = {b[i : i + 4] for i in range(max(n - 3, 0))}
        if len(words) == max(n - 3, 0):
            return b


@pytest.mark.parametrize("tail", [0, 1, 15, 16, 17, 31, 40, 200])
def test_planted_match_at_every_gap(tail):
    rng = np.random.default_rng(tail)
    word = b"\xa5\x5a\xc3\x3c"
    checked = 0
    for gap in range(4, 700):
        body = _distinct_bytes(rng, gap - 4 + 1 + tail)
        lead = rng.integers(1, 8)  # the search starts at byte 1: shift the first copy too
        data = body[:lead] + word + body[lead : lead + gap - 4] + word + body[lead + gap - 4 :]
        want = bytes(cramjam.snappy.compress_raw(data))
        assert chunk_encode.snappy_compress_raw(data) == want, f"gap {gap}, {len(data)} bytes"
        checked += 1
    assert checked == 696


def test_short_literals_at_the_end_of_input_and_room():
    """Literals of 1..16 bytes right before a copy that ends the input: the 16-byte copy of a
    short literal must neither read past the input nor write past snappy_compress_bound."""
    rng = np.random.default_rng(3)
    for lit in range(1, 18):
        for repeat in range(4, 40):
            head = _distinct_bytes(rng, 24)
            data = head + _distinct_bytes(rng, lit) + head[:repeat]
            want = bytes(cramjam.snappy.compress_raw(data))
            assert chunk_encode.snappy_compress_raw(data) == want, (lit, repeat)


def test_block_boundaries_with_repeats():
    """Inputs of one and several 64 KiB blocks whose matches sit near each block's end (every
    block is searched alone, its limit 15 bytes before its end)."""
    rng = np.random.default_rng(5)
    unit = _distinct_bytes(rng, 97)
    for n in (65536 - 33, 65536 - 1, 65536, 65536 + 20, 2 * 65536 + 5):
        data = (unit * (n // len(unit) + 1))[:n]
        want = bytes(cramjam.snappy.compress_raw(data))
        assert chunk_encode.snappy_compress_raw(data) == want, n
