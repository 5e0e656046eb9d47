"""ALP pages (encoding 15): layout checked by an independent pure-Python reader of
docs/alp-format.md, lossless round trips on every path (SIMD on and off), identical bytes from
every encoder path, hand-built pages, and corrupt / hostile input."""

import struct

import numpy as np
import pytest
from codec_checks import examples
from hypothesis import given, settings
from hypothesis import strategies as st

import tsfile._simd as simd
from tsfile.codecs import alp
from tsfile.errors import CorruptDataError, SimdUnavailableError
from tsfile.types import TSEncoding


def _paths():
    """The decode paths usable right now (the SIMD switch may be off)."""
    return ["per_value", "batch"] + (["simd"] if alp.HAS_SIMD and simd.is_simd_enabled() else [])


IMPLEMENTATIONS = alp.implementations()


@pytest.fixture(params=IMPLEMENTATIONS)
def simd_switch(request):
    """Run the test once per implementation row; "auto" and "simd" run that row. Yields whether a
    SIMD row is in use."""
    before = simd.set_simd(request.param)
    try:
        assert alp.active_implementation() == request.param
        yield request.param != "scalar"
    finally:
        simd.set_simd(before)


def test_every_row_is_listed_and_the_best_is_active():
    # the table lists, best first, one row per ISA this CPU runs, scalar last; the row in use is
    # the best one unless TSFILE_SIMD chose a level, and simd_info() names it
    assert IMPLEMENTATIONS[-1] == "scalar"
    assert IMPLEMENTATIONS == [isa for isa in simd.available_isas() if isa in IMPLEMENTATIONS]
    assert set(IMPLEMENTATIONS) - {"scalar"} <= {"avx512", "avx2", "neon"}
    # HAS_SIMD: rows compiled in (as ts2diff.HAS_SIMD), whether or not this CPU runs them
    assert alp.HAS_SIMD == (len(simd.simd_info()["compiled"]) > 1)
    assert simd.simd_info()["codecs"]["alp"] == alp.active_implementation()
    before = simd.set_simd("best")
    try:
        assert alp.active_implementation() == IMPLEMENTATIONS[0]
        simd.set_simd("scalar")
        assert alp.active_implementation() == "scalar"
    finally:
        simd.set_simd(before)


# ---------------------------------------------------------------- independent reader


def reference_decode(page):
    """Decode a page following alp-format.md literally, with Python integers and numpy scalars."""
    version, dtype_code, _r, count, nblocks, _r2 = struct.unpack_from("<BBHIII", page, 0)
    assert version == 1 and dtype_code in (0, 1)
    is64 = dtype_code == 1
    ft = np.float64 if is64 else np.float32
    ut = np.uint64 if is64 else np.uint32
    size = 8 if is64 else 4
    out = []
    off = 16
    for _ in range(nblocks):
        scheme, f, e, flags, n, nexc, body, base, width = struct.unpack_from(
            "<BBBBIIIqB", page, off
        )
        off += 28
        if scheme == 1:
            out.extend(np.frombuffer(page, ut, n, off).view(ft))
            off += n * size
            continue
        exc_pos = []
        if flags & 1:
            bitmap = page[off : off + (n + 7) // 8]
            off += len(bitmap)
            exc_pos = [i for i in range(n) if bitmap[i >> 3] >> (i & 7) & 1]
        assert len(exc_pos) == nexc
        exc_vals = np.frombuffer(page, ut, nexc, off).view(ft)
        off += nexc * size
        bits = int.from_bytes(page[off : off + body], "little")
        off += body
        block = []
        for i in range(n):
            u = (bits >> (i * width)) & ((1 << width) - 1)
            k = base + u
            if not is64:
                k = (k + 2**31) % 2**32 - 2**31  # int32 wrap-around
            block.append(_decode_one(k, f, e, is64))
        for pos, v in zip(exc_pos, exc_vals, strict=True):
            block[pos] = v
        out.extend(block)
    assert len(out) == count
    return np.array(out, dtype=ft), off


_POW = {
    True: [float(f"1e{i}") for i in range(19)],
    False: [np.float32(f"1e{i}") for i in range(11)],
}
_INV = {
    True: [float(f"1e-{i}") for i in range(19)],
    False: [np.float32(f"1e-{i}") for i in range(11)],
}


def _decode_one(n, f, e, is64):
    if is64:
        return float(n) * _POW[True][f] * _INV[True][e]
    with np.errstate(over="ignore"):
        return np.float32(n) * _POW[False][f] * _INV[False][e]


def _check(values, dtype=None, expect_alp=False):
    arr = np.asarray(values, dtype=dtype)
    page = alp.encode(arr)
    # every encoder path gives the same bytes
    for path in ("batch", "per_value") + (("simd",) if "simd" in _paths() else ()):
        assert alp.encode(arr, path=path) == page, path
    ref, used = reference_decode(page)
    assert used == len(page)
    assert ref.tobytes() == arr.tobytes()
    for path in _paths():
        got = alp.decode(page, arr.dtype, path=path)
        assert got.dtype == arr.dtype
        assert got.tobytes() == arr.tobytes(), path
        out = np.empty_like(arr)
        assert alp.decode_into(page, out, path=path) == (len(page) if len(arr) else 0)
        assert out.tobytes() == arr.tobytes()
    if expect_alp:
        assert any(b["scheme"] == "ALP" for b in alp.page_info(page)["blocks"])
    return page


# ---------------------------------------------------------------- round trips


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n", [0, 1, 2, 7, 8, 9, 1023, 1024, 1025, 2048, 2049, 5000])
def test_sizes_and_block_boundaries(dtype, n, simd_switch):
    rng = np.random.default_rng(n)
    vals = np.round(np.cumsum(rng.normal(0, 0.3, n)) + 50, 2).astype(dtype)
    page = _check(vals, expect_alp=n >= 64)  # tiny blocks: PLAIN is no larger
    info = alp.page_info(page)
    assert info["value_count"] == n and info["block_count"] == (n + 1023) // 1024
    assert [b["count"] for b in info["blocks"]] == [min(1024, n - i) for i in range(0, n, 1024)]


@pytest.mark.parametrize("scale", range(0, 19))
def test_decimal_doubles_every_scale(scale):
    rng = np.random.default_rng(scale)
    ints = rng.integers(-(10**6), 10**6, 3000)
    vals = ints / 10.0**scale
    page = _check(vals)
    if scale <= 12:  # ALP pays: well under the raw 64 bits per value
        assert len(page) * 8 / len(vals) < 40, alp.page_info(page)["blocks"][0]


@pytest.mark.parametrize("scale", range(0, 11))
def test_decimal_floats_every_scale(scale):
    rng = np.random.default_rng(100 + scale)
    vals = (rng.integers(-50000, 50000, 3000) / 10.0**scale).astype(np.float32)
    page = _check(vals)
    if scale <= 4:
        assert len(page) * 8 / len(vals) < 28


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_constant_blocks_are_width_zero_without_body(dtype, simd_switch):
    # A width-0 block has body_bytes = 0 and no body (alp-format.md): the draft TsFile decoder
    # rejects a padded one, failing the whole page. Before the fix every constant block carried a
    # 32-byte zero body (and constant runs under 5 doubles / 9 floats went PLAIN because of it).
    code, fmt = (1, "<q") if dtype == np.float64 else (0, "<q")
    page = _check(np.full(3000, 21.5, dtype=dtype))
    assert page[:16] == struct.pack("<BBHIII", 1, code, 0, 3000, 3, 0)
    off = 16
    for n in (1024, 1024, 952):  # every encoder path wrote these bytes (_check)
        assert page[off : off + 28] == struct.pack("<BBBBIIIqB3x", 0, 0, 1, 0, n, 0, 0, 215, 0)
        off += 28
    assert off == len(page)
    assert struct.unpack_from(fmt, page, 16 + 16)[0] == 215
    # short constant runs: one header, no body, smaller than PLAIN from one value on
    for n in (1, 2, 4, 5, 8, 9):
        small = _check(np.full(n, -0.75, dtype=dtype))
        assert small == struct.pack("<BBHIII", 1, code, 0, n, 1, 0) + struct.pack(
            "<BBBBIIIqB3x", 0, 0, 2, 0, n, 0, 0, -75, 0
        )


def test_width_zero_block_with_exceptions_has_no_body(simd_switch):
    vals = np.full(100, 3.25)
    vals[[0, 7, 99]] = [np.nan, -0.0, np.inf]
    page = _check(vals)
    (blk,) = alp.page_info(page)["blocks"]
    assert (blk["bit_width"], blk["exceptions"], blk["body_bytes"]) == (0, 3, 0)
    assert len(page) == 16 + 28 + 13 + 3 * 8  # header, bitmap, the raw exceptions; nothing after


# Pages written by this project's encoder before width-0 blocks lost their body (commit 5236594,
# alp.encode of the values named): every width-0 block carries a 32-byte zero body. They must
# still decode, on every path.
OLD_PADDED_F64 = bytes.fromhex(  # np.full(5, 21.5)
    "0101000005000000010000000000000000000100050000000000000020000000d70000000000000000000000"
    + "00" * 32
)
OLD_PADDED_F32 = bytes.fromhex(  # np.full(9, -0.75, dtype=np.float32)
    "0100000009000000010000000000000000000200090000000000000020000000b5ffffffffffffff00000000"
    + "00" * 32
)
# 1024 x 3.25 with a NaN at 7 (width 0, one exception), then np.round(np.linspace(0, 1, 10), 2)
OLD_PADDED_MIXED = bytes.fromhex(
    "010100000a04000002000000000000000000020100040000010000002000000045010000000000000000000080"
    + "00" * 133
    + "f87f"
    + "00" * 34
    + "02000a0000000000000020000000000000000000000007000000808525c4c20d9d5932"
    + "00" * 23
)


def test_old_padded_width_zero_bodies_still_read(simd_switch):
    mixed = np.concatenate([np.full(1024, 3.25), np.round(np.linspace(0, 1, 10), 2)])
    mixed[7] = np.nan
    cases = [
        (OLD_PADDED_F64, np.full(5, 21.5)),
        (OLD_PADDED_F32, np.full(9, -0.75, dtype=np.float32)),
        (OLD_PADDED_MIXED, mixed),
    ]
    for page, want in cases:
        info = alp.page_info(page)
        assert info["size"] == len(page)
        assert info["blocks"][0]["bit_width"] == 0 and info["blocks"][0]["body_bytes"] == 32
        ref, used = reference_decode(page)
        assert used == len(page) and ref.tobytes() == want.tobytes()
        for path in _paths():
            assert alp.decode(page, want.dtype, path=path).tobytes() == want.tobytes(), path
            out = np.empty_like(want)
            assert alp.decode_into(page, out, path=path) == len(page)
            assert out.tobytes() == want.tobytes()
        streamed = np.array(list(alp.ALPDecoder(page)), dtype=want.dtype)
        assert streamed.tobytes() == want.tobytes()
        # today's encoder writes the same values without the padding
        new = alp.encode(want)
        assert len(new) == len(page) - 32
        assert alp.decode(new, want.dtype).tobytes() == want.tobytes()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_every_width_next_to_width_zero_blocks(dtype, simd_switch):
    # Blocks of width 0 (no body) around blocks of every width the encoder writes, at partial
    # and full block lengths: each block starts where the previous one's (empty) body ends.
    # Integers within |n| <= 2^49 (DOUBLE) / 2^30 (FLOAT), constants at both ends of their range:
    # e = f = 0 is the best pair, and every block is ALP with n = v.
    rng = np.random.default_rng(31)
    limit = 2**49 if dtype == np.float64 else 2**30
    # the widest ALP blocks: DOUBLE 51 = bits(2^50); FLOAT 30 (at 31 or 32 bits float32 rounding
    # reaches the full 2^31 range, and a 32-bit body is no smaller than PLAIN)
    top = 51 if dtype == np.float64 else 30
    for width in range(0, top + 1):
        exact = dtype == np.float64 or width <= 24  # float32 holds integers to 2^24 exactly
        base = -(2**23) if dtype == np.float32 and exact else -limit
        span = min(2**width - 1, 2 * limit)
        ints = base + rng.integers(0, span, 1024, endpoint=True, dtype=np.int64)
        ints[:2] = [base, base + span]  # exactly this width
        for tail in (1, 8, 1023):
            vals = np.concatenate(
                [np.full(1024, base), ints, np.full(tail, base + span)], dtype=np.float64
            ).astype(dtype)  # FLOAT: integers beyond 2^24 round to float32 (still integers)
            page = _check(vals)
            blocks = alp.page_info(page)["blocks"]
            assert [b["scheme"] for b in blocks] == ["ALP"] * 3, width
            assert [b["bit_width"] for b in blocks[::2]] == [0, 0]
            assert [b["body_bytes"] for b in blocks[::2]] == [0, 0]
            if exact:
                assert blocks[1]["bit_width"] == width


def test_specials_are_exceptions_bit_exact(simd_switch):
    specials = np.array(
        [
            0x7FF8000000000000,
            0x7FF0000000000001,
            0xFFF8000000000ABC,
            0x7FF0000000000000,
            0xFFF0000000000000,
            0x8000000000000000,
            0x0000000000000001,
            0x000FFFFFFFFFFFFF,
            0x7FEFFFFFFFFFFFFF,
            0xC4B52D02C7E14AF6,
        ],
        dtype=np.uint64,
    ).view(np.float64)
    base = np.round(np.linspace(0, 100, 1000), 1)
    vals = base.copy()
    vals[::97] = np.resize(specials, len(vals[::97]))
    page = _check(vals, expect_alp=True)
    assert alp.page_info(page)["blocks"][0]["exceptions"] >= len(vals[::97])
    f32 = np.array([0x7FC00000, 0x7F800001, 0xFFC00123, 0x80000000, 1, 0x7F7FFFFF], np.uint32)
    vals32 = np.round(np.linspace(0, 100, 600), 1).astype(np.float32)
    vals32[::50] = np.resize(f32.view(np.float32), len(vals32[::50]))
    _check(vals32, expect_alp=True)


def test_random_doubles_go_plain():
    vals = np.random.default_rng(0).random(2000)
    page = _check(vals)
    assert all(b["scheme"] == "PLAIN" for b in alp.page_info(page)["blocks"])
    assert len(page) == 16 + 2 * 28 + 2000 * 8


def test_smooth_and_mixed_data():
    x = np.linspace(0, 20, 4000)
    _check(np.sin(x))
    _check(np.sin(x).astype(np.float32))
    mixed = np.concatenate(
        [np.round(x, 2), np.random.default_rng(1).random(100), np.full(500, 7.0)]
    )
    _check(mixed)
    _check(np.array([1e300, -1e300, 1e-300, 2.0**60, -(2.0**60), 123456789012345.6]))


@settings(max_examples=examples(120), deadline=None)
@given(st.lists(st.integers(0, 2**64 - 1), min_size=0, max_size=1100), st.booleans())
def test_property_arbitrary_bit_patterns(words, is64):
    if is64:
        vals = np.array(words, dtype=np.uint64).view(np.float64)
    else:
        vals = np.array([w & 0xFFFFFFFF for w in words], dtype=np.uint32).view(np.float32)
    _check(vals)


@settings(max_examples=examples(80), deadline=None)
@given(
    st.lists(st.one_of(st.integers(-(10**9), 10**9), st.integers(0, 2**64 - 1)), max_size=1500),
    st.integers(0, 8),
)
def test_property_decimals_with_noise(items, scale):
    vals = np.array(
        [i / 10.0**scale if abs(i) <= 10**9 else np.uint64(i).view(np.float64) for i in items],
        dtype=np.float64,
    )
    _check(vals)


# ---------------------------------------------------------------- hand-built pages


def _page(dtype_code, count, blocks):
    return struct.pack("<BBHIII", 1, dtype_code, 0, count, len(blocks), 0) + b"".join(blocks)


def _block(n, e, f, base, width, ints, exc=None, size=8):
    """An ALP block from explicit integers (exc: {pos: raw value bits})."""
    exc = exc or {}
    bits = 0
    for i, k in enumerate(ints):
        bits |= (k - base) << (i * width)
    packed = (n * width + 7) // 8
    body = (packed + 16 + 31) // 32 * 32
    head = struct.pack("<BBBBIIIqB3x", 0, f, e, 1 if exc else 0, n, len(exc), body, base, width)
    bm = b""
    if exc:
        b = bytearray((n + 7) // 8)
        for p in exc:
            b[p >> 3] |= 1 << (p & 7)
        bm = bytes(b) + b"".join(
            struct.pack("<Q" if size == 8 else "<I", exc[p]) for p in sorted(exc)
        )
    return head + bm + bits.to_bytes(body, "little")


def test_hand_built_page_decodes():
    # e=2, f=0: 1.25, 3.5, -0.07 ; exception at 1 carries an arbitrary NaN payload
    nan_bits = 0x7FF0000000C0FFEE
    blk = _block(4, 2, 0, -7, 9, [125, 0, 350, -7], exc={1: nan_bits})
    page = _page(1, 4, [blk])
    for path in _paths():
        got = alp.decode(page, np.float64, path=path)
        assert got[[0, 2, 3]].tolist() == [125 * 1.0 * 0.01, 350 * 0.01, -7 * 0.01]
        assert got.view(np.uint64)[1] == nan_bits
    # a PLAIN block followed by a width-0 block
    plain = struct.pack("<BBBBIIIqB3x", 1, 0, 0, 0, 2, 0, 16, 0, 0) + struct.pack("<2d", 1.5, -2.5)
    const = _block(3, 1, 1, 42, 0, [42, 42, 42])
    page = _page(1, 5, [plain, const])
    for path in _paths():
        assert alp.decode(page, None, path=path).tolist() == [1.5, -2.5, 42.0, 42.0, 42.0]
    # FLOAT page, base negative, width 32
    blk = _block(2, 0, 0, -(2**31), 32, [-(2**31), 2**31 - 1], size=4)
    for path in _paths():
        got = alp.decode(_page(0, 2, [blk]), np.float32, path=path)
        assert got.tolist() == [np.float32(-(2**31)), np.float32(2**31 - 1)]


def test_out_of_simd_range_block_same_on_all_paths():
    # integers beyond 2^51 (another writer could produce them): every path falls back alike
    ints = [2**60, 2**60 + 12345, 2**62 - 1]
    blk = _block(3, 0, 0, 2**60, 62, ints)
    page = _page(1, 3, [blk])
    want = [float(k) for k in ints]
    _all_paths_agree(page, np.float64)
    for path in _paths():
        assert alp.decode(page, np.float64, path=path).tolist() == want


def _rows_agree_with_reference(page, dtype):
    """Every implementation row decodes `page` bit-identically to the independent reader, also
    into outputs starting at every element offset within a cache line (the AVX-512 DOUBLE
    kernel shifts its groups so that its stores start at line boundaries, with an unaligned
    first store and a masked last one)."""
    want, _ = reference_decode(page)
    per_line = 64 // np.dtype(dtype).itemsize
    before = simd.set_simd("scalar")
    try:
        for row in IMPLEMENTATIONS:
            simd.set_simd(row)
            path = "batch" if row == "scalar" else "simd"
            buf = np.empty(len(want) + 2 * per_line + 64, dtype=dtype)
            lead = (-buf.ctypes.data % 64) // buf.itemsize  # elements to the first line start
            for offset in range(per_line):
                buf[:] = np.nan
                out = buf[lead + offset : lead + offset + len(want)]
                alp.decode_into(page, out, path=path)
                assert out.tobytes() == want.tobytes(), (row, offset)
                # nothing stored around the output
                assert np.isnan(buf[: lead + offset]).all(), (row, offset)
                assert np.isnan(buf[lead + offset + len(want) :]).all(), (row, offset)
    finally:
        simd.set_simd(before)


@pytest.mark.parametrize("n", [1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 200, 1023, 1024])
@pytest.mark.parametrize("width", [1, 5, 8, 12, 16, 22, 23, 31, 32, 40, 48, 51])
@pytest.mark.parametrize("factor", [1, 0])
def test_double_rows_bit_identical_at_every_output_offset(n, width, factor):
    # integers right up to the kernels' |n| < 2^51 range, factors that round differently per
    # value (e = 3, f = 1) or none (f = 0: the AVX-512 kernel leaves out the product by 10^0),
    # every count around the 8-value groups and the kernel's last 64 readable bytes
    rng = np.random.default_rng(width * 1000 + n)
    base = -(2**50) if width < 51 else -(2**50) + 1
    ints = [base + int(u) for u in rng.integers(0, 2**width, n, dtype=np.uint64)]
    ints[0] = base + 2**width - 1
    page = _page(1, n, [_block(n, 3, factor, base, width, ints)])
    _rows_agree_with_reference(page, np.float64)


@pytest.mark.parametrize("width", [3, 12, 29, 51])
def test_double_blocks_starting_at_every_alignment(width):
    # blocks of 1..1024 values in one page: each block's output starts at another offset within
    # a cache line, so the AVX-512 kernel's first aligned store moves from block to block
    rng = np.random.default_rng(width)
    counts = [1023, 5, 1024, 9, 130, 7, 1, 66, 1024]
    blocks = []
    for k, n in enumerate(counts):
        base = int(rng.integers(-(2**40), 2**40))
        ints = [base + int(u) for u in rng.integers(0, 2**width, n, dtype=np.uint64)]
        blocks.append(_block(n, 5, k % 2, base, width, ints))
    _rows_agree_with_reference(_page(1, sum(counts), blocks), np.float64)


@pytest.mark.parametrize(
    "width,base",
    # the AVX-512 FLOAT kernel converts by the magic number when width <= 22 and
    # |base| <= 2^22 (n = u + base exact below 2^24), by vcvtdq2ps otherwise: both sides of
    # both limits, and the int32 wrap-around of base + u that only vcvtdq2ps may see
    [(w, b) for w in (21, 22, 23) for b in (-(2**22) - 1, -(2**22), 0, 2**22, 2**22 + 1)]
    + [(8, 2**31 - 100), (30, 2**31 - 2**29), (32, -(2**31)), (25, -12345), (26, 2**24 - 3)],
)
@pytest.mark.parametrize("n", [5, 16, 33, 1024])
def test_float_rows_bit_identical_around_the_magic_number_limits(width, base, n):
    rng = np.random.default_rng(abs(base) % 9973 + width + n)
    ints = [base + int(u) for u in rng.integers(0, 2**width, n, dtype=np.uint64)]
    ints[-1] = base + 2**width - 1
    # base + u may pass INT32_MAX: the format wraps it to int32 (the reference reader does)
    page = _page(0, n, [_block(n, 1, 0, base, width, ints, size=4)])
    _rows_agree_with_reference(page, np.float32)


# ---------------------------------------------------------------- API


def test_count_and_decode_into():
    vals = np.round(np.linspace(-5, 5, 3000), 3)
    page = alp.encode(vals)
    for path in _paths():
        assert alp.decode(page, np.float64, count=1500, path=path).tolist() == vals[:1500].tolist()
        out = np.empty(1030)
        used = alp.decode_into(page, out, path=path)
        assert out.tolist() == vals[:1030].tolist()
        info = alp.page_info(page)
        assert used == 16 + info["blocks"][0]["size"] + info["blocks"][1]["size"]
        with pytest.raises(CorruptDataError, match="3000"):
            alp.decode(page, np.float64, count=3001, path=path)
        with pytest.raises(CorruptDataError):
            alp.decode_into(page, np.empty(3001), path=path)


def test_types_and_paths():
    page = alp.encode(np.arange(10.0))
    with pytest.raises(CorruptDataError, match="type"):
        alp.decode(page, np.float32)
    with pytest.raises(TypeError):
        alp.decode(page, np.int64)
    with pytest.raises(TypeError):
        alp.encode(np.arange(3))
    with pytest.raises(TypeError):
        alp.decode("abc", None)
    with pytest.raises(ValueError):
        alp.decode(page, None, path="fast")
    before = simd.set_simd_enabled(False)
    try:
        with pytest.raises(SimdUnavailableError):
            alp.decode(page, None, path="simd")
        assert alp.decode(page, None).tolist() == list(range(10))
    finally:
        simd.set_simd_enabled(before)
    assert alp.decode(memoryview(page), None).tolist() == list(range(10))
    assert alp.decode(np.frombuffer(page, np.uint8), None, count=0).tolist() == []


def test_streaming_classes():
    vals = np.round(np.random.default_rng(2).normal(20, 2, 2500), 1)
    enc = alp.ALPEncoder(np.float64)
    for v in vals:
        enc.encode(v)
    page = enc.flush()
    assert page == alp.encode(vals)
    assert list(alp.ALPDecoder(page)) == vals.tolist()
    f32 = vals.astype(np.float32)
    dec = alp.ALPDecoder(alp.encode(f32), np.float32)
    got = []
    while dec.has_next():
        got.append(dec.next())
    assert np.array(got, np.float32).tobytes() == f32.tobytes()


def test_choose_encoding():
    rng = np.random.default_rng(3)
    prices = np.round(100 + np.cumsum(rng.normal(0, 0.5, 10000)), 2)
    sizes = alp.estimate_sizes(prices)
    assert sizes["ALP"] < sizes["GORILLA"] / 2
    assert alp.choose_encoding(prices) == TSEncoding.ALP
    # exact for small pages
    small = prices[:1000]
    from tsfile.codecs import gorilla

    assert alp.estimate_sizes(small) == {
        "ALP": len(alp.encode(small)),
        "GORILLA": len(gorilla.encode(small)),
    }
    # a slowly varying full-precision series: GORILLA's XOR wins over ALP's PLAIN blocks
    smooth = 1.0 + np.cumsum(np.full(5000, 2.0**-40))
    assert alp.choose_encoding(smooth) == TSEncoding.GORILLA
    with_marker = prices.copy()
    with_marker[10] = np.float64(
        np.nan
    )  # numpy's NaN is the canonical pattern: GORILLA's end marker
    assert with_marker.view(np.uint64)[10] == 0x7FF8000000000000
    assert alp.estimate_sizes(with_marker)["GORILLA"] is None
    assert alp.choose_encoding(with_marker) == TSEncoding.ALP


# ---------------------------------------------------------------- corrupt and hostile input


def _all_paths_agree(page, dtype):
    # every path of every implementation row gives the same values or the same error
    results = set()
    before = simd.set_simd("scalar")
    try:
        for row in IMPLEMENTATIONS:
            simd.set_simd(row)
            for path in _paths():
                try:
                    results.add(alp.decode(page, dtype, path=path).tobytes())
                except CorruptDataError:
                    results.add("corrupt")
    finally:
        simd.set_simd(before)
    assert len(results) == 1, results


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_truncated_pages(dtype):
    vals = np.round(np.random.default_rng(4).normal(0, 10, 1500), 2).astype(dtype)
    vals[::40] = np.float32(np.inf)
    page = alp.encode(vals)
    for cut in list(range(0, 64)) + list(range(64, len(page), 37)) + [len(page) - 1]:
        for path in _paths():
            with pytest.raises(CorruptDataError):
                alp.decode(page[:cut], dtype, path=path)


def test_bit_flips_never_crash_and_paths_agree():
    rng = np.random.default_rng(5)
    vals = np.round(rng.normal(0, 10, 2100), 2)
    vals[::31] = np.nan
    page = bytearray(alp.encode(vals))
    for _ in range(600):
        bad = bytearray(page)
        for _ in range(int(rng.integers(1, 4))):
            bad[int(rng.integers(0, len(bad)))] ^= 1 << int(rng.integers(0, 8))
        _all_paths_agree(bytes(bad), np.float64)


def test_random_bytes():
    rng = np.random.default_rng(6)
    for _ in range(500):
        n = int(rng.integers(0, 120))
        data = bytearray(rng.integers(0, 256, n, dtype=np.uint8).tobytes())
        if n >= 2 and rng.random() < 0.7:
            data[0], data[1] = 1, int(rng.integers(0, 2))
        for dtype in (np.float64, np.float32):
            _all_paths_agree(bytes(data), dtype)


def _valid_page():
    return bytearray(alp.encode(np.round(np.linspace(0, 10, 1500), 2)))


@pytest.mark.parametrize(
    "offset,fmt,value,what",
    [
        (0, "<B", 2, "version"),
        (4, "<I", 2**32 - 1, "counts"),  # value count far beyond the blocks present
        (8, "<I", 2**32 - 1, "counts"),  # block count far beyond the bytes present
        (8, "<I", 0, "counts"),
        (16 + 0, "<B", 7, "scheme"),
        (16 + 1, "<B", 19, "exponent"),  # factor > exponent
        (16 + 2, "<B", 19, "exponent"),
        (16 + 4, "<I", 0, "block value count"),
        (16 + 4, "<I", 1025, "block value count"),
        (16 + 8, "<I", 5, "exception"),  # exceptions without the flag
        (16 + 12, "<I", 1, "packed body"),
        (16 + 12, "<I", 2**32 - 1, "past the end"),
        (16 + 24, "<B", 65, "bit width"),
    ],
)
def test_hostile_fields(offset, fmt, value, what):
    page = _valid_page()
    struct.pack_into(fmt, page, offset, value)
    for path in _paths():
        with pytest.raises(CorruptDataError, match=what):
            alp.decode(bytes(page), np.float64, path=path)


def test_bitmap_must_match_exception_count():
    vals = np.round(np.linspace(0, 10, 100), 2)
    vals[[3, 50]] = np.inf
    page = bytearray(alp.encode(vals))
    assert alp.page_info(bytes(page))["blocks"][0]["exceptions"] == 2
    page[16 + 28] |= 0x01  # one more bit in the bitmap than exceptions
    for path in _paths():
        with pytest.raises(CorruptDataError, match="bitmap"):
            alp.decode(bytes(page), np.float64, path=path)


def test_float_base_outside_int32():
    blk = bytearray(_block(2, 0, 0, 0, 1, [0, 1], size=4))
    struct.pack_into("<q", blk, 16, 2**40)
    for path in _paths():
        with pytest.raises(CorruptDataError, match="int32"):
            alp.decode(_page(0, 2, [bytes(blk)]), np.float32, path=path)


def test_plain_block_ignores_its_other_header_fields():
    # garbage factor/exponent/width/base in a PLAIN block must not be used (nor index a table)
    plain = struct.pack("<BBBBIIIqB3x", 1, 200, 250, 0, 2, 0, 16, -5, 99)
    page = _page(1, 2, [plain + struct.pack("<2d", 0.1, -7.25)])
    for path in _paths():
        assert alp.decode(page, np.float64, path=path).tolist() == [0.1, -7.25]
        assert list(alp.ALPDecoder(page)) == [0.1, -7.25]


@pytest.mark.parametrize(
    "size,width",
    [(8, w) for w in (1, 3, 7, 8, 13, 31, 32, 33, 56, 57, 58, 63, 64)]
    + [(4, w) for w in (1, 7, 8, 17, 31, 32)],
)
@pytest.mark.parametrize("n", [1, 5, 9, 63, 100, 1024])
def test_body_without_padding(size, width, n):
    # Our encoder pads each body past its packed bits; another writer need not. A block whose
    # body holds only the packed bytes and ends the data must decode alike on every path (the
    # streaming reader's word loads must take the bounded tail near the end of the body).
    base = -(2 ** (width - 1))
    rng = np.random.default_rng(width * 10_000 + n)
    ints = [base + int(u) for u in rng.integers(0, 2**width, n, dtype=np.uint64)]
    blk = bytearray(_block(n, 0, 0, base, width, ints, size=size))
    packed = (n * width + 7) // 8
    struct.pack_into("<I", blk, 12, packed)
    del blk[28 + packed :]
    dtype = np.float64 if size == 8 else np.float32
    page = _page(1 if size == 8 else 0, n, [bytes(blk)])
    want = np.array(ints, dtype=np.int64).astype(dtype)  # e = f = 0: the integers themselves
    for path in _paths():
        assert alp.decode(page, dtype, path=path).tobytes() == want.tobytes(), path
    assert np.array(list(alp.ALPDecoder(page)), dtype=dtype).tobytes() == want.tobytes()


@pytest.mark.parametrize("body", [0, 8, 24, 2**32 - 1])
def test_plain_block_body_bytes_must_be_the_raw_size(body):
    # the draft sizes a PLAIN block by body_bytes = value_count * value size; any other value
    # would leave the next block's offset ambiguous, so it is rejected (never misread)
    plain = struct.pack("<BBBBIIIqB3x", 1, 0, 0, 0, 2, 0, body, 0, 0)
    page = _page(1, 2, [plain + struct.pack("<2d", 0.1, -7.25)])
    for path in _paths():
        with pytest.raises(CorruptDataError, match="PLAIN block body_bytes .*byte offset 16"):
            alp.decode(page, np.float64, path=path)
    with pytest.raises(CorruptDataError, match="PLAIN"):
        list(alp.ALPDecoder(page))


def test_plain_block_header_written_by_this_encoder():
    page = alp.encode(np.random.default_rng(9).random(10))
    assert page[16:44] == struct.pack("<BBBBIIIqB3x", 1, 0, 0, 0, 10, 0, 80, 0, 0)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_reserved_fields_zero_and_nothing_after_the_last_block(dtype):
    # alp-format.md: the draft rejects non-zero reserved fields and bytes after the last block
    rng = np.random.default_rng(12)
    pages = [
        np.full(2000, 1.5),
        np.round(rng.normal(0, 100, 3000), 2),
        rng.random(1500),
        np.concatenate([np.full(1024, 2.0), [np.nan, 0.5], rng.random(5)]),
    ]
    for vals in pages:
        page = alp.encode(vals.astype(dtype))
        assert page[2:4] == b"\0\0" and page[12:16] == b"\0\0\0\0"
        info = alp.page_info(page)
        assert info["size"] == len(page)
        for b in info["blocks"]:
            assert page[b["offset"] + 25 : b["offset"] + 28] == b"\0\0\0"
            if b["scheme"] == "PLAIN":
                assert b["body_bytes"] == b["count"] * np.dtype(dtype).itemsize
            elif b["bit_width"] == 0:
                assert b["body_bytes"] == 0


def test_byte_order():
    vals = np.round(np.linspace(0, 5, 100), 2)
    page = alp.encode(vals.astype(">f8"))
    assert page == alp.encode(vals)
    assert alp.decode(page, ">f8").dtype == np.float64
    with pytest.raises(ValueError, match="byte order"):
        alp.decode_into(page, np.empty(100, ">f8"))


def test_alp_columns_in_a_tsfile(tmp_path):
    """TSEncoding.ALP through the package's writer and reader: every FLOAT/DOUBLE chunk header says
    15, and the values come back bit for bit on every read path."""
    writer = pytest.importorskip("tsfile.writer")
    reader = pytest.importorskip("tsfile.reader")
    from tests.interop.chunk_scan import scan_chunks
    from tsfile.schema import ColumnSchema, TableSchema
    from tsfile.types import ColumnCategory, Compressor, TSDataType

    rng = np.random.default_rng(12)
    n = 25000
    times = np.arange(n, dtype=np.int64) * 1000
    p = np.round(100 + np.cumsum(rng.normal(0, 0.5, n)), 2)
    p[[5, 6, 7]] = np.array(
        [0x7FF8000000000000, 0x7FF0000000C0FFEE, 0x8000000000000000], np.uint64
    ).view(np.float64)
    f = np.round(20 + np.cumsum(rng.normal(0, 0.1, n)), 1).astype(np.float32)
    schema = TableSchema(
        "t",
        [
            ColumnSchema("dev", TSDataType.STRING, ColumnCategory.TAG),
            ColumnSchema("p", TSDataType.DOUBLE, ColumnCategory.FIELD),
            ColumnSchema("f", TSDataType.FLOAT, ColumnCategory.FIELD),
        ],
    )
    path = tmp_path / "alp.tsfile"
    encodings = {TSDataType.DOUBLE: TSEncoding.ALP, TSDataType.FLOAT: TSEncoding.ALP}
    with writer.TsFileTableWriter(
        str(path), schema, encodings=encodings, compression=Compressor.UNCOMPRESSED
    ) as w:
        w.write_arrays(times, {"dev": np.array(["a"] * n, dtype=object), "p": p, "f": f})
    chunks = [c for c in scan_chunks(path.read_bytes()) if c["type"] in ("FLOAT", "DOUBLE")]
    assert chunks and all(c["encoding"] == "ALP" for c in chunks)
    r = reader.TsFileReader(str(path))
    try:
        read_paths = ["per_value", "batch", "auto"] + (["simd"] if simd.is_simd_enabled() else [])
        for read_path in read_paths:
            _, _, ts, cols, _ = r.read_columns("t", ["p", "f"], path=read_path)
            assert ts.tolist() == times.tolist()
            assert cols["p"].tobytes() == p.tobytes(), read_path
            assert cols["f"].tobytes() == f.tobytes(), read_path
    finally:
        r.close()
