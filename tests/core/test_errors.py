"""The exception hierarchy: where an input error happened leads its message, and each error
is also the built-in kind callers already catch."""

from __future__ import annotations

from pathlib import Path

import pytest

from skbsearch.core.errors import (
    ArtefactError,
    DeadlineExceeded,
    InputError,
    MissingDependencyError,
    SkbError,
    UntrustedFileError,
)


@pytest.mark.parametrize(("kwargs", "text"), [
    ({}, "bad id"),
    ({"file": Path("d/nodes.jsonl")}, "d/nodes.jsonl: bad id"),
    ({"file": "nodes.jsonl", "line": 7}, "nodes.jsonl:7: bad id"),
    ({"file": "nodes.jsonl", "line": 7, "field": "id"}, "nodes.jsonl:7, field 'id': bad id"),
    ({"line": 3}, "record 3: bad id"),
    ({"field": "type"}, "field 'type': bad id"),
])
def test_an_input_error_names_file_line_and_field_first(kwargs: dict, text: str) -> None:
    err = InputError("bad id", **kwargs)
    assert str(err) == text
    assert err.reason == "bad id" and err.line == kwargs.get("line")
    assert err.file == (str(kwargs["file"]) if "file" in kwargs else None)


def test_every_error_is_an_skb_error_and_the_builtin_kind_callers_catch() -> None:
    assert isinstance(InputError("x"), ValueError)
    assert isinstance(MissingDependencyError("faiss", "dense", "x"), ImportError)
    for err in (InputError("x"), ArtefactError("x"), UntrustedFileError("x"),
                MissingDependencyError("faiss", "dense", "x"), DeadlineExceeded()):
        assert isinstance(err, SkbError)


def test_a_missing_dependency_says_which_extra_to_install() -> None:
    msg = str(MissingDependencyError("faiss", "dense", "The FAISS index"))
    assert msg == ("The FAISS index needs the optional package 'faiss'. "
                   "Install it with: pip install 'skbsearch[dense]'")


def test_a_deadline_names_its_limit_only_when_it_ran_out() -> None:
    assert str(DeadlineExceeded(2.5)) == "the work ran past its time limit of 2.5 s and was stopped"
    assert DeadlineExceeded(2.5).seconds == 2.5
    assert str(DeadlineExceeded(2.5, reason="was cancelled")) == "the work was cancelled and was stopped"
    assert str(DeadlineExceeded()) == "the work ran past its time limit and was stopped"
