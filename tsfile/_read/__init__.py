"""The read hot path: chunk and page iteration, decompression and decoding into result arrays."""
