"""Descriptive text fields: mostly distinct values describe nodes one by one, shared labels
do not; measured once per SKB and node table, and carried to a generation with the same text."""

from __future__ import annotations

from skbsearch.kb.descriptive import carry_descriptive_fields, descriptive_fields
from skbsearch.kb.store import SKB


def _shop(n: int = 10) -> SKB:
    ids = [f"p{i}" for i in range(n)]
    return SKB.from_columns(ids, ["product"] * n, ids, fields={
        "description": [f"A jacket cut number {i}." for i in range(n)],  # all distinct
        "category": ["outdoor" if i % 2 else "clothing" for i in range(n)],  # 2 labels shared
        "review": [f"review {i}" if i < 3 else None for i in range(n)],  # nulls do not count
        "brand": ["Acme" if i < 4 else f"b{i}" for i in range(n)],  # 7 distinct of 10
    })


def test_descriptions_are_fields_with_mostly_distinct_values() -> None:
    skb = _shop()
    assert descriptive_fields(skb) == ["description", "review", "brand"]
    assert descriptive_fields(skb, min_distinct=0.8) == ["description", "review"]
    assert descriptive_fields(skb, min_distinct=0.2) == ["description", "category", "review", "brand"]


def test_a_field_with_no_values_or_not_in_the_table_is_no_description() -> None:
    skb = SKB.from_columns(["a", "b"], ["t", "t"], ["a", "b"], fields={"plot": [None, None]})
    assert descriptive_fields(skb) == []
    skb.schema.text_fields.append("missing")
    assert descriptive_fields(skb, min_distinct=0.1) == []


def test_the_answer_is_measured_once_and_a_copy_is_returned() -> None:
    skb = _shop()
    first = descriptive_fields(skb)
    first.append("changed by the caller")
    assert descriptive_fields(skb) == ["description", "review", "brand"]


def test_a_generation_with_the_same_text_fields_takes_the_measured_answer() -> None:
    old = _shop()
    assert descriptive_fields(old, min_distinct=0.8) == ["description", "review"]
    n = 10  # same text fields, every value shared: measured, nothing would be descriptive
    same = SKB.from_columns([f"p{i}" for i in range(n)], ["product"] * n, ["x"] * n, fields={
        f: ["same"] * n for f in ("description", "category", "review", "brand")})
    carry_descriptive_fields(old, same)
    assert descriptive_fields(same, min_distinct=0.8) == ["description", "review"]  # carried
    assert descriptive_fields(same, min_distinct=0.5) == []  # not measured on old: measured here
    other = SKB.from_columns(["a"], ["t"], ["a"], fields={"plot": ["x"]})
    carry_descriptive_fields(old, other)  # other text fields: nothing carried
    assert descriptive_fields(other, min_distinct=0.8) == ["plot"]
