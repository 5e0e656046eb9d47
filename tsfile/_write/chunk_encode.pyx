# cython: boundscheck=False, wraparound=False, cdivision=True
"""All pages of one chunk, encoded and compressed in one call without the GIL.

:func:`encode_pages` returns the chunk's data (everything after its chunk header) as one
ChunkData (bytes-like, in pooled memory): per page its header (uncompressed and compressed
size, then the page statistics when the chunk has several pages) and its stored body; an
aligned value page without values is the single byte 0x00. A value chunk's statistics are
computed in the same pass (each page's just before it is encoded, while its values are in cache)
and returned with the data. The bytes are exactly those of the per-page path in
tsfile._write.chunk (checked by tests/test_chunk_encode.py), so a chunk is written the same way
on either path.

Which chunks take it (:func:`supports`): value encodings through the codec registry's encode_into
(PLAIN, GORILLA, RLE, ZIGZAG, ALP; they never refuse a value of a page within page_limit()) and
TS_2DIFF for integer kinds, which carries each page's last min_delta into the next page as the
official writer does; compression UNCOMPRESSED,
SNAPPY (include/snappy_compress.h: the bytes of cramjam.snappy.compress_raw, which the writer
used before, without holding the GIL) or LZ4 (the system's liblz4, include/lz4_dynamic.h, used
only when it gives the bytes of cramjam.lz4.compress_block on probe inputs: lz4_available()).
Other chunks keep the per-page path.

Holding no GIL while a chunk is built is what lets two writers in two threads (or the columns of a
chunk group, writer option threads=) use two cores. :class:`ChunkEncoder` splits one chunk's pages
into runs encoded on several threads at once (a chunk group has few columns: whole chunks alone
leave a thread idle at the group's end); pages depend on the pages before them only through
TS_2DIFF's carried min_delta (re-planned at a run's start, ts2diff_page_carry) and the chunk's
statistics (kept per page, merged in page order at the end), so the bytes are those of one pass.
"""

cimport numpy as cnp
from cpython.buffer cimport PyBuffer_FillInfo
from cpython.bytearray cimport PyByteArray_AS_STRING, PyByteArray_FromStringAndSize
from cpython.bytes cimport PyBytes_FromStringAndSize
from libc.stdint cimport int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memmove, memset

from tsfile.codecs._contract cimport codec_row
from tsfile.codecs._kinds cimport (
    KIND_BOOL,
    KIND_F32,
    KIND_F64,
    KIND_I32,
    KIND_I64,
    uvarint_len,
    write_uvarint,
)
from tsfile.codecs._registry cimport find_row, kind_of_type
from tsfile.codecs.ts2diff cimport ts2diff_encode_page, ts2diff_page_bound, ts2diff_page_carry
from tsfile._write._stats cimport (
    STATS_MAX_BYTES,
    stats_acc,
    stats_acc_init,
    stats_acc_merge,
    stats_acc_result,
    stats_page,
)

import numpy as np

from tsfile.errors import EncodeError

cnp.import_array()

cdef extern from "snappy_compress.h" nogil:
    enum: SNAPPY_MAX_TABLE
    size_t snappy_compress_bound(size_t n)
    size_t snappy_compress(const uint8_t *src, size_t n, uint8_t *dst, uint16_t *table)

cdef extern from "lz4_dynamic.h" nogil:
    ctypedef int (*tsfile_lz4_compress_fn)(const char *src, char *dst, int src_size,
                                           int dst_capacity)
    enum: TSFILE_LZ4_MAX_INPUT
    size_t tsfile_lz4_bound(size_t n)
    tsfile_lz4_compress_fn tsfile_lz4_load()

# TsFile codes (format notes 7, 8): the ones this module handles itself.
cdef enum:
    _PLAIN = 0
    _RLE = 2
    _TS_2DIFF = 4
    _GORILLA = 8
    _ZIGZAG = 9
    _ALP = 15
    _UNCOMPRESSED = 0
    _SNAPPY = 1
    _LZ4 = 7

# Encodings taken from the registry's encode_into here: those whose Python encode() in the writer
# (tsfile._write.encoders.value_encoder) runs the same C encoder as the row's encode_into and never
# refuses a value of a page within page_limit(). TS_2DIFF is handled apart (its min_delta crosses
# pages); SPRINTZ and CAMEL need the writer's round-trip check; CHIMP, RLBE, SPRINTZ have no
# encode_into; text encodings keep the per-page path.
_REGISTRY_ENCODINGS = frozenset((_PLAIN, _GORILLA, _RLE, _ZIGZAG, _ALP))
def page_limit(int encoding, int data_type):
    """The most values a page of this encoding and data type code may hold in encode_pages (the
    codec row's max_page_values: beyond, the codec's encode() refuses the page, RLE and ZIGZAG
    block headers, ALP's 32-bit count, and that refusal is the per-page path's), or None (no
    limit, or no row)."""
    cdef int kind = kind_of_type(data_type)
    cdef const codec_row *row = NULL if kind < 0 else find_row(encoding, kind)
    if row == NULL or row.max_page_values <= 0:
        return None
    return row.max_page_values


# LZ4 (the writer's default compression): through the system's liblz4 (include/lz4_dynamic.h),
# only where it gives the per-page path's bytes (_load_lz4).
cdef tsfile_lz4_compress_fn _lz4_compress = NULL


def _lz4_probes():
    """Inputs on which the loaded LZ4 must give the per-page path's bytes before it is used: the
    two hash tables (inputs below and above 64 KiB + 11), long matches, incompressible bytes,
    a TS_2DIFF page body."""
    rng = np.random.default_rng(8)
    walk = np.cumsum(rng.integers(-100, 101, 12_000)).astype(">i8").tobytes()
    return [
        b"",
        b"a",
        bytes(100),
        rng.integers(0, 256, 5000, dtype=np.uint8).tobytes(),
        rng.integers(0, 4, 70_000, dtype=np.uint8).tobytes(),
        (b"0123456789abcdef" * 5000)[:65_547],
        walk,
    ]


def _load_lz4():
    """Load liblz4 if it gives exactly the bytes of tsfile.compression.compress (the per-page
    path: cramjam's LZ4, liblz4 too) on the probes; else leave LZ4 to the per-page path."""
    global _lz4_compress
    from tsfile.compression import LZ4, compress

    _lz4_compress = tsfile_lz4_load()
    if _lz4_compress == NULL:
        return
    try:
        same = all(_lz4_raw(p) == compress(LZ4, p) for p in _lz4_probes())
    except Exception:  # noqa: BLE001 - no usable per-page LZ4 to compare with: keep that path
        same = False
    if not same:
        _lz4_compress = NULL


cdef bytes _lz4_raw(const unsigned char[::1] src):
    cdef Py_ssize_t n = src.shape[0]
    if n > TSFILE_LZ4_MAX_INPUT:  # liblz4 takes int sizes: <int>n would drop the high bits
        raise ValueError(f"{n} bytes are too large for LZ4 (at most {TSFILE_LZ4_MAX_INPUT})")
    cdef Py_ssize_t cap = <Py_ssize_t>tsfile_lz4_bound(<size_t>n)
    cdef bytearray out = PyByteArray_FromStringAndSize(NULL, cap)
    cdef int used
    cdef char empty = 0
    cdef const char *sp = <const char *>&src[0] if n else &empty
    cdef char *dp = PyByteArray_AS_STRING(out)
    with nogil:
        used = _lz4_compress(sp, dp, <int>n, <int>cap)
    if used <= 0:
        raise RuntimeError("liblz4 LZ4_compress_default failed")
    return bytes(out[:used])


def lz4_compress_raw(data):
    """LZ4 block of `data` by the loaded liblz4 (the bytes of tsfile.compression.compress), as
    bytes; RuntimeError when no liblz4 is in use (lz4_available()), ValueError beyond liblz4's
    LZ4_MAX_INPUT_SIZE."""
    if _lz4_compress == NULL:
        raise RuntimeError("no liblz4 in use: LZ4 chunks take the per-page path")
    return _lz4_raw(memoryview(data).cast("B"))


def lz4_available():
    """True when LZ4 chunks are compressed here (liblz4 loaded and checked)."""
    return _lz4_compress != NULL


_load_lz4()
_COMPRESSORS = frozenset((_UNCOMPRESSED, _SNAPPY, _LZ4))  # LZ4: while lz4_available()
_NUMERIC_KINDS = frozenset((KIND_BOOL, KIND_I32, KIND_I64, KIND_F32, KIND_F64))

_DTYPES = {
    KIND_BOOL: np.dtype(np.bool_),
    KIND_I32: np.dtype(np.int32),
    KIND_I64: np.dtype(np.int64),
    KIND_F32: np.dtype(np.float32),
    KIND_F64: np.dtype(np.float64),
}
cdef int _WIDTH[5]
_WIDTH[:] = [1, 4, 8, 4, 8]


def supports(int encoding, int data_type, int compressor):
    """True when encode_pages writes chunks of this encoding, data type code and compressor."""
    cdef int kind = kind_of_type(data_type)
    if kind not in _NUMERIC_KINDS or compressor not in _COMPRESSORS:
        return False
    if compressor == _LZ4 and _lz4_compress == NULL:
        return False
    if encoding == _TS_2DIFF:
        return kind == KIND_I32 or kind == KIND_I64
    if encoding not in _REGISTRY_ENCODINGS:
        return False
    cdef const codec_row *row = find_row(encoding, kind)
    return row != NULL and row.encode_into != NULL and row.encode_bound != NULL


# -- the chunks' output memory ------------------------------------------------------------------
#
# A chunk's data lives from encode_pages until the writer has handed it to the OS, a few chunks
# later; fresh memory for every chunk (a bytearray of the chunk's bound, tens of MB) costs a page
# fault per 4 KiB touched and an munmap per chunk, about a tenth of the writer's CPU time on the
# E5-2 shape. ChunkData keeps its memory in a small pool instead: the next chunk writes into pages
# that are already mapped. The pool is used only with the GIL held (taken in encode_pages, given
# back by ChunkData's deallocation), which is what makes it safe to share between threads.

cdef enum:
    _POOL_SLOTS = 8
    _POOL_MAX_BYTES = 128 << 20  # pooled capacity kept at most (only touched pages use memory)

cdef uint8_t *_pool_mem[_POOL_SLOTS]
cdef Py_ssize_t _pool_cap[_POOL_SLOTS]
cdef int _pool_len = 0
cdef Py_ssize_t _pool_bytes = 0


cdef uint8_t *_pool_take(Py_ssize_t need, Py_ssize_t *capacity) noexcept:
    """Memory for at least `need` bytes (its size in *capacity): the smallest pooled block that
    is large enough, else a new one; NULL when out of memory."""
    global _pool_len, _pool_bytes
    cdef int i, best = -1
    cdef uint8_t *mem
    for i in range(_pool_len):
        if _pool_cap[i] >= need and (best < 0 or _pool_cap[i] < _pool_cap[best]):
            best = i
    if best < 0:
        capacity[0] = need if need > 0 else 1
        return <uint8_t *>malloc(capacity[0])
    mem = _pool_mem[best]
    capacity[0] = _pool_cap[best]
    _pool_bytes -= _pool_cap[best]
    _pool_len -= 1
    _pool_mem[best] = _pool_mem[_pool_len]
    _pool_cap[best] = _pool_cap[_pool_len]
    return mem


cdef void _pool_give(uint8_t *mem, Py_ssize_t capacity) noexcept:
    """Keep `mem` for a later chunk, or free it when the pool is full (then the smallest block
    makes room for a larger one: chunks of one writer have similar bounds)."""
    global _pool_len, _pool_bytes
    cdef int i, smallest = 0
    if mem == NULL:
        return
    if capacity > _POOL_MAX_BYTES:
        free(mem)
        return
    while _pool_len and (_pool_len == _POOL_SLOTS or _pool_bytes + capacity > _POOL_MAX_BYTES):
        smallest = 0
        for i in range(1, _pool_len):
            if _pool_cap[i] < _pool_cap[smallest]:
                smallest = i
        if _pool_cap[smallest] >= capacity:
            free(mem)  # every pooled block is at least as large: keep those
            return
        free(_pool_mem[smallest])
        _pool_bytes -= _pool_cap[smallest]
        _pool_len -= 1
        _pool_mem[smallest] = _pool_mem[_pool_len]
        _pool_cap[smallest] = _pool_cap[_pool_len]
    _pool_mem[_pool_len] = mem
    _pool_cap[_pool_len] = capacity
    _pool_len += 1
    _pool_bytes += capacity


def release_pool():
    """Free the pooled output memory (a closed writer calls it; the pool refills when chunks are
    encoded again)."""
    global _pool_len, _pool_bytes
    while _pool_len:
        _pool_len -= 1
        free(_pool_mem[_pool_len])
    _pool_bytes = 0


def pool_info():
    """(blocks, bytes) held by the output pool now (tests)."""
    return _pool_len, _pool_bytes


cdef class ChunkData:
    """The bytes of one chunk's pages (what encode_pages returns): a read-only bytes-like object
    (buffer protocol, len) over pooled memory, given back to the pool when it is dropped."""

    cdef uint8_t *mem
    cdef Py_ssize_t capacity
    cdef Py_ssize_t size

    def __cinit__(self):
        self.mem = NULL
        self.capacity = 0
        self.size = 0

    def __dealloc__(self):
        _pool_give(self.mem, self.capacity)
        self.mem = NULL

    def __len__(self):
        return self.size

    def __getbuffer__(self, Py_buffer *view, int flags):
        PyBuffer_FillInfo(view, self, <void *>self.mem, self.size, 1, flags)

    def __releasebuffer__(self, Py_buffer *view):
        pass

    def __bytes__(self):
        return PyBytes_FromStringAndSize(<const char *>self.mem, self.size)


cdef ChunkData _chunk_data(Py_ssize_t need):
    cdef ChunkData out = ChunkData.__new__(ChunkData)
    out.mem = _pool_take(need, &out.capacity)
    if out.mem == NULL:
        raise MemoryError(f"no memory for a chunk of up to {need} bytes")
    return out


# One chunk's job, everything the nogil part reads (pointers into arrays the caller keeps alive).
cdef struct job:
    const uint8_t *values      # the non-null values, native layout, `width` bytes each
    int width
    int kind
    bint ts2diff               # else `row`
    const codec_row *row
    int compressor
    Py_ssize_t npages
    const int64_t *offsets     # npages + 1 indexes into values
    const int64_t *bounds      # npages + 1 row indexes (value pages: rows and bitmap), or NULL
    const uint8_t *present     # not-null flag per row, or NULL (no nulls); value pages only
    const int64_t *times       # time chunk pages: their statistics from these, or NULL
    const int64_t *value_times  # value chunk pages: their statistics from these, or NULL
    stats_acc acc               # ... and the chunk's statistics so far


cdef inline uint8_t *_put_be32(uint8_t *o, uint32_t v) noexcept nogil:
    o[0] = <uint8_t>(v >> 24)
    o[1] = <uint8_t>(v >> 16)
    o[2] = <uint8_t>(v >> 8)
    o[3] = <uint8_t>v
    return o + 4


cdef inline uint8_t *_put_be64(uint8_t *o, uint64_t v) noexcept nogil:
    _put_be32(o, <uint32_t>(v >> 32))
    return _put_be32(o + 4, <uint32_t>v)


cdef inline Py_ssize_t _bitmap_len(Py_ssize_t rows) noexcept nogil:
    return (rows + 7) >> 3


cdef uint8_t *_put_bitmap(uint8_t *o, const uint8_t *present, Py_ssize_t rows) noexcept nogil:
    """The page's not-null bitmap, MSB first (np.packbits); all ones without `present`."""
    cdef Py_ssize_t i, full = rows >> 3
    cdef int k
    cdef uint8_t byte
    if present == NULL:
        memset(o, 0xFF, full)
        if rows & 7:
            o[full] = <uint8_t>((0xFF << (8 - (rows & 7))) & 0xFF)
        return o + _bitmap_len(rows)
    for i in range(_bitmap_len(rows)):
        byte = 0
        for k in range(8):
            if i * 8 + k < rows and present[i * 8 + k]:
                byte |= <uint8_t>(0x80 >> k)
        o[i] = byte
    return o + _bitmap_len(rows)


cdef Py_ssize_t _values_bound(const job *j, Py_ssize_t count) noexcept nogil:
    if j.ts2diff:
        return ts2diff_page_bound(count, j.kind == KIND_I64)
    return j.row.encode_bound(count, j.kind)


cdef Py_ssize_t _page_stats_len(const job *j, Py_ssize_t p) noexcept nogil:
    if j.npages == 1:
        return 0  # a one-page chunk has no page statistics (format notes 5.2)
    if j.times != NULL:
        return 5 + 16  # uvarint count, start and end time
    if j.value_times != NULL:
        return STATS_MAX_BYTES
    return 0


cdef Py_ssize_t _body_bound(const job *j, Py_ssize_t p) noexcept nogil:
    cdef Py_ssize_t n = _values_bound(j, j.offsets[p + 1] - j.offsets[p])
    if j.bounds != NULL:
        n += 4 + _bitmap_len(j.bounds[p + 1] - j.bounds[p])
    return n


cdef Py_ssize_t _out_bound(const job *j, Py_ssize_t p0, Py_ssize_t p1,
                           Py_ssize_t *scratch) noexcept nogil:
    """Bytes pages p0 .. p1 - 1 can take at most; `scratch`: the largest page body."""
    cdef Py_ssize_t p, body, total = 0
    scratch[0] = 0
    for p in range(p0, p1):
        body = _body_bound(j, p)
        if body > scratch[0]:
            scratch[0] = body
        total += 10 + _page_stats_len(j, p) + <Py_ssize_t>snappy_compress_bound(<size_t>body)
    return total


cdef Py_ssize_t _encode_body(const job *j, Py_ssize_t p, bint next_is_ours, uint8_t *body,
                             uint64_t *carried) except -1 nogil:
    """Page p's uncompressed body into `body`; its length. `next_is_ours`: page p + 1 is this
    range's next page (a TS_2DIFF encode fetches it into the cache meanwhile); a range's last
    page leaves the page after it alone (another range's, maybe another thread's)."""
    cdef uint8_t *o = body
    cdef Py_ssize_t a = j.offsets[p], count = j.offsets[p + 1] - a, rows, used
    cdef const uint8_t *vals = j.values + a * j.width
    cdef const uint8_t *ahead = NULL  # the range's next page: read next, by its statistics
    cdef Py_ssize_t ahead_len = 0
    if j.bounds != NULL:
        rows = j.bounds[p + 1] - j.bounds[p]
        o = _put_be32(o, <uint32_t>rows)
        o = _put_bitmap(o, NULL if j.present == NULL else j.present + j.bounds[p], rows)
    if j.ts2diff:
        if next_is_ours:
            ahead = j.values + j.offsets[p + 1] * j.width
            ahead_len = (j.offsets[p + 2] - j.offsets[p + 1]) * j.width
        used = ts2diff_encode_page(vals, count, j.kind == KIND_I64, carried, o, ahead, ahead_len)
    else:
        used = j.row.encode_into(vals, count, j.kind, o, j.row.encode_bound(count, j.kind))
    return (o - body) + used


cdef uint8_t *_put_time_page_stats(const job *j, Py_ssize_t p, uint8_t *o) noexcept nogil:
    """A time page's statistics: count, first and last time (Statistics(VECTOR))."""
    cdef Py_ssize_t a = j.offsets[p], b = j.offsets[p + 1]
    o += write_uvarint(o, <uint32_t>(b - a))
    o = _put_be64(o, <uint64_t>j.times[a])
    return _put_be64(o, <uint64_t>j.times[b - 1])


cdef Py_ssize_t _segment_at(const stats_acc *acc, Py_ssize_t a) noexcept nogil:
    """The index of the write segment holding value a (the statistics' segment cursor for a
    range of pages that starts there; 0 without segments)."""
    cdef Py_ssize_t lo = 0, hi = acc.nseg, mid
    if acc.segs == NULL:
        return 0
    while lo < hi:  # the first segment k with segs[k + 1] > a
        mid = (lo + hi) >> 1
        if acc.segs[mid + 1] <= a:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef uint64_t _carried_into(const job *j, Py_ssize_t p) noexcept nogil:
    """TS_2DIFF: the min_delta the pages before page p carry into it (what one pass over them
    leaves): the carry of the last of them with deltas (that carry does not depend on what
    came before it), 0 at the chunk's start."""
    cdef Py_ssize_t q, a, count
    for q in range(p - 1, -1, -1):
        a = j.offsets[q]
        count = j.offsets[q + 1] - a
        if count >= 2:
            return ts2diff_page_carry(j.values + a * j.width, count, j.kind == KIND_I64, 0)
    return 0


cdef Py_ssize_t _encode_range(const job *j, Py_ssize_t p0, Py_ssize_t p1, uint8_t *out,
                              uint8_t *body, uint16_t *table, stats_acc *page_acc,
                              bint *rising) except -1 nogil:
    """Pages p0 .. p1 - 1 into `out` (room for _out_bound of them); the bytes written. A value
    chunk's page statistics go to page_acc[p] (one stats_acc per page, merged in page order by
    ChunkEncoder.result()): a range depends on no other range's output, so ranges may be
    encoded on several threads at once, in any order. `rising` (a time chunk, or NULL): set to
    False when a page's times (each from the last time of the page before) do not rise
    strictly."""
    cdef uint8_t *o = out
    cdef uint8_t *head_end
    cdef uint64_t carried = 0  # TS_2DIFF: min_delta carried into the next page
    cdef Py_ssize_t p, body_len, stored, reserve, head_len, seg = 0
    cdef Py_ssize_t nstats = 0
    cdef unsigned char stats_buf[STATS_MAX_BYTES]
    if j.ts2diff and p0 > 0:
        carried = _carried_into(j, p0)
    if j.value_times != NULL and p0 < p1:
        seg = _segment_at(&j.acc, j.offsets[p0])
    for p in range(p0, p1):
        if j.bounds != NULL and j.offsets[p + 1] == j.offsets[p]:
            o[0] = 0  # an aligned value page whose rows are all null
            o += 1
            continue
        if j.value_times != NULL:  # first, so that the page is in cache when it is encoded
            page_acc[p] = j.acc  # the chunk's settings (segments), no values yet
            page_acc[p].k = seg
            nstats = stats_page(j.kind, j.values, j.value_times, j.offsets[p], j.offsets[p + 1],
                                &page_acc[p], stats_buf if j.npages > 1 else NULL)
            seg = page_acc[p].k
        elif j.npages > 1 and j.times != NULL:
            nstats = _put_time_page_stats(j, p, stats_buf) - stats_buf
        body_len = _encode_body(j, p, p + 1 < p1, body, &carried)
        if rising != NULL and rising[0]:
            # the page's times were just read by the encode (in cache): the writer's order check
            # costs no pass over memory of its own (TsFileWriter._written_alone)
            rising[0] = _page_rises(j.times, j.offsets[p], j.offsets[p + 1])
        # The stored body goes right after the header as it will be if the stored size takes as
        # many uvarint bytes as body_len (compression rarely changes that); otherwise it moves
        # against the real header below.
        reserve = 2 * uvarint_len(<uint32_t>body_len) + (nstats if j.npages > 1 else 0)
        if j.compressor == _SNAPPY:
            stored = <Py_ssize_t>snappy_compress(body, <size_t>body_len, o + reserve, table)
        elif j.compressor == _LZ4:
            # the room: snappy_compress_bound(body) (_out_bound), more than tsfile_lz4_bound
            stored = _lz4_compress(<const char *>body, <char *>(o + reserve), <int>body_len,
                                   <int>tsfile_lz4_bound(<size_t>body_len))
            if stored <= 0:
                with gil:
                    raise EncodeError(f"LZ4 compression of a page of {body_len} bytes failed")
        else:
            stored = body_len
            memcpy(o + reserve, body, body_len)
        head_len = (uvarint_len(<uint32_t>body_len) + uvarint_len(<uint32_t>stored)
                    + (nstats if j.npages > 1 else 0))
        if head_len != reserve:  # (memmove: the two ranges may overlap)
            memmove(o + head_len, o + reserve, stored)
        head_end = o + write_uvarint(o, <uint32_t>body_len)
        head_end += write_uvarint(head_end, <uint32_t>stored)
        if j.npages > 1:
            memcpy(head_end, stats_buf, nstats)
        o += head_len + stored
    return o - out


cdef inline bint _page_rises(const int64_t *t, Py_ssize_t a, Py_ssize_t b) noexcept nogil:
    """Whether t[a - 1] (when a > 0) < t[a] < ... < t[b - 1]."""
    if a > 0:
        a -= 1
    return _strictly_increasing(t + a, b - a)


cdef object _as_int64(object seq):
    return np.ascontiguousarray(np.asarray(seq, dtype=np.int64))


# Range states (ChunkEncoder._state)
cdef enum:
    _WAITING = 0
    _RUNNING = 1
    _DONE = 2
    _FAILED = 3


cdef class ChunkEncoder:
    """The pages of one chunk, encoded in `ranges` runs of consecutive pages (encode(r), each
    without the GIL; distinct ranges may run on different threads at once, in any order), then
    joined in page order (result()): the bytes and statistics are exactly those of one pass over
    the pages. The writer's threads share the pages of a chunk this way (a chunk group has few
    columns: whole chunks alone leave a thread idle at the group's end).

    Arguments as encode_pages; `ranges`: how many runs (at most the number of pages; runs of
    equal page counts); `check_order` (a time chunk): each range also checks, page by page as it
    encodes them, that the times rise strictly (`rising`, once every range is encoded)."""

    cdef job j
    cdef object _keep          # the arrays j points into
    cdef Py_ssize_t _nranges
    cdef Py_ssize_t *_first    # _nranges + 1 page indexes: range r is pages _first[r] ..
    cdef uint8_t *_state       # per range: _WAITING, _RUNNING, _DONE, _FAILED
    cdef list _data            # per range its ChunkData, None until encoded
    cdef stats_acc *_page_acc  # value chunks: the statistics of each page
    cdef bint _check_order     # check that the times rise (a time chunk)
    cdef bint _fell            # ... and a range found a time not above the one before

    def __cinit__(self):
        self._first = NULL
        self._state = NULL
        self._page_acc = NULL

    def __dealloc__(self):
        free(self._first)
        free(self._state)
        free(self._page_acc)

    def __init__(self, values, offsets, int encoding, int data_type, int compressor, *,
                 bounds=None, present=None, times=None, value_times=None, segments=None,
                 Py_ssize_t ranges=1, bint check_order=False):
        if self._keep is not None:
            # a second __init__ would re-point j while a range may be encoded from it without
            # the GIL (and drop the arrays it reads), and leak the range tables
            raise TypeError("ChunkEncoder: initialized once")
        self._keep = _prepare_job(&self.j, values, offsets, encoding, data_type, compressor,
                                  bounds, present, times, value_times, segments)
        cdef Py_ssize_t r, npages = self.j.npages
        if check_order and self.j.times == NULL:
            raise ValueError("ChunkEncoder: check_order needs times (a time chunk)")
        self._check_order = check_order
        if ranges < 1:
            raise ValueError(f"ChunkEncoder: ranges must be at least 1, not {ranges}")
        self._nranges = min(ranges, max(npages, 1))
        self._first = <Py_ssize_t *>malloc((self._nranges + 1) * sizeof(Py_ssize_t))
        self._state = <uint8_t *>malloc(self._nranges)
        if self.j.value_times != NULL:
            self._page_acc = <stats_acc *>malloc(max(npages, 1) * sizeof(stats_acc))
        if self._first == NULL or self._state == NULL or (
            self.j.value_times != NULL and self._page_acc == NULL
        ):
            raise MemoryError()
        for r in range(self._nranges + 1):
            self._first[r] = r * npages // self._nranges
        memset(self._state, _WAITING, self._nranges)
        if self._page_acc != NULL:
            for r in range(npages):
                self._page_acc[r].count = 0  # an all-null page has no statistics
        self._data = [None] * self._nranges

    @property
    def ranges(self):
        """The number of page runs (encode(r) for r in range(ranges))."""
        return self._nranges

    def encode(self, Py_ssize_t r):
        """Encode range r (pages in order within it) without the GIL. Each range once; ranges
        may be encoded concurrently from several threads."""
        if r < 0 or r >= self._nranges:
            raise IndexError(f"ChunkEncoder: no range {r} (ranges: {self._nranges})")
        if self._state[r] != _WAITING:  # (checked and set with the GIL held)
            raise ValueError(f"ChunkEncoder: range {r} was encoded already")
        self._state[r] = _RUNNING
        cdef Py_ssize_t p0 = self._first[r], p1 = self._first[r + 1], need, scratch_len
        cdef Py_ssize_t used = -1
        cdef uint8_t *scratch = NULL
        cdef uint16_t *table = NULL
        cdef ChunkData out
        cdef bint rises = True
        try:
            need = _out_bound(&self.j, p0, p1, &scratch_len)
            if <uint64_t>snappy_compress_bound(<size_t>scratch_len) > 0xFFFFFFFFu or (
                self.j.compressor == _LZ4 and scratch_len > TSFILE_LZ4_MAX_INPUT
            ):
                # page headers hold 32-bit sizes (uvarint); such a page is far beyond any
                # page_size
                raise ValueError(
                    f"encode_pages: a page of up to {scratch_len} bytes is too large")
            out = _chunk_data(need)
            scratch = <uint8_t *>malloc(scratch_len + 1)
            table = <uint16_t *>malloc(SNAPPY_MAX_TABLE * sizeof(uint16_t))
            if scratch == NULL or table == NULL:
                raise MemoryError()
            with nogil:
                used = _encode_range(&self.j, p0, p1, out.mem, scratch, table, self._page_acc,
                                     &rises if self._check_order else NULL)
            out.size = used
            if not rises:
                self._fell = True
            self._data[r] = out
            self._state[r] = _DONE
        except BaseException:
            self._state[r] = _FAILED
            raise
        finally:
            free(scratch)
            free(table)

    @property
    def rising(self):
        """check_order: whether every time is greater than the one before (None without
        check_order), once every range is encoded."""
        cdef Py_ssize_t r
        for r in range(self._nranges):
            if self._state[r] != _DONE:
                raise ValueError(f"ChunkEncoder: range {r} is not encoded")
        return not self._fell if self._check_order else None

    def result(self):
        """(the chunk's data: a ChunkData per range, in page order; the chunk's statistics when
        value_times was given, else None), once every range is encoded; once: the data are
        handed over (the encoder keeps no reference, so that their memory goes back to the
        pool as soon as the caller has written them)."""
        cdef Py_ssize_t r, p
        cdef stats_acc acc
        for r in range(self._nranges):
            if self._state[r] != _DONE:
                raise ValueError(f"ChunkEncoder: range {r} is not encoded")
        if self._data is None:
            raise ValueError("ChunkEncoder: the result was taken already")
        data, self._data = self._data, None
        if self.j.value_times == NULL:
            return data, None
        acc = self.j.acc
        for p in range(self.j.npages):
            stats_acc_merge(&acc, &self._page_acc[p], self.j.kind)
        return data, stats_acc_result(&acc, self.j.kind)


cdef tuple _prepare_job(job *j, values, offsets, int encoding, int data_type, int compressor,
                        bounds, present, times, value_times, segments):
    """Check the arguments of encode_pages and fill `j`; the arrays j points into (keep them)."""
    if not supports(encoding, data_type, compressor):
        raise ValueError(f"encode_pages: encoding {encoding}, type {data_type}, compression "
                         f"{compressor} are not handled here (see supports())")
    j.kind = kind_of_type(data_type)
    want = _DTYPES[j.kind]
    if not isinstance(values, np.ndarray) or values.ndim != 1 or values.dtype != want:
        # no silent cast: an int64 array for an INT32 column would lose bits
        raise TypeError(f"encode_pages: values must be a 1-D {want} array for type {data_type}")
    cdef cnp.ndarray vals = np.ascontiguousarray(values)
    cdef cnp.ndarray off = _as_int64(offsets)
    cdef cnp.ndarray rows = None if bounds is None else _as_int64(bounds)
    cdef cnp.ndarray mask = None
    cdef cnp.ndarray tim = None
    j.npages = off.shape[0] - 1
    if j.npages < 0 or off[0] != 0 or off[j.npages] != vals.shape[0] or (
        j.npages and bool((np.diff(off) < 0).any())
    ):
        raise ValueError("encode_pages: offsets must rise from 0 to len(values)")
    if rows is not None and rows.shape[0] != off.shape[0]:
        raise ValueError("encode_pages: bounds and offsets differ in length")
    j.values = <const uint8_t *>cnp.PyArray_DATA(vals)
    j.width = _WIDTH[j.kind]
    j.ts2diff = encoding == _TS_2DIFF
    j.row = NULL if j.ts2diff else find_row(encoding, j.kind)
    j.compressor = compressor
    j.offsets = <const int64_t *>cnp.PyArray_DATA(off)
    j.bounds = NULL if rows is None else <const int64_t *>cnp.PyArray_DATA(rows)
    j.present = NULL
    if present is not None:
        mask = np.ascontiguousarray(present, dtype=np.bool_)
        if rows is None or mask.shape[0] < rows[j.npages]:
            raise ValueError("encode_pages: present needs bounds and a flag per row")
        j.present = <const uint8_t *>cnp.PyArray_DATA(mask)
    j.times = NULL
    if times is not None and value_times is not None:
        raise ValueError("encode_pages: times (a time chunk) or value_times (a value chunk)")
    if times is not None:
        tim = np.ascontiguousarray(times, dtype=np.int64)
        if tim.shape[0] != vals.shape[0]:
            raise ValueError("encode_pages: times and values differ in length")
        j.times = <const int64_t *>cnp.PyArray_DATA(tim)
    j.value_times = NULL
    cdef cnp.ndarray vtim = None
    cdef cnp.ndarray seg_off = None
    cdef cnp.ndarray seg_batch = None
    stats_acc_init(&j.acc, NULL, 0, NULL)
    if value_times is not None:
        vtim = np.ascontiguousarray(value_times, dtype=np.int64)
        if vtim.shape[0] != vals.shape[0]:
            raise ValueError("encode_pages: value_times and values differ in length")
        j.value_times = <const int64_t *>cnp.PyArray_DATA(vtim)
        if segments is not None:
            seg_off = _as_int64(segments[0])
            seg_batch = np.ascontiguousarray(segments[1], dtype=np.uint8)
            if seg_batch.shape[0] != seg_off.shape[0] - 1 or seg_off.shape[0] < 2 or (
                seg_off[0] != 0 or seg_off[seg_off.shape[0] - 1] != vals.shape[0]
            ):
                raise ValueError("encode_pages: segments do not cover the values")
            stats_acc_init(&j.acc, <const int64_t *>cnp.PyArray_DATA(seg_off),
                           seg_off.shape[0] - 1, <const uint8_t *>cnp.PyArray_DATA(seg_batch))
    return (vals, off, rows, mask, tim, vtim, seg_off, seg_batch)


def encode_pages(values, offsets, int encoding, int data_type, int compressor, *, bounds=None,
                 present=None, times=None, value_times=None, segments=None):
    """The data of one chunk (its pages, headers included) as a ChunkData (bytes-like), and the
    chunk's statistics when this call computed them (value_times given), else None.

    values: the chunk's non-null values (numpy array of the type's dtype); offsets: P + 1 indexes
    into values delimiting the P pages. A time chunk passes `times` (= values): its pages' headers
    get count, first and last time as statistics. A value chunk of an aligned chunk group passes
    `bounds` (P + 1 row indexes: each body starts with its row count and not-null bitmap),
    `present` (bool per row, None: no nulls) and `value_times` (the values' timestamps): each
    page's statistics are computed here, just before the page is encoded (while it is in cache;
    tsfile._write._stats.stats_page), and the chunk's (count, start, end, min, max, first, last,
    sum) is returned; `segments`: (value offsets, batch flags) of the write segments for INT64 /
    DOUBLE sums in the official writer's order (statistics.numeric_value_statistics). Page
    statistics are written only when P > 1. (One ChunkEncoder range: ChunkEncoder splits the
    pages over threads.)"""
    enc = ChunkEncoder(values, offsets, encoding, data_type, compressor, bounds=bounds,
                       present=present, times=times, value_times=value_times, segments=segments)
    enc.encode(0)
    data, stats = enc.result()
    return data[0], stats


# -- the write calls' time order check ----------------------------------------------------------

cdef enum:
    _ORDER_BLOCK = 4096  # values compared without a branch between two early-exit tests


cdef bint _strictly_increasing(const int64_t *t, Py_ssize_t n) noexcept nogil:
    """True when t[0] < t[1] < ... < t[n - 1]. Block by block without a branch per value,
    stopping after the first block with a fault. x < y is the sign of x - y corrected for
    overflow (N xor V, as a CPU's flags give it): subtractions, xors and ands on 64-bit lanes,
    which baseline x86-64 (SSE2) vectorizes, unlike a 64-bit comparison (SSE4.2's pcmpgtq;
    the check inside a 2 M-row time chunk's encode took 0.48 ms so, 0.53 ms with
    `t[i] <= t[i - 1]`)."""
    cdef Py_ssize_t i, a = 1, b
    cdef uint64_t x, y, d, below
    while a < n:
        b = a + _ORDER_BLOCK if n - a > _ORDER_BLOCK else n
        below = ~(<uint64_t>0)  # bit 63 stays set while every t[i - 1] < t[i]
        for i in range(a, b):
            x = <uint64_t>t[i - 1]
            y = <uint64_t>t[i]
            d = x - y
            below &= d ^ ((x ^ y) & (x ^ d))
        if not (below >> 63):
            return False
        a = b
    return True


def strictly_increasing(const int64_t[::1] times):
    """True when every timestamp is greater than the one before (one pass without the GIL,
    no temporary arrays: the writer checks every write call's timestamps with it)."""
    cdef Py_ssize_t n = times.shape[0]
    cdef bint ok
    if n < 2:
        return True
    with nogil:
        ok = _strictly_increasing(&times[0], n)
    return ok


def snappy_compress_raw(data):
    """Raw Snappy of `data` by include/snappy_compress.h (the bytes of
    cramjam.snappy.compress_raw), as bytes."""
    cdef const unsigned char[::1] src = memoryview(data).cast("B")
    cdef Py_ssize_t n = src.shape[0]
    cdef bytearray out = PyByteArray_FromStringAndSize(NULL, snappy_compress_bound(n))
    cdef uint16_t *table = <uint16_t *>malloc(SNAPPY_MAX_TABLE * sizeof(uint16_t))
    cdef size_t used
    cdef const uint8_t *sp = &src[0] if n else NULL
    cdef uint8_t *dp = <uint8_t *>PyByteArray_AS_STRING(out)
    if table == NULL:
        raise MemoryError()
    try:
        with nogil:
            used = snappy_compress(sp, <size_t>n, dp, table)
    finally:
        free(table)
    return bytes(out[:used])
