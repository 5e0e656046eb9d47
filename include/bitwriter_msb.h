/*
 * bitwriter_msb.h: MSB-first bit writer (the first bit goes to bit 7 of the first byte), the
 * counterpart of bitreader_msb.h for the serial codecs' encoders. The caller sizes the output
 * from the encoder's bound; the writer does not check it.
 */
#ifndef TSFILE_BITWRITER_MSB_H
#define TSFILE_BITWRITER_MSB_H

#include <stdint.h>
#include <stddef.h>

#include "tsfile_isa.h"

typedef struct {
    uint8_t *out;
    size_t pos;    /* bytes written to out */
    uint64_t acc;  /* pending bits, right-aligned */
    int nacc;      /* number of pending bits (0..7 between calls) */
} tsf_msb_writer;

TSFILE_INLINE void tsf_msbw_init(tsf_msb_writer *w, uint8_t *out)
{
    w->out = out;
    w->pos = 0;
    w->acc = 0;
    w->nacc = 0;
}

/* Append the low n (0..56) bits of v. */
TSFILE_INLINE void tsf_msbw_put(tsf_msb_writer *w, uint64_t v, int n)
{
    if (n == 0) return;
    w->acc = (w->acc << n) | (v & ((UINT64_C(1) << n) - 1));
    w->nacc += n;
    while (w->nacc >= 8) {
        w->nacc -= 8;
        w->out[w->pos++] = (uint8_t)(w->acc >> w->nacc);
    }
}

/* Append the low n (0..64) bits of v. */
TSFILE_INLINE void tsf_msbw_put_wide(tsf_msb_writer *w, uint64_t v, int n)
{
    if (n > 32) {
        tsf_msbw_put(w, v >> 32, n - 32);
        tsf_msbw_put(w, v & 0xffffffffu, 32);
    } else {
        tsf_msbw_put(w, v, n);
    }
}

/* Bits written so far. */
TSFILE_INLINE size_t tsf_msbw_bits(const tsf_msb_writer *w) { return w->pos * 8 + (size_t)w->nacc; }

/* Zero-pad the last byte; with `extra_when_aligned`, write a whole 0x00 byte when there is
 * nothing to pad (the GORILLA/CHIMP writers' final flush). Returns the total size. */
TSFILE_INLINE size_t tsf_msbw_finish(tsf_msb_writer *w, int extra_when_aligned)
{
    if (w->nacc > 0) {
        w->out[w->pos++] = (uint8_t)(w->acc << (8 - w->nacc));
        w->nacc = 0;
    } else if (extra_when_aligned) {
        w->out[w->pos++] = 0;
    }
    w->acc = 0;
    return w->pos;
}

#endif /* TSFILE_BITWRITER_MSB_H */
