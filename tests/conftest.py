"""Shared fixtures: the ../shared/data folder (skip cleanly without it)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def shared_data_dir() -> Path:
    """``$SKB_SHARED_DATA`` or ``../shared/data`` beside the repository."""
    env = os.environ.get("SKB_SHARED_DATA")
    return Path(env) if env else REPO.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Path to the shared benchmark data; skips the test when it is absent."""
    d = shared_data_dir()
    if not d.is_dir():
        pytest.skip(f"shared data not found at {d}")
    return d
