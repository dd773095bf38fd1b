"""G-RAG rows of the TREC DL harness: graph features, k-fold CV training, scoring.

Rows (the G-RAG paper's Table 1): ``mlp`` (no graph, CE loss), ``gcn`` (CE loss),
``gnn`` = G-RAG (the paper's layer, CE loss) and ``gnn-rl`` = G-RAG-RL (pairwise loss).
The paper's G-RAG and G-RAG-RL encode document ⊕ AMR path text; MLP and GCN encode the
document only. Extra feature options (not in the paper): ``min_common_nodes`` (sparser
document graphs) and ``first_stage_weight`` (the query's z-scored first-stage score as an
extra node feature; the question vector gets that weight in the extra dimension, so the
untrained model ranks by ``cos(q, d) + w·z(bm25)`` and training learns corrections).

With ``folds`` (:func:`kfold_gnn`), the queries are split into query-level folds; per
fold a fresh model is trained on the other folds (a seeded ``dev_fraction`` of them held
back for early stopping) and scores the held-out fold only. Features are built once for
all queries (parses and embeddings cached under :func:`skbsearch.paths.cache_root`).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from skbsearch.errors import InputError
from skbsearch.eval.latency import LatencyRecorder
from skbsearch.semgraph.depparse import DEFAULT_SPACY_MODEL
from skbsearch.types import Qrels, Query, Run

Progress = Callable[[str, int, int], None]

#: Harness row name -> (model kind, loss, path text in node features), as in the paper.
GNN_ROWS: dict[str, tuple[str, str, bool]] = {
    "mlp": ("mlp", "ce", False),
    "gcn": ("gcn", "ce", False),
    "gnn": ("grag", "ce", True),
    "gnn-rl": ("grag", "pairwise", True),
}


@dataclass
class GNNFeatures:
    """How node features and document graphs are built (saved with a trained model)."""

    encoder: str = "minilm"
    use_paths: bool = False
    labelled_edges: bool = True
    min_common_nodes: int = 1
    first_stage_weight: float = 0.0
    spacy_model: str = DEFAULT_SPACY_MODEL
    #: parse each question and document once and compose pair graphs (DependencyParser)
    per_text: bool = False

    @classmethod
    def from_settings(cls, extra: dict[str, Any]) -> GNNFeatures:
        """Settings saved with a model (``extra`` of :func:`load_model`) -> features."""
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in extra.items() if k in known})

    def settings(self) -> dict[str, Any]:
        """The dict saved beside the model weights."""
        return asdict(self)


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

    @classmethod
    def for_row(cls, row: str, **overrides: Any) -> GNNRowConfig:
        """The paper's setting of ``row`` (see :data:`GNN_ROWS`), with ``overrides``.

        ``use_paths``, ``min_common_nodes``, ``first_stage_weight`` and ``per_text`` go to
        the features.
        """
        if row not in GNN_ROWS:
            raise InputError(f"unknown GNN row {row!r}; use one of {', '.join(GNN_ROWS)}",
                             field="reranker")
        kind, loss, paths = GNN_ROWS[row]
        feats = {k: overrides.pop(k) for k in ("use_paths", "min_common_nodes",
                                                "first_stage_weight", "per_text") if k in overrides}
        feats = {k: v for k, v in feats.items() if v is not None}
        overrides = {k: v for k, v in overrides.items() if v is not None}
        select = tuple(overrides.get("select_first_stage") or ())
        if select:  # the feature column must exist; its weight is chosen per fold
            overrides["select_first_stage"] = select
            feats["first_stage_weight"] = feats.get("first_stage_weight") or max(
                select, key=abs) or 1.0
        return cls(kind=kind, loss=loss, features=GNNFeatures(**{"use_paths": paths, **feats}),
                   **overrides)


def build_graphs(queries: Sequence[Query], run: Run, doc_text: dict[str, str] | Callable[[str], str],
                 features: GNNFeatures, *, qrels: Qrels | None = None,
                 cache_dir: str | Path | None = None, chunk: int = 5,
                 progress: Progress | None = None,
                 timings: dict[str, float] | None = None) -> list[Any]:
    """:class:`~skbsearch.rerank.gnn.QueryGraph` inputs of ``queries`` (run order, all candidates).

    ``cache_dir`` is the cache root (default :func:`skbsearch.paths.cache_root`): parses go
    to ``semgraphs/``, embeddings to ``embeddings/``. ``timings`` receives the seconds spent
    per query id (its chunk's time split evenly).
    """

    from skbsearch.paths import cache_root
    from skbsearch.rerank.gnn import GraphFeaturizer, resolve_doc_text
    from skbsearch.semgraph.depparse import DependencyParser

    root = Path(cache_dir) if cache_dir is not None else cache_root()
    parser = DependencyParser(features.spacy_model, cache_dir=root / "semgraphs",
                              per_text=features.per_text)
    fz = GraphFeaturizer(features.encoder, parser, use_paths=features.use_paths,
                         labelled_edges=features.labelled_edges,
                         min_common_nodes=features.min_common_nodes,
                         first_stage_weight=features.first_stage_weight,
                         embedding_cache=root / "embeddings", progress=False)
    text_of = resolve_doc_text(doc_text)
    out: list[Any] = []
    queries = list(queries)
    if timings is not None:  # load the models first: one-off costs are not per-query latency
        _ = fz.encoder, parser.nlp
    for s in range(0, len(queries), chunk):
        part = queries[s:s + chunk]
        t = time.perf_counter()
        graphs = fz.featurize(part, run, text_of, qrels=qrels)
        if timings is not None:
            per = (time.perf_counter() - t) / max(1, len(part))
            timings.update({q.id: per for q in part})
        out.extend(graphs)
        if progress is not None:
            progress("gnn features", min(s + chunk, len(queries)), len(queries))
    return out


def with_first_stage_weight(graph: Any, weight: float) -> Any:
    """``graph`` with the question's first-stage entry (its last) set to ``weight``.

    Only for graphs built with a first-stage feature (``first_stage_weight != 0``).
    """
    import dataclasses

    y = graph.y.clone()
    y[-1] = weight
    return dataclasses.replace(graph, y=y)


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
                         seed=row.seed, num_threads=threads)
    result = train_gnn(model, [by_id[i] for i in train_ids], [by_id[i] for i in dev_ids], config,
                       out_dir=out_dir, feature_settings=row.features.settings(),
                       progress=progress)
    return model, result


def kfold_gnn(queries: Sequence[Query], run: Run, doc_text: dict[str, str], qrels: Qrels,
              row: GNNRowConfig, *, folds: int, name: str = "gnn",
              cache_dir: str | Path | None = None, save_dir: str | Path | None = None,
              recorder: LatencyRecorder | None = None,
              progress: Progress | None = None,
              fold_ids: Sequence[Sequence[str]] | None = None,
              train_needs_positive: bool = False) -> tuple[Run, list[dict[str, Any]]]:
    """Cross-validated GNN run over ``queries`` (module docstring) and per-fold training info.

    Latency per query = its feature building (parses/embeddings from the cache when warm)
    plus the model's scoring time. ``fold_ids``: the query folds to use (a partition of
    the query ids; default :func:`~skbsearch.benchmarks.trecdl.folds_of`).
    ``train_needs_positive``: train (and early-stop) only on training-fold queries with a
    relevant candidate (the others carry no signal); every held-out query is still scored.
    """
    from skbsearch.benchmarks.trecdl import folds_of
    from skbsearch.rerank.gnn import graphs_to_run, score_graphs

    timings: dict[str, float] = {}
    graphs = build_graphs(queries, run, doc_text, row.features, qrels=qrels, cache_dir=cache_dir,
                          progress=progress, timings=timings)
    by_id = {g.query_id: g for g in graphs}
    stitched, info = Run(name=f"{name}-cv"), []
    fold_lists = [list(f) for f in fold_ids] if fold_ids is not None else folds_of(list(by_id), folds)
    for i, fold in enumerate(fold_lists):
        held = set(fold)
        if progress is not None:
            progress(f"fold {i + 1}/{folds} training", i, folds)
        t = time.perf_counter()
        out_dir = Path(save_dir) / f"fold{i + 1}" if save_dir else None
        weight, best = row.features.first_stage_weight, None
        for w in row.select_first_stage or (weight,):
            train_graphs = [g for g in graphs if g.query_id not in held
                            and not (train_needs_positive and not bool((g.labels > 0).any()))]
            if row.select_first_stage:
                train_graphs = [with_first_stage_weight(g, w) for g in train_graphs]
            cand = train_row_model(train_graphs, row,
                                   out_dir=None if row.select_first_stage else out_dir)
            if best is None or cand[1].best_dev > best[1].best_dev:
                best, weight = cand, w
        model, result = best  # type: ignore[misc]
        train_s = time.perf_counter() - t
        test = [by_id[q] for q in fold]
        if row.select_first_stage:
            test = [with_first_stage_weight(g, weight) for g in test]
            if out_dir is not None:
                from skbsearch.rerank.gnn_models import save_model

                save_model(model, out_dir, {**row.features.settings(), "first_stage_weight": weight,
                                            "training": {"best_epoch": result.best_epoch,
                                                         "best_dev_ndcg": result.best_dev}})
        t = time.perf_counter()
        scores = score_graphs(model, test)
        score_ms = (time.perf_counter() - t) * 1000 / max(1, len(test))
        if recorder is not None:
            for g in test:
                recorder.record(name, timings.get(g.query_id, 0.0) * 1000 + score_ms, 1)
        stitched.update(graphs_to_run(test, scores, name=name))
        info.append({"fold": i + 1, "held_out": len(test), "best_epoch": result.best_epoch,
                     "dev_ndcg@10": round(result.best_dev, 4),
                     "epochs_run": len(result.history) - 1, "train_s": round(train_s, 1),
                     **({"trained_on": len(train_graphs)} if train_needs_positive else {}),
                     **({"first_stage_weight": weight} if row.select_first_stage else {})})
        if progress is not None:
            progress(f"fold {i + 1}/{folds} training", i + 1, folds)
    return stitched, info


def score_with_model(directory: str | Path, queries: Sequence[Query], run: Run,
                     doc_text: dict[str, str], *, name: str = "gnn",
                     cache_dir: str | Path | None = None, recorder: LatencyRecorder | None = None,
                     progress: Progress | None = None) -> Run:
    """Re-score ``run`` with a saved model, building its features as it was trained."""
    from skbsearch.rerank.gnn import graphs_to_run, score_graphs
    from skbsearch.rerank.gnn_models import load_model

    model, extra = load_model(directory)
    features = GNNFeatures.from_settings(extra)
    timings: dict[str, float] = {}
    graphs = build_graphs([q for q in queries if run.get(q.id)], run, doc_text, features,
                          cache_dir=cache_dir, chunk=1, progress=progress, timings=timings)
    out = Run(name=name)
    for g in graphs:
        t = time.perf_counter()
        out.update(graphs_to_run([g], score_graphs(model, [g]), name=name))
        if recorder is not None:
            ms = (time.perf_counter() - t + timings.get(g.query_id, 0.0)) * 1000
            recorder.record(name, ms, 1)
    return out
