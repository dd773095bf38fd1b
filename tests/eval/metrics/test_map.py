"""Average precision (``map``): the array kernel and the typed function, by hand."""

from __future__ import annotations

import numpy as np
import pytest
from metric_cases import QRELS, RUN

from skbsearch.core.types import Qrels, Run
from skbsearch.eval.metrics.map import ap_kernel, average_precision


def test_ap_kernel_sums_precision_at_each_relevant_rank_over_all_relevant() -> None:
    rel = np.array([[True, False, True, False], [False, False, False, False]])
    n_rel = np.array([3.0, 0.0])
    assert ap_kernel(rel, n_rel, None).tolist() == pytest.approx([(1 / 1 + 2 / 3) / 3, 0.0])
    assert ap_kernel(rel, n_rel, 2).tolist() == pytest.approx([1 / 3, 0.0])  # cut-off first
    assert ap_kernel(rel[:, :0], n_rel, None).tolist() == [0.0, 0.0]  # an empty ranking


def test_min_grade_decides_which_documents_are_relevant() -> None:
    # grade >= 2 leaves d1 alone, retrieved second
    assert average_precision(RUN, QRELS, min_grade=2)["q1"] == pytest.approx(1 / 2)
    assert average_precision(RUN, QRELS, min_grade=3)["q1"] == 0.0  # nothing relevant: 0, not nan


def test_a_query_judged_only_irrelevant_scores_zero() -> None:
    run = Run({"q": {"a": 2.0, "b": 1.0}})
    assert average_precision(run, Qrels({"q": {"a": 0, "b": 0}})) == {"q": 0.0}
