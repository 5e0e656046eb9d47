# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The read hot path: chunk headers, page headers, decompression into a reused buffer and decoding
into preallocated result arrays (format notes 5, 7, 8, 13.3, 13.4).

The planner (tsfile.reader) decides which chunks to read and sizes the result arrays; this module
plans the pages of a chunk (plan_pages: pages pruned by their statistics, the rows to keep, where
they go), walks that plan in one call per chunk, trims partial pages by binary search on the
sorted timestamps, and writes rows at a given position of the result arrays. Every
length read from the file is checked against the bytes present before it is used; page rows beyond
the capacity the planner allocated are a CorruptDataError (the statistics lied), so no allocation
ever depends on an unchecked count.

A page body is opened (page_open) and made readable as far as it is read (page_need): a SNAPPY
or LZ4 page that a time window or a value row range cuts is decompressed only up to the last
block it needs (include/page_prefix.h). Row ranges of value pages go through row-range decoders
(decode_span) that ask for each block's bytes before reading it: the TS_2DIFF walks of
tsfile._read.pushdown, and the codecs' codec_row.decode_rows (PLAIN by offset or walking
svarints, ALP blocks, RLE runs and TS_2DIFF FLOAT/DOUBLE blocks passed by their headers, the
serial bit streams walked without storing); text pages, read whole, build only the range's
objects (codec_row.decode_objects_rows: DICTIONARY indices by their runs, PLAIN text by its length
prefixes). Codecs without one (ZIGZAG) decode pages from their start, so their pages are
decompressed whole.

Each chunk's page loop (decompress, decode, place every planned page) runs in ONE nogil region
(time_pages, value_pages, nonaligned_pages). Every codec is found in the codec registry
(tsfile.codecs._registry) and called through its contract row once per page, straight into the
result arrays, on the decode path the query asked for, as are the raw Snappy and LZ4 block
decompressors. The GIL is taken inside the loop only to raise (a codec's exception is renamed
after its page by loop_error), to grow a scratch buffer, for the per-value paths of PLAIN, RLE
and ZIGZAG (the codecs take it), for TEXT/STRING/BLOB values (str/bytes objects), for
GZIP/ZSTD/LZMA2/LZO pages (tsfile.compression) and for time codecs that cannot count a page
without decoding it. path_counts() tells which codec ran which path. TEXT/STRING
values and chunk header names that are not valid UTF-8 raise CorruptDataError naming the page
(bad_utf8: the reader's one text policy, see tsfile._format.bytes); BLOB values stay bytes.

Threads: nothing here is shared between calls except the FileView (read only) and the parsed
Chunks (immutable once read_chunk returns); each caller passes a Scratch of its own, so calls
may run concurrently, without the GIL where they decode.
"""

cimport cython
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memmove, memset
from cpython.ref cimport PyObject

import numpy as np

cimport numpy as cnp

from tsfile._format.codes cimport (
    C_LZ4, C_SNAPPY, C_UNCOMPRESSED, E_TS_2DIFF, T_BLOB, T_BOOLEAN, T_DATE, T_DOUBLE, T_FLOAT, T_INT32, T_INT64,
    T_STRING, T_TEXT, T_TIMESTAMP, T_VECTOR,
)
from tsfile._read.pushdown cimport (
    TSFILE_PREFIX_LZ4, TSFILE_PREFIX_SNAPPY, count_prefix, has_row_skip, time_window_rows,
    tsfile_prefix,
    tsfile_prefix_codec_name, tsfile_prefix_need, tsfile_prefix_strerror, tsfile_prefix_stream,
    tsfile_prefix_whole, value_rows,
)
from tsfile._simd cimport simd_active
from tsfile.codecs._common cimport PATH_BATCH, PATH_PER_VALUE, PATH_SIMD, as_byte_view
from tsfile.codecs._contract cimport ROW_SIMD, codec_row
from tsfile.codecs._registry cimport (
    MAX_CODECS, codec_name, find_row, kind_of_type, n_codecs,
)

from tsfile import compression as _compression
from tsfile.codecs import _registry
from tsfile.errors import ClosedError, CorruptDataError, UnsupportedError
from tsfile.types import TSDataType

cnp.import_array()

cdef extern from "read_lz4.h":
    int tsfile_lz4_decompress(const uint8_t *src, size_t n, uint8_t *dst, size_t want,
                              size_t *err_pos) nogil
    const char *tsfile_lz4_strerror(int rc) nogil

cdef extern from "varint_scalar.h" nogil:
    enum:
        TSC_ERR_TRUNCATED
    int tsc_read_uvarint32(const uint8_t *p, size_t n, size_t *pos, uint32_t *out)

cdef extern from "read_snappy.h":
    int tsfile_snappy_length(const uint8_t *src, size_t n, uint32_t *length, size_t *pos) nogil
    int tsfile_snappy_decompress(const uint8_t *src, size_t n, uint8_t *dst, size_t want,
                                 size_t *err_pos) nogil
    const char *tsfile_snappy_strerror(int rc) nogil

cdef extern from *:
    """
    /* Present rows in a not-null bitmap of n rows: whole 0xFF words first (the no-null case
     * costs one compare per 64 rows), a byte table for the rest (no popcnt instruction needed). */
    static const unsigned char tsfile_pop8[256] = {
    #define B2(n) n, n + 1, n + 1, n + 2
    #define B4(n) B2(n), B2(n + 1), B2(n + 1), B2(n + 2)
    #define B6(n) B4(n), B4(n + 1), B4(n + 1), B4(n + 2)
        B6(0), B6(1), B6(1), B6(2)
    #undef B2
    #undef B4
    #undef B6
    };
    static Py_ssize_t tsfile_bitmap_count(const unsigned char *bm, Py_ssize_t n) {
        Py_ssize_t full = n >> 3, i = 0, k = 0;
        for (; i + 8 <= full; i += 8) {
            unsigned long long w;
            memcpy(&w, bm + i, 8);
            if (w == ~0ull) { k += 64; continue; }
            for (int j = 0; j < 8; j++) k += tsfile_pop8[bm[i + j]];
        }
        for (; i < full; i++) k += tsfile_pop8[bm[i]];
        if (n & 7) k += tsfile_pop8[bm[full] & (0xFF00 >> (n & 7)) & 0xFF];
        return k;
    }
    """
    Py_ssize_t tsfile_bitmap_count(const uint8_t *bm, Py_ssize_t n) nogil

cdef extern from *:
    """
    /* Read the byte at p: the page fault of a mapped file happens here (called without the
     * GIL), not in the header parsing that follows with it. */
    static void tsfile_touch_byte(const unsigned char *p) {
        volatile unsigned char sink = *p;
        (void)sink;
    }
    """
    void tsfile_touch_byte(const uint8_t *p) nogil

# decode paths (data type, encoding and compression codes: tsfile/_format/codes.pxd; codecs:
# tsfile.codecs._registry)
cdef enum:
    P_PER_VALUE = 0
    P_BATCH = 1
    P_SIMD = 2
    P_AUTO = 3




cdef extern from *:
    """
    #define INT64_MAX_LIT INT64_MAX
    """
    int64_t INT64_MAX_LIT

cdef int64_t INT64_MIN_ = -0x7FFFFFFFFFFFFFFF - 1
cdef int64_t INT64_MAX_ = 0x7FFFFFFFFFFFFFFF

PATH_CODES = {"per_value": P_PER_VALUE, "batch": P_BATCH, "simd": P_SIMD, "auto": P_AUTO}

# Largest expansion a page body can claim over its stored bytes, per compression, worked out from
# each format in tsfile.compression.MAX_EXPANSION (Snappy 22, LZ4 and LZO 255, deflate 1032, ZSTD
# 32768, LZMA2 2^19). Checked on every page header; page_body then checks the sizes the streams
# state (Snappy here, the others in tsfile.compression) before anything is allocated.
cdef dict _MAX_RATIO = dict(_compression.MAX_EXPANSION)

_encoding_name = _registry.encoding_name
cdef dict _TYPE_NAMES = {int(t): t.name for t in TSDataType}
cdef dict _NP_DTYPES = {int(t): t.numpy_dtype for t in TSDataType}

def numpy_dtype(int data_type):
    return _NP_DTYPES[data_type]


cdef inline int itemsize_of(int t) noexcept nogil:
    if t == T_BOOLEAN:
        return 1
    if t == T_INT32 or t == T_DATE or t == T_FLOAT:
        return 4
    if t == T_INT64 or t == T_TIMESTAMP or t == T_DOUBLE or t == T_VECTOR:
        return 8
    return 0  # binary: object arrays


cdef inline bint is_binary(int t) noexcept nogil:
    return t == T_TEXT or t == T_STRING or t == T_BLOB


# ------------------------------------------------------------------------------------------------
# the file


# No automatic pickling: Cython would copy the raw pointer below as a NUL-terminated string,
# so a copy.copy() of this object pointed into a temporary while keeping the whole length
# (reads of freed memory); copy and pickle are a TypeError instead.
@cython.auto_pickle(False)
cdef class FileView:
    """A read-only view of the whole file (an mmap or bytes) with a raw pointer for C code.

    The owner (tsfile.reader.TsFileReader) calls release() only when no decode is running on the
    view (its close() waits for them); every entry point below refuses a released view with
    ClosedError, so a call that slips past the owner fails instead of reading unmapped memory."""

    cdef object owner
    cdef const uint8_t[::1] view
    cdef const uint8_t *ptr
    cdef bint released
    cdef public Py_ssize_t size
    cdef public str path
    cdef public Py_ssize_t data_end  # offset of the separator: chunks must end before it

    def __init__(self, owner, str path, Py_ssize_t data_end):
        self.owner = owner
        self.path = path
        self.size = len(owner)
        self.data_end = data_end
        if self.size > 0:
            self.view = owner
            self.ptr = &self.view[0]
        else:
            self.ptr = NULL

    def release(self):
        """Drop the view of the owner's buffer (then the owner's mmap can be closed)."""
        self.released = True
        self.view = None
        self.ptr = NULL
        self.owner = None
        self.size = 0


cdef inline int check_open(FileView fv) except -1:
    if fv.released:
        raise ClosedError(f"{fv.path}: the reader is closed")
    return 0


cdef object corrupt(FileView fv, str what, Py_ssize_t at):
    return CorruptDataError(f"{fv.path}: {what} at file offset {at}")


cdef inline int64_t be64(const uint8_t *p) noexcept nogil:
    cdef uint64_t v = 0
    cdef int i
    for i in range(8):
        v = (v << 8) | p[i]
    return <int64_t>v


cdef inline int32_t be32(const uint8_t *p) noexcept nogil:
    return <int32_t>((<uint32_t>p[0] << 24) | (<uint32_t>p[1] << 16) | (<uint32_t>p[2] << 8) | p[3])


cdef int read_uvarint(FileView fv, Py_ssize_t *pos, Py_ssize_t end, uint32_t *out,
                      const char *what) except -1 nogil:
    # The codecs' bounds-checked reader (varint_scalar.h): rejects a 6th byte or bits above 31.
    cdef size_t i = <size_t>pos[0]
    cdef int rc = tsc_read_uvarint32(fv.ptr, <size_t>end, &i, out)
    if rc == TSC_ERR_TRUNCATED:
        with gil:
            raise corrupt(fv, f"truncated {what.decode()}", pos[0])
    if rc:
        with gil:
            raise corrupt(fv, f"{what.decode()} longer than 5 bytes or above 32 bits", pos[0])
    pos[0] = <Py_ssize_t>i
    return 0


# ------------------------------------------------------------------------------------------------
# chunk and page headers


cdef struct Page:
    Py_ssize_t body       # offset of the stored body
    uint32_t usize        # uncompressed size (0: empty page)
    uint32_t csize        # stored size
    int has_stats
    int64_t count         # page statistics (only if has_stats)
    int64_t start
    int64_t end
    Py_ssize_t typed_at   # file offset of the statistics' typed part (min, max, ...; has_stats)


cdef class Chunk:
    """A parsed chunk header and the headers of all its pages."""

    cdef Page *pages
    cdef public Py_ssize_t n_pages
    cdef Py_ssize_t cap
    cdef public int marker, data_type, compression, encoding
    cdef public Py_ssize_t offset, data_start, data_end
    cdef public str measurement
    cdef public bint complete

    def __dealloc__(self):
        if self.pages != NULL:
            free(self.pages)

    cdef int push(self, Page *pg) except -1 nogil:
        cdef Page *np_
        cdef Py_ssize_t ncap
        if self.n_pages == self.cap:
            ncap = 16 if self.cap == 0 else self.cap * 2
            np_ = <Page *>realloc(self.pages, ncap * sizeof(Page))
            if np_ == NULL:
                with gil:
                    raise MemoryError()
            self.pages = np_
            self.cap = ncap
        self.pages[self.n_pages] = pg[0]
        self.n_pages += 1
        return 0

    def page_info(self):
        """[(body offset, usize, csize, has_stats, count, start, end)] (tests, debugging)."""
        return [
            (self.pages[i].body, self.pages[i].usize, self.pages[i].csize,
             bool(self.pages[i].has_stats), self.pages[i].count, self.pages[i].start,
             self.pages[i].end)
            for i in range(self.n_pages)
        ]


cdef int skip_typed_stats(FileView fv, Py_ssize_t *pos, Py_ssize_t end, int t) except -1 nogil:
    cdef Py_ssize_t n = 0, i, nstr = 0
    cdef int32_t ln
    if t == T_BOOLEAN:
        n = 10
    elif t == T_INT32 or t == T_DATE or t == T_FLOAT:
        n = 24
    elif t == T_INT64 or t == T_TIMESTAMP or t == T_DOUBLE:
        n = 40
    elif t == T_TEXT:
        nstr = 2
    elif t == T_STRING:
        nstr = 4
    if n:
        if pos[0] + n > end:
            with gil:
                raise corrupt(fv, "truncated page statistics", pos[0])
        pos[0] += n
    for i in range(nstr):
        if pos[0] + 4 > end:
            with gil:
                raise corrupt(fv, "truncated page statistics string", pos[0])
        ln = be32(fv.ptr + pos[0])
        if ln < 0 or pos[0] + 4 + ln > end:
            with gil:
                raise corrupt(fv, f"page statistics string length {ln}", pos[0])
        pos[0] += 4 + ln
    return 0


cdef int check_encoding(FileView fv, int enc, int t, Py_ssize_t at) except -1:
    """A chunk header whose encoding cannot hold its type: an error naming the encoding byte,
    before any codec sees the pages (the codecs would raise TypeError / errors without offset)."""
    if not _registry.encoding_fits(enc, t):  # the codec registry's rows
        raise UnsupportedError(
            f"{fv.path}: encoding {_encoding_name(enc)} of a "
            f"{'time' if t == T_VECTOR else _TYPE_NAMES.get(t, t)} chunk at file offset {at} "
            "is not supported (corrupt chunk header?)")
    return 0


# Chunks with more data than this have their page headers parsed without the GIL (read_chunk).
cdef enum:
    PARSE_NOGIL_BYTES = 1 << 16


cpdef Chunk read_chunk(FileView fv, Py_ssize_t off, Py_ssize_t max_pages=-1,
                       int64_t stop_after=INT64_MAX_LIT):
    """Parse the chunk header at ``off`` and the headers of its pages: all of them, or the first
    ``max_pages``, or (pages with statistics, sorted by time) up to the first page that starts
    after ``stop_after``. ``complete`` tells whether every page was parsed."""
    cdef Chunk ch = Chunk()
    cdef Py_ssize_t pos = off, end, name_at
    cdef uint32_t u, data_size
    cdef int32_t zz
    if fv is None:  # cpdef arguments take None: its fields would crash
        raise TypeError("read_chunk needs a FileView, not None")
    end = fv.data_end
    check_open(fv)
    if off < 7 or off >= end:
        raise corrupt(fv, "chunk offset outside the data area", off)
    ch.offset = off
    ch.marker = fv.ptr[pos]
    pos += 1
    if (ch.marker & 0x3F) not in (1, 5) or (ch.marker & 0xC0) == 0xC0:
        raise corrupt(fv, f"0x{ch.marker:02x} is not a chunk marker", off)
    name_at = pos
    read_uvarint(fv, &pos, end, &u, "chunk measurement id length")
    zz = <int32_t>((u >> 1) ^ (0u - (u & 1u)))
    if zz < -1 or pos + (zz if zz > 0 else 0) > end:
        raise corrupt(fv, f"chunk measurement id length {zz}", name_at)
    if zz > 0:
        try:
            ch.measurement = bytes(fv.view[pos:pos + zz]).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise bad_utf8(fv, exc, "chunk measurement id", pos, TEXT_IN_FILE) from None
        pos += zz
    else:
        ch.measurement = ""
    read_uvarint(fv, &pos, end, &data_size, "chunk data size")
    if pos + 3 > end:
        raise corrupt(fv, "truncated chunk header", off)
    ch.data_type = fv.ptr[pos]
    ch.compression = fv.ptr[pos + 1]
    ch.encoding = fv.ptr[pos + 2]
    pos += 3
    if ch.data_type == 7 or ch.data_type > T_STRING:
        raise corrupt(fv, f"unknown chunk data type {ch.data_type}", pos - 3)
    if ch.compression not in _MAX_RATIO:
        raise UnsupportedError(
            f"{fv.path}: compression type {ch.compression} at file offset {pos - 2}")
    check_encoding(fv, ch.encoding, T_VECTOR if (ch.marker & 0x80) else ch.data_type, pos - 1)
    if pos + <Py_ssize_t>data_size > end:
        raise corrupt(fv, f"chunk data size {data_size} runs past the data area", off)
    ch.data_start = pos
    ch.data_end = pos + data_size
    cdef uint64_t max_ratio = _MAX_RATIO[ch.compression]
    # The GIL is released only for a long chunk: for a short one (most; a few page headers,
    # about a microsecond) giving it up costs more than the loop, and while other threads
    # contend for it each release is a hand-over to one of them and a wait to get it back.
    if data_size > PARSE_NOGIL_BYTES:
        with nogil:
            parse_pages(fv, ch, max_pages, stop_after, max_ratio)
    else:
        parse_pages(fv, ch, max_pages, stop_after, max_ratio)
    return ch


cdef int parse_pages(FileView fv, Chunk ch, Py_ssize_t max_pages, int64_t stop_after,
                     uint64_t max_ratio) except -1 nogil:
    """read_chunk's loop over the page headers (without the GIL: a chunk of many pages is parsed
    while other threads run); ``max_ratio``: the largest expansion of the chunk's compression."""
    cdef Py_ssize_t pos = ch.data_start, page_at
    cdef uint32_t u
    cdef Page pg
    cdef bint multi = (ch.marker & 0x3F) == 1
    cdef int stats_type = T_VECTOR if (ch.marker & 0x80) else ch.data_type
    ch.complete = True
    while pos < ch.data_end:
        if max_pages >= 0 and ch.n_pages >= max_pages:
            ch.complete = False
            break
        if ch.n_pages and ch.pages[ch.n_pages - 1].has_stats and \
                ch.pages[ch.n_pages - 1].start > stop_after:
            ch.complete = False  # later pages start later still: not needed
            break
        page_at = pos
        memset(&pg, 0, sizeof(Page))
        read_uvarint(fv, &pos, ch.data_end, &pg.usize, "page uncompressed size")
        if pg.usize == 0:
            pg.body = pos  # empty page: the single byte 0x00
            ch.push(&pg)
            continue
        read_uvarint(fv, &pos, ch.data_end, &pg.csize, "page compressed size")
        if multi:
            pg.has_stats = 1
            read_uvarint(fv, &pos, ch.data_end, &u, "page statistics count")
            pg.count = u
            if pos + 16 > ch.data_end:
                with gil:
                    raise corrupt(fv, "truncated page statistics", pos)
            pg.start = be64(fv.ptr + pos)
            pg.end = be64(fv.ptr + pos + 8)
            pos += 16
            pg.typed_at = pos
            skip_typed_stats(fv, &pos, ch.data_end, stats_type)
        if pos + <Py_ssize_t>pg.csize > ch.data_end:
            with gil:
                raise corrupt(fv, f"page compressed size {pg.csize} runs past its chunk",
                              page_at)
        if <uint64_t>pg.usize > <uint64_t>pg.csize * max_ratio + 64:
            with gil:
                raise corrupt(fv, f"page uncompressed size {pg.usize} is impossible for "
                                  f"{pg.csize} stored bytes", page_at)
        pg.body = pos
        pos += pg.csize
        ch.push(&pg)
    return 0


# ------------------------------------------------------------------------------------------------
# reusable buffers


cdef class Scratch:
    """Buffers reused across pages: decompressed body, timestamps, dense values. Written without
    the GIL: one decode at a time per Scratch (tsfile.reader gives each operation its own)."""

    cdef uint8_t *body
    cdef Py_ssize_t body_cap
    cdef object body_arr
    cdef int64_t *ts
    cdef Py_ssize_t ts_cap
    cdef object ts_arr
    cdef uint8_t *vals
    cdef Py_ssize_t vals_cap
    cdef object vals_arr
    cdef object held_body

    # need_*: a buffer of at least n items, callable without the GIL (taken only to grow it).
    cdef uint8_t *need_body(self, Py_ssize_t n) except NULL nogil:
        if n > self.body_cap or self.body == NULL:
            with gil:
                self.body_arr = np.empty(max(n, 4096), np.uint8)
                self.body = <uint8_t *>cnp.PyArray_DATA(self.body_arr)
                self.body_cap = max(n, 4096)
        return self.body

    cdef const uint8_t *hold_body(self, object buf) except NULL:
        """Keep ``buf`` (a decompressor's own output, the whole body of one page) alive as the
        current page's body until the next page replaces it; a pointer to its bytes. Pass None
        to release the previous one first (a large page should not wait for the next one)."""
        cdef const uint8_t[::1] view
        self.held_body = buf
        if buf is None or len(buf) == 0:
            return <const uint8_t *>b""
        view = buf
        return &view[0]

    cdef int64_t *need_ts(self, Py_ssize_t n) except NULL nogil:
        if n > self.ts_cap or self.ts == NULL:
            with gil:
                self.ts_arr = np.empty(max(n, 1024), np.int64)
                self.ts = <int64_t *>cnp.PyArray_DATA(self.ts_arr)
                self.ts_cap = max(n, 1024)
        return self.ts

    cdef uint8_t *need_vals(self, Py_ssize_t nbytes) except NULL nogil:
        if nbytes > self.vals_cap or self.vals == NULL:
            with gil:
                self.vals_arr = np.empty(max(nbytes, 8192), np.uint8)
                self.vals = <uint8_t *>cnp.PyArray_DATA(self.vals_arr)
                self.vals_cap = max(nbytes, 8192)
        return self.vals

    def reset(self, Py_ssize_t keep_bytes):
        """Drop the held page body and every buffer larger than ``keep_bytes``: a pooled scratch
        then keeps no huge page alive after the operation that needed it (the next operation
        that needs a large buffer allocates it again)."""
        self.held_body = None
        if self.body_cap > keep_bytes:
            self.body_arr, self.body, self.body_cap = None, NULL, 0
        if self.ts_cap * 8 > keep_bytes:
            self.ts_arr, self.ts, self.ts_cap = None, NULL, 0
        if self.vals_cap > keep_bytes:
            self.vals_arr, self.vals, self.vals_cap = None, NULL, 0


def new_scratch():
    return Scratch()


cdef int page_open(FileView fv, Chunk ch, Page *pg, Scratch s,
                   tsfile_prefix *body) except -1 nogil:
    """Open the body of a page as a tsfile_prefix (include/page_prefix.h): readable whole when
    it is stored uncompressed (a pointer into the file) or compressed other than SNAPPY / LZ4
    (tsfile.compression decompresses it whole, with the GIL: page_body_by_module); a SNAPPY or
    LZ4 body is decompressed into the scratch's body buffer only as far as page_need asks.
    Sizes are checked before anything is allocated (usize against csize with the page header,
    Snappy's stated length against usize here)."""
    cdef uint32_t stated = 0
    cdef size_t ip0 = 0
    cdef const uint8_t *src = fv.ptr + pg.body
    if ch.compression == C_UNCOMPRESSED:
        if pg.csize != pg.usize:
            with gil:
                raise corrupt(fv, f"uncompressed page with stored size {pg.csize} != {pg.usize}",
                              pg.body)
        tsfile_prefix_whole(body, src, pg.usize)
    elif ch.compression == C_SNAPPY:
        # The block's preamble states its exact size: match it with the page header before the
        # buffer is sized from either.
        if tsfile_snappy_length(src, pg.csize, &stated, &ip0) != 0:
            with gil:
                raise corrupt(fv, "bad SNAPPY page body (length preamble)", pg.body)
        if stated != pg.usize:
            with gil:
                raise corrupt(fv, f"SNAPPY page body: the stream says {stated} bytes, the page "
                                  f"header {pg.usize}", pg.body)
        tsfile_prefix_stream(body, TSFILE_PREFIX_SNAPPY, src, pg.csize, ip0,
                             s.need_body(pg.usize), pg.usize)
    elif ch.compression == C_LZ4:
        # usize <= 255 x csize, checked with the page header
        tsfile_prefix_stream(body, TSFILE_PREFIX_LZ4, src, pg.csize, 0, s.need_body(pg.usize),
                             pg.usize)
    else:
        with gil:
            tsfile_prefix_whole(body, page_body_by_module(fv, ch, pg, s), pg.usize)
    return 0


cdef int page_need(FileView fv, Page *pg, tsfile_prefix *body, Py_ssize_t need) except -1 nogil:
    """Make the first ``need`` bytes of an opened page body readable (all of them when need >=
    the body's size)."""
    if tsfile_prefix_need(body, <size_t>need) != 0:
        raise_stream_error(fv, pg, body)
    return 0


cdef int raise_stream_error(FileView fv, Page *pg, tsfile_prefix *body) except -1 nogil:
    with gil:
        raise corrupt(fv, f"{tsfile_prefix_codec_name(body).decode()} page body: "
                          f"{tsfile_prefix_strerror(body).decode()} (byte {body.err_pos} of the "
                          "body)", pg.body)


cdef const uint8_t *page_body(FileView fv, Chunk ch, Page *pg, Scratch s) except NULL nogil:
    """The whole decompressed body of a page: a pointer into the file (uncompressed) or into a
    buffer the scratch owns (its reused body buffer for SNAPPY/LZ4, the decoder's output
    otherwise). UNCOMPRESSED, SNAPPY and LZ4 run without the GIL (taken only to grow the buffer
    or raise); the other compressions hold it for the page (page_body_by_module)."""
    cdef tsfile_prefix body
    page_open(fv, ch, pg, s, &body)
    page_need(fv, pg, &body, pg.usize)
    return body.dst


cdef const uint8_t *page_body_by_module(FileView fv, Chunk ch, Page *pg, Scratch s) except NULL:
    """GZIP, ZSTD, LZMA2, LZO: tsfile.compression checks the size the stream states and bounds the
    decoder's output by the page header; its output buffer becomes the body as it is (one copy
    of the page in memory). The previous page's buffer is released first."""
    s.hold_body(None)
    try:
        body = _compression.decompress(
            ch.compression, fv.view[pg.body:pg.body + pg.csize], pg.usize)
    except CorruptDataError as exc:
        raise corrupt(fv, str(exc), pg.body) from None
    return s.hold_body(body)


# ------------------------------------------------------------------------------------------------
# text: the one policy for bad UTF-8 (tsfile._format.bytes, README "Reading")


cdef enum:
    TEXT_IN_FILE = -1  # bad_utf8: the text is stored as is at file offset ``at``
    TEXT_IN_PAGE = -2  # ... somewhere in the page body at ``at`` (decoded by a codec module)


cdef object bad_utf8(FileView fv, object exc, str what, Py_ssize_t at, Py_ssize_t body_pos):
    """The CorruptDataError for text that is not valid UTF-8 (``exc``, its UnicodeDecodeError):
    bad text is never replaced or kept as surrogates. ``body_pos``: TEXT_IN_FILE (the error
    names the file offset of the first bad byte), TEXT_IN_PAGE, or the offset of the text in the
    decoded body of the page at ``at`` (a page may be compressed, so only the page has a file
    offset; the byte in its body is named beside it)."""
    if body_pos == TEXT_IN_FILE:
        return corrupt(fv, f"invalid UTF-8 in {what} ({exc.reason})", at + exc.start)
    where = "" if body_pos < 0 else f"; byte {body_pos + exc.start} of the page's values"
    return corrupt(fv, f"invalid UTF-8 in {what} ({exc.reason}{where}) in the page", at)


# ------------------------------------------------------------------------------------------------
# codecs and their decode paths


# Every codec is found in the codec registry (tsfile.codecs._registry) by encoding and value kind;
# its contract row (tsfile/codecs/_contract.pxd) is called once per page, straight into the
# result arrays.

_CODEC_PATH_NAMES = ("per_value", "batch", "simd")  # by PATH_*

# Pages handed to each codec per codec path (PATH_*), by the row's codec_id: what path= really
# ran, for tests and debugging. Only changed with the GIL held (run_path, and the page loops'
# LoopState.hits added in flush_hits), so never torn by concurrent reads.
cdef Py_ssize_t _path_hits[MAX_CODECS][3]


cdef int pick_path(const codec_row *row, int path) noexcept nogil:
    """The codec path (PATH_*) that query path ``path`` runs on ``row``'s codec. "simd" and
    "auto" mean the codec's SIMD kernels where it has them and SIMD is on, batch elsewhere (a
    query mixes codecs; the reader refuses "simd" outright when SIMD is unavailable or switched
    off)."""
    if path == P_PER_VALUE:
        return PATH_PER_VALUE
    if path == P_BATCH:
        return PATH_BATCH
    if (row.paths & ROW_SIMD) and simd_active():
        return PATH_SIMD
    return PATH_BATCH


cdef int run_path(const codec_row *row, int path) noexcept:
    """pick_path, counted in path_counts(): call it once per page handed to the codec, with the
    GIL held (the page loops count in their LoopState instead)."""
    cdef int cp = pick_path(row, path)
    _path_hits[row.codec_id][cp] += 1
    return cp


def path_counts():
    """{(codec module name, codec path): pages} handed to each codec on each decode path since the
    last reset_path_counts() (only non-zero entries)."""
    cdef int c, cp
    return {(codec_name(c), _CODEC_PATH_NAMES[cp]): _path_hits[c][cp]
            for c in range(n_codecs()) for cp in range(3) if _path_hits[c][cp]}


def reset_path_counts():
    memset(_path_hits, 0, sizeof(_path_hits))


# ------------------------------------------------------------------------------------------------
# the page loops' state: errors raised without the GIL, path counts


cdef enum:
    STAGE_OWN = 0     # the engine's own checks: their exceptions already name the file offset
    STAGE_DECODE = 1  # in a codec's decode_into: the exception is re-raised naming the page
    STAGE_COUNT = 2   # in a codec's count of a time page: likewise


cdef struct LoopState:
    Py_ssize_t at                   # file offset of the page in a codec (STAGE_DECODE/COUNT)
    int stage
    int encoding
    Py_ssize_t hits[MAX_CODECS][3]  # pages per codec and codec path, for _path_hits


cdef int flush_hits(LoopState *st) noexcept:
    """Add a loop's page counts to path_counts() (GIL held: after its nogil region)."""
    cdef int c, cp
    for c in range(n_codecs()):
        for cp in range(3):
            _path_hits[c][cp] += st.hits[c][cp]
            st.hits[c][cp] = 0
    return 0


cdef object loop_error(FileView fv, LoopState *st, object exc):
    """The exception to raise for ``exc``, raised in a page loop: a codec's exception named after
    the page it was decoding (as the codec contract's errors carry no file offset), anything
    else as it is."""
    label = _encoding_name(st.encoding)
    if st.stage == STAGE_DECODE:
        if isinstance(exc, (CorruptDataError, ValueError)):
            return corrupt(fv, f"{label} page: {exc}", st.at)
        if isinstance(exc, (TypeError, UnsupportedError)):  # a type the codec does not hold
            return UnsupportedError(f"{fv.path}: {exc} at file offset {st.at}")
    elif st.stage == STAGE_COUNT and isinstance(exc, CorruptDataError):
        return corrupt(fv, f"{label} time page: {exc}", st.at)
    return exc


# ------------------------------------------------------------------------------------------------
# one page's values


cdef const codec_row *codec_row_for(FileView fv, int enc, int t, Py_ssize_t at) except NULL nogil:
    """The registry's row for encoding ``enc`` and type ``t``; UnsupportedError naming the page
    when this build has none (check_encoding refuses most such chunks at their header)."""
    cdef const codec_row *row = find_row(enc, kind_of_type(t))
    if row == NULL:
        with gil:
            raise UnsupportedError(
                f"{fv.path}: encoding {_encoding_name(enc)} ({enc}) of "
                f"{_TYPE_NAMES.get(t, t)} values at file offset {at} is not supported")
    return row


cdef int decode_numeric(FileView fv, const uint8_t *p, Py_ssize_t n, int t, int enc,
                        Py_ssize_t count, uint8_t *out, int path, Py_ssize_t file_at,
                        LoopState *st, Py_ssize_t skip=0, tsfile_prefix *more=NULL,
                        bint rows=False) except -1 nogil:
    """Decode exactly ``count`` numeric values of type t on query path ``path`` into ``out``
    (native layout) without the GIL; a codec's error is renamed by loop_error. ``rows`` (only
    where has_row_skip(enc, t)): values skip..count-1 only, into out[0:count - skip], the blocks
    before them passed by their headers and the page (``more``, its body opened by page_open)
    decompressed only as far as value count-1 (pushdown.value_rows)."""
    cdef const codec_row *row
    cdef int cp
    if count == 0:
        return 0
    row = codec_row_for(fv, enc, t, file_at)
    cp = pick_path(row, path)
    st.hits[row.codec_id][cp] += 1
    st.at = file_at
    st.encoding = enc
    st.stage = STAGE_DECODE
    if rows:
        value_rows(t, p, n, more, skip, count, out, cp)
    else:
        row.decode_into(p, n, out, count, row.kind, cp)
    st.stage = STAGE_OWN
    return 0


# Whether value_range() reads a row range through the codecs' row-range decoders
# (codec_row.decode_rows): set_row_ranges(False) makes it decode such pages from their start, as
# before those decoders existed (the benchmarks' baseline). Process-wide and unlocked: reader
# threads read it without the GIL, so it is set only while no read is under way (a read that
# sees it change mid-chunk still returns the same values, by the other decoder).
cdef bint _row_ranges_on = True


def set_row_ranges(bint on):
    """Read row ranges of value pages through the codecs' row-range decoders (the default), or,
    off, decode those pages from their first value (``python -m tsfile bench skip``'s baseline).
    Returns the previous setting."""
    global _row_ranges_on
    was = _row_ranges_on
    _row_ranges_on = on
    return was


def reads_row_ranges(int encoding, int data_type):
    """Whether a value page of this encoding and type is read as a row range, without storing
    the values before it (the rule decode_span follows: TS_2DIFF integers by their block headers,
    every codec whose registry row has a row-range decoder), under the current set_row_ranges.
    The serial codecs' decoders still walk the values before the range (late._ONE_RUN)."""
    cdef const codec_row *row
    if has_row_skip(encoding, data_type):
        return True
    row = find_row(encoding, kind_of_type(data_type))
    if row == NULL or not _row_ranges_on:
        return False
    if is_binary(data_type):
        return row.decode_objects_rows != NULL
    return row.decode_rows != NULL


cdef int decode_span(FileView fv, int t, int enc, const uint8_t *p, Py_ssize_t n,
                     tsfile_prefix *body, Py_ssize_t start, Py_ssize_t stop, uint8_t *out,
                     int path, Py_ssize_t file_at, LoopState *st) except -1 nogil:
    """Values start..stop-1 of a page whose values are p[0:n] into out[0:stop - start] through a
    row-range decoder, when the codec has one: TS_2DIFF integers by their block headers
    (pushdown.value_rows), the others through codec_row.decode_rows. ``body``: the page opened
    by page_open (read only as far as the decoder needs), or NULL when p[0:n] is readable whole.
    Returns 1, or 0 (nothing read) when there is no such decoder (or set_row_ranges(False))."""
    cdef const codec_row *row
    if has_row_skip(enc, t):
        decode_numeric(fv, p, n, t, enc, stop, out, path, file_at, st, start, body, True)
        return 1
    row = codec_row_for(fv, enc, t, file_at)
    if row.decode_rows == NULL or not _row_ranges_on:
        return 0
    decode_row_range(row, p, n, body, start, stop, out, path, file_at, st)
    return 1


cdef int decode_row_range(const codec_row *row, const uint8_t *p, Py_ssize_t n,
                          tsfile_prefix *body, Py_ssize_t start, Py_ssize_t stop, uint8_t *out,
                          int path, Py_ssize_t file_at, LoopState *st) except -1 nogil:
    """Values start..stop-1 of a page whose values are p[0:n] (inside ``body``, opened by
    page_open) into out[0:stop - start], through the row's row-range decoder: what lies before
    ``start`` passed or walked, the body decompressed only as far as the codec reads it. A
    codec's error is renamed by loop_error."""
    cdef int cp
    if stop <= start:
        return 0
    cp = pick_path(row, path)
    st.hits[row.codec_id][cp] += 1
    st.at = file_at
    st.encoding = row.encoding
    st.stage = STAGE_DECODE
    row.decode_rows(p, n, body, start, stop, out, row.kind, cp)
    st.stage = STAGE_OWN
    return 0


cdef int decode_objects(FileView fv, const uint8_t *p, Py_ssize_t n, int t, int enc,
                        Py_ssize_t count, object out_obj, Py_ssize_t out_at, int path,
                        Py_ssize_t file_at) except -1:
    """Decode exactly ``count`` TEXT/STRING/BLOB values into the object array ``out_obj`` from
    ``out_at`` (str for TEXT/STRING, bytes for BLOB): with the GIL, as they are objects."""
    cdef const codec_row *row
    cdef int cp
    if count == 0:
        return 0
    row = codec_row_for(fv, enc, t, file_at)
    cp = run_path(row, path)
    try:
        row.decode_objects(p, n, out_obj, out_at, count, cp, t != T_BLOB, _TYPE_NAMES[t])
    except (CorruptDataError, ValueError, TypeError, UnsupportedError) as exc:
        raise objects_error(fv, enc, exc, file_at) from None
    return 0


cdef object objects_error(FileView fv, int enc, object exc, Py_ssize_t file_at):
    """The exception for a text codec's ``exc``, named after its page at ``file_at``."""
    if isinstance(exc, (TypeError, UnsupportedError)):  # a type the codec does not hold
        return UnsupportedError(f"{fv.path}: {exc} at file offset {file_at}")
    return corrupt(fv, f"{_encoding_name(enc)} page: {exc}", file_at)


cdef object objects_span(FileView fv, const uint8_t *p, Py_ssize_t n, int t, int enc,
                         Py_ssize_t start, Py_ssize_t stop, int path, Py_ssize_t file_at):
    """Values start..stop-1 of a TEXT/STRING/BLOB page p[0:n] as an object array: through the
    codec's decode_objects_rows where it has one (the values before ``start`` passed without
    building them), else the first ``stop`` values decoded and the range kept."""
    cdef const codec_row *row = codec_row_for(fv, enc, t, file_at)
    cdef int cp
    if row.decode_objects_rows == NULL or not _row_ranges_on:
        dense = np.empty(stop, dtype=object)
        decode_objects(fv, p, n, t, enc, stop, dense, 0, path, file_at)
        return dense[start:]
    dense = np.empty(stop - start, dtype=object)
    if stop <= start:
        return dense
    cp = run_path(row, path)
    try:
        row.decode_objects_rows(p, n, start, stop, dense, 0, cp, t != T_BLOB, _TYPE_NAMES[t])
    except (CorruptDataError, ValueError, TypeError, UnsupportedError) as exc:
        raise objects_error(fv, enc, exc, file_at) from None
    return dense


cdef Py_ssize_t time_count(FileView fv, const uint8_t *p, Py_ssize_t n, int enc,
                           Py_ssize_t file_at, LoopState *st) except -2 nogil:
    """The number of timestamps in a time page from its codec's count, or -1 when the codec
    cannot tell without decoding."""
    cdef const codec_row *row = codec_row_for(fv, enc, T_INT64, file_at)
    cdef Py_ssize_t c
    if row.count == NULL:
        return -1
    st.at = file_at
    st.encoding = enc
    st.stage = STAGE_COUNT
    c = row.count(p, n, row.kind)
    st.stage = STAGE_OWN
    return c


cdef Py_ssize_t decode_times(FileView fv, const uint8_t *p, Py_ssize_t n, int enc, int path,
                             Scratch s, Py_ssize_t file_at, LoopState *st) except -1 nogil:
    """Decode all timestamps of a page into s.ts; returns their number."""
    cdef Py_ssize_t c = time_count(fv, p, n, enc, file_at, st)
    if c >= 0:
        decode_numeric(fv, p, n, T_INT64, enc, c, <uint8_t *>s.need_ts(c), path, file_at, st)
        return c
    with gil:
        return decode_times_by_module(fv, p, n, enc, path, s, file_at)


cdef Py_ssize_t decode_times_by_module(FileView fv, const uint8_t *p, Py_ssize_t n, int enc,
                                       int path, Scratch s, Py_ssize_t file_at) except -1:
    """Timestamps whose count the codec cannot tell without decoding: the codec's decode() to
    the end of the page (with the GIL), into s.ts."""
    cdef object arr
    cdef const uint8_t[::1] src
    cdef const codec_row *row = codec_row_for(fv, enc, T_INT64, file_at)
    cdef int cp = run_path(row, path)
    cdef Py_ssize_t c
    src = <const uint8_t[:n]>p if n > 0 else b""
    try:
        arr = np.ascontiguousarray(
            _registry.decode(enc, memoryview(src), np.dtype(np.int64),
                             path=_CODEC_PATH_NAMES[cp]), np.int64)
    except (CorruptDataError, ValueError) as exc:
        raise corrupt(fv, f"time page: {exc}", file_at) from None
    except (TypeError, UnsupportedError) as exc:  # a type the codec does not hold
        raise UnsupportedError(f"{fv.path}: time page: {exc} at file offset {file_at}") from None
    c = len(arr)
    s.need_ts(c)
    memcpy(s.ts, cnp.PyArray_DATA(arr), c * 8)
    return c


# ------------------------------------------------------------------------------------------------
# chunk readers


cdef inline Py_ssize_t lower_bound(const int64_t *a, Py_ssize_t n, int64_t x) noexcept nogil:
    cdef Py_ssize_t lo = 0, hi = n, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef inline Py_ssize_t upper_bound(const int64_t *a, Py_ssize_t n, int64_t x) noexcept nogil:
    cdef Py_ssize_t lo = 0, hi = n, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] <= x:
            lo = mid + 1
        else:
            hi = mid
    return lo


# The plan of a chunk's pages: an int64 array (pages, PLAN_COLS), one row per page of the time
# chunk, made by plan_pages, completed by read_time_chunk and followed by read_value_chunk.
#   PLAN_FROM  in: -1 skip the page, else read it; out: first kept row of the page (-1: skipped)
#   PLAN_END   in: -1 keep every row in the time range, else keep only rows < PLAN_END (and
#              >= PLAN_FROM): room for row restrictions (offset/limit, selections); out: end row
#   PLAN_ROWS  out: the page's rows (its statistics count for a skipped page)
#   PLAN_OUT   out: where the kept rows go, relative to the output position of the chunk group
cdef enum:
    PLAN_FROM = 0
    PLAN_END = 1
    PLAN_ROWS = 2
    PLAN_OUT = 3
    PLAN_COLS = 4

PLAN_COLUMNS = {"from": PLAN_FROM, "end": PLAN_END, "rows": PLAN_ROWS, "out": PLAN_OUT}


def plan_pages(Chunk ch not None, int64_t t1, int64_t t2, Py_ssize_t page_lo=0, Py_ssize_t page_hi=-1):
    """The plan (see PLAN_*) of the time chunk ``ch`` for [t1, t2]: pages page_lo <= i < page_hi
    (all by default) whose statistics overlap the range are read, whole."""
    cdef Py_ssize_t i
    cdef Page *pg
    plan_arr = np.empty((ch.n_pages, PLAN_COLS), np.int64)
    cdef int64_t[:, ::1] plan = plan_arr
    if page_hi < 0 or page_hi > ch.n_pages:
        page_hi = ch.n_pages
    for i in range(ch.n_pages):
        pg = &ch.pages[i]
        skip = i < page_lo or i >= page_hi or (pg.has_stats and (pg.end < t1 or pg.start > t2))
        plan[i, PLAN_FROM] = -1 if skip else 0
        plan[i, PLAN_END] = -1
        plan[i, PLAN_ROWS] = pg.count
        plan[i, PLAN_OUT] = -1
    return plan_arr


cdef int64_t *plan_rows(object plan_arr) except NULL:
    """The plan's rows as a C array, after checking it is one (see plan_pages)."""
    if not (isinstance(plan_arr, np.ndarray) and plan_arr.dtype == np.int64
            and plan_arr.ndim == 2 and plan_arr.shape[1] == PLAN_COLS
            and plan_arr.flags.c_contiguous and plan_arr.flags.writeable):
        raise ValueError("a page plan is a writable C-contiguous int64 array (pages, "
                         f"{PLAN_COLS}) from plan_pages")
    return <int64_t *>cnp.PyArray_DATA(plan_arr)


cdef inline void keep_rows(const int64_t *a, Py_ssize_t c, int64_t t1, int64_t t2,
                           int64_t keep_from, int64_t keep_end, Py_ssize_t *lo,
                           Py_ssize_t *hi) noexcept nogil:
    """Rows [lo, hi) of a page of ``c`` sorted timestamps ``a`` in [t1, t2] (binary search only
    when an end lies outside it: statistics may lie), then within the plan's row restriction."""
    lo[0] = 0
    hi[0] = c
    if c and (a[0] < t1 or a[c - 1] > t2):
        lo[0] = lower_bound(a, c, t1)
        hi[0] = upper_bound(a, c, t2)
    if keep_end >= 0:
        if keep_from > lo[0]:
            lo[0] = keep_from
        if keep_end < hi[0]:
            hi[0] = keep_end
    if hi[0] < lo[0]:
        hi[0] = lo[0]


cdef Py_ssize_t time_window_page(FileView fv, Chunk ch, Page *pg, tsfile_prefix *body,
                                 int64_t t1, int64_t t2, int path, int64_t *out, Py_ssize_t cap,
                                 LoopState *st, Py_ssize_t *lo, Py_ssize_t *c) except -1 nogil:
    """The timestamps in [t1, t2] of a TS_2DIFF time page opened as ``body``, through the block
    skip (tsfile._read.pushdown; its errors are renamed after the page by loop_error): *lo gets
    the first kept row, *c the page's rows; returns the end row. A page with statistics is read
    only as far as the window (decompressed, or for an uncompressed page touched): its
    statistics count its rows. One without is read whole, its blocks counted."""
    cdef tsfile_prefix *more = body if pg.has_stats else NULL
    cdef const codec_row *row = codec_row_for(fv, ch.encoding, T_INT64, pg.body)
    cdef int cp = pick_path(row, path)
    cdef Py_ssize_t k
    st.hits[row.codec_id][cp] += 1
    st.at = pg.body
    st.encoding = ch.encoding
    st.stage = STAGE_COUNT
    k = time_window_rows(body.dst, pg.usize, more, t1, t2, cp, out, cap, lo, c)
    st.stage = STAGE_OWN
    if c[0] < 0:  # not read to its end (only with statistics)
        c[0] = pg.count
        # the rows found must lie inside the count the value pages are read by (their bitmaps
        # are sized from it): statistics that count fewer rows than the window reaches lie
        if lo[0] + k > pg.count:
            with gil:
                raise corrupt(fv, f"time page statistics count {pg.count} timestamps, the "
                                  f"window reaches row {lo[0] + k}", pg.body)
    return lo[0] + k


cdef Py_ssize_t time_pages(FileView fv, Chunk ch, int64_t t1, int64_t t2, int path,
                           int64_t *out, Py_ssize_t cap, Scratch s, bint chunk_inside,
                           int64_t *plan, LoopState *st) except -1 nogil:
    """The page loop of read_time_chunk (without the GIL): the planned pages' timestamps in
    [t1, t2] into out[0:cap], completing the plan; returns the rows written."""
    cdef Py_ssize_t i, c, lo, hi, rows = 0
    cdef int64_t *dst
    cdef int64_t *pr
    cdef Page *pg
    cdef const uint8_t *body
    cdef tsfile_prefix stream
    cdef bint everything = t1 == INT64_MIN_ and t2 == INT64_MAX_
    cdef bint inside, windowed
    for i in range(ch.n_pages):
        pg = &ch.pages[i]
        pr = plan + i * PLAN_COLS
        pr[PLAN_ROWS] = pg.count
        if pr[PLAN_FROM] < 0:
            pr[PLAN_END] = -1
            pr[PLAN_OUT] = -1
            continue
        if pg.usize == 0:
            with gil:
                raise corrupt(fv, "empty page in a time chunk", pg.body)
        inside = everything or (pg.has_stats and pg.start >= t1 and pg.end <= t2) or (
            not pg.has_stats and chunk_inside)
        # part of a TS_2DIFF page wanted (and no row restriction): its blocks outside [t1, t2]
        # stay packed, and a compressed page is decompressed only as far as the window reaches
        # (when its statistics count its rows: else it is read whole, to count them)
        windowed = not inside and ch.encoding == E_TS_2DIFF and pr[PLAN_END] < 0
        page_open(fv, ch, pg, s, &stream)
        if not (windowed and pg.has_stats):
            page_need(fv, pg, &stream, pg.usize)
        body = stream.dst
        c = time_count(fv, body, pg.usize, ch.encoding, pg.body, st) if inside else -1
        if windowed:
            hi = time_window_page(fv, ch, pg, &stream, t1, t2, path, out + rows, cap - rows,
                                  st, &lo, &c)
        elif c >= 0:
            # the whole page is wanted: decode straight into the result
            if rows + c > cap:
                with gil:
                    raise corrupt(fv, "time chunk holds more rows than its statistics say",
                                  ch.offset)
            dst = out + rows
            decode_numeric(fv, body, pg.usize, T_INT64, ch.encoding, c, <uint8_t *>dst, path,
                           pg.body, st)
            keep_rows(dst, c, t1, t2, pr[PLAN_FROM], pr[PLAN_END], &lo, &hi)
            if lo:
                memmove(dst, dst + lo, (hi - lo) * 8)
        else:
            c = decode_times(fv, body, pg.usize, ch.encoding, path, s, pg.body, st)
            keep_rows(s.ts, c, t1, t2, pr[PLAN_FROM], pr[PLAN_END], &lo, &hi)
            if rows + (hi - lo) > cap:
                with gil:
                    raise corrupt(fv, "time chunk holds more rows than its statistics say",
                                  ch.offset)
            memcpy(out + rows, s.ts + lo, (hi - lo) * 8)
        count_prefix(&stream)
        if pg.has_stats and pg.count != c:
            with gil:
                raise corrupt(fv, f"time page holds {c} timestamps, its statistics say "
                                  f"{pg.count}", pg.body)
        pr[PLAN_ROWS] = c
        pr[PLAN_FROM] = lo
        pr[PLAN_END] = hi
        pr[PLAN_OUT] = rows
        rows += hi - lo
    return rows


def read_time_chunk(FileView fv not None, Chunk ch not None, int64_t t1, int64_t t2, int path, out_ts,
                    Py_ssize_t pos, Scratch s not None, bint chunk_inside=False,
                    Py_ssize_t page_lo=0, Py_ssize_t page_hi=-1, plan=None):
    """Decode the timestamps of an aligned time chunk in [t1, t2] into out_ts[pos:], following
    ``plan`` (plan_pages(ch, t1, t2, page_lo, page_hi) by default: large chunks are served in
    blocks of pages), in one call without the GIL for UNCOMPRESSED, SNAPPY and LZ4 pages.

    ``chunk_inside``: the chunk's statistics lie inside [t1, t2] (then pages without statistics
    are decoded straight into the result). Returns (rows, plan) with the plan completed (see
    PLAN_*): the selection read_value_chunk follows for the chunk group's value chunks.
    """
    cdef Py_ssize_t cap = len(out_ts), rows = 0
    cdef int64_t *out = <int64_t *>cnp.PyArray_DATA(out_ts)
    cdef int64_t *rows_of_plan
    cdef LoopState st
    check_open(fv)
    if ch.data_type != T_VECTOR and not (ch.marker & 0x80):
        raise corrupt(fv, "expected a time chunk", ch.offset)
    if plan is None:
        plan = plan_pages(ch, t1, t2, page_lo, page_hi)
    rows_of_plan = plan_rows(plan)
    if plan.shape[0] != ch.n_pages:
        raise ValueError(f"the plan has {plan.shape[0]} pages, the time chunk at file offset "
                         f"{ch.offset} {ch.n_pages}")
    if pos < 0 or pos > cap:
        raise ValueError(f"output position {pos} outside the {cap} rows of the result")
    memset(&st, 0, sizeof(LoopState))
    try:
        with nogil:
            rows = time_pages(fv, ch, t1, t2, path, out + pos, cap - pos, s, chunk_inside,
                              rows_of_plan, &st)
    except Exception as exc:
        err = loop_error(fv, &st, exc)
        if err is exc:
            raise
        raise err from None
    finally:
        flush_hits(&st)
    return rows, plan


cdef struct TimeChunk:
    PyObject *ch        # its Chunk (borrowed: the caller's list holds it)
    int64_t *plan       # its plan's rows (the plan array is held by the returned list)
    int64_t *out        # its first result row
    Py_ssize_t cap      # rows of room from there on
    bint inside         # its statistics lie inside [t1, t2]
    Py_ssize_t rows     # rows written


def read_time_chunks(FileView fv not None, list chunks, int64_t t1, int64_t t2, int path,
                     out_ts, list starts, list caps, list insides, list page_los, list page_his,
                     Scratch s):
    """read_time_chunk over several time chunks (a time job's chunk groups, in order) in ONE
    nogil region: chunk k's timestamps in [t1, t2] into out_ts[starts[k] : starts[k] + caps[k]]
    (its room: more rows are a CorruptDataError, as read_time_chunk's), its pages planned by
    plan_pages(chunk, t1, t2, page_los[k], page_his[k]), ``insides[k]`` its chunk_inside. One
    GIL hand-over per job instead of one per chunk group: beside a thread holding the GIL (a
    planner, another job's Python), each hand-over may wait for it. Returns [(rows, plan)] per
    chunk, as read_time_chunk would; the first chunk that fails raises (what was written for
    the chunks before it stays in out_ts). The same as prepare_time_chunks(...).run(s)."""
    return prepare_time_chunks(fv, chunks, t1, t2, path, out_ts, starts, caps, insides,
                               page_los, page_his).run(s)


cdef Py_ssize_t run_time_chunks(FileView fv, TimeChunk *todo, Py_ssize_t n, int64_t t1,
                                int64_t t2, int path, Scratch s, LoopState *st) except -1 nogil:
    """The page loops of a prepared time job's chunks, in order (without the GIL): the one loop
    of TimeBatch.run and run_time_batches."""
    cdef Py_ssize_t k
    for k in range(n):
        todo[k].rows = time_pages(fv, <Chunk>todo[k].ch, t1, t2, path, todo[k].out, todo[k].cap,
                                  s, todo[k].inside, todo[k].plan, st)
    return 0


cdef class TimeBatch:
    """A time job prepared by prepare_time_chunks: run(s) decodes it (once)."""

    cdef FileView fv
    cdef list chunks    # the Chunks the TimeChunks borrow
    cdef list plans     # their page plans (the TimeChunks point into them)
    cdef object out_ts  # the result array the TimeChunks point into
    cdef int64_t t1
    cdef int64_t t2
    cdef int path
    cdef TimeChunk *todo
    cdef Py_ssize_t n
    cdef bint started

    def __dealloc__(self):
        free(self.todo)
        self.todo = NULL

    def run(self, Scratch s not None):
        """Decode the prepared chunks (the GIL released for the whole loop): [(rows, plan)] per
        chunk, as read_time_chunks; raises as it does. A batch runs once (its plans are filled
        in by the decode)."""
        cdef Py_ssize_t k
        cdef LoopState st
        cdef FileView fv = self.fv
        cdef TimeChunk *todo = self.todo
        cdef int64_t t1 = self.t1, t2 = self.t2
        cdef int path = self.path
        if self.todo == NULL:
            raise ValueError("a TimeBatch comes from prepare_time_chunks")
        if self.started:
            raise ValueError("a TimeBatch runs once")
        self.started = True
        check_open(fv)
        memset(&st, 0, sizeof(LoopState))
        try:
            with nogil:
                run_time_chunks(fv, todo, self.n, t1, t2, path, s, &st)
            return [(todo[k].rows, self.plans[k]) for k in range(self.n)]
        except Exception as exc:
            err = loop_error(fv, &st, exc)
            if err is exc:
                raise
            raise err from None
        finally:
            flush_hits(&st)


cdef struct NumericChunk:
    PyObject *ch        # its Chunk (borrowed: the caller's list holds it)
    const int64_t *plan # its chunk group's plan (held by the caller's list)
    Py_ssize_t n_plan   # the plan's pages
    uint8_t *out        # its values' result at the output position
    uint8_t *nm         # its null mask there
    Py_ssize_t cap      # rows of room from there on
    Py_ssize_t nulls    # null rows written
    PyObject *counts    # its group's list of null rows (borrowed, as ch)
    Py_ssize_t at       # its index in that list


cdef struct PreparedRun:
    PyObject *fv        # the batch's FileView (borrowed: the batch holds it)
    TimeChunk *todo
    Py_ssize_t n
    int64_t t1
    int64_t t2
    int path
    NumericChunk *vals  # its ValueBatch's chunks (NULL: none), decoded after its time chunks
    Py_ssize_t n_vals
    bint vals_run       # set when they were decoded


def run_time_batches(list batches, Scratch s not None):
    """Run several prepared TimeBatches (of any files) in ONE nogil region, in order: one GIL
    hand-over for all of them, for a helper that decodes beside a thread planning in Python
    (each hand-over waits for that thread to let go of the GIL). Returns the results of the
    batches that completed, in order ([(rows, plan)] per chunk each, as run()): a batch that
    fails ends the call there, its error dropped (the caller decodes it again, the way that
    raises it) and the batches after it left unrun. Every batch given is spent (it runs at most
    once, as with run()). The batches' files must stay open until it
    returns (the caller's guarantee: no operation of a reader is entered here)."""
    return [t for t, _v in run_batches(batches, None, s)]


def run_ahead_batches(list batches, list values, Scratch s not None):
    """run_time_batches with the field columns of each batch's chunk groups: ``values[j]``, a
    ValueBatch prepared over ``batches[j]`` (prepare_value_groups) or None, is decoded in the
    same nogil region right after its time chunks, when every one of them wrote exactly its
    room's rows (else the value chunks' rows would not be where the ValueBatch placed them).
    Returns, per batch completed, (its run() result, the ValueBatch's null rows per chunk
    group and column, or None when it had none or did not run). A batch that fails, in its
    time or its value chunks, ends the call there as in run_time_batches (values written for it
    stay written: the caller decodes its chunk groups again). Every batch given is spent."""
    if values is None or len(values) != len(batches):
        raise ValueError("run_ahead_batches takes a ValueBatch or None per TimeBatch")
    return run_batches(batches, values, s)


cdef list run_batches(list batches, list values, Scratch s):
    cdef Py_ssize_t j, k, nb = len(batches), done = 0
    cdef TimeBatch b
    cdef ValueBatch v
    cdef PreparedRun *runs
    cdef PreparedRun *r
    cdef LoopState st
    cdef bint exact
    held = list(batches)
    vheld = [None] * nb if values is None else list(values)
    seen = set()  # a batch named twice in this call runs once too (none is marked started yet)
    for j in range(nb):
        if not isinstance(held[j], TimeBatch):  # a typed variable lets None through
            raise TypeError("run_time_batches takes TimeBatches (prepare_time_chunks)")
        b = held[j]
        if b.todo == NULL:
            raise ValueError("a TimeBatch comes from prepare_time_chunks")
        if b.started or id(b) in seen:
            raise ValueError("a TimeBatch runs once")
        seen.add(id(b))
        if vheld[j] is not None:
            if not isinstance(vheld[j], ValueBatch):
                raise TypeError("run_ahead_batches takes ValueBatches (prepare_value_groups)")
            v = vheld[j]
            if v.tb is not b or v.started or id(v) in seen:
                raise ValueError("a ValueBatch runs once, with the TimeBatch it was prepared "
                                 "over")
            seen.add(id(v))
    for j in range(nb):
        check_open((<TimeBatch>held[j]).fv)
    runs = <PreparedRun *>malloc(nb * sizeof(PreparedRun) + 1)
    if runs == NULL:
        raise MemoryError()
    for j in range(nb):
        b = held[j]
        b.started = True
        runs[j].fv = <PyObject *>b.fv
        runs[j].todo = b.todo
        runs[j].n = b.n
        runs[j].t1 = b.t1
        runs[j].t2 = b.t2
        runs[j].path = b.path
        runs[j].vals = NULL
        runs[j].n_vals = 0
        runs[j].vals_run = False
        if vheld[j] is not None:
            v = vheld[j]
            v.started = True
            runs[j].vals = v.todo
            runs[j].n_vals = v.m
    memset(&st, 0, sizeof(LoopState))
    try:
        with nogil:
            for j in range(nb):
                r = &runs[j]
                run_time_chunks(<FileView>r.fv, r.todo, r.n, r.t1, r.t2, r.path, s, &st)
                if r.vals != NULL:
                    exact = True
                    for k in range(r.n):
                        exact = exact and r.todo[k].rows == r.todo[k].cap
                    if exact:
                        numeric_pages(<FileView>r.fv, r.vals, r.n_vals, r.path, s, &st)
                        r.vals_run = True
                done = j + 1
    except Exception:
        pass  # batch `done` failed: decoded again by the caller, which raises its error
    finally:
        flush_hits(&st)
    out = []
    try:
        for j in range(done):
            b = held[j]
            times = [(b.todo[k].rows, b.plans[k]) for k in range(b.n)]
            out.append((times, (<ValueBatch>vheld[j]).counts_of() if runs[j].vals_run else None))
    finally:
        free(runs)
    return out


cdef class ValueBatch:
    """The field columns of a prepared time job's chunk groups (prepare_value_groups): parsed
    and checked, their result places fixed; run_ahead_batches decodes them once, after the
    time chunks."""

    cdef FileView fv
    cdef TimeBatch tb
    cdef list held      # per chunk group (chunks, result arrays): what the todo borrows
    cdef NumericChunk *todo
    cdef Py_ssize_t m
    cdef list widths    # per chunk group, its chunks
    cdef bint started

    def __dealloc__(self):
        free(self.todo)
        self.todo = NULL

    cdef list counts_of(self):
        """Per chunk group, the null rows of each of its value chunks (after a run); None for a
        group prepared without its values."""
        out, i = [], 0
        for w in self.widths:
            if w is None:
                out.append(None)
                continue
            out.append([self.todo[i + k].nulls for k in range(<Py_ssize_t>w)])
            i += w
        return out


def prepare_value_groups(FileView fv not None, TimeBatch tb not None, list groups):
    """The value chunks of the chunk groups of the prepared time job ``tb``, to decode right
    after it (run_ahead_batches), the GIL-bound part done now: each group given as (offsets,
    types, out_vals, out_nulls, pos, names) for tb's chunk k, or None to leave that group's
    values to the caller (read_value_groups' checks: every
    chunk parsed, of its type and column name, with the pages of its time chunk, the result
    arrays' room). Numeric chunks only (TEXT/STRING/BLOB values are Python objects, decoded
    with the GIL): a value chunk of another type is a ValueError. Its rows land at ``pos``
    following tb's page plans, so the caller places each group's values at the final rows of
    its time chunk only if that chunk fills its room (run_ahead_batches checks it)."""
    cdef Py_ssize_t k, m = 0, at
    cdef Chunk ch
    cdef ValueBatch vb
    if tb.todo == NULL:
        raise ValueError("a TimeBatch comes from prepare_time_chunks")
    if tb.fv is not fv:
        raise ValueError("prepare_value_groups: the TimeBatch reads another file")
    if tb.started:
        raise ValueError("a TimeBatch runs once: this one has run")
    if len(groups) != tb.n:
        raise ValueError("prepare_value_groups takes one group per chunk of the TimeBatch")
    check_open(fv)
    held, widths = [], []
    for k in range(tb.n):
        if groups[k] is None:
            widths.append(None)
            continue
        offsets, types, out_vals, out_nulls, pos, names = groups[k]
        at = pos  # converted once: checked and used as this one value
        offsets, types = list(offsets), list(types)
        out_vals, out_nulls = list(out_vals), list(out_nulls)
        plan = tb.plans[k]
        chunks = value_group_chunks(fv, <Chunk>tb.chunks[k], plan, offsets, types, out_vals,
                                    out_nulls, at, None, None if names is None else list(names))
        for ch in chunks:
            if is_binary(ch.data_type):
                raise ValueError("prepare_value_groups decodes numeric value chunks only")
        held.append((chunks, plan, out_vals, out_nulls, at))
        widths.append(len(chunks))
        m += len(chunks)
    vb = ValueBatch.__new__(ValueBatch)
    vb.fv = fv
    vb.tb = tb
    vb.held = held
    vb.widths = widths
    vb.todo = <NumericChunk *>malloc(m * sizeof(NumericChunk) + 1)
    if vb.todo == NULL:
        raise MemoryError()
    vb.m = numeric_chunk_entries(held, None, vb.todo)  # every chunk: numeric, checked above
    return vb


def prepare_time_chunks(FileView fv not None, list chunks, int64_t t1, int64_t t2, int path,
                        out_ts, list starts, list caps, list insides, list page_los, list page_his):
    """read_time_chunks in two steps: everything that needs the GIL (the checks of every
    argument, the page plans) now, on the calling thread; the decode by the TimeBatch's run(s),
    on any thread, which holds the GIL only to start and to return the results. A many-file
    read prepares a file's time job as it plans it and a helper runs it meanwhile
    (tsfile._read.ahead): the helper then barely competes for the GIL with the planning."""
    cdef Py_ssize_t k, n = len(chunks), size, start, cap
    cdef Chunk ch
    cdef TimeBatch b
    cdef int64_t *out
    if not (len(starts) == len(caps) == len(insides) == len(page_los) == len(page_his) == n):
        raise ValueError("read_time_chunks takes a start, a room, a chunk_inside and a page "
                         "range per chunk")
    if not (isinstance(out_ts, np.ndarray) and out_ts.dtype == np.int64 and out_ts.ndim == 1
            and out_ts.flags.c_contiguous and out_ts.flags.writeable):
        raise ValueError("out_ts must be a writable contiguous int64 array")
    check_open(fv)
    size = len(out_ts)
    b = TimeBatch.__new__(TimeBatch)
    b.fv = fv
    b.chunks = list(chunks)  # the TimeChunks borrow them: held here, not by the caller's list
    b.out_ts = out_ts
    b.t1 = t1
    b.t2 = t2
    b.path = path
    b.plans = []
    # each start and room converted ONCE and kept as checked (plain ints): read again from the
    # caller's lists, an object whose __index__ changes its answer would place the write
    # outside the checked rows
    checked = []
    for k in range(n):
        if not isinstance(b.chunks[k], Chunk):  # a typed variable lets None through
            raise TypeError("prepare_time_chunks takes time Chunks")
        ch = b.chunks[k]
        if ch.data_type != T_VECTOR and not (ch.marker & 0x80):
            raise corrupt(fv, "expected a time chunk", ch.offset)
        start = starts[k]
        cap = caps[k]
        if start < 0 or cap < 0 or start > size - cap:
            raise ValueError(f"rows [{start}, {start + cap}) outside the {size} rows of the "
                             "result")
        checked.append((start, cap))
        b.plans.append(plan_pages(ch, t1, t2, page_los[k], page_his[k]))
    b.todo = <TimeChunk *>malloc(n * sizeof(TimeChunk) + 1)
    if b.todo == NULL:
        raise MemoryError()
    b.n = n
    out = <int64_t *>cnp.PyArray_DATA(out_ts)
    for k in range(n):
        b.todo[k].ch = <PyObject *>b.chunks[k]
        b.todo[k].plan = plan_rows(b.plans[k])
        start, cap = checked[k]
        b.todo[k].out = out + start
        b.todo[k].cap = cap
        b.todo[k].inside = insides[k]
        b.todo[k].rows = 0
    return b


cdef object typed_min_max(const uint8_t *p, int t):
    """(min, max) from the typed part of numeric statistics at ``p`` (format notes 6: they come
    first, big-endian), or Ellipsis for a type whose statistics carry none."""
    cdef int32_t a32, b32
    cdef int64_t a64, b64
    cdef float f1, f2
    cdef double d1, d2
    if t == T_INT32 or t == T_DATE:
        return (be32(p), be32(p + 4))
    if t == T_INT64 or t == T_TIMESTAMP:
        return (be64(p), be64(p + 8))
    if t == T_FLOAT:
        a32, b32 = be32(p), be32(p + 4)
        memcpy(&f1, &a32, 4)
        memcpy(&f2, &b32, 4)
        return (<double>f1, <double>f2)
    if t == T_DOUBLE:
        a64, b64 = be64(p), be64(p + 8)
        memcpy(&d1, &a64, 8)
        memcpy(&d2, &b64, 8)
        return (d1, d2)
    return Ellipsis


def page_value_ranges(FileView fv not None, Chunk ch not None):
    """Per page of a numeric value chunk, what its statistics say about its values: (min, max)
    of its non-NULL values, None when it holds none (an empty page, or a count of 0), or
    Ellipsis when it has no statistics (a one-page chunk: unknown). For pruning pages by a value
    filter (tsfile._read.predicate.pages_may_match)."""
    cdef Py_ssize_t i
    cdef Page *pg
    check_open(fv)
    out = []
    for i in range(ch.n_pages):
        pg = &ch.pages[i]
        if pg.usize == 0 or (pg.has_stats and pg.count == 0):
            out.append(None)
        elif not pg.has_stats:
            out.append(Ellipsis)
        else:  # parse_pages checked that the typed part lies inside the chunk
            out.append(typed_min_max(fv.ptr + pg.typed_at, ch.data_type))
    return out


def check_aligned_pages(FileView fv not None, Chunk tch not None, Chunk vch not None):
    """Page k of a value chunk must cover exactly the rows of page k of its time chunk (format
    notes 5.4): from the page headers alone (before any row is decoded), a value page whose
    statistics count more values than its time page has rows, or whose values' times lie outside
    the time page's range, does not (e.g. the official writer leaves the rows of a tablet that
    lacked the column out of its pages): an error naming the value page, never values paired
    with other rows' times. The row counts in the page bodies are checked as they are decoded."""
    aligned_pages(fv, tch, vch)


cdef int aligned_pages(FileView fv, Chunk tch, Chunk vch) except -1:
    """check_aligned_pages (also run by read_value_chunks for each of its chunks)."""
    cdef Py_ssize_t i, n = min(tch.n_pages, vch.n_pages)
    cdef Page *tp
    cdef Page *vp
    for i in range(n):
        tp = &tch.pages[i]
        vp = &vch.pages[i]
        if vp.usize == 0 or not (tp.has_stats and vp.has_stats) or vp.count == 0:
            continue
        if vp.count > tp.count or vp.start < tp.start or vp.end > tp.end:
            raise corrupt(
                fv, f"value page {i} of the chunk at file offset {vch.offset} holds {vp.count} "
                f"values at times {vp.start}..{vp.end}, not within the {tp.count} rows at "
                f"times {tp.start}..{tp.end} of its time page (the value page does not cover "
                "the time page's rows)", vp.body)
    return 0


cdef Py_ssize_t scatter(uint8_t *dst, const uint8_t *dense, const uint8_t *bitmap,
                        Py_ssize_t lo, Py_ssize_t hi, int size, uint8_t *nullmask) noexcept nogil:
    """Rows lo..hi of a page: copy present values from the dense array (its first value: the
    first present row from lo on), flag nulls."""
    cdef Py_ssize_t r, j = 0, nulls = 0
    for r in range(lo, hi):
        if bitmap[r >> 3] & (0x80 >> (r & 7)):
            memcpy(dst + (r - lo) * size, dense + j * size, size)
            j += 1
        else:
            memset(dst + (r - lo) * size, 0, size)
            nullmask[r - lo] = 1
            nulls += 1
    return nulls


cdef Py_ssize_t scatter_objects(FileView fv, const uint8_t *p, Py_ssize_t n, int t, int enc,
                                Py_ssize_t k, const uint8_t *bitmap, Py_ssize_t lo,
                                Py_ssize_t hi, object out_vals, Py_ssize_t at, uint8_t *nm,
                                int path, Py_ssize_t file_at) except -1:
    """Rows lo..hi of a TEXT/STRING/BLOB value page (``k`` values present before row hi) into
    out_vals[at:], flagging nulls in nm[0:]; returns the null rows (with the GIL: objects)."""
    cdef object[::1] objs = out_vals
    cdef Py_ssize_t r, d = 0, nulls = 0
    # values present before row lo are not wanted
    dense_objs = objects_span(fv, p, n, t, enc, tsfile_bitmap_count(bitmap, lo), k, path,
                              file_at)
    for r in range(lo, hi):
        if bitmap[r >> 3] & (0x80 >> (r & 7)):
            objs[at + r - lo] = dense_objs[d]
            d += 1
        else:
            objs[at + r - lo] = None
            nm[r - lo] = 1
            nulls += 1
    return nulls


cdef Py_ssize_t value_pages(FileView fv, Chunk ch, const int64_t *plan, Py_ssize_t n_plan,
                            int path, uint8_t *out, object out_vals, Py_ssize_t obj_at,
                            uint8_t *nm, Py_ssize_t cap, Scratch s,
                            LoopState *st) except -1 nogil:
    """The page loop of read_value_chunk (without the GIL but for TEXT/STRING/BLOB values):
    the planned rows of each page into out (numeric) or out_vals[obj_at:] (objects) and nm, at
    [0:cap]; returns the null rows."""
    cdef Py_ssize_t i, n, k, j, lo, hi, at, bm_bytes, vals_n, nulls = 0
    cdef const int64_t *pr
    cdef Page *pg
    cdef const uint8_t *body
    cdef const uint8_t *bitmap
    cdef const uint8_t *vals
    cdef tsfile_prefix stream
    cdef int t = ch.data_type
    cdef int size = itemsize_of(t)
    cdef bint binary = is_binary(t)
    for i in range(n_plan):
        pg = &ch.pages[i]
        pr = plan + i * PLAN_COLS
        lo = pr[PLAN_FROM]
        if lo < 0:
            continue
        hi = pr[PLAN_END]
        n = pr[PLAN_ROWS]
        at = pr[PLAN_OUT]
        if at < 0 or hi < lo or at + hi - lo > cap:
            with gil:
                raise corrupt(fv, "value rows beyond the result capacity", pg.body)
        if pg.usize == 0:  # empty page: every row null
            memset(nm + at, 1, hi - lo)
            if not binary:
                memset(out + at * size, 0, (hi - lo) * size)
            nulls += hi - lo
            continue
        if pg.usize < 4:
            with gil:
                raise corrupt(fv, "value page shorter than its row count", pg.body)
        # the body as far as it is read: the row count and bitmap, then what the values need
        page_open(fv, ch, pg, s, &stream)
        page_need(fv, pg, &stream, 4)
        body = stream.dst
        if be32(body) != n:
            with gil:
                raise corrupt(fv, f"value page has {be32(body)} rows, its time page {n}",
                              pg.body)
        bm_bytes = (n + 7) >> 3
        if 4 + bm_bytes > pg.usize:
            with gil:
                raise corrupt(fv, "value page bitmap runs past the page", pg.body)
        page_need(fv, pg, &stream, 4 + bm_bytes)
        bitmap = body + 4
        vals = body + 4 + bm_bytes
        vals_n = pg.usize - 4 - bm_bytes
        k = tsfile_bitmap_count(bitmap, n)
        if pg.has_stats and k != pg.count:
            with gil:
                raise corrupt(fv, f"value page bitmap marks {k} rows present, its statistics "
                                  f"count {pg.count} values", pg.body)
        if k == n and lo == 0 and hi == n:
            page_need(fv, pg, &stream, pg.usize)
            if binary:
                with gil:
                    decode_objects(fv, vals, vals_n, t, ch.encoding, n, out_vals, obj_at + at,
                                   path, pg.body)
            else:
                decode_numeric(fv, vals, vals_n, t, ch.encoding, n, out + at * size, path,
                               pg.body, st)
            count_prefix(&stream)
            continue
        # rows past hi are not wanted: decode only the values present before row hi
        if hi < n:
            k = tsfile_bitmap_count(bitmap, hi)
        if binary:
            page_need(fv, pg, &stream, pg.usize)
            with gil:
                nulls += scatter_objects(fv, vals, vals_n, t, ch.encoding, k, bitmap, lo, hi,
                                         out_vals, obj_at + at, nm + at, path, pg.body)
        else:
            j = tsfile_bitmap_count(bitmap, lo)  # values present before row lo
            nulls += value_page_rows(fv, ch, pg, &stream, 4 + bm_bytes, bitmap, lo, hi, j, k,
                                     out + at * size, nm + at, path, s, st)
        count_prefix(&stream)
    return nulls


cdef Py_ssize_t value_page_rows(FileView fv, Chunk ch, Page *pg, tsfile_prefix *body,
                                Py_ssize_t vals_at, const uint8_t *bitmap, Py_ssize_t lo,
                                Py_ssize_t hi, Py_ssize_t j, Py_ssize_t k, uint8_t *dst,
                                uint8_t *nm, int path, Scratch s, LoopState *st) except -1 nogil:
    """Rows lo..hi of a numeric value page (values j..k-1 present there, values at ``vals_at``
    in the opened ``body``) into dst, nulls flagged in nm: straight into dst when no row of
    lo..hi is null, else through a dense buffer and scatter. Returns the null rows."""
    cdef int size = itemsize_of(ch.data_type)
    cdef bint no_nulls = k - j == hi - lo
    cdef const uint8_t *dense = value_range(fv, ch, pg, body, vals_at, j, k,
                                            dst if no_nulls else s.need_vals((k - j) * size + 8),
                                            path, s, st)
    if no_nulls:
        if dense != dst:
            memcpy(dst, dense, (k - j) * size)
        return 0
    return scatter(dst, dense, bitmap, lo, hi, size, nm)


cdef const uint8_t *value_range(FileView fv, Chunk ch, Page *pg, tsfile_prefix *body,
                                Py_ssize_t vals_at, Py_ssize_t j, Py_ssize_t k, uint8_t *out,
                                int path, Scratch s, LoopState *st) except NULL nogil:
    """Values j..k-1 of a numeric value page (values at ``vals_at`` in the opened ``body``)
    into ``out``, through the codec's row-range decoder where it has one (TS_2DIFF integers by
    their block headers in pushdown.value_rows; codec_row.decode_rows: PLAIN by offset or by
    walking svarints, ALP blocks, RLE runs and TS_2DIFF FLOAT/DOUBLE blocks by their headers,
    the serial bit streams walked without storing; the body decompressed only as far as the
    codec reads); else all k values decoded into the scratch. Returns a pointer to value j
    (``out`` or inside the scratch)."""
    cdef int t = ch.data_type, enc = ch.encoding
    cdef int size = itemsize_of(t)
    cdef Py_ssize_t vals_n = pg.usize - vals_at
    cdef const uint8_t *vals = body.dst + vals_at
    cdef uint8_t *dense
    if decode_span(fv, t, enc, vals, vals_n, body, j, k, out, path, pg.body, st):
        return out
    page_need(fv, pg, body, pg.usize)
    dense = s.need_vals(k * size + 8)
    decode_numeric(fv, vals, vals_n, t, enc, k, dense, path, pg.body, st)
    return dense + j * size


def read_value_chunk(FileView fv not None, Chunk ch not None, plan, int expect_type, int path, out_vals,
                     out_null, Py_ssize_t pos, Scratch s not None, expect_name=None):
    """Decode the rows selected by ``plan`` (completed by read_time_chunk) of an aligned value
    chunk into out_vals[pos:], flagging nulls in out_null[pos:] (bool), in one call without the
    GIL (but for TEXT/STRING/BLOB values and the compressions without a C decoder). Returns the
    number of null rows. ``expect_name``: the column's name in the index (None: not checked)."""
    cdef const int64_t *rows_of_plan
    cdef LoopState st
    check_open(fv)
    rows_of_plan = plan_rows(plan)
    check_value_chunk(fv, ch, plan.shape[0], expect_type, expect_name)
    check_output(out_vals, out_null, pos, ch.data_type)
    memset(&st, 0, sizeof(LoopState))
    try:
        return value_chunk_into(fv, ch, rows_of_plan, plan.shape[0], path, out_vals, out_null,
                                pos, s, &st)
    except Exception as exc:
        err = loop_error(fv, &st, exc)
        if err is exc:
            raise
        raise err from None
    finally:
        flush_hits(&st)


cdef int pad_null_chunk(Chunk ch, Py_ssize_t n_plan) except -1:
    """A value chunk with no bytes at all is how the Java writer (ValueChunkWriter) stores a
    column that is null in every row of its chunk group, where the C++ writer stores one empty
    page (0x00) per time page: it is given empty pages up to the plan's count, so both read as
    the nulls they are.

    The chunk may be the reader's cached one, which other threads read: this runs with the GIL
    held (as check_value_chunk's callers do) and before any page loop over the chunk. A value
    chunk pairs with one time chunk, so every plan over it has the same page count and the first
    padding is the only one; later callers find the pages there and change nothing, so a page
    loop that runs without the GIL never sees ``pages`` reallocated under it. Left incomplete:
    pages are made up only as far as a plan asked."""
    cdef Page pg
    memset(&pg, 0, sizeof(Page))
    pg.body = ch.data_start
    while ch.n_pages < n_plan:
        ch.push(&pg)
    ch.complete = False
    return 0


cdef int check_value_chunk(FileView fv, Chunk ch, Py_ssize_t n_plan, int expect_type,
                           expect_name) except -1:
    """A value chunk of the expected type (and of the column ``expect_name``, unless None), with
    the pages of the time chunk's plan."""
    if not (ch.marker & 0x40):
        raise corrupt(fv, "expected a value chunk", ch.offset)
    # the header names its column: an index damaged to point one column at another column's
    # chunk (of the same type) would otherwise return that column's values, without an error
    if expect_name is not None and ch.measurement != expect_name:
        raise corrupt(fv, f"value chunk of column {ch.measurement!r} where the index places "
                          f"column {expect_name!r}", ch.offset)
    if ch.data_type != expect_type:
        raise corrupt(fv, f"value chunk of type {ch.data_type} where the series has type "
                          f"{expect_type}", ch.offset)
    if ch.n_pages < n_plan and ch.data_start == ch.data_end:
        pad_null_chunk(ch, n_plan)
    if ch.n_pages < n_plan or (ch.complete and ch.n_pages != n_plan):
        raise corrupt(fv, f"value chunk has {ch.n_pages} pages, its time chunk {n_plan}",
                      ch.offset)
    return 0


cdef int check_output(out_vals, out_null, Py_ssize_t pos, int t) except -1:
    """The result arrays of a value chunk of type ``t``: writable C-contiguous numpy arrays of
    one row per value (of the type's item size, or objects for TEXT/STRING/BLOB) and one bool
    per row, with room from ``pos`` on (the page loops write through their raw pointers)."""
    if not (isinstance(out_vals, cnp.ndarray) and isinstance(out_null, cnp.ndarray)):
        raise TypeError("the result arrays of a value chunk are numpy arrays")
    cdef cnp.ndarray vals = out_vals, nulls = out_null
    if not (cnp.PyArray_IS_C_CONTIGUOUS(vals) and cnp.PyArray_ISWRITEABLE(vals)
            and cnp.PyArray_IS_C_CONTIGUOUS(nulls) and cnp.PyArray_ISWRITEABLE(nulls)
            and cnp.PyArray_NDIM(vals) == 1 and cnp.PyArray_NDIM(nulls) == 1
            and cnp.PyArray_TYPE(nulls) == cnp.NPY_BOOL
            and (cnp.PyArray_TYPE(vals) == cnp.NPY_OBJECT if is_binary(t)
                 else cnp.PyArray_ITEMSIZE(vals) == itemsize_of(t)
                 and cnp.PyArray_TYPE(vals) != cnp.NPY_OBJECT)):
        raise TypeError(f"the result arrays of a value chunk of type {_TYPE_NAMES.get(t, t)} "
                        f"are one-dimensional writable C-contiguous {numpy_dtype(t)} and bool "
                        f"arrays, not {out_vals.dtype} and {out_null.dtype}")
    cdef Py_ssize_t cap = cnp.PyArray_DIM(vals, 0)
    if cnp.PyArray_DIM(nulls, 0) != cap or pos < 0 or pos > cap:
        raise ValueError(f"output position {pos} outside the {cap} rows of the result")
    return 0


cdef Py_ssize_t value_chunk_into(FileView fv, Chunk ch, const int64_t *plan, Py_ssize_t n_plan,
                                 int path, out_vals, out_null, Py_ssize_t pos, Scratch s,
                                 LoopState *st) except -1:
    """One checked value chunk's page loop (value_pages) into out_vals[pos:] / out_null[pos:],
    the GIL released across it; returns its null rows."""
    cdef Py_ssize_t cap = len(out_vals), nulls
    cdef int t = ch.data_type
    cdef uint8_t *out = NULL if is_binary(t) else <uint8_t *>cnp.PyArray_DATA(out_vals)
    cdef uint8_t *nm = <uint8_t *>cnp.PyArray_DATA(out_null)
    with nogil:
        nulls = value_pages(fv, ch, plan, n_plan, path,
                            NULL if out == NULL else out + pos * itemsize_of(t), out_vals,
                            pos, nm + pos, cap - pos, s, st)
    return nulls


def read_value_chunks(FileView fv not None, Chunk tch not None, plan, list offsets, list types, int path,
                      list out_vals, list out_nulls, Py_ssize_t pos, Scratch s not None,
                      list checked=None, list names=None):
    """read_value_chunk over the value chunks of one chunk group (at file ``offsets``, each
    with its expected type and result arrays ``out_vals[k]`` / ``out_nulls[k]``, all at
    ``pos``): their headers parsed (read_chunk: as many pages as the plan has when the time
    chunk ``tch`` was parsed in part; the reader's planner mapped their file pages without the
    GIL, TsFileReader._touch_group),
    each checked against ``tch``'s pages (check_aligned_pages), then the numeric ones decoded in
    ONE nogil region: one call, one GIL hand-over per chunk group instead of one per column
    (TEXT/STRING/BLOB chunks run as read_value_chunk runs them). Returns the null rows of each
    chunk.

    ``checked``: None, or an empty list that gets the parsed and checked chunks (in the order
    of ``offsets``), or such a list from an earlier call with the same ``tch`` and ``offsets``
    (the blocks of a chunk group split into runs of pages): then nothing is parsed again, and
    only what this call's arguments can change is checked (each chunk's offset, type and page
    count against the plan). ``names``: None, or each chunk's column name in the index, checked
    against the name its header holds."""
    check_open(fv)
    chunks = value_group_chunks(fv, tch, plan, offsets, types, out_vals, out_nulls, pos,
                                checked, names)
    return value_groups_into(fv, [(chunks, plan, out_vals, out_nulls, pos)], path, s)[0]


def read_value_groups(FileView fv not None, list groups, int path, Scratch s not None):
    """read_value_chunks over several chunk groups (a field job's, in order), each given as
    (tch, plan, offsets, types, out_vals, out_nulls, pos, names): every group's chunks parsed
    and checked first, then the numeric chunks of all of them decoded in ONE nogil region (one
    GIL hand-over per job instead of one per chunk group). Returns each group's list of null
    rows. A failure raises; what was written for the groups before it stays written."""
    cdef Py_ssize_t at
    check_open(fv)
    todo = []
    for tch, plan, offsets, types, out_vals, out_nulls, pos, names in groups:
        at = pos  # converted once: checked and used as this one value
        chunks = value_group_chunks(fv, tch, plan, offsets, types, out_vals, out_nulls, at,
                                    None, names)
        todo.append((chunks, plan, out_vals, out_nulls, at))
    return value_groups_into(fv, todo, path, s)


cdef list value_group_chunks(FileView fv, Chunk tch, plan, list offsets, list types,
                             list out_vals, list out_nulls, Py_ssize_t pos, list checked,
                             list names):
    """The parsed and checked value chunks of one chunk group (read_value_chunks' checks: the
    arguments, each chunk's type, name and pages against the time chunk's, the result arrays'
    room), before anything is decoded."""
    cdef Py_ssize_t k, n = len(offsets), n_plan
    cdef Chunk ch
    if tch is None:  # a None from a group tuple passes the typed argument: its fields would crash
        raise TypeError("a value chunk group needs its time chunk (a Chunk), not None")
    if not (len(types) == len(out_vals) == len(out_nulls) == n):
        raise ValueError("read_value_chunks takes a type and two result arrays per chunk")
    if names is not None and len(names) != n:
        raise ValueError("read_value_chunks takes a column name per chunk")
    plan_rows(plan)
    n_plan = plan.shape[0]
    reuse = bool(checked)
    if reuse:
        if len(checked) != n:
            raise ValueError("checked: the chunks an earlier call parsed at these offsets")
        for k in range(n):
            if not (isinstance(checked[k], Chunk) and (<Chunk>checked[k]).offset == offsets[k]):
                raise ValueError("checked: the chunks an earlier call parsed at these offsets")
        chunks = checked
    else:
        chunks = [read_chunk(fv, off, -1 if tch.complete else n_plan) for off in offsets]
    for k in range(n):
        ch = chunks[k]
        check_value_chunk(fv, ch, n_plan, types[k], None if names is None else names[k])
        if not reuse:
            aligned_pages(fv, tch, ch)
        check_output(out_vals[k], out_nulls[k], pos, ch.data_type)
    if checked is not None and not reuse:
        checked += chunks
    return chunks


cdef list value_groups_into(FileView fv, list groups, int path, Scratch s):
    """The page loops of checked chunk groups ((chunks, plan, out_vals, out_nulls, pos) each):
    the numeric chunks of all of them in one nogil region, then the TEXT/STRING/BLOB ones with
    the GIL (their values are objects), group by group; each group's null rows."""
    cdef LoopState st
    cdef Py_ssize_t k, g, first = 0
    out = [[0] * len(grp[0]) for grp in groups]
    memset(&st, 0, sizeof(LoopState))
    try:
        # chunks decoded in the order of one group at a time (its numeric chunks, then its
        # binary ones), so the first corrupt chunk met is the one a group-by-group read meets:
        # the numeric chunks of a run of groups without binary chunks share one nogil region,
        # and a group with binary chunks ends the run
        for g in range(len(groups)):
            chunks, plan, out_vals, out_nulls, pos = groups[g]
            if not any(is_binary((<Chunk>c).data_type) for c in chunks):
                continue
            numeric_chunks_into(fv, groups[first : g + 1], path, s, &st, out[first : g + 1])
            first = g + 1
            nulls = out[g]
            for k in range(len(chunks)):
                if is_binary((<Chunk>chunks[k]).data_type):
                    nulls[k] = value_chunk_into(fv, chunks[k], plan_rows(plan), plan.shape[0],
                                                path, out_vals[k], out_nulls[k], pos, s, &st)
        if first < len(groups):
            numeric_chunks_into(fv, groups[first:], path, s, &st, out[first:])
    except Exception as exc:
        err = loop_error(fv, &st, exc)
        if err is exc:
            raise
        raise err from None
    finally:
        flush_hits(&st)
    return out


def touch_offsets(FileView fv not None, list offsets):
    """Map the file pages at ``offsets`` (chunk headers; None and those outside the data area
    are left alone) without the GIL, so that the headers parsed there next, with the GIL, take no page
    fault: a first read of a mapped file faults on each page (the kernel maps the cached pages
    around a fault with it), and the other threads of a many-file read would wait for those
    faults. Returns nothing; reading is all it does."""
    cdef Py_ssize_t k, m = 0, n = len(offsets), off
    cdef Py_ssize_t *at = <Py_ssize_t *>malloc(n * sizeof(Py_ssize_t) + 1)
    if at == NULL:
        raise MemoryError()
    check_open(fv)
    try:
        for k in range(n):
            o = offsets[k]
            if o is None:  # a column without a chunk in the group
                continue
            off = o
            if 0 <= off < fv.data_end:
                at[m] = off
                m += 1
        with nogil:
            for k in range(m):
                tsfile_touch_byte(fv.ptr + at[k])
    finally:
        free(at)


cdef Py_ssize_t numeric_chunk_entries(list groups, list counts, NumericChunk *todo) except -1:
    """Fill ``todo`` (room for every chunk of ``groups``) with the numeric chunks of checked
    chunk groups ((chunks, plan, out_vals, out_nulls, pos) each, held by the caller: the
    entries borrow them), in order; ``counts``: None, or a list per group that gets each
    chunk's null rows afterwards (numeric_chunks_into). Returns the entries filled."""
    cdef Py_ssize_t k, g, m = 0
    cdef Py_ssize_t pos
    cdef Chunk ch
    for g in range(len(groups)):
        chunks, plan, out_vals, out_nulls, pos = groups[g]
        for k in range(len(chunks)):
            ch = chunks[k]
            if is_binary(ch.data_type):
                continue
            todo[m].ch = <PyObject *>ch
            todo[m].plan = plan_rows(plan)
            todo[m].n_plan = plan.shape[0]
            todo[m].out = <uint8_t *>cnp.PyArray_DATA(out_vals[k]) + pos * itemsize_of(ch.data_type)
            todo[m].nm = <uint8_t *>cnp.PyArray_DATA(out_nulls[k]) + pos
            todo[m].cap = len(out_vals[k]) - pos
            todo[m].counts = NULL if counts is None else <PyObject *>counts[g]
            todo[m].at = k
            todo[m].nulls = 0
            m += 1
    return m


cdef int numeric_pages(FileView fv, NumericChunk *todo, Py_ssize_t m, int path, Scratch s,
                       LoopState *st) except -1 nogil:
    """The page loops of ``m`` numeric chunk entries, in order, without the GIL: the one loop
    of numeric_chunks_into and of run_ahead_batches' value batches."""
    cdef Py_ssize_t i
    for i in range(m):
        todo[i].nulls = value_pages(fv, <Chunk>todo[i].ch, todo[i].plan, todo[i].n_plan, path,
                                    todo[i].out, None, 0, todo[i].nm, todo[i].cap, s, st)
    return 0


cdef int numeric_chunks_into(FileView fv, list groups, int path, Scratch s, LoopState *st,
                             list counts) except -1:
    """value_groups_into's nogil region: the page loops of the numeric chunks of every group,
    in order, their null rows into ``counts`` (a list per group; the groups' lists stay
    referenced by the caller, so the borrowed pointers stay valid)."""
    cdef Py_ssize_t i, m, n = 0
    for g in groups:
        n += len(g[0])
    cdef NumericChunk *todo = <NumericChunk *>malloc(n * sizeof(NumericChunk) + 1)
    if todo == NULL:
        raise MemoryError()
    try:
        m = numeric_chunk_entries(groups, counts, todo)
        with nogil:
            numeric_pages(fv, todo, m, path, s, st)
        for i in range(m):
            (<list>todo[i].counts)[todo[i].at] = todo[i].nulls
    finally:
        free(todo)
    return 0


cdef Py_ssize_t nonaligned_pages(FileView fv, Chunk ch, int64_t t1, int64_t t2, int path,
                                 int64_t *ots, uint8_t *out, object out_vals, Py_ssize_t pos,
                                 Py_ssize_t cap, Scratch s, LoopState *st) except -1 nogil:
    """The page loop of read_nonaligned_chunk (without the GIL but for TEXT/STRING/BLOB
    values): the points in [t1, t2] at [pos:cap]; returns their number."""
    cdef Py_ssize_t i, c, lo, hi, rows = 0, tp
    cdef int t = ch.data_type
    cdef int size = itemsize_of(t)
    cdef bint binary = is_binary(t)
    cdef Page *pg
    cdef const uint8_t *body
    cdef const uint8_t *vals
    cdef Py_ssize_t vals_n
    cdef uint8_t *dense
    cdef uint32_t tlen
    cdef size_t tvp
    for i in range(ch.n_pages):
        pg = &ch.pages[i]
        if pg.has_stats and (pg.end < t1 or pg.start > t2):
            continue
        if pg.usize == 0:
            continue
        body = page_body(fv, ch, pg, s)
        # time length: a uvarint at the start of the body (not the file), read by the codecs'
        # bounds-checked reader (a 6th byte or bits above 31 are refused, never wrapped)
        tvp = 0
        if tsc_read_uvarint32(body, pg.usize, &tvp, &tlen):
            with gil:
                raise corrupt(fv, "bad time length in a non-aligned page", pg.body)
        tp = <Py_ssize_t>tvp
        if tp + <Py_ssize_t>tlen > pg.usize:
            with gil:
                raise corrupt(fv, f"time length {tlen} exceeds the page", pg.body)
        # The time encoding of non-aligned chunks is not recorded: TS_2DIFF (format notes 5.3).
        c = decode_times(fv, body + tp, tlen, E_TS_2DIFF, path, s, pg.body, st)
        if c == 0:  # no writer stores a page without points (the page of a one-page chunk has
            with gil:  # no statistics to catch this below)
                raise corrupt(fv, f"non-aligned page of {pg.usize} bytes holds no timestamp",
                              pg.body)
        if pg.has_stats and pg.count != c:
            with gil:
                raise corrupt(fv, f"page holds {c} points, its statistics say {pg.count}",
                              pg.body)
        keep_rows(s.ts, c, t1, t2, 0, -1, &lo, &hi)
        if pos + rows + (hi - lo) > cap:
            with gil:
                raise corrupt(fv, "chunk holds more points than its statistics say", ch.offset)
        memcpy(ots + pos + rows, s.ts + lo, (hi - lo) * 8)
        vals = body + tp + tlen
        vals_n = pg.usize - tp - tlen
        if binary:
            with gil:
                nonaligned_objects(fv, vals, vals_n, t, ch.encoding, c, lo, hi, out_vals,
                                   pos + rows, path, pg.body)
        elif lo == 0 and hi == c:
            decode_numeric(fv, vals, vals_n, t, ch.encoding, c, out + (pos + rows) * size, path,
                           pg.body, st)
        elif not decode_span(fv, t, ch.encoding, vals, vals_n, NULL, lo, hi,
                             out + (pos + rows) * size, path, pg.body, st):
            dense = s.need_vals(hi * size + 8)
            decode_numeric(fv, vals, vals_n, t, ch.encoding, hi, dense, path, pg.body, st)
            memcpy(out + (pos + rows) * size, dense + lo * size, (hi - lo) * size)
        rows += hi - lo
    return rows


cdef int nonaligned_objects(FileView fv, const uint8_t *p, Py_ssize_t n, int t, int enc,
                            Py_ssize_t c, Py_ssize_t lo, Py_ssize_t hi, object out_vals,
                            Py_ssize_t at, int path, Py_ssize_t file_at) except -1:
    """Points lo..hi of a non-aligned TEXT/STRING/BLOB page of ``c`` points into out_vals[at:]."""
    cdef object[::1] objs
    cdef Py_ssize_t r
    if lo == 0 and hi == c:
        return decode_objects(fv, p, n, t, enc, c, out_vals, at, path, file_at)
    dense_objs = objects_span(fv, p, n, t, enc, lo, hi, path, file_at)
    objs = out_vals
    for r in range(hi - lo):
        objs[at + r] = dense_objs[r]
    return 0


def read_nonaligned_chunk(FileView fv not None, Chunk ch not None, int64_t t1, int64_t t2, int path, out_ts,
                          out_vals, Py_ssize_t pos, Scratch s not None):
    """A tree-model chunk (format notes 5.3): each page = uvarint time length, TS_2DIFF times,
    values. Writes the points in [t1, t2] at pos, in one call without the GIL (but for
    TEXT/STRING/BLOB values and the compressions without a C decoder); returns their number."""
    cdef Py_ssize_t cap = len(out_ts), rows = 0
    cdef int64_t *ots = <int64_t *>cnp.PyArray_DATA(out_ts)
    cdef uint8_t *out = NULL if is_binary(ch.data_type) else <uint8_t *>cnp.PyArray_DATA(out_vals)
    cdef LoopState st
    check_open(fv)
    if ch.marker & 0xC0:
        raise corrupt(fv, "expected a non-aligned chunk", ch.offset)
    if len(out_vals) != cap or pos < 0 or pos > cap:
        raise ValueError(f"output position {pos} outside the {cap} rows of the result")
    memset(&st, 0, sizeof(LoopState))
    try:
        with nogil:
            rows = nonaligned_pages(fv, ch, t1, t2, path, ots, out, out_vals, pos, cap, s, &st)
    except Exception as exc:
        err = loop_error(fv, &st, exc)
        if err is exc:
            raise
        raise err from None
    finally:
        flush_hits(&st)
    return rows


def c_decompress(int compression, const uint8_t[::1] src, Py_ssize_t usize):
    """The page reader's own C decompressors (SNAPPY, LZ4) on a byte string (for tests)."""
    cdef size_t err_pos = 0
    cdef int rc
    out = np.empty(usize, np.uint8)
    cdef uint8_t[::1] dst = out
    cdef const uint8_t *sp = &src[0] if src.shape[0] > 0 else <const uint8_t *>b""
    cdef uint8_t *dp = &dst[0] if usize > 0 else NULL
    if usize < 0:
        raise ValueError("negative size")
    if compression == C_SNAPPY:
        with nogil:
            rc = tsfile_snappy_decompress(sp, src.shape[0], dp, usize, &err_pos)
        what = tsfile_snappy_strerror(rc).decode()
    elif compression == C_LZ4:
        with nogil:
            rc = tsfile_lz4_decompress(sp, src.shape[0], dp, usize, &err_pos)
        what = tsfile_lz4_strerror(rc).decode()
    else:
        raise ValueError("only SNAPPY (1) and LZ4 (7) have C decompressors here")
    if rc != 0:
        raise CorruptDataError(f"error {rc} ({what}) at byte offset {err_pos}")
    return out.tobytes()


def decode_value_rows(int encoding, int data_type, data, Py_ssize_t start, Py_ssize_t stop,
                      str path="batch", compression=None, Py_ssize_t size=-1):
    """Values start..stop-1 of a page's value bytes (no row count, no bitmap) through the codec's
    row-range decoder (codec_row.decode_rows), as value_range() reads them, for tests and
    benchmarks. ``path``: the codec path ("per_value", "batch", "simd"). ``compression``: None
    (``data`` is the values), or "snappy" / "lz4" (``data`` compresses ``size`` bytes of values,
    decompressed only as far as the decoder reads; not for TEXT/STRING/BLOB, whose values come
    back as str/bytes objects). Returns (values, bytes decompressed: ``size`` at most, the value
    bytes when uncompressed)."""
    cdef const codec_row *row = find_row(encoding, kind_of_type(data_type))
    cdef const uint8_t[::1] src = as_byte_view(data)
    cdef const uint8_t *sp = &src[0] if src.shape[0] else <const uint8_t *>b""
    cdef Py_ssize_t n = src.shape[0]
    cdef tsfile_prefix body
    cdef uint32_t stated = 0
    cdef size_t ip0 = 0
    cdef uint8_t *dst
    cdef void *op
    cdef int cp = _CODEC_PATH_NAMES.index(path)
    cdef bint binary = is_binary(data_type)
    if row == NULL or (row.decode_objects_rows if binary else row.decode_rows) == NULL:
        raise UnsupportedError(f"no row-range decoder for encoding {_encoding_name(encoding)} "
                               f"of {_TYPE_NAMES.get(data_type, data_type)} values")
    if start < 0 or stop < start:
        raise ValueError(f"row range [{start}, {stop}) is not 0 <= start <= stop")
    if binary:  # text pages are read whole: no compression here
        out = np.empty(stop - start, dtype=object)
        if stop > start:
            row.decode_objects_rows(sp, n, start, stop, out, 0, cp, data_type != T_BLOB,
                                    _TYPE_NAMES[data_type])
        return out, n
    out = np.empty(stop - start, _NP_DTYPES[data_type])
    op = cnp.PyArray_DATA(out)
    if compression is None:
        tsfile_prefix_whole(&body, sp, n)
    else:
        if compression not in ("snappy", "lz4") or size < 0:
            raise ValueError("compression is 'snappy' or 'lz4', with the values' size")
        body_arr = np.empty(size + 1, np.uint8)
        dst = <uint8_t *>cnp.PyArray_DATA(body_arr)
        if compression == "lz4":
            tsfile_prefix_stream(&body, TSFILE_PREFIX_LZ4, sp, n, 0, dst, size)
        else:
            if tsfile_snappy_length(sp, n, &stated, &ip0) != 0 or stated != size:
                raise CorruptDataError(f"SNAPPY stream of {stated} bytes, {size} expected")
            tsfile_prefix_stream(&body, TSFILE_PREFIX_SNAPPY, sp, n, ip0, dst, size)
    with nogil:
        row.decode_rows(body.dst, <Py_ssize_t>body.want, &body, start, stop, op, row.kind, cp)
    return out, body.op
