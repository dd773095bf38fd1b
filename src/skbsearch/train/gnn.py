"""Training loop for the G-RAG GNN re-ranker (CPU or GPU, early stopping on a dev split).

One optimisation step a query (its document graph is one batch), Adam, the loss of
Eq. 12 (``"ce"``) or Eq. 13 (``"pairwise"``); after every epoch the dev queries are
scored and nDCG@k over the candidates is tracked; training stops after ``patience``
epochs without improvement and the best weights are kept (and saved, with the feature
settings, when ``out_dir`` is given).
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import math
import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from skbsearch.core.errors import InputError
from skbsearch.rerank.gnn import QueryGraph, score_graphs
from skbsearch.rerank.gnn_models import (
    LOSSES,
    GNNScorer,
    ranking_loss,
    save_model,
    torch_threads,
)
from skbsearch.train.amp import AmpTrainer


@dataclass
class TrainConfig:
    """Optimisation settings (paper: lr 1e-4, dropout 0.1; defaults tuned for small data).

    ``num_threads``: torch threads while training (1 is fastest for these small graphs;
    ``None`` leaves torch's setting alone). ``device``/``precision``: where the model
    trains (:func:`skbsearch.core.devices.resolve`; autocast + GradScaler at fp16).
    """

    loss: str = "pairwise"
    epochs: int = 50
    lr: float = 1e-3
    weight_decay: float = 0.0
    patience: int = 5
    eval_k: int = 10
    seed: int = 0
    num_threads: int | None = 1
    device: str | None = None
    precision: str | None = None

    def __post_init__(self) -> None:
        if self.loss not in LOSSES:
            raise InputError(
                f"unknown loss {self.loss!r}; use one of {', '.join(LOSSES)}", field="loss"
            )


@dataclass
class TrainResult:
    """What training did: per-epoch history, the best epoch and its dev score."""

    history: list[dict[str, float]] = field(default_factory=list)
    best_epoch: int = 0
    best_dev: float = float("nan")
    model_dir: str | None = None


def ndcg_at_k(scores: torch.Tensor, labels: torch.Tensor, k: int = 10) -> float:
    """nDCG@k of one query over its candidates (linear gain = grade, as trec_eval).

    The ideal ranking is of the candidates' labels only; ties are broken by position.
    Returns 0 when no candidate is relevant.
    """
    order = torch.argsort(-scores, stable=True)[:k]
    discounts = 1.0 / torch.log2(torch.arange(2, k + 2, dtype=torch.float32))
    gains = labels[order].clamp(min=0)
    dcg = float((gains * discounts[: len(gains)]).sum())
    ideal = torch.sort(labels.clamp(min=0), descending=True).values[:k]
    idcg = float((ideal * discounts[: len(ideal)]).sum())
    return dcg / idcg if idcg > 0 else 0.0


def evaluate(model: GNNScorer, graphs: Sequence[QueryGraph], k: int = 10) -> float:
    """Mean nDCG@k of ``model`` over labelled query graphs."""
    _need_labels(graphs)
    scores = score_graphs(model, graphs)
    vals = [ndcg_at_k(s, g.labels.cpu(), k)  # type: ignore[union-attr]
            for s, g in zip(scores, graphs, strict=True)]
    return sum(vals) / len(vals) if vals else float("nan")


def _need_labels(graphs: Sequence[QueryGraph]) -> None:
    for g in graphs:
        if g.labels is None:
            raise InputError(
                f"query {g.query_id!r} has no labels; featurize with qrels", field="qrels"
            )


def train_gnn(
    model: GNNScorer,
    train: Sequence[QueryGraph],
    dev: Sequence[QueryGraph],
    config: TrainConfig | None = None,
    *,
    out_dir: str | Path | None = None,
    feature_settings: dict[str, Any] | None = None,
    progress: bool = True,
) -> TrainResult:
    """Train ``model`` in place (ending with the best dev weights) and optionally save it.

    Args:
        model: the scorer to train.
        train: labelled query graphs to learn from.
        dev: labelled query graphs for early stopping (nDCG@``eval_k``).
        config: optimisation settings.
        out_dir: model directory to write (config JSON + state_dict); ``None``: no save.
        feature_settings: featurizer settings saved with the model
            (``GraphFeaturizer.settings()``), so the re-ranker rebuilds the same features.
        progress: show a progress bar.
    """
    config = config or TrainConfig()
    if not train or not dev:
        raise InputError("training needs at least one train and one dev query", field="train")
    _need_labels(train)
    _need_labels(dev)
    torch.manual_seed(config.seed)
    rng = random.Random(config.seed)
    amp = AmpTrainer(config.device, config.precision)
    model.to(amp.spec.device)
    train, dev = graphs_to(train, amp.spec.device), graphs_to(dev, amp.spec.device)
    opt = torch.optim.Adam(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    result = TrainResult()
    best_state = copy.deepcopy(model.state_dict())
    result.best_dev = evaluate(model, dev, config.eval_k)
    result.history.append({"epoch": 0, "train_loss": float("nan"), "dev_ndcg": result.best_dev})
    stale = 0
    order = list(range(len(train)))
    bar, task = _progress(progress, config.epochs)
    with contextlib.ExitStack() as stack:
        stack.enter_context(torch_threads(config.num_threads))
        if bar is not None:
            stack.callback(bar.stop)
        for epoch in range(1, config.epochs + 1):
            rng.shuffle(order)
            mean_loss = _train_epoch(model, [train[i] for i in order], opt, amp, config.loss)
            dev_score = evaluate(model, dev, config.eval_k)
            result.history.append({"epoch": epoch, "train_loss": mean_loss, "dev_ndcg": dev_score})
            if bar is not None:
                bar.update(task, advance=1, description=(
                    f"epoch {epoch} loss {mean_loss:.4f} dev nDCG@{config.eval_k} {dev_score:.4f}"))
            if not math.isnan(mean_loss) and dev_score > result.best_dev + 1e-6:
                result.best_dev, result.best_epoch, stale = dev_score, epoch, 0
                best_state = copy.deepcopy(model.state_dict())
            else:
                stale += 1
                if stale >= config.patience:
                    break
    model.load_state_dict(best_state)
    model.to("cpu").eval()  # saved and scored from the CPU; a re-ranker moves it to its device
    if out_dir is not None:
        result.model_dir = _save(model, out_dir, config, amp, result, feature_settings)
    return result


def _train_epoch(model: GNNScorer, graphs: Sequence[QueryGraph], opt: torch.optim.Optimizer,
                 amp: AmpTrainer, loss_name: str) -> float:
    """One optimisation step a query graph, in the given order; the mean training loss."""
    model.train()
    total = 0.0
    for g in graphs:
        with amp.autocast():
            scores = model(g.x, g.edge_index, g.edge_attr, g.y)
        loss = ranking_loss(loss_name, scores.float(), g.labels)  # type: ignore[arg-type]
        if loss.requires_grad:
            amp.step(loss, opt)
        else:
            opt.zero_grad()
        total += loss.item()
    return total / len(graphs)


def _save(model: GNNScorer, out_dir: str | Path, config: TrainConfig, amp: AmpTrainer,
          result: TrainResult, feature_settings: dict[str, Any] | None) -> str:
    """Save the model with its feature settings and how it was trained; its directory."""
    extra = dict(feature_settings or {})
    extra["training"] = asdict(config) | {"device": amp.record(),
                                          "best_epoch": result.best_epoch,
                                          "best_dev_ndcg": result.best_dev}
    return str(save_model(model, out_dir, extra))


def graphs_to(graphs: Sequence[QueryGraph], device: str) -> list[QueryGraph]:
    """The graphs with their tensors on ``device`` (the same objects on the CPU)."""
    if device == "cpu":
        return list(graphs)
    return [dataclasses.replace(g, **{f: getattr(g, f).to(device) for f in _TENSORS
                                      if getattr(g, f) is not None}) for g in graphs]


_TENSORS = ("x", "y", "edge_index", "edge_attr", "first_stage", "labels")


def _progress(enabled: bool, total: int) -> tuple[Any, Any]:
    if not enabled:
        return None, None
    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        console=Console(stderr=True),
        transient=False,
    )
    bar.start()
    return bar, bar.add_task("training", total=total)
