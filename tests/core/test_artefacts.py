"""Artefact kinds by marker file, and the guard on replacing a directory: never a user's
directory, an input, or an artefact holding a user's files."""

from __future__ import annotations

import json

import pytest

from skbsearch.core.artefacts import artefact_kind, check_replaceable, foreign_entries
from skbsearch.core.errors import InputError


# ---------------------------------------------------------------------- replace guard
def _marker(d, name, data):
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_text(json.dumps(data))
    return d


def test_artefact_kind_by_marker_field_and_legacy_fields(tmp_path):
    assert artefact_kind(_marker(tmp_path / "a", "meta.json", {"artefact": "skb"})) == "skb"
    legacy = _marker(tmp_path / "b", "meta.json", {"format_version": 1, "schema": {}})
    assert artefact_kind(legacy) == "skb"
    idx = _marker(tmp_path / "c", "manifest.json", {"kind": "bm25", "version": 1, "num_docs": 3})
    assert artefact_kind(idx) == "index"
    assert artefact_kind(_marker(tmp_path / "d", "meta.json", {"title": "my notes"})) is None
    assert artefact_kind(tmp_path / "missing") is None


def test_check_replaceable_refuses_foreign_dirs_and_inputs(tmp_path):
    docs = tmp_path / "mydocs"
    docs.mkdir()
    (docs / "thesis.txt").write_text("years of work")
    with pytest.raises(InputError, match="not a skbsearch artefact"):
        check_replaceable(docs, "skb")
    skb = _marker(tmp_path / "skb", "meta.json", {"artefact": "skb"})
    with pytest.raises(InputError, match="holds an SKB"):
        check_replaceable(skb, "index")
    with pytest.raises(InputError, match="is the input"):
        check_replaceable(skb, "skb", inputs=[skb])
    with pytest.raises(InputError, match="contains the input"):
        check_replaceable(tmp_path, "skb", inputs=[docs / "thesis.txt"])
    with pytest.raises(InputError, match="not a directory"):
        check_replaceable(docs / "thesis.txt", "skb")
    check_replaceable(skb, "skb", inputs=[docs])  # an SKB replaces an SKB
    check_replaceable(tmp_path / "new", "skb")  # nothing there yet
    (tmp_path / "empty").mkdir()
    check_replaceable(tmp_path / "empty", "skb")
    assert (docs / "thesis.txt").read_text() == "years of work"


def test_check_replaceable_refuses_an_skb_with_foreign_files(tmp_path):
    skb = _marker(tmp_path / "skb", "meta.json", {"artefact": "skb"})
    (skb / "indexes").mkdir()
    check_replaceable(skb, "skb")
    (skb / "my-notes.md").write_text("x")
    with pytest.raises(InputError, match="my-notes.md"):
        check_replaceable(skb, "skb")
    assert foreign_entries(skb, "skb") == ["my-notes.md"]
