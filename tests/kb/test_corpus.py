"""Passage corpora as SKBs: one node type, the text verbatim, cached by content."""

from __future__ import annotations

from pathlib import Path

import pytest

from skbsearch.core.errors import InputError
from skbsearch.kb.corpus import TEXT_FIELD, TextRenderer, corpus_key, corpus_skb


def test_corpus_skb_is_built_once_and_keyed_by_content(tmp_path: Path) -> None:
    kb = corpus_skb(["p2", "p1"], ["second passage", "first passage"], name="tiny",
                    cache_dir=tmp_path)
    assert kb.ids == ["p2", "p1"] and kb.num_edges == 0  # node order = the given order
    assert kb.type_names == ["passage"] and kb.column(TEXT_FIELD) == ["second passage",
                                                                      "first passage"]
    again = corpus_skb(["p2", "p1"], ["second passage", "first passage"], name="tiny",
                       cache_dir=tmp_path)
    assert again.path == kb.path and len(list(tmp_path.iterdir())) == 1
    changed = corpus_skb(["p2", "p1"], ["second passage", "edited"], name="tiny",
                         cache_dir=tmp_path)
    assert changed.path != kb.path and len(list(tmp_path.iterdir())) == 2
    assert corpus_key(["a"], ["b"], "passage") != corpus_key(["a"], ["b"], "document")


def test_text_renderer_gives_the_passage_verbatim(tmp_path: Path) -> None:
    kb = corpus_skb(["a", "b"], ["alpha text", "beta text"], cache_dir=tmp_path)
    r = TextRenderer()
    assert r.render_many(kb) == ["alpha text", "beta text"] and r.render(kb, 1) == "beta text"
    assert r.fields == ["text"]


def test_corpus_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="unique"):
        corpus_skb(["a", "a"], ["x", "y"], cache_dir=tmp_path)
    with pytest.raises(InputError, match="texts"):
        corpus_skb(["a"], ["x", "y"], cache_dir=tmp_path)
