"""The per-snapshot pipeline cache: memory estimates, bounded by bytes, measured again
after the first run."""

from __future__ import annotations

import numpy as np

from skbsearch.server.cache import PipelineCache, estimate_bytes


class Holder:
    def __init__(self, n: int, shared: np.ndarray) -> None:
        self.own = np.zeros(n, dtype=np.float64)
        self.shared = shared
        self.names = {f"id{i}": i for i in range(1000)}


def test_estimate_counts_arrays_and_containers_but_not_shared_objects():
    shared = np.zeros(1_000_000, dtype=np.float64)
    h = Holder(10_000, shared)
    with_shared = estimate_bytes(h)
    without = estimate_bytes(h, exclude=[shared])
    assert with_shared - without == shared.nbytes
    assert 80_000 + 50_000 < without < 80_000 + 500_000  # own array + a 1,000-entry dict


def test_pipeline_cache_is_bounded_by_memory_not_count():
    cache = PipelineCache(max_bytes=2_500_000)
    for i in range(5):
        cache.get((i,), lambda: np.zeros(1_000_000 // 8, dtype=np.float64))  # 1 MB each
    assert len(cache) == 2 and cache.nbytes <= 2_500_000
    assert (4,) in cache and (0,) not in cache
    for i in range(10, 200):
        cache.get((i,), lambda: "small")
    assert len(cache) > 64  # many small entries fit (the old cache kept 64 whatever their size)


def test_pipeline_cache_measures_again_after_the_first_run():
    cache = PipelineCache(max_bytes=2_000_000)

    class Lazy:
        part = None

    for key in ("a", "b"):
        cache.get((key,), Lazy)
    assert len(cache) == 2
    for key in ("a", "b"):
        cache.get((key,), Lazy).part = np.zeros(1_500_000 // 8)  # built on first use
        cache.measure((key,))
    assert len(cache) == 1 and ("b",) in cache
