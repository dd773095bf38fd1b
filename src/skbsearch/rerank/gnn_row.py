"""G-RAG rows as a trainable re-ranker (``gnn-row``): mlp, gcn, grag, grag-rl over the
incoming candidates' document graph.

Each ``fit`` trains a fresh row with :func:`skbsearch.train.fitters.fit_gnn_row` (layer L3,
named by import path); ``model=DIR`` scores with a saved one. torch and torch-geometric
(the ``[gnn]`` extra) load only when it is built or runs, so registering it needs neither.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from skbsearch.core.devices import resolve
from skbsearch.core.errors import InputError
from skbsearch.core.paths import cache_root
from skbsearch.core.registry import register_stage
from skbsearch.core.stage import (
    Context,
    FittedStage,
    device_param,
    precision_param,
    save_dir_param,
)
from skbsearch.core.types import Query, Run
from skbsearch.rerank.gnn_features import (
    GNN_ROWS,
    GNNFeatures,
    build_graphs,
    row_name,
    with_first_stage_weight,
)

#: :data:`GNN_ROWS` keys -> the row names a ``gnn-row`` prints (the paper's).
_ROW_NAMES = {"mlp": "mlp", "gcn": "gcn", "gnn": "grag", "gnn-rl": "grag-rl"}


@register_stage
class GNNRowReranker(FittedStage):
    """A G-RAG row (mlp, gcn, grag, grag-rl) over the candidates' document graph; fit trains it."""

    name = "gnn-row"
    aliases = ("grag-row",)
    category = "reranker"
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
        save_dir: str | None = save_dir_param()
        device: str | None = device_param()
        precision: str | None = precision_param()

        def check(self) -> None:
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

    def build(self, context: Context) -> Any:
        """Take a saved model (``model``) unless fitted; score with its features as trained."""
        if self.model is None and self.params.model is not None:
            from skbsearch.rerank.gnn_models import load_model  # torch ([gnn] extra)

            self.model, extra = load_model(context.resolve_path(self.params.model))
            self.last_fit = {"first_stage_weight": float(extra.get("first_stage_weight", 0.0))}
            self.scoring = GNNFeatures.from_settings(extra)
            return self
        if self.model is None:
            raise InputError(f"{self!r} has no model: fit it (a benchmark's --cv-folds K "
                             "trains it per fold) or give model=DIR from 'skb train gnn-reranker'",
                             field="model")
        self.scoring = self.features()
        return self

    def __call__(self, queries: Sequence[Query], run: Run | None = None) -> Run:
        """Score a run's candidates with the current model (features as trained)."""
        from skbsearch.rerank.gnn import graphs_to_run, score_graphs  # torch ([gnn] extra)

        if run is None:
            raise InputError("gnn-row re-ranks a run: put a retriever before it", field="pipeline")
        ready = self.inner
        context = self.require_context()
        queries = [q for q in queries if run.get(q.id)]
        graphs = build_graphs(queries, run, context.doc_text, ready.scoring,
                              cache_dir=cache_root(), progress=getattr(context, "progress", None))
        weight = self.last_fit.get("first_stage_weight")
        if self.params.select_first_stage and weight is not None:
            graphs = [with_first_stage_weight(g, weight) for g in graphs]
        p = self.params
        spec = resolve(p.device, p.precision)
        model = self.model.to(spec.device)
        out = graphs_to_run(graphs, score_graphs(model, graphs, spec), name=p.row)
        for q in queries:
            out.setdefault(q.id, {})
        return out
