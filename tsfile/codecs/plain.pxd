# PLAIN (format notes 8.2): C-level entry points for the file reader's and writer's page loops.
#
# Each decoder decodes exactly `count` values from src[0:n] into `out`, returns the number of bytes
# consumed, and raises CorruptDataError (taking the GIL only then) if the data are truncated or
# malformed; it never reads outside src[0:n]. FLOAT/DOUBLE are copied bit-exactly.
from libc.stdint cimport uint8_t, int32_t, int64_t

# Numeric values by value kind and decode path: the module's contract rows (CODEC_ROWS,
# tsfile/codecs/_contract.pxd), read through tsfile.codecs._registry.

# Binary values (TEXT/STRING/BLOB): start offset and length of `count` values into starts/lens;
# returns bytes consumed; CorruptDataError on negative or overlong lengths.
cdef Py_ssize_t plain_scan_binary_c(const uint8_t *src, Py_ssize_t n, int64_t *starts,
                                    int64_t *lens, Py_ssize_t count) except -1 nogil
# ... and as a numpy object array of bytes (needs the GIL).
cdef Py_ssize_t plain_decode_binary_into(const uint8_t *src, Py_ssize_t n, object out) except -1
