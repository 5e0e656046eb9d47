"""Differential tests against the official Apache tsfile 2.5.0 (see test_differential.py)."""
