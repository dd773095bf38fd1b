"""GNN scorers for G-RAG re-ranking (§3.2.3–3.2.4), ablation variants and losses.

All models map one query's document graph to scores: node features ``x`` (n, d), edges
``edge_index`` (2, E) with features ``edge_attr`` (E, 2), and the question embedding
``y`` (d,), to ``s_i = y · x_i^L`` (Eq. 11, times a fixed ``score_scale``).

Kinds: ``"grag"`` (the paper's layer: Eq. 7–9), ``"gcn"``, ``"sage"``, ``"gat"`` (via
torch_geometric, for the ablation of Appendix B) and ``"mlp"`` (no graph).

With ``residual=True`` (default, not in the paper) the output is ``x + α·GNN(x)`` with a
learnable gate α starting at 0, so an untrained model ranks by the dense similarity
``y · x`` and training only has to learn a correction — sensible with little data.
"""

from __future__ import annotations

import contextlib
import json
import pickle
from collections.abc import Iterator
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import torch
from torch import Tensor, nn

from skbsearch.core.atomic import atomic_dir
from skbsearch.core.errors import InputError, MissingDependencyError, UntrustedFileError

KINDS = ("grag", "gcn", "sage", "gat", "mlp")
LOSSES = ("pairwise", "ce")
FORMAT = "skbsearch-gnn-1"
CONFIG_FILE = "config.json"
WEIGHTS_FILE = "weights.pt"


@dataclass
class GNNConfig:
    """Hyper-parameters of a :class:`GNNScorer` (saved beside the weights)."""

    kind: str = "grag"
    in_dim: int = 384
    hidden_dim: int = 64
    num_layers: int = 2
    dropout: float = 0.1
    residual: bool = True
    update_edges: bool = True
    heads: int = 8
    edge_dim: int = 2
    score_scale: float = 10.0

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise InputError(
                f"unknown GNN kind {self.kind!r}; use one of {', '.join(KINDS)}", field="kind"
            )
        if self.num_layers < 1:
            raise InputError("num_layers must be >= 1", field="num_layers")


class GRAGConv(nn.Module):
    """One G-RAG layer: edge-weighted mean messages (Eq. 7–8) and edge update (Eq. 9).

    Node update: ``x_v' = g([x_v ; mean_{u∈N(v)} Σ_m e_uv(m) x_u])`` with ``g`` linear
    (the activation is applied by the caller). Edge update, row-wise on the dense edge
    tensor: ``e_v·' = σ(g_e([e_v· ; mean_{u∈N(v)} e_u·]))``, kept only on existing edges.
    """

    def __init__(self, in_dim: int, out_dim: int, edge_dim: int = 2, update_edges: bool = True):
        super().__init__()
        self.node_update = nn.Linear(2 * in_dim, out_dim)
        self.edge_update = nn.Linear(2 * edge_dim, edge_dim) if update_edges else None

    def forward(self, x: Tensor, adj: Tensor, e: Tensor) -> tuple[Tensor, Tensor]:
        """``x`` (n, d), ``adj`` (n, n) with ``adj[v, u] = 1`` for an edge, ``e`` (n, n, l)."""
        deg = adj.sum(dim=1, keepdim=True).clamp(min=1.0)
        weights = e.sum(dim=-1) * adj  # Eq. 8: Σ_m e_uv(m), message u -> v
        agg = (weights @ x) / deg  # mean aggregation; isolated nodes get 0
        h = self.node_update(torch.cat([x, agg], dim=-1))
        if self.edge_update is not None:
            mean_e = torch.einsum("vu,uwl->vwl", adj / deg, e)
            e = torch.sigmoid(self.edge_update(torch.cat([e, mean_e], dim=-1))) * adj[..., None]
        return h, e


def _pyg_conv(cfg: GNNConfig, in_dim: int, out_dim: int, last: bool) -> nn.Module:
    try:
        from torch_geometric.nn import GATConv, GCNConv, SAGEConv
    except ImportError as e:
        raise MissingDependencyError("torch-geometric", "gnn", f"The {cfg.kind!r} GNN") from e
    if cfg.kind == "gcn":
        return GCNConv(in_dim, out_dim)
    if cfg.kind == "sage":
        return SAGEConv(in_dim, out_dim, aggr="mean")
    heads = 1 if last else cfg.heads
    if not last and out_dim % heads:
        raise InputError(
            f"hidden_dim {out_dim} must be a multiple of heads {heads}", field="hidden_dim"
        )
    return GATConv(in_dim, out_dim // heads, heads=heads, edge_dim=cfg.edge_dim)


class GNNScorer(nn.Module):
    """Scores the candidates of one query from its document graph (see module doc)."""

    def __init__(self, config: GNNConfig) -> None:
        super().__init__()
        self.config = config
        c = config
        dims = [c.in_dim] + [c.hidden_dim] * (c.num_layers - 1) + [c.in_dim]
        layers: list[nn.Module] = []
        for i, (a, b) in enumerate(zip(dims[:-1], dims[1:], strict=True)):
            last = i == len(dims) - 2
            if c.kind == "grag":
                # the last layer's edges would be unused: no edge update there
                layers.append(GRAGConv(a, b, c.edge_dim, c.update_edges and not last))
            elif c.kind == "mlp":
                layers.append(nn.Linear(a, b))
            else:
                layers.append(_pyg_conv(c, a, b, last))
        self.layers = nn.ModuleList(layers)
        self.dropout = nn.Dropout(c.dropout)
        self.gate = nn.Parameter(torch.zeros(())) if c.residual else None

    def encode(self, x: Tensor, edge_index: Tensor, edge_attr: Tensor) -> Tensor:
        """Output node representations ``x^L`` (n, d)."""
        n, kind = x.shape[0], self.config.kind
        h = x
        adj = e = None
        if kind == "grag":
            adj = x.new_zeros((n, n))
            adj[edge_index[1], edge_index[0]] = 1.0
            e = x.new_zeros((n, n, self.config.edge_dim))
            e[edge_index[1], edge_index[0]] = edge_attr
        for i, layer in enumerate(self.layers):
            h = self.dropout(h)
            if kind == "grag":
                h, e = layer(h, adj, e)
            elif kind == "mlp":
                h = layer(h)
            elif kind == "gcn":
                h = layer(h, edge_index, edge_attr.sum(dim=-1))
            elif kind == "gat":
                h = layer(h, edge_index, edge_attr)
            else:
                h = layer(h, edge_index)
            if i < len(self.layers) - 1:
                h = torch.relu(h)
        if self.gate is not None:
            h = x + self.gate * h
        return h

    def forward(self, x: Tensor, edge_index: Tensor, edge_attr: Tensor, y: Tensor) -> Tensor:
        """Scores ``s_i = scale · y · x_i^L`` (n,) for one query."""
        return self.config.score_scale * (self.encode(x, edge_index, edge_attr) @ y)


@contextlib.contextmanager
def torch_threads(n: int | None) -> Iterator[None]:
    """Run a block with ``n`` torch threads (``None``: unchanged), then restore.

    The graphs are small: one thread avoids the synchronisation cost that dominates
    (and stalls badly on a busy machine) when torch splits tiny ops across threads.
    """
    if n is None:
        yield
        return
    old = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(old)


def cross_entropy_loss(scores: Tensor, labels: Tensor) -> Tensor:
    """Eq. 12: ``-Σ_i y_i log softmax(s)_i`` with ``y_i = 1`` for relevant (label > 0).

    A query without a relevant candidate contributes 0.
    """
    positive = labels > 0
    if not bool(positive.any()):
        return scores.sum() * 0.0
    return -torch.log_softmax(scores, dim=0)[positive].sum()


def pairwise_ranking_loss(scores: Tensor, labels: Tensor, margin: float = 1.0) -> Tensor:
    """Eq. 13 averaged over pairs: ``max(0, margin − (s_i − s_j))`` for ``label_i > label_j``.

    Graded labels give a pair for every two candidates with different grades. A query
    without such pairs contributes 0.
    """
    better = labels[:, None] > labels[None, :]
    if not bool(better.any()):
        return scores.sum() * 0.0
    diff = scores[:, None] - scores[None, :]
    return torch.relu(margin - diff)[better].mean()


def ranking_loss(name: str, scores: Tensor, labels: Tensor) -> Tensor:
    """The loss called ``name`` (``"pairwise"`` or ``"ce"``)."""
    if name == "pairwise":
        return pairwise_ranking_loss(scores, labels)
    if name == "ce":
        return cross_entropy_loss(scores, labels)
    raise InputError(f"unknown loss {name!r}; use one of {', '.join(LOSSES)}", field="loss")


def save_model(
    model: GNNScorer, directory: str | Path, extra: dict[str, Any] | None = None
) -> Path:
    """Write ``config.json`` (model config + ``extra`` settings) and ``weights.pt``.

    The directory is replaced atomically.
    """
    directory = Path(directory)
    meta = {"format": FORMAT, "model": asdict(model.config), "extra": extra or {}}
    with atomic_dir(directory, kind="gnn-model") as tmp:
        (tmp / CONFIG_FILE).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
        torch.save(model.state_dict(), tmp / WEIGHTS_FILE)
    return directory


def load_model(directory: str | Path) -> tuple[GNNScorer, dict[str, Any]]:
    """Load a model saved by :func:`save_model`: ``(model in eval mode, extra settings)``.

    Weights are read with ``torch.load(weights_only=True)``: no code is unpickled.
    """
    directory = Path(directory)
    cfg_path = directory / CONFIG_FILE
    if not cfg_path.is_file() or not (directory / WEIGHTS_FILE).is_file():
        raise InputError(
            f"not a GNN model directory (needs {CONFIG_FILE} and {WEIGHTS_FILE}); train one "
            "with skbsearch.train.gnn.train_gnn",
            file=directory,
        )
    try:
        meta = json.loads(cfg_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise InputError(f"malformed JSON: {e.msg}", file=cfg_path, line=e.lineno) from None
    if meta.get("format") != FORMAT:
        raise InputError(
            f"unsupported model format {meta.get('format')!r}, expected {FORMAT}",
            file=cfg_path,
            field="format",
        )
    known = {f.name for f in fields(GNNConfig)}
    config = GNNConfig(**{k: v for k, v in meta["model"].items() if k in known})
    model = GNNScorer(config)
    try:
        state = torch.load(directory / WEIGHTS_FILE, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as e:
        raise UntrustedFileError(
            f"{directory / WEIGHTS_FILE}: refusing to load: it holds more than tensors ({e}); "
            "re-save the model with save_model"
        ) from None
    try:
        model.load_state_dict(state)
    except RuntimeError as e:
        raise InputError(
            f"weights do not match the config: {e}", file=directory / WEIGHTS_FILE
        ) from None
    model.eval()
    return model, dict(meta.get("extra", {}))
