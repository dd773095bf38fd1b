"""The ranking helpers every metric family shares: cut-off checks, judging, tie order."""

from __future__ import annotations

import numpy as np
import pytest
from metric_cases import QRELS, RUN

from skbsearch.core.types import Qrels, Run
from skbsearch.eval.metrics import (
    RankedJudgements,
    average_precision,
    hit_at_k,
    mhits_at_k,
    ndcg_at_k,
    precision_at_k,
    ranked_doc_ids,
    recall_at_k,
    reciprocal_rank,
    tmhits_at_k,
)
from skbsearch.eval.metrics.ranking import judge


def test_bad_cutoffs_rejected() -> None:
    with pytest.raises(ValueError):
        hit_at_k(RUN, QRELS, 0)
    with pytest.raises(ValueError):
        precision_at_k(RUN, QRELS, None)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        ndcg_at_k(RUN, QRELS, 5, gains="log")


@pytest.mark.parametrize("metric", [hit_at_k, precision_at_k, recall_at_k, reciprocal_rank,
                                    average_precision, ndcg_at_k, mhits_at_k, tmhits_at_k])
def test_every_cutoff_metric_checks_k_before_judging(metric) -> None:
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="cut-off"):
            metric(RUN, QRELS, bad)


def test_judge_checks_the_cutoff_then_builds() -> None:
    rj = judge(RUN, QRELS, 2)
    assert rj.query_ids == ["q1", "q2"] and rj.lengths.tolist() == [4, 0]
    assert judge(RUN, QRELS).depth == 4  # no cut-off: optional unless required
    with pytest.raises(ValueError, match="needs a cut-off"):
        judge(RUN, QRELS, required=True)


def test_tie_order_is_score_then_doc_id_descending() -> None:
    order = [d for d, _ in ranked_doc_ids({"d1": 1.0, "d10": 1.0, "d9": 1.0, "a": 2.0})]
    assert order == ["a", "d9", "d10", "d1"]
    # the tie order decides rank-based metrics: d9 is ranked before d1
    run = Run({"q": {"d1": 1.0, "d9": 1.0}})
    assert reciprocal_rank(run, Qrels({"q": {"d1": 1}}))["q"] == 0.5
    assert reciprocal_rank(run, Qrels({"q": {"d9": 1}}))["q"] == 1.0


def test_ranked_judgements_arrays() -> None:
    rj = RankedJudgements.build(RUN, QRELS)
    assert rj.query_ids == ["q1", "q2"]
    assert rj.depth == 4 and list(rj.lengths) == [4, 0]
    assert np.array_equal(rj.relevant(1)[0], [False, True, False, True])
    assert list(rj.n_relevant(1)) == [3.0, 1.0]
    assert list(rj.n_relevant(0)) == [4.0, 1.0]  # grade-0 judgements count at min_grade 0
    above, size = RankedJudgements.build(
        Run({"q": {"a": 2, "b": 2, "c": 1}}), {"q": {"a": 1}}
    ).ties()
    assert above[0].tolist() == [0, 0, 2] and size[0].tolist() == [2, 2, 1]


def test_empty_inputs() -> None:
    assert hit_at_k(Run({}), Qrels({}), 1) == {}
    assert ndcg_at_k(Run({}), Qrels({"q": {"d": 1}}), 10) == {"q": 0.0}
