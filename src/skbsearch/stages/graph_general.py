"""The graph stage (``graph``; ``kg`` is its old name): graph-aware retrieval for any SKB.

It links query mentions to nodes of every type, follows metapaths learned by ``fit``
from judged queries (or, untrained, chosen from the schema's relation and type names) and
combines relational evidence with the text of each candidate's document and attribute
bounds (see :mod:`skbsearch.retrieve.graph.retriever`)::

    p = pipeline("graph", kb)
    fit(p, train_queries, train_qrels)     # learns metapaths, target types, aliases, weights
    p.save_model("kg-model/")              # later: pipeline("graph(model='kg-model/')", kb)

It is the only graph retriever (the catalogue-only first version was retired into it), and
``skb bench metaqa`` runs it: what MetaQA's relation-path pipeline did better, backing off
when a question's path reaches nothing, is its ``backoff`` parameter (learned by ``fit``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skbsearch.core.errors import InputError
from skbsearch.core.registry import register_stage
from skbsearch.core.stage import SpecStage
from skbsearch.core.types import Qrels, Query, Run
from skbsearch.index.names import load_or_build_name_index
from skbsearch.retrieve.graph.answer_types import AnswerTypes
from skbsearch.retrieve.graph.exact_linker import EntityLinker
from skbsearch.retrieve.graph.fit import fit_kg_model
from skbsearch.retrieve.graph.linking import NameLinker
from skbsearch.retrieve.graph.metapaths import TypeGraph
from skbsearch.retrieve.graph.model import FORMAT, KGModel
from skbsearch.retrieve.graph.retriever import SKBGraphRetriever
from skbsearch.stages.context import StageContext

_WEIGHTS = ("w_rel", "w_text", "w_attr", "w_type")


@register_stage
class KGStage(SpecStage):
    """General graph-aware retrieval on any SKB: linked anchors, learned metapaths, text, bounds."""

    name = "graph"
    aliases = ("kg",)  # the name of old result files and fitted-model caches
    trainable = True
    #: the saved model's format (caches of fitted models key on it)
    model_format = FORMAT

    @dataclass
    class Params:
        k: int = 100
        target: tuple[str, ...] = field(default=(), metadata={
            "help": "node types that can be answers (default: learned, else from the schema)"})
        model: str | None = field(default=None, metadata={"help": "a fitted model directory"})
        n_text: int = field(default=200, metadata={"help": "text candidates per query"})
        n_anchor: int = field(default=30, metadata={"help": "name matches looked at per query"})
        n_graph: int = field(default=1000, metadata={"help": "graph-reached candidates per query"})
        max_hops: int = field(default=3, metadata={"help": "most hops of a learned relation chain"})
        top_paths: int = field(default=3, metadata={"help": "relation chains followed per linked anchor"})
        backoff: int = field(default=3, metadata={
            "help": "when no chain reaches anything: follow those that answered instead in training, "
                    "then up to this many next chains per anchor (0: off)"})
        w_rel: float | None = field(default=None, metadata={"help": "relational weight (default: fitted)"})
        w_text: float | None = None
        w_attr: float | None = None
        w_type: float | None = None

        def check(self) -> None:
            for name in ("k", "n_text", "n_anchor", "n_graph", "top_paths", "backoff"):
                if getattr(self, name) < 0:
                    raise InputError(f"{name} must be >= 0", field=name)
            if not 1 <= self.max_hops <= 4:
                raise InputError("max_hops must be between 1 and 4", field="max_hops")

    def build(self, context: StageContext) -> Any:
        p = self.params
        kb = context.kb
        names = context.shared("name-index", lambda: load_or_build_name_index(kb, notify=context.notify))
        tg = context.shared("type-graph", lambda: TypeGraph(kb))
        exact = context.shared("entity-linker", lambda: EntityLinker(kb))
        answer_types = context.shared("answer-types", lambda: AnswerTypes(kb))
        model = KGModel.load(context.resolve_path(p.model)) if p.model else None
        r = SKBGraphRetriever(kb, context.index("bm25"), names, type_graph=tg, target=p.target, k=p.k,
                              n_text=p.n_text, n_graph=p.n_graph, max_hops=p.max_hops,
                              top_paths=p.top_paths, backoff=p.backoff,
                              linker=NameLinker(kb, names, exact=exact, n_fuzzy=p.n_anchor),
                              answer_types=answer_types)
        r.set_model(self._override(model))
        return r

    def _override(self, model: KGModel | None) -> KGModel | None:
        over = {w[2:]: getattr(self.params, w) for w in _WEIGHTS if getattr(self.params, w) is not None}
        if not over:
            return model
        model = model or KGModel(answer_types=[])
        model.weights = {**model.weights, **over}
        return model

    def fit(self, queries: Sequence[Query], qrels: Qrels, run: Run | None = None) -> SpecStage:
        """Learn metapaths, target types and evidence weights from judged queries."""
        inner = self.inner
        model = fit_kg_model(inner, list(queries), qrels)
        inner.set_model(self._override(model))
        return self

    @property
    def fitted(self) -> KGModel | None:
        """The model in use (fitted or loaded), if any."""
        return self.inner.model if self._built is not None else None

    def save_model(self, path: str | Path) -> Path:
        """Save the fitted model; the stage's spec then names it (``graph(model='PATH')``)."""
        model = self.inner.model
        if model is None:
            raise InputError("nothing to save: fit the stage first (skbsearch.stages.fit)", field="model")
        out = model.save(path)
        self.params.model = str(path)
        return out
