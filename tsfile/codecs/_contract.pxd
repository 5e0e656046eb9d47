# The codec contract: what every codec module exports at C level, and what the registry
# (tsfile.codecs._registry) collects. One row per (encoding, value kind) a codec holds.
#
# Value kinds are the one enum of tsfile.codecs._kinds (KIND_BOOL ... KIND_BIN). Every operation
# takes the row's kind, so a codec writes one function per operation for all its kinds.
#
# Error convention (the table is in tsfile/codecs/_common.pyx's docstring): the C kernels return
# status codes; an operation that fails raises the package exception for the fault (through
# _kinds.raise_kernel_error / _serial.serial_raise, the GIL taken only then) and returns -1.
# Success returns >= 0: decode_into decodes exactly `count` values (fewer present in the page is
# CorruptDataError) and returns the bytes consumed, or 0 where the codec does not track them.
from libc.stdint cimport uint8_t
from cpython.pycapsule cimport PyCapsule_New

# A page body decompressed only as far as it is read (include/page_prefix.h): the `more` of a
# row-range decoder (rows_fn below), opaque but for what a codec needs to ask for bytes.
cdef extern from "page_prefix.h" nogil:
    ctypedef struct tsfile_prefix:
        size_t err_pos
    size_t tsfile_prefix_region(tsfile_prefix *p, const uint8_t *buf, size_t nbytes, size_t upto)
    const char *tsfile_prefix_codec_name(const tsfile_prefix *p)
    const char *tsfile_prefix_strerror(const tsfile_prefix *p)

# Paths a row has (bit set): the path= names of tsfile.codecs._common (PATH_* there are the
# indices: 1 << PATH_PER_VALUE ...).
cdef enum:
    ROW_PER_VALUE = 1
    ROW_BATCH = 2
    ROW_SIMD = 4     # set at import when the module's SIMD kernels are compiled in

# Exact number of values in the page, or -1 when the codec cannot tell without decoding.
ctypedef Py_ssize_t (*count_fn)(const uint8_t *src, Py_ssize_t n, int kind) except -2 nogil
# Exactly `count` values of `kind` into `out` (native layout) on codec path `path` (PATH_*).
ctypedef Py_ssize_t (*decode_fn)(const uint8_t *src, Py_ssize_t n, void *out, Py_ssize_t count,
                                 int kind, int path) except -1 nogil
# Advance over the first `k` values without storing them: k, or CorruptDataError when the page
# holds fewer. NULL: the registry decodes into a scratch buffer instead (registry.skip_values).
ctypedef Py_ssize_t (*skip_fn)(const uint8_t *src, Py_ssize_t n, Py_ssize_t k,
                               int kind) except -1 nogil
# Values [start, stop) of the page into `out` (stop - start values, native layout) on codec path
# `path`, reading only what they need: what lies before `start` is passed by its headers (blocks,
# vectors, runs) or walked without being stored (serial bit streams), nothing after value stop-1
# is decoded. `more` is the page body as a tsfile_prefix * (include/page_prefix.h) when it is
# decompressed only as far as it is read: the codec makes bytes readable before it reads them
# (src lies inside that body); NULL: src[0:n] is readable whole. 0 <= start <= stop; a page
# holding fewer than `stop` values is CorruptDataError. NULL row entry: the reader decodes the
# first `stop` values whole (the page decompressed whole) and keeps the range.
ctypedef Py_ssize_t (*rows_fn)(const uint8_t *src, Py_ssize_t n, void *more, Py_ssize_t start,
                               Py_ssize_t stop, void *out, int kind, int path) except -1 nogil
# KIND_BIN only: values [start, stop) of the page into the object array `out` from index `at`
# (as decode_obj_fn; the page readable whole), what lies before `start` passed by its headers or
# length prefixes without building its objects. Holds the GIL. NULL row entry: the reader
# decodes the first `stop` values and keeps the range.
ctypedef Py_ssize_t (*rows_obj_fn)(const uint8_t *src, Py_ssize_t n, Py_ssize_t start,
                                   Py_ssize_t stop, object out, Py_ssize_t at, int path, bint text,
                                   str type_name) except -1
# Largest encoded size of `count` values (encode_into's `cap` must be at least this).
ctypedef Py_ssize_t (*bound_fn)(Py_ssize_t count, int kind) noexcept nogil
# Encode `count` native values; bytes written, or -1 with EncodeError (a value the encoding
# cannot store).
ctypedef Py_ssize_t (*encode_fn)(const void *values, Py_ssize_t count, int kind, uint8_t *dst,
                                 Py_ssize_t cap) except -1 nogil
# KIND_BIN only: `count` values into the object array `out` from index `at`; `text`: str
# (TEXT/STRING, invalid UTF-8 is CorruptDataError naming `type_name`, the value and its byte),
# else bytes (BLOB). Holds the GIL (it builds objects).
ctypedef Py_ssize_t (*decode_obj_fn)(const uint8_t *src, Py_ssize_t n, object out, Py_ssize_t at,
                                     Py_ssize_t count, int path, bint text,
                                     str type_name) except -1

cdef struct codec_row:
    int encoding          # TSEncoding code (format notes 8)
    int kind              # KIND_* of the values
    const char *module    # module name under tsfile.codecs ("ts2diff")
    const char *label     # the encoding's name in messages ("TS_2DIFF")
    int paths             # ROW_* bit set
    int codec_id          # filled by the registry (index of the module in its table)
    count_fn count        # NULL: unknown without decoding
    decode_fn decode_into         # numeric kinds
    decode_obj_fn decode_objects  # KIND_BIN
    skip_fn skip                  # NULL: decode into scratch
    bound_fn encode_bound         # NULL (with encode_into): no C encoder; the module's encode()
    encode_fn encode_into
    rows_fn decode_rows           # NULL: no row-range decoder (set by with_rows)
    rows_obj_fn decode_objects_rows  # KIND_BIN; NULL: none (set by with_object_rows)
    # The most values encode_into (and the module's encode()) take in one page, where the
    # encoding's headers bound it; 0: no limit (set by with_page_limit). The writer gives pages
    # beyond it to the module's encode(), whose refusal names the encoding.
    Py_ssize_t max_page_values

# A module's rows as the registry reads them: the module attribute CODEC_ROWS, a capsule named
# "tsfile.codec_rows" pointing at a codec_table (static storage in the module).
cdef struct codec_table:
    Py_ssize_t n
    codec_row *rows

cdef inline object rows_capsule(codec_table *table):
    return PyCapsule_New(<void *>table, b"tsfile.codec_rows", NULL)

# A row, every field named (the registry fills codec_id).
cdef inline codec_row make_row(int encoding, int kind, const char *module, const char *label,
                               int paths, count_fn count, decode_fn decode_into,
                               decode_obj_fn decode_objects, skip_fn skip, bound_fn encode_bound,
                               encode_fn encode_into) noexcept:
    cdef codec_row r
    r.encoding = encoding
    r.kind = kind
    r.module = module
    r.label = label
    r.paths = paths
    r.codec_id = -1
    r.count = count
    r.decode_into = decode_into
    r.decode_objects = decode_objects
    r.skip = skip
    r.encode_bound = encode_bound
    r.encode_into = encode_into
    r.decode_rows = NULL
    r.decode_objects_rows = NULL
    r.max_page_values = 0
    return r


# `r` with the row-range decoder `decode_rows` (make_row leaves it NULL).
cdef inline codec_row with_rows(codec_row r, rows_fn decode_rows) noexcept:
    r.decode_rows = decode_rows
    return r


# `r` (a KIND_BIN row) with the row-range decoder `decode_objects_rows` (make_row leaves it NULL).
cdef inline codec_row with_object_rows(codec_row r, rows_obj_fn decode_objects_rows) noexcept:
    r.decode_objects_rows = decode_objects_rows
    return r

# `r` with the most values one encoded page may hold (make_row leaves 0: no limit).
cdef inline codec_row with_page_limit(codec_row r, Py_ssize_t max_page_values) noexcept:
    r.max_page_values = max_page_values
    return r

# The module attribute CODEC_ROWS for `n` rows kept in the module's static `rows` / `table`.
cdef inline object publish_rows(codec_table *table, codec_row *rows, Py_ssize_t n):
    table.n = n
    table.rows = rows
    return rows_capsule(table)

# exactly `count` values decoded (`got`), else CorruptDataError naming `codec`
cdef inline int check_decoded(Py_ssize_t got, Py_ssize_t count, const char *codec) except -1 nogil:
    if got != count:
        with gil:
            from tsfile.errors import CorruptDataError
            raise CorruptDataError(
                f"{codec.decode()}: {got} values decoded where the page has {count}")
    return 0

# a skip of `k` values where the page holds `avail`: CorruptDataError naming `codec` when k > avail
cdef inline int check_skip(Py_ssize_t avail, Py_ssize_t k, const char *codec) except -1 nogil:
    if k > avail:
        with gil:
            from tsfile.errors import CorruptDataError
            raise CorruptDataError(
                f"{codec.decode()}: cannot skip {k} values, the page holds {avail}")
    return 0


# CorruptDataError for a page body (`more`, a tsfile_prefix *) whose decompression failed while
# `codec`'s row-range decoder asked for its bytes.
cdef inline int raise_body_error(void *more, const char *codec) except -1 nogil:
    cdef const tsfile_prefix *p = <const tsfile_prefix *>more
    with gil:
        from tsfile.errors import CorruptDataError
        raise CorruptDataError(
            f"{codec.decode()}: {tsfile_prefix_codec_name(p).decode()} page body: "
            f"{tsfile_prefix_strerror(p).decode()} (byte {p.err_pos} of the compressed body)")


# The readable bytes of src[0:n] once src[0:upto] is readable (n when `more` is NULL: readable
# whole); CorruptDataError naming `codec` when the body's decompression fails.
cdef inline Py_ssize_t rows_readable(void *more, const uint8_t *src, Py_ssize_t n,
                                     Py_ssize_t upto, const char *codec) except -1 nogil:
    cdef size_t r
    if more == NULL:
        return n
    r = tsfile_prefix_region(<tsfile_prefix *>more, src, <size_t>n, <size_t>max(upto, 0))
    if r == <size_t>-1:
        raise_body_error(more, codec)
    return <Py_ssize_t>r
