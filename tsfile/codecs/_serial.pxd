# Shared by the serial bit-stream codecs CHIMP, SPRINTZ, RLBE and CAMEL (and the FLOAT/DOUBLE
# TS_2DIFF forms): the value kinds their C-level entry points take, and argument/error helpers.

cdef enum:
    SK_I32 = 0   # int32 words: INT32, DATE
    SK_I64 = 1   # int64 words: INT64, TIMESTAMP
    SK_F32 = 2   # float32 as its IEEE bits: FLOAT
    SK_F64 = 3   # float64 as its IEEE bits: DOUBLE

# A TSDataType or numpy dtype-like -> SK_*; TypeError for anything else or a kind the codec lacks
# (`allowed` is a bit set of 1 << SK_*).
cdef int serial_kind(object dtype, int allowed, str codec) except -1

# The SK_* of a preallocated output array (1-D, contiguous, writeable); TypeError otherwise.
cdef int serial_kind_of_out(object out, int allowed, str codec) except -1

# numpy dtype and type name of a kind.
cdef object serial_dtype(int kind)
cdef str serial_kind_name(int kind)

# Raise CorruptDataError for a TSF_E_* status at byte offset `at` of an `n`-byte buffer.
cdef int serial_raise(int status, size_t at, size_t n, str what) except -1
# Same, callable without the GIL (takes it to raise). `codec` is an ASCII C string.
cdef int serial_raise_nogil(int status, size_t at, size_t n, const char *codec,
                            int kind) except -1 nogil

# Values to encode as a contiguous array of the kind's dtype, and the kind: from `dtype` when
# given, else from the values' numpy dtype. TypeError for float<->int or non-numeric conversions,
# EncodeError for integers out of range.
cdef tuple serial_values(object values, object dtype, int allowed, str codec)
