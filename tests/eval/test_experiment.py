"""Experiment: per-query scores from evaluate, p-values as scipy and ranx, corrections,
stages timed."""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
import pytest
from experiment_runs import fixture
from scipy import stats

from skbsearch.core.errors import InputError
from skbsearch.core.operators import FunctionStage
from skbsearch.core.types import Qrels, Query, Run
from skbsearch.eval import evaluate
from skbsearch.eval.experiment import Experiment
from skbsearch.eval.significance import correct

METRICS = ["ndcg@10", "mrr@10", "recall@10"]


def test_scores_and_p_values_equal_scipy_for_t_and_wilcoxon() -> None:
    runs, qrels = fixture()
    for test, ref in (("t", stats.ttest_rel), ("wilcoxon", stats.wilcoxon)):
        res = Experiment(runs, None, qrels, METRICS, baseline="sys0", test=test)
        assert res.query_ids == list(qrels)
        for s, run in runs.items():
            per_q = evaluate(run, qrels, METRICS, per_query=True)
            assert res.means[s] == pytest.approx(evaluate(run, qrels, METRICS))
            for m in METRICS:
                np.testing.assert_array_equal(res.scores[s][m], [per_q[q][m] for q in qrels])
        for s in ("sys1", "sys2"):
            for m in METRICS:
                want = ref(res.scores[s][m], res.scores["sys0"][m]).pvalue
                assert res.p_value(s, m) == pytest.approx(want, rel=1e-12)
        assert res.p_value("sys0", "ndcg@10") is None


def test_agrees_with_ranx_compare() -> None:
    ranx = pytest.importorskip("ranx")
    runs, qrels = fixture(seed=1, n_queries=80, strengths=(0.0, 0.3, 0.35, 1.0))
    ranx_metrics = {"ndcg@10": "ndcg@10", "mrr@10": "mrr@10", "recall@10": "recall@10"}
    report = ranx.compare(
        qrels=qrels.to_ranx(), runs=[r.to_ranx() for r in runs.values()],
        metrics=list(ranx_metrics.values()), stat_test="student", max_p=0.05,
    )
    res = Experiment(runs, None, qrels, list(ranx_metrics), test="t")  # every pair, as ranx
    names = list(runs)
    for ours, theirs in ranx_metrics.items():
        for a in names:
            assert res.means[a][ours] == pytest.approx(report.results[a][theirs], abs=1e-9)
            for b in names:
                if a == b:
                    continue
                p_ranx = report.comparisons[a, b][theirs]["p_value"]
                c = res.comparison(a, b, ours)
                assert c is not None and c.p_value == pytest.approx(p_ranx, rel=1e-9)
                assert c.significant == (p_ranx < 0.05)


def test_correction_per_metric_across_systems_and_marks() -> None:
    runs, qrels = fixture(seed=2, strengths=(1.5, 0.0, 1.55, 4.0))
    plain = Experiment(runs, None, qrels, METRICS, baseline=0)
    holm = Experiment(runs, None, qrels, METRICS, baseline=0, correction="holm")
    others = ["sys1", "sys2", "sys3"]
    for m in METRICS:
        raw = [plain.p_value(s, m) for s in others]
        assert [holm.p_value(s, m, adjusted=False) for s in others] == raw
        np.testing.assert_allclose([holm.p_value(s, m) for s in others], correct(raw, "holm"))
    # sys1 is weaker, sys3 much stronger than the baseline; sys2 about the same
    assert plain.mark("sys1", "ndcg@10") == "▼" and plain.mark("sys3", "ndcg@10") == "▲"
    assert plain.mark("sys0", "ndcg@10") == ""
    bonf = Experiment(runs, None, qrels, ["ndcg@10"], baseline="sys0", correction="bonferroni")
    assert bonf.p_value("sys2", "ndcg@10") == pytest.approx(
        min(1.0, 3 * plain.p_value("sys2", "ndcg@10"))
    )


def test_stages_are_run_on_the_queries_and_timed() -> None:
    runs, qrels = fixture(seed=3, n_queries=10)
    queries = [Query(q, f"text {q}") for q in list(qrels)[:6]]
    seen: list[list[str]] = []

    def slow(qs: Sequence[Query], run: Run | None = None) -> Run:
        seen.append([q.id for q in qs])
        time.sleep(0.03)
        return runs["sys2"]

    res = Experiment({"run": runs["sys0"], "stage": FunctionStage(slow)}, queries, qrels,
                     ["mrr@10"], baseline="run")
    assert seen == [[q.id for q in queries]]
    assert res.query_ids == [q.id for q in queries]  # qrels restricted to the query set
    assert res.ms_per_query["run"] is None
    assert res.ms_per_query["stage"] >= 30 / 6
    assert res.means["stage"]["mrr@10"] == pytest.approx(
        evaluate(runs["sys2"], Qrels({q.id: qrels[q.id] for q in queries}), "mrr@10")["mrr@10"]
    )
    assert "ms/query" in res.table_rows()[0]


def test_input_errors() -> None:
    runs, qrels = fixture(seed=4, n_queries=5)
    stage = FunctionStage(lambda qs, run=None: runs["sys0"])
    with pytest.raises(InputError, match="give the queries"):
        Experiment({"s": stage}, None, qrels, ["mrr"])
    with pytest.raises(InputError, match="baseline 'nope' is not a system"):
        Experiment(runs, None, qrels, ["mrr"], baseline="nope")
    with pytest.raises(InputError, match="unknown significance test"):
        Experiment(runs, None, qrels, ["mrr"], test="z")
    with pytest.raises(InputError, match="none of the 1 queries has qrels"):
        Experiment(runs, [Query("zz", "x")], qrels, ["mrr"])
    with pytest.raises(InputError, match="unknown metric"):
        Experiment(runs, None, qrels, ["nope@3"])
