"""Codec modules. Each one keeps its decode paths side by side: ``per_value`` (a streaming decoder,
one value per call), ``batch`` (a whole block per call, scalar C) and ``simd`` (AVX2 or NEON)."""
