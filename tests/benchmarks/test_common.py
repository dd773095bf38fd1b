"""What the benchmark protocols share: one CV helper, specs on tiny corpora."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import skbsearch.benchmarks.common as common
from skbsearch.benchmarks.impliret import run_impliret
from skbsearch.benchmarks.trecdl import run_trecdl
from skbsearch.core.errors import InputError


@pytest.fixture()
def trec(tmp_path: Path) -> Path:
    """A 4-query TREC DL folder: the relevant passage is BM25's last of 3."""
    records, qrels = [], {}
    topics = {"q1": ("volcano eruption lava", "the volcano erupted and lava flowed"),
              "q2": ("ocean tides moon", "the moon pulls the ocean into tides"),
              "q3": ("honey bees nectar", "bees turn nectar into honey"),
              "q4": ("violin lessons", "she takes violin lessons every week")}
    for qid, (query, answer) in topics.items():
        docs = [(f"{qid}-f1", f"filler about {qid} stock markets", 0),
                (f"{qid}-f2", f"filler about {qid} soup recipes", 0), (f"{qid}-rel", answer, 2)]
        records.append({"query": query, "hits": [
            {"qid": qid, "docid": d, "content": t, "score": 9.0 - r, "rank": r + 1}
            for r, (d, t, _) in enumerate(docs)]})
        qrels[qid] = {d: str(g) for d, _, g in docs}
    (tmp_path / "dl19_bm25_top100.json").write_text(json.dumps(records), encoding="utf-8")
    (tmp_path / "dl19_qrels.json").write_text(json.dumps(qrels), encoding="utf-8")
    return tmp_path


@pytest.fixture()
def pools(tmp_path: Path) -> Path:
    d = tmp_path / "impliret"
    d.mkdir()
    for pool in ("temporal_multispeaker", "arithmetic_unispeaker"):
        rows = [{"id": i, "tuple_set_id": 0, "document": f"{pool} note {i}: I {w} today.",
                 "question": f"Who {w}?", "answer": str(i)}
                for i, w in enumerate(("sang", "swam", "cooked", "cycled"))]
        (d / f"{pool}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return d


def test_a_spec_over_a_tiny_passage_corpus(trec: Path) -> None:
    base = run_trecdl(trec, "dl19")
    assert base.metrics["mrr@10"] == pytest.approx(1 / 3)  # relevant passage third
    # BM25 over the corpus SKB (every passage of the year) finds the relevant one first
    res = run_trecdl(trec, "dl19", "bm25(k=3)")
    assert res.metrics["mrr@10"] == 1.0 and res.config["pipeline"] == "bm25(k=3)"
    assert set(res.latency_ms) == {"bm25.p50", "bm25.p95", "p50", "p95"}
    cut = run_trecdl(trec, "dl19", "input % 2")  # the relevant passage is cut away
    assert cut.metrics["mrr@10"] == 0.0 and cut.groups["bm25"] == base.metrics


def test_both_benchmarks_cross_validate_with_one_helper(trec: Path, pools: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[dict[str, Any]] = []
    real = common.cross_validate

    def spy(pipe: Any, queries: Any, qrels: Any, run: Any, **kw: Any) -> Any:
        calls.append({"n": len(queries), "folds": kw["folds"], "pool": len(kw["train_queries"] or [])})
        return real(pipe, queries, qrels, run, **kw)

    monkeypatch.setattr(common, "cross_validate", spy)
    # zscore fusion is trainable (fit learns its weights): it is cross-validated
    trec_res = run_trecdl(trec, "dl19", "zscore(input, bm25(k=3))", cv_folds=2)
    assert trec_res.config["fold_sizes"] == [2, 2] and len(trec_res.config["fits"]) == 2
    imp = run_impliret(pools, "bm25 >> zscore(input, dense)", limit_per_pool=2, cv_folds=2)
    assert calls == [{"n": 4, "folds": 2, "pool": 0}, {"n": 4, "folds": 2, "pool": 8}]
    assert imp.config["folds"] == 2 and sum(imp.config["fold_sizes"]) == 4
    assert "2-fold query-level cross-validation" in imp.config["protocol"]
    plain = run_trecdl(trec, "dl19", "zscore(input, bm25(k=3))")  # no folds: as given
    assert "fits" not in plain.config and len(calls) == 2
    with pytest.raises(InputError, match="--cv-folds K"):  # a model it must learn first
        run_trecdl(trec, "dl19", "gnn-row(mlp)")
