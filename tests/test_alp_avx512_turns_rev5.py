"""ALP DOUBLE pages of every width 1..51 through decode_into on the AVX-512 row, aimed at the
kernel's four-chunks-per-turn loop with its input prefetch (include/alp_avx512.h,
alp_avx512_f64_groups, d4a55de): blocks of every count 1..64 and 961..1024 (every count mod 32
near both ends, so every number of plainly loaded chunks mod 4 with and without the chunks cut
from the last 64 readable bytes), bases at both ends of the SIMD-safe range and negative ones,
factor 0 and non-zero, exceptions in every third block, outputs at each 8-byte offset of a cache
line, on the simd and batch paths of the AVX-512 and AVX2 rows, bit-identical to the scalar row
and nothing stored around the output. (tests/c/alp_layout_check.c checks the kernel alone.)"""

import numpy as np
import pytest
from test_alp import _block, _page
from test_alp_avx512_layout_rev1 import LIM, _decode_at, restore_simd  # noqa: F401 (a fixture)

import tsfile._simd as simd
from tsfile.codecs import alp

ROWS = [row for row in alp.implementations() if row != "scalar"]
COUNTS = list(range(1, 65)) + list(range(961, 1025))


def _pages(width, rng):
    """Two pages holding one block of each count of COUNTS, in random order."""
    top = 2**width - 1
    for part in (COUNTS[0::2], COUNTS[1::2]):
        counts = list(part)
        rng.shuffle(counts)
        blocks = []
        for k, n in enumerate(counts):
            base = [-LIM + 1, LIM - 1 - top, -int(rng.integers(1, 2**40)), 0][k % 4]
            ints = [base + int(u) for u in rng.integers(0, top + 1, n, dtype=np.uint64)]
            ints[int(rng.integers(0, n))] = base + top
            e = int(rng.integers(0, 19))
            f = 0 if k % 2 == 0 else int(rng.integers(0, e + 1))
            exc = {}
            if k % 3 == 0:
                for p in rng.choice(n, size=min(n, int(rng.integers(1, 12))), replace=False):
                    exc[int(p)] = int(rng.integers(0, 2**64, dtype=np.uint64))
            blocks.append(_block(n, e, f, base, width, ints, exc=exc))
        yield _page(1, sum(counts), blocks)


@pytest.mark.skipif(
    "avx512" not in ROWS, reason="this CPU has no AVX-512 row: the loop under test does not run"
)
@pytest.mark.parametrize("widths", [range(w, min(w + 9, 52)) for w in range(1, 52, 9)], ids=str)
@pytest.mark.usefixtures("restore_simd")
def test_every_width_every_count_mod_32_at_every_offset(widths):
    for width in widths:
        rng = np.random.default_rng(width)
        for page in _pages(width, rng):
            simd.set_simd("scalar")
            want = alp.decode(page, np.float64, path="batch").tobytes()
            n = len(want) // 8
            for row in ROWS:
                simd.set_simd(row)
                for path in ("simd", "batch"):
                    for offset in range(0, 64, 8):
                        got, intact, used = _decode_at(page, n, offset, path)
                        assert got == want, (width, row, path, offset)
                        assert intact, (width, row, path, offset)
                        assert used == len(page)
