"""Many TsFiles as one: path expansion and per-file metadata (files), multi-file queries and
the Arrow scanner (scan), the hook that routes tsfile.read_table & co. there (hook), the on-disk
index of the dataset view (index) and its progress line (progress)."""
