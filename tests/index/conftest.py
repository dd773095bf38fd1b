"""Fixtures of the index tests: one local Ray instance for the Ray builds' tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="session")
def local_ray() -> Iterator[Any]:
    """A local ``ray.init(num_cpus=2)``, started once for the session (starting Ray takes
    seconds: the Ray builds' tests in test_distributed*.py share it); skips without Ray."""
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()
