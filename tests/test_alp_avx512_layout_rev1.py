"""ALP DOUBLE pages through the Python API on every SIMD row, aimed at the AVX-512 kernel's
output layout (include/alp_avx512.h, alp_avx512_f64_groups: stores that start at the output's
line boundaries, the last chunks cut from the last 64 readable bytes, a masked partial chunk, no
product by P when the factor is 0): pages of several blocks of odd counts, with exceptions, PLAIN
and width-0 blocks, decoded into outputs at every 8-byte offset within a cache line (outputs at
byte offsets 1..7 are refused: test_unaligned_outputs_are_refused), against the independent
reader and the batch path, nothing stored around the output; first-n decodes; damaged and
truncated pages give the same error on every path.

tests/c/alp_layout_check.c checks the kernel itself (every width, the counts of every shape,
bodies at inaccessible pages)."""

import struct

import numpy as np
import pytest
from test_alp import _block, _page, reference_decode

import tsfile._simd as simd
from tsfile.codecs import alp
from tsfile.errors import CorruptDataError

SIMD_ROWS = [row for row in alp.implementations() if row != "scalar"]
LIM = 2**51  # alp_f64_simd_safe: every integer of a block in (-2^51, 2^51)


@pytest.fixture
def restore_simd():
    before = simd.set_simd("scalar")
    try:
        yield
    finally:
        simd.set_simd(before)


def _random_block(rng, n):
    """One block of n values: PLAIN, width 0, or ALP of a width up to 51 (sometimes past it),
    its base anywhere up to the ends of the SIMD-safe range, factor 0 often, exceptions
    sometimes."""
    kind = rng.random()
    if kind < 0.1:
        raw = rng.integers(0, 2**64, n, dtype=np.uint64).tobytes()
        return struct.pack("<BBBBIIIqB3x", 1, 0, 0, 0, n, 0, n * 8, 0, 0) + raw
    if kind < 0.15:
        width = 0
    elif kind < 0.2:
        width = int(rng.integers(52, 64))  # the scalar kernel on every path
    else:
        width = int(rng.choice([int(rng.integers(1, 52)), int(rng.integers(44, 52))]))
    top = 2**width - 1
    pick = rng.random()
    if width > 51:
        base = -(2**62)
    elif pick < 0.25:
        base = -LIM + 1  # the lowest base the SIMD kernels take
    elif pick < 0.5:
        base = LIM - 1 - top  # the highest
    else:
        base = int(rng.integers(-(2**40), 2**40))
    ints = [base + int(u) for u in rng.integers(0, top + 1, n, dtype=np.uint64)]
    if width:
        ints[int(rng.integers(0, n))] = base + top
    e = int(rng.integers(0, 19))
    f = 0 if rng.random() < 0.5 else int(rng.integers(0, e + 1))
    exc = {}
    if rng.random() < 0.3:
        for p in rng.choice(n, size=min(n, int(rng.integers(1, 12))), replace=False):
            exc[int(p)] = int(rng.integers(0, 2**64, dtype=np.uint64))
    return _block(n, e, f, base, width, ints, exc=exc)


def _random_page(rng):
    counts = []
    for _ in range(int(rng.integers(1, 6))):
        near8 = 8 * int(rng.integers(1, 129)) + int(rng.integers(-1, 2))
        counts.append(int(rng.choice([int(rng.integers(1, 1025)), 1024, near8, 7, 9])))
    counts = [min(max(n, 1), 1024) for n in counts]
    return _page(1, sum(counts), [_random_block(rng, n) for n in counts])


# Byte offsets from a cache line: every 8-byte one (an output not aligned to its items is
# refused: test_unaligned_outputs_are_refused)
OFFSETS = [8 * k for k in range(8)]


def test_unaligned_outputs_are_refused():
    page = _page(1, 9, [_block(9, 2, 0, 0, 4, list(range(9)))])
    for offset in range(1, 8):
        with pytest.raises(ValueError, match="aligned"):
            _decode_at(page, 9, offset, "batch")


def _decode_at(page, n, offset, path):
    """decode_into an output starting `offset` bytes past a cache line, inside a buffer of guard
    bytes; returns (values, guard bytes intact, bytes used)."""
    raw = np.full(n * 8 + 4 * 64, 0xA5, dtype=np.uint8)
    start = (-raw.ctypes.data % 64) + 64 + offset
    out = raw[start : start + n * 8].view(np.float64)
    used = alp.decode_into(page, out, path=path)
    intact = (raw[:start] == 0xA5).all() and (raw[start + n * 8 :] == 0xA5).all()
    return out.tobytes(), intact, used


@pytest.mark.skipif(not SIMD_ROWS, reason="no SIMD row runs on this CPU")
@pytest.mark.parametrize("seed", range(6))
def test_random_pages_at_every_output_offset(seed, restore_simd):
    rng = np.random.default_rng(seed)
    for _ in range(8):
        page = _random_page(rng)
        want, end = reference_decode(page)
        n = len(want)
        simd.set_simd("scalar")
        assert alp.decode(page, np.float64, path="batch").tobytes() == want.tobytes()
        for row in SIMD_ROWS:
            simd.set_simd(row)
            assert alp.decode(page, np.float64, path="simd").tobytes() == want.tobytes(), row
            for offset in OFFSETS:
                got, intact, used = _decode_at(page, n, offset, "simd")
                assert got == want.tobytes(), (row, offset)
                assert intact, (row, offset)
                assert used == end
            # the first k values: the last block read goes through a scratch block
            k = int(rng.integers(1, n + 1))
            got = alp.decode(page, np.float64, count=k, path="simd")
            assert got.tobytes() == want[:k].tobytes(), (row, k)


@pytest.mark.skipif(not SIMD_ROWS, reason="no SIMD row runs on this CPU")
@pytest.mark.parametrize("width", [1, 6, 13, 29, 44, 48, 51])
def test_blocks_of_every_count_around_the_chunks(width, restore_simd):
    # one page per count class: blocks whose counts end on every position of an 8-value chunk,
    # at sizes where the kernel's last chunks come from the last 64 readable bytes (one block's
    # packed bits + 16 guard bytes around 64) and at full sizes, so every block's output starts
    # at another offset of a line; factor 0 and 1 alternate; the base at either SIMD-safe end
    rng = np.random.default_rng(width)
    small = max(8, -(-48 * 8 // width))  # the first count whose readable bytes reach 64
    counts = [c for c in range(small - 9, small + 25) if c >= 1] + list(range(1010, 1025))
    blocks = []
    for k, n in enumerate(counts):
        base = -LIM + 1 if k % 2 else LIM - 2**width
        ints = [base + int(u) for u in rng.integers(0, 2**width, n, dtype=np.uint64)]
        blocks.append(_block(n, 3 + k % 4, k % 2, base, width, ints))
    page = _page(1, sum(counts), blocks)
    want, _ = reference_decode(page)
    for row in SIMD_ROWS:
        simd.set_simd(row)
        for offset in OFFSETS:
            got, intact, _ = _decode_at(page, len(want), offset, "simd")
            assert got == want.tobytes(), (row, offset)
            assert intact, (row, offset)


def _errors(data, dtype=np.float64):
    """What every path of every row makes of `data`: the values or the error message."""
    seen = {}
    for row in alp.implementations():
        simd.set_simd(row)
        for path in ["per_value", "batch"] + (["simd"] if row != "scalar" else []):
            try:
                seen[row, path] = alp.decode(data, dtype, path=path).tobytes()
            except CorruptDataError as e:
                seen[row, path] = str(e)
            count = struct.unpack_from("<I", data, 4)[0] if len(data) >= 8 else 0
            if count > 1 << 16:  # a damaged count: no output array of that size
                continue
            out = np.empty(count, dtype)
            try:
                alp.decode_into(data, out, path=path)
                seen[row, path, "into"] = out.tobytes()
            except (CorruptDataError, ValueError) as e:
                seen[row, path, "into"] = str(e)
    return seen


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_blocks_past_the_values_same_error_on_every_path(dtype, restore_simd):
    # The header lists more blocks than the page's values need. The batch driver parsed the
    # extra block and reported what is wrong with it ("block extends past the end of the data",
    # "block value count out of range", ...); the streaming decoder (path="per_value") said
    # "block value counts do not add up" without looking at it. Both now parse it.
    is64, size = (1, 8) if dtype == np.float64 else (0, 4)
    ints = list(range(10))
    page = bytearray(_page(is64, 10, [_block(10, 0, 0, 0, 4, ints, size=size)]))
    struct.pack_into("<I", page, 8, 2)  # two blocks
    cases = {
        "nothing after the block": bytes(page),
        "a cut header": bytes(page) + bytes(27),
        "a count of 0": bytes(page) + bytes(28),
        "a width of 65": bytes(page) + struct.pack("<BBBBIIIqB3x", 0, 0, 0, 0, 1, 0, 8, 0, 65),
        "a whole block": bytes(page) + _block(3, 0, 0, 0, 2, [0, 1, 2], size=size),
    }
    want = {
        "nothing after the block": "block extends past the end of the data",
        "a cut header": "block extends past the end of the data",
        "a count of 0": "block value count out of range",
        "a width of 65": "bit width out of range",
        "a whole block": "block value counts do not add up",
    }
    for name, data in cases.items():
        seen = _errors(data, dtype)
        assert len(set(seen.values())) == 1, (name, seen)
        assert want[name] in next(iter(seen.values())), (name, seen)


@pytest.mark.parametrize("seed", range(3))
def test_damaged_pages_same_error_on_every_path(seed, restore_simd):
    rng = np.random.default_rng(100 + seed)
    page = _random_page(rng)
    for _ in range(60):
        bad = bytearray(page)
        if rng.random() < 0.4:
            bad = bad[: int(rng.integers(0, len(bad)))]
        else:
            for _ in range(int(rng.integers(1, 4))):
                bad[int(rng.integers(0, len(bad)))] ^= 1 << int(rng.integers(0, 8))
        seen = _errors(bytes(bad))
        assert len(set(seen.values())) == 1, seen
