# cython: language_level=3
"""The one codec registry: every codec module's contract rows (tsfile/codecs/_contract.pxd), found
by encoding code and value kind. The reader's engine, the writer (tsfile._write.encoders) and the
Python functions decode()/encode() below all look codecs up here; nothing else keeps a table of
codecs.

Adding a codec: write its kernels (include/<name>_scalar.h), its module tsfile/codecs/<name>.pyx
(which fills a codec_table and exports it as CODEC_ROWS, see _contract.pxd), and add its module
name to CODEC_MODULES below (CONTRIBUTING.md, "Adding a codec").
"""
from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_IsValid
from libc.stdlib cimport free, malloc
from libc.string cimport memset

import importlib

import numpy as np

cimport numpy as cnp

from tsfile._format.codes cimport (
    E_DICTIONARY, E_RLE, T_BLOB, T_BOOLEAN, T_DATE, T_DOUBLE, T_FLOAT, T_INT32, T_INT64, T_STRING,
    T_TEXT, T_TIMESTAMP, T_VECTOR,
)
from tsfile.codecs._common cimport PATH_BATCH, PATH_PER_VALUE, PATH_SIMD, as_byte_view, check_count, resolve_path
from tsfile.codecs._contract cimport (
    ROW_BATCH,
    ROW_PER_VALUE,
    ROW_SIMD,
    check_skip,
    codec_row,
    codec_table,
)
from tsfile.codecs._kinds cimport (
    KIND_BIN,
    KIND_BOOL,
    KIND_F32,
    KIND_F64,
    KIND_I32,
    KIND_I64,
    as_binary_list,
    as_values,
    infer_kind,
    kind_dtype,
    kind_name,
    resolve_kind,
)

from tsfile.errors import CorruptDataError, UnsupportedError
from tsfile.types import TSDataType, TSEncoding

cnp.import_array()

# The codec modules under tsfile.codecs, one line each: the registry's only list of codecs.
CODEC_MODULES = (
    "plain",
    "dictionary",
    "rle",
    "ts2diff",
    "ts2diff_float",
    "rle_float",
    "gorilla",
    "zigzag",
    "chimp",
    "sprintz",
    "rlbe",
    "camel",
    "alp",
)

DEF MAX_ENCODING = 64
DEF N_KINDS = 6

cdef const codec_row *_by_encoding[MAX_ENCODING][N_KINDS]
cdef codec_row *_rows[MAX_CODECS * N_KINDS]
cdef Py_ssize_t _n_rows = 0
cdef Py_ssize_t _n_codecs_c = 0
cdef list _names = []        # module name by codec_id
cdef dict _modules = {}      # module name -> module
cdef dict _missing = {}      # module name -> why it did not import (reported when needed)
# by KIND_*, from the one kind table (_kinds): bytes per value (0: objects) and a short name
_WIDTH_PY = tuple(0 if k == KIND_BIN else kind_dtype(k).itemsize for k in range(N_KINDS))
cdef int _WIDTH[N_KINDS]
_WIDTH[:] = list(_WIDTH_PY)
_KIND_NAMES = tuple("binary" if k == KIND_BIN else kind_dtype(k).name for k in range(N_KINDS))
PATH_FLAGS = {"per_value": ROW_PER_VALUE, "batch": ROW_BATCH, "simd": ROW_SIMD}


cdef int _register(str name, object mod) except -1:
    cdef codec_table *table
    cdef codec_row *row
    cdef Py_ssize_t i
    global _n_rows, _n_codecs_c
    cap = getattr(mod, "CODEC_ROWS", None)
    if cap is None or not PyCapsule_IsValid(cap, b"tsfile.codec_rows"):
        raise ImportError(f"tsfile.codecs.{name} exports no CODEC_ROWS capsule")
    table = <codec_table *>PyCapsule_GetPointer(cap, b"tsfile.codec_rows")
    codec_id = len(_names)
    if codec_id >= MAX_CODECS:  # the engine's per-codec counters have MAX_CODECS slots
        raise ImportError(f"tsfile.codecs.{name}: more than {MAX_CODECS} codec modules")
    _names.append(name)
    _modules[name] = mod
    for i in range(table.n):
        row = &table.rows[i]
        if not (0 <= row.encoding < MAX_ENCODING and 0 <= row.kind < N_KINDS):
            raise ImportError(f"tsfile.codecs.{name}: row {i} has encoding {row.encoding} "
                              f"kind {row.kind} outside the registry")
        if _by_encoding[row.encoding][row.kind] != NULL:
            raise ImportError(f"tsfile.codecs.{name}: encoding {row.encoding} kind "
                              f"{_KIND_NAMES[row.kind]} is registered twice")
        row.codec_id = codec_id
        _by_encoding[row.encoding][row.kind] = row
        _rows[_n_rows] = row
        _n_rows += 1
    _n_codecs_c = len(_names)
    return 0


def _load():
    for name in CODEC_MODULES:
        try:
            mod = importlib.import_module("tsfile.codecs." + name)
        except ImportError as exc:  # reported by name when a page or a writer needs it
            _missing[name] = str(exc)
            continue
        _register(name, mod)


_load()


# ---- C level (see _registry.pxd) ----------------------------------------------------------------

cdef const codec_row *find_row(int enc, int kind) noexcept nogil:
    if enc < 0 or enc >= MAX_ENCODING or kind < 0 or kind >= N_KINDS:
        return NULL
    return _by_encoding[enc][kind]


cdef int kind_of_type(int data_type) noexcept nogil:
    if data_type == T_BOOLEAN:
        return KIND_BOOL
    if data_type == T_INT32 or data_type == T_DATE:
        return KIND_I32
    if data_type == T_INT64 or data_type == T_TIMESTAMP or data_type == T_VECTOR:  # VECTOR: time
        return KIND_I64
    if data_type == T_FLOAT:
        return KIND_F32
    if data_type == T_DOUBLE:
        return KIND_F64
    if data_type == T_TEXT or data_type == T_BLOB or data_type == T_STRING:
        return KIND_BIN
    return -1


cdef int n_codecs() noexcept nogil:
    return <int>_n_codecs_c


cdef str codec_name(int codec_id):
    return _names[codec_id]


cdef int _check_skip_count(const codec_row *row, const uint8_t *src, Py_ssize_t n,
                           Py_ssize_t k) except -1:
    """CorruptDataError unless the page src[0:n] can hold k values: its exact count where the row
    has one; else at least one bit per value (GORILLA, CHIMP, CAMEL and the other bit streams;
    PLAIN text takes 4 bytes per value), except RLE and DICTIONARY, whose runs repeat a value
    any number of times, which are bounded only by memory (2^31 values)."""
    cdef Py_ssize_t avail
    cdef Py_ssize_t cap = (1 << 31)
    if row.count != NULL:
        with nogil:
            avail = row.count(src, n, row.kind)
        return check_skip(avail, k, row.label)
    if row.encoding != E_DICTIONARY and row.encoding != E_RLE:
        cap = min(cap, n * 8)
    if k > cap:
        raise CorruptDataError(
            f"{row.label.decode()}: cannot skip {k} values, a page of {n} bytes holds at most "
            f"{cap}")
    return 0


cdef Py_ssize_t skip_values(const codec_row *row, const uint8_t *src, Py_ssize_t n,
                            Py_ssize_t k) except -1:
    cdef void *scratch
    cdef Py_ssize_t r
    if k <= 0:
        return 0
    if row.skip != NULL:
        with nogil:
            r = row.skip(src, n, k, row.kind)
        return r
    if row.decode_into == NULL:
        raise UnsupportedError(f"{row.label.decode()}: no skip for {_KIND_NAMES[row.kind]} values")
    # No skip of its own: decode into scratch. k may come from a file, so it is checked against
    # what the page can hold before anything is allocated (and k * width cannot overflow).
    _check_skip_count(row, src, n, k)
    scratch = malloc(<size_t>k * _WIDTH[row.kind] + 8)
    if scratch == NULL:
        raise MemoryError()
    try:
        with nogil:
            row.decode_into(src, n, scratch, k, row.kind, PATH_BATCH)
    finally:
        free(scratch)
    return k



# ---- Python level ---------------------------------------------------------------------------------


def encoding_name(int enc):
    """The encoding's name ("TS_2DIFF"), or its code as text for a code no TsFile names."""
    try:
        return TSEncoding(enc).name
    except ValueError:
        return str(enc)


def kind_of(data_type):
    """KIND_* (0..5) of a TSDataType or its code; -1 for none (VECTOR: a time chunk, int64)."""
    return kind_of_type(int(data_type))


def known_encoding(int enc):
    """Whether some codec of this build holds encoding ``enc`` (for any value kind)."""
    cdef int k
    return any(find_row(enc, k) != NULL for k in range(N_KINDS))


def encoding_fits(int enc, data_type):
    """Whether encoding ``enc`` holds values of ``data_type`` (a TSDataType or its code; VECTOR, a
    time chunk's type, holds int64 timestamps). An encoding no codec here holds passes: it fails
    when a page needs it, by name."""
    cdef int kind = kind_of_type(int(data_type))
    if not known_encoding(enc):
        return True
    return kind >= 0 and find_row(enc, kind) != NULL


def holds(int enc, data_type):
    """Whether a codec of this build holds encoding ``enc`` for ``data_type`` (TSDataType or code)."""
    cdef int kind = kind_of_type(int(data_type))
    return kind >= 0 and find_row(enc, kind) != NULL


class RowInfo(tuple):
    """One contract row, described for tests and tools."""

    __slots__ = ()
    _fields = ("encoding", "kind", "module", "label", "paths", "has_count", "has_skip",
               "has_encoder")

    def __new__(cls, *args):
        return tuple.__new__(cls, args)

    def __getattr__(self, name):
        try:
            return self[RowInfo._fields.index(name)]
        except ValueError:
            raise AttributeError(name) from None

    def __repr__(self):
        return f"{self.label}/{self.kind}"

    @property
    def dtype(self):
        """The numpy dtype of the row's values."""
        return kind_dtype(_KIND_NAMES.index(self.kind))


cdef object _info(const codec_row *r):
    return RowInfo(
        r.encoding, _KIND_NAMES[r.kind], r.module.decode(), r.label.decode(),
        tuple(p for p, bit in PATH_FLAGS.items() if r.paths & bit),
        r.count != NULL, r.skip != NULL, r.encode_into != NULL,
    )


def rows():
    """Every contract row of this build, in registry order."""
    cdef Py_ssize_t i
    return [_info(_rows[i]) for i in range(_n_rows)]


def missing():
    """{module name: import error} for codec modules that did not load."""
    return dict(_missing)


cdef const codec_row *_row(int enc, int kind) except NULL:
    cdef const codec_row *r = find_row(enc, kind)
    if r != NULL:
        return r
    name = encoding_name(enc)
    if not known_encoding(enc):
        gone = f" (modules that did not load: {_missing})" if _missing else ""
        raise UnsupportedError(f"encoding {name} ({enc}) is not supported in this build{gone}")
    raise UnsupportedError(f"{name} does not hold {_KIND_NAMES[kind]} values")


def module_for(int enc, data_type):
    """The codec module that holds encoding ``enc`` for ``data_type`` (UnsupportedError: none)."""
    cdef int kind = kind_of_type(int(data_type))
    if kind < 0:
        raise UnsupportedError(f"data type {data_type!r} has no values to encode")
    return _modules[_row(enc, kind).module.decode()]


def module_of(int enc, dtype):
    """The same for a numpy dtype-like or TSDataType (the dtype argument of decode())."""
    return _modules[_row(enc, resolve_kind(dtype)).module.decode()]


def count(int enc, data, dtype):
    """The number of values in a page, or None when the codec cannot tell without decoding."""
    cdef const codec_row *r = _row(enc, resolve_kind(dtype))
    cdef const unsigned char[::1] buf = as_byte_view(data)
    cdef Py_ssize_t c
    if r.count == NULL:
        return None
    with nogil:
        c = r.count(&buf[0] if buf.shape[0] else <const unsigned char *>b"", buf.shape[0], r.kind)
    return None if c < 0 else c


def skip(int enc, data, dtype, k):
    """Advance over the first ``k`` values of a page without returning them (CorruptDataError when
    it holds fewer); returns ``k``."""
    cdef const codec_row *r = _row(enc, resolve_kind(dtype))
    cdef const unsigned char[::1] buf = as_byte_view(data)
    cdef Py_ssize_t want = check_count(k)
    if want < 0:
        raise TypeError("k must be an int")
    return skip_values(r, &buf[0] if buf.shape[0] else <const unsigned char *>b"",
                       buf.shape[0], want)


def decode(int enc, data, dtype, count=None, path="auto"):
    """Decode a page of encoding ``enc`` into ``dtype`` values: the codec module's decode()."""
    return module_of(enc, dtype).decode(data, dtype, count=count, path=path)


def encode(int enc, values, dtype):
    """Encode one page of ``values`` as ``dtype`` (a numpy dtype-like or TSDataType) with encoding
    ``enc``: through the row's C encoder when it has one, else the module's encode(). Values are
    converted once here (_kinds.as_values: EncodeError for a value outside the type)."""
    cdef int kind = resolve_kind(dtype)
    cdef const codec_row *r = _row(enc, kind)
    cdef Py_ssize_t n, bound, used
    cdef cnp.ndarray arr, out
    mod = _modules[r.module.decode()]
    if kind == KIND_BIN:
        return mod.encode(as_binary_list(values))
    arr = as_values(values, kind)
    if r.encode_into == NULL:
        return mod.encode(arr)
    n = arr.shape[0]
    bound = r.encode_bound(n, kind)
    out = np.empty(bound + 1, np.uint8)
    with nogil:
        used = r.encode_into(cnp.PyArray_DATA(arr), n, kind, <uint8_t *>cnp.PyArray_DATA(out),
                             bound)
    return out[:used].tobytes()
