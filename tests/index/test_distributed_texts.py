"""The per-field texts that a Ray BM25 build's workers index (``DocumentTexts``), run here
in-process on node rows (no Ray needed)."""

from __future__ import annotations

import numpy as np

from skbsearch.enrich import TemporalEnricher
from skbsearch.enrich.base import enrich_one
from skbsearch.index.distributed import DocumentTexts
from skbsearch.kb.store import SKB


def _skb() -> SKB:
    return SKB.from_columns(["a", "b"], ["note", "note"], ["A", "B"],
                            fields={"text": ["2024-03-01 10:00 Alice: see you tomorrow", "Nothing dated."]})


def test_enriched_texts_are_the_enrichers_index_text() -> None:
    """With ``enrich``, each field's text is followed by the enrichers' derived tokens (the
    ``index_text`` of :func:`enrich_one`; it was called as a method and raised TypeError)."""
    skb = _skb()
    rows = np.arange(2)
    plain = DocumentTexts(skb, ["text"], add_rel=False, max_per_relation=10)(rows)
    enriched = DocumentTexts(skb, ["text"], add_rel=False, max_per_relation=10, enrich=["temporal"])(rows)
    assert list(enriched) == ["text"]
    want = [enrich_one(i, t, [TemporalEnricher()]).index_text for i, t in zip(["a", "b"], plain["text"], strict=True)]
    assert enriched["text"] == want
    assert "2024-03-02" in enriched["text"][0] and enriched["text"][1] == plain["text"][1]
