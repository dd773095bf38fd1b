"""Precision@k: the array kernel and the typed function, by hand."""

from __future__ import annotations

import numpy as np
import pytest
from metric_cases import QRELS, RUN

from skbsearch.eval.metrics.precision import precision_at_k, precision_kernel


def test_precision_kernel_divides_by_k_even_past_the_ranking() -> None:
    rel = np.array([[True, True, False], [False, False, False]])
    assert precision_kernel(rel, 2).tolist() == [1.0, 0.0]
    assert precision_kernel(rel, 5).tolist() == pytest.approx([2 / 5, 0.0])


def test_min_grade_and_unretrieved_queries() -> None:
    # top 2 of q1: d3 (grade 0), d1 (grade 2)
    assert precision_at_k(RUN, QRELS, 2, min_grade=2)["q1"] == 0.5
    assert precision_at_k(RUN, QRELS, 1)["q1"] == 0.0
    assert precision_at_k(RUN, QRELS, 3)["q2"] == 0.0  # judged, not in the run
    assert "extra" not in precision_at_k(RUN, QRELS, 3)  # in the run, not judged
