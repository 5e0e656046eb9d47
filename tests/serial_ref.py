"""Reference encoders in plain Python for the serial codecs (CHIMP, SPRINTZ, RLBE, CAMEL and the
FLOAT/DOUBLE TS_2DIFF forms), written from the format notes (docs/tsfile-format.md, 8.3-8.11)
independently of the C decoders, plus data shapes for round-trip tests. Slow but obviously-correct
code: tests only.
"""

from __future__ import annotations

import math
import struct

import numpy as np

# ----------------------------------------------------------------------------- bits


class BitWriter:
    """MSB-first bit writer (the first bit goes to bit 7 of the first byte)."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.nbits = 0

    def write(self, value: int, n: int) -> None:
        if n:
            self.parts.append(format(value & ((1 << n) - 1), f"0{n}b"))
            self.nbits += n

    def bit(self, b: int) -> None:
        self.write(1 if b else 0, 1)

    def to_bytes(self, extra_byte_when_aligned: bool = False) -> bytes:
        """Zero-pad to a byte; GORILLA/CHIMP writers add a whole 0x00 byte when already aligned."""
        s = "".join(self.parts)
        pad = (-len(s)) % 8
        if pad == 0 and extra_byte_when_aligned:
            pad = 8
        s += "0" * pad
        return int(s, 2).to_bytes(len(s) // 8, "big") if s else b""


def clz(x: int, w: int) -> int:
    return w - x.bit_length()


def ctz(x: int, w: int) -> int:
    return (x & -x).bit_length() - 1 if x else w


def words(values: np.ndarray) -> list[int]:
    """Values -> unsigned W-bit words (FLOAT/DOUBLE: IEEE bits)."""
    a = np.ascontiguousarray(values)
    u = {4: np.uint32, 8: np.uint64}[a.dtype.itemsize]
    return [int(x) for x in a.view(u)]


def from_words(ws: list[int], dtype) -> np.ndarray:
    dt = np.dtype(dtype)
    u = {4: np.uint32, 8: np.uint64}[dt.itemsize]
    return np.array(ws, dtype=u).view(dt)


def signed(x: int, w: int) -> int:
    x &= (1 << w) - 1
    return x - (1 << w) if x >> (w - 1) else x


def uvarint(v: int) -> bytes:
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def svarint32(n: int) -> bytes:
    return uvarint(((n << 1) ^ (n >> 31)) & 0xFFFFFFFF)


# ----------------------------------------------------------------------------- GORILLA (8.4)

END = {
    np.dtype(np.int32): 0x80000000,
    np.dtype(np.int64): 0x8000000000000000,
    np.dtype(np.float32): 0x7FC00000,
    np.dtype(np.float64): 0x7FF8000000000000,
}


def gorilla_encode(ws: list[int], w: int, endv: int) -> bytes:
    L = 6 if w == 64 else 5
    bw = BitWriter()
    stored_lead, stored_trail = 10**9, 0
    prev = None
    for v in list(ws) + [endv]:
        if prev is None:
            bw.write(v, w)
        else:
            x = v ^ prev
            if x == 0:
                bw.bit(0)
            else:
                bw.bit(1)
                lead, trail = clz(x, w), ctz(x, w)
                if lead >= stored_lead and trail >= stored_trail:
                    bw.bit(0)
                    bw.write(x >> stored_trail, w - stored_lead - stored_trail)
                else:
                    sig = w - lead - trail
                    bw.bit(1)
                    bw.write(lead, L)
                    bw.write(sig - 1, L)
                    bw.write(x >> trail, sig)
                    stored_lead, stored_trail = lead, trail
        prev = v
    return bw.to_bytes(extra_byte_when_aligned=True)


# ----------------------------------------------------------------------------- CHIMP (8.8)

_CLASSES = [0, 8, 12, 16, 18, 20, 22, 24]


def _lead_class(lz: int) -> tuple[int, int]:
    code = max(i for i, c in enumerate(_CLASSES) if c <= lz)
    return _CLASSES[code], code


def chimp_encode(ws: list[int], w: int, endv: int) -> bytes:
    log, th, sigw = (7, 13, 6) if w == 64 else (6, 11, 5)
    prev_n = 1 << log
    keymask = (1 << (th + 1)) - 1
    bw = BitWriter()
    stored = [0] * prev_n
    indices = [0] * (1 << (th + 1))  # zero-initialised like the writers' int array
    index = current = 0
    stored_lead = w + 1
    first = True
    for v in list(ws) + [endv]:
        if first:
            bw.write(v, w)
            stored[0] = v
            indices[v & keymask] = 0
            first = False
            continue
        key = v & keymask
        cand = indices[key]
        if index - cand < prev_n:
            t = v ^ stored[cand % prev_n]
            if ctz(t, w) > th:
                ref, x = cand % prev_n, t
            else:
                ref = index % prev_n
                x = v ^ stored[ref]
        else:
            ref = index % prev_n
            x = v ^ stored[ref]
        if x == 0:
            bw.write(0, 2)
            bw.write(ref, log)
            stored_lead = w + 1
        elif ctz(x, w) > th:
            tz = ctz(x, w)
            lz, code = _lead_class(clz(x, w))
            sig = w - lz - tz
            bw.write(1, 2)
            bw.write(ref, log)
            bw.write(code, 3)
            bw.write(sig, sigw)
            bw.write(x >> tz, sig)
            stored_lead = w + 1
        else:
            lz, code = _lead_class(clz(x, w))
            if lz == stored_lead:
                bw.write(2, 2)
                bw.write(x, w - lz)
            else:
                bw.write(3, 2)
                bw.write(code, 3)
                bw.write(x, w - lz)
                stored_lead = lz
        current = (current + 1) % prev_n
        stored[current] = v
        index += 1
        indices[key] = index
    return bw.to_bytes(extra_byte_when_aligned=True)


# ----------------------------------------------------------------------------- data shapes


def int_shapes(dtype, rng: np.random.Generator, n: int) -> dict[str, np.ndarray]:
    dt = np.dtype(dtype)
    info = np.iinfo(dt)
    walk = np.cumsum(rng.integers(-50, 51, n)).astype(dt)
    big = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    small = rng.integers(-3, 4, n).astype(dt)
    ts = (1_700_000_000_000 + np.arange(n) * 1000 + rng.integers(-3, 4, n)).astype(dt)
    out = {
        "constant": np.full(n, 42, dtype=dt),
        "zeros": np.zeros(n, dtype=dt),
        "walk": walk,
        "random_bits": big,
        "small": small,
        "timestamps": ts,
        "extremes": np.resize(np.array([info.max, info.min + 1, 0, -1, 1], dtype=dt), n),
    }
    return out


def float_shapes(dtype, rng: np.random.Generator, n: int) -> dict[str, np.ndarray]:
    dt = np.dtype(dtype)
    u = np.uint32 if dt.itemsize == 4 else np.uint64
    walk = np.cumsum(rng.normal(0, 1, n)).astype(dt)
    dec = np.round(rng.uniform(-1000, 1000, n), 2).astype(dt)
    bits = rng.integers(0, np.iinfo(u).max, n, dtype=u, endpoint=True)
    rand = bits.view(dt).copy()
    # the end marker (canonical NaN) cannot be stored by CHIMP/GORILLA; other NaNs can
    canon = END[dt]
    rand[rand.view(u) == canon] = 0
    specials = np.array([0.0, -0.0, np.inf, -np.inf, 1e-45, -1.5, 3.25], dtype=dt)
    nan_payload = np.array([0x7FC00001 if dt.itemsize == 4 else 0x7FF8000000000001], dtype=u)
    neg_nan = np.array([0xFFC00000 if dt.itemsize == 4 else 0xFFF8000000000000], dtype=u)
    snan = np.array([0x7F800001 if dt.itemsize == 4 else 0x7FF0000000000001], dtype=u)
    spec = np.concatenate([specials, nan_payload.view(dt), neg_nan.view(dt), snan.view(dt)])
    return {
        "constant": np.full(n, 21.5, dtype=dt),
        "walk": walk,
        "decimals": dec,
        "random_bits": rand,
        "specials": np.resize(spec, n),
    }


def pack_msb(values: list[int], width: int) -> bytes:
    bw = BitWriter()
    for v in values:
        bw.write(v, width)
    return bw.to_bytes()


def f32_bits_round_trip_safe(x: float) -> bool:
    return not math.isnan(x)


def be(fmt: str, v) -> bytes:
    return struct.pack(">" + fmt, v)


# ----------------------------------------------------------------------------- RLBE (8.10)


def fibonacci_code(k: int) -> str:
    """Zeckendorf code of k >= 1 with F = 1, 2, 3, 5, ...: smallest term first, then an extra 1."""
    fibs = [1, 2]
    while fibs[-1] <= k:
        fibs.append(fibs[-1] + fibs[-2])
    bits = [0] * len(fibs)
    rest = k
    for j in range(len(fibs) - 1, -1, -1):
        if fibs[j] <= rest:
            bits[j] = 1
            rest -= fibs[j]
    top = max(j for j, b in enumerate(bits) if b)
    return "".join(str(b) for b in bits[: top + 1]) + "1"


def rlbe_encode(ws: list[int], w: int, block: int = 10000) -> bytes:
    lenw = 7 if w == 64 else 6
    mask = (1 << w) - 1
    out = bytearray()
    for start in range(0, len(ws), block):
        chunk = ws[start : start + block]
        deltas = [chunk[0]] + [(chunk[i] - chunk[i - 1]) & mask for i in range(1, len(chunk))]
        lens = [max(d.bit_length(), 1) for d in deltas]
        bw = BitWriter()
        bw.write(len(chunk), 32)
        i = 0
        while i < len(deltas):
            j = i
            while j < len(deltas) and lens[j] == lens[i]:
                j += 1
            L = lens[i]
            bw.write(L, lenw)
            for ch in fibonacci_code(j - i):
                bw.bit(ch == "1")
            for d in deltas[i:j]:
                bw.write(d & ((1 << (w - 1)) - 1) if L == w else d, L)
            i = j
        out += bw.to_bytes()
    return bytes(out)


# ----------------------------------------------------------------------------- SPRINTZ (8.9)


def rle_block(ws: list[int], w_word: int, runs: bool = False) -> bytes:
    """One RLE block (8.5) of the words: C++ style (bit-packed only) or, with runs=True, a single
    RLE run when all values are equal (Java style; INT64 run values big-endian)."""
    w = max(max((x.bit_length() for x in ws), default=1), 1)
    if runs and len(set(ws)) == 1:
        nb = (w + 7) // 8
        val = ws[0].to_bytes(nb, "little" if w_word == 32 else "big")
        body = bytes([w]) + uvarint(len(ws) << 1) + val
    else:
        groups = (len(ws) + 7) // 8
        last = len(ws) - (groups - 1) * 8
        packed = pack_msb(ws + [0] * (groups * 8 - len(ws)), w)
        body = bytes([w]) + uvarint((groups << 1) | 1) + bytes([last]) + packed
    return uvarint(len(body)) + body


def _fire_predict(acc: int, delta: int, x: int, w: int) -> int:
    shift, bw = (2, 8) if w == 32 else (3, 16)
    alpha = acc >> shift
    if w == 32:
        diff = signed(alpha * delta, 32) >> bw  # product truncated to 32 bits first
    else:
        diff = (alpha * delta) >> bw  # exact product
    return signed(x + diff, w)


class SprintzLossy(ValueError):
    """A prediction error of exactly -2**(W-1): its residual wraps to 0, so the value is lost."""


def sprintz_encode(ws: list[int], kind: str, tail_runs: bool = False, strict: bool = True) -> bytes:
    """kind: 'i32', 'i64', 'f32', 'f64'; ws: unsigned words. strict: raise SprintzLossy for values
    the format cannot represent (else encode them as the writers do, losing them)."""
    w = 32 if kind in ("i32", "f32") else 64
    out = bytearray()
    i = 0
    while len(ws) - i >= 9:
        block = [signed(x, w) for x in ws[i : i + 9]]
        acc, delta = 0, 0
        res = []
        for j in range(1, 9):
            pred = _fire_predict(acc, delta, block[j - 1], w)
            e = signed(block[j] - pred, w)
            if strict and e == -(1 << (w - 1)):
                raise SprintzLossy(i + j)
            r = (-2 * e if e <= 0 else 2 * e - 1) & ((1 << w) - 1)
            res.append(r)
            acc = signed(acc - (-delta if e > 0 else delta), 32)
            delta = signed(block[j] - block[j - 1], w)
        width = max(max(r.bit_length() for r in res), 1)
        out.append(width)
        first = ws[i]
        if kind == "i32":
            out += uvarint(first)
        else:
            out += first.to_bytes(w // 8, "big")
        out += pack_msb(res, width)
        i += 9
    tail = ws[i:]
    if tail:
        out.append(0x80 | len(tail))
        if kind in ("i32", "i64"):
            out += rle_block(tail, w, runs=tail_runs)
        else:
            out += gorilla_encode(tail, w, 0x7FC00000 if w == 32 else 0x7FF8000000000000)
    return bytes(out)


# ----------------------------------------------------------------------------- CAMEL (8.11)

_CANON = 0x7FF8000000000000


def f64_bits(x: float) -> int:
    return struct.unpack(">Q", struct.pack(">d", x))[0]


def bits_f64(b: int) -> float:
    return struct.unpack(">d", struct.pack(">Q", b & 0xFFFFFFFFFFFFFFFF))[0]


def java_bits(x: float) -> int:
    return _CANON if math.isnan(x) else f64_bits(x)


def java_long(x: float) -> int:
    if math.isnan(x):
        return 0
    if x >= 2.0**63:
        return (1 << 63) - 1
    if x <= -(2.0**63):
        return -(1 << 63)
    return int(x)  # truncation toward zero


def java_round(x: float) -> int:
    return 0 if math.isnan(x) else java_long(math.floor(x + 0.5))


def _c_floor_log10_gt10(a: float) -> bool:
    """C's fabs(floor(log10(a))) > 10, NaN comparing false."""
    if math.isnan(a):
        return False
    if math.isinf(a):
        return True
    return abs(math.floor(math.log10(a))) > 10


def camel_encode(values: list[float]) -> tuple[bytes, list[int]]:
    """One CAMEL block of the values. Returns (page bytes, the IEEE bits a decoder must return),
    the latter derived from the format's decimal reconstruction formula."""
    bw = BitWriter()
    expected: list[int] = []
    stored = 0
    prev = 0  # the writer's previous value (java bits of the value given)
    prev_dec = 0  # the decoder's (java bits of the value it reconstructs; differs when lossy)
    lead, trail = None, 0

    def varlong(v: int) -> None:
        u = ((v << 1) ^ (v >> 63)) & 0xFFFFFFFFFFFFFFFF
        while u & ~0x7F:
            bw.write(u & 0x7F, 7)
            bw.bit(1)
            u >>= 7
        bw.write(u, 7)
        bw.bit(0)

    def gorilla(a: float) -> int:
        """Writes the GORILLA step; returns the bits the decoder gets (its prev XOR the xor)."""
        nonlocal lead, trail
        cur = java_bits(a)
        x = cur ^ prev
        if x == 0:
            bw.bit(0)
        else:
            bw.bit(1)
            ld, tr = clz(x, 64), ctz(x, 64)
            if lead is not None and ld >= lead and tr >= trail:
                bw.bit(0)
                bw.write(x >> trail, 64 - lead - trail)
            else:
                sig = 64 - ld - tr
                bw.bit(1)
                bw.write(ld, 6)
                bw.write(sig - 1, 6)
                bw.write(x >> tr, sig)
                lead, trail = ld, tr
        return prev_dec ^ x

    for idx, v in enumerate(values):
        if idx == 0:
            bw.write(f64_bits(v), 64)
            stored = java_long(v)
            expected.append(f64_bits(v))
            prev = prev_dec = java_bits(v)
            continue
        sign = java_bits(v) >> 63
        bw.bit(sign)
        a = math.fabs(v)
        if a > 9.223372036854775807e18 or a == 0 or _c_floor_log10_gt10(a):
            bw.bit(0)
            out = bits_f64(gorilla(a))
            dec_value = out if math.isnan(out) else (-out if sign else out)
        else:
            int_part = java_long(a)
            digits = len(str(abs(int_part)))
            factor, c = 1.0, 0
            while abs(a * factor - float(java_round(a * factor))) > 0:
                factor *= 10.0
                c += 1
                if digits + c > 10:
                    break
            c = max(c, 1)
            if c + digits <= 10:
                pw = 10**c
                dv = java_round(a * float(pw)) % pw
                bw.bit(1)
                varlong(int_part - stored)
                stored = int_part
                bw.write(c - 1, 4)
                thr = 5**c
                m = dv
                if dv >= thr:
                    bw.bit(1)
                    m = dv % thr
                    xb = java_bits(dv / pw + 1) ^ java_bits(m / pw + 1)
                    bw.write(xb >> (52 - c), c)
                else:
                    bw.bit(0)
                varlong(m)
                # what the format's reconstruction yields
                if dv >= thr:
                    xv = ((java_bits(dv / pw + 1) ^ java_bits(m / pw + 1)) >> (52 - c)) << (52 - c)
                    frac = bits_f64(xv ^ java_bits(m / pw + 1)) - 1
                else:
                    frac = m / pw
                dec = float(java_round(frac * pw))
                t = float(int_part) * pw + dec
                r = t / pw if int_part >= 0 else -t / pw
                dec_value = -r if sign else r
            else:
                bw.bit(0)
                out = bits_f64(gorilla(a))
                dec_value = out if math.isnan(out) else (-out if sign else out)
        expected.append(f64_bits(dec_value))
        prev = java_bits(v)
        prev_dec = java_bits(dec_value)
    nbits = bw.nbits
    return svarint32(nbits) + bw.to_bytes(), expected


def mutations(data: bytes, n: int, seed: int):
    """n corrupted variants of a valid page: flipped bits, changed bytes, cuts and splices."""
    rng = np.random.default_rng(seed)
    for _ in range(n):
        b = bytearray(data)
        kind = rng.integers(0, 4)
        if kind == 0 and b:
            for _ in range(int(rng.integers(1, 4))):
                i = int(rng.integers(0, len(b)))
                b[i] ^= 1 << int(rng.integers(0, 8))
        elif kind == 1 and b:
            i = int(rng.integers(0, len(b)))
            b[i] = int(rng.integers(0, 256))
        elif kind == 2:
            b = b[: int(rng.integers(0, len(b) + 1))]
        else:
            i = int(rng.integers(0, len(b) + 1))
            b = (
                b[:i]
                + bytes(rng.integers(0, 256, int(rng.integers(1, 16)), dtype=np.uint8))
                + b[i:]
            )
        yield bytes(b)
