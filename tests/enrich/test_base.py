"""The Enricher protocol and the enrich_documents runner."""

import pytest

from skbsearch.core.errors import InputError
from skbsearch.enrich import (
    ArithmeticEnricher,
    Enricher,
    Fact,
    TemporalEnricher,
    enrich_documents,
)


def test_runner_combines_enrichers_and_inputs() -> None:
    docs = [
        ("a", "2024-03-01 10:00, Al: I bought it two days ago for $30; the other is twice as expensive as it."),
        {"id": "b", "text": "Nothing here.", "meta": {"date": "2024-01-01"}},
    ]
    enrichers = [TemporalEnricher(), ArithmeticEnricher()]
    assert all(isinstance(e, Enricher) for e in enrichers)
    out = enrich_documents(docs, enrichers, progress=False)
    a, b = out
    assert {f.kind for f in a.facts} == {"date", "price"}
    assert "2024-02-28" in a.index_text and "60" in a.tokens
    assert b.facts == [] and b.index_text == "Nothing here."
    assert Fact.from_dict(a.facts[0].to_dict()) == a.facts[0]


def test_runner_with_progress_and_mapping() -> None:
    out = enrich_documents({"x": "plain"}, [TemporalEnricher()], progress=True)
    assert out[0].id == "x"


def test_runner_rejects_bad_records() -> None:
    with pytest.raises(InputError):
        enrich_documents([{"id": 1}], [TemporalEnricher()], progress=False)
