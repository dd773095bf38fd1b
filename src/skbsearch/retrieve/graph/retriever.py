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

:meth:`SKBGraphRetriever.explain` (:mod:`~skbsearch.retrieve.graph.evidence`) names the anchor, the metapath instance and the text
or bounds that made a node score.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from skbsearch.core.deadline import check_deadline
from skbsearch.core.errors import InputError
from skbsearch.core.registry import register_stage
from skbsearch.core.stage import Context, SpecStage
from skbsearch.core.types import Qrels, Query, Run
from skbsearch.index.names import load_or_build_name_index
from skbsearch.index.sparse import BM25Index, top_k
from skbsearch.kb.graph import unique_sorted
from skbsearch.kb.store import SKB, numeric_column, positions
from skbsearch.retrieve.graph.answer_types import AnswerTypes
from skbsearch.retrieve.graph.backoff import back_off
from skbsearch.retrieve.graph.blend import blend_runs, blend_summary, plain_twin
from skbsearch.retrieve.graph.bounds import parse_attribute_bounds
from skbsearch.retrieve.graph.evidence import explain_node
from skbsearch.retrieve.graph.exact_linker import (
    EntityLinker,
    bracket_mentions,
    normalise,
    strip_brackets,
)
from skbsearch.retrieve.graph.fit import fit_kg_model
from skbsearch.retrieve.graph.linking import Anchor, NameLinker, bm25_top_k
from skbsearch.retrieve.graph.metapaths import Metapath, TypeGraph, steps_of
from skbsearch.retrieve.graph.model import (
    FEATURES,
    FORMAT,
    KGModel,
    anchor_view,
    path_view,
    prepare_zero_shot,
    text_types,
    zero_shot_paths,
    zero_shot_types,
)
from skbsearch.retrieve.graph.plan import (
    GraphParams,
    Plan,
    Scored,
    text_only_confidence,
    walk_confidence,
)

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
    Params = GraphParams

    def __init__(self, source: Any = None, text_index: BM25Index | None = None,
                 name_index: BM25Index | None = None, *, model: KGModel | str | None = None,
                 type_graph: TypeGraph | None = None, min_path_prob: float = 0.01,
                 no_return: bool = True, max_frontier: int = 200_000,
                 linker: NameLinker | None = None, answer_types: AnswerTypes | None = None,
                 **params: Any) -> None:
        if isinstance(model, str):
            params["model"], model = model, None
        direct = isinstance(source, SKB)
        super().__init__(None if direct else source, **params)
        self.owns_resources = direct
        self.min_path_prob, self.no_return, self.max_frontier = min_path_prob, no_return, max_frontier
        if direct:
            if text_index is None or name_index is None:
                raise InputError("the graph stage over an SKB needs its text and name indexes",
                                 field="index")
            self._setup(source, text_index, type_graph or TypeGraph(source),
                        linker or NameLinker(source, name_index, text_index=text_index), answer_types)
            self.set_model(self._override(model))
            self._built = self

    def build(self, context: Context) -> Any:
        """Take the context's SKB, BM25 index and shared name index, type graph, linker
        tables and answer types; load the ``model`` directory when given."""
        p = self.params
        kb = context.kb
        names = context.shared("name-index", lambda: load_or_build_name_index(kb, notify=context.notify))
        tg = context.shared("type-graph", lambda: TypeGraph(kb))
        exact = context.shared("entity-linker", lambda: EntityLinker(kb))
        answer_types = context.shared("answer-types", lambda: AnswerTypes(kb))
        model = KGModel.load(context.resolve_path(p.model)) if p.model else None
        text = context.index("bm25")
        self._setup(kb, text, tg, NameLinker(kb, names, exact=exact, n_fuzzy=p.n_anchor, text_index=text),
                    answer_types)
        self.set_model(self._override(model))
        return self

    def evidence(self) -> tuple[str, ...]:
        """Its graph walks, then the context's BM25 index its text score reads (not with
        ``w_text=0``; nothing when it was given its indexes directly)."""
        keys = (self.context_key("graph"), self.context_key("index:bm25") if self.params.w_text != 0 else None)
        return tuple(k for k in keys if k is not None)

    def _setup(self, skb: SKB, text_index: BM25Index, tg: TypeGraph, linker: NameLinker,
               answer_types: AnswerTypes | None) -> None:
        p = self.params
        self.skb = skb
        # text evidence with the fields' BM25 scores added, as the stage's weights and fits
        # were tuned (a BM25F index's scores are rescored once from its term counts)
        self.text_index = text_index.summed_fields() if hasattr(text_index, "summed_fields") else text_index
        self.tg = tg
        self.linker = linker.prepare()  # set-up work here, not on the first query
        prepare_zero_shot(tg)
        self.target = tuple(p.target)
        self.k, self.n_text, self.n_graph = p.k, p.n_text, p.n_graph
        self.max_hops, self.top_paths, self.backoff = p.max_hops, p.top_paths, p.backoff
        self.text_types = text_types(skb)
        self.answer_types = answer_types if answer_types is not None else AnswerTypes(skb)
        self._codes = skb.node_type_codes
        self.row_of_node = (np.arange(skb.num_nodes, dtype=np.int64) if text_index.in_node_order(skb)
                             else positions(skb.nodes.column("id"), text_index.doc_ids))
        deg = np.log1p(skb.graph.degree(direction="both").astype(np.float64))
        self._tie = 1e-6 * deg / max(float(deg.max()), 1.0) if len(deg) else deg
        self._node_of_row = np.full(text_index.num_docs, -1, np.int64)
        has = self.row_of_node >= 0
        self._node_of_row[self.row_of_node[has]] = np.flatnonzero(has)
        self._attrs: dict[str, np.ndarray] = {}
        self._masks: dict[tuple[str, ...], np.ndarray] = {}
        self.model: KGModel | None = None

    # ------------------------------------------------------------------ model
    def set_model(self, model: KGModel | None) -> None:
        """Use a fitted model (``None``: zero-shot); also sets the linker's template words
        and aliases."""
        self.model = model
        self.explained_plans: dict[str, tuple[Plan, dict]] = {}  # by query text (explain)
        self._plain: SKBGraphRetriever | None = None
        if model is not None and model.background is not None:
            self.linker.exact.background = model.background
        skb = self.skb
        self.linker.aliases = {} if model is None else {
            g: [(int(skb.index_of(n)), x) for n, x in v if skb.has_node(n)] for g, v in model.aliases.items()}

    @property
    def weights(self) -> dict[str, float]:
        """The combination weights in use."""
        return dict(self.model.weights) if self.model is not None else {"rel": 1.0, "text": 1.0, "attr": 1.0, "type": 0.5}

    def _type_name(self, node: int) -> str:
        return self.skb.type_names[int(self._codes[node])]

    # ------------------------------------------------------------------ planning
    def plan(self, texts: Sequence[str]) -> list[Plan]:
        """Anchors, metapaths (with probabilities) and target types of each query."""
        anchors = self.linker.link_many(texts)
        words = [normalise(strip_brackets(t)).split() for t in texts]
        types = self._types(words)
        plans = [Plan(w, a, [], t) for w, a, t in zip(words, anchors, types, strict=True)]
        owners = [(qi, ai) for qi, anc in enumerate(anchors) for ai in range(len(anc))]
        starts = [self._type_name(anchors[qi][ai].node) for qi, ai in owners]
        model = self.model
        real = None
        if model is not None:
            real = model.anchor_probs([
                anchor_view(words[qi], anchors[qi][ai], ai + 1, st, bool(bracket_mentions(texts[qi])))
                for (qi, ai), st in zip(owners, starts, strict=True)])
        P = classes = None
        if model is not None and model.path_model is not None and owners:
            P = model.path_model.predict_proba(
                [path_view(words[qi], anchors[qi][ai], st) for (qi, ai), st in zip(owners, starts, strict=True)])
            classes = model.path_model.classes
        for row, ((qi, ai), start) in enumerate(zip(owners, starts, strict=True)):
            plan = plans[qi]
            a = plan.anchors[ai]
            weight = float(real[row]) if real is not None else a.conf
            opts: list[tuple[Metapath, float]] = []
            if P is not None and classes is not None:
                cols = [j for j, c in enumerate(classes) if c[0] == start and len(c) > 1]
                if cols:
                    p = P[row, cols] / max(float(P[row, cols].sum()), 1e-12)
                    opts = sorted(((classes[j], float(v)) for j, v in zip(cols, p, strict=True)),
                                  key=lambda x: -x[1])
            if not opts:
                qwords = {w for i, w in enumerate(plan.words) if i not in set(a.words)}
                found = zero_shot_paths(self.tg, start, qwords, list(plan.types) or None, min(self.max_hops, 2),
                                        limit=self.top_paths, first=self.tg.node_steps(a.node))
                opts = list({**dict(found), **dict(self._class_paths(a.node, start, plan.types))}.items())
                opts.sort(key=lambda x: -x[1])
            kept = [(m, weight * v) for m, v in opts if steps_of(m)]
            plan.paths.extend((ai, m, v) for m, v in kept[: self.top_paths] if v >= self.min_path_prob)
            # how sure a followed chain is: its probability, or its share of the followed
            # chains' (an anchor with one way out is followed surely, named or not)
            total = sum(v for _, v in kept[: self.top_paths])
            plan.certainty.update({(ai, m): max(v, weight * v / total) for m, v in kept[: self.top_paths]
                                   if total > 0})
            # back-off candidates: the top paths too improbable to follow, then the next ones
            plan.spare.extend((ai, m, v) for k, (m, v) in enumerate(kept[: self.top_paths + self.backoff])
                              if k >= self.top_paths or v < self.min_path_prob)
        return plans

    def _class_paths(self, node: int, start: str, types: dict[str, float]) -> list[tuple[Metapath, float]]:
        """A class node of an answer type ("Comedian" for people) leads to its members by
        the step most of them link to it with: that path first, fully weighted."""
        cls = self.answer_types.class_nodes.get(node)
        if cls is None or types.get(self.skb.type_names[cls[0]], 0.0) < 0.1:
            return []
        return [((start, cls[2]), 1.0)]

    def _types(self, words: list[list[str]]) -> list[dict[str, float]]:
        if self.target:
            return [{t: 1.0 / len(self.target) for t in self.target} for _ in words]
        m = self.model
        if m is not None and (m.type_model is not None or m.answer_types):
            return m.type_probs([" ".join(w) for w in words])
        return [self._guess_types(w) for w in words]

    def _guess_types(self, words: list[str]) -> dict[str, float]:
        """Untrained answer types: the question's answer phrase against the SKB's type
        vocabulary (:class:`AnswerTypes`), beside the document types; the schema's named
        types when the phrase says none."""
        guess = self.answer_types.guess(words)
        if not guess:
            return zero_shot_types(self.skb, set(words), self.text_types, self.answer_types.informative)
        if not self.text_types:
            return guess
        docs = {t: 0.5 / len(self.text_types) for t in self.text_types}
        return {t: docs.get(t, 0.0) + 0.5 * guess.get(t, 0.0) for t in {**docs, **guess}}

    # ------------------------------------------------------------------ evidence
    def follow(self, node: int, path: Metapath, cache: dict) -> np.ndarray:
        """The nodes ``path`` reaches from ``node`` (walks cached in ``cache`` by prefix)."""
        key = (node, path)
        got = cache.get(key)
        if got is None:  # walked from the cached walk of its prefix (paths share prefixes)
            prev = self.follow(node, path[:-1], cache) if len(path) > 2 else np.array([node], np.int64)
            got = (self.tg.extend(prev, node, path[-1], no_return=self.no_return,
                                  max_frontier=self.max_frontier) if len(prev) else prev)
            cache[key] = got
        return got

    def attribute(self, name: str) -> np.ndarray | None:
        """An attribute's values over all nodes (NaN: missing); ``None``: no such attribute."""
        if name not in self.skb.schema.attributes:
            return None
        if name not in self._attrs:
            self._attrs[name] = numeric_column(self.skb.nodes.column(name))
        return self._attrs[name]

    def _bounds(self, text: str, rows: np.ndarray) -> np.ndarray:
        return parse_attribute_bounds(text).mask(self.attribute, rows)

    def _text_mask(self, types: tuple[str, ...]) -> np.ndarray | None:
        """Text-index rows whose node has one of ``types`` (``None``: every row)."""
        if not types or len(types) >= len(self.skb.type_names):
            return None
        if types not in self._masks:
            codes = [self.skb.type_names.index(t) for t in types if t in self.skb.type_names]
            node = self._node_of_row
            self._masks[types] = (node >= 0) & np.isin(self._codes[np.maximum(node, 0)], codes)
        return self._masks[types]

    def _text_candidates(self, plan: Plan, toks: list[int]) -> np.ndarray:
        """Nodes of the target types whose own document matches the query best (BM25)."""
        rows, _ = bm25_top_k(self.text_index, toks, self.n_text, self._text_mask(plan.target_types()))
        return self._node_of_row[rows]

    def _type_share(self, plan: Plan) -> float:
        """Share of the text index's rows that are of the plan's target types (1: none ruled out)."""
        mask = self._text_mask(plan.target_types())
        return float(mask.mean()) if mask is not None and len(mask) else 1.0

    def score(self, queries: Sequence[Query], run: Run | None = None) -> tuple[list[Plan], list[Scored]]:
        """Plans and candidate evidence for a batch of queries."""
        queries = list(queries)
        plans = self.plan([q.text for q in queries])
        tokens = self.text_index.tokenize([strip_brackets(q.text) for q in queries])
        cache: dict = {}
        exclude = self.model.exclude_anchors if self.model is not None else True
        out = []
        for q, plan, toks in zip(queries, plans, tokens, strict=True):
            check_deadline()
            if run is not None:
                docs = [d for d in run.get(q.id, {}) if self.skb.has_node(d)]
                text = np.asarray(self.skb.index_of(docs), np.int64) if docs else np.zeros(0, np.int64)
            else:
                text = self._text_candidates(plan, toks)
            out.append(self._score_one(q, plan, text, toks, cache, exclude))
        return plans, out

    def walks(self, plan: Plan, cache: dict) -> list[tuple[int, Metapath, float, np.ndarray]]:
        """``(anchor, metapath, probability, reached nodes)`` of the plan's metapaths that
        reach something, and of the back-off metapaths followed
        (:func:`~skbsearch.retrieve.graph.backoff.back_off`)."""
        out = []
        for ai, path, prob in plan.paths:
            check_deadline()
            reached = self.follow(plan.anchors[ai].node, path, cache)
            if len(reached):
                out.append((ai, path, prob, reached))
        if self.backoff <= 0:
            return out
        learned = self.model.backoff if self.model is not None else {}
        return out + back_off(plan.paths, plan.spare, learned, out,
                              lambda ai, path: self.follow(plan.anchors[ai].node, path, cache))

    def _score_one(self, q: Query, plan: Plan, text: np.ndarray, toks: list[int],
                   cache: dict, exclude: bool) -> Scored:
        n = self.skb.num_nodes
        rel_all = np.zeros(n)  # zero pages cost nothing until touched
        touched = []
        walked: dict[int, float] = {}
        for ai, path, prob, reached in self.walks(plan, cache):
            rel_all[reached] += prob  # a reached set is unique: no repeated index
            touched.append(reached)
            walked[ai] = max(walked.get(ai, 0.0), plan.certainty.get((ai, path), prob))
        conf = walk_confidence(walked, text_only_confidence(self._type_share(plan)))
        uniq = unique_sorted(np.concatenate(touched), n) if len(touched) > 1 else (
            touched[0] if touched else np.zeros(0, np.int64))
        # the n_graph best reached nodes (ties: lower node first)
        g_nodes = uniq[top_k(rel_all[uniq], self.n_graph)] if len(uniq) > self.n_graph else uniq
        rows = unique_sorted(np.concatenate([g_nodes.astype(np.int64), text]))
        if exclude:
            named = [a for a in plan.anchors if a.source in ("bracket", "exact") or a.conf >= 0.99]
            # untrained only: a fitted model's exclusion was learned from judged answers
            asked = self._asked_about(plan, named, text) if self.model is None or not self.model.info else set()
            rows = rows[~np.isin(rows, [a.node for a in named if a.node not in asked])]
            if asked:
                rows = unique_sorted(np.concatenate([rows, np.fromiter(asked, np.int64)]))
        F = np.zeros((len(rows), len(FEATURES)))
        if not len(rows):
            return Scored(rows, F, np.zeros(0), conf)
        F[:, 0] = rel_all[rows]
        doc_rows = self.row_of_node[rows]
        ok = doc_rows >= 0
        if toks and ok.any():
            t = self.text_index.score_docs(toks, doc_rows[ok]).astype(np.float64)
            F[ok, 1] = t / t.max() if t.max() > 0 else t
        F[:, 2] = self._bounds(q.text, rows)
        if plan.types:
            tp = np.array([plan.types.get(t, 0.0) for t in self.skb.type_names])
            F[:, 3] = tp[self._codes[rows]]
        return Scored(rows, F, self._tie[rows], conf)

    def _asked_about(self, plan: Plan, named: Sequence[Anchor], text: np.ndarray) -> set[int]:
        """Named anchors the question asks about, which may then be answers: of a type the
        question may ask for, and whose document matches the question's other words (its
        words outside the mention) at least as well as every other text candidate's does
        ("what does the X tool do to ..." names its answer)."""
        out: set[int] = set()
        for a in named:
            row = int(self.row_of_node[a.node])
            if row < 0 or (plan.types and plan.types.get(self._type_name(a.node), 0.0) < 0.1):
                continue
            span = set(a.words)
            rest = self.text_index.tokenize([" ".join(w for i, w in enumerate(plan.words) if i not in span)])[0]
            if not rest:
                continue
            others = self.row_of_node[text[text != a.node]]
            others = others[others >= 0]
            mine = float(self.text_index.score_docs(rest, np.array([row]))[0])
            best = float(self.text_index.score_docs(rest, others).max()) if len(others) else 0.0
            if mine > 0.0 and mine >= best:
                out.add(a.node)
        return out

    # ------------------------------------------------------------------ stage
    def combine(self, scored: Scored, weights: dict[str, float] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Candidates of one query ranked by the weighted evidence: ``(nodes, scores)``."""
        w = weights or self.weights
        s = scored.features @ np.array([w.get(f, 0.0) for f in FEATURES]) + scored.tie
        order = np.lexsort((scored.nodes, -s))[: self.k]
        return scored.nodes[order], s[order]

    def __call__(self, queries: Sequence[Query], run: Run | None = None) -> Run:
        queries = list(queries)
        if self._built is None:  # set up from the bound context on first use
            return self.inner(queries, run)
        b = self.model.blend if self.model is not None else 1.0
        if b <= 0.0:
            return self.plain()._ranked(queries, run)
        fitted = self._ranked(queries, run)
        if b >= 1.0:
            return fitted
        plain = self.plain()._ranked(queries, run)
        out = blend_runs(plain, fitted, b, self.k, self.run_name)
        out.confidence = {q: max(plain.confidence.get(q, 0.0), c) for q, c in fitted.confidence.items()}
        return out

    def plain(self) -> SKBGraphRetriever:
        """The untrained stage on the same indexes (what a fitted model backs off to)."""
        if self._plain is None:
            self._plain = plain_twin(self)
            self._plain._plain = self._plain
        return self._plain

    def _ranked(self, queries: list[Query], run: Run | None) -> Run:
        _, scored = self.score(queries, run)
        ids = self.skb.ids_array
        out = Run(name=self.run_name)
        for q, sc in zip(queries, scored, strict=True):
            check_deadline()
            nodes, s = self.combine(sc)
            out[q.id] = dict(zip(ids[nodes].tolist(), s.tolist(), strict=True))
            out.confidence[q.id] = sc.confidence
        return out

    def explain(self, query: Query, doc_id: str) -> list[str]:
        """Evidence lines: the anchor and metapath instance that reach ``doc_id``, its own
        text match, the attribute bounds it meets (:func:`.evidence.explain_node`)."""
        return explain_node(self.inner, query, doc_id)

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
        return self.model if self._built is not None else None

    def save_model(self, path: str | Path) -> Path:
        """Save the fitted model; the stage's spec then names it (``graph(model='PATH')``)."""
        model = self.inner.model
        if model is None:
            raise InputError("nothing to save: fit the stage first (skbsearch.stages.fit)", field="model")
        out = model.save(path)
        self.params.model = str(path)
        return out

