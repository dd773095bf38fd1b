"""G-RAG's metrics (Eq. 14, 15, 21) on hand-worked tied rankings."""

from __future__ import annotations

import pytest

from skbsearch.core.types import Qrels, Run
from skbsearch.eval import evaluate
from skbsearch.eval.metrics import mhits_at_k, mrr_all, mtrr, recall_at_k, tmhits_at_k

# a, b, c share the top score; positives a (tied with 2 others) and d (3 docs above it)
RUN = Run({"q": {"a": 5.0, "b": 5.0, "c": 5.0, "d": 3.0, "e": 2.0}})
QRELS = Qrels({"q": {"a": 1, "d": 2, "b": 0}})


def test_mtrr_averages_optimistic_and_pessimistic_rank() -> None:
    # a: r=1, t=3 -> 2/(1+1+3-1) = 0.5 ; d: r=4, t=1 -> 1/4
    assert mtrr(RUN, QRELS)["q"] == pytest.approx((0.5 + 0.25) / 2)


def test_tmhits_divides_by_ties() -> None:
    assert tmhits_at_k(RUN, QRELS, 10)["q"] == 1.0
    # k=2: a -> A=0, tau=3 > k: 2/3 ; d -> A=3 > k: 0
    assert tmhits_at_k(RUN, QRELS, 2)["q"] == pytest.approx((2 / 3) / 2)
    assert tmhits_at_k(RUN, QRELS, 2, literal=True)["q"] == pytest.approx((2 / 3) / 2)
    # k=4: a -> 4/3 capped at 1 ; d -> (4-3)/1 = 1
    assert tmhits_at_k(RUN, QRELS, 4)["q"] == 1.0


def test_literal_eq21_edge_cases_differ() -> None:
    run = Run({"q": {"x": 1.0, "y": 9.0, "z": 8.0, "u": 1.0, "v": 1.0}})
    # A = k = 2, tau = 3: p is at rank 3 or worse -> 0; Eq. 21 as printed says 1
    assert tmhits_at_k(run, Qrels({"q": {"x": 1}}), 2)["q"] == 0.0
    assert tmhits_at_k(run, Qrels({"q": {"x": 1}}), 2, literal=True)["q"] == 1.0
    # A = 2, tau = 3, k = 10: whole group in the top 10 -> 1; printed formula gives 8/3
    assert tmhits_at_k(run, Qrels({"q": {"x": 1}}), 10)["q"] == 1.0
    assert tmhits_at_k(run, Qrels({"q": {"x": 1}}), 10, literal=True)["q"] == pytest.approx(8 / 3)
    # A = 2, tau = 3, k = 3: one of three slots left -> 1/3 in both readings
    assert tmhits_at_k(run, Qrels({"q": {"x": 1}}), 3)["q"] == pytest.approx(1 / 3)
    assert tmhits_at_k(run, Qrels({"q": {"x": 1}}), 3, literal=True)["q"] == pytest.approx(1 / 3)


def test_grag_mrr_and_mhits_over_all_positives() -> None:
    # deterministic order c, b, a, d, e (ties by doc id descending)
    assert mrr_all(RUN, QRELS)["q"] == pytest.approx((1 / 3 + 1 / 4) / 2)
    assert mhits_at_k(RUN, QRELS, 3)["q"] == 0.5
    assert mhits_at_k(RUN, QRELS, 3) == recall_at_k(RUN, QRELS, 3)


def test_without_ties_tied_metrics_equal_plain_ones() -> None:
    run = Run({"q": {"a": 5.0, "b": 4.0, "c": 3.0, "d": 2.0, "e": 1.0}, "r": {"x": 1.0}})
    qrels = Qrels({"q": {"b": 1, "d": 1, "zz": 1}, "r": {"y": 1}})
    res = evaluate(run, qrels, ["mtrr", "mrr_all", "tmhits@3", "mhits@3"])
    assert res["mtrr"] == pytest.approx(res["mrr_all"])
    assert res["tmhits@3"] == pytest.approx(res["mhits@3"])
    assert res["mrr_all"] == pytest.approx(((1 / 2 + 1 / 4 + 0) / 3 + 0) / 2)  # unretrieved = 0


def test_ties_never_beat_the_optimistic_reading() -> None:
    # every document tied: MTRR of a single positive among n is 2/(n+1)
    run = Run({"q": {f"d{i}": 0.0 for i in range(9)}})
    assert mtrr(run, Qrels({"q": {"d3": 1}}))["q"] == pytest.approx(2 / 10)
    assert tmhits_at_k(run, Qrels({"q": {"d3": 1}}), 3)["q"] == pytest.approx(3 / 9)
