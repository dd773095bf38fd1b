"""Trainable re-rankers as registered stages: G-RAG rows (``gnn-row``) and a cross-encoder
fine-tuned on judged queries (``cross-encoder-ft``).

Both learn from ``fit(queries, qrels, run)`` (PyTerrier's estimator idea): every call
trains a fresh model on the given judged queries and their candidates in ``run``, so a
cross-validation protocol (:func:`skbsearch.eval.cv.cross_validate`) fits them on the
training folds and scores the held-out fold. The training loops are layer L3
(:mod:`skbsearch.train.fitters`): each stage names its loop by import path (``fitter``) and
loads it on the first ``fit``, so ``fit`` works after any import and this layer never
imports the one above it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from skbsearch.core.devices import resolve
from skbsearch.core.errors import InputError
from skbsearch.core.operators import load_object
from skbsearch.core.paths import cache_root
from skbsearch.core.registry import register_stage
from skbsearch.core.stage import SpecStage, check_device_params, device_param, precision_param
from skbsearch.core.types import Qrels, Query, Run
from skbsearch.rerank.cross_encoder import CrossEncoderReranker
from skbsearch.rerank.gnn_features import (
    GNN_ROWS,
    GNNFeatures,
    build_graphs,
    row_name,
    with_first_stage_weight,
)
from skbsearch.stages.context import StageContext

#: :data:`GNN_ROWS` keys -> the row names a ``gnn-row`` prints (the paper's).
_ROW_NAMES = {"mlp": "mlp", "gcn": "gcn", "gnn": "grag", "gnn-rl": "grag-rl"}

#: ``fitter(stage, queries, qrels, run) -> (model, info)``: a trainable stage's training loop.
Fitter = Callable[[SpecStage, list[Query], Qrels, Run | None], tuple[Any, dict[str, Any]]]


class _TrainedStage(SpecStage):
    """Shared part: a model set by :meth:`fit` (or loaded), fit counting and fit records."""

    category = "reranker"
    trainable = True
    #: The training loop, ``"module:function"`` (a :data:`Fitter` of layer L3).
    fitter: str = ""

    def __init__(self, context: StageContext | None = None, **params: Any) -> None:
        super().__init__(context, **params)
        self.model: Any = None
        self.fits = 0
        self.last_fit: dict[str, Any] = {}

    def fit(self, queries: Sequence[Query], qrels: Qrels, run: Run | None = None) -> SpecStage:
        """Train a fresh model on the judged ``queries`` and their candidates in ``run``."""
        self.require_context()
        train: Fitter = load_object(self.fitter)
        self.model, self.last_fit = train(self, list(queries), qrels, run)
        self.fits += 1
        self._built = None
        return self


@register_stage
class GNNRowStage(_TrainedStage):
    """A G-RAG row (mlp, gcn, grag, grag-rl) over the candidates' document graph; fit trains it."""

    name = "gnn-row"
    aliases = ("grag-row",)
    fitter = "skbsearch.train.fitters:fit_gnn_row"

    @dataclass
    class Params:
        row: str = field(default="grag-rl", metadata={
            "help": "mlp | gcn | grag | grag-rl (gnn, gnn-rl: the same rows)"})
        model: str | None = field(default=None, metadata={
            "help": "a saved model directory to score with (fit replaces it)"})
        use_paths: bool | None = field(default=None, metadata={
            "help": "path text in node features (default: the row's, on for grag/grag-rl)"})
        min_common: int = field(default=1, metadata={
            "help": "join documents sharing at least N concepts"})
        first_stage: float = field(default=0.0, metadata={
            "help": "weight of the z-scored first-stage score as a node feature"})
        select_first_stage: tuple[float, ...] = field(default=(), metadata={
            "help": "candidate first-stage weights, chosen per fit by dev nDCG@10"})
        per_text: bool = field(default=False, metadata={
            "help": "parse each question and document once (pair graphs composed)"})
        only_positive: bool = field(default=False, metadata={
            "help": "train only on queries with a relevant candidate"})
        epochs: int = 40
        patience: int = 8
        lr: float = 1e-3
        hidden: int = 64
        seed: int = 0
        save_dir: str | None = field(default=None, metadata={
            "help": "directory: write the model of the n-th fit to SAVE_DIR/fold<n>"})
        device: str | None = device_param()
        precision: str | None = precision_param()

        def check(self) -> None:
            check_device_params(self)
            self.row = _ROW_NAMES.get(row_name(self.row), self.row)
            if self.min_common < 1 or self.epochs < 1 or self.hidden < 1:
                raise InputError("min_common, epochs and hidden must be >= 1", field="gnn-row")

    def features(self) -> GNNFeatures:
        """The feature settings of this row (the row's default path text unless given)."""
        p = self.params
        weight = p.first_stage or (max(p.select_first_stage, key=abs) or 1.0
                                   if p.select_first_stage else 0.0)
        paths = GNN_ROWS[row_name(p.row)][2] if p.use_paths is None else p.use_paths
        return GNNFeatures(use_paths=paths, min_common_nodes=p.min_common,
                           first_stage_weight=weight, per_text=p.per_text)

    def build(self, context: StageContext) -> Any:
        if self.model is None and self.params.model is not None:
            from skbsearch.rerank.gnn_models import load_model  # torch ([gnn] extra)

            self.model, extra = load_model(context.resolve_path(self.params.model))
            self.last_fit = {"first_stage_weight": float(extra.get("first_stage_weight", 0.0))}
            return _GraphScorer(self, GNNFeatures.from_settings(extra), context)
        if self.model is None:
            raise InputError(f"{self!r} has no model: fit it (a benchmark's --cv-folds K "
                             "trains it per fold) or give model=DIR from 'skb train gnn-reranker'",
                             field="model")
        return _GraphScorer(self, self.features(), context)


class _GraphScorer:
    """Scores a run's candidates with the stage's current model (features as trained)."""

    def __init__(self, stage: GNNRowStage, features: GNNFeatures, context: StageContext) -> None:
        self.stage, self.features, self.context = stage, features, context

    def __call__(self, queries: Sequence[Query], run: Run | None = None) -> Run:
        from skbsearch.rerank.gnn import graphs_to_run, score_graphs  # torch ([gnn] extra)

        if run is None:
            raise InputError("gnn-row re-ranks a run: put a retriever before it", field="pipeline")
        queries = [q for q in queries if run.get(q.id)]
        graphs = build_graphs(queries, run, self.context.doc_text, self.features,
                              cache_dir=cache_root(), progress=getattr(self.context, "progress", None))
        weight = self.stage.last_fit.get("first_stage_weight")
        if self.stage.params.select_first_stage and weight is not None:
            graphs = [with_first_stage_weight(g, weight) for g in graphs]
        p = self.stage.params
        spec = resolve(p.device, p.precision)
        model = self.stage.model.to(spec.device)
        out = graphs_to_run(graphs, score_graphs(model, graphs, spec), name=p.row)
        for q in queries:
            out.setdefault(q.id, {})
        return out


@register_stage
class FineTunedCrossEncoderStage(_TrainedStage):
    """A cross-encoder fine-tuned by fit on judged queries (from MiniLM or a trained model)."""

    name = "cross-encoder-ft"
    aliases = ("ce-ft",)
    fitter = "skbsearch.train.fitters:fit_cross_encoder"

    @dataclass
    class Params:
        start: str = field(default="minilm", metadata={
            "help": "start weights: minilm or a 'skb train cross-encoder' directory"})
        steps: int | None = field(default=None, metadata={"help": "training steps per fit"})
        epochs: int = 1
        lr: float = 5e-5
        batch_size: int = field(default=16, metadata={"help": "training pairs per step"})
        max_length: int | None = field(default=None, metadata={
            "help": "tokens per pair (default: the start model's, 256 for minilm)"})
        time_budget: float | None = field(default=None, metadata={"help": "seconds per fit"})
        threads: int | None = field(default=None, metadata={"help": "torch threads while training"})
        seed: int = field(default=0, metadata={
            "help": "training seed; the n-th fit's new head is seeded n"})
        negatives: str = field(default="judged", metadata={
            "help": "judged (graded passages only) | run (also unjudged candidates, grade 0) | "
                    "unjudged (also unjudged candidates, ungraded: distillation only; needs teacher)"})
        teacher: str | None = field(default=None, metadata={
            "help": "distil from this bi-encoder's cosines (minilm) on every training pair"})
        max_grade: int = field(default=0, metadata={"help": "label = grade / max_grade (0: from qrels)"})
        train_data: tuple[str, ...] = field(default=(), metadata={
            "help": "extra judged data added to every fit (nq:FILE, trecdl:DIR/dl19)"})
        top_k: int = 100
        score_batch_size: int = 32
        save_dir: str | None = field(default=None, metadata={
            "help": "directory: write the model of the n-th fit to SAVE_DIR/fold<n>"})
        device: str | None = device_param()
        precision: str | None = precision_param()

        def check(self) -> None:
            check_device_params(self)
            if self.negatives not in ("judged", "run", "unjudged"):
                raise InputError("negatives must be judged, run or unjudged", field="negatives")
            if self.negatives == "unjudged" and not self.teacher:
                raise InputError("negatives=unjudged trains by distillation: give teacher=minilm",
                                 field="teacher")
            if self.top_k < 1:
                raise InputError("top_k must be >= 1", field="top_k")

    def build(self, context: StageContext) -> Any:
        if self.model is None:
            raise InputError(f"{self!r} has no model: fit it (a benchmark's --cv-folds K "
                             "trains it per fold), or score a trained one with cross-encoder(model=DIR)",
                             field="model")
        return CrossEncoderReranker(self.model, context.doc_text, top_k=self.params.top_k,
                                    batch_size=self.params.score_batch_size,
                                    progress=getattr(context, "progress", None),
                                    label=f"cross-encoder scoring (fit {self.fits})")
