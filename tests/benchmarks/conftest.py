"""Benchmark tests build corpus SKBs and caches under a temporary cache root, not ~/.cache."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True, scope="session")
def _cache_root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SKB_CACHE_DIR", str(tmp_path_factory.mktemp("skb-cache")))
        yield
