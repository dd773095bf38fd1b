"""G-RAG rows (skbsearch.train.gnn_rows): the seeded dev split, a row's model trained on
labelled graphs, and the first-stage weight chosen by dev nDCG@10."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torch_geometric")

from query_graphs import synthetic_graphs  # noqa: E402

from skbsearch.core.errors import InputError  # noqa: E402
from skbsearch.rerank.gnn_features import GNNFeatures  # noqa: E402
from skbsearch.train.gnn_rows import GNNRowConfig, fit_row, split_dev, train_row_model  # noqa: E402


def test_split_dev_is_seeded_and_disjoint() -> None:
    ids = [f"q{i}" for i in range(20)]
    train, dev = split_dev(ids, 0.15, seed=3)
    assert len(dev) == 3 and not set(train) & set(dev) and sorted(train + dev) == sorted(ids)
    assert (train, dev) == split_dev(list(reversed(ids)), 0.15, seed=3)
    with pytest.raises(InputError):
        split_dev(["q1"], 0.5)


def test_split_dev_keeps_one_query_on_each_side() -> None:
    assert [len(p) for p in split_dev(["a", "b"], 0.9)] == [1, 1]
    assert [len(p) for p in split_dev(["a", "b", "c"], 0.0)] == [2, 1]


def _row(**kw) -> GNNRowConfig:
    return GNNRowConfig(kind="mlp", loss="ce", hidden_dim=8, dropout=0.0, lr=1e-2, epochs=3,
                        patience=3, dev_fraction=0.25, **kw)


def test_train_row_model_holds_the_dev_split_back(tmp_path: Path) -> None:
    graphs = synthetic_graphs(8, seed=1)
    row = _row(features=GNNFeatures(encoder="test-enc", min_common_nodes=2))
    model, result = train_row_model(graphs, row, out_dir=tmp_path / "m")
    assert model.config.kind == "mlp" and model.config.in_dim == 16
    assert len(result.history) >= 2 and result.model_dir == str(tmp_path / "m")
    saved = json.loads((tmp_path / "m" / "config.json").read_text())
    assert saved["extra"]["encoder"] == "test-enc" and saved["extra"]["min_common_nodes"] == 2
    assert saved["extra"]["training"]["loss"] == "ce"


def test_fit_row_trains_only_on_graphs_with_a_relevant_candidate() -> None:
    graphs = synthetic_graphs(6, seed=2)
    graphs[0].labels = torch.zeros_like(graphs[0].labels)
    _, info = fit_row(graphs, _row(), only_positive=True)
    assert info["trained_on"] == 5 and info["first_stage_weight"] == 0.0
    assert 0.0 <= info["dev_ndcg@10"] <= 1.0 and info["epochs_run"] >= 1
    _, every = fit_row(graphs, _row())
    assert every["trained_on"] == 6


def test_fit_row_chooses_a_first_stage_weight_and_saves_it(tmp_path: Path) -> None:
    graphs = synthetic_graphs(8, seed=3)
    for g in graphs:  # a first-stage feature as the last dimension (z-scored, label-led)
        g.x[:, -1] = (g.labels - g.labels.mean()) / (g.labels.std() + 1e-6)
    before = [g.y.clone() for g in graphs]
    row = _row(features=GNNFeatures(first_stage_weight=0.1), select_first_stage=(0.0, 0.5))
    model, info = fit_row(graphs, row, out_dir=tmp_path / "m")
    assert info["first_stage_weight"] in (0.0, 0.5)
    saved = json.loads((tmp_path / "m" / "config.json").read_text())
    assert saved["extra"]["first_stage_weight"] == info["first_stage_weight"]
    assert saved["extra"]["training"]["best_dev_ndcg"] == pytest.approx(info["dev_ndcg@10"], abs=1e-4)
    assert all(torch.equal(g.y, y) for g, y in zip(graphs, before, strict=True))  # copies set
