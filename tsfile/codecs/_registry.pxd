# The one codec registry: (encoding code, value kind) -> the codec's contract row (_contract.pxd).
from libc.stdint cimport uint8_t

from tsfile.codecs._contract cimport codec_row

cdef enum:
    MAX_CODECS = 64  # codec modules at most (codec_row.codec_id < MAX_CODECS; checked at import)

# The row for encoding `enc` holding values of `kind` (KIND_*), or NULL: none in this build.
cdef const codec_row *find_row(int enc, int kind) noexcept nogil

# KIND_* of a TsFile data type code (VECTOR, a time chunk's type: int64 timestamps); -1: none.
cdef int kind_of_type(int data_type) noexcept nogil

# Number of codec modules (codec_row.codec_id < n_codecs()) and the module name of one.
cdef int n_codecs() noexcept nogil
cdef str codec_name(int codec_id)

# The row's skip, or (skip NULL) its decode_into on the batch path into a scratch buffer.
cdef Py_ssize_t skip_values(const codec_row *row, const uint8_t *src, Py_ssize_t n,
                            Py_ssize_t k) except -1
