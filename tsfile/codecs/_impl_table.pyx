# cython: language_level=3
"""The per-ISA implementation table of the SIMD codecs (declared in _impl_table.pxd): the row each
ISA level runs, chosen once at import, and the ``implementations()`` / ``active_implementation()``
functions every such codec module exports, written once here."""
from tsfile._simd import register_codec


cdef class ImplTable:
    """One codec's implementation rows by ISA level (build it with impl_table())."""

    def __init__(self):
        # an unfilled table would point at no rows: only impl_table() makes them
        raise TypeError("ImplTable is built by impl_table() when its codec module is imported")

    def _check_filled(self):
        # A table made by ImplTable.__new__ (not impl_table()) points at no rows: reading them
        # would dereference NULL.
        if self.at_level[0] == NULL:
            raise TypeError("ImplTable is built by impl_table() when its codec module is imported")

    def implementations(self):
        """The implementation rows this CPU can run, best first (``"scalar"`` last): the row chosen
        for each level that is that level's own."""
        self._check_filled()
        return impl_table_names(self.at_level)

    def active_implementation(self):
        """The row ``path="simd"`` and ``path="auto"`` run at the current ISA level."""
        self._check_filled()
        return impl_table_active(self.at_level)

    def publish(self, dict module):
        """Give a codec module (its ``globals()``) the functions ``implementations()`` and
        ``active_implementation()`` of this table; returns ``has_simd``, the module's
        ``HAS_SIMD`` (true when the build carries SIMD rows: whether the CPU can run them is
        :func:`tsfile.simd_info`'s business; ``path="simd"`` checks both)."""
        self._check_filled()
        module["implementations"] = self.implementations
        module["active_implementation"] = self.active_implementation
        return self.has_simd


cdef ImplTable impl_table(str codec, const void *rows, size_t stride, size_t n_rows,
                          impl_pick_fn pick):
    """The table of `n_rows` rows `stride` bytes apart from `rows`: for each level, the row `pick`
    chooses on this CPU. Registers it under `codec` for tsfile.simd_info() unless codec is None."""
    cdef ImplTable table = ImplTable.__new__(ImplTable)
    impl_table_fill(table.at_level, rows, stride, pick)
    table.has_simd = n_rows > 1
    if codec is not None:
        register_codec(codec, table.active_implementation)
    return table
