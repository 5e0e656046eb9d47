"""Memory the library keeps for its results (tsfile._mem.pool)."""
