"""GNN scorers (every variant), the two losses, and the save/load round trip."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torch_geometric")

from skbsearch.core.errors import InputError, UntrustedFileError  # noqa: E402
from skbsearch.rerank.gnn_models import (  # noqa: E402
    KINDS,
    GNNConfig,
    GNNScorer,
    GRAGConv,
    cross_entropy_loss,
    load_model,
    pairwise_ranking_loss,
    ranking_loss,
    save_model,
)

N, D = 7, 16


def _inputs(seed: int = 0, edges: bool = True):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(N, D, generator=g)
    y = torch.randn(D, generator=g)
    if edges:  # undirected: 0-1, 1-2, 0-3, 4-5 (node 6 isolated)
        und = [(0, 1), (1, 2), (0, 3), (4, 5)]
        ei = torch.tensor([[a for a, b in und] + [b for a, b in und],
                           [b for a, b in und] + [a for a, b in und]])  # fmt: skip
        ea = torch.rand(len(und), 2, generator=g).repeat(2, 1)
    else:
        ei, ea = torch.zeros(2, 0, dtype=torch.long), torch.zeros(0, 2)
    return x, ei, ea, y


@pytest.mark.parametrize("kind", KINDS)
def test_forward_backward_shapes(kind: str) -> None:
    torch.manual_seed(0)
    model = GNNScorer(GNNConfig(kind=kind, in_dim=D, hidden_dim=8, heads=4, residual=False))
    x, ei, ea, y = _inputs()
    scores = model(x, ei, ea, y)
    assert scores.shape == (N,)
    assert model.encode(x, ei, ea).shape == (N, D)
    loss = pairwise_ranking_loss(scores, torch.tensor([1.0, 0, 0, 2, 0, 0, 1]))
    assert loss.requires_grad
    # ranking losses ignore a shift of all scores (the last bias gets no gradient from
    # them), so reachability of every parameter is checked on a non-shift-invariant sum
    (loss + scores.square().sum()).backward()
    for name, p in model.named_parameters():
        assert p.grad is not None and torch.isfinite(p.grad).all(), name
        assert p.grad.abs().sum() > 0, name
    model.eval()
    assert model(*_inputs(edges=False)).shape == (N,)  # a graph without edges


@pytest.mark.parametrize("kind", KINDS)
def test_residual_model_starts_at_dense_similarity(kind: str) -> None:
    model = GNNScorer(GNNConfig(kind=kind, in_dim=D, hidden_dim=8, heads=4)).eval()
    x, ei, ea, y = _inputs(1)
    assert torch.allclose(model(x, ei, ea, y), 10.0 * (x @ y))


def test_grag_messages_follow_eq8_mean_of_edge_weighted_neighbours() -> None:
    conv = GRAGConv(2, 2, edge_dim=2, update_edges=True)
    with torch.no_grad():  # g = [x_v ; agg_v] -> agg_v, to read the aggregate directly
        conv.node_update.weight.copy_(torch.tensor([[0.0, 0, 1, 0], [0, 0, 0, 1]]))
        conv.node_update.bias.zero_()
    x = torch.tensor([[1.0, 0.0], [0.0, 2.0], [4.0, 4.0]])
    adj = torch.tensor([[0.0, 1, 1], [1, 0, 0], [1, 0, 0]])
    e = torch.zeros(3, 3, 2)
    e[0, 1] = e[1, 0] = torch.tensor([0.5, 0.25])
    e[0, 2] = e[2, 0] = torch.tensor([1.0, 0.0])
    h, e2 = conv(x, adj, e)
    # node 0: mean(0.75 * x1, 1.0 * x2) = (2, 2.75); node 1: 0.75 * x0; node 2: 1.0 * x0
    assert torch.allclose(h, torch.tensor([[2.0, 2.75], [0.75, 0.0], [1.0, 0.0]]))
    assert e2.shape == (3, 3, 2) and (e2[adj == 0] == 0).all() and (e2[adj == 1] > 0).all()


def test_cross_entropy_loss_hand_computed() -> None:
    assert math.isclose(float(cross_entropy_loss(torch.tensor([0.0, 0.0]), torch.tensor([1, 0]))),
                        math.log(2), rel_tol=1e-6)  # fmt: skip
    s = torch.tensor([0.0, math.log(3.0)])
    assert math.isclose(
        float(cross_entropy_loss(s, torch.tensor([1, 0]))), math.log(4), rel_tol=1e-6
    )
    s4, y4 = torch.zeros(4), torch.tensor([1, 2, 0, 0])  # graded: every label > 0 is positive
    assert math.isclose(float(cross_entropy_loss(s4, y4)), 2 * math.log(4), rel_tol=1e-6)
    assert float(cross_entropy_loss(s4, torch.zeros(4))) == 0.0


def test_pairwise_loss_hand_computed() -> None:
    y = torch.tensor([1, 0, 0])
    assert float(pairwise_ranking_loss(torch.tensor([2.0, 0.5, 0.0]), y)) == 0.0
    # pairs (0,1): 1 - (0.2 - 0.5) = 1.3 ; (0,2): 1 - 0.2 = 0.8 ; mean 1.05
    assert math.isclose(float(pairwise_ranking_loss(torch.tensor([0.2, 0.5, 0.0]), y)), 1.05,
                        rel_tol=1e-6)  # fmt: skip
    # graded: pairs (0,1), (0,2), (1,2) each 1 at equal scores
    assert float(pairwise_ranking_loss(torch.zeros(3), torch.tensor([2, 1, 0]))) == 1.0
    assert float(pairwise_ranking_loss(torch.zeros(3), torch.ones(3))) == 0.0
    with pytest.raises(InputError):
        ranking_loss("listwise", torch.zeros(2), torch.zeros(2))


def test_config_validation() -> None:
    with pytest.raises(InputError, match="unknown GNN kind"):
        GNNConfig(kind="gin")
    with pytest.raises(InputError, match="multiple of heads"):
        GNNScorer(GNNConfig(kind="gat", in_dim=D, hidden_dim=10, heads=4))


@pytest.mark.parametrize("kind", ["grag", "gat"])
def test_save_load_round_trip(tmp_path, kind: str) -> None:
    torch.manual_seed(3)
    model = GNNScorer(GNNConfig(kind=kind, in_dim=D, hidden_dim=8, heads=4))
    with torch.no_grad():
        model.gate.fill_(0.7)
    model.eval()
    x, ei, ea, y = _inputs(2)
    save_model(model, tmp_path / "m", {"encoder": "minilm", "use_paths": True})
    loaded, extra = load_model(tmp_path / "m")
    assert extra == {"encoder": "minilm", "use_paths": True}
    assert loaded.config == model.config and not loaded.training
    assert torch.allclose(loaded(x, ei, ea, y), model(x, ei, ea, y))


def test_load_refuses_bad_directories_and_pickles(tmp_path) -> None:
    with pytest.raises(InputError, match="not a GNN model directory"):
        load_model(tmp_path)
    model = GNNScorer(GNNConfig(in_dim=D, hidden_dim=8))
    save_model(model, tmp_path / "m")
    torch.save({"evil": InputError("x")}, tmp_path / "m" / "weights.pt")  # not just tensors
    with pytest.raises(UntrustedFileError):
        load_model(tmp_path / "m")
