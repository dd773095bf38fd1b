"""Hand-computed values for reciprocal rank (with average precision on the same ranking)."""

from __future__ import annotations

import pytest
from metric_cases import QRELS, RUN

from skbsearch.eval.metrics import (
    average_precision,
    reciprocal_rank,
)


def test_rr_and_ap() -> None:
    assert reciprocal_rank(RUN, QRELS)["q1"] == 0.5
    assert reciprocal_rank(RUN, QRELS, 1)["q1"] == 0.0
    assert average_precision(RUN, QRELS)["q1"] == pytest.approx((1 / 2 + 2 / 4) / 3)
    assert average_precision(RUN, QRELS, 2)["q1"] == pytest.approx((1 / 2) / 3)
    assert reciprocal_rank(RUN, QRELS)["q2"] == 0.0  # missing from the run
