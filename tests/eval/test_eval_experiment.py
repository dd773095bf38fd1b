"""Experiment: per-query scores from evaluate, p-values as scipy and ranx, corrections,
stages timed, exports."""

from __future__ import annotations

import csv
import io
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from skbsearch.core.errors import InputError, MissingDependencyError
from skbsearch.core.operators import FunctionStage
from skbsearch.core.types import Qrels, Query, Run
from skbsearch.eval import evaluate
from skbsearch.eval.experiment import Experiment
from skbsearch.eval.significance import correct

METRICS = ["ndcg@10", "mrr@10", "recall@10"]


def fixture(seed: int = 0, n_queries: int = 60, strengths: Sequence[float] = (0.0, 0.4, 0.8)):
    """Graded qrels with positives for every query; one run a strength (bigger = better)."""
    rng = np.random.default_rng(seed)
    qrels = {
        f"q{i}": {f"d{j}": int(rng.integers(1, 3)) for j in rng.choice(40, 4, replace=False)}
        for i in range(n_queries)
    }
    runs = {}
    for s_i, strength in enumerate(strengths):
        run = {}
        for q, rel in qrels.items():
            docs = rng.choice(40, 20, replace=False)
            run[q] = {f"d{d}": float(rng.normal() + strength * (f"d{d}" in rel)) for d in docs}
        runs[f"sys{s_i}"] = Run(run, name=f"sys{s_i}")
    return runs, Qrels(qrels)


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


def test_exports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runs, qrels = fixture(seed=5, n_queries=30)
    named = {"bm25_base": runs["sys0"], "a&b": runs["sys2"]}
    res = Experiment(named, None, qrels, ["ndcg@10", "mrr@10"], baseline="bm25_base",
                     per_query=True)
    rows = list(csv.DictReader(io.StringIO(res.to_csv(tmp_path / "t.csv"))))
    assert [r["system"] for r in rows] == ["bm25_base", "a&b"]
    assert float(rows[1]["ndcg@10"]) == pytest.approx(res.means["a&b"]["ndcg@10"])
    assert float(rows[1]["ndcg@10 p-value"]) == pytest.approx(res.p_value("a&b", "ndcg@10"))
    assert rows[1]["ndcg@10 sig"] == "▲" and rows[0]["ndcg@10 p-value"] == ""
    assert (tmp_path / "t.csv").is_file()
    per_q = list(csv.DictReader(io.StringIO(res.to_csv(per_query=True))))
    assert len(per_q) == 2 * 30 and set(per_q[0]) == {"system", "query", "ndcg@10", "mrr@10"}
    data = json.loads(res.to_json(tmp_path / "t.json"))
    assert data["baseline"] == "bm25_base" and data["queries"] == 30
    assert data["per_query"]["a&b"]["q0"]["mrr@10"] == res.scores["a&b"]["mrr@10"][0]
    assert len(data["comparisons"]) == 2
    tex = res.to_latex(tmp_path / "t.tex")
    assert "\\toprule" in tex and "bm25\\_base" in tex and "a\\&b" in tex
    assert "$^{\\blacktriangle}$" in tex and "\\textbf{" in tex
    df = res.to_dataframe()
    assert list(df["system"]) == ["bm25_base", "a&b"]
    png = res.plot(tmp_path / "t.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(MissingDependencyError, match="matplotlib"):
        res.plot(tmp_path / "u.png")


def test_pairwise_superscripts() -> None:
    runs, qrels = fixture(seed=6, strengths=(0.0, 1.5, 3.0))
    res = Experiment(runs, None, qrels, ["ndcg@10"])
    rows = res.table_rows()
    assert [r["#"] for r in rows] == ["a", "b", "c"]
    assert rows[2]["ndcg@10"].endswith("ᵃᵇ") and rows[1]["ndcg@10"].endswith("ᵃ")
    assert "$^{ab}$" in res.to_latex()
