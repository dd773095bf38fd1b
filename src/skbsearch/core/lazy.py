"""Objects of a higher layer named by import path and loaded on first use, so that a lower
layer can reach them without importing them (``a + b`` builds the stage layer's fusion)."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from skbsearch.core.errors import MissingDependencyError


def load_object(path: str) -> Any:
    """The object named by ``"package.module:attribute"`` (imported on first use)."""
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


def optional_module(name: str, package: str, extra: str, feature: str) -> ModuleType:
    """The optional module ``name``, imported now; when it is not installed, a
    :class:`MissingDependencyError` that says ``feature`` needs ``package`` and which extra
    (``pip install 'skbsearch[extra]'``) brings it."""
    try:
        return importlib.import_module(name)
    except ImportError as e:
        raise MissingDependencyError(package, extra, feature) from e
