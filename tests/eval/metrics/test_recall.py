"""Recall@k: the array kernel and the typed function, by hand."""

from __future__ import annotations

import numpy as np
import pytest
from metric_cases import QRELS, RUN

from skbsearch.core.types import Qrels, Run
from skbsearch.eval.metrics.recall import recall_at_k, recall_kernel


def test_recall_kernel_counts_relevant_found_over_all_relevant() -> None:
    rel = np.array([[False, True, True], [True, False, False]])
    n_rel = np.array([4.0, 0.0])  # the second query has no relevant document: 0, not nan
    assert recall_kernel(rel, n_rel, None).tolist() == pytest.approx([2 / 4, 0.0])
    assert recall_kernel(rel, n_rel, 2).tolist() == pytest.approx([1 / 4, 0.0])


def test_relevant_documents_missing_from_the_run_still_count() -> None:
    # q1 has 3 relevant (grade >= 1): d1, d2 retrieved, d4 never
    assert recall_at_k(RUN, QRELS, 100)["q1"] == pytest.approx(2 / 3)
    assert recall_at_k(RUN, QRELS, 100, min_grade=0)["q1"] == pytest.approx(3 / 4)
    only_irrelevant = Qrels({"q": {"a": 0}})
    assert recall_at_k(Run({"q": {"a": 1.0}}), only_irrelevant) == {"q": 0.0}
