"""The implicit-fact section of ``skb demo`` (skbsearch.demo_implicit): raw BM25 against the
constraint-aware retriever over enriched chats, the printed examples and table, and the
facts described with what ties them to a message."""

from __future__ import annotations

import io

from rich.console import Console

from skbsearch.demo_implicit import METRICS, _describe, run_implicit_demo
from skbsearch.enrich import Fact


def test_enrichment_finds_what_raw_bm25_cannot_and_quiet_prints_nothing() -> None:
    out = io.StringIO()
    res = run_implicit_demo(seed=0, console=Console(file=out), quiet=True)
    assert set(res) == {"bm25 (raw text)", "enriched + constraints"} and out.getvalue() == ""
    assert all(set(row) == set(METRICS) for row in res.values())
    assert res["enriched + constraints"]["hit@1"] == 1.0
    assert res["enriched + constraints"]["mrr"] > res["bm25 (raw text)"]["mrr"]


def test_the_section_prints_examples_with_their_derived_facts_and_the_table() -> None:
    out = io.StringIO()
    res = run_implicit_demo(seed=1, console=Console(file=out, width=200))
    text = out.getvalue()
    assert "Implicit facts: enrichment at index time" in text and "message:" in text
    assert text.count("derived:") == 3 and "Implicit-fact retrieval (" in text
    for name, row in res.items():
        line = next(ln for ln in text.splitlines() if name in ln)
        assert f"{row['hit@1']:.3f}" in line and f"{row['mrr']:.3f}" in line


def test_a_fact_is_described_with_what_ties_it_to_the_message() -> None:
    fact = Fact("date", "2024-03-07", attrs={"speaker": "Ana", "expression": "3 days ago",
                                             "derived": "relative"})
    assert _describe(fact) == "date=2024-03-07 (speaker: Ana, expression: 3 days ago)"
    assert _describe(Fact("price", "100")) == "price=100"
