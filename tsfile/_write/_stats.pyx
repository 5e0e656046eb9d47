# cython: boundscheck=False, wraparound=False, cdivision=True
"""Per-page min / max / sum of a column in one C pass (the writer's statistics, format notes 6).

Sums are accumulated sequentially, value by value, in the type the format stores them in (INT32,
DATE and BOOLEAN: int64; INT64, FLOAT, DOUBLE: double), the way the C++ and Java writers update
their statistics, so the stored double sums are bit-identical to theirs. min/max follow the C++
update rule (start from the first value, replace when strictly smaller / larger), so a NaN that
is not the first value never becomes min or max.
"""

import numpy as np

cimport numpy as cnp
from libc.stdint cimport int32_t, int64_t, uint8_t

cnp.import_array()

ctypedef fused num_t:
    uint8_t
    int32_t
    int64_t
    float
    double


def page_min_max_sum(num_t[::1] values, const int64_t[::1] offsets):
    """values: the non-null values of a chunk, in row order; offsets: P + 1 increasing indexes
    into values, page p = values[offsets[p]:offsets[p+1]]. Returns (mins, maxs, sums) arrays of
    length P; an empty page has zeros."""
    cdef Py_ssize_t npages = offsets.shape[0] - 1
    cdef Py_ssize_t p, i, a, b
    cdef num_t lo, hi, v
    cdef double dsum
    cdef int64_t isum
    if npages < 0:
        raise ValueError("offsets must hold at least one entry")
    if npages > 0 and (offsets[0] < 0 or offsets[npages] > values.shape[0]):
        raise ValueError("offsets out of range")
    if num_t is uint8_t:
        dt = np.uint8
    elif num_t is int32_t:
        dt = np.int32
    elif num_t is int64_t:
        dt = np.int64
    elif num_t is float:
        dt = np.float32
    else:
        dt = np.float64
    mins_a = np.zeros(npages, dtype=dt)
    maxs_a = np.zeros(npages, dtype=dt)
    integer_sum = num_t is uint8_t or num_t is int32_t
    sums_a = np.zeros(npages, dtype=np.int64 if integer_sum else np.float64)
    cdef num_t[::1] mins = mins_a
    cdef num_t[::1] maxs = maxs_a
    cdef int64_t[::1] isums
    cdef double[::1] dsums
    if integer_sum:
        isums = sums_a
    else:
        dsums = sums_a
    with nogil:
        for p in range(npages):
            a = offsets[p]
            b = offsets[p + 1]
            if b <= a:
                continue
            lo = values[a]
            hi = lo
            isum = 0
            dsum = 0.0
            for i in range(a, b):
                v = values[i]
                if v < lo:
                    lo = v
                if v > hi:
                    hi = v
                if num_t is uint8_t or num_t is int32_t:
                    isum += v
                else:
                    dsum += <double>v
            mins[p] = lo
            maxs[p] = hi
            if num_t is uint8_t or num_t is int32_t:
                isums[p] = isum
            else:
                dsums[p] = dsum
    return mins_a, maxs_a, sums_a
