"""Benchmark tests build corpus SKBs and caches under a temporary cache root, not ~/.cache."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest


@pytest.fixture(autouse=True, scope="session")
def _cache_root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SKB_CACHE_DIR", str(tmp_path_factory.mktemp("skb-cache")))
        yield


BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture
def bench_script() -> Callable[[str], ModuleType]:
    """Load a script of ``benchmarks/`` by name (they are not a package)."""
    return _load
