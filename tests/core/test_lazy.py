"""Objects named by import path, loaded on first use."""

from __future__ import annotations

import os.path

import pytest

from skbsearch.core.lazy import load_object


def test_loads_the_named_attribute_of_the_module() -> None:
    assert load_object("os.path:join") is os.path.join
    fuse = load_object("skbsearch.core.fusion:fuse_runs")
    from skbsearch.core.fusion import fuse_runs as direct

    assert fuse is direct


def test_a_wrong_path_fails_with_the_import_errors() -> None:
    with pytest.raises(ModuleNotFoundError, match="skbsearch.nope"):
        load_object("skbsearch.nope:thing")
    with pytest.raises(AttributeError, match="no_such_function"):
        load_object("os.path:no_such_function")
