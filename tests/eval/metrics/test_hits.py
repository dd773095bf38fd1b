"""Hand-computed values for hit@k (with recall@k and precision@k on the same ranking)."""

from __future__ import annotations

import pytest
from metric_cases import QRELS, RUN

from skbsearch.eval.metrics import (
    hit_at_k,
    precision_at_k,
    recall_at_k,
)


def test_hit_recall_precision() -> None:
    assert hit_at_k(RUN, QRELS, 1) == {"q1": 0.0, "q2": 0.0}
    assert hit_at_k(RUN, QRELS, 2)["q1"] == 1.0
    assert recall_at_k(RUN, QRELS, 2)["q1"] == pytest.approx(1 / 3)
    assert recall_at_k(RUN, QRELS)["q1"] == pytest.approx(2 / 3)
    assert precision_at_k(RUN, QRELS, 2)["q1"] == 0.5
    assert precision_at_k(RUN, QRELS, 10)["q1"] == pytest.approx(0.2)  # divides by k
    assert recall_at_k(RUN, QRELS, 2, min_grade=2)["q1"] == 1.0
