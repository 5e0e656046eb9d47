# cython: language_level=3, boundscheck=False, wraparound=False
"""A device's series index for planning, parsed in C into compact arrays (no per-series Python
object): what a table query's plan needs of each TimeseriesMetadata record (name, data type,
record offset, the count and time range of its statistics and of each chunk's).

Planning a many-file read walked every device's series into TimeseriesMeta, ChunkMeta and
Statistics objects (tsfile._format.index, cparse.read_leaf_series): three objects per series,
9,000 series for 100 files of the E5-2 shape, most of the GIL-held planning. Here the same
bytes are read with C loads into arrays, and ``DeviceIndex.plan`` pairs the value chunks with
their time chunks (TsFileReader._plan_aligned's rules) in C too.

A fast path only, never a second source of errors: whatever it does not take (a measurement
index with internal nodes, a name that is not ASCII, a data type or length it does not expect)
or finds wrong (anything the reference walk would reject: a truncated record, a range outside
the metadata area, names out of order, a value chunk without its time chunk ...) makes it
decline, returning None, and the caller walks the device the reference way
(IndexWalker.series, _plan_aligned), which raises the package's error naming the offset. So it
must decline on every input the reference rejects, and on the inputs it takes, give exactly
what the reference gives (tests/test_devindex.py checks both on fixtures and damaged bytes).

The parse reads only ``buf[start:end]`` of a device's series index and the ranges its leaf
entries name, each checked to lie inside the metadata area ``[lo, hi)`` and the buffer before
any byte of it is read; every length read from the file is checked against the bytes left.
"""

from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, realloc
from libc.string cimport memcmp, memcpy

from tsfile._format.cursor cimport Cur, be32, be64, read_uvarint32
from tsfile._format.codes cimport (
    NODE_LEAF_MEASUREMENT, T_BLOB, T_BOOLEAN, T_DATE, T_DOUBLE, T_FLOAT, T_INT32, T_INT64,
    T_STRING, T_TEXT, T_TIMESTAMP, T_UNKNOWN,
)


cdef struct Stats:
    int64_t count
    int64_t start
    int64_t end


cdef struct Series:
    Py_ssize_t name_at  # into DeviceIndex.names
    Py_ssize_t name_len
    int dtype
    int64_t at  # file offset of the record
    Stats stats
    Py_ssize_t chunk_lo  # its chunks: DeviceIndex.chunks[chunk_lo:chunk_hi]
    Py_ssize_t chunk_hi


cdef struct ChunkRec:
    int64_t offset
    Stats stats


# -- bounded reads: 0 when the bytes are there, -1 (decline) when not -------------------------

cdef inline int need(Cur *c, int64_t n) noexcept nogil:
    return 0 if (n >= 0 and n <= c.end - c.pos) else -1


cdef inline int ascii_name(Cur *c, Py_ssize_t *at, Py_ssize_t *n) noexcept nogil:
    """An svarint-length string that is not null and is ASCII (so valid UTF-8, ordered by its
    bytes as by its code points and its UTF-16 units): its offset and length."""
    cdef int64_t u, k
    cdef Py_ssize_t i
    if read_uvarint32(c, &u) < 0:
        return -1
    k = <int64_t>(<uint64_t>u >> 1) ^ -(u & 1)
    if k < 0 or need(c, k) < 0:  # null (-1) or negative: the reference names the error
        return -1
    for i in range(c.pos, c.pos + k):
        if c.buf[i] >= 0x80:
            return -1
    at[0] = c.pos
    n[0] = <Py_ssize_t>k
    c.pos += k
    return 0


cdef inline int skip_binstr(Cur *c) noexcept nogil:
    """An i32 length + that many bytes (statistics of TEXT / STRING)."""
    cdef int32_t n
    if need(c, 4) < 0:
        return -1
    n = <int32_t>be32(c.buf + c.pos)
    c.pos += 4
    if n < 0 or need(c, n) < 0:
        return -1
    c.pos += n
    return 0


cdef int statistics(Cur *c, int t, Stats *st) noexcept nogil:
    """cparse._Reader.statistics, keeping the count and the time range only."""
    cdef int64_t size = 0
    cdef int k
    if read_uvarint32(c, &st.count) < 0 or need(c, 16) < 0:
        return -1
    st.start = <int64_t>be64(c.buf + c.pos)
    st.end = <int64_t>be64(c.buf + c.pos + 8)
    c.pos += 16
    if t == T_BOOLEAN:
        size = 10
    elif t == T_INT32 or t == T_DATE or t == T_FLOAT:
        size = 24
    elif t == T_INT64 or t == T_TIMESTAMP or t == T_DOUBLE:
        size = 40
    elif t == T_TEXT or t == T_STRING:
        for k in range(2 if t == T_TEXT else 4):
            if skip_binstr(c) < 0:
                return -1
        return 0
    # BLOB and VECTOR: count and times only
    if need(c, size) < 0:
        return -1
    c.pos += size
    return 0


cdef class DeviceIndex:
    """The series of one device (see the module notes), in index order: strictly increasing
    ASCII names."""

    cdef Series *series
    cdef Py_ssize_t n_series, cap_series
    cdef ChunkRec *chunks
    cdef Py_ssize_t n_chunks, cap_chunks
    cdef char *names
    cdef Py_ssize_t n_names, cap_names

    def __dealloc__(self):
        free(self.series)
        free(self.chunks)
        free(self.names)

    cdef int _grow(self) noexcept nogil:
        """Room for one more series."""
        cdef void *p
        if self.n_series == self.cap_series:
            self.cap_series = 2 * self.cap_series + 16
            p = realloc(self.series, self.cap_series * sizeof(Series))
            if p == NULL:
                return -1
            self.series = <Series *>p
        return 0

    cdef int _add_chunk(self, int64_t offset, Stats *st) noexcept nogil:
        cdef void *p
        if self.n_chunks == self.cap_chunks:
            self.cap_chunks = 2 * self.cap_chunks + 16
            p = realloc(self.chunks, self.cap_chunks * sizeof(ChunkRec))
            if p == NULL:
                return -1
            self.chunks = <ChunkRec *>p
        self.chunks[self.n_chunks].offset = offset
        self.chunks[self.n_chunks].stats = st[0]
        self.n_chunks += 1
        return 0

    cdef int _add_name(self, const uint8_t *p, Py_ssize_t n, Series *s) noexcept nogil:
        cdef void *q
        if self.n_names + n > self.cap_names:
            self.cap_names = 2 * (self.cap_names + n) + 64
            q = realloc(self.names, self.cap_names)
            if q == NULL:
                return -1
            self.names = <char *>q
        if n:
            memcpy(self.names + self.n_names, p, n)
        s.name_at = self.n_names
        s.name_len = n
        self.n_names += n
        return 0

    cdef int _record(self, Cur *c) noexcept nogil:
        """cparse._Reader.series at the cursor, appended."""
        cdef Series *s
        cdef Py_ssize_t name_at, name_len
        cdef int64_t cm_bytes, off
        cdef Cur sub
        cdef Stats cst
        cdef int ts_type, t
        cdef bint multi
        if self._grow() < 0:
            return -1
        s = &self.series[self.n_series]
        s.at = c.pos
        if need(c, 1) < 0:
            return -1
        ts_type = c.buf[c.pos]
        c.pos += 1
        if ascii_name(c, &name_at, &name_len) < 0:
            return -1
        if need(c, 1) < 0:
            return -1
        t = c.buf[c.pos]
        c.pos += 1
        if t == T_UNKNOWN or t > T_STRING:
            return -1
        s.dtype = t
        if read_uvarint32(c, &cm_bytes) < 0 or statistics(c, t, &s.stats) < 0:
            return -1
        if need(c, cm_bytes) < 0:
            return -1
        sub.buf = c.buf
        sub.pos = c.pos
        sub.end = c.pos + cm_bytes
        c.pos += cm_bytes
        multi = (ts_type & 0x3F) != 0
        s.chunk_lo = self.n_chunks
        while sub.pos < sub.end:
            if need(&sub, 8) < 0:
                return -1
            off = <int64_t>be64(sub.buf + sub.pos)
            sub.pos += 8
            if multi:
                if statistics(&sub, t, &cst) < 0:
                    return -1
            else:
                cst = s.stats
            if self._add_chunk(off, &cst) < 0:
                return -1
            if not multi:
                break
        if sub.pos != sub.end or self.n_chunks == s.chunk_lo:
            return -1
        s.chunk_hi = self.n_chunks
        if self._add_name(c.buf + name_at, name_len, s) < 0:
            return -1
        self.n_series += 1
        return 0

    cdef int _parse(self, const uint8_t *buf, Py_ssize_t size, Py_ssize_t start,
                    Py_ssize_t end, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
        """IndexWalker.series over a device whose series index is one LEAF_MEASUREMENT node
        (read_measurement_node, then read_leaf_series, then the names' order)."""
        cdef Cur c, r
        cdef int64_t n, k, prev_key_at = -1, prev_key_len = 0
        cdef Py_ssize_t key_at, key_len, first, i
        cdef Py_ssize_t *entry_at
        cdef int64_t *entry_off
        cdef int64_t end_offset, e_start, e_end
        cdef int rc = -1
        cdef Series *a
        cdef Series *b
        if not (0 <= start <= end <= size):
            return -1
        c.buf = buf
        c.pos = start
        c.end = end
        if read_uvarint32(&c, &n) < 0 or n * 9 > c.end - c.pos:
            return -1
        entry_at = <Py_ssize_t *>realloc(NULL, (2 * n + 1) * sizeof(Py_ssize_t))
        entry_off = <int64_t *>realloc(NULL, (n + 1) * sizeof(int64_t))
        if entry_at == NULL or entry_off == NULL:
            free(entry_at)
            free(entry_off)
            return -1
        try:
            for k in range(n):
                if ascii_name(&c, &key_at, &key_len) < 0 or need(&c, 8) < 0:
                    return -1
                entry_off[k] = <int64_t>be64(c.buf + c.pos)
                c.pos += 8
                entry_at[2 * k] = key_at
                entry_at[2 * k + 1] = key_len
                if k and compare(buf + prev_key_at, prev_key_len, buf + key_at, key_len) >= 0:
                    return -1  # entries strictly increase
                prev_key_at, prev_key_len = key_at, key_len
            if need(&c, 9) < 0:
                return -1
            end_offset = <int64_t>be64(c.buf + c.pos)
            if c.buf[c.pos + 8] != NODE_LEAF_MEASUREMENT:
                return -1  # internal measurement nodes (or a wrong type): the reference walk
            for k in range(n):
                e_start = entry_off[k]
                e_end = entry_off[k + 1] if k + 1 < n else end_offset
                if not (lo <= e_start < e_end <= hi) or e_end > size:
                    return -1
                r.buf = buf
                r.pos = e_start
                r.end = e_end
                first = self.n_series
                while r.pos < r.end:
                    if self._record(&r) < 0:
                        return -1
                if self.n_series == first:
                    return -1
                a = &self.series[first]
                if compare(<const uint8_t *>self.names + a.name_at, a.name_len,
                           buf + entry_at[2 * k], entry_at[2 * k + 1]) != 0:
                    return -1  # the entry names the first series of its range
            for i in range(1, self.n_series):
                a = &self.series[i - 1]
                b = &self.series[i]
                if compare(<const uint8_t *>self.names + a.name_at, a.name_len,
                           <const uint8_t *>self.names + b.name_at, b.name_len) >= 0:
                    return -1  # series strictly increase
            rc = 0
        finally:
            free(entry_at)
            free(entry_off)
        return rc

    cdef Py_ssize_t _find(self, const uint8_t *name, Py_ssize_t n) noexcept nogil:
        """The series named ``name`` (binary search: names strictly increase), -1 if none."""
        cdef Py_ssize_t a = 0, b = self.n_series, m
        cdef int c
        while a < b:
            m = (a + b) // 2
            c = compare(<const uint8_t *>self.names + self.series[m].name_at,
                        self.series[m].name_len, name, n)
            if c == 0:
                return m
            if c < 0:
                a = m + 1
            else:
                b = m
        return -1

    def time_statistics(self):
        """(count, start time, end time) of the device's time column (the series named ''),
        None when it has none."""
        cdef Py_ssize_t i = self._find(<const uint8_t *>b"", 0)
        if i < 0:
            return None
        cdef Stats st = self.series[i].stats
        if st.count == 0 and self.series[i].chunk_hi > self.series[i].chunk_lo:
            return None  # damage: TsFileReader._time_column_statistics raises for it
        return st.count, st.start, st.end

    def value_counts(self, list names):
        """Per name (str) in ``names``: the value count of the device's series of that name
        (its statistics), 0 when the device has no such series (the dataset view lists a
        field of a device only where it holds a value, as the official view does)."""
        cdef list out = []
        cdef Py_ssize_t i
        cdef bytes b
        for name in names:
            try:
                b = name.encode("ascii")
            except UnicodeEncodeError:
                out.append(0)  # every series of an index this fast path takes is ASCII
                continue
            i = self._find(<const uint8_t *>b, len(b))
            out.append(0 if i < 0 else self.series[i].stats.count)
        return out

    def plan(self, list fields, int64_t t1, int64_t t2):
        """TsFileReader._plan_aligned for the field names ``fields`` (str; those whose name no
        series has are None), or None to decline (the device has no time column, or its
        chunks break a rule _plan_aligned raises on): (types, type_at, names, groups) with
        per field its series' data type, record offset and name, and per chunk group of the
        query range [t1, t2] in file order (time chunk offset, statistics count, start time,
        end time, [value chunk offset or None per field])."""
        cdef Py_ssize_t nf = len(fields), j, i, k, lo, hi, ti, nt, m
        cdef Py_ssize_t tk = self._find(<const uint8_t *>b"", 0)
        if tk < 0:
            return None
        cdef bytes key
        found = []
        types = []
        type_at = []
        names = []
        for j in range(nf):
            f = fields[j]
            i = -1
            if type(f) is str:
                try:
                    key = (<str>f).encode("utf-8")
                except UnicodeEncodeError:
                    key = None
                if key is not None:
                    i = self._find(<const uint8_t *><char *>key, len(key))
            found.append(i)
            if i < 0:
                types.append(None)
                type_at.append(None)
                names.append(None)
            else:
                types.append(self.series[i].dtype)
                type_at.append(self.series[i].at)
                names.append(f)
        cdef Series *ts = &self.series[tk]
        nt = ts.chunk_hi - ts.chunk_lo
        if ts.stats.count == 0 and nt > 0:
            return None  # damage: TsFileReader._time_column_statistics raises for it
        if ts.stats.count == 0 or ts.stats.end < t1 or ts.stats.start > t2:
            return types, type_at, names, []
        cdef ChunkRec *tc = self.chunks + ts.chunk_lo
        cdef int64_t counted = 0
        if nt > 1:  # _ordered_time_chunks: counts add up, sorted by offset, no offset twice
            for k in range(nt):
                counted += tc[k].stats.count
            if counted != ts.stats.count:
                return None
            pairs = sorted([(tc[k].offset, k) for k in range(nt)])
            order = [k for _off, k in pairs]
        else:
            order = [0]
        offsets = [tc[<Py_ssize_t>x].offset for x in order]
        for k in range(1, nt):
            if offsets[k - 1] == offsets[k]:
                return None
        owner = [[None] * nf for _ in range(nt)]
        cdef Series *v
        cdef ChunkRec *cm
        cdef ChunkRec *t_of
        cdef int64_t off
        for j in range(nf):
            i = found[j]
            if i < 0:
                continue
            v = &self.series[i]
            for k in range(v.chunk_lo, v.chunk_hi):
                cm = &self.chunks[k]
                off = cm.offset
                # bisect_left(offsets, off) - 1: the last time chunk before it in the file
                lo, hi = 0, nt
                while lo < hi:
                    m = (lo + hi) // 2
                    if <int64_t>offsets[m] < off:
                        lo = m + 1
                    else:
                        hi = m
                ti = lo - 1
                if ti < 0 or <int64_t>offsets[ti] == off:
                    return None
                row = owner[ti]
                if row[j] is not None:
                    return None
                t_of = &tc[<Py_ssize_t>order[ti]]
                if cm.stats.count and (
                    cm.stats.count > t_of.stats.count
                    or cm.stats.start < t_of.stats.start
                    or cm.stats.end > t_of.stats.end
                ):
                    return None
                row[j] = off
        groups = []
        for k in range(nt):
            t_of = &tc[<Py_ssize_t>order[k]]
            if t_of.stats.count == 0 or t_of.stats.end < t1 or t_of.stats.start > t2:
                continue
            groups.append(
                (t_of.offset, t_of.stats.count, t_of.stats.start, t_of.stats.end, owner[k])
            )
        return types, type_at, names, groups


cdef inline int compare(const uint8_t *a, Py_ssize_t na, const uint8_t *b,
                        Py_ssize_t nb) noexcept nogil:
    """Byte order, a prefix first (for ASCII: str order)."""
    cdef int c = memcmp(a, b, na if na < nb else nb) if (na and nb) else 0
    if c != 0:
        return c
    return (na > nb) - (na < nb)


def read_device_index(buf, Py_ssize_t start, Py_ssize_t end, Py_ssize_t lo, Py_ssize_t hi):
    """The DeviceIndex of the device whose series index is ``buf[start:end]`` (the metadata
    area: ``[lo, hi)``), or None when the fast path declines (see the module notes: the
    reference walk then reads it, and raises if it is damaged)."""
    cdef const uint8_t[::1] view
    cdef const uint8_t *p = NULL
    cdef Py_ssize_t size = len(buf)
    cdef DeviceIndex d = DeviceIndex()
    cdef int rc
    if size:
        view = buf
        p = &view[0]
    with nogil:
        rc = d._parse(p, size, start, end, lo, hi)
    return d if rc == 0 else None
