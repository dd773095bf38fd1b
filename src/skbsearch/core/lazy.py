"""Objects of a higher layer named by import path and loaded on first use, so that a lower
layer can reach them without importing them (``a + b`` builds the stage layer's fusion)."""

from __future__ import annotations

import importlib
from typing import Any


def load_object(path: str) -> Any:
    """The object named by ``"package.module:attribute"`` (imported on first use)."""
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)
