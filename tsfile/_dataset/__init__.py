"""Many TsFiles as one: path expansion and per-file metadata (files), multi-file queries and
the Arrow scanner (scan), the on-disk index of the dataset view (index)."""
