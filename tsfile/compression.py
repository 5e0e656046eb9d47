"""Page compression of TsFile, both directions (format notes section 7).

* ``decompress(compressor, src, uncompressed_size) -> bytes | bytearray``: one page body, exactly
  ``uncompressed_size`` bytes; the decompressor's own output buffer, never copied once more (the
  page reader keeps it as the page's body).
* ``decompress_into(compressor, src, dst) -> int``: the same into a preallocated writable buffer
  whose length is the page's ``uncompressed_size``; the result must fill it exactly.
* ``compress(compressor, data) -> bytes``: what a writer stores for a page body.
* ``MAX_EXPANSION``: per compression, the most bytes one stored byte can decode to (the page
  reader checks every page header against it before anything else).

The page header's ``uncompressed_size`` is a claim read from the file. Before anything is
allocated it is checked against what the stored bytes can really produce (``MAX_EXPANSION`` and,
where the stream states its own size, that size: Snappy's preamble, a ZSTD frame's content size,
gzip's ISIZE), and every decompressor's output is bounded by it: a hostile stream can never make
these functions allocate more than the page header says, and a stream that decodes to another
length is a CorruptDataError.

Backends (all installed with the package, from wheels): cramjam (raw Snappy, LZ4 block), the
standard library (GZIP, LZMA2 in the xz container), ``zstandard`` (ZSTD) and ``lzokay`` (raw
LZO1X; the LZO library of the official C++ writer, whose compressor gives its bytes).
"""

from __future__ import annotations

import gzip
import lzma
import struct
import zlib

from tsfile.errors import CorruptDataError, UnsupportedError
from tsfile.types import Compressor

try:  # cramjam ships with python-snappy; it has *_into functions that avoid a copy
    import cramjam as _cramjam
except ImportError:  # pragma: no cover - exercised only without cramjam
    _cramjam = None

try:
    import zstandard as _zstandard
except ImportError:  # pragma: no cover - a dependency of the package
    _zstandard = None

try:
    import lzokay as _lzokay
except ImportError:  # pragma: no cover - a dependency of the package
    _lzokay = None

UNCOMPRESSED = Compressor.UNCOMPRESSED
SNAPPY = Compressor.SNAPPY
GZIP = Compressor.GZIP
LZO = Compressor.LZO
LZ4 = Compressor.LZ4
ZSTD = Compressor.ZSTD
LZMA2 = Compressor.LZMA2

SUPPORTED = (UNCOMPRESSED, SNAPPY, GZIP, LZO, LZ4, ZSTD, LZMA2)

# The most bytes one stored byte of a page body can decode to, from each format's instructions
# (the page reader allows 64 bytes on top, for stream headers and trailers):
# - SNAPPY: a literal costs at least its own bytes; the best copy element is 3 bytes (tag +
#   2-byte offset) for 64 output bytes, so < 64/3 < 22. (The preamble also gives the exact size.)
# - GZIP: deflate's densest code is a 258-byte match coded in 2 bits, so 1032 (the well-known
#   bound of zlib's technical notes); the 18 bytes of gzip header and trailer only lower it.
# - LZO (LZO1X): a literal costs at least its own bytes; a match of length 2..8 costs 2 bytes, a
#   longer one 3 bytes (opcode + 2-byte distance) plus one byte per 255 of length (a 0 byte adds
#   255, a final byte < 256 ends it), so every instruction yields at most 255 bytes per byte.
# - LZ4 block: likewise: a match is a token and a 2-byte offset for 4 + 15 bytes, plus one byte
#   per 255 more (a final byte < 255 ends the length), so at most 255 bytes per byte.
# - ZSTD: a block yields at most 128 KiB and its smallest form (an RLE block) is 4 bytes, so
#   32768; decompress() also walks the frame's block headers (the sizes of raw and RLE blocks are
#   exact) and holds the page header to the frame's content size when the frame states it.
# - LZMA2: an LZMA2 chunk yields at most 2 MiB and takes at least 6 bytes (control byte, two
#   2-byte sizes, payload), so < 2^19: true, but no protection (a 32 KiB page could claim 16 GiB).
#   Its output is grown only as the stream produces it, never past the page header's size.
MAX_EXPANSION = {
    int(UNCOMPRESSED): 1,
    int(SNAPPY): 22,
    int(GZIP): 1032,
    int(LZO): 255,
    int(LZ4): 255,
    int(ZSTD): 1 << 15,
    int(LZMA2): 1 << 19,
}

# Output produced per call of a streaming decoder (GZIP, LZMA2): the decoder's own output buffer
# is at most this big before it is appended to the page's growing body, so a page costs about one
# copy of its output in memory, not two.
_PIECE = 1 << 20

# The LZMA2 decoder allocates the dictionary size its stream header names (up to 4 GiB) before
# decoding anything. A page never needs a dictionary larger than itself, but liblzma cannot be
# told to shrink it, so its memory is capped at the page size or, for small pages, the 64 MiB
# dictionary of xz's largest preset (-9): every standard encoder setting stays within it.
_XZ_DICT_FLOOR = 64 << 20
_XZ_MEMLIMIT_EXTRA = 4 << 20  # the decoder's own state besides the dictionary (~30 KiB)

_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_ZSTD_MAX_BLOCK = 128 << 10
_ZSTD_DEFAULT_WINDOW = 1 << 27  # libzstd's default limit for the window a frame may ask for
_GZIP_MAGIC = b"\x1f\x8b\x08"
_XZ_MAGIC = b"\xfd7zXZ\x00"


def _code(compressor) -> Compressor:
    try:
        code = Compressor(int(compressor))
    except (ValueError, TypeError):
        raise UnsupportedError(f"unknown compression type {compressor!r}") from None
    if code not in SUPPORTED:
        raise UnsupportedError(f"compression {code.name} ({int(code)}) is not a page compression")
    return code


def _fail(code, what):
    return CorruptDataError(f"{code.name} page body: {what}")


def _check_len(code, got, want):
    if got != want:
        raise _fail(code, f"decompressed to {got} bytes, the page header says {want}")
    return got


# ------------------------------------------------------------------------------------------------
# what the stored bytes can produce (checked before any allocation)


def _snappy_length(src) -> int:
    """The uvarint preamble of a raw Snappy block: its exact decompressed length."""
    n, shift = 0, 0
    for pos in range(min(len(src), 5)):
        b = src[pos]
        n |= (b & 0x7F) << shift
        if not b & 0x80:
            return n
        shift += 7
    raise _fail(SNAPPY, "bad length preamble")


def _zstd_frame_bound(src) -> tuple[int | None, int]:
    """(content size the frame header states or None, most bytes its blocks can produce).

    Walks the one frame a page body holds (RFC 8878 section 3.1.1): header, then block headers
    (3 bytes: last-block bit, type, size) up to the last block, then the optional checksum; the
    frame must end exactly at the end of the body. Raw and RLE blocks state their output size; a
    compressed block yields at most 128 KiB."""
    n = len(src)
    if n < 6 or bytes(src[:4]) != _ZSTD_MAGIC:
        raise _fail(ZSTD, "not a zstd frame (bad magic number)")
    fhd = src[4]
    if fhd & 0x08:
        raise _fail(ZSTD, "reserved bit set in the frame header")
    single_segment = (fhd >> 5) & 1
    fcs_len = (0, 2, 4, 8)[fhd >> 6] or (1 if single_segment else 0)
    dict_len = (0, 1, 2, 4)[fhd & 3]
    pos = 5 + (0 if single_segment else 1) + dict_len
    if pos + fcs_len > n:
        raise _fail(ZSTD, "truncated frame header")
    content_size = None
    if fcs_len:
        content_size = int.from_bytes(src[pos : pos + fcs_len], "little")
        if fcs_len == 2:
            content_size += 256
    pos += fcs_len
    bound = 0
    while True:
        if pos + 3 > n:
            raise _fail(ZSTD, "truncated frame (no last block)")
        header = int.from_bytes(src[pos : pos + 3], "little")
        last, kind, size = header & 1, (header >> 1) & 3, header >> 3
        pos += 3
        if kind == 3 or size > _ZSTD_MAX_BLOCK:
            raise _fail(ZSTD, f"bad block header at byte {pos - 3}")
        if kind == 0:  # raw: `size` bytes stored and produced
            bound += size
            pos += size
        elif kind == 1:  # RLE: one byte stored, `size` bytes produced
            bound += size
            pos += 1
        else:  # compressed: `size` bytes stored, at most 128 KiB produced
            bound += _ZSTD_MAX_BLOCK
            pos += size
        if last:
            break
    pos += 4 if fhd & 0x04 else 0  # content checksum
    if pos != n:
        what = "truncated frame" if pos > n else f"{n - pos} bytes after the frame"
        raise _fail(ZSTD, what)
    return content_size, bound


def check_size(compressor, src, uncompressed_size) -> None:
    """CorruptDataError unless ``src`` can decode to ``uncompressed_size`` bytes, as far as the
    format tells without decompressing: the expansion limit, and the size the stream states."""
    code = _code(compressor)
    want = int(uncompressed_size)
    n = len(src)
    if want < 0:
        raise _fail(code, f"negative uncompressed size {want}")
    if code == UNCOMPRESSED:
        _check_len(code, n, want)
        return
    if want > n * MAX_EXPANSION[int(code)] + 64:
        raise _fail(code, f"{want} bytes are impossible from {n} stored bytes")
    if code == SNAPPY:
        stated = _snappy_length(src)
        if stated != want:
            raise _fail(code, f"the stream says {stated} bytes, the page header {want}")
    elif code == GZIP:
        # One gzip member (what TsFile writers store): its trailer's ISIZE is the size mod 2^32.
        if n < 18 or bytes(src[:3]) != _GZIP_MAGIC:
            raise _fail(code, "not a gzip member")
        stated = struct.unpack("<I", bytes(src[n - 4 :]))[0]
        if stated != want & 0xFFFFFFFF:
            raise _fail(code, f"the stream says {stated} bytes, the page header {want}")
    elif code == ZSTD:
        stated, bound = _zstd_frame_bound(src)
        if stated is not None and stated != want:
            raise _fail(code, f"the frame says {stated} bytes, the page header {want}")
        if want > bound:
            raise _fail(code, f"{want} bytes are impossible from the frame's blocks (<= {bound})")
    elif code == LZMA2:
        if n < 12 or bytes(src[:6]) != _XZ_MAGIC:
            raise _fail(code, "not an .xz stream")


# ------------------------------------------------------------------------------------------------
# decompression


def decompress(compressor, src, uncompressed_size) -> bytes | bytearray:
    """Decompress one page body whose decompressed size is ``uncompressed_size``.

    Returns exactly that many bytes: the decoder's own output (bytes or bytearray), not a copy.
    CorruptDataError if the stream is invalid, cannot produce that size, or decodes to another
    size; UnsupportedError for an unknown compressor or a missing backend."""
    code = _code(compressor)
    want = int(uncompressed_size)
    check_size(code, src, want)
    if code == UNCOMPRESSED:
        return bytes(src)
    try:
        if code == SNAPPY:
            data = _snappy_decompress(src, want)
        elif code == LZ4:
            data = _lz4_decompress(src, want)
        elif code == GZIP:
            data = _grow(code, _inflate_pieces(src), want)
        elif code == ZSTD:
            data = _zstd_decompress(src, want)
        elif code == LZMA2:
            data = _grow(code, _xz_pieces(src, want), want)
        else:  # LZO
            data = _lzo_decompress(src, want)
    except (CorruptDataError, UnsupportedError):
        raise
    except Exception as exc:  # every backend has its own error classes
        raise _fail(code, f"{type(exc).__name__}: {exc}") from None
    _check_len(code, len(data), want)
    return data


def decompress_into(compressor, src, dst) -> int:
    """Decompress ``src`` into the writable buffer ``dst``, which must be filled exactly.

    Returns ``len(dst)``. SNAPPY and LZ4 decode straight into ``dst``; the other compressions
    decode with decompress() and copy (the page reader uses decompress() for them)."""
    code = _code(compressor)
    out = memoryview(dst).cast("B")
    want = out.nbytes
    check_size(code, src, want)
    if want and code in (SNAPPY, LZ4) and _cramjam is not None:
        try:
            if code == SNAPPY:
                n = _cramjam.snappy.decompress_raw_into(src, out)
            else:
                n = _cramjam.lz4.decompress_block_into(src, out, output_len=want)
        except Exception as exc:  # cramjam raises its own DecompressionError
            raise _fail(code, str(exc)) from None
        return _check_len(code, n, want)
    out[:] = decompress(code, src, want)
    return want


def _grow(code, pieces, want) -> bytes | bytearray:
    """Join a streaming decoder's pieces into one buffer that grows only as the stream produces
    output and never past ``want`` (bytearray growth reallocates in place, no second copy). A
    page of one piece (up to 1 MiB: most pages) is returned as it came, without a copy."""
    out = b""
    for piece in pieces:
        if len(out) + len(piece) > want:
            raise _fail(code, f"decompresses to more than the page header's {want} bytes")
        if not out:
            out = piece
        else:
            if isinstance(out, bytes):
                out = bytearray(out)
            out += piece
    return out


def _inflate_pieces(src):
    """One gzip member's output in pieces of at most _PIECE bytes. The input goes in by pieces
    too: zlib hands back the unconsumed rest of its input as a copy on every call."""
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    view = memoryview(src).cast("B")
    pos, pending = 0, b""
    while not d.eof:
        if not pending and pos < len(view):
            pending = view[pos : pos + _PIECE]
            pos += _PIECE
        # with no input left, zlib may still hold output of a match it had to stop in
        piece = d.decompress(pending, _PIECE)
        pending = d.unconsumed_tail
        if not piece and not pending and pos >= len(view) and not d.eof:
            raise _fail(GZIP, "truncated stream")
        yield piece
    if d.unused_data or pos < len(view):
        raise _fail(GZIP, "data after the end of the gzip member")


def _xz_pieces(src, want):
    """An .xz stream's output in pieces of at most _PIECE bytes, the decoder's memory capped."""
    memlimit = max(want, _XZ_DICT_FLOOR) + _XZ_MEMLIMIT_EXTRA
    d = lzma.LZMADecompressor(format=lzma.FORMAT_XZ, memlimit=memlimit)
    data = src
    while not d.eof:
        piece = d.decompress(data, _PIECE)
        data = b""
        if not piece and d.needs_input:
            raise _fail(LZMA2, "truncated .xz stream")
        yield piece
    if d.unused_data:
        raise _fail(LZMA2, "data after the end of the .xz stream")


def _snappy_decompress(src, want):
    # check_size has matched the preamble with `want`: the allocation is the stream's own size.
    out = bytearray(want)
    if want:
        n = _cramjam.snappy.decompress_raw_into(src, out)
        _check_len(SNAPPY, n, want)
    return out


def _lz4_decompress(src, want):
    out = bytearray(want)  # want <= 255 x the stored bytes (check_size)
    if want:
        n = _cramjam.lz4.decompress_block_into(src, out, output_len=want)
        _check_len(LZ4, n, want)
    return out


def _zstd_decompress(src, want):
    if _zstandard is None:  # pragma: no cover - a dependency of the package
        raise UnsupportedError("ZSTD pages need the 'zstandard' package (pip install zstandard)")
    # One-shot decoding writes straight into an output of exactly `want` bytes (the frame's
    # content size, or max_output_size, both checked against the frame's blocks): the streaming
    # decoder would also allocate a window buffer as large as the frame, i.e. a second copy. A
    # single-segment frame's window is its content size, so allow windows up to the page size.
    window = max(_ZSTD_DEFAULT_WINDOW, 1 << max(want - 1, 1).bit_length())
    dctx = _zstandard.ZstdDecompressor(max_window_size=window)
    return dctx.decompress(src, max_output_size=want)


def _lzo_decompress(src, want):
    if _lzokay is None:  # pragma: no cover - a dependency of the package
        raise UnsupportedError("LZO pages need the 'lzokay' package (pip install lzokay)")
    src = bytes(src)
    # lzokay.decompress(src, n) bounds its output by n but returns all n bytes even when the
    # stream stops short (the rest zero-filled). The stream yields exactly `want` bytes iff it
    # overruns `want - 1` bytes and fits in `want`: two decodes of an uncommon codec, one buffer
    # alive at a time.
    if want:
        try:
            _lzokay.decompress(src, want - 1)
        except _lzokay.OutputOverrunError:
            pass
        else:
            raise _fail(LZO, f"decompresses to fewer than the page header's {want} bytes")
    return _lzokay.decompress(src, want)


# ------------------------------------------------------------------------------------------------
# compression


def compress(compressor, data) -> bytes:
    """Compress one page body the way TsFile stores it (format notes section 7)."""
    code = _code(compressor)
    data = bytes(data) if not isinstance(data, bytes) else data
    if code == UNCOMPRESSED:
        return data
    if code == SNAPPY:
        if _cramjam is not None:
            return bytes(_cramjam.snappy.compress_raw(data))
        import snappy  # pragma: no cover

        return snappy.compress(data)  # pragma: no cover
    if code == LZ4:
        if _cramjam is not None:
            return bytes(_cramjam.lz4.compress_block(data, store_size=False))
        import lz4.block  # pragma: no cover

        return lz4.block.compress(data, store_size=False)  # pragma: no cover
    if code == GZIP:
        # mtime=0 keeps the output deterministic (the header's time field is not read by anyone).
        return gzip.compress(data, compresslevel=6, mtime=0)
    if code == ZSTD:
        if _zstandard is not None:
            return _zstandard.ZstdCompressor(level=3).compress(data)
        return bytes(_cramjam.zstd.compress(data, level=3))  # pragma: no cover
    if code == LZMA2:
        return lzma.compress(data, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC64)
    if _lzokay is None:  # pragma: no cover - a dependency of the package
        raise UnsupportedError("LZO pages need the 'lzokay' package (pip install lzokay)")
    if not data:
        # lzokay encodes no input as 11 11 00 00, which its own decoder rejects; the LZO1X
        # end-of-stream marker alone is what liblzo stores for it.
        return b"\x11\x00\x00"
    return _lzokay.compress(data)


def available(compressor) -> bool:
    """True if this installation can both compress and decompress ``compressor``."""
    code = _code(compressor)
    if code == LZO:
        return _lzokay is not None
    if code == ZSTD:
        return _zstandard is not None
    return True


__all__ = [
    "compress",
    "decompress",
    "decompress_into",
    "check_size",
    "available",
    "SUPPORTED",
    "MAX_EXPANSION",
]
