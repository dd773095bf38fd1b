"""Where skbsearch keeps caches: ``$SKB_CACHE_DIR`` or ``~/.cache/skbsearch``."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """The root of every on-disk cache (embeddings, built benchmark KBs, models, LLM answers)."""
    base = os.environ.get("SKB_CACHE_DIR")
    return Path(base) if base else Path.home() / ".cache" / "skbsearch"
