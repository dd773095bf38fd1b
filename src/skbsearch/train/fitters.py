"""The training loops behind the trainable stages' ``fit``.

The trainable stages (layer L2: :mod:`skbsearch.rerank.gnn_row`,
:mod:`skbsearch.rerank.cross_encoder_ft`) each name their function here by import path (the
stage's ``fitter``) and load it on the first ``fit``, so layer L2 never imports this one:

* ``gnn-row``: build the labelled document graphs of the judged queries' candidates and
  train a fresh row model (:func:`skbsearch.train.gnn_rows.fit_row`);
* ``cross-encoder-ft``: judged (query, passage, grade) groups from the qrels (plus, with
  ``negatives=run``, the unjudged candidates as grade 0, with ``negatives=unjudged`` as
  ungraded passages, and any ``train_data``), with ``teacher`` the bi-encoder's scores on
  all of them (distillation), then fine-tune the start weights
  (:func:`skbsearch.train.cross_encoder.train_cross_encoder`); the n-th fit's new head is
  seeded n.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from skbsearch.core.errors import InputError
from skbsearch.core.paths import cache_root
from skbsearch.core.stage import SpecStage
from skbsearch.core.types import Qrels, Query, Run
from skbsearch.rerank.cross_encoder import CrossEncoderModel
from skbsearch.rerank.gnn_features import GNN_ROWS, build_graphs, row_name
from skbsearch.train.cross_encoder import (
    JudgedQuery,
    TrainConfig,
    add_teacher_scores,
    load_data_spec,
    train_cross_encoder,
)
from skbsearch.train.gnn_rows import GNNRowConfig, fit_row


def _save_dir(stage: Any) -> Path | None:
    """``SAVE_DIR/fold<n>`` of the stage's next fit (``None`` when not saving)."""
    d = stage.params.save_dir
    return Path(d).expanduser() / f"fold{stage.fits + 1}" if d else None


def _progress(stage: SpecStage) -> Any:
    return getattr(stage.require_context(), "progress", None)


def fit_gnn_row(stage: Any, queries: list[Query], qrels: Qrels,
                run: Run | None) -> tuple[Any, dict[str, Any]]:
    """Train a fresh ``gnn-row`` model on the judged queries' candidates in ``run``."""
    if run is None:
        raise InputError("gnn-row learns from a run of candidates: put a retriever before it",
                         field="pipeline")
    p = stage.params
    kind, loss, _ = GNN_ROWS[row_name(p.row)]
    row = GNNRowConfig(kind=kind, loss=loss, features=stage.features(), hidden_dim=p.hidden,
                       lr=p.lr, epochs=p.epochs, patience=p.patience, seed=p.seed,
                       select_first_stage=tuple(p.select_first_stage), device=p.device,
                       precision=p.precision)
    ctx = stage.require_context()
    judged = [q for q in queries if q.id in qrels and run.get(q.id)]
    graphs = build_graphs(judged, run, ctx.doc_text, row.features, qrels=qrels,
                          cache_dir=cache_root(), progress=_progress(stage))
    model, info = fit_row(graphs, row, out_dir=_save_dir(stage), only_positive=p.only_positive)
    return model, {**info, "row": asdict(row)}


def judged_queries(queries: list[Query], qrels: Qrels, run: Run | None, doc_text: Any,
                   has_doc: Any, *, negatives: str = "judged",
                   max_grade: int = 0) -> list[JudgedQuery]:
    """Training groups: each query's judged passages (and, with ``negatives="run"``, its
    unjudged candidates as grade 0; with ``negatives="unjudged"``, as ungraded passages),
    labels ``grade / max_grade``."""
    top = max_grade or max((g for q in queries for g in qrels.get(q.id, {}).values()),
                           default=1) or 1
    out = []
    for q in queries:
        grades = qrels.get(q.id, {})
        judged = [(doc_text(d), g) for d, g in grades.items() if has_doc(d)]
        rest = [doc_text(d) for d in (run or {}).get(q.id, {}) if d not in grades]
        if negatives == "run":
            judged += [(t, 0) for t in rest]
        if judged:
            out.append(JudgedQuery(q.id, q.text, judged, max_grade=top, source="qrels",
                                   unjudged=rest if negatives == "unjudged" else []))
    return out


def fit_cross_encoder(stage: Any, queries: list[Query], qrels: Qrels,
                      run: Run | None) -> tuple[Any, dict[str, Any]]:
    """Fine-tune ``start`` on the judged queries (see the module docstring)."""
    p = stage.params
    ctx = stage.require_context()
    train_q = judged_queries(queries, qrels, run, ctx.doc_text, ctx.kb.has_node,
                             negatives=p.negatives, max_grade=p.max_grade)
    train_q += [q for spec in p.train_data for q in load_data_spec(spec)]
    if p.teacher:
        from skbsearch.rerank.gnn_models import torch_threads

        with torch_threads(p.threads):
            add_teacher_scores(train_q, p.teacher)
    config = TrainConfig(epochs=p.epochs, max_steps=p.steps, batch_size=p.batch_size, lr=p.lr,
                         time_budget_s=p.time_budget, threads=p.threads, seed=p.seed,
                         device=p.device, precision=p.precision)
    model = CrossEncoderModel.start_from(p.start, max_length=p.max_length, seed=stage.fits)
    progress, n = _progress(stage), stage.fits + 1

    def tick(step: int, total: int, loss: float) -> None:
        if progress is not None:
            progress(f"cross-encoder fit {n} (loss {loss:.3f})", step, total)

    result = train_cross_encoder(model, train_q, config, out_dir=_save_dir(stage), progress=tick)
    tail = result.losses[-20:]
    return model, {"train_queries": len(train_q), "steps": result.steps,
                   "stopped_by": result.stopped_by, "train_s": round(result.seconds, 1),
                   "final_loss": round(float(np.mean(tail)), 4) if tail else None}
