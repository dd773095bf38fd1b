"""GNN rows (the gnn-row stage: mlp / gcn / grag / grag-rl) of the TREC DL protocol, on a
3-query fixture."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("torch_geometric")

from skbsearch.benchmarks.trecdl import run_trecdl  # noqa: E402
from skbsearch.core.errors import InputError  # noqa: E402
from skbsearch.stages import stage  # noqa: E402

TOPICS = {
    "q1": ("how do volcanoes erupt", "magma rises through the crust and the volcano erupts lava"),
    "q2": ("what causes ocean tides", "the moon's gravity pulls the ocean and causes the tides"),
    "q3": ("how do bees make honey", "bees collect nectar from flowers and turn it into honey"),
}
FILLER = ["the stock market closed higher on friday", "a recipe for tomato soup with basil",
          "the football team won the league title", "new smartphones have larger screens"]


@pytest.fixture()
def tiny(tmp_path: Path) -> Path:
    """A 3-query TREC DL folder; BM25 puts the relevant passage last."""
    records, qrels = [], {}
    for qid, (query, answer) in TOPICS.items():
        docs = [(f"{qid}-f{i}", f"{f} ({qid})", 0) for i, f in enumerate(FILLER)]
        docs.append((f"{qid}-rel", answer, 3))
        hits = [{"qid": qid, "docid": d, "content": t, "score": 9.0 - r, "rank": r + 1}
                for r, (d, t, _) in enumerate(docs)]
        records.append({"query": query, "hits": hits})
        qrels[qid] = {d: str(g) for d, _, g in docs}
    (tmp_path / "dl19_bm25_top100.json").write_text(json.dumps(records), encoding="utf-8")
    (tmp_path / "dl19_qrels.json").write_text(json.dumps(qrels), encoding="utf-8")
    return tmp_path


def test_gnn_row_needs_folds_or_model(tiny: Path) -> None:
    with pytest.raises(InputError, match="--cv-folds K"):
        run_trecdl(tiny, "dl19", "gnn-row(grag)")


@pytest.mark.parametrize("row,options", [
    pytest.param("mlp", {}, marks=pytest.mark.slow),
    pytest.param("gcn", {}, marks=pytest.mark.slow),
    pytest.param("gnn", {}, marks=pytest.mark.slow),
    ("gnn-rl", {"use_paths": False, "min_common": 2, "select_first_stage": (0.0, 0.1)}),
])
def test_cv_row_scores_every_query_once(tiny: Path, row: str, options: dict) -> None:
    rows = {"mlp": "mlp", "gcn": "gcn", "gnn": "grag", "gnn-rl": "grag-rl"}
    spec = repr(stage("gnn-row", row=rows[row], **options, epochs=2, save_dir=str(tiny / "models")))
    result = run_trecdl(tiny, "dl19", spec, cv_folds=3)
    cfg = result.config
    assert cfg["n_queries"] == 3 and "3-fold query-level cross-validation" in cfg["protocol"]
    assert [f["held_out"] for f in cfg["fits"]] == [1, 1, 1]
    assert [f["trained_on"] for f in cfg["fits"]] == [2, 2, 2]
    fits = [next(iter(f["stages"].values())) for f in cfg["fits"]]
    assert fits[0]["row"]["kind"] == {"mlp": "mlp", "gcn": "gcn"}.get(row, "grag")
    assert 0.0 <= result.metrics["ndcg@10"] <= 1.0 and result.latency_ms["gnn-row.p50"] > 0
    assert sorted(p.name for p in (tiny / "models").iterdir()) == ["fold1", "fold2", "fold3"]
    if row == "gnn-rl":  # the extra BM25 feature widens the input; its weight is chosen per fold
        assert fits[0]["row"]["features"]["first_stage_weight"] == 0.1
        assert {f["first_stage_weight"] for f in fits} <= {0.0, 0.1}
        saved = json.loads((tiny / "models" / "fold1" / "config.json").read_text())
        assert saved["model"]["in_dim"] == 385
        assert saved["extra"]["first_stage_weight"] == fits[0]["first_stage_weight"]


@pytest.mark.slow
def test_fusion_with_a_cv_gnn_row(tiny: Path) -> None:
    result = run_trecdl(tiny, "dl19", "rrf(gnn-row(row='mlp'), input)", cv_folds=3)
    assert result.config["pipeline"] == "rrf(gnn-row(row='mlp'), input)"
    assert set(result.groups) == {"bm25"} and result.config["n_queries"] == 3
    assert len(result.config["fits"]) == 3  # the fusion's child is fitted per fold
