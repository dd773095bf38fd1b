"""Constrained retrieval: question words, speakers, feedback weights and their saved settings
(issue 16)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from priced_texts import TEXTS

from skbsearch.core.errors import InputError
from skbsearch.core.types import Query
from skbsearch.enrich import ArithmeticEnricher, enrich_documents
from skbsearch.retrieve.constrained import ConstrainedRetriever


def _docs() -> list:
    return enrich_documents(list(TEXTS.items()), [ArithmeticEnricher()], progress=False)


def test_feedback_decides_between_documents_that_meet_the_constraint() -> None:
    q = [Query("q", "Which smartphone cost $650?")]
    plain = ConstrainedRetriever(_docs(), feedback_weight=0.0)
    fed = ConstrainedRetriever(_docs(), feedback_docs=3, feedback_terms=5, feedback_weight=0.5)
    assert plain(q).ranked("q")[0][0] == "bike"  # the shorter document wins on BM25 alone
    assert fed(q).ranked("q")[0][0] == "phone"
    assert fed.text_score("Which smartphone cost $650?").max() == pytest.approx(1.0)
    for bad in (-0.1, 1.5):
        with pytest.raises(InputError, match="feedback_weight"):
            ConstrainedRetriever(_docs(), feedback_weight=bad)


def test_question_words_do_not_count_in_the_text_score() -> None:
    docs = enrich_documents([("a", "what a deal, what a price, what fun"), ("b", "a deal on a price")],
                            [ArithmeticEnricher()], progress=False)
    full = ConstrainedRetriever(docs, feedback_weight=0.0)
    text = ConstrainedRetriever(docs, mode="text")
    s, raw = full.text_score("What deal?"), text.text_score("What deal?")
    assert raw[0] > raw[1]  # BM25 of the whole question: "what" counts
    assert s[1] == pytest.approx(1.0) and s[0] < 1.0  # without it, the shorter document wins


def test_speakers_of_the_facts_bind_the_query() -> None:
    docs = enrich_documents([
        ("jin", "2024-01-02 10:00, Jin: I bought a lamp for $460.\n2024-01-02 10:05, Hugo: Nice."),
        ("hugo", "2024-01-03 10:00, Hugo: I bought a lamp for $460.\n2024-01-03 10:05, Jin: Nice, Jin here."),
    ], [ArithmeticEnricher()], progress=False)
    r = ConstrainedRetriever(docs, feedback_weight=0.0)
    assert r.facts.speakers == ["Hugo", "Jin"]
    assert [(c.kind, c.value) for c in r.constraints("What did Jin buy for $460?")][-1] == ("speaker", "Jin")
    assert r([Query("q", "What did Jin buy for $460?")]).ranked("q")[0][0] == "jin"
    assert r([Query("q", "What did Hugo buy for $460?")]).ranked("q")[0][0] == "hugo"


def test_feedback_settings_are_saved_and_old_indexes_load_without_feedback(tmp_path: Path) -> None:
    r = ConstrainedRetriever(_docs(), feedback_docs=3, feedback_terms=5, feedback_weight=0.4)
    r.save(tmp_path / "cr")
    back = ConstrainedRetriever.load(tmp_path / "cr")
    assert (back.feedback_docs, back.feedback_terms, back.feedback_weight) == (3, 5, 0.4)
    cfg_file = tmp_path / "cr" / "constrained.json"
    cfg = json.loads(cfg_file.read_text())
    for k in ("feedback_docs", "feedback_terms", "feedback_weight"):
        cfg.pop(k)
    cfg_file.write_text(json.dumps(cfg))
    old = ConstrainedRetriever.load(tmp_path / "cr")
    assert old.feedback_weight == 0.0 and old.feedback is None
