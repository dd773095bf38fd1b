"""TREC DL protocol: loading, the published BM25 figure, specs, folds, errors (`skb bench
trecdl`: tests/cli/test_bench_trecdl.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from skbsearch.benchmarks.trecdl import (
    folds_of,
    load_trecdl,
    restrict_scores,
    run_trecdl,
)
from skbsearch.core.errors import InputError
from skbsearch.core.types import Run


def _dir(shared_data: Path) -> Path:
    d = shared_data / "trec-dl"
    if not (d / "dl19_bm25_top100.json").is_file():
        pytest.skip("trec-dl data not present")
    return d


def test_load_dl19(shared_data: Path) -> None:
    data = load_trecdl(_dir(shared_data), "dl19")
    assert len(data.queries) == 43 and len(data.run) == 43
    assert all(len(docs) == 100 for docs in data.run.values())
    assert len(data.doc_text) > 4000 and set(data.qrels) == {q.id for q in data.queries}


def test_bm25_reproduces_published_ndcg(shared_data: Path) -> None:
    result = run_trecdl(_dir(shared_data), "dl19")  # default pipeline: 'input', the BM25 run
    assert result.metrics["ndcg@10"] == pytest.approx(0.5058, abs=5e-5)
    assert result.groups["bm25"] == result.metrics
    assert result.config["n_queries"] == 43 and result.config["pipeline"] == "input"
    # BM25 scores do not tie at the top: the tie-aware MTRR is below MRR only by its 1/n
    assert 0 < result.metrics["mtrr"] <= result.metrics["mrr@10"]


def test_fusion_of_identical_runs_keeps_order(shared_data: Path) -> None:
    result = run_trecdl(_dir(shared_data), "dl19", "rrf(input, input)", limit=10)
    bm25 = run_trecdl(_dir(shared_data), "dl19", "input", limit=10)
    assert result.config["pipeline"] == "rrf(input, input)"
    assert result.config["n_queries"] == 10
    assert result.metrics["ndcg@10"] == pytest.approx(bm25.metrics["ndcg@10"])


def test_run_file_component(shared_data: Path, tmp_path: Path) -> None:
    out = tmp_path / "bm25.run"
    run_trecdl(_dir(shared_data), "dl19", save_run=out)
    again = run_trecdl(_dir(shared_data), "dl19", f"run(path='{out}')")
    assert again.config["pipeline"] == f"run(path='{out}')"
    assert again.metrics["ndcg@10"] == pytest.approx(0.5058, abs=5e-5)


def test_restrict_scores_keeps_candidates_only() -> None:
    cands = Run({"q1": {"a": 3.0, "b": 2.0, "c": 1.0}})
    scores = Run({"q1": {"c": 0.9, "a": 0.1, "z": 5.0}, "q2": {"a": 1.0}})
    out = restrict_scores(scores, cands)
    assert out == Run({"q1": {"c": 0.9, "a": 0.1}})  # z is no candidate; b has no score
    with pytest.raises(InputError, match="no score"):
        restrict_scores(Run({"q1": {"z": 1.0}}), cands)


def test_input_run_replaces_bm25_scores(shared_data: Path, tmp_path: Path) -> None:
    data = _dir(shared_data)
    bm25 = load_trecdl(data, "dl19").run.top(100)
    reversed_run = Run({q: {d: -s for d, s in docs.items()} for q, docs in bm25.items()})
    path = tmp_path / "rev.run"
    reversed_run.to_trec(path)
    res = run_trecdl(data, "dl19", input_run=path)
    assert "input" in res.groups and res.config["input_run"] == str(path)
    assert res.metrics["ndcg@10"] < 0.5058 - 0.1  # BM25 order reversed is far worse


def test_folds_partition_queries() -> None:
    ids = [str(i) for i in range(43)]
    folds = folds_of(ids, 5, seed=0)
    assert sorted(x for f in folds for x in f) == sorted(ids)
    assert {len(f) for f in folds} <= {8, 9}
    assert folds == folds_of(ids, 5, seed=0)
    with pytest.raises(InputError):
        folds_of(ids, 1)


def test_errors(shared_data: Path, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="dl20_bm25_top100"):
        load_trecdl(tmp_path, "dl20")
    with pytest.raises(InputError, match="unknown stage"):
        run_trecdl(_dir(shared_data), "dl19", "bogus", limit=1)
    with pytest.raises(InputError, match="--cv-folds K"):  # a trainable stage needs folds
        run_trecdl(_dir(shared_data), "dl19", "gnn-row(mlp)", limit=1)
