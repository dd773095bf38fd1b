"""Relative price statements read off a sentence (price_phrases): the subject's price as the
object's times a factor plus an amount, and the subject the statement is about."""

from __future__ import annotations

import pytest

from skbsearch.enrich.price_phrases import (
    Relation,
    relative_statements,
    same_word,
    sentence_subject,
)


@pytest.mark.parametrize(("sentence", "mul", "add", "phrase"), [
    ("The lamp costs twice as much as the chair.", 2.0, 0.0, "twice as much"),
    ("The bike is 20% cheaper than the car.", 0.8, 0.0, "20% cheaper"),
    ("The tent was $30 more than the stove.", 1.0, 30.0, "$30 more"),
    ("The hat is half the price of the coat.", 0.5, 0.0, "half the price"),
])
def test_a_relative_statement_gives_factor_and_amount(sentence: str, mul: float, add: float,
                                                       phrase: str) -> None:
    (rel,) = relative_statements(sentence)
    assert (rel.mul, rel.add, rel.pronoun_object) == (mul, add, False)
    assert phrase in sentence[rel.start:rel.end]


def test_plain_text_states_no_relation() -> None:
    assert relative_statements("Nothing here costs anything.") == []


def test_forward_and_inverse_undo_each_other() -> None:
    rel = Relation(0, 1, mul=0.8, add=30.0)
    assert rel.forward(100.0) == pytest.approx(110.0)
    assert rel.inverse(rel.forward(123.0)) == pytest.approx(123.0)


def test_the_subject_and_plural_forms() -> None:
    assert sentence_subject("My old lamp costs twice as much as the chair.") == "My old lamp"
    assert same_word("bicycle", "bicycles") and not same_word("bike", "bicycle")
