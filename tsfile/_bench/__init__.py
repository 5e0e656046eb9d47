"""Quick benchmarks behind ``python -m tsfile bench``."""
