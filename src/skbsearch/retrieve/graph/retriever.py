"""General graph-aware retrieval over any SKB: linked anchors, learned metapaths, text, bounds.

For a query, :class:`SKBGraphRetriever`

1. links mentions to nodes of every type (:class:`~skbsearch.retrieve.graph.linking.NameLinker`:
   brackets, exact names, fuzzy/BM25 name matches; ambiguous names keep all candidates);
2. predicts, per anchor ``a``, whether the answers hang off it, ``P(a)`` (its link
   confidence when untrained), and a distribution over metapaths ``P(m | q, a)`` (learned by
   :func:`~skbsearch.retrieve.graph.fit.fit_kg_model` from judged queries, or from the
   schema's relation and type names when untrained) and the answer type ``P(t | q)``;
3. scores every candidate ``c`` — the nodes the metapaths reach from the anchors plus the
   text retriever's top ``n_text`` of the target types — as::

       score(c) = w_rel  * sum_a sum_m P(a) * P(m | q, a) * [c reached from a by m]
                + w_text * BM25(q, doc(c)) / max_c' BM25(q, doc(c'))
                + w_attr * [c meets the query's attribute bounds]
                + w_type * P(type(c) | q)

   (plus a 1e-6 popularity tie-break). Candidates found only through the graph are
   scored like the others; walks never return to their anchor, and named anchors are not
   answers unless training showed they can be.

A fitted model ranks blended with the untrained stage at the strength its fit chose
(:mod:`~skbsearch.retrieve.graph.blend`; 0: the untrained stage alone).

This module is the stage (its spec, set-up, fit and saved model); what it builds and runs
is :class:`~skbsearch.retrieve.graph.work.GraphWork`, in parts: the plan
(:mod:`~skbsearch.retrieve.graph.planner`), then walk, score and combine
(:mod:`~skbsearch.retrieve.graph.work`).

:meth:`SKBGraphRetriever.explain` (:mod:`~skbsearch.retrieve.graph.evidence`) names the anchor, the metapath instance and the text
or bounds that made a node score.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skbsearch.core.errors import InputError
from skbsearch.core.registry import register_stage
from skbsearch.core.stage import Context, SpecStage
from skbsearch.core.types import Qrels, Query, Run, as_query
from skbsearch.index.names import load_or_build_name_index
from skbsearch.index.sparse import BM25Index
from skbsearch.kb.store import SKB
from skbsearch.retrieve.graph.answer_types import AnswerTypes
from skbsearch.retrieve.graph.blend import blend_summary
from skbsearch.retrieve.graph.evidence import explain_node
from skbsearch.retrieve.graph.exact_names import ExactNames
from skbsearch.retrieve.graph.fit import fit_kg_model
from skbsearch.retrieve.graph.linking import NameLinker
from skbsearch.retrieve.graph.metapaths import TypeGraph
from skbsearch.retrieve.graph.model import FORMAT, KGModel
from skbsearch.retrieve.graph.plan import GraphParams
from skbsearch.retrieve.graph.work import GraphWork

_WEIGHTS = ("w_rel", "w_text", "w_attr", "w_type")


@register_stage
class SKBGraphRetriever(SpecStage):
    """General graph-aware retrieval on any SKB: linked anchors, learned metapaths, text, bounds.

    One graph-aware retriever for any SKB (see the module docstring), built from a spec
    (``graph(k=10)``: the bound context's SKB, BM25 index and shared name index, type graph,
    linker and answer types) or over an SKB and indexes given directly; ``fit`` learns its
    model from judged queries (PyTerrier's estimator idea).

    Args:
        source: the knowledge base (or the stage context, from a spec).
        text_index: BM25 over the nodes' documents (ids = node ids).
        name_index: BM25 over node names (row ``i`` = node ``i``).
        model: a fitted :class:`KGModel` (``None``: zero-shot from the schema), or the
            ``model`` parameter (a fitted model directory).
        type_graph: the SKB's :class:`TypeGraph` (built when omitted).
        min_path_prob: ignore less probable metapaths.
        no_return: walks never pass through their anchor again.
        max_frontier: a metapath whose walk grows beyond this many nodes is not followed.
        linker: a :class:`NameLinker` (built from ``name_index`` when omitted).
        answer_types: the SKB's :class:`AnswerTypes` (built when omitted).
        params: the spec's (:class:`~skbsearch.retrieve.graph.plan.GraphParams`): ``k``
            (answers per query), ``target`` (answers only of these node types; default:
            learned / from the schema), ``n_text``, ``n_graph`` (graph-reached candidates
            per query, the most supported first), ``max_hops`` (longest metapath),
            ``top_paths`` (metapaths followed per anchor), ``backoff`` (when no metapath of
            a query reaches anything, follow the ones that answered instead on training
            queries, then up to this many next most probable metapaths per anchor, one at
            a time, until one reaches something; 0: no back-off), ``w_*`` (weights in place
            of the fitted ones).
    """

    name = "graph"
    aliases = ("kg",)  # the name of old result files and fitted-model caches
    trainable = True
    #: the saved model's format (caches of fitted models key on it)
    model_format = FORMAT
    #: the name of the Runs it returns
    run_name = "kg"
    Params = GraphParams  # type: ignore[assignment]  # its dataclass lives in graph/plan (the parts read it)

    def __init__(self, source: SKB | Context | None = None, text_index: BM25Index | None = None,
                 name_index: BM25Index | None = None, *, model: KGModel | str | None = None,
                 type_graph: TypeGraph | None = None, min_path_prob: float = 0.01,
                 no_return: bool = True, max_frontier: int = 200_000,
                 linker: NameLinker | None = None, answer_types: AnswerTypes | None = None,
                 **params: Any) -> None:
        if isinstance(model, str):
            params["model"], model = model, None
        super().__init__(None if isinstance(source, SKB) else source, **params)
        self.owns_resources = isinstance(source, SKB)
        self.min_path_prob, self.no_return, self.max_frontier = min_path_prob, no_return, max_frontier
        if isinstance(source, SKB):
            if text_index is None or name_index is None:
                raise InputError("the graph stage over an SKB needs its text and name indexes",
                                 field="index")
            self._built = self._work(source, text_index, type_graph or TypeGraph(source),
                                     linker or NameLinker(source, name_index, text_index=text_index),
                                     answer_types, model)

    def build(self, context: Context) -> GraphWork:
        """Take the context's SKB, BM25 index and shared name index, type graph, linker
        tables and answer types; load the ``model`` directory when given."""
        p = self.params
        kb = context.kb
        names = context.shared("name-index", lambda: load_or_build_name_index(kb, notify=context.notify))
        tg = context.shared("type-graph", lambda: TypeGraph(kb))
        exact = context.shared("exact-names", lambda: ExactNames(kb))
        answer_types = context.shared("answer-types", lambda: AnswerTypes(kb))
        model = KGModel.load(context.resolve_path(p.model)) if p.model else None
        text = context.index("bm25")
        return self._work(kb, text, tg, NameLinker(kb, names, exact=exact, n_fuzzy=p.n_anchor, text_index=text),
                          answer_types, model)

    def evidence(self) -> tuple[str, ...]:
        """Its graph walks, then the context's BM25 index its text score reads (not with
        ``w_text=0``; nothing when it was given its indexes directly)."""
        keys = (self.context_key("graph"), self.context_key("index:bm25") if self.params.w_text != 0 else None)
        return tuple(k for k in keys if k is not None)

    @property
    def inner(self) -> GraphWork:
        """The built working object (:class:`~skbsearch.retrieve.graph.work.GraphWork`; built
        from the bound context on first use)."""
        if self._built is None:
            self._built = self.build(self.require_context())
        return self._built

    def _work(self, skb: SKB, text_index: BM25Index, tg: TypeGraph, linker: NameLinker,
              answer_types: AnswerTypes | None, model: KGModel | None) -> GraphWork:
        work = GraphWork(skb, text_index, tg, linker, answer_types, self.params, min_path_prob=self.min_path_prob,
                         no_return=self.no_return, max_frontier=self.max_frontier, run_name=self.run_name)
        work.set_model(self._override(model))
        return work

    def explain(self, query: Query | str, doc_id: str) -> list[str]:
        """Evidence lines: the anchor and metapath instance that reach ``doc_id``, its own
        text match, the attribute bounds it meets (:func:`.evidence.explain_node`)."""
        return explain_node(self.inner, as_query(query), doc_id)

    # ------------------------------------------------------------------ fitting
    def fit(self, queries: Sequence[Query], qrels: Qrels, run: Run | None = None) -> SKBGraphRetriever:
        """Learn metapaths, target types and evidence weights from judged queries."""
        ready = self.inner
        ready.set_model(self._override(fit_kg_model(ready, list(queries), qrels)))
        return self

    def _override(self, model: KGModel | None) -> KGModel | None:
        """``model`` with the weights the spec gives (``w_rel``...) in place of its own."""
        over = {w[2:]: getattr(self.params, w) for w in _WEIGHTS if getattr(self.params, w) is not None}
        if not over:
            return model
        model = model or KGModel(answer_types=[])
        model.weights = {**model.weights, **over}
        return model

    def fit_summary(self) -> dict[str, Any] | None:
        """The fitted model's blend with the untrained stage and the held-out numbers it was
        chosen on (:func:`~skbsearch.retrieve.graph.blend.blend_summary`)."""
        return blend_summary(self.fitted) if self.fitted is not None else None

    @property
    def fitted(self) -> KGModel | None:
        """The model in use (fitted or loaded), if any."""
        return self._built.model if self._built is not None else None

    def save_model(self, path: str | Path) -> Path:
        """Save the fitted model; the stage's spec then names it (``graph(model='PATH')``)."""
        model = self.inner.model
        if model is None:
            raise InputError("nothing to save: fit the stage first (skbsearch.stages.fit)", field="model")
        out = model.save(path)
        self.params.model = str(path)
        return out

