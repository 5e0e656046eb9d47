# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Query pushdown kernels: skip TS_2DIFF blocks outside a time window, test values with SIMD.

* :func:`time_window`: the timestamps of a TS_2DIFF time page inside [t1, t2], decoding only the
  blocks that can overlap the window (plans ``"off"``, ``"plan_a"``, ``"plan_c"``; see
  include/ts2diff_blockskip.h), with the skip counts of the E5-4 study.
* :func:`decode_rows`: rows [start, stop) of a TS_2DIFF value page, the blocks before ``start``
  passed by their headers.
* Both walks read a SNAPPY / LZ4 page as a prefix that grows as they go (include/page_prefix.h):
  bytes past the last block they need are never decompressed (``compression=``, ``size=``).
* :func:`select` / :func:`select_range`: a predicate on a 1-D int32 / int64 / float32 / float64
  array, as a list of positions, a boolean mask or a packed bitmap (include/filter_*.h). NaN never
  lies in a range; ``!=`` and ``"not between"`` are the negation, as in numpy. Comparisons are
  exact (an int64 column against 2.5, a float32 column against 0.1: the mathematical answer).

Paths, as the codecs name them: ``"per_value"`` (one out-of-line test per value), ``"batch"``
(scalar C per block), ``"simd"`` (the ISA row :func:`active_implementation` names), ``"auto"``.
All paths give identical results.

The block-skip plan is a module switch for the benchmarks (:func:`set_block_skip`); the default,
``"plan_c"``, runs plan C on pages whose headers show increasing timestamps and plan A on others.
"""
import math
import struct

import numpy as np

cimport numpy as cnp
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc

from tsfile._format.codes cimport E_TS_2DIFF, T_DATE, T_INT32, T_INT64, T_TIMESTAMP
from tsfile.codecs._common cimport PATH_PER_VALUE, PATH_SIMD, as_byte_view, resolve_path
from tsfile.codecs._impl_table cimport ImplTable, impl_table, tsfile_impl_head
from tsfile.codecs.ts2diff cimport ts2diff_count_values
from tsfile.codecs.ts2diff_kernels cimport (
    TS2DIFF_E_OUT_CAP,
    TS2DIFF_E_ROWS,
    TS2DIFF_E_STREAM,
    TS2DIFF_MAX_BLOCK_DELTAS,
    TS2DIFF_N_IMPLS,
    ts2diff_block_fn_i32,
    ts2diff_block_fn_i64,
    ts2diff_decode_i32_scalar,
    ts2diff_decode_i64_scalar,
    ts2diff_decode_rows_i32,
    ts2diff_decode_rows_i64,
    ts2diff_error,
    ts2diff_impl,
    ts2diff_impls,
    ts2diff_pick_impl,
    ts2diff_rows_scratch,
    ts2diff_rows_scratch_t,
)

from tsfile.errors import CorruptDataError, TypeMismatchError

cnp.import_array()

# ---- C kernels ------------------------------------------------------------------------------------

cdef extern from "filter_impls.h" nogil:
    enum: FILTER_INDEX_SLACK
    void filter_bool_bytes_init()
    void filter_bitmap_to_bool(const uint8_t* bits, size_t n, uint8_t* out)
    ctypedef size_t (*filter_bitmap_fn_i32)(const int32_t*, size_t, int32_t, int32_t, int, uint8_t*)
    ctypedef size_t (*filter_bitmap_fn_i64)(const int64_t*, size_t, int64_t, int64_t, int, uint8_t*)
    ctypedef size_t (*filter_bitmap_fn_f32)(const float*, size_t, float, float, int, uint8_t*)
    ctypedef size_t (*filter_bitmap_fn_f64)(const double*, size_t, double, double, int, uint8_t*)
    ctypedef size_t (*filter_index_fn_i32)(const int32_t*, size_t, int32_t, int32_t, int,
                                           int32_t*, int32_t)
    ctypedef size_t (*filter_index_fn_i64)(const int64_t*, size_t, int64_t, int64_t, int,
                                           int32_t*, int32_t)
    ctypedef size_t (*filter_index_fn_f32)(const float*, size_t, float, float, int, int32_t*,
                                           int32_t)
    ctypedef size_t (*filter_index_fn_f64)(const double*, size_t, double, double, int, int32_t*,
                                           int32_t)
    ctypedef struct filter_impl:
        tsfile_impl_head head
        void (*init)()
        filter_bitmap_fn_i32 bitmap_i32
        filter_bitmap_fn_i64 bitmap_i64
        filter_bitmap_fn_f32 bitmap_f32
        filter_bitmap_fn_f64 bitmap_f64
        filter_index_fn_i32 index_i32
        filter_index_fn_i64 index_i64
        filter_index_fn_f32 index_f32
        filter_index_fn_f64 index_f64
    const filter_impl* filter_impls
    size_t FILTER_N_IMPLS
    const filter_impl filter_per_value
    size_t filter_pick_impl(int level, unsigned features)

# The TS_2DIFF kernels (declared once, tsfile/codecs/ts2diff_kernels.pxd); the block-skipping
# window scan is the reader's own.
cdef extern from "ts2diff_blockskip.h" nogil:
    enum:
        TS2DIFF_SKIP_OFF
        TS2DIFF_SKIP_PLAN_A
        TS2DIFF_SKIP_PLAN_C
    ctypedef struct ts2diff_skip_stats:
        int64_t blocks
        int64_t skipped
        int64_t phantom
        int64_t rows
        int64_t first_row
        int64_t last_row
        int plan
    int64_t ts2diff_window(const uint8_t* buf, size_t nbytes, tsfile_prefix* more, int64_t t1,
                           int64_t t2, int plan, ts2diff_block_fn_i64 kernel,
                           filter_index_fn_i64 select, int64_t* scratch, int32_t* idx,
                           int64_t* out, int64_t* out_rows, size_t cap, ts2diff_skip_stats* st,
                           ts2diff_error* e)

# Running totals of every window_into() call (the reader's included), for tests and benchmarks;
# added atomically because the reader decodes pages on several threads.
cdef extern from *:
    """
    /* time pages, their blocks, skipped, phantom; value pages, blocks skipped there; SNAPPY /
     * LZ4 page bodies read as a prefix, their bytes, the bytes decompressed */
    static int64_t pushdown_totals[9];
    #if !defined(__GNUC__) && !defined(__clang__)  /* counters only: plain, not atomic */
    #  define __atomic_fetch_add(p, v, o) (*(p) += (v))
    #  define __atomic_load_n(p, o) (*(p))
    #  define __atomic_store_n(p, v, o) (*(p) = (v))
    #endif
    static void pushdown_count(int64_t blocks, int64_t skipped, int64_t phantom)
    {
        __atomic_fetch_add(&pushdown_totals[0], 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&pushdown_totals[1], blocks, __ATOMIC_RELAXED);
        __atomic_fetch_add(&pushdown_totals[2], skipped, __ATOMIC_RELAXED);
        __atomic_fetch_add(&pushdown_totals[3], phantom, __ATOMIC_RELAXED);
    }
    static void pushdown_count_values(int64_t skipped)
    {
        __atomic_fetch_add(&pushdown_totals[4], 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&pushdown_totals[5], skipped, __ATOMIC_RELAXED);
    }
    static void pushdown_count_prefix(int64_t body, int64_t decompressed)
    {
        __atomic_fetch_add(&pushdown_totals[6], 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&pushdown_totals[7], body, __ATOMIC_RELAXED);
        __atomic_fetch_add(&pushdown_totals[8], decompressed, __ATOMIC_RELAXED);
    }
    static int64_t pushdown_total(int i)
    {
        return __atomic_load_n(&pushdown_totals[i], __ATOMIC_RELAXED);
    }
    static void pushdown_reset(void)
    {
        for (int i = 0; i < 9; i++) __atomic_store_n(&pushdown_totals[i], 0, __ATOMIC_RELAXED);
    }
    """
    void pushdown_count(int64_t blocks, int64_t skipped, int64_t phantom) nogil
    void pushdown_count_values(int64_t skipped) nogil
    void pushdown_count_prefix(int64_t body, int64_t decompressed) nogil
    int64_t pushdown_total(int i) nogil
    void pushdown_reset() nogil

# Named so that cythonize tracks them as dependencies.
cdef extern from "filter_scalar.h":
    pass
cdef extern from "filter_avx2.h":
    pass
cdef extern from "filter_avx512.h":
    pass
cdef extern from "filter_neon.h":
    pass

# ---- implementation rows, chosen once per ISA level (the idiom of tsfile_isa.h) -------------------

# This module carries its own copy of the kernels (and of their lookup tables): init them all.
cdef void _init_rows():
    cdef size_t i
    filter_bool_bytes_init()
    for i in range(FILTER_N_IMPLS):
        filter_impls[i].init()
    for i in range(TS2DIFF_N_IMPLS):
        ts2diff_impls[i].init()


_init_rows()

# The rows each ISA level runs (tsfile/codecs/_impl_table.pyx), chosen once at import; no codec's
# tables, so not registered with simd_info().
cdef ImplTable _filter_rows = impl_table(
    None, filter_impls, sizeof(filter_impl), FILTER_N_IMPLS, filter_pick_impl)
cdef ImplTable _ts2diff_rows = impl_table(
    None, ts2diff_impls, sizeof(ts2diff_impl), TS2DIFF_N_IMPLS, ts2diff_pick_impl)

#: The predicate-kernel rows this CPU can run, best first (``"scalar"`` last).
implementations = _filter_rows.implementations
#: The predicate-kernel row ``path="simd"`` runs at the current ISA level.
active_implementation = _filter_rows.active_implementation

#: True when this build carries SIMD predicate kernels.
HAS_SIMD = _filter_rows.has_simd
#: The block-skip plans :func:`set_block_skip` accepts.
PLANS = ("off", "plan_a", "plan_c")
_PLAN_CODES = {"off": TS2DIFF_SKIP_OFF, "plan_a": TS2DIFF_SKIP_PLAN_A,
               "plan_c": TS2DIFF_SKIP_PLAN_C}
_PLAN_NAMES = {code: name for name, code in _PLAN_CODES.items()}
cdef int _plan = TS2DIFF_SKIP_PLAN_C


cdef const filter_impl* _filter_row(int path) noexcept nogil:
    if path == PATH_PER_VALUE:
        return &filter_per_value
    if path == PATH_SIMD:
        return <const filter_impl*>_filter_rows.row()
    return &filter_impls[FILTER_N_IMPLS - 1]


cdef ts2diff_block_fn_i64 _decoder_i64(int path) noexcept nogil:
    if path == PATH_SIMD:
        return (<const ts2diff_impl*>_ts2diff_rows.row()).decode_i64
    return ts2diff_decode_i64_scalar


cdef ts2diff_block_fn_i32 _decoder_i32(int path) noexcept nogil:
    if path == PATH_SIMD:
        return (<const ts2diff_impl*>_ts2diff_rows.row()).decode_i32
    return ts2diff_decode_i32_scalar


def set_block_skip(plan):
    """Choose the block-skip plan for TS_2DIFF time pages (``"off"``, ``"plan_a"``, ``"plan_c"``,
    the default); returns the previous one. For benchmarks: results never depend on it."""
    global _plan
    if plan not in _PLAN_CODES:
        raise ValueError(f"unknown block-skip plan {plan!r}; expected one of {PLANS}")
    previous = _PLAN_NAMES[_plan]
    _plan = _PLAN_CODES[plan]
    return previous


def skip_counts():
    """Totals since :func:`reset_skip_counts` (this module's calls and the reader's): time
    pages read with a window (``pages``, their ``blocks``, ``skipped``, ``phantom``), value
    pages read as a row range (``value_pages``, ``value_blocks_skipped``), and the reader's
    SNAPPY / LZ4 page bodies (``prefix_pages``, their ``prefix_bytes``, of which
    ``prefix_decompressed`` were decompressed: a query near a page's start leaves the rest)."""
    names = ("pages", "blocks", "skipped", "phantom", "value_pages", "value_blocks_skipped",
             "prefix_pages", "prefix_bytes", "prefix_decompressed")
    return {name: pushdown_total(i) for i, name in enumerate(names)}


def reset_skip_counts():
    pushdown_reset()


def block_skip():
    """The block-skip plan in use (:func:`set_block_skip`)."""
    return _PLAN_NAMES[_plan]


# ---- errors --------------------------------------------------------------------------------------

cdef int _raise_error(const uint8_t* data, Py_ssize_t nbytes, bint is64,
                      const ts2diff_error* e, tsfile_prefix* more=NULL) except -1 nogil:
    """Raise the CorruptDataError for e: header problems with the TS_2DIFF codec's own message
    (its header walk finds the same fault, on the part of a compressed page decompressed so far),
    this module's with theirs."""
    if e.code < TS2DIFF_E_OUT_CAP and tsfile_prefix_need(more, more.want if more else 0) == 0:
        ts2diff_count_values(data, nbytes, is64)  # raises the codec's message for the same fault
    with gil:
        if e.code == TS2DIFF_E_STREAM or (more != NULL and more.rc):
            raise CorruptDataError(
                f"{tsfile_prefix_codec_name(more).decode()} page body: "
                f"{tsfile_prefix_strerror(more).decode()} (byte {more.err_pos} of the stored "
                f"body), decompressing for the TS_2DIFF block at byte {e.offset}")
        if e.code == TS2DIFF_E_ROWS:
            raise CorruptDataError(f"TS_2DIFF: data end at byte {e.offset} after {e.extra} rows, "
                                   f"rows up to {e.value} requested")
        if e.code == TS2DIFF_E_OUT_CAP:
            raise CorruptDataError(f"TS_2DIFF: block at byte {e.offset} needs room for "
                                   f"{e.value} values, the output holds {e.extra}")
        raise CorruptDataError(f"TS_2DIFF: error {e.code} at byte {e.offset}")


# ---- time pages: the [t1, t2] window with block skip ----------------------------------------------

cdef Py_ssize_t window_into(const uint8_t* data, Py_ssize_t nbytes, tsfile_prefix* more,
                            int64_t t1, int64_t t2, int path, int64_t* out, int64_t* out_rows,
                            Py_ssize_t cap, ts2diff_skip_stats* st) except -1 nogil:
    """The timestamps of a TS_2DIFF int64 page in [t1, t2] into out (cap entries) and their page
    rows into out_rows (may be NULL), under the module's plan; st gets the skip counts. ``more``:
    the page when it is decompressed as far as it is read (page_prefix.h), else NULL."""
    cdef int64_t* scratch = <int64_t*>malloc((TS2DIFF_MAX_BLOCK_DELTAS + 1) * sizeof(int64_t))
    cdef int32_t* idx = <int32_t*>malloc(
        (TS2DIFF_MAX_BLOCK_DELTAS + 1 + FILTER_INDEX_SLACK) * sizeof(int32_t))
    cdef ts2diff_error err
    cdef int64_t k
    if scratch == NULL or idx == NULL:
        free(scratch)
        free(idx)
        with gil:
            raise MemoryError()
    k = ts2diff_window(data, <size_t>nbytes, more, t1, t2, _plan, _decoder_i64(path),
                       _filter_row(path).index_i64, scratch, idx, out, out_rows,
                       <size_t>cap, st, &err)
    free(scratch)
    free(idx)
    if k < 0:
        _raise_error(data, nbytes, True, &err, more)
    pushdown_count(st.blocks, st.skipped, st.phantom)
    return <Py_ssize_t>k


cdef Py_ssize_t time_window_rows(const uint8_t* data, Py_ssize_t nbytes, tsfile_prefix* more,
                                 int64_t t1, int64_t t2, int path, int64_t* out, Py_ssize_t cap,
                                 Py_ssize_t* first_row, Py_ssize_t* page_rows) except -1 nogil:
    """For the reader: window_into() for a time page, whose matches must be one run of rows
    (timestamps increase): first_row gets its start (0 when empty), page_rows the page's
    timestamp count (-1: not known, the page was decompressed only as far as the window);
    returns the run's length. CorruptDataError when the matches are not one run (the page's
    timestamps do not increase)."""
    cdef ts2diff_skip_stats st
    cdef Py_ssize_t k = window_into(data, nbytes, more, t1, t2, path, out, NULL, cap, &st)
    page_rows[0] = <Py_ssize_t>st.rows
    first_row[0] = <Py_ssize_t>st.first_row if k else 0
    if k and st.last_row - st.first_row + 1 != k:
        with gil:
            raise CorruptDataError(
                f"TS_2DIFF time page: timestamps do not increase (rows {st.first_row} to "
                f"{st.last_row} hold {k} timestamps in [{t1}, {t2}])")
    return k


cdef void count_prefix(const tsfile_prefix* body) noexcept nogil:
    """Count a page body the reader opened (skip_counts: SNAPPY / LZ4 bodies only)."""
    if body.codec != TSFILE_PREFIX_WHOLE:
        pushdown_count_prefix(<int64_t>body.want, <int64_t>body.op)


cdef const uint8_t* _bytes_ptr(const unsigned char[::1] view) noexcept nogil:
    return <const uint8_t*>&view[0] if view.shape[0] else <const uint8_t*>b""


cdef class _Body:
    """A page body for time_window() / decode_rows(): ``data`` as it is, or a SNAPPY / LZ4 stream
    (``compression``) of a ``size``-byte body, opened as a tsfile_prefix that decompresses only
    what the walk reads (the reader's way with compressed pages)."""

    cdef const unsigned char[::1] view
    cdef object out_arr
    cdef tsfile_prefix stream
    cdef tsfile_prefix* more
    cdef const uint8_t* ptr
    cdef Py_ssize_t nbytes

    def __init__(self, data, compression, size):
        cdef uint32_t stated = 0
        cdef size_t ip0 = 0
        self.view = as_byte_view(data)
        self.ptr = _bytes_ptr(self.view)
        self.nbytes = self.view.shape[0]
        self.more = NULL
        if compression is None:
            return
        if compression not in ("snappy", "lz4") or size is None or size < 0:
            raise ValueError("compression is 'snappy' or 'lz4', with the body's size")
        from tsfile import compression as comp

        # Before allocating `size` bytes: what the stored bytes can produce (the reader's check
        # of a page header's size), and for SNAPPY the size its preamble states.
        comp.check_size(comp.SNAPPY if compression == "snappy" else comp.LZ4, self.view, size)
        if compression == "snappy":
            if tsfile_snappy_length(self.ptr, self.nbytes, &stated, &ip0) or stated != size:
                raise CorruptDataError(f"SNAPPY body: bad length preamble (want {size})")
        self.out_arr = np.empty(max(size, 1), np.uint8)
        tsfile_prefix_stream(&self.stream,
                             TSFILE_PREFIX_SNAPPY if compression == "snappy" else TSFILE_PREFIX_LZ4,
                             self.ptr, self.nbytes, ip0,
                             <uint8_t*>cnp.PyArray_DATA(self.out_arr), size)
        self.more = &self.stream
        self.ptr = self.stream.dst
        self.nbytes = size

    cdef Py_ssize_t decompressed(self):
        return self.stream.op if self.more != NULL else self.nbytes


def time_window(data, int64_t t1, int64_t t2, *, path="auto", rows=False, compression=None,
                size=None, cap=None):
    """The timestamps of a TS_2DIFF int64 page (``data``: bytes-like) that lie in [t1, t2], in
    page order, decoding only the blocks the current plan cannot rule out. With ``compression``
    (``"snappy"`` or ``"lz4"``), ``data`` is the page's stored stream of a ``size``-byte body,
    decompressed only as far as the walk reads it; the output's room is then ``cap`` values, or
    the page's count (from a separate whole decompression: this is an entry for tests).

    Returns ``(values, rows, stats)``: ``rows`` the values' page row numbers (int64) when
    ``rows=True`` else None; ``stats`` a dict with ``blocks``, ``skipped`` (never unpacked),
    ``phantom`` (decoded, no match), ``rows`` (values in the page; -1 when the page was not
    decompressed to its end), ``plan`` (the plan that ran) and ``decompressed`` (bytes of the
    body made readable). Corrupt pages raise CorruptDataError with the byte offset.
    """
    cdef int p = resolve_path(path, HAS_SIMD, "pushdown")
    cdef _Body body = _Body(data, compression, size)
    cdef Py_ssize_t room, k
    cdef ts2diff_skip_stats st
    if compression is None:
        with nogil:
            room = ts2diff_count_values(body.ptr, body.nbytes, True)
    elif cap is None:
        room = _count_compressed(data, compression, size)
    else:
        room = cap
    values = np.empty(room, np.int64)
    row_arr = np.empty(room if rows else 0, np.int64)
    cdef int64_t* out_rows = <int64_t*>cnp.PyArray_DATA(row_arr) if rows else NULL
    cdef int64_t* out = <int64_t*>cnp.PyArray_DATA(values)
    with nogil:
        k = window_into(body.ptr, body.nbytes, body.more, t1, t2, p, out, out_rows, room, &st)
    stats = {"blocks": st.blocks, "skipped": st.skipped, "phantom": st.phantom,
             "rows": st.rows, "plan": _PLAN_NAMES[st.plan], "decompressed": body.decompressed()}
    return values[:k].copy(), (row_arr[:k].copy() if rows else None), stats


def _count_compressed(data, compression, size):
    """Values in a compressed int64 TS_2DIFF page (decompressed whole by tsfile.compression)."""
    from tsfile import compression as comp

    whole = comp.decompress(comp.SNAPPY if compression == "snappy" else comp.LZ4, bytes(data),
                            size)
    return ts2diff_count_values(_bytes_ptr(as_byte_view(whole)), len(whole), True)


# ---- value pages: a row range with block skip -----------------------------------------------------

def decode_rows(data, dtype, Py_ssize_t start, Py_ssize_t stop, *, path="auto",
                compression=None, size=None, stats=False):
    """Values ``start .. stop-1`` of a TS_2DIFF page of ``dtype`` (int32 or int64): the blocks
    before ``start`` are passed by their headers, nothing after ``stop`` is read (``compression``
    and ``size``: as for :func:`time_window`). Returns ``(values, skipped_blocks)``, and the
    bytes of the body made readable third when ``stats``."""
    cdef int p = resolve_path(path, HAS_SIMD, "pushdown")
    dt = np.dtype(dtype)
    if dt != np.int64 and dt != np.int32:
        raise TypeMismatchError(f"TS_2DIFF decode_rows: int32 or int64, not {dt}")
    if start < 0 or stop < start:
        raise ValueError(f"bad row range [{start}, {stop})")
    cdef bint is64 = dt == np.int64
    cdef _Body body = _Body(data, compression, size)
    cdef int64_t skipped = 0
    cdef ts2diff_error err
    cdef int rc = 0
    out = np.empty(stop - start, dt)
    scratch = np.empty(TS2DIFF_MAX_BLOCK_DELTAS + 1, dt)
    cdef void* o = cnp.PyArray_DATA(out)
    cdef void* s = cnp.PyArray_DATA(scratch)
    if stop > start:
        with nogil:
            if is64:
                rc = ts2diff_decode_rows_i64(body.ptr, <size_t>body.nbytes, body.more, start,
                                             stop, _decoder_i64(p), <int64_t*>s, <int64_t*>o,
                                             &skipped, &err)
            else:
                rc = ts2diff_decode_rows_i32(body.ptr, <size_t>body.nbytes, body.more, start,
                                             stop, _decoder_i32(p), <int32_t*>s, <int32_t*>o,
                                             &skipped, &err)
            if rc < 0:
                _raise_error(body.ptr, body.nbytes, is64, &err, body.more)
    return (out, skipped, body.decompressed()) if stats else (out, skipped)


cdef bint has_row_skip(int encoding, int data_type) noexcept nogil:
    """value_rows() can read a row range of this page (TS_2DIFF integer pages; TS_2DIFF
    FLOAT/DOUBLE pages have their own layout)."""
    return encoding == E_TS_2DIFF and (data_type == T_INT32 or data_type == T_DATE or
                                       data_type == T_INT64 or data_type == T_TIMESTAMP)


cdef int value_rows(int data_type, const uint8_t* data, Py_ssize_t nbytes, tsfile_prefix* more,
                    Py_ssize_t start, Py_ssize_t stop, uint8_t* out, int path) except -1 nogil:
    """Values start .. stop-1 of a page has_row_skip() accepts into out (native layout);
    ``more``: the page when it is decompressed as far as it is read, else NULL."""
    cdef ts2diff_error err
    cdef int64_t skipped
    cdef ts2diff_rows_scratch_t* scratch = ts2diff_rows_scratch()
    cdef int rc
    cdef bint is64 = data_type == T_INT64 or data_type == T_TIMESTAMP
    if stop <= start:
        return 0
    if is64:
        rc = ts2diff_decode_rows_i64(data, <size_t>nbytes, more, start, stop, _decoder_i64(path),
                                     scratch.i64, <int64_t*>out, &skipped, &err)
    else:
        rc = ts2diff_decode_rows_i32(data, <size_t>nbytes, more, start, stop, _decoder_i32(path),
                                     scratch.i32, <int32_t*>out, &skipped, &err)
    if rc < 0:
        _raise_error(data, nbytes, is64, &err, more)
    pushdown_count_values(skipped)
    return 0


# ---- predicates ----------------------------------------------------------------------------------

_KIND_OF = {np.dtype(np.int32): "i32", np.dtype(np.int64): "i64",
            np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}
_FORMS = ("indices", "mask", "bitmap")
_INT_LIMITS = {"i32": (-(2**31), 2**31 - 1), "i64": (-(2**63), 2**63 - 1)}
_F32 = struct.Struct("=f")
_U32 = struct.Struct("=I")
_F32_TINY = 1.401298464324817e-45  # the smallest float32 subnormal
# op -> (uses the second operand, lower end from operand 1, upper end from operand 1 or 2,
#        lower inclusive, upper inclusive, negate)
_OPS = {
    "==": (False, True, True, True, True, False),
    "=": (False, True, True, True, True, False),
    "!=": (False, True, True, True, True, True),
    "<": (False, False, True, True, False, False),
    "<=": (False, False, True, True, True, False),
    ">": (False, True, False, False, True, False),
    ">=": (False, True, False, True, True, False),
    "between": (True, True, True, True, True, False),
    "not between": (True, True, True, True, True, True),
}


def _check_operand(x, op):
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer,
                                                             np.floating)):
        raise TypeMismatchError(f"predicate {op!r}: operand {x!r} is not a number")
    return int(x) if isinstance(x, (int, np.integer)) else float(x)


def _int_bounds(kind, lo, hi, lo_inc, hi_inc):
    """Inclusive integer bounds (clamped to the type) of a range with exact real ends."""
    tmin, tmax = _INT_LIMITS[kind]
    if lo is None:
        ilo = tmin
    elif isinstance(lo, float) and math.isnan(lo):
        return tmax, tmin  # comparisons with NaN are false: an empty range
    elif isinstance(lo, float) and math.isinf(lo):
        ilo = tmin if lo < 0 else tmax + 1
    else:
        ilo = math.ceil(lo) if lo_inc else math.floor(lo) + 1
    if hi is None:
        ihi = tmax
    elif isinstance(hi, float) and math.isnan(hi):
        return tmax, tmin
    elif isinstance(hi, float) and math.isinf(hi):
        ihi = tmax if hi > 0 else tmin - 1
    else:
        ihi = math.floor(hi) if hi_inc else math.ceil(hi) - 1
    if ilo > ihi or ilo > tmax or ihi < tmin:
        return tmax, tmin
    return max(ilo, tmin), min(ihi, tmax)


def _nearest(single, x):
    """x rounded to a float64 (single: float32) value as a Python float; +-inf beyond the range."""
    try:
        d = float(x)
    except OverflowError:  # an int beyond the double range
        return math.inf if x > 0 else -math.inf
    if single and math.isfinite(d):
        try:
            d = _F32.unpack(_F32.pack(d))[0]
        except OverflowError:
            d = math.copysign(math.inf, d)
    return d


def _step(single, f, up):
    """The neighbour of the representable f towards +inf (up) or -inf."""
    if not single:
        return math.nextafter(f, math.inf if up else -math.inf)
    if f == 0:  # either zero: the smallest subnormal of that side
        return _F32_TINY if up else -_F32_TINY
    if math.isinf(f) and (f > 0) == up:
        return f
    # finite (or the infinity being left): the next bit pattern away from / towards zero
    bits = _U32.unpack(_F32.pack(f))[0]
    bits = bits + 1 if (f > 0) == up else bits - 1
    return _F32.unpack(_U32.pack(bits))[0]


def _float_at_least(single, x, inclusive):
    """The smallest value of the type >= x (> x when not inclusive): exact, whatever x's type."""
    f = _nearest(single, x)
    if f < x or (not inclusive and f == x):
        f = _step(single, f, True)
    return f


def _float_at_most(single, x, inclusive):
    f = _nearest(single, x)
    if f > x or (not inclusive and f == x):
        f = _step(single, f, False)
    return f


def _float_bounds(kind, lo, hi, lo_inc, hi_inc):
    single = kind == "f32"
    empty = (math.inf, -math.inf)  # lo > hi: nothing (NaN included) matches
    if (lo is not None and lo != lo) or (hi is not None and hi != hi):
        return empty
    if (not lo_inc and lo == math.inf) or (not hi_inc and hi == -math.inf):
        return empty  # x > inf, x < -inf: no neighbour beyond infinity
    flo = -math.inf if lo is None else _float_at_least(single, lo, lo_inc)
    fhi = math.inf if hi is None else _float_at_most(single, hi, hi_inc)
    return (flo, fhi) if flo <= fhi else empty


def _as_values(values):
    if not isinstance(values, np.ndarray) or values.ndim != 1:
        raise TypeError("values must be a 1-D numpy array")
    kind = _KIND_OF.get(values.dtype) if values.dtype.isnative else None
    if kind is None:
        raise TypeMismatchError(
            f"predicates run on native int32, int64, float32 or float64 arrays, not {values.dtype}")
    if values.shape[0] > 0x7FFFFFF0:
        raise ValueError(f"{values.shape[0]} values: at most 2**31 - 16 per call")
    return (values if values.flags.c_contiguous else np.ascontiguousarray(values)), kind


def select_range(values, lo=None, hi=None, *, lo_inclusive=True, hi_inclusive=True, negate=False,
                 form="indices", path="auto"):
    """The values with ``lo <= x <= hi`` (ends exclusive when asked; None: unbounded), negated
    when ``negate``; NaN never lies in a range. ``form``: ``"indices"`` (int32 positions),
    ``"mask"`` (bool array) or ``"bitmap"`` (uint8, LSB first, as
    ``numpy.packbits(mask, bitorder="little")``)."""
    arr, kind = _as_values(values)
    if form not in _FORMS:
        raise ValueError(f"unknown selection form {form!r}; expected one of {_FORMS}")
    lo = None if lo is None else _check_operand(lo, "range")
    hi = None if hi is None else _check_operand(hi, "range")
    if kind in ("i32", "i64"):
        blo, bhi = _int_bounds(kind, lo, hi, lo_inclusive, hi_inclusive)
    else:
        blo, bhi = _float_bounds(kind, lo, hi, lo_inclusive, hi_inclusive)
    return _run(arr, kind, blo, bhi, bool(negate), form, resolve_path(path, HAS_SIMD, "pushdown"))


def select(values, op, operand, operand2=None, *, form="indices", path="auto"):
    """The values ``x`` with ``x <op> operand`` (op: ``==``, ``=``, ``!=``, ``<``, ``<=``,
    ``>``, ``>=``), or ``operand <= x <= operand2`` for ``"between"`` / its negation for
    ``"not between"``. Results equal numpy's mask of the same comparison made exactly (NaN
    matches only ``!=`` and ``"not between"``). ``form`` and ``path``: :func:`select_range`."""
    try:
        two, from_lo, from_hi, lo_inc, hi_inc, negate = _OPS[op]
    except (KeyError, TypeError):
        raise ValueError(f"unknown predicate operator {op!r}; expected one of {tuple(_OPS)}") \
            from None
    if two == (operand2 is None):
        raise TypeError(f"operator {op!r} takes {'two operands' if two else 'one operand'}")
    a = _check_operand(operand, op)
    b = _check_operand(operand2, op) if two else a
    return select_range(values, a if from_lo else None, b if from_hi else None,
                        lo_inclusive=lo_inc, hi_inclusive=hi_inc, negate=negate, form=form,
                        path=path)


cdef object _run(cnp.ndarray arr, str kind, object blo, object bhi, bint negate, str form,
                 int path):
    cdef const filter_impl* row = _filter_row(path)
    cdef Py_ssize_t n = arr.shape[0]
    cdef size_t k = 0
    cdef const void* v = cnp.PyArray_DATA(arr)
    cdef int kc = {"i32": 0, "i64": 1, "f32": 2, "f64": 3}[kind]
    cdef int64_t ilo = 0, ihi = 0
    cdef double dlo = 0, dhi = 0
    if kc < 2:
        ilo, ihi = int(blo), int(bhi)
    else:
        dlo, dhi = float(blo), float(bhi)  # float32 bounds are exact in a double
    if form == "indices":
        out = np.empty(n + FILTER_INDEX_SLACK, np.int32)
        idx = <int32_t*>cnp.PyArray_DATA(out)
        with nogil:
            if kc == 0:
                k = row.index_i32(<const int32_t*>v, n, <int32_t>ilo, <int32_t>ihi, negate, idx, 0)
            elif kc == 1:
                k = row.index_i64(<const int64_t*>v, n, ilo, ihi, negate, idx, 0)
            elif kc == 2:
                k = row.index_f32(<const float*>v, n, <float>dlo, <float>dhi, negate, idx, 0)
            else:
                k = row.index_f64(<const double*>v, n, dlo, dhi, negate, idx, 0)
        return out[:k]
    bits_arr = np.empty((n + 7) >> 3, np.uint8)
    bits = <uint8_t*>cnp.PyArray_DATA(bits_arr)
    with nogil:
        if kc == 0:
            k = row.bitmap_i32(<const int32_t*>v, n, <int32_t>ilo, <int32_t>ihi, negate, bits)
        elif kc == 1:
            k = row.bitmap_i64(<const int64_t*>v, n, ilo, ihi, negate, bits)
        elif kc == 2:
            k = row.bitmap_f32(<const float*>v, n, <float>dlo, <float>dhi, negate, bits)
        else:
            k = row.bitmap_f64(<const double*>v, n, dlo, dhi, negate, bits)
    if form == "bitmap":
        return bits_arr
    mask = np.empty(n, np.bool_)
    cdef uint8_t* mp = <uint8_t*>cnp.PyArray_DATA(mask)
    with nogil:
        filter_bitmap_to_bool(bits, n, mp)
    return mask


def _kernel_loop_i64(values, int64_t lo, int64_t hi, str form, path, Py_ssize_t loops):
    """For benchmarks: run the int64 kernel of ``path`` ``loops`` times on ``values`` (1-D
    contiguous int64) into buffers allocated once, so that a timing sees the kernel alone.
    Returns the matches of the last run."""
    cdef const filter_impl* row = _filter_row(resolve_path(path, HAS_SIMD, "pushdown"))
    cdef const int64_t[::1] v = values
    cdef Py_ssize_t n = v.shape[0], i
    cdef size_t k = 0
    cdef const int64_t* vp = &v[0] if n else NULL
    buf = np.empty(n + FILTER_INDEX_SLACK, np.int32)
    cdef int32_t* idx = <int32_t*>cnp.PyArray_DATA(buf)
    cdef uint8_t* bits = <uint8_t*>idx
    cdef bint indices = form == "indices"
    with nogil:
        for i in range(loops):
            if indices:
                k = row.index_i64(vp, n, lo, hi, 0, idx, 0)
            else:
                k = row.bitmap_i64(vp, n, lo, hi, 0, bits)
    return k
