# DICTIONARY (format notes 8.7): TEXT/STRING(/BLOB) values as a dictionary of entries plus INT32
# RLE indices. C-level entry point for the reader's page loop (needs the GIL: it makes bytes).

from libc.stdint cimport uint8_t

# Decode exactly len(out) values into the object array `out` (bytes objects, or str when
# `strings`: each entry decoded from UTF-8 once, surrogateescape; the entries are shared, not
# copied per value); return the bytes consumed; CorruptDataError on bad data.
cdef Py_ssize_t dictionary_decode_into_c(const uint8_t *src, Py_ssize_t n, object out,
                                         bint strings=*) except -1
