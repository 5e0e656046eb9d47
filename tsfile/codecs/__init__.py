"""Codec modules. Each one keeps its decode paths side by side: ``per_value`` (a streaming decoder,
one value per call), ``batch`` (a whole block per call, scalar C) and ``simd`` (AVX2 or NEON).

Every module exports its C-level contract rows (``CODEC_ROWS``, see ``_contract.pxd``); the one
registry of codecs, ``tsfile.codecs._registry``, finds them by encoding code and value kind for the
reader's engine and the writer. CONTRIBUTING.md, "Adding a codec", has the recipe."""
