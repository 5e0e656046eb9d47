# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""DICTIONARY encoding (format notes 8.7) for TEXT/STRING (BLOB works the same way).

Layout: ``svarint entry_count``, the entries as varstr (svarint length + bytes, in order of first
appearance), then INT32 RLE block(s) (format notes 8.5, decoded by :mod:`tsfile.codecs.rle`) with
one entry index per value. Values decode to an object array of ``bytes`` (the reader turns
TEXT/STRING into ``str``); every value refers to its entry's bytes object, nothing is copied.

The encoder writes what the C++ 2.5 writer writes: entries in order of first appearance, then one
bit-packed RLE block whose width is the bit length of the largest index, at least 1 (checked
against the official writer's page for a one-entry dictionary: width 1; the official reader
crashes on width 0). Decoding accepts width 0.

Paths: ``per_value`` (:class:`DictionaryDecoder`: the index stream is read one value per C-level
call) and ``batch`` (the RLE batch kernel, then one gather); no SIMD path.
"""
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize
from cpython.dict cimport PyDict_GetItem
from cpython.object cimport PyObject
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy
from cpython.pyport cimport PY_SSIZE_T_MAX

import numpy as np

from tsfile.codecs._common cimport PATH_PER_VALUE, as_byte_view, check_count, resolve_path
from tsfile.codecs._kinds cimport (
    KIND_BIN,
    KIND_I32,
    as_binary_list,
    binary_items,
    check_kind_in,
    kind_name,
    kind_of_out,
    raise_kernel_error,
    raise_kernel_error_nogil,
    resolve_kind,
    uvarint_len,
    write_uvarint,
)
from tsfile.codecs.rle cimport (
    RleDecoder,
    rle_count_c,
    rle_decode_i32_c,
    rle_encode_bound,
    rle_encode_i32_width_c,
)

from tsfile.codecs.rle import MAX_IMPLICIT_VALUES
from tsfile.errors import CorruptDataError, EncodeError
from tsfile.types import TSDataType

HAS_SIMD = False

# Headers included by the kernel headers, named so that cythonize rebuilds this module when
# they change.
cdef extern from "varint_scalar.h":
    pass
cdef extern from "rle_scalar.h" nogil:
    ptrdiff_t rle_count_scalar(const uint8_t *src, size_t n, int is64, uint64_t limit,
                               uint64_t *total, size_t *err_at)
    ptrdiff_t rle_skip_scalar(const uint8_t *src, size_t n, int is64, uint64_t k, size_t *err_at)

# the index stream's row ranges (runs before a range passed by their headers)
cdef extern from "rle_skip.h" nogil:
    ptrdiff_t rle_rows_i32_scalar(const uint8_t *src, size_t n, void *more, size_t start,
                                  size_t stop, int32_t *out, size_t *err_at)

cdef extern from "plain_scalar.h" nogil:
    enum:
        TSC_ERR_TRUNCATED
        TSC_ERR_COUNT
        TSC_ERR_NEG_LENGTH
    int plain_next_binary(const uint8_t *p, size_t n, size_t *pos, size_t *start, size_t *length)
    int tsc_read_svarint32(const uint8_t *p, size_t n, size_t *pos, int32_t *out)


cdef inline int _check_kind(int kind) except -1:
    return check_kind_in(kind, 1 << KIND_BIN, "DICTIONARY", "TEXT/STRING/BLOB")


cdef int _check_out(int kind) except -1:
    if kind != KIND_BIN:
        raise TypeError(f"DICTIONARY: out must be an object array, not {kind_name(kind)} values")
    return 0


cdef object _read_entries(const uint8_t *src, size_t n, size_t *pos):
    """The dictionary: an object array of bytes; *pos moves past it."""
    cdef int32_t cnt = 0
    cdef size_t p = 0, s = 0, ln = 0
    cdef int e = tsc_read_svarint32(src, n, &p, &cnt)
    if e:
        raise_kernel_error(e, p, n, "DICTIONARY entry count")
    if cnt < 0 or <size_t>cnt > n - p:  # every entry takes at least its length byte
        raise_kernel_error(TSC_ERR_COUNT, 0, n, f"DICTIONARY entry count {cnt}")
    entries = np.empty(cnt, dtype=object)
    cdef object[::1] o = entries
    cdef int32_t i
    for i in range(cnt):
        e = plain_next_binary(src, n, &p, &s, &ln)
        if e:
            raise_kernel_error(e, p, n, f"DICTIONARY entry {i}")
        o[i] = PyBytes_FromStringAndSize(<const char *>src + s, ln)
    pos[0] = p
    return entries


cdef int _bad_index(object indices, Py_ssize_t nentries, size_t base, size_t n,
                    Py_ssize_t first=0) except -1:
    # indices: of values first, first + 1, ...
    idx = np.asarray(indices)
    bad = int(np.flatnonzero((idx < 0) | (idx >= nentries))[0])
    raise CorruptDataError(
        f"DICTIONARY: value {first + bad} has index {int(idx[bad])} outside the {nentries}-entry "
        f"dictionary (indices start at byte offset {base} of {n})"
    )


cdef object _as_str(object entries):
    """The entries as str, each decoded once however many values use it. Invalid UTF-8 is
    CorruptDataError naming the entry (the reader's text policy: bad text is never replaced or
    kept as surrogates; the reader adds the page's file offset)."""
    out = np.empty(len(entries), dtype=object)
    cdef object[::1] o = out
    cdef Py_ssize_t i = 0
    try:
        for i in range(len(entries)):
            o[i] = (<bytes>entries[i]).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CorruptDataError(
            f"DICTIONARY entry {i} is not valid UTF-8 ({exc.reason} at byte {exc.start} of "
            "the entry)"
        ) from None
    return out


cdef Py_ssize_t _decode(const unsigned char[::1] buf, Py_ssize_t count, int path,
                        list result, bint strings=False) except -1:
    """Decode into result = [entries, indices, values]; count < 0: every index block."""
    cdef Py_ssize_t n = buf.shape[0]
    cdef const uint8_t *src = &buf[0] if n else NULL
    cdef size_t pos = 0
    entries = _read_entries(src, <size_t>n, &pos)
    if strings:
        entries = _as_str(entries)
    cdef Py_ssize_t nentries = len(entries)
    cdef const uint8_t *isrc = src + pos
    cdef Py_ssize_t rest = n - <Py_ssize_t>pos
    cdef Py_ssize_t used = 0, i
    cdef Py_ssize_t limit = MAX_IMPLICIT_VALUES + 8 * rest
    cdef Py_ssize_t total
    if count < 0:
        with nogil:
            count = rle_count_c(isrc, rest, False, limit)
    elif count > 8 * rest:
        # check a large count against the index runs before allocating for it
        with nogil:
            total = rle_count_c(isrc, rest, False, PY_SSIZE_T_MAX)
        if total < count:
            raise CorruptDataError(
                f"DICTIONARY: data hold {total} values, fewer than the {count} asked for "
                f"(data truncated at byte offset {n})"
            )
    indices = np.empty(count, dtype=np.int32)
    cdef int32_t[::1] ix = indices
    cdef object[::1] ent = entries
    cdef object[::1] ov
    cdef uint64_t v = 0
    cdef int got
    values = None
    cdef RleDecoder dec
    cdef int32_t j
    if path == PATH_PER_VALUE:
        # the streaming index decoder, one value per C-level call, each value looked up at once
        dec = RleDecoder.__new__(RleDecoder)
        dec._setup(buf[pos:], KIND_I32)
        values = np.empty(count, dtype=object)
        ov = values
        for i in range(count):
            got = dec.next_u64(&v)
            if not got:
                raise_kernel_error(TSC_ERR_TRUNCATED, n, n, "DICTIONARY indices")
            j = <int32_t>(<uint32_t>v)
            ix[i] = j
            if j < 0 or j >= nentries:
                _bad_index(indices[: i + 1], nentries, pos, n)
            ov[i] = ent[j]
        used = <Py_ssize_t>pos + (<Py_ssize_t>dec._s.block_end if count else 0)
    elif count:
        with nogil:
            used = rle_decode_i32_c(isrc, rest, &ix[0], count)
        used += <Py_ssize_t>pos
        if nentries == 0 or indices.min() < 0 or indices.max() >= nentries:
            _bad_index(indices, nentries, pos, n)
        values = entries.take(indices)
    else:
        used = <Py_ssize_t>pos
        values = np.empty(0, dtype=object)
    result.extend((entries, indices, values))
    return used


cdef Py_ssize_t _decode_ctx(const unsigned char[::1] buf, Py_ssize_t count, int path,
                            list result, bint strings=False) except -1:
    # RLE errors name offsets inside the index bytes; say where those start in the whole buffer.
    try:
        return _decode(buf, count, path, result, strings)
    except CorruptDataError as e:
        if str(e).startswith("RLE"):
            base = _indices_at(&buf[0], buf.shape[0])
            raise CorruptDataError(
                f"DICTIONARY indices (offsets from byte {base} of {buf.shape[0]}): {e}"
            ) from None
        raise


cdef Py_ssize_t dictionary_decode_into_c(const uint8_t *src, Py_ssize_t n, object out,
                                         bint strings=False) except -1:
    cdef list res = []
    cdef const unsigned char[::1] view = <const unsigned char[:n]>src if n else b""
    cdef Py_ssize_t used = _decode_ctx(view, len(out), 1, res, strings)
    out[:] = res[2]
    return used


def decode(data, dtype=TSDataType.TEXT, count=None, path="auto", strings=False):
    """Decode DICTIONARY values into an object array of ``bytes`` (``strings=True``: of ``str``,
    each entry decoded from UTF-8 once; an entry that is not valid UTF-8 is CorruptDataError)."""
    _check_kind(resolve_kind(dtype))
    cdef int p = resolve_path(path, False, "DICTIONARY")
    cdef const unsigned char[::1] buf = as_byte_view(data)
    cdef Py_ssize_t c = check_count(count)
    cdef Py_ssize_t n = buf.shape[0]
    cdef list res = []
    _decode_ctx(buf, c, p, res, strings)
    return res[2]


def decode_indices(data, count=None):
    """Decode without building the values: ``(entries, indices)``, an object array of the
    dictionary's ``bytes`` and an int32 array of indices into it (e.g. for a categorical)."""
    cdef const unsigned char[::1] buf = as_byte_view(data)
    cdef Py_ssize_t c = check_count(count)
    cdef Py_ssize_t n = buf.shape[0]
    cdef list res = []
    _decode_ctx(buf, c, 1, res)
    return res[0], res[1]


def decode_into(data, out, path="auto", strings=False):
    """Decode exactly ``len(out)`` values into the object array ``out``; return bytes consumed.
    ``strings``: as in :func:`decode`."""
    _check_out(kind_of_out(out))
    cdef int p = resolve_path(path, False, "DICTIONARY")
    cdef const unsigned char[::1] buf = as_byte_view(data)
    cdef Py_ssize_t n = buf.shape[0]
    cdef list res = []
    cdef Py_ssize_t used = _decode_ctx(buf, len(out), p, res, strings)
    out[:] = res[2]
    return used


cdef bytes _encode_list(list items):
    cdef dict index = {}
    cdef list entries = []
    indices = np.empty(len(items), dtype=np.int32)
    cdef int32_t[::1] ix = indices
    cdef Py_ssize_t i = 0, count = len(items), total = 0, k = 0, ln
    cdef bytes b
    cdef PyObject *found
    for b in items:
        found = PyDict_GetItem(index, b)  # borrowed; NULL if absent (bytes hash cannot fail)
        if found is NULL:
            j = len(entries)
            index[b] = j
            entries.append(b)
            ix[i] = j
        else:
            ix[i] = <int32_t>(<object>found)
        i += 1
    cdef Py_ssize_t nent = len(entries)
    if nent > 0x7FFFFFFF:
        raise EncodeError("DICTIONARY: too many entries")
    total = uvarint_len((<uint32_t>nent) << 1)
    for b in entries:
        ln = len(b)
        if ln > 0x7FFFFFFF:
            raise EncodeError("DICTIONARY: an entry is longer than 2**31 - 1 bytes")
        total += uvarint_len((<uint32_t>ln) << 1) + ln
    # the indices' RLE block: width = bit length of the largest index, at least 1 (a one-entry
    # dictionary gets width 1, as the official writer writes it; its reader crashes on width 0)
    cdef int width = 1
    cdef uint32_t top = <uint32_t>(nent - 1) if nent > 1 else 0
    while top >> width:
        width += 1
    cdef Py_ssize_t bound = rle_encode_bound(count) if count else 4
    res = PyBytes_FromStringAndSize(NULL, total + bound)
    cdef uint8_t *dst = <uint8_t *>PyBytes_AS_STRING(res)
    k = write_uvarint(dst, (<uint32_t>nent) << 1)
    for b in entries:
        ln = len(b)
        k += write_uvarint(dst + k, (<uint32_t>ln) << 1)
        memcpy(dst + k, PyBytes_AS_STRING(b), ln)
        k += ln
    if count:
        k += rle_encode_i32_width_c(&ix[0], count, width, dst + k)
    else:
        # no values: the C++ writer still emits its bit-packing block, an empty run
        dst[k] = 3
        dst[k + 1] = 0
        dst[k + 2] = 1
        dst[k + 3] = 8
        k += 4
    return res[:k]


def encode(values, dtype=TSDataType.TEXT):
    """Encode TEXT/STRING/BLOB values (bytes or str; str as UTF-8) with DICTIONARY."""
    _check_kind(resolve_kind(dtype))
    return _encode_list(binary_items(values))


cdef class DictionaryDecoder:
    """Streaming DICTIONARY decoder: ``has_next()`` / ``next()`` -> ``bytes``. The dictionary is
    read when the decoder is made (``entries``); the indices are read one at a time."""

    cdef readonly object entries
    cdef object _indices
    cdef Py_ssize_t _nent

    def __init__(self, data, dtype=TSDataType.TEXT):
        _check_kind(resolve_kind(dtype))
        cdef const unsigned char[::1] buf = as_byte_view(data)
        cdef Py_ssize_t n = buf.shape[0]
        cdef size_t pos = 0
        self.entries = _read_entries(&buf[0] if n else NULL, <size_t>n, &pos)
        self._nent = len(self.entries)
        self._indices = RleDecoder(bytes(buf[pos:]), TSDataType.INT32)

    def has_next(self):
        return self._indices.has_next()

    def next(self):
        j = self._indices.next()
        if j < 0 or j >= self._nent:
            raise CorruptDataError(
                f"DICTIONARY: index {j} outside the {self._nent}-entry dictionary"
            )
        return self.entries[j]

    def __iter__(self):
        return self

    def __next__(self):
        return self.next()


class DictionaryEncoder:
    """Streaming DICTIONARY encoder: ``encode(value)`` then ``flush()`` -> bytes of the page."""

    def __init__(self, dtype=TSDataType.TEXT):
        _check_kind(resolve_kind(dtype))
        self._values = []

    def encode(self, value):
        self._values.extend(as_binary_list([value]))

    def flush(self):
        values, self._values = self._values, []
        return _encode_list(values)


__all__ = [
    "HAS_SIMD",
    "decode",
    "decode_indices",
    "decode_into",
    "encode",
    "DictionaryDecoder",
    "DictionaryEncoder",
]


# ---- the codec contract (tsfile/codecs/_contract.pxd) -------------------------------------------

from tsfile.codecs._contract cimport (
    ROW_BATCH,
    ROW_PER_VALUE,
    ROW_SIMD,
    codec_row,
    codec_table,
    make_row,
    publish_rows,
    with_object_rows,
)



cdef Py_ssize_t _row_objects(const uint8_t *src, Py_ssize_t n, object out, Py_ssize_t at,
                             Py_ssize_t count, int path, bint text, str type_name) except -1:
    # entries decoded once (str for TEXT/STRING), shared by the values that use them
    cdef list res = []
    cdef const unsigned char[::1] view = <const unsigned char[:n]>src if n else b""
    cdef Py_ssize_t used = _decode_ctx(view, count, path, res, text)
    out[at:at + count] = res[2]
    return used


cdef Py_ssize_t _row_objects_rows(const uint8_t *src, Py_ssize_t n, Py_ssize_t start,
                                  Py_ssize_t stop, object out, Py_ssize_t at, int path,
                                  bint text, str type_name) except -1:
    # the entries read (each decoded once), the index stream's runs before `start` passed by
    # their headers and indices start..stop-1 unpacked (include/rle_skip.h): values before the
    # range are neither unpacked nor looked up
    cdef size_t pos = 0, err_at = 0
    cdef ptrdiff_t r
    cdef Py_ssize_t count = stop - start
    if count <= 0:
        return 0
    entries = _read_entries(src, <size_t>n, &pos)
    if text:
        entries = _as_str(entries)
    indices = np.empty(count, dtype=np.int32)
    cdef int32_t[::1] ix = indices
    with nogil:
        r = rle_rows_i32_scalar(src + pos, <size_t>n - pos, NULL, <size_t>start, <size_t>stop,
                                &ix[0], &err_at)
    if r < 0:
        raise_kernel_error(<int>-r, pos + err_at, <size_t>n, "DICTIONARY indices")
    if len(entries) == 0 or indices.min() < 0 or indices.max() >= len(entries):
        _bad_index(indices, len(entries), pos, <size_t>n, start)
    out[at:at + count] = entries.take(indices)
    return count


cdef enum:
    _MAX_IMPLICIT = 1 << 22  # rle.MAX_IMPLICIT_VALUES, as a C constant


cdef size_t _indices_at(const uint8_t *src, Py_ssize_t n) except? 0 nogil:
    """Offset of the index stream: the dictionary's entries walked by their length prefixes,
    checked as _read_entries checks them, without building them."""
    cdef int32_t cnt = 0, i
    cdef size_t p = 0, s = 0, ln = 0
    cdef int e = tsc_read_svarint32(src, <size_t>n, &p, &cnt)
    if e:
        raise_kernel_error_nogil(e, p, <size_t>n, "DICTIONARY entry count")
    if cnt < 0 or <size_t>cnt > <size_t>n - p:
        raise_kernel_error_nogil(TSC_ERR_COUNT, 0, <size_t>n, "DICTIONARY entry count")
    for i in range(cnt):
        e = plain_next_binary(src, <size_t>n, &p, &s, &ln)
        if e:
            raise_kernel_error_nogil(e, p, <size_t>n, "DICTIONARY entry")
    return p


cdef Py_ssize_t _row_count(const uint8_t *src, Py_ssize_t n, int kind) except -2 nogil:
    # the index stream's RLE headers, bounded as decode(count=None) is (a short run can claim
    # 2^31 values)
    cdef size_t base = _indices_at(src, n), at = 0
    cdef uint64_t total = 0
    cdef ptrdiff_t r = rle_count_scalar(src + base, <size_t>n - base, 0,
                                        _MAX_IMPLICIT + 8 * (<uint64_t>n - base), &total, &at)
    if r < 0:
        raise_kernel_error_nogil(<int>-r, base + at, <size_t>n, "DICTIONARY indices")
    return <Py_ssize_t>total


cdef Py_ssize_t _row_skip(const uint8_t *src, Py_ssize_t n, Py_ssize_t k,
                          int kind) except -1 nogil:
    # the entries by their length prefixes, then the index stream by its RLE run headers: no
    # entry is built and no index unpacked
    cdef size_t base = _indices_at(src, n), at = 0
    cdef ptrdiff_t r = rle_skip_scalar(src + base, <size_t>n - base, 0, <uint64_t>k, &at)
    if r < 0:
        raise_kernel_error_nogil(<int>-r, base + at, <size_t>n, "DICTIONARY indices")
    return k


cdef codec_row _ROWS[1]
cdef codec_table _TABLE
_ROWS[0] = with_object_rows(
    make_row(1, KIND_BIN, b"dictionary", b"DICTIONARY", ROW_PER_VALUE | ROW_BATCH,
             _row_count, NULL, _row_objects, _row_skip, NULL, NULL),
    _row_objects_rows)
CODEC_ROWS = publish_rows(&_TABLE, _ROWS, 1)
