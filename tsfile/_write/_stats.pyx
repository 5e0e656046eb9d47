# cython: boundscheck=False, wraparound=False, cdivision=True
"""Per-page min / max / sum of a column in one C pass (the writer's statistics, format notes 6).

Sums are accumulated sequentially, value by value, in the type the format stores them in (INT32,
DATE and BOOLEAN: int64; INT64, FLOAT, DOUBLE: double), the way the C++ and Java writers update
their statistics, so the stored double sums are bit-identical to theirs. min/max follow the C++
update rule (start from the first value, replace when strictly smaller / larger), so a NaN that
is not the first value never becomes min or max.

Which statistics each type carries and their byte layout are defined once, in
tsfile._format.statistics (LAYOUTS); _serialize_one below is that layout for the numeric types,
in C so that page statistics need no Python object per page. tests/test_format_layer.py checks
that both give the same bytes.
"""

import numpy as np

cimport numpy as cnp
from cpython.bytes cimport PyBytes_FromStringAndSize
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memset

from tsfile.codecs._impl_table cimport ImplTable, impl_table, tsfile_impl_head
from tsfile.codecs._kinds cimport KIND_BOOL, KIND_F32, KIND_F64, KIND_I32, KIND_I64

cnp.import_array()

ctypedef fused num_t:
    uint8_t
    int32_t
    int64_t
    float
    double


cdef inline Py_ssize_t _put_uvarint(unsigned char* p, uint32_t v) noexcept nogil:
    cdef Py_ssize_t n = 0
    while v >= 0x80:
        p[n] = <unsigned char>((v & 0x7F) | 0x80)
        v >>= 7
        n += 1
    p[n] = <unsigned char>v
    return n + 1


cdef inline void _put_be64(unsigned char* p, uint64_t v) noexcept nogil:
    cdef int k
    for k in range(8):
        p[k] = <unsigned char>(v >> (56 - 8 * k))


cdef inline void _put_be32(unsigned char* p, uint32_t v) noexcept nogil:
    cdef int k
    for k in range(4):
        p[k] = <unsigned char>(v >> (24 - 8 * k))


cdef union _F64:
    double d
    uint64_t u


cdef union _F32:
    float f
    uint32_t u


cdef inline uint64_t _dbits(double d) noexcept nogil:
    cdef _F64 x
    x.d = d
    return x.u


cdef inline uint32_t _fbits(float f) noexcept nogil:
    cdef _F32 x
    x.f = f
    return x.u


cdef Py_ssize_t _serialize_one(num_t* dummy, unsigned char* out, Py_ssize_t count, int64_t start,
                               int64_t end, num_t lo, num_t hi, num_t first, num_t last,
                               double dsum, int64_t isum) noexcept nogil:
    """count, start, end and the typed part (format notes 6, tsfile._format.statistics.LAYOUTS)
    at out; returns the bytes written."""
    cdef Py_ssize_t n = _put_uvarint(out, <uint32_t>count)
    _put_be64(out + n, <uint64_t>start)
    _put_be64(out + n + 8, <uint64_t>end)
    n += 16
    if num_t is uint8_t:
        out[n] = first
        out[n + 1] = last
        _put_be64(out + n + 2, <uint64_t>isum)
        return n + 10
    elif num_t is int32_t:
        _put_be32(out + n, <uint32_t>lo)
        _put_be32(out + n + 4, <uint32_t>hi)
        _put_be32(out + n + 8, <uint32_t>first)
        _put_be32(out + n + 12, <uint32_t>last)
        _put_be64(out + n + 16, <uint64_t>isum)
        return n + 24
    elif num_t is int64_t:
        _put_be64(out + n, <uint64_t>lo)
        _put_be64(out + n + 8, <uint64_t>hi)
        _put_be64(out + n + 16, <uint64_t>first)
        _put_be64(out + n + 24, <uint64_t>last)
        _put_be64(out + n + 32, _dbits(dsum))
        return n + 40
    elif num_t is float:
        _put_be32(out + n, _fbits(lo))
        _put_be32(out + n + 4, _fbits(hi))
        _put_be32(out + n + 8, _fbits(first))
        _put_be32(out + n + 12, _fbits(last))
        _put_be64(out + n + 16, _dbits(dsum))
        return n + 24
    else:
        _put_be64(out + n, _dbits(lo))
        _put_be64(out + n + 8, _dbits(hi))
        _put_be64(out + n + 16, _dbits(first))
        _put_be64(out + n + 24, _dbits(last))
        _put_be64(out + n + 32, _dbits(dsum))
        return n + 40


ctypedef fused sum_t:
    int64_t
    double


cdef double _cpp_page_sum(const sum_t* v, Py_ssize_t a, Py_ssize_t b, const int64_t* segs,
                          Py_ssize_t nseg, Py_ssize_t* k, const uint8_t* batch) noexcept nogil:
    """The double sum of v[a:b] (one page) in the C++ 2.5 writer's order: segments written as
    null-free batches go through update_batch (first value of the page taken as is, then pairs
    into two lanes, `sum += lane0 + lane1`, then the odd value), other values one by one.
    k: the index of the first segment that may lie in this page (advanced past it)."""
    cdef bint empty = True
    cdef double s = 0.0, l0, l1
    cdef Py_ssize_t i, sa, sb
    while k[0] < nseg and segs[k[0] + 1] <= a:
        k[0] += 1
    while k[0] < nseg and segs[k[0]] < b:
        sa = segs[k[0]] if segs[k[0]] > a else a
        sb = segs[k[0] + 1] if segs[k[0] + 1] < b else b
        if sb > sa:
            if batch[k[0]]:
                i = sa
                if empty:
                    s = <double>v[i]
                    empty = False
                    i += 1
                l0 = 0.0
                l1 = 0.0
                while i + 2 <= sb:
                    l0 += <double>v[i]
                    l1 += <double>v[i + 1]
                    i += 2
                s += l0 + l1
                while i < sb:
                    s += <double>v[i]
                    i += 1
            else:
                for i in range(sa, sb):
                    if empty:
                        s = <double>v[i]
                        empty = False
                    else:
                        s += <double>v[i]
        if segs[k[0] + 1] > b:
            break
        k[0] += 1
    return s


cdef inline double _abs_bound(int64_t lo, int64_t hi) noexcept nogil:
    cdef double a = -(<double>lo)
    cdef double b = <double>hi
    if a < 0:
        a = -a
    if b < 0:
        b = -b
    return a if a > b else b


cdef extern from "stats_encode.h" nogil:
    ctypedef void (*stats_i64_fn)(const int64_t *v, size_t n, int64_t *lo, int64_t *hi,
                                  uint64_t *total)
    ctypedef void (*stats_i32_fn)(const int32_t *v, size_t n, int32_t *lo, int32_t *hi,
                                  int64_t *total)
    ctypedef struct stats_impl:
        tsfile_impl_head head
        stats_i64_fn i64
        stats_i32_fn i32
    const stats_impl *stats_impls
    size_t STATS_N_IMPLS
    size_t stats_pick_impl(int level, unsigned features)

# The min / max / sum kernels of integer pages each ISA level runs (include/stats_encode.h),
# chosen once at import (tsfile/codecs/_impl_table.pyx; no codec's, so not registered); the level
# in force is read per page (tsfile.set_simd switches it).
cdef ImplTable _impls = impl_table(
    None, stats_impls, sizeof(stats_impl), STATS_N_IMPLS, stats_pick_impl)
#: The integer statistics kernels this CPU can run, best first (``"scalar"`` last).
implementations = _impls.implementations
#: The integer statistics kernel row in use at the current ISA level.
active_implementation = _impls.active_implementation


cdef inline const stats_impl *_active_impl() noexcept nogil:
    return <const stats_impl *>_impls.row()


cdef Py_ssize_t _stats_page(const num_t* values, const int64_t* times, Py_ssize_t a,
                            Py_ssize_t b, stats_acc* acc, unsigned char* out) noexcept nogil:
    """Statistics of the page values[a:b] (b > a): merged into `acc` (the chunk so far, pages in
    order) and, when `out` is not NULL, serialized there (at most STATS_MAX_BYTES); the bytes
    written."""
    cdef num_t lo = values[a]
    cdef num_t hi = lo
    cdef num_t v
    cdef num_t* clo = <num_t*>&acc.lo
    cdef num_t* chi = <num_t*>&acc.hi
    cdef int64_t isum = 0
    cdef double dsum = 0.0
    cdef Py_ssize_t i
    cdef num_t* tag = NULL
    if num_t is int64_t:
        # the wrapping integer sum (exact when the bound below holds)
        _active_impl().i64(&values[a], b - a, &lo, &hi, <uint64_t*>&isum)
        # The format stores INT64 sums as a double. When count * max|v| < 2^53 every
        # partial sum is an integer a double holds exactly, whatever the order of the
        # additions, so the exact integer sum is that double.
        if _abs_bound(lo, hi) < (<double>9007199254740992.0) / <double>(b - a):
            dsum = <double>isum
        elif acc.emulate:
            dsum = _cpp_page_sum(values, a, b, acc.segs, acc.nseg, &acc.k, acc.batch)
        else:
            for i in range(a, b):
                dsum += <double>values[i]
    elif num_t is int32_t:
        _active_impl().i32(&values[a], b - a, &lo, &hi, &isum)
    elif num_t is double:
        for i in range(a, b):
            v = values[i]
            if v < lo:
                lo = v
            if v > hi:
                hi = v
        if acc.emulate:
            dsum = _cpp_page_sum(values, a, b, acc.segs, acc.nseg, &acc.k, acc.batch)
        else:
            for i in range(a, b):
                dsum += <double>values[i]
    else:
        for i in range(a, b):
            v = values[i]
            if v < lo:
                lo = v
            if v > hi:
                hi = v
            if num_t is uint8_t:
                isum += v
            else:
                dsum += <double>v
    cdef stats_acc page
    page.count = b - a
    page.start = times[a]
    page.end = times[b - 1]
    (<num_t*>&page.lo)[0] = lo
    (<num_t*>&page.hi)[0] = hi
    (<num_t*>&page.first)[0] = values[a]
    (<num_t*>&page.last)[0] = values[b - 1]
    page.isum = isum
    page.dsum = dsum
    _merge(tag, acc, &page)
    if out == NULL:
        return 0
    return _serialize_one(tag, out, b - a, times[a], times[b - 1], lo, hi, values[a],
                          values[b - 1], dsum, isum)


cdef void _merge(num_t* tag, stats_acc* acc, const stats_acc* part) noexcept nogil:
    """Merge the statistics `part` of the pages that follow those in `acc` (the C++ writer's
    merge: min / max replaced when strictly smaller / larger, the first page's sum copied)."""
    cdef num_t* clo = <num_t*>&acc.lo
    cdef num_t* chi = <num_t*>&acc.hi
    cdef num_t lo = (<const num_t*>&part.lo)[0]
    cdef num_t hi = (<const num_t*>&part.hi)[0]
    if part.count == 0:
        return
    if acc.count == 0:
        clo[0] = lo
        chi[0] = hi
        (<num_t*>&acc.first)[0] = (<const num_t*>&part.first)[0]
        acc.start = part.start
    else:
        if lo < clo[0]:
            clo[0] = lo
        if hi > chi[0]:
            chi[0] = hi
    (<num_t*>&acc.last)[0] = (<const num_t*>&part.last)[0]
    acc.end = part.end
    acc.count += part.count
    acc.isum += part.isum
    if acc.first_page:
        acc.dsum = part.dsum  # C++ merge copies the first statistics (keeps a -0.0 sum)
        acc.first_page = False
    else:
        acc.dsum += part.dsum


cdef void stats_acc_merge(stats_acc* acc, const stats_acc* part, int kind) noexcept nogil:
    cdef uint8_t* t8 = NULL
    cdef int32_t* t32 = NULL
    cdef int64_t* t64 = NULL
    cdef float* tf = NULL
    cdef double* td = NULL
    if kind == KIND_BOOL:
        _merge(t8, acc, part)
    elif kind == KIND_I32:
        _merge(t32, acc, part)
    elif kind == KIND_I64:
        _merge(t64, acc, part)
    elif kind == KIND_F32:
        _merge(tf, acc, part)
    else:
        _merge(td, acc, part)


cdef Py_ssize_t stats_page(int kind, const void* values, const int64_t* times, Py_ssize_t a,
                           Py_ssize_t b, stats_acc* acc, unsigned char* out) noexcept nogil:
    if kind == KIND_BOOL:
        return _stats_page(<const uint8_t*>values, times, a, b, acc, out)
    if kind == KIND_I32:
        return _stats_page(<const int32_t*>values, times, a, b, acc, out)
    if kind == KIND_I64:
        return _stats_page(<const int64_t*>values, times, a, b, acc, out)
    if kind == KIND_F32:
        return _stats_page(<const float*>values, times, a, b, acc, out)
    return _stats_page(<const double*>values, times, a, b, acc, out)


cdef void stats_acc_init(stats_acc* acc, const int64_t* segs, Py_ssize_t nseg,
                         const uint8_t* batch) noexcept nogil:
    memset(acc, 0, sizeof(stats_acc))
    acc.first_page = True
    acc.emulate = segs != NULL
    acc.segs = segs
    acc.nseg = nseg
    acc.batch = batch


cdef object _acc_value(stats_acc* acc, uint64_t* slot, int kind):
    if kind == KIND_BOOL:
        return (<uint8_t*>slot)[0]
    if kind == KIND_I32:
        return (<int32_t*>slot)[0]
    if kind == KIND_I64:
        return (<int64_t*>slot)[0]
    if kind == KIND_F32:
        return (<float*>slot)[0]
    return (<double*>slot)[0]


cdef object stats_acc_result(stats_acc* acc, int kind):
    """(count, start, end, min, max, first, last, sum) of the chunk, or None without values."""
    if acc.count == 0:
        return None
    total = acc.isum if kind == KIND_BOOL or kind == KIND_I32 else acc.dsum
    return (acc.count, acc.start, acc.end, _acc_value(acc, &acc.lo, kind),
            _acc_value(acc, &acc.hi, kind), _acc_value(acc, &acc.first, kind),
            _acc_value(acc, &acc.last, kind), total)


cdef int _kind_of(num_t* tag) noexcept nogil:
    if num_t is uint8_t:
        return KIND_BOOL
    elif num_t is int32_t:
        return KIND_I32
    elif num_t is int64_t:
        return KIND_I64
    elif num_t is float:
        return KIND_F32
    else:
        return KIND_F64


def numeric_chunk_stats(const num_t[::1] values, const int64_t[::1] times, const int64_t[::1] offsets,
                        bint page_bytes, seg_offsets=None, seg_batch=None):
    """Statistics of the pages of a numeric (or BOOLEAN as uint8) value chunk in one pass.

    values / times: the non-null values of the chunk and their timestamps; offsets: P + 1 indexes
    delimiting the pages. Returns (pages, chunk): pages = a list of the serialized statistics of
    each page (None for an empty page) when page_bytes, else None; chunk = (count, start, end,
    min, max, first, last, sum) merged over the pages as the official writers merge them (sums
    added page by page), or None when every page is empty.

    seg_offsets / seg_batch (INT64 and DOUBLE only): the write segments of the chunk (increasing
    value indexes, every page boundary among them) and whether each was written as a null-free
    batch. The official C++ writer sums such a batch in two interleaved lanes (its SIMD
    update_batch) and other values one by one; given the segments, page sums follow that order
    bit for bit. Without them values are added one by one. (The writer's chunk encoder computes
    the same page by page, stats_page, while it encodes.)"""
    cdef const int64_t[::1] segs
    cdef const uint8_t[::1] batch
    cdef stats_acc acc
    cdef num_t* tag = NULL
    cdef int kind = _kind_of(tag)
    stats_acc_init(&acc, NULL, 0, NULL)
    if (num_t is int64_t or num_t is double) and seg_offsets is not None:
        segs = seg_offsets
        batch = seg_batch
        if batch.shape[0] != segs.shape[0] - 1 or (
            segs.shape[0] >= 1 and segs[segs.shape[0] - 1] != values.shape[0]
        ):
            raise ValueError("segments do not cover the values")
        if segs.shape[0] >= 2:
            stats_acc_init(&acc, &segs[0], segs.shape[0] - 1, &batch[0])
    cdef Py_ssize_t npages = offsets.shape[0] - 1
    cdef Py_ssize_t p, a, b, n
    cdef unsigned char buf[STATS_MAX_BYTES]
    if npages < 0:
        raise ValueError("offsets must hold at least one entry")
    if npages > 0 and (offsets[0] < 0 or offsets[npages] > values.shape[0]
                       or offsets[npages] > times.shape[0]):
        raise ValueError("offsets out of range")
    pages = [] if page_bytes else None
    for p in range(npages):
        a = offsets[p]
        b = offsets[p + 1]
        if b <= a:
            if page_bytes:
                pages.append(None)
            continue
        with nogil:
            n = stats_page(kind, &values[0], &times[0], a, b, &acc, buf if page_bytes else NULL)
        if page_bytes:
            pages.append(PyBytes_FromStringAndSize(<char*>buf, n))
    return pages, stats_acc_result(&acc, kind)
