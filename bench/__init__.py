"""Benchmarks (not tests): ours vs the reference implementation."""
