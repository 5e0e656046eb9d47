"""asv benchmarks of tsfile-turbo (see asv_bench/README.md)."""
