"""Page compression of TsFile, both directions (format notes section 7).

* ``decompress_into(compressor, src, dst) -> int``: decompress one page body into a preallocated
  writable buffer whose length is the page's ``uncompressed_size``; the result must fill it exactly.
* ``decompress(compressor, src, uncompressed_size) -> bytes``.
* ``compress(compressor, data) -> bytes``: what a writer stores for a page body.

The output size is always bounded by the caller's ``uncompressed_size`` (taken from the page header
and checked by the caller against sane limits): a hostile stream can never make these functions
allocate more than that, and a stream that decodes to a different length is a CorruptDataError.

Backends: cramjam (snappy raw, LZ4 block) with python-snappy / lz4 as fall-backs, the standard
library for GZIP and LZMA2 (xz container), ``zstandard`` or cramjam for ZSTD, and the optional
``python-lzo`` package for LZO (raw LZO1X-1).
"""

from __future__ import annotations

import gzip
import lzma
import zlib

from tsfile.errors import CorruptDataError, UnsupportedError
from tsfile.types import Compressor

try:  # cramjam ships with python-snappy; it has *_into functions that avoid a copy
    import cramjam as _cramjam
except ImportError:  # pragma: no cover - exercised only without cramjam
    _cramjam = None

try:
    import zstandard as _zstandard
except ImportError:  # pragma: no cover
    _zstandard = None

try:
    import lzo as _lzo
except ImportError:  # pragma: no cover - python-lzo is optional
    _lzo = None

UNCOMPRESSED = Compressor.UNCOMPRESSED
SNAPPY = Compressor.SNAPPY
GZIP = Compressor.GZIP
LZO = Compressor.LZO
LZ4 = Compressor.LZ4
ZSTD = Compressor.ZSTD
LZMA2 = Compressor.LZMA2

SUPPORTED = (UNCOMPRESSED, SNAPPY, GZIP, LZO, LZ4, ZSTD, LZMA2)


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
# decompression


def decompress_into(compressor, src, dst) -> int:
    """Decompress ``src`` into the writable buffer ``dst``, which must be filled exactly.

    Returns ``len(dst)`` (the number of bytes written). CorruptDataError if the stream is invalid or
    decodes to another size; UnsupportedError for an unknown compressor or a missing optional
    backend (LZO).
    """
    code = _code(compressor)
    out = memoryview(dst).cast("B")
    want = out.nbytes
    if code == UNCOMPRESSED:
        src_view = memoryview(src).cast("B")
        _check_len(code, src_view.nbytes, want)
        out[:] = src_view
        return want
    if want == 0:
        # An empty body: accept any stream that decodes to nothing.
        if len(decompress(code, src, 0)) != 0:  # pragma: no cover - decompress raises first
            raise _fail(code, "non-empty data for an empty page")
        return 0
    if code == SNAPPY and _cramjam is not None:
        try:
            n = _cramjam.snappy.decompress_raw_into(src, out)
        except Exception as exc:  # cramjam raises its own DecompressionError
            raise _fail(code, str(exc)) from None
        return _check_len(code, n, want)
    if code == LZ4 and _cramjam is not None:
        try:
            n = _cramjam.lz4.decompress_block_into(src, out, output_len=want)
        except Exception as exc:
            raise _fail(code, str(exc)) from None
        return _check_len(code, n, want)
    data = decompress(code, src, want)
    out[:] = data
    return want


def decompress(compressor, src, uncompressed_size) -> bytes:
    """Decompress one page body whose decompressed size is ``uncompressed_size``."""
    code = _code(compressor)
    want = int(uncompressed_size)
    if want < 0:
        raise _fail(code, f"negative uncompressed size {want}")
    src = bytes(src) if not isinstance(src, (bytes, bytearray)) else src
    if code == UNCOMPRESSED:
        _check_len(code, len(src), want)
        return bytes(src)
    try:
        if code == SNAPPY:
            data = _snappy_decompress(src, want)
        elif code == LZ4:
            data = _lz4_decompress(src, want)
        elif code == GZIP:
            data = _bounded_zlib(src, want)
        elif code == ZSTD:
            data = _zstd_decompress(src, want)
        elif code == LZMA2:
            data = _xz_decompress(src, want)
        else:  # LZO
            data = _lzo_decompress(src, want)
    except (CorruptDataError, UnsupportedError):
        raise
    except Exception as exc:  # every backend has its own error classes
        raise _fail(code, f"{type(exc).__name__}: {exc}") from None
    _check_len(code, len(data), want)
    return bytes(data)


def _snappy_decompress(src, want):
    # The raw block starts with the uvarint of its length: check it before any allocation.
    n, shift, pos = 0, 0, 0
    while True:
        if pos >= len(src) or pos >= 5:
            raise _fail(SNAPPY, "bad length prefix")
        b = src[pos]
        n |= (b & 0x7F) << shift
        pos += 1
        if not b & 0x80:
            break
        shift += 7
    _check_len(SNAPPY, n, want)
    if _cramjam is not None:
        return bytes(_cramjam.snappy.decompress_raw(src))
    import snappy  # pragma: no cover

    return snappy.uncompress(src)  # pragma: no cover


def _lz4_decompress(src, want):
    if _cramjam is not None:
        out = bytearray(want)
        n = _cramjam.lz4.decompress_block_into(src, out, output_len=want)
        _check_len(LZ4, n, want)
        return out
    import lz4.block  # pragma: no cover

    return lz4.block.decompress(src, uncompressed_size=want)  # pragma: no cover


def _bounded_zlib(src, want):
    # wbits 16+15: a gzip member. max_length bounds the output; anything beyond is an error.
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    data = d.decompress(src, want + 1)
    if len(data) > want:
        raise _fail(GZIP, f"decompresses to more than the page header's {want} bytes")
    if not d.eof:
        raise _fail(GZIP, "truncated stream")
    return data


def _zstd_decompress(src, want):
    if _zstandard is not None:
        d = _zstandard.ZstdDecompressor().decompressobj()
        # decompressobj has no output bound; stream in pieces and stop as soon as it exceeds `want`.
        out = bytearray()
        step = 1 << 16
        for i in range(0, max(len(src), 1), step):
            out += d.decompress(src[i : i + step])
            if len(out) > want:
                raise _fail(ZSTD, f"decompresses to more than the page header's {want} bytes")
        if not d.eof:
            raise _fail(ZSTD, "truncated frame")
        return out
    out = bytearray(want)  # pragma: no cover
    n = _cramjam.zstd.decompress_into(src, out)  # pragma: no cover
    return out[:n]  # pragma: no cover


def _xz_decompress(src, want):
    d = lzma.LZMADecompressor(format=lzma.FORMAT_XZ)
    data = d.decompress(src, max_length=want + 1)
    if len(data) > want:
        raise _fail(LZMA2, f"decompresses to more than the page header's {want} bytes")
    if not d.eof:
        raise _fail(LZMA2, "truncated .xz stream")
    return data


def _lzo_decompress(src, want):
    if _lzo is None:
        raise UnsupportedError(
            "LZO pages need the optional 'python-lzo' package (pip install python-lzo)"
        )
    # header=False: the raw LZO1X stream of TsFile; buflen bounds the output.
    return _lzo.decompress(bytes(src), False, want)


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
    if _lzo is None:
        raise UnsupportedError(
            "LZO pages need the optional 'python-lzo' package (pip install python-lzo)"
        )
    return _lzo.compress(data, 1, False)


def available(compressor) -> bool:
    """True if this installation can both compress and decompress ``compressor``."""
    code = _code(compressor)
    return code != LZO or _lzo is not None


__all__ = ["compress", "decompress", "decompress_into", "available", "SUPPORTED"]
