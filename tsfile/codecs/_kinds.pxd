# Value kinds shared by the PLAIN, RLE, ZIGZAG and DICTIONARY modules: what a dtype argument or an
# output array means, and the conversion of kernel error codes into CorruptDataError.
from libc.stddef cimport ptrdiff_t
from libc.stdint cimport uint8_t, uint32_t

cdef enum:
    KIND_BOOL = 0   # numpy bool
    KIND_I32 = 1    # int32 (INT32, DATE)
    KIND_I64 = 2    # int64 (INT64, TIMESTAMP, the time column)
    KIND_F32 = 3    # float32 (FLOAT)
    KIND_F64 = 4    # float64 (DOUBLE)
    KIND_BIN = 5    # object array of bytes (TEXT, STRING, BLOB)

# A TSDataType or numpy dtype-like -> KIND_*; TypeError for anything else.
cdef int resolve_kind(object dtype) except -1

# The one check of a decode_into `out` array's layout, the same in every codec (the fault table
# is in tsfile/codecs/_common.pyx): not an ndarray -> TypeError; not 1-D, not C-contiguous or
# read-only -> ValueError; non-native byte order -> ValueError. Its dtype is the caller's check.
cdef int check_out_array(object out) except -1

# The KIND_* of a preallocated 1-D contiguous output array (decode_into); TypeError otherwise.
cdef int kind_of_out(object out) except -1

# numpy dtype of a kind.
cdef object kind_dtype(int kind)

# Human name of a kind ("INT32", ...), for messages.
cdef str kind_name(int kind)

# The one place a kernel's status becomes the package's exception: CorruptDataError
# "<what>: <msg> at byte offset <at> (of <n>)". Always raises.
cdef int raise_corrupt_at(str what, str msg, size_t at, size_t n) except -1

# Raise CorruptDataError for kernel error `code` (TSC_ERR_*) at byte offset `at` of an `n`-byte
# buffer; `what` names the codec and type. Always raises; the nogil form takes the GIL to do so.
cdef int raise_kernel_error(int code, size_t at, size_t n, str what) except -1
cdef int raise_kernel_error_nogil(int code, size_t at, size_t n, const char *what) except -1 nogil

# Values to encode as a contiguous array of the kind's dtype (range-checked; EncodeError when a
# value does not fit, TypeError for a lossy or meaningless conversion). Not for KIND_BIN.
cdef object as_values(object values, int kind)

# The kind of values given without a dtype (from their numpy dtype).
cdef int infer_kind(object values) except -1

# Binary values to encode as a list of bytes (str -> UTF-8); TypeError for None or other objects.
cdef list as_binary_list(object values)

# The same, but a list that holds only bytes objects is returned as it is (no per-value work).
cdef list binary_items(object values)

# A kernel's result r (bytes consumed, or -TSC_ERR_* with the offending offset in `at`) checked:
# raises CorruptDataError naming `what` (GIL taken only then), else returns r.
cdef inline Py_ssize_t kernel_result(ptrdiff_t r, size_t at, Py_ssize_t n,
                                     const char *what) except -1 nogil:
    if r < 0:
        raise_kernel_error_nogil(<int>-r, at, <size_t>n, what)
    return r

# UnsupportedError "<codec>: <kind> values are not supported (<codec> holds <holds>)" unless
# `kind` is in the bit set `allowed` (1 << KIND_*).
cdef int check_kind_in(int kind, int allowed, str codec, str holds) except -1

# TypeError "<codec>: cannot decode into an array of <kind> values" unless `kind` is in `allowed`.
cdef int check_out_in(int kind, int allowed, str codec) except -1

# The "per_value" path into raw storage: `count` values decoded from src[0:n] by `fn` (a module's
# per-value driver filling a numpy array of the kind's dtype; it is given a view of `out`).
ctypedef Py_ssize_t (*per_value_fn)(int kind, const unsigned char[::1] buf,
                                    object out) except -1
cdef Py_ssize_t per_value_into(per_value_fn fn, int kind, const uint8_t *src, Py_ssize_t n,
                               void *out, Py_ssize_t count) except -1

# LEB128 length and writer of an unsigned 32-bit varint (encoders' length prefixes).
cdef inline int uvarint_len(uint32_t v) noexcept nogil:
    cdef int k = 1
    while v >= 0x80:
        v >>= 7
        k += 1
    return k

cdef inline int write_uvarint(uint8_t *dst, uint32_t v) noexcept nogil:
    cdef int k = 0
    while v >= 0x80:
        dst[k] = <uint8_t>(v | 0x80)
        v >>= 7
        k += 1
    dst[k] = <uint8_t>v
    return k + 1
