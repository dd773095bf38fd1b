"""Answer metrics for readers: exact match, contains, ROUGE-1 recall.

All compare a predicted answer with a list of gold answers and take the best gold answer.
Text is normalised as in the official SQuAD v1.1 evaluation script (Rajpurkar et al.,
2016): lowercase, drop punctuation, drop the articles a/an/the, collapse whitespace.

* ``em``: normalised prediction == a normalised gold answer (SQuAD ``exact_match``).
* ``contains``: a normalised gold answer is a substring of the normalised prediction (the
  "best subspan EM" of Liu et al., "Lost in the Middle", 2023); ``whole_words=True``
  matches on token boundaries only, so "10" is not found in "100".
* ``rouge1_recall``: clipped unigram overlap / gold unigrams (Lin, 2004), on normalised
  tokens.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np

from skbsearch.core.errors import InputError

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = str.maketrans("", "", string.punctuation)


def normalize_answer(text: str) -> str:
    """SQuAD v1.1 normalisation: lowercase, no punctuation, no articles, single spaces."""
    text = text.lower().translate(_PUNCT)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def _best(prediction: str, answers: Iterable[str], score: Callable[[str, str], float]) -> float:
    if isinstance(answers, str):
        answers = [answers]
    pred = normalize_answer(prediction)
    return max((score(pred, normalize_answer(a)) for a in answers), default=0.0)


def exact_match(prediction: str, answers: Iterable[str]) -> float:
    """1.0 if the normalised prediction equals any normalised gold answer, else 0.0."""
    return _best(prediction, answers, lambda p, a: float(p == a))


def contains_answer(prediction: str, answers: Iterable[str], whole_words: bool = False) -> float:
    """1.0 if any non-empty normalised gold answer occurs in the normalised prediction."""

    def score(p: str, a: str) -> float:
        if whole_words:
            return float(bool(a) and f" {a} " in f" {p} ")
        return float(bool(a) and a in p)

    return _best(prediction, answers, score)


def rouge1_recall(prediction: str, answers: Iterable[str]) -> float:
    """Best over gold answers of |pred ∩ gold unigrams| (clipped counts) / |gold unigrams|."""

    def score(p: str, a: str) -> float:
        gold = Counter(a.split())
        if not gold:
            return 0.0
        overlap = sum((Counter(p.split()) & gold).values())
        return overlap / sum(gold.values())

    return _best(prediction, answers, score)


TEXT_METRICS: dict[str, Callable[[str, Iterable[str]], float]] = {
    "em": exact_match,
    "contains": contains_answer,
    "rouge1_recall": rouge1_recall,
}


def _text_kernel(
    predictions: Sequence[str],
    answers: Sequence[Iterable[str]],
    fn: Callable[[str, Iterable[str]], float],
) -> np.ndarray:
    """``(N,)`` scores of aligned predictions and gold-answer lists."""
    return np.array([fn(p, a) for p, a in zip(predictions, answers, strict=True)], dtype=np.float64)


def evaluate_answers(
    predictions: Mapping[str, str],
    answers: Mapping[str, Iterable[str]],
    metrics: Sequence[str] = ("em", "contains", "rouge1_recall"),
    per_query: bool = False,
) -> dict:
    """Score reader answers: ``{metric: mean}`` or ``{qid: {metric: value}}``.

    Every query of ``answers`` counts; a missing prediction is the empty string (scores 0).
    Predictions for queries without gold answers are ignored.
    """
    unknown = [m for m in metrics if m not in TEXT_METRICS]
    if unknown:
        raise InputError(
            f"unknown text metric(s) {unknown}; known: {sorted(TEXT_METRICS)}", field="metrics"
        )
    qids = list(answers)
    preds = [predictions.get(q, "") for q in qids]
    golds = [list(answers[q]) if not isinstance(answers[q], str) else [answers[q]] for q in qids]
    values = {m: _text_kernel(preds, golds, TEXT_METRICS[m]) for m in metrics}
    if per_query:
        return {q: {m: float(v[i]) for m, v in values.items()} for i, q in enumerate(qids)}
    return {m: float(v.mean()) if v.size else 0.0 for m, v in values.items()}
