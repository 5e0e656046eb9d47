# Shared by the serial bit-stream codecs CHIMP, SPRINTZ, RLBE and CAMEL (and the FLOAT/DOUBLE
# TS_2DIFF forms): the value kinds their C-level entry points take, and argument/error helpers.
from libc.stddef cimport ptrdiff_t
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

# ---- one serial codec: its kernels behind one description ---------------------------------------
# A serial codec module describes its kernels once, as a serial_ops (make_serial_ops below), and
# includes _serial_codec.pxi: decode()/decode_into()'s wrappers, the per-value loop, the count,
# skip and row-range operations of its contract rows and encode() are then the shared ones here.
# `state` is the codec's streaming decoder state (at most SERIAL_STATE_WORDS 64-bit words, opened by `open`);
# `sk` is the value's SK_* word kind. Every kernel is called through a function of exactly these
# types (a call through a function pointer cast to another type is undefined behaviour in C).
cdef enum:
    SERIAL_STATE_WORDS = 256   # 2 KiB (CHIMP's state, the largest, is about 1.1 KiB)

# Start walking the page src[0:n]; `exact`: the page's value count is known (CHIMP: an end-marker
# word is then a value).
ctypedef void (*serial_open_fn)(void *state, const uint8_t *src, size_t n, int sk,
                                bint exact) noexcept nogil
# The per-value path's step (one out-of-line call a value): 1 and *v, 0 at the end, or a TSF_E_*.
ctypedef int (*serial_next_fn)(void *state, int sk, uint64_t *v) noexcept nogil
# The bytes consumed once the per-value loop has stopped (CHIMP first steps over its end marker).
ctypedef size_t (*serial_finish_fn)(void *state, int sk) noexcept nogil
# The byte offset to report for a step or walk that failed.
ctypedef size_t (*serial_error_at_fn)(void *state) noexcept nogil
# The batch path: up to `cap` values into out; the count, or a TSF_E_* with *pos at the fault.
ctypedef int64_t (*serial_batch_fn)(const uint8_t *src, size_t n, int sk, bint exact, void *out,
                                    int64_t cap, size_t *pos) noexcept nogil
# The page's value count (COUNT_EXACT) or a bound of it (COUNT_BOUND); a TSF_E_* at *pos.
ctypedef int64_t (*serial_size_fn)(const uint8_t *src, size_t n, int sk, size_t *pos) noexcept nogil
# The next k values walked (out NULL) or stored from an opened state (include/serial_skip.h,
# SERIAL_DEFINE_TAKE): how many, or a TSF_E_*.
ctypedef int64_t (*serial_walk_fn)(void *state, int sk, int64_t k, void *out) noexcept nogil
# encode(): the largest page of n values, and the encoder (bytes written, < 0: out of memory).
ctypedef size_t (*serial_bound_fn)(size_t n, int sk) noexcept nogil
ctypedef ptrdiff_t (*serial_encode_fn)(const void *values, size_t n, int sk,
                                       uint8_t *out) noexcept nogil
# The per-value path over an opened state: up to `cap` values into out (NULL: walked, not stored),
# one call of the codec's step a value; CorruptDataError on a failed step. Each module's own
# (_serial_codec.pxi), so that the step is a direct call, not one through serial_ops.next.
ctypedef int64_t (*serial_loop_fn)(void *state, int64_t cap, int sk, void *out,
                                   Py_ssize_t nbytes) except -1 nogil

cdef struct serial_ops:
    const char *name          # the encoding's name in messages ("RLBE")
    const char *module        # its module under tsfile.codecs ("rlbe")
    int encoding              # TSEncoding code
    int allowed               # bit set of 1 << SK_*
    int count_mode            # COUNT_EXACT: `size` counts the page; COUNT_BOUND: bounds it
    bint end_marker           # COUNT_BOUND: a page filling the bound lacks its end marker
    bint short_is_truncated   # an exact decode finding fewer values: "data truncated" (CHIMP)
    size_t state_size
    serial_open_fn open
    serial_next_fn next
    serial_finish_fn finish
    serial_error_at_fn error_at
    serial_batch_fn batch
    serial_size_fn size
    serial_walk_fn take
    serial_bound_fn encode_bound
    serial_encode_fn encode
    serial_loop_fn per_value  # set by _serial_codec.pxi

# A serial_ops, every field named; flags is a bit set of the SERIAL_* below.
cdef enum:
    SERIAL_COUNT_BOUND = 1        # count_mode COUNT_BOUND
    SERIAL_END_MARKER = 2
    SERIAL_SHORT_IS_TRUNCATED = 4

cdef serial_ops make_serial_ops(const char *name, const char *module, int encoding, int allowed,
                                int flags, size_t state_size, serial_open_fn open,
                                serial_next_fn next, serial_finish_fn finish,
                                serial_error_at_fn error_at, serial_batch_fn batch,
                                serial_size_fn size, serial_walk_fn take,
                                serial_bound_fn encode_bound, serial_encode_fn encode) except *

# The operations every serial codec module shares (_serial_codec.pxi calls them with its ops).
# The page's count (or bound); CorruptDataError on bad headers.
cdef Py_ssize_t serial_size(const serial_ops *ops, const uint8_t *data, Py_ssize_t nbytes,
                            int sk) except -1 nogil
# Up to `cap` values into out (NULL: walked, not stored) on path `path`; how many. *consumed (if
# not NULL) = bytes used; CorruptDataError on bad data (and, for short_is_truncated codecs, on an
# exact decode finding fewer than `cap`).
cdef Py_ssize_t serial_decode(const serial_ops *ops, const uint8_t *data, Py_ssize_t nbytes,
                              void *out, Py_ssize_t cap, int sk, int path, bint exact,
                              Py_ssize_t *consumed) except -1 nogil
# The contract's skip: k values walked on the per-value state (the page's count checked first
# where the page has one); CorruptDataError when it holds fewer.
cdef Py_ssize_t serial_skip(const serial_ops *ops, const uint8_t *src, Py_ssize_t n, Py_ssize_t k,
                            int sk) except -1 nogil
# The contract's decode_rows: values start .. stop-1 from the opened decoder state, the first
# `start` walked without being stored, nothing after value stop-1 read. The body is decompressed
# whole first: where a value lies is known only by walking the stream.
cdef Py_ssize_t serial_rows(const serial_ops *ops, const uint8_t *src, Py_ssize_t n, void *more,
                            Py_ssize_t start, Py_ssize_t stop, void *out, int sk) except -1 nogil
# encode(values, dtype) of a serial codec module.
cdef bytes serial_encode(const serial_ops *ops, object values, object dtype)

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

# Streaming decoder base: has_next() / next() / iteration over a serial codec's per-value step.
# A subclass's __init__ calls _start() with its module's serial_ops.
cdef class SerialDecoder:
    cdef const unsigned char[::1] buf
    cdef int kind
    cdef bint pending
    cdef uint64_t value
    cdef const serial_ops *ops
    cdef void *state                 # ops.state_size bytes, opened on buf
    cdef int _start(self, const serial_ops *ops, object data, object dtype) except -1
    cdef bint _advance(self) except -1

# Streaming encoder base: encode(value) buffers a value; flush() encodes the buffered values as
# one page with `encode_page(np.asarray(values, dtype=value_dtype), dtype)` and starts again.
# A subclass's __init__ calls _bind() with its module's serial_ops and encode().
cdef class SerialEncoder:
    cdef object _dtype
    cdef object _value_dtype
    cdef object _encode_page
    cdef list _values
    cdef int _bind(self, const serial_ops *ops, object dtype, object encode_page) except -1

# SK_* of a _kinds KIND_* (the one value-kind enum; SK_* number its word kinds from 0).
cdef inline int sk_of_kind(int kind) noexcept nogil:
    return kind - 1
