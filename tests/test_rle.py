"""RLE / bit-packing hybrid (format notes 8.5): the notes' byte example, hand-built blocks with both
run kinds (INT64 run values big-endian, INT32/BOOLEAN little-endian), a pure-Python model of the
C++ writer's layout (the encoder must match it byte for byte), round trips over every width and
around group / run boundaries, per_value == batch, and hostile input -> CorruptDataError."""

import numpy as np
import pytest
from codec_checks import check_mutated_page, check_paths_agree, examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from serial_ref import uvarint

import tsfile
from tsfile.codecs import rle
from tsfile.errors import CorruptDataError, SimdUnavailableError, UnsupportedError
from tsfile.types import TSDataType as T

PATHS = ["batch", "per_value"] + (["simd"] if rle.HAS_SIMD and tsfile.is_simd_enabled() else [])


# ---- an independent model of the format, with Python integers -----------------------------------


def pack_group(vals, w):
    """8 values of w bits, MSB-first, as one big integer -> w bytes."""
    acc = 0
    for v in vals:
        acc = (acc << w) | (v & ((1 << w) - 1))
    return acc.to_bytes(w, "big") if w else b""


def bp_run(vals, w):
    """A bit-packed run of the values (last group zero-padded)."""
    groups = (len(vals) + 7) // 8
    last = len(vals) - (groups - 1) * 8
    body = b"".join(
        pack_group(list(vals[i : i + 8]) + [0] * (8 - len(vals[i : i + 8])), w)
        for i in range(0, len(vals), 8)
    )
    return uvarint(groups << 1 | 1) + bytes([last]) + body


def rle_run(count, value, w, big_endian):
    nb = (w + 7) // 8
    pattern = value & ((1 << (8 * nb)) - 1) if nb else 0
    return uvarint(count << 1) + pattern.to_bytes(nb, "big" if big_endian else "little")


def block(w, runs):
    body = bytes([w]) + b"".join(runs)
    return uvarint(len(body)) + body


def cpp_model(values, bits):
    """What the C++ 2.5 writer emits: one block, width max(1, bit length), negatives need `bits`,
    bit-packed runs of at most 63 groups."""
    if len(values) == 0:
        return b""
    w = max([1] + [bits if v < 0 else v.bit_length() for v in values])
    runs = [bp_run(values[i : i + 504], w) for i in range(0, len(values), 504)]
    return block(w, runs)


def width_of(data):
    """The width byte of the first block (after its uvarint length)."""
    k = 0
    while data[k] & 0x80:
        k += 1
    return data[k + 1]


def decode_all(data, dtype, count=None):
    """Decode with every path and check they agree."""
    results = [rle.decode(data, dtype, count=count, path=p) for p in PATHS]
    for r in results[1:]:
        assert r.dtype == results[0].dtype
        np.testing.assert_array_equal(r, results[0])
    return results[0]


# ---- the notes' example and hand-built blocks ---------------------------------------------------


def test_notes_example():
    data = bytes.fromhex("080503032bf2000000")
    for t in (T.INT32, T.DATE, T.INT64, T.TIMESTAMP):
        got = decode_all(data, t)
        assert got.tolist() == [5, 15, 25]
    assert decode_all(data, T.INT32).dtype == np.int32
    assert decode_all(data, T.INT64).dtype == np.int64
    assert rle.encode(np.array([5, 15, 25], np.int32)) == data
    assert rle.encode([5, 15, 25], T.INT64) == data


def test_rle_run_int64_value_is_big_endian():
    # width 40: 5 value bytes; Java writes them most significant first
    v = 0x0102030405
    data = block(40, [rle_run(11, v, 40, big_endian=True)])
    assert data[-5:] == bytes.fromhex("0102030405")
    assert decode_all(data, T.INT64).tolist() == [v] * 11
    assert decode_all(data, T.TIMESTAMP).tolist() == [v] * 11


def test_rle_run_int32_value_is_little_endian():
    data = block(12, [rle_run(9, 0xABC, 12, big_endian=False)])
    assert data[-2:] == bytes.fromhex("bc0a")
    assert decode_all(data, T.INT32).tolist() == [0xABC] * 9


def test_rle_run_negative_values():
    i32 = block(32, [rle_run(8, -5, 32, False)])
    assert decode_all(i32, T.INT32).tolist() == [-5] * 8
    i64 = block(64, [rle_run(8, -(2**40), 64, True)])
    assert decode_all(i64, T.INT64).tolist() == [-(2**40)] * 8


def test_mixed_runs_and_several_blocks():
    b1 = block(
        7,
        [
            bp_run([1, 2, 3, 4, 5, 6, 7, 8], 7),
            rle_run(20, 100, 7, False),
            bp_run([9, 10, 11], 7),
        ],
    )
    b2 = block(3, [rle_run(10, 5, 3, False), bp_run([0, 7, 1], 3)])
    expected = [1, 2, 3, 4, 5, 6, 7, 8] + [100] * 20 + [9, 10, 11] + [5] * 10 + [0, 7, 1]
    assert decode_all(b1 + b2, T.INT32).tolist() == expected
    # INT64: identical here because every run value fits one byte
    assert decode_all(b1 + b2, T.INT64).tolist() == expected
    # an explicit count stopping inside the first block consumes that whole block
    out = np.empty(5, np.int32)
    for p in PATHS:
        assert rle.decode_into(b1 + b2, out, path=p) == len(b1)
        assert out.tolist() == [1, 2, 3, 4, 5]
    out = np.empty(len(expected), np.int32)
    for p in PATHS:
        assert rle.decode_into(b1 + b2, out, path=p) == len(b1) + len(b2)
    assert decode_all(b1 + b2, T.INT32, count=33).tolist() == expected[:33]


def test_width_zero_and_empty_pieces():
    # width 0: values are 0 with no packed bytes; empty blocks and empty runs are skipped
    data = block(0, [bp_run([0] * 12, 0), rle_run(3, 0, 0, False)])
    assert decode_all(data, T.INT32).tolist() == [0] * 15
    assert decode_all(b"\x00" + data + b"\x00", T.INT64).tolist() == [0] * 15
    assert decode_all(block(5, [rle_run(0, 3, 5, False), bp_run([4], 5)]), T.INT32).tolist() == [4]
    assert decode_all(b"", T.INT32).tolist() == []
    # the C++ bit-packing encoder's output for zero values: a run of 0 groups
    assert decode_all(bytes.fromhex("03000108"), T.INT32).tolist() == []


def test_boolean():
    vals = [True, False, True, True, False, False, False, True, True]
    data = rle.encode(np.array(vals))
    assert data == cpp_model([int(v) for v in vals], 32)
    assert decode_all(data, T.BOOLEAN).tolist() == vals
    assert decode_all(data, np.bool_).dtype == np.bool_
    # Java-style RLE runs of 0/1, and any non-zero value is true
    java = block(1, [rle_run(10, 1, 1, False), rle_run(5, 0, 1, False), bp_run([1, 0], 1)])
    assert decode_all(java, T.BOOLEAN).tolist() == [True] * 10 + [False] * 5 + [True, False]
    assert decode_all(block(2, [bp_run([2, 0], 2)]), T.BOOLEAN).tolist() == [True, False]


# ---- the encoder against the model of the C++ writer --------------------------------------------

LENGTHS = [0, 1, 7, 8, 9, 63 * 8 - 1, 63 * 8, 63 * 8 + 1, 63 * 8 * 2, 63 * 8 * 2 + 5]


@pytest.mark.parametrize("n", LENGTHS)
def test_encoder_matches_cpp_layout_lengths(n):
    rng = np.random.default_rng(n)
    v32 = rng.integers(0, 1 << 11, n).astype(np.int32)
    assert rle.encode(v32) == cpp_model(v32.tolist(), 32)
    assert decode_all(rle.encode(v32), T.INT32).tolist() == v32.tolist()
    v64 = rng.integers(-(2**62), 2**62, n)
    assert rle.encode(v64) == cpp_model(v64.tolist(), 64)
    assert decode_all(rle.encode(v64), T.INT64).tolist() == v64.tolist()


@pytest.mark.parametrize("w", range(0, 33))
def test_int32_every_width(w):
    rng = np.random.default_rng(w)
    n = 8 * 70 + 3
    if w == 32:
        v = rng.integers(-(2**31), 2**31, n).astype(np.int32)
    else:
        v = rng.integers(0, 1 << w, n).astype(np.int32) if w else np.zeros(n, np.int32)
        v[5] = (1 << w) - 1 if w else 0
    data = rle.encode(v)
    assert data == cpp_model(v.tolist(), 32)
    assert width_of(data) == max(w, 1)
    assert decode_all(data, T.INT32).tolist() == v.tolist()
    # the same values in an RLE run of that width
    if w:
        run = block(w, [rle_run(17, int(v[5]), w, False)])
        assert decode_all(run, T.INT32).tolist() == [int(v[5])] * 17


@pytest.mark.parametrize("w", range(0, 65))
def test_int64_every_width(w):
    rng = np.random.default_rng(100 + w)
    n = 8 * 65 + 1
    if w == 64:
        v = rng.integers(-(2**63), 2**63, n, dtype=np.int64)
    elif w:
        v = rng.integers(0, 1 << w, n, dtype=np.uint64).astype(np.int64)
        v[3] = (1 << w) - 1
    else:
        v = np.zeros(n, np.int64)
    data = rle.encode(v)
    assert data == cpp_model(v.tolist(), 64)
    assert decode_all(data, T.INT64).tolist() == v.tolist()
    if w:
        run = block(w, [rle_run(9, int(v[3]), w, True)])
        assert decode_all(run, T.INT64).tolist() == [int(v[3])] * 9


def test_extremes():
    i32 = np.array([-(2**31), 2**31 - 1, 0, -1, 1], np.int32)
    assert decode_all(rle.encode(i32), T.INT32).tolist() == i32.tolist()
    assert width_of(rle.encode(i32)) == 32  # one negative value -> width 32 (C++)
    i64 = np.array([-(2**63), 2**63 - 1, 0, -1, 1], np.int64)
    assert decode_all(rle.encode(i64), T.INT64).tolist() == i64.tolist()
    assert width_of(rle.encode(i64)) == 64


def test_streaming_api():
    data = rle.encode(np.arange(20, dtype=np.int32))
    dec = rle.RleDecoder(data, T.INT32)
    got = []
    while dec.has_next():
        got.append(dec.next())
    assert got == list(range(20))
    assert not dec.has_next()
    with pytest.raises(StopIteration):
        dec.next()
    assert list(rle.RleDecoder(data, T.INT64)) == list(range(20))
    enc = rle.RleEncoder(T.INT32)
    for i in range(20):
        enc.encode(i)
    assert enc.flush() == data
    assert enc.flush() == b""
    benc = rle.RleEncoder(T.BOOLEAN)
    for b in (True, False, True):
        benc.encode(b)
    assert rle.decode(benc.flush(), T.BOOLEAN).tolist() == [True, False, True]


def test_argument_errors():
    data = rle.encode(np.arange(3, dtype=np.int32))
    with pytest.raises(UnsupportedError):
        rle.decode(data, T.FLOAT)
    with pytest.raises(UnsupportedError):
        rle.decode(data, T.TEXT)
    with pytest.raises(UnsupportedError):
        rle.encode([1.5], T.DOUBLE)
    with pytest.raises(TypeError):
        rle.decode(data, "no such dtype")
    with pytest.raises(TypeError):
        rle.decode("text", T.INT32)
    with pytest.raises(TypeError):
        rle.decode_into(data, [0, 0, 0])
    if not rle.HAS_SIMD or not tsfile.simd_available():
        with pytest.raises(SimdUnavailableError):
            rle.decode(data, T.INT32, path="simd")
    previous = tsfile.set_simd_enabled(False)
    try:
        with pytest.raises(SimdUnavailableError):
            rle.decode(data, T.INT32, path="simd")
        assert rle.decode(data, T.INT32).tolist() == [0, 1, 2]  # auto -> batch
    finally:
        tsfile.set_simd_enabled(previous)
    with pytest.raises(ValueError):
        rle.decode(data, T.INT32, path="fast")
    with pytest.raises(ValueError):
        rle.decode(data, T.INT32, count=-1)
    assert isinstance(rle.HAS_SIMD, bool)
    assert rle.decode(data, T.INT32, path="auto").tolist() == [0, 1, 2]
    # values that do not fit the type
    from tsfile.errors import EncodeError

    with pytest.raises(EncodeError):
        rle.encode([2**31], T.INT32)
    with pytest.raises(TypeError):
        rle.encode([1.5], T.INT32)


# ---- hostile input ------------------------------------------------------------------------------


def _all_paths_raise(data, dtype, count=None):
    for p in PATHS:
        with pytest.raises(CorruptDataError):
            rle.decode(data, dtype, count=count, path=p)


def test_truncated_anywhere():
    data = rle.encode(np.arange(100, dtype=np.int32) * 1000)
    for cut in range(1, len(data)):
        _all_paths_raise(data[:cut], T.INT32)
        _all_paths_raise(data[:cut], T.INT32, count=100)
    # fewer values than asked for; a huge count is refused before anything is allocated
    _all_paths_raise(data, T.INT32, count=101)
    _all_paths_raise(data, T.INT32, count=10**13)
    out = np.empty(101, np.int32)
    for p in PATHS:
        with pytest.raises(CorruptDataError):
            rle.decode_into(data, out, path=p)


def test_hostile_headers():
    _all_paths_raise(block(33, [bp_run([1], 33 % 32)]), T.INT32)  # width above 32
    _all_paths_raise(block(65, [rle_run(1, 1, 8, True)]), T.INT64)  # width above 64
    # last group count 0 and 9
    _all_paths_raise(block(4, [b"\x03\x00" + b"\x00" * 4]), T.INT32)
    _all_paths_raise(block(4, [b"\x03\x09" + b"\x00" * 4]), T.INT32)
    # a run longer than its block / a run value cut by the block end
    _all_paths_raise(block(4, [b"\x05\x08" + b"\x00" * 4]), T.INT32)
    _all_paths_raise(block(16, [b"\x10\x01"]), T.INT32)
    # 2**31 groups of width 32 in a tiny block
    _all_paths_raise(block(32, [uvarint((2**31 - 1) << 1 | 1) + b"\x08"]), T.INT32)
    # block length beyond the data
    _all_paths_raise(uvarint(1000) + b"\x04\x03\x01\x00\x00\x00\x00", T.INT32)
    # over-long varint header
    _all_paths_raise(b"\xff\xff\xff\xff\xff\x01", T.INT32)


def test_huge_implicit_count_is_refused_without_allocating():
    # one RLE run claiming 2**31 - 1 values in 8 bytes
    data = block(8, [rle_run(2**31 - 1, 7, 8, False)])
    with pytest.raises(CorruptDataError, match="more values than allowed"):
        rle.decode(data, T.INT32)
    # with the count given, a prefix decodes fine
    assert rle.decode(data, T.INT32, count=10).tolist() == [7] * 10
    # width 0 bit-packed runs expand the same way
    data0 = block(0, [uvarint((2**31 - 1) << 1 | 1) + b"\x08"])
    with pytest.raises(CorruptDataError):
        rle.decode(data0, T.INT64)
    assert rle.decode(data0, T.INT64, count=3, path="per_value").tolist() == [0, 0, 0]


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.binary(max_size=80),
    st.sampled_from([T.INT32, T.INT64, T.BOOLEAN]),
    st.one_of(st.none(), st.integers(0, 300)),
)
def test_random_bytes_never_crash(data, dtype, count):
    check_paths_agree(rle.decode, data, dtype, count, PATHS)


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(st.integers(-(2**63), 2**63 - 1), max_size=1100))
def test_round_trip_int64_property(values):
    v = np.array(values, dtype=np.int64)
    data = rle.encode(v, T.INT64)
    assert data == cpp_model(values, 64)
    np.testing.assert_array_equal(decode_all(data, T.INT64), v)


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(st.integers(-(2**31), 2**31 - 1), max_size=1100))
def test_round_trip_int32_property(values):
    v = np.array(values, dtype=np.int32)
    data = rle.encode(v, T.INT32)
    assert data == cpp_model(values, 32)
    np.testing.assert_array_equal(decode_all(data, T.INT32), v)


def _valid_pages():
    rng = np.random.default_rng(5)
    pages = [
        (rle.encode(rng.integers(0, 1 << 9, 700).astype(np.int32)), T.INT32),
        (rle.encode(rng.integers(-(2**40), 2**40, 70)), T.INT64),
        (rle.encode(rng.integers(0, 2, 50).astype(bool)), T.BOOLEAN),
        (
            block(13, [rle_run(40, 4097, 13, False), bp_run(list(range(20)), 13)])
            + block(13, [rle_run(9, 5, 13, False)]),
            T.INT32,
        ),
        (block(40, [rle_run(30, 2**39 + 3, 40, True), bp_run([1, 2, 3], 40)]), T.INT64),
    ]
    return pages


@settings(max_examples=examples(300), deadline=None)
@given(st.data())
def test_mutated_pages_never_crash(data):
    """Valid pages with flipped bytes, cuts and splices: every path raises CorruptDataError or
    returns the same values as the others."""
    check_mutated_page(data, _valid_pages(), rle, PATHS, max_count=800)


def test_pages_written_by_the_official_writer():
    """Value bytes of single pages written by the official 2.5 package (captured from its output,
    uncompressed): our encoder writes the same bytes and every path decodes them."""
    cases = [
        # INT32 all zero, 504 values: width 1 (never 0), one run of 63 groups
        ([0] * 504, T.INT32, bytes.fromhex("42017f08") + bytes(63)),
        # INT32 [7]: width 3, one group holding one value
        ([7], T.INT32, bytes.fromhex("06030301e00000")),
        # INT64 [-1]: width 64
        ([-1], T.INT64, bytes.fromhex("43400301") + b"\xff" * 8 + bytes(56)),
    ]
    for values, dtype, page in cases:
        assert rle.encode(values, dtype) == page
        assert decode_all(page, dtype).tolist() == values


# ---- every implementation row of the table (include/rle_impls.h) --------------------------------

# The rows this CPU runs, best first, read from the module (not a hand-kept list): a new ISA row is
# tested as soon as it exists.
IMPLEMENTATIONS = rle.implementations()


@pytest.fixture(params=IMPLEMENTATIONS)
def impl(request):
    """Run the test once per implementation row; path="simd" runs that row."""
    previous = tsfile.set_simd(request.param)
    try:
        assert rle.active_implementation() == request.param
        yield request.param
    finally:
        tsfile.set_simd(previous)


def test_rle_and_plain_rows_are_listed_by_simd_info():
    from tsfile.codecs import plain

    assert IMPLEMENTATIONS[-1] == "scalar"
    codecs = tsfile.simd_info()["codecs"]
    assert codecs["rle"] == rle.active_implementation()
    assert codecs["plain"] == plain.active_implementation()
    assert set(IMPLEMENTATIONS) <= set(tsfile.simd_info()["compiled"])


def _runs_of_width(w, bits, lengths, rng):
    """Hand-built runs of width w: bit-packed runs of each length (partial last groups), RLE runs
    between them, values spanning the whole width (negative patterns at w == bits)."""
    values, runs = [], []
    for n in lengths:
        top = (1 << w) - 1
        vals = [int(x) & top for x in rng.integers(0, 1 << 62, n, dtype=np.int64)]
        vals = [v | (1 << (w - 1)) if w and i % 3 == 0 else v for i, v in enumerate(vals)]
        runs.append(bp_run(vals, w))
        values += vals
        runs.append(rle_run(5, top, w, bits == 64))
        values += [top] * 5
    signed = [v - (1 << bits) if v >> (bits - 1) else v for v in values]
    return block(w, runs), signed


@pytest.mark.parametrize("bits", [32, 64])
def test_every_row_matches_the_model_at_every_width_run_length_and_tail(impl, bits):
    # Bit-packed runs of 1..70 groups (the AVX-512 row takes two groups per register for int32 and
    # plain 64-byte loads while they fit), RLE runs between them, the block followed by 0..80
    # bytes of other data (or nothing: the last group ends at the buffer's end).
    rng = np.random.default_rng(bits)
    dtype = np.int32 if bits == 32 else np.int64
    path = "batch" if impl == "scalar" else "simd"
    lengths = [1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 127, 136, 504]
    for w in range(bits + 1):
        data, want = _runs_of_width(w, bits, lengths, rng)
        assert rle.decode(data, dtype, path=path).tolist() == want, (impl, w)
        for tail in (0, 1, 9, 63, 80):
            # decode_into: decode(count=) first walks every header of the buffer, junk included
            buf = data + b"\xa5" * tail
            for count in (len(want), len(want) - 3):
                out = np.empty(count, dtype)
                assert rle.decode_into(buf, out, path=path) == len(data)
                assert out.tolist() == want[:count], (impl, w, tail)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_every_row_decodes_a_slice_ending_at_the_data(impl, dtype):
    # the page is a view of a longer buffer cut right after its last group: bytes after it are
    # junk the kernels must not read into the values
    rng = np.random.default_rng(5)
    bits = np.dtype(dtype).itemsize * 8
    path = "batch" if impl == "scalar" else "simd"
    for w in range(bits + 1):
        for n in (8, 16, 24, 504, 1000):
            top = (1 << min(w, 62)) - 1
            vals = rng.integers(0, top + 1 if w < 63 else 1 << 62, n).astype(dtype)
            data = rle.encode(vals, dtype)
            junk = np.frombuffer(data + b"\xff" * 64, np.uint8)[: len(data)]
            np.testing.assert_array_equal(rle.decode(junk, dtype, count=n, path=path), vals)
