# A bounded cursor over metadata bytes and the big-endian / varint reads every parser of the
# metadata shares: cparse's reference reader (which turns a failure into a CorruptDataError
# naming it), and the fast paths of cparse and devindex (which decline on any failure, so the
# reference runs and names it). One definition, so the three cannot drift apart.

from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy


cdef extern from *:
    uint64_t __builtin_bswap64(uint64_t) nogil
    uint32_t __builtin_bswap32(uint32_t) nogil


cdef struct Cur:
    const uint8_t *buf
    Py_ssize_t pos  # next byte to read
    Py_ssize_t end  # one past the last byte the cursor may read


cdef inline uint64_t be64(const uint8_t *p) noexcept nogil:
    cdef uint64_t v
    memcpy(&v, p, 8)
    return __builtin_bswap64(v)


cdef inline uint32_t be32(const uint8_t *p) noexcept nogil:
    cdef uint32_t v
    memcpy(&v, p, 4)
    return __builtin_bswap32(v)


# read_uvarint32's failures (0: a value was read)
cdef enum:
    UVARINT_TRUNCATED = -1  # the bytes end inside the varint
    UVARINT_TOO_LONG = -2  # more than 5 bytes
    UVARINT_OVERFLOW = -3  # 5 bytes holding more than 32 bits


cdef inline int read_uvarint32(Cur *c, int64_t *out) noexcept nogil:
    """Java writeUnsignedVarInt: at most 5 bytes, a 32-bit unsigned value, into ``out``, the
    cursor moved past it; 0, or one of the UVARINT_ failures."""
    cdef uint64_t value = 0
    cdef int shift = 0
    cdef uint8_t b
    while True:
        if c.pos >= c.end:
            return UVARINT_TRUNCATED
        b = c.buf[c.pos]
        c.pos += 1
        value |= (<uint64_t>(b & 0x7F)) << shift
        if not b & 0x80:
            break
        shift += 7
        if shift > 28:
            return UVARINT_TOO_LONG
    if (value >> 32) != 0:
        return UVARINT_OVERFLOW
    out[0] = <int64_t>value
    return 0
