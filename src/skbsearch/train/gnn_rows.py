"""G-RAG rows: training a row's model on labelled query graphs (features:
:mod:`skbsearch.rerank.gnn_features`).

Rows (the G-RAG paper's Table 1, :data:`GNN_ROWS`): ``mlp``, ``gcn``, ``grag`` (``gnn``)
and ``grag-rl`` (``gnn-rl``). :class:`GNNRowConfig` is a row's model, loss, features and
optimisation; :func:`fit_row` trains a fresh model on labelled graphs (a seeded
``dev_fraction`` held back for early stopping), choosing the first-stage feature weight
by dev nDCG@10 when several are given. Cross-validation is the benchmarks' protocol
(:func:`skbsearch.eval.cv.cross_validate` fitting the ``gnn-row`` stage per fold).
Extra feature options (not in the paper): ``min_common_nodes`` (sparser document graphs)
and ``first_stage_weight`` (the query's z-scored first-stage score as an extra node
feature; the question vector gets that weight in the extra dimension, so the untrained
model ranks by ``cos(q, d) + w·z(bm25)`` and training learns corrections).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skbsearch.core.errors import InputError
from skbsearch.rerank.gnn_features import (  # noqa: F401 - re-exported (skb train gnn-reranker)
    GNN_ROWS,
    GNNFeatures,
    build_graphs,
    row_name,
    with_first_stage_weight,
)

# rerank.gnn_models and train.gnn import torch at module level: they are imported inside
# the functions that need them, so this module loads without the [gnn] extra.


@dataclass
class GNNRowConfig:
    """A CV row: model kind, loss, features and optimisation (defaults: small data)."""

    kind: str = "grag"
    loss: str = "pairwise"
    features: GNNFeatures = field(default_factory=GNNFeatures)
    hidden_dim: int = 64
    dropout: float = 0.1
    lr: float = 1e-3
    epochs: int = 40
    patience: int = 8
    dev_fraction: float = 0.15
    seed: int = 0
    #: candidate first-stage weights, chosen per fold by dev nDCG@10 (training folds only)
    select_first_stage: tuple[float, ...] = ()
    #: where it trains (:func:`skbsearch.core.devices.resolve`; ``None``: the default)
    device: str | None = None
    precision: str | None = None


def split_dev(ids: Sequence[str], fraction: float, seed: int = 0) -> tuple[list[str], list[str]]:
    """``(train, dev)`` query ids: a seeded ``fraction`` (at least one) held back as dev."""
    ids = sorted(ids)
    if len(ids) < 2:
        raise InputError("training needs at least two labelled queries (train + dev)",
                         field="queries")
    random.Random(seed).shuffle(ids)
    n_dev = min(len(ids) - 1, max(1, math.ceil(fraction * len(ids))))
    return ids[n_dev:], ids[:n_dev]


def train_row_model(graphs: Sequence[Any], row: GNNRowConfig, *, out_dir: str | Path | None = None,
                    threads: int | None = 1, progress: bool = False) -> tuple[Any, Any]:
    """Train a fresh scorer for ``row`` on labelled graphs (seeded dev split): ``(model, result)``."""
    import torch

    from skbsearch.rerank.gnn_models import GNNConfig, GNNScorer
    from skbsearch.train.gnn import TrainConfig, train_gnn

    by_id = {g.query_id: g for g in graphs}
    train_ids, dev_ids = split_dev(list(by_id), row.dev_fraction, row.seed)
    torch.manual_seed(row.seed)
    model = GNNScorer(GNNConfig(kind=row.kind, in_dim=int(graphs[0].x.shape[1]),
                                hidden_dim=row.hidden_dim, dropout=row.dropout))
    config = TrainConfig(loss=row.loss, epochs=row.epochs, lr=row.lr, patience=row.patience,
                         seed=row.seed, num_threads=threads, device=row.device,
                         precision=row.precision)
    result = train_gnn(model, [by_id[i] for i in train_ids], [by_id[i] for i in dev_ids], config,
                       out_dir=out_dir, feature_settings=row.features.settings(),
                       progress=progress)
    return model, result


def fit_row(graphs: Sequence[Any], row: GNNRowConfig, *, out_dir: str | Path | None = None,
            only_positive: bool = False) -> tuple[Any, dict[str, Any]]:
    """Train a fresh model for ``row`` on labelled graphs: ``(model, info)``.

    With ``row.select_first_stage``, one model per candidate weight is trained and the one
    with the best dev nDCG@10 kept (its weight in ``info["first_stage_weight"]``).
    ``only_positive``: train only on graphs with a relevant candidate (the others carry no
    signal). ``out_dir``: where the chosen model is saved (with its feature settings).
    """
    t = time.perf_counter()
    train = [g for g in graphs if not (only_positive and not bool((g.labels > 0).any()))]
    weight, best = row.features.first_stage_weight, None
    for w in row.select_first_stage or (weight,):
        part = [with_first_stage_weight(g, w) for g in train] if row.select_first_stage else train
        cand = train_row_model(part, row, out_dir=None if row.select_first_stage else out_dir)
        if best is None or cand[1].best_dev > best[1].best_dev:
            best, weight = cand, w
    model, result = best  # type: ignore[misc]
    if row.select_first_stage and out_dir is not None:
        from skbsearch.rerank.gnn_models import save_model

        save_model(model, out_dir, {**row.features.settings(), "first_stage_weight": weight,
                                    "training": {"best_epoch": result.best_epoch,
                                                 "best_dev_ndcg": result.best_dev}})
    info = {"best_epoch": result.best_epoch, "dev_ndcg@10": round(result.best_dev, 4),
            "epochs_run": len(result.history) - 1, "train_s": round(time.perf_counter() - t, 1),
            "trained_on": len(train), "first_stage_weight": weight}
    return model, info
