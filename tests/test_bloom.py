"""The bloom filter of the writer (format notes section 10)."""

import math
import struct

import pytest

from tsfile._write.bloom import BloomFilter, cpp_path_count, filter_size, murmur128_java

# The bloom filter of the annotated example file (written by the official 2.5.0 package):
# 14 entries, m = 256, k = 5 (format notes / tsfile-annotated-example.txt, offset 0x52e).
EXAMPLE_ENTRIES = [
    f"small.{d}.{m}" for d in ("d1", "d2") for m in ("", "b", "d", "f", "i32", "i64", "s")
]
EXAMPLE_BLOOM = bytes.fromhex(
    "2009930c8a0605013902124a8c1c8601885b8d50004090200200010a3250140840800205"
)


def test_example_filter_bytes():
    assert BloomFilter.for_entries(EXAMPLE_ENTRIES).serialize() == EXAMPLE_BLOOM


def test_membership():
    bloom = BloomFilter.for_entries(EXAMPLE_ENTRIES)
    assert all(bloom.might_contain(e) for e in EXAMPLE_ENTRIES)
    absent = [f"small.d{i}.x{j}" for i in range(3, 40) for j in range(5)]
    false_pos = sum(bloom.might_contain(e) for e in absent)
    assert false_pos < len(absent) * 0.3


def _murmur3_x64_128_reference(data: bytes, seed: int, java_tail: bool = False):
    """Textbook MurmurHash3_x64_128 (unsigned tail bytes), written independently of the module;
    java_tail: Java's tail, `k ^= (long) byte << shift`, each byte sign-extended to 64 bits."""
    mask = (1 << 64) - 1

    def rotl(x, r):
        return ((x << r) | (x >> (64 - r))) & mask

    def fmix(k):
        k ^= k >> 33
        k = (k * 0xFF51AFD7ED558CCD) & mask
        k ^= k >> 33
        k = (k * 0xC4CEB9FE1A85EC53) & mask
        return k ^ (k >> 33)

    c1, c2 = 0x87C37B91114253D5, 0x4CF5AD432745937F
    h1 = h2 = seed
    n = len(data) // 16
    for i in range(n):
        k1, k2 = struct.unpack_from("<QQ", data, 16 * i)
        h1 ^= (rotl((k1 * c1) & mask, 31) * c2) & mask
        h1 = ((rotl(h1, 27) + h2) * 5 + 0x52DCE729) & mask
        h2 ^= (rotl((k2 * c2) & mask, 33) * c1) & mask
        h2 = ((rotl(h2, 31) + h1) * 5 + 0x38495AB5) & mask
    tail = data[16 * n :] + bytes(16)
    rest = len(data) % 16
    k1, k2 = struct.unpack_from("<QQ", tail)
    k1 &= (1 << (8 * min(rest, 8))) - 1
    k2 &= (1 << (8 * max(rest - 8, 0))) - 1
    if java_tail:
        k1 = k2 = 0
        for j, byte in enumerate(data[16 * n :]):
            signed = ((byte - 256 if byte >= 128 else byte) << (8 * (j % 8))) & mask
            if j < 8:
                k1 ^= signed
            else:
                k2 ^= signed
    if rest > 8:
        h2 ^= (rotl((k2 * c2) & mask, 33) * c1) & mask
    if rest > 0:
        h1 ^= (rotl((k1 * c1) & mask, 31) * c2) & mask
    h1 ^= len(data)
    h2 ^= len(data)
    h1 = (h1 + h2) & mask
    h2 = (h2 + h1) & mask
    h1, h2 = fmix(h1), fmix(h2)
    h1 = (h1 + h2) & mask
    h2 = (h2 + h1) & mask
    return h1, h2


@pytest.mark.parametrize("length", [0, 1, 7, 8, 9, 15, 16, 17, 31, 33, 40])
@pytest.mark.parametrize("seed", [5, 59])
def test_murmur_matches_reference_for_ascii(length, seed):
    data = bytes((97 + i % 26) for i in range(length))
    h1, h2 = _murmur3_x64_128_reference(data, seed)
    low = (h1 + h2) & 0xFFFFFFFF
    expected = low - (1 << 32) if low >= 1 << 31 else low
    assert murmur128_java(data, seed) == expected


def test_non_ascii_tail_bytes():
    # C++ 2.5 (the official package) treats tail bytes as unsigned: the textbook hash. Java
    # sign-extends them ((long) byte); signed_tail=True gives that variant. Full 16-byte blocks
    # are unsigned in both.
    def textbook(data, seed, java_tail=False):
        h1, h2 = _murmur3_x64_128_reference(data, seed, java_tail)
        low = (h1 + h2) & 0xFFFFFFFF
        return low - (1 << 32) if low >= 1 << 31 else low

    for data in ("é".encode() * 8, "é".encode(), "tabelle_ä.東京.温度".encode()):
        assert murmur128_java(data, 5) == textbook(data, 5)
    assert murmur128_java("é".encode() * 8, 5, signed_tail=True) == textbook("é".encode() * 8, 5)
    assert murmur128_java("é".encode(), 5, signed_tail=True) != textbook("é".encode(), 5)
    # the Java variant against the sign-extending reference, every tail length 1..15
    for k in range(1, 16):
        data = bytes((0x80 + 37 * i) % 256 for i in range(16 + k))
        assert murmur128_java(data, 5, signed_tail=True) == textbook(data, 5, java_tail=True), k
        assert murmur128_java(data[16:], 59, signed_tail=True) == textbook(
            data[16:], 59, java_tail=True
        ), k


def test_sizes_follow_cpp():
    # C++ 2.5 sizes the filter for its path count: the chunks of the file minus the first one
    # (observed: 600 chunks -> m = 3735; 2 devices x 11 series x 3 flushes -> m = 406).
    assert cpp_path_count(["", "a", "b"] * 200) == 599
    assert filter_size(599) == (3735, 5)
    assert filter_size(cpp_path_count(["", *"abcdefghij"] * 6)) == (406, 5)
    assert filter_size(13) == (256, 5)
    assert filter_size(0) == (256, 5)
    m, k = filter_size(10_000)
    assert m == int(10_000 * -math.log(0.05) / math.log(2) ** 2) + 1 and k == 5
    assert filter_size(100, 0.5) == filter_size(100, 0.1)  # p is clamped


def test_trailing_zero_bytes_dropped():
    bloom = BloomFilter(256, 5)
    bloom.bits[3] = 0x10
    assert bloom.serialize() == bytes([4, 0, 0, 0, 0x10]) + bytes([0x80, 0x02, 0x05])


def test_hashes_computed_ahead_give_the_same_filter():
    """A writer hashes a series path when its group is built (entry_hashes) and close() passes
    those hashes: the filter must be the one that hashes every entry itself, whatever hashes
    are known (all, some, none) and whatever the error rate (how many hashes are used)."""
    from tsfile._write.bloom import entry_hashes, hash_count

    entries = [f"root.t.d{d}.s{s}" for d in range(7) for s in range(5)] + ["t.é.", "t.x.长"]
    for rate in (0.01, 0.05, 0.1):
        k = hash_count(rate)
        want = BloomFilter.for_entries(entries, rate, 40).serialize()
        every = {e: entry_hashes(e, k) for e in entries}
        some = {e: h for i, (e, h) in enumerate(every.items()) if i % 2}
        too_few = {e: entry_hashes(e, k - 1) for e in entries}  # recomputed, not misused
        for hashes in (every, some, too_few, {}):
            assert BloomFilter.for_entries(entries, rate, 40, hashes).serialize() == want
