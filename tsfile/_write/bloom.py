"""The TsFile bloom filter (format notes section 10): Java's BitSet layout, Murmur3 x64 128 hashes
reduced as Java's Murmur128Hash does, sizes as the C++ 2.5 writer chooses them (its entry count is
the number of chunks in the file minus one, see cpp_path_count; Java uses the number of series;
readers accept any size)."""

from __future__ import annotations

import math

from tsfile._format.bytes import uvarint

SEEDS = (5, 7, 11, 19, 31, 37, 43, 59)
_M64 = (1 << 64) - 1
_C1 = 0x87C37B91114253D5
_C2 = 0x4CF5AD432745937F
MIN_SIZE = 256
DEFAULT_ERROR_RATE = 0.05


def _rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & _M64


def _fmix(k):
    k ^= k >> 33
    k = (k * 0xFF51AFD7ED558CCD) & _M64
    k ^= k >> 33
    k = (k * 0xC4CEB9FE1A85EC53) & _M64
    k ^= k >> 33
    return k


def murmur128_java(data: bytes, seed: int, signed_tail: bool = False) -> int:
    """Murmur128Hash.hash of TsFile: Murmur3 x64 128, reduced to `(int)(h1 + h2)` (a signed 32-bit
    int). The tail bytes (the last len % 16) are unsigned in the C++ 2.5 library, which wrote the
    official package's files (verified on non-ASCII names); Java (and older C++) sign-extend them
    (`(long) byte`): signed_tail=True gives that variant. Both agree on ASCII."""
    length = len(data)
    nblocks = length >> 4
    h1 = h2 = seed & _M64
    for i in range(nblocks):
        k1 = int.from_bytes(data[16 * i : 16 * i + 8], "little")
        k2 = int.from_bytes(data[16 * i + 8 : 16 * i + 16], "little")
        k1 = (_rotl((k1 * _C1) & _M64, 31) * _C2) & _M64
        h1 ^= k1
        h1 = (_rotl(h1, 27) + h2) & _M64
        h1 = (h1 * 5 + 0x52DCE729) & _M64
        k2 = (_rotl((k2 * _C2) & _M64, 33) * _C1) & _M64
        h2 ^= k2
        h2 = (_rotl(h2, 31) + h1) & _M64
        h2 = (h2 * 5 + 0x38495AB5) & _M64
    tail = data[nblocks * 16 :]
    rest = len(tail)
    k1 = k2 = 0
    # Java ORs (long) key[i] << shift: a byte >= 0x80 is sign-extended to 64 bits before the shift.
    sx = 256 if signed_tail else 0
    for i in range(rest - 1, 7, -1):
        b = tail[i] - sx if tail[i] >= 0x80 else tail[i]
        k2 ^= (b << ((i - 8) * 8)) & _M64
    if rest > 8:
        k2 = (_rotl((k2 * _C2) & _M64, 33) * _C1) & _M64
        h2 ^= k2
    for i in range(min(rest, 8) - 1, -1, -1):
        b = tail[i] - sx if tail[i] >= 0x80 else tail[i]
        k1 ^= (b << (i * 8)) & _M64
    if rest > 0:
        k1 = (_rotl((k1 * _C1) & _M64, 31) * _C2) & _M64
        h1 ^= k1
    h1 ^= length
    h2 ^= length
    h1 = (h1 + h2) & _M64
    h2 = (h2 + h1) & _M64
    h1 = _fmix(h1)
    h2 = _fmix(h2)
    h1 = (h1 + h2) & _M64
    h2 = (h2 + h1) & _M64
    low = (h1 + h2) & 0xFFFFFFFF
    return low - (1 << 32) if low >= (1 << 31) else low


def filter_size(entry_count: int, error_rate: float = DEFAULT_ERROR_RATE):
    """(m, k) for entry_count entries, as C++ 2.5 BloomFilter::init computes them (the same formula
    as Java, with the same operation order): p clamped to [0.01, 0.1], m at least 256, k at most
    8. Note the C++ writer's entry count is its path count (see cpp_path_count), not the number
    of series Java uses."""
    p = min(max(error_rate, 0.01), 0.1)
    ln2 = 0.6931471805599453
    log_p = math.log(p)
    m = -int(entry_count * log_p / ln2 / ln2) + 1  # int() truncates toward zero, like C's cast
    k = int(-1 * (log_p / ln2) + 1)
    return max(m, MIN_SIZE), min(k, len(SEEDS))


def cpp_path_count(chunk_names, prev: str = "") -> int:
    """The entry count the C++ 2.5 writer sizes its filter with: walking all chunks of the file in
    write order, count each chunk whose measurement differs from the previous chunk's, starting
    from "" (so the very first time chunk is not counted: 600 chunks -> 599)."""
    count = 0
    for name in chunk_names:
        if name != prev:
            count += 1
            prev = name
    return count


def hash_count(error_rate: float = DEFAULT_ERROR_RATE) -> int:
    """The number of hashes a filter of this error rate uses (filter_size's k: it does not
    depend on the entry count)."""
    return filter_size(1, error_rate)[1]


def entry_hashes(entry: str, count: int) -> tuple:
    """The first `count` hashes of an entry, before they are reduced modulo a filter's size
    (BloomFilter.add): a writer computes them as soon as it knows a series, so that close()
    does not hash every path at the end."""
    data = entry.encode("utf-8")
    out = []
    for seed in SEEDS[:count]:
        h = murmur128_java(data, seed)
        out.append(0 if h == -(1 << 31) else abs(h))
    return tuple(out)


class BloomFilter:
    def __init__(self, size: int, hash_count: int):
        self.size = size
        self.hash_count = hash_count
        self.bits = bytearray((size + 7) // 8)

    @classmethod
    def for_entries(
        cls, entries, error_rate: float = DEFAULT_ERROR_RATE, entry_count=None, hashes=None
    ):
        """A filter holding entries, sized for entry_count (default: the number of entries);
        hashes: {entry: entry_hashes(entry, k)} known already (the others are computed)."""
        entries = list(entries)
        count = len(entries) if entry_count is None else entry_count
        bloom = cls(*filter_size(count, error_rate))
        for entry in entries:
            bloom.add(entry, None if hashes is None else hashes.get(entry))
        return bloom

    def _positions(self, entry: str, hashes=None):
        if hashes is None or len(hashes) < self.hash_count:
            hashes = entry_hashes(entry, self.hash_count)
        for h in hashes[: self.hash_count]:
            yield h % self.size

    def add(self, entry: str, hashes=None):
        """Add entry (hashes: its entry_hashes, at least hash_count of them, if known)."""
        for pos in self._positions(entry, hashes):
            self.bits[pos >> 3] |= 1 << (pos & 7)

    def might_contain(self, entry: str) -> bool:
        return all(self.bits[pos >> 3] >> (pos & 7) & 1 for pos in self._positions(entry))

    def serialize(self) -> bytes:
        """uvarint byte count + BitSet.toByteArray() (trailing zero bytes dropped) + uvarint m +
        uvarint k."""
        bits = bytes(self.bits).rstrip(b"\x00")
        return uvarint(len(bits)) + bits + uvarint(self.size) + uvarint(self.hash_count)
