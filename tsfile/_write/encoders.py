"""Which codec encodes which (encoding, data type) pair on the write path.

Every encoder takes the non-null values of one page (a numpy array of the type's dtype, or a list
of bytes for TEXT/STRING/BLOB) and returns the page's value bytes. The codecs are
found in the codec registry (tsfile.codecs._registry) by encoding and value type.
"""

from __future__ import annotations

import numpy as np

from tsfile.codecs import _registry
from tsfile.errors import UnsupportedError
from tsfile.types import AUTO, TSDataType, TSEncoding, encoding_or_auto

T = TSDataType
E = TSEncoding
_INTS = (T.INT32, T.INT64, T.DATE, T.TIMESTAMP)
_FLOATS = (T.FLOAT, T.DOUBLE)
_BINARY = (T.TEXT, T.STRING, T.BLOB)

# Pairs the codec registry holds that the writer refuses (the writer follows the official C++ 2.5
# support matrix, format notes 8.1, plus ALP). SPRINTZ FLOAT/DOUBLE is left out on purpose: the
# official reader returns wrong values for those pages (format notes 8.9), so a file with them
# would not read back there.
_NOT_WRITTEN = {
    E.RLE: (T.BOOLEAN, T.FLOAT, T.DOUBLE),  # FLOAT/DOUBLE RLE: Java's; C++ 2.5 cannot read it
    E.ZIGZAG: (T.DATE, T.TIMESTAMP),
    E.DICTIONARY: (T.BLOB,),
    E.SPRINTZ: (T.DATE, T.TIMESTAMP, T.FLOAT, T.DOUBLE),
}
_WRITABLE_TYPES = (T.BOOLEAN, *_INTS, *_FLOATS, *_BINARY)


def _supported():
    """Encoding -> the types the writer encodes with it: every (encoding, type) pair the codec
    registry holds, less _NOT_WRITTEN. TS_2DIFF FLOAT/DOUBLE is lossy, 2 decimals (format notes
    8.3; the writer refuses a value it would change, page_loss); ALP (TSEncoding 15, alp-format
    notes) is this library's extension: the official 2.5 package cannot read it, so it is never
    a default."""
    table = {}
    for enc in TSEncoding:
        types = tuple(
            t
            for t in _WRITABLE_TYPES
            if _registry.holds(enc, t) and t not in _NOT_WRITTEN.get(enc, ())
        )
        if types:
            table[enc] = types
    return table


SUPPORTED = _supported()

# The defaults of the official writer (format notes 14: C++ 2.5 / Python config).
DEFAULT_ENCODING = {
    T.BOOLEAN: E.PLAIN,
    T.INT32: E.TS_2DIFF,
    T.DATE: E.TS_2DIFF,
    T.INT64: E.TS_2DIFF,
    T.TIMESTAMP: E.TS_2DIFF,
    T.FLOAT: E.GORILLA,
    T.DOUBLE: E.GORILLA,
    T.TEXT: E.PLAIN,
    T.STRING: E.PLAIN,
    T.BLOB: E.PLAIN,
}

_NP = {
    T.INT32: np.dtype(np.int32),
    T.DATE: np.dtype(np.int32),
    T.INT64: np.dtype(np.int64),
    T.TIMESTAMP: np.dtype(np.int64),
    T.FLOAT: np.dtype(np.float32),
    T.DOUBLE: np.dtype(np.float64),
    T.BOOLEAN: np.dtype(np.bool_),
}


# encoding="auto" (tsfile.types.AUTO): FLOAT/DOUBLE chunks written with one of these, per chunk.
AUTO_CHOICES = (E.ALP, E.GORILLA)


def check_supported(encoding, data_type) -> None:
    encoding, data_type = encoding_or_auto(encoding), TSDataType(data_type)
    if encoding == AUTO:
        if data_type not in _FLOATS:
            raise UnsupportedError(
                f"encoding 'auto' is for FLOAT and DOUBLE columns, not {data_type.name}"
            )
        for choice in AUTO_CHOICES:
            value_encoder(choice, data_type)  # both codecs must be in this build
        return
    if data_type not in SUPPORTED.get(encoding, ()):
        raise UnsupportedError(
            f"the writer cannot encode {data_type.name} values with {encoding.name}"
        )


def _codec(encoding, data_type):
    """The codec module the registry holds for (encoding, data_type)."""
    return _registry.module_for(encoding, data_type)


def chunk_encoding(encoding, data_type, values) -> TSEncoding:
    """The encoding of one value chunk: `encoding` itself, or for AUTO the smaller of ALP and
    GORILLA on the chunk's non-null `values` (alp.choose_encoding: exact sizes up to 2048 values,
    estimated from two samples of 1024 beyond; ALP when a value is GORILLA's end marker, which
    only readers that decode by count read back). Sizes are compared before page compression. A
    chunk without values gets GORILLA, the official default."""
    if encoding != AUTO:
        return TSEncoding(encoding)
    if len(values) == 0:
        return E.GORILLA
    from tsfile.codecs import alp

    return TSEncoding(alp.choose_encoding(np.ascontiguousarray(values, dtype=_NP[data_type])))


def value_encoder(encoding, data_type):
    """The function values -> bytes that encodes one page of data_type values with encoding.
    Get one per chunk and call it on the chunk's pages in order (TS_2DIFF carries state from page
    to page)."""
    encoding, data_type = TSEncoding(encoding), TSDataType(data_type)
    check_supported(encoding, data_type)
    mod = _codec(encoding, data_type)
    if not hasattr(mod, "encode"):
        raise UnsupportedError(f"{mod.__name__} has no encoder")
    if encoding == E.PLAIN:
        return lambda values: mod.encode(values, data_type)
    if encoding == E.TS_2DIFF and data_type in _FLOATS:
        # The official writers' fixed-point form with 2 decimals (lossy, as C++/Java write it).
        return _ts2diff_chunk_encoder(mod, dtype=_NP[data_type])
    if encoding == E.TS_2DIFF:
        return _ts2diff_chunk_encoder(mod)
    if encoding == E.GORILLA:
        # Values equal to the end marker (MIN_VALUE, canonical NaN; format notes 8.4) are written
        # as the official C++ writer writes them (CHIMP's encoder always does): its reader and
        # ours decode a page by its value count and read them back. A PLAIN fallback chunk would
        # change the series' encoding between chunks, which the official reader misreads.
        dtype = _NP[data_type]
        return lambda values: mod.encode(
            np.ascontiguousarray(values, dtype=dtype), allow_end_markers=True
        )
    return _generic(mod, data_type)


def _ts2diff_chunk_encoder(mod, **kw):
    """TS_2DIFF pages of ONE chunk, encoded in order (value_encoder is called once per chunk): like
    the official encoder, carry the last block's min_delta from page to page, because a page's
    block without deltas (1 mod 129 values) repeats it (format notes 8.3, ts2diff.encode)."""
    carried = 0

    def encode(values):
        nonlocal carried
        page = mod.encode(values, prev_min_delta=carried, **kw)
        carried = mod.last_min_delta(values, prev_min_delta=carried, **kw)
        return page

    return encode


def _generic(mod, data_type):
    dtype = _NP.get(data_type)
    if dtype is None:  # binary values: a list of bytes
        return lambda values: mod.encode(values)
    return lambda values: mod.encode(np.ascontiguousarray(values, dtype=dtype))


# Encodings whose pages can decode to other values than were written (the official writer writes
# such pages silently): SPRINTZ INT32/INT64 loses a value whose prediction error is exactly
# MIN_VALUE (format notes 8.9), CAMEL stores a NaN after the page's first value as 0.0 (8.11),
# TS_2DIFF FLOAT/DOUBLE stores round(value * 100) (8.3: 3.14159 reads back as 3.14, -0.0 as 0.0).
# The writer decodes each of their pages again and refuses a page that does not round-trip.
_LOSSY = {
    E.SPRINTZ: "its SPRINTZ prediction error is exactly the type's minimum, which SPRINTZ cannot "
    "store (format notes 8.9)",
    E.CAMEL: "CAMEL stores a NaN after the first value of a page as 0.0",
    E.TS_2DIFF: "TS_2DIFF stores FLOAT/DOUBLE values as fixed-point numbers with 2 decimals "
    "(format notes 8.3)",
}
# The types each lossy encoding can lose values of (TS_2DIFF integers are exact).
_LOSSY_TYPES = {E.TS_2DIFF: _FLOATS}
# What an EncodeError for a value the encoding cannot store suggests instead.
LOSSLESS_ALTERNATIVES = {
    E.SPRINTZ: "TS_2DIFF, GORILLA or CHIMP",
    E.CAMEL: "GORILLA or CHIMP",
    E.TS_2DIFF: "GORILLA or CHIMP",
}


def page_loss(encoding, data_type):
    """None, or for an encoding that may lose values a function (values, page bytes) -> None
    when the page decodes to exactly values (bit for bit), else (index, decoded value, reason)
    of the first value it loses."""
    encoding, data_type = TSEncoding(encoding), TSDataType(data_type)
    if encoding not in _LOSSY or data_type not in _LOSSY_TYPES.get(encoding, (data_type,)):
        return None
    mod = _codec(encoding, data_type)
    dtype = _NP[data_type]
    bits = np.int32 if dtype.itemsize == 4 else np.int64

    def check(values, page):
        want = np.ascontiguousarray(values, dtype=dtype)
        got = mod.decode(page, dtype, len(want))
        bad = np.flatnonzero(got.view(bits) != want.view(bits))
        if bad.size == 0:
            return None
        i = int(bad[0])
        reason = _LOSSY[encoding]
        if encoding == E.CAMEL and not np.isnan(want[i]):
            reason = "the CAMEL encoder does not round-trip it"
        return i, got[i].item(), reason

    return check
