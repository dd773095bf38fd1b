"""Hand-computed values for nDCG@k, linear and exponential gains."""

from __future__ import annotations

import math

import pytest
from metric_cases import QRELS, RUN

from skbsearch.core.types import Run
from skbsearch.eval.metrics import (
    ndcg_at_k,
)


def test_ndcg_linear_and_exp() -> None:
    idcg = 2 + 1 / math.log2(3) + 1 / 2
    assert ndcg_at_k(RUN, QRELS, 3)["q1"] == pytest.approx((2 / math.log2(3)) / idcg)
    idcg_exp = 3 + 1 / math.log2(3) + 1 / 2
    assert ndcg_at_k(RUN, QRELS, 3, gains="exp")["q1"] == pytest.approx(
        (3 / math.log2(3)) / idcg_exp
    )
    # a perfect ranking scores 1; ideal comes from the qrels, not from the run
    perfect = Run({"q1": {"d1": 3.0, "d2": 2.0, "d4": 1.0}})
    assert ndcg_at_k(perfect, QRELS, 10)["q1"] == pytest.approx(1.0)
    assert ndcg_at_k(Run({"q1": {"d1": 1.0}}), QRELS, 1)["q1"] == pytest.approx(1.0)
    assert ndcg_at_k(Run({"q1": {"d1": 1.0}}), QRELS, 3)["q1"] < 1.0
