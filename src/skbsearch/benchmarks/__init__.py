"""Benchmark adapters: each yields the SKB or corpus, queries and qrels, and runs the
official protocol, returning a :class:`~skbsearch.benchmarks.result.BenchmarkResult`.

Import the adapter you need (``skbsearch.benchmarks.metaqa``...); this package imports
none of them, so a benchmark's dependencies load only when it is used.
"""

from skbsearch.benchmarks.result import BenchmarkResult

__all__ = ["BenchmarkResult"]
