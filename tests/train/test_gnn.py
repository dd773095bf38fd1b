"""The G-RAG training loop (skbsearch.train.gnn): nDCG@k, early stopping on a dev split,
the label checks, saving with the feature settings, and the graphs' device moves."""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torch_geometric")

from query_graphs import synthetic_graphs as _synthetic  # noqa: E402

from skbsearch.core.errors import InputError  # noqa: E402
from skbsearch.rerank.gnn_models import GNNConfig, GNNScorer  # noqa: E402
from skbsearch.train.gnn import TrainConfig, evaluate, graphs_to, ndcg_at_k, train_gnn  # noqa: E402


def test_ndcg_at_k_hand_computed() -> None:
    labels = torch.tensor([0.0, 2.0, 1.0])
    assert ndcg_at_k(torch.tensor([3.0, 2.0, 1.0]), labels, k=2) == pytest.approx(
        (2 / 1.5849625) / (2 + 1 / 1.5849625)
    )
    assert ndcg_at_k(torch.tensor([0.0, 2.0, 1.0]), labels) == pytest.approx(1.0)
    assert ndcg_at_k(torch.zeros(3), torch.zeros(3)) == 0.0


@pytest.mark.parametrize("loss", ["pairwise", "ce"])
def test_training_learns_a_signal_and_saves(tmp_path, loss: str) -> None:
    train, dev = _synthetic(12, seed=1), _synthetic(6, seed=2)
    torch.manual_seed(0)
    model = GNNScorer(GNNConfig(kind="grag", in_dim=16, hidden_dim=16, dropout=0.0))
    before = evaluate(model, dev)
    cfg = TrainConfig(loss=loss, epochs=40, lr=1e-2, patience=40)
    result = train_gnn(model, train, dev, cfg, out_dir=tmp_path / "m",
                       feature_settings={"encoder": "minilm"}, progress=False)  # fmt: skip
    losses = [h["train_loss"] for h in result.history[1:]]
    assert losses[-1] < 0.5 * losses[0]
    assert result.best_dev > before + 0.2 and evaluate(model, dev) == pytest.approx(result.best_dev)
    meta = json.loads((tmp_path / "m" / "config.json").read_text())
    assert meta["extra"]["encoder"] == "minilm" and meta["extra"]["training"]["loss"] == loss


def test_early_stopping_and_label_checks() -> None:
    train, dev = _synthetic(2, seed=1), _synthetic(2, seed=2)
    model = GNNScorer(GNNConfig(kind="mlp", in_dim=16, hidden_dim=8))
    result = train_gnn(
        model, train, dev, TrainConfig(epochs=50, lr=0.0, patience=3), progress=False
    )
    assert len(result.history) == 1 + 3 and result.best_epoch == 0  # lr 0: never improves
    unlabelled = _synthetic(1, seed=3)
    unlabelled[0].labels = None
    with pytest.raises(InputError, match="no labels"):
        train_gnn(model, unlabelled, dev, progress=False)


def test_bad_settings_and_empty_splits_are_refused() -> None:
    with pytest.raises(InputError, match="unknown loss 'hinge'") as e:
        TrainConfig(loss="hinge")
    assert e.value.field == "loss"
    model = GNNScorer(GNNConfig(kind="mlp", in_dim=16, hidden_dim=8))
    with pytest.raises(InputError, match="at least one train and one dev"):
        train_gnn(model, _synthetic(2, seed=1), [], progress=False)
    unlabelled = _synthetic(1, seed=4)
    unlabelled[0].labels = None
    with pytest.raises(InputError, match="'q0' has no labels"):
        evaluate(model, unlabelled)


def test_the_trained_model_is_left_on_the_cpu_in_eval_mode() -> None:
    model = GNNScorer(GNNConfig(kind="mlp", in_dim=16, hidden_dim=8, dropout=0.5))
    result = train_gnn(model, _synthetic(3, seed=1), _synthetic(2, seed=2),
                       TrainConfig(epochs=2, patience=2), progress=False)
    assert not model.training and next(model.parameters()).device.type == "cpu"
    assert [h["epoch"] for h in result.history] == [0, 1, 2] and result.model_dir is None


def test_graphs_to_moves_every_tensor_and_keeps_none() -> None:
    graphs = _synthetic(2, seed=5)
    assert all(a is b for a, b in zip(graphs_to(graphs, "cpu"), graphs, strict=True))
    graphs[1].labels = None
    moved = graphs_to(graphs, "meta")  # a device every torch build has, holding no data
    assert [g.x.device.type for g in moved] == ["meta", "meta"]
    assert moved[0].labels is not None and moved[0].labels.device.type == "meta"
    assert moved[1].labels is None
    assert moved[0].doc_ids == graphs[0].doc_ids and graphs[0].x.device.type == "cpu"
