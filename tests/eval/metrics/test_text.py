"""Reader answer metrics: SQuAD normalisation, exact match, contains, ROUGE-1 recall."""

from __future__ import annotations

import pytest

from skbsearch.core.errors import InputError
from skbsearch.eval import evaluate_answers
from skbsearch.eval.metrics import contains_answer, exact_match, normalize_answer, rouge1_recall


def test_normalize_like_squad() -> None:
    assert normalize_answer("The  Eiffel-Tower!") == "eiffeltower"
    assert normalize_answer("An apple, a day") == "apple day"


def test_exact_match_takes_best_gold() -> None:
    assert exact_match("the Beatles.", ["Beatles", "The Rolling Stones"]) == 1.0
    assert exact_match("Beatles band", ["Beatles"]) == 0.0
    assert exact_match("x", []) == 0.0
    assert exact_match("Paris", "paris") == 1.0  # a single string is one gold answer


def test_contains() -> None:
    assert contains_answer("It was Ol' Blue Eyes, Sinatra.", ["frank sinatra", "Sinatra"]) == 1.0
    assert contains_answer("in 100 BC", ["10"]) == 1.0
    assert contains_answer("in 100 BC", ["10"], whole_words=True) == 0.0
    assert contains_answer("anything", [""]) == 0.0


def test_rouge1_recall() -> None:
    assert rouge1_recall("new york city", ["New York"]) == 1.0
    assert rouge1_recall("york", ["New York"]) == 0.5
    assert rouge1_recall("york york", ["new york york"]) == pytest.approx(2 / 3)
    assert rouge1_recall("", ["a"]) == 0.0  # only an article: no gold unigrams


def test_evaluate_answers() -> None:
    answers = {"q1": ["Paris"], "q2": ["4", "four"], "q3": ["Rome"]}
    preds = {"q1": "paris", "q2": "It is four.", "extra": "x"}
    res = evaluate_answers(preds, answers)
    assert res["em"] == pytest.approx(1 / 3)
    assert res["contains"] == pytest.approx(2 / 3)
    per_q = evaluate_answers(preds, answers, ["em"], per_query=True)
    assert per_q == {"q1": {"em": 1.0}, "q2": {"em": 0.0}, "q3": {"em": 0.0}}
    with pytest.raises(InputError, match="bleu"):
        evaluate_answers(preds, answers, ["bleu"])
