"""IMPLIRET's miss analysis (``skbsearch.benchmarks.impliret.misses``, which
``benchmarks/impliret_misses.py`` runs): what a question states, read apart from the parser,
and the cause a miss gets."""

from __future__ import annotations

from skbsearch.benchmarks.impliret.misses import CAUSES, expected, misread, price_cause, query_names
from skbsearch.enrich import Constraint, Fact


def test_expected_reads_price_date_time_and_place_by_plain_regexes() -> None:
    q = "Who paid $1,250.50 on March 3, 2024 at 9:05 in New Delhi?"
    assert expected(q) == [("price", 1250.5), ("date", "2024-03-03"), ("time", "09:05"),
                           ("place", "New Delhi")]
    assert expected("What did they buy?") == []


def test_misread_names_the_missing_or_the_extra_constraint() -> None:
    q = "Which item cost $20?"
    assert misread(q, [Constraint("price", value=20.0)]) is None
    assert "price 20.0 not parsed" in misread(q, [Constraint("price", value=25.0)])
    extra = misread(q, [Constraint("price", value=20.0), Constraint("date", value="2024-01-01")])
    assert extra is not None and extra.startswith("extra constraint")
    # a speaker the question names is not an extra constraint
    assert query_names("When did Dante visit Rome in May?") == {"Dante", "Rome"}


def test_a_price_stated_only_as_an_undecided_reading_is_a_binding_miss() -> None:
    sure = Fact("price", 20.0, confidence=1.0, attrs={"speaker": "Ana"})
    unsure = Fact("price", 20.0, confidence=0.5, attrs={"entity": "the lamp"})
    assert price_cause(20.0, [sure])[0] == CAUSES[3]
    cause, detail = price_cause(20.0, [unsure])
    assert cause == CAUSES[3] and "undecided" in detail
