"""FLOAT/DOUBLE TS_2DIFF (lossy fixed point, format notes 8.3, forms 1-3): decoding against pages
built by a reference encoder written here from the notes (integer blocks included), the example
from the notes, the module's encoder, truncation and hostile input."""

import math
import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from serial_ref import uvarint

from tsfile.codecs import ts2diff_float as tf
from tsfile.errors import CorruptDataError
from tsfile.types import TSDataType

PATHS = ["per_value", "batch", "auto"]


def int_blocks(ints: list[int], w: int) -> bytes:
    """TS_2DIFF blocks of up to 129 values (8.3); a block without deltas has width 0 and the
    previous block's min_delta (0 on the first)."""
    mask = (1 << w) - 1
    fmt = ">i" if w == 32 else ">q"
    out = bytearray()
    mn = 0
    for s in range(0, len(ints), 129):
        blk = ints[s : s + 129]
        deltas = [
            ((blk[i + 1] - blk[i] + (1 << (w - 1))) & mask) - (1 << (w - 1))
            for i in range(len(blk) - 1)
        ]
        mn = min(deltas) if deltas else mn
        rs = [(d - mn) & mask for d in deltas]
        width = max((r.bit_length() for r in rs), default=0)
        out += (
            struct.pack(">ii", len(deltas), width) + struct.pack(fmt, mn) + struct.pack(fmt, blk[0])
        )
        bits = "".join(format(r, f"0{width}b") for r in rs) if width else ""
        bits += "0" * (-len(bits) % 8)
        out += int(bits, 2).to_bytes(len(bits) // 8, "big") if bits else b""
    return bytes(out)


def java_round(x: float) -> int:
    # The official C++ 2.5 writer: floor(x + 0.5) with the sum rounded in double (checked against
    # its files: 0.49999999999999994 -> 1, 6042708071674649.0 -> 6042708071674650), not the exact
    # half-up of Java 7+ Math.round.
    return math.floor(x + 0.5)


def reference_page(values, f32: bool, p: int = 2):
    """(page bytes, expected decoded array) following Java's FloatEncoder rules (8.3)."""
    scale = 10.0**p
    w = 32 if f32 else 64
    lim_hi, lim_lo = (2147483647.0, -2147483648.0) if f32 else (2.0**63, -(2.0**63))
    ints, flags = [], []  # flag: True scaled, False rounded only, None raw bits
    for v in values:
        v = float(np.float32(v)) if f32 else float(v)
        s = v * scale
        if s > lim_hi or s < lim_lo:
            if v > lim_hi or v < lim_lo:
                flags.append(None)
                b = struct.pack(">f" if f32 else ">d", v)
                ints.append(struct.unpack(">i" if f32 else ">q", b)[0])
            else:
                flags.append(False)
                ints.append(java_round(v))
        elif math.isnan(v):
            flags.append(None)
            ints.append(0x7FC00000 if f32 else 0x7FF8000000000000)
        else:
            flags.append(True)
            ints.append(java_round(s))
    expected = []
    for x, f in zip(ints, flags, strict=True):
        if f is None:
            b = struct.pack(">i" if f32 else ">q", x)
            expected.append(struct.unpack(">f" if f32 else ">d", b)[0])
        elif f:
            expected.append(x / scale)
        else:
            expected.append(float(x))
    exp = np.array(expected, dtype=np.float32 if f32 else np.float64)
    body = uvarint(p) + int_blocks(ints, w)
    if all(f is True for f in flags):
        return body, exp
    n = len(values)
    scaled = bytearray(n // 8 + 1)
    raw = bytearray(n // 8 + 1)
    for i, f in enumerate(flags):
        if f is True:
            scaled[i >> 3] |= 1 << (i & 7)
        if f is None:
            raw[i >> 3] |= 1 << (i & 7)
    if any(f is None for f in flags):
        head = uvarint(0x7FFFFFFE) + uvarint(n) + bytes(scaled) + bytes(raw)
    else:
        head = uvarint(0x7FFFFFFF) + uvarint(n) + bytes(scaled)
    return head + body, exp


def same(a, b):
    return a.dtype == b.dtype and a.tobytes() == b.tobytes()


def test_example_from_the_notes():
    # C++ 2.5 FLOAT page: p = 2, then a block whose first value is 0x0d43 = 3395 -> 33.95
    data = bytes([2]) + bytes.fromhex("0000000000000000ffffb52100000d43")
    for path in PATHS:
        got = tf.decode(data, TSDataType.FLOAT, path=path)
        assert got.dtype == np.float32 and got.tolist() == [np.float32(33.95)]


@pytest.mark.parametrize("f32", [True, False])
@pytest.mark.parametrize("n", [0, 1, 128, 129, 130, 1000])
def test_form1_decimals(f32, n):
    rng = np.random.default_rng(n)
    vals = np.round(rng.uniform(-500, 500, n), 2)
    data, exp = reference_page(vals, f32)
    dt = np.float32 if f32 else np.float64
    for path in PATHS:
        assert same(tf.decode(data, dt, path=path), exp), path
    out = np.empty(n, dtype=dt)
    assert tf.decode_into(data, out) == len(data)
    assert same(out, exp)


@pytest.mark.parametrize("f32", [True, False])
def test_form2_rounded_only(f32):
    big = 3e7 if f32 else 5e17
    vals = [1.25, big, -big - 0.5, 2.5, 7.0] * 30
    data, exp = reference_page(vals, f32)
    assert data[:5] == uvarint(0x7FFFFFFF)
    for path in PATHS:
        assert same(tf.decode(data, np.float32 if f32 else np.float64, path=path), exp)


@pytest.mark.parametrize("f32", [True, False])
def test_form3_raw_bits(f32):
    huge = 1e20 if f32 else 1e300
    vals = [1.5, math.nan, math.inf, -math.inf, huge, -huge, 0.01, -0.0, 3e7 if f32 else 5e17] * 20
    data, exp = reference_page(vals, f32)
    assert data[:5] == uvarint(0x7FFFFFFE)
    dt = np.float32 if f32 else np.float64
    for path in PATHS:
        got = tf.decode(data, dt, path=path)
        assert same(got, exp), path
    assert same(tf.decode(data, dt, count=7), exp[:7])
    got = list(tf.Ts2DiffFloatDecoder(data, dt))
    assert same(np.array(got, dtype=dt), exp)


@pytest.mark.parametrize("f32", [True, False])
def test_module_encoder_matches_reference(f32):
    rng = np.random.default_rng(4)
    dt = np.float32 if f32 else np.float64
    cases = [
        np.round(rng.uniform(-100, 100, 300), 3).astype(dt),
        np.array([1.5, np.nan, np.inf, 1e30, -2.5, 0.125, 2.675] * 10, dtype=dt),
        np.array([1.0, 3e7 if f32 else 5e17, 2.0], dtype=dt),
        np.array([0.49999999999999994, -0.5, 0.5, 1.5, -1.5, 2.5], dtype=dt),
    ]
    for vals in cases:
        for p in (0, 2, 3):
            data, exp = reference_page(list(vals), f32, p)
            assert tf.encode(vals, max_point_number=p) == data
            assert same(tf.decode(data, dt), exp)


def test_args():
    data, _ = reference_page([1.0, 2.0], True)
    with pytest.raises(TypeError):
        tf.decode(data, np.int32)
    with pytest.raises(TypeError):
        tf.decode(data, TSDataType.INT64)
    with pytest.raises(CorruptDataError):
        tf.decode(data, np.float32, count=3)
    assert tf.decode(b"", np.float64).size == 0
    assert tf.count_values(data, np.float32) == 2


@pytest.mark.parametrize("f32", [True, False])
def test_every_truncation_raises(f32):
    data, _ = reference_page([1.5, math.nan, 2.25, 1e30] * 40, f32)
    for cut in range(1, len(data)):
        with pytest.raises(CorruptDataError):
            tf.decode(data[:cut], np.float32 if f32 else np.float64)


def test_hostile_prefix():
    with pytest.raises(CorruptDataError):  # a bitmap for 2**31 values in a few bytes
        tf.decode(uvarint(0x7FFFFFFF) + uvarint(0x7FFFFFF0) + b"\x00" * 20, np.float64)
    with pytest.raises(CorruptDataError):  # bitmap count disagrees with the blocks
        data, _ = reference_page([1.0, 1e30, 2.0], True)
        tf.decode(data[:5] + uvarint(5) + data[6:], np.float32)
    with pytest.raises(CorruptDataError):  # over-long varint
        tf.decode(b"\xff" * 6, np.float32)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=80), st.booleans())
def test_random_bytes_never_crash(data, f32):
    try:
        tf.decode(data, np.float32 if f32 else np.float64)
    except CorruptDataError:
        pass


def test_official_fixture():
    from fixture_pages import check_fixture, value_pages

    chunks = value_pages("enc_ts_2diff", "TS_2DIFF")
    float_pages = [p for p in chunks if p[2] in ("FLOAT", "DOUBLE")]
    assert len(float_pages) == 4
    assert check_fixture("enc_ts_2diff", "TS_2DIFF", _decode_page_if_float) > 1000


def _decode_page_if_float(body, dt, count, path):
    if np.dtype(dt).kind != "f":  # the integer columns belong to tsfile.codecs.ts2diff
        from tsfile.codecs import ts2diff

        return ts2diff.decode(body, dt, count=count, path=path)
    return tf.decode(body, dt, count=count, path=path)


def test_official_tree_fixture_compressed_pages():
    from fixture_pages import check_nonaligned

    assert check_nonaligned("tree_nonaligned", "TS_2DIFF", _decode_page_if_float) >= 50


@pytest.mark.parametrize("f32", [True, False])
def test_block_without_deltas_has_width_0(f32):
    # 130 values: the page's integer blocks end in a block of one value, written (like the integer
    # codec, whose encoder this shares) with width 0 and the previous block's min_delta.
    vals = (np.arange(130) * 0.25 + np.where(np.arange(130) == 5, 7.0, 0.0)).tolist()
    data, _ = reference_page(vals, f32)
    assert tf.encode(np.array(vals, dtype=np.float32 if f32 else np.float64)) == data
    head = ">iiii" if f32 else ">iiqq"
    first = struct.unpack_from(head, data, 1)
    last = struct.unpack_from(head, data, len(data) - struct.calcsize(head))
    assert first[:2] == (128, 11) and last == (0, 0, first[2], 3225)


def _page_blocks(body: bytes) -> tuple[int, bytes]:
    """(form, the integer TS_2DIFF blocks) of a FLOAT/DOUBLE TS_2DIFF page (format notes 8.3)."""

    def uvar(pos):
        v = shift = 0
        while True:
            b = body[pos]
            v |= (b & 0x7F) << shift
            shift += 7
            pos += 1
            if not b & 0x80:
                return v, pos

    tag, pos = uvar(0)
    if tag not in (0x7FFFFFFF, 0x7FFFFFFE):
        return 1, body[pos:]
    count, pos = uvar(pos)
    pos += (count // 8 + 1) * (2 if tag == 0x7FFFFFFE else 1)
    _, pos = uvar(pos)
    return (2 if tag == 0x7FFFFFFF else 3), body[pos:]


def test_official_one_value_blocks_byte_exact():
    """FLOAT/DOUBLE pages of 130, 259, 1 and 129k+1 values written by the official writer
    (tests/fixtures/official/ts2diff_one_value_blocks): the integer blocks re-encode byte for byte
    when each page gets the min_delta its chunk's previous page left (the last block holds one
    value: width 0, that min_delta); form-1 pages re-encode whole from their decoded values.
    (Pages of forms 2/3 hold values whose decoded form does not re-scale to the same integer.)"""
    from test_ts2diff import official_chunk_pages

    from tsfile.codecs import ts2diff

    checked = whole = 0
    for device, column, type_name, bodies in official_chunk_pages("ts2diff_one_value_blocks"):
        if type_name not in ("FLOAT", "DOUBLE"):
            continue
        dt, it = (np.float32, np.int32) if type_name == "FLOAT" else (np.float64, np.int64)
        carried = 0
        for body in bodies:
            form, blocks = _page_blocks(body)
            ints = ts2diff.decode(blocks, it)
            assert ts2diff.encode(ints, prev_min_delta=carried) == blocks, (device, column)
            values = tf.decode(body, dt)
            if form == 1:
                assert tf.encode(values, prev_min_delta=carried) == body, (device, column)
                assert tf.last_min_delta(values, prev_min_delta=carried) == (
                    ts2diff.last_min_delta(ints, prev_min_delta=carried)
                )
                whole += 1
            carried = ts2diff.last_min_delta(ints, prev_min_delta=carried)
            checked += 1
    assert checked == 2 * 11 and whole >= 15
