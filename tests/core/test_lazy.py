"""Objects named by import path, loaded on first use, and optional modules (``core/lazy.py``)."""

from __future__ import annotations

import json
import os.path

import pytest

from skbsearch.core.errors import MissingDependencyError
from skbsearch.core.lazy import load_object, optional_module


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


def test_an_installed_optional_module_is_returned() -> None:
    assert optional_module("json", "json", "none", "Reading JSON") is json


def test_a_missing_optional_module_names_the_package_and_the_extra() -> None:
    with pytest.raises(MissingDependencyError) as e:
        optional_module("skbsearch_no_such_module", "no-such-pkg", "dense", "The test feature")
    msg = str(e.value)
    assert "The test feature needs the optional package 'no-such-pkg'" in msg
    assert "pip install 'skbsearch[dense]'" in msg
    assert isinstance(e.value, ImportError)  # callers that catch ImportError still do
