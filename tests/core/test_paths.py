"""The cache root: ``$SKB_CACHE_DIR`` when set, else ``~/.cache/skbsearch``."""

from __future__ import annotations

from pathlib import Path

import pytest

from skbsearch.core.paths import cache_root


def test_the_environment_variable_decides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKB_CACHE_DIR", str(tmp_path / "c"))
    assert cache_root() == tmp_path / "c"


def test_without_it_the_cache_is_under_the_home_directory(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SKB_CACHE_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert cache_root() == tmp_path / ".cache" / "skbsearch"
    monkeypatch.setenv("SKB_CACHE_DIR", "")  # empty is unset, not the current directory
    assert cache_root() == tmp_path / ".cache" / "skbsearch"
