"""Objects named by import path, and optional modules (``core/lazy.py``)."""

from __future__ import annotations

import json

import pytest

from skbsearch.core.errors import MissingDependencyError
from skbsearch.core.lazy import load_object, optional_module


def test_load_object_imports_the_named_attribute() -> None:
    assert load_object("json:dumps") is json.dumps


def test_an_installed_optional_module_is_returned() -> None:
    assert optional_module("json", "json", "none", "Reading JSON") is json


def test_a_missing_optional_module_names_the_package_and_the_extra() -> None:
    with pytest.raises(MissingDependencyError) as e:
        optional_module("skbsearch_no_such_module", "no-such-pkg", "dense", "The test feature")
    msg = str(e.value)
    assert "The test feature needs the optional package 'no-such-pkg'" in msg
    assert "pip install 'skbsearch[dense]'" in msg
    assert isinstance(e.value, ImportError)  # callers that catch ImportError still do
