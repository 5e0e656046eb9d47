/*
 * bit_length.h: tsfile_bit_length64(x), the number of significant bits of x (0 for 0): the width
 * the bit-packing codecs (TS_2DIFF, RLE, ALP) store for a block whose largest value is x. One
 * definition for all of them.
 */
#ifndef TSFILE_BIT_LENGTH_H
#define TSFILE_BIT_LENGTH_H

#include <stdint.h>

#include "tsfile_isa.h"

TSFILE_INLINE int tsfile_bit_length64(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    return x ? 64 - __builtin_clzll(x) : 0;
#else
    int b = 0;
    while (x) {
        b++;
        x >>= 1;
    }
    return b;
#endif
}

#endif /* TSFILE_BIT_LENGTH_H */
