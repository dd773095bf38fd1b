"""Pseudo-relevance feedback: the expansion terms of the top documents (issue 16)."""

from __future__ import annotations

import numpy as np
import pytest
from priced_texts import TEXTS

from skbsearch.index.sparse import BM25Index
from skbsearch.retrieve.feedback import TermFeedback


def test_term_feedback_expands_with_the_topics_words() -> None:
    index = BM25Index.from_texts(list(TEXTS.items()))
    fb = TermFeedback(index, docs=3, terms=5)
    rows = np.arange(len(TEXTS))
    q = index.tokenize(["smartphone"])[0]
    seed = index.score_docs(q, rows)
    vocab = {v: k for k, v in index.tokenizer.get_vocab_dict().items()}
    words = {vocab[t] for t, _ in fb.expansion(seed, exclude=q)}
    assert "smartphon" not in words and {"batteri", "camera"} <= words
    assert not any(w.isdigit() for w in words)
    s = dict(zip(index.doc_ids, fb.scores(seed, exclude=q), strict=True))
    assert s["phone"] > 0 == s["bike"] == s["b1"]
    assert fb.expansion(np.zeros(len(TEXTS))) == []
    with pytest.raises(ValueError):
        TermFeedback(index, docs=0)
