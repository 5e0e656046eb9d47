# Shared by the serial bit-stream codecs CHIMP, SPRINTZ, RLBE and CAMEL (and the FLOAT/DOUBLE
# TS_2DIFF forms): the value kinds their C-level entry points take, and argument/error helpers.
from libc.stdint cimport int64_t, uint8_t, uint64_t

from tsfile.codecs._kinds cimport KIND_F32, KIND_F64, KIND_I32, KIND_I64

# The word kinds the serial kernels take (0..3): the one value-kind enum (_kinds KIND_*) less
# KIND_BOOL, not an enum of their own.
cdef enum:
    SK_I32 = KIND_I32 - 1   # int32 words: INT32, DATE
    SK_I64 = KIND_I64 - 1   # int64 words: INT64, TIMESTAMP
    SK_F32 = KIND_F32 - 1   # float32 as its IEEE bits: FLOAT
    SK_F64 = KIND_F64 - 1   # float64 as its IEEE bits: DOUBLE

# A TSDataType or numpy dtype-like -> SK_*; TypeError for anything else or a kind the codec lacks
# (`allowed` is a bit set of 1 << SK_*).
cdef int serial_kind(object dtype, int allowed, str codec) except -1

# The SK_* of a preallocated output array (1-D, contiguous, writeable); TypeError otherwise.
cdef int serial_kind_of_out(object out, int allowed, str codec) except -1

# 64-bit words (INT64/TIMESTAMP, DOUBLE)?
cdef inline bint serial_wide(int kind) noexcept nogil:
    return kind == SK_I64 or kind == SK_F64

# numpy dtype and type name of a kind.
cdef object serial_dtype(int kind)
cdef str serial_kind_name(int kind)

# Raise CorruptDataError for a TSF_E_* status at byte offset `at` of an `n`-byte buffer.
cdef int serial_raise(int status, size_t at, size_t n, str what) except -1
# Same, callable without the GIL (takes it to raise). `codec` is an ASCII C string.
cdef int serial_raise_nogil(int status, size_t at, size_t n, const char *codec,
                            int kind) except -1 nogil

# ---- row ranges (the contract's decode_rows) ---------------------------------------------------
# A serial codec's walk over its opened decoder state (include/serial_skip.h, SERIAL_DEFINE_TAKE:
# chimp_take32, rlbe_take64, ...): the next k values into out (NULL: walked, not stored); returns
# how many it took, or a negative status. Each codec passes a wrapper of exactly this type over its
# typed take (never the take cast to it: a call through a cast function pointer is undefined).
ctypedef int64_t (*serial_take_fn)(void *state, int64_t k, void *out) noexcept nogil

# Values start .. stop-1 (start < stop) of the stream `state` was opened on: the first `start`
# walked without being stored (nothing to decode them into), then stop - start stored at out;
# nothing after value stop-1 is read. Returns stop - start, or a negative status for
# serial_raise_nogil (-1: the stream ends before value stop-1).
cdef Py_ssize_t serial_take_rows(void *state, serial_take_fn take, Py_ssize_t start,
                                 Py_ssize_t stop, void *out) noexcept nogil

# Values to encode as a contiguous array of the kind's dtype, and the kind: from `dtype` when
# given, else from the values' numpy dtype. TypeError for float<->int or non-numeric conversions,
# EncodeError for integers out of range.
cdef tuple serial_values(object values, object dtype, int allowed, str codec)


# ---- the decode()/decode_into()/streaming wrappers every serial codec module shares -------------
# A codec's C-level entry points, as the wrappers below call them:
#   count(data, nbytes, kind): the page's value count (COUNT_EXACT) or an upper bound of it
#       (COUNT_BOUND: pages that store no count); CorruptDataError on bad headers.
#   decode(data, nbytes, out, cap, kind, path, consumed): up to `cap` values into `out`, return
#       how many; *consumed (if not NULL) = bytes used; CorruptDataError on bad data.
ctypedef Py_ssize_t (*serial_count_fn)(const uint8_t *data, Py_ssize_t nbytes,
                                       int kind) except -1 nogil
ctypedef Py_ssize_t (*serial_decode_fn)(const uint8_t *data, Py_ssize_t nbytes, void *out,
                                        Py_ssize_t cap, int kind, int path,
                                        Py_ssize_t *consumed) except -1 nogil

cdef enum:
    COUNT_EXACT = 0
    COUNT_BOUND = 1

# One codec's names, kinds and entry points; a module builds one with serial_codec() at import
# and its decode()/decode_into() call the methods.
cdef class SerialCodec:
    cdef str name                    # message prefix, e.g. "RLBE" (messages: "RLBE INT32: ...")
    cdef str type_codec              # the name in dtype TypeErrors
    cdef str path_codec              # the name in path errors
    cdef int allowed                 # bit set of 1 << SK_*
    cdef bint has_simd
    cdef int count_mode              # COUNT_EXACT / COUNT_BOUND
    cdef bint end_marker             # COUNT_BOUND: a page filling the bound lacks its end marker
    cdef serial_count_fn count
    cdef serial_decode_fn decode_all    # count=None: stop at the end of the page
    cdef serial_decode_fn decode_exact  # exactly `cap` values are wanted
    cdef object decode(self, object data, object dtype, object count, object path)
    cdef object decode_into(self, object data, object out, object path)
    cdef str _what(self, int kind)

# type_codec / path_codec None: `name`.
cdef SerialCodec serial_codec(str name, str type_codec, str path_codec, int allowed,
                              bint has_simd, int count_mode, bint end_marker,
                              serial_count_fn count, serial_decode_fn decode_all,
                              serial_decode_fn decode_exact)

# The data pointer of a byte view (a valid pointer to no bytes when it is empty).
cdef const uint8_t *serial_ptr(const unsigned char[::1] buf) noexcept

# A decoded value word (the kind's bits in the low 32 or all 64 bits) as a Python value.
cdef object serial_as_python(uint64_t v, int kind)

# Streaming decoder base: has_next() / next() / iteration. A subclass's __init__ calls _open()
# and initialises its C state from the pointer it returns; it overrides _step() (1: a value in
# *v, 0: end of page, < 0: a TSF_E_* status) and _error_at() (the byte offset to report).
cdef class SerialDecoder:
    cdef const unsigned char[::1] buf
    cdef int kind
    cdef bint pending
    cdef uint64_t value
    cdef str codec
    cdef const uint8_t *_open(self, object data, object dtype, int allowed,
                              str codec) except NULL
    cdef int _step(self, uint64_t *v) noexcept
    cdef size_t _error_at(self) noexcept
    cdef bint _advance(self) except -1

# Streaming encoder base: encode(value) buffers a value; flush() encodes the buffered values as
# one page with `encode_page(np.asarray(values, dtype=value_dtype), dtype)` and starts again.
cdef class SerialEncoder:
    cdef object _dtype
    cdef object _value_dtype
    cdef object _encode_page
    cdef list _values
    cdef int _open(self, object dtype, object value_dtype, object encode_page) except -1

# SK_* of a _kinds KIND_* (the one value-kind enum; SK_* number its word kinds from 0).
cdef inline int sk_of_kind(int kind) noexcept nogil:
    return kind - 1
