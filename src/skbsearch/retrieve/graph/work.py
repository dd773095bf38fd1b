"""The built graph stage: the working object that plans, walks, scores and combines.

:class:`GraphWork` is what the ``graph`` stage (:class:`~skbsearch.retrieve.graph.retriever.
SKBGraphRetriever`) builds over an SKB and its indexes, and what its fit
(:mod:`~skbsearch.retrieve.graph.fit`), evidence lines (:mod:`~skbsearch.retrieve.graph.evidence`)
and blend (:mod:`~skbsearch.retrieve.graph.blend`) work on. Its parts, in the order a query
meets them:

- **plan** (:class:`~skbsearch.retrieve.graph.planner.Planner`): anchors, metapaths, answer types;
- **walk** (:meth:`GraphWork.follow`, :meth:`GraphWork.walks`): the nodes each planned metapath
  reaches from its anchor, with back-off (:mod:`~skbsearch.retrieve.graph.backoff`);
- **score** (:meth:`GraphWork.score`): each candidate's evidence (relational, text — with the
  derived forms of a question word the reached nodes' text lacks,
  :mod:`~skbsearch.retrieve.graph.word_forms` — bounds, type);
- **combine** (:meth:`GraphWork.combine`): the weighted sum, top ``k``; a fitted model's list
  blended with its untrained twin's (:meth:`GraphWork.untrained`) at the fit's strength.

The work never points back at its stage, and the untrained twin never at the fitted work:
no reference cycle keeps a replaced snapshot's arrays alive.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

import numpy as np

from skbsearch.core.deadline import check_deadline
from skbsearch.core.types import Query, Run
from skbsearch.index.sparse import BM25Index, top_k
from skbsearch.kb.graph import unique_sorted
from skbsearch.kb.store import SKB, numeric_column, positions
from skbsearch.retrieve.graph.answer_types import AnswerTypes
from skbsearch.retrieve.graph.backoff import Walk, back_off
from skbsearch.retrieve.graph.blend import blend_runs
from skbsearch.retrieve.graph.bounds import parse_attribute_bounds
from skbsearch.retrieve.graph.exact_names import strip_brackets
from skbsearch.retrieve.graph.linking import Anchor, NameLinker, bm25_top_k
from skbsearch.retrieve.graph.metapaths import Metapath, TypeGraph
from skbsearch.retrieve.graph.model import FEATURES, KGModel
from skbsearch.retrieve.graph.plan import (
    GraphParams,
    Plan,
    Scored,
    relational_evidence,
    text_only_confidence,
    walk_confidence,
)
from skbsearch.retrieve.graph.planner import Planner
from skbsearch.retrieve.graph.word_forms import WordForms
from skbsearch.retrieve.graph.zero_shot import prepare_zero_shot


class GraphWork:
    """The graph stage built over one SKB and its indexes (see the module docstring).

    Args:
        skb: the knowledge base.
        text_index: BM25 over the nodes' documents (ids = node ids).
        tg: the SKB's :class:`TypeGraph`.
        linker: the :class:`NameLinker` of the plan.
        answer_types: the SKB's :class:`AnswerTypes` (built when ``None``).
        params: the stage's :class:`~skbsearch.retrieve.graph.plan.GraphParams`.
        min_path_prob: ignore less probable metapaths.
        no_return: walks never pass through their anchor again.
        max_frontier: a metapath whose walk grows beyond this many nodes is not followed.
        run_name: the name of the Runs it returns.
    """

    def __init__(self, skb: SKB, text_index: BM25Index, tg: TypeGraph, linker: NameLinker,
                 answer_types: AnswerTypes | None, params: GraphParams, *, min_path_prob: float = 0.01,
                 no_return: bool = True, max_frontier: int = 200_000, run_name: str = "kg") -> None:
        p = params
        self.skb = skb
        # text evidence with the fields' BM25 scores added, as the stage's weights and fits
        # were tuned (a BM25F index's scores are rescored once from its term counts)
        self.text_index = text_index.summed_fields() if hasattr(text_index, "summed_fields") else text_index
        self.tg = tg
        linker = linker.prepare()  # set-up work here, not on the first query
        prepare_zero_shot(tg)
        self.planner = Planner(skb, tg, linker, answer_types if answer_types is not None else AnswerTypes(skb),
                               tuple(p.target), p.max_hops, p.top_paths, p.backoff, min_path_prob)
        self.no_return, self.max_frontier, self.run_name = no_return, max_frontier, run_name
        self.k, self.n_text, self.n_graph, self.backoff = p.k, p.n_text, p.n_graph, p.backoff
        self._codes = skb.node_type_codes
        self.row_of_node = (np.arange(skb.num_nodes, dtype=np.int64) if text_index.in_node_order(skb)
                            else positions(skb.nodes.column("id"), text_index.doc_ids))
        deg = np.log1p(skb.graph.degree(direction="both").astype(np.float64))
        self._tie = 1e-6 * deg / max(float(deg.max()), 1.0) if len(deg) else deg
        self._node_of_row = np.full(text_index.num_docs, -1, np.int64)
        has = self.row_of_node >= 0
        self._node_of_row[self.row_of_node[has]] = np.flatnonzero(has)
        # each text row's node type code (-1: a row of no node), for the per-type row masks
        self._row_code = np.where(self._node_of_row >= 0,
                                  np.asarray(self._codes)[np.maximum(self._node_of_row, 0)], -1)
        #: a question word's derived forms, where the reached nodes' text lacks the word
        self.word_forms = WordForms(self.text_index)
        self._attrs: dict[str, np.ndarray] = {}
        self._masks: dict[tuple[str, ...], np.ndarray] = {}
        self._is_twin = False
        self.set_model(None)

    @property
    def linker(self) -> NameLinker:
        """The plan's linker."""
        return self.planner.linker

    # ------------------------------------------------------------------ model
    def set_model(self, model: KGModel | None) -> None:
        """Use a fitted model (``None``: zero-shot); also sets the linker's template words
        and aliases."""
        self.model = model
        self.explained_plans: dict[str, tuple[Plan, dict]] = {}  # by query text (explain)
        self._plain: GraphWork | None = None
        if model is not None and model.background is not None:
            self.linker.exact.background = model.background
        skb = self.skb
        self.linker.aliases = {} if model is None else {
            g: [(int(skb.index_of(n)), x) for n, x in v if skb.has_node(n)] for g, v in model.aliases.items()}

    @property
    def weights(self) -> dict[str, float]:
        """The combination weights in use."""
        return dict(self.model.weights) if self.model is not None else {"rel": 1.0, "text": 1.0, "attr": 1.0, "type": 0.5}

    def untrained(self) -> GraphWork:
        """The untrained stage on the same indexes and name tables (what a fitted model backs
        off to): a copy without a model, its linker without learned template words or
        aliases (cheap, made once per model; the twin is its own untrained stage)."""
        if self._is_twin:
            return self
        if self._plain is None:
            linker = copy.copy(self.linker)
            linker.exact = copy.copy(self.linker.exact)
            linker.exact.background = None
            linker.aliases = {}
            twin = copy.copy(self)
            twin.planner = copy.copy(self.planner)
            twin.planner.linker = linker
            twin.model = None
            twin.explained_plans = {}
            twin._is_twin = True
            self._plain = twin
        return self._plain

    # ------------------------------------------------------------------ plan
    def plan(self, texts: Sequence[str]) -> list[Plan]:
        """Anchors, metapaths (with probabilities) and target types of each query."""
        return self.planner.plan(texts, self.model)

    # ------------------------------------------------------------------ walk
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

    def walks(self, plan: Plan, cache: dict) -> list[Walk]:
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

    # ------------------------------------------------------------------ score
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
            wanted = np.zeros(len(self.skb.type_names) + 1, bool)  # (the last: no node)
            wanted[[self.skb.type_names.index(t) for t in types if t in self.skb.type_names]] = True
            self._masks[types] = wanted[self._row_code]
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

    def _score_one(self, q: Query, plan: Plan, text: np.ndarray, toks: list[int],
                   cache: dict, exclude: bool) -> Scored:
        n = self.skb.num_nodes
        walks = self.walks(plan, cache)
        rel_all = relational_evidence(plan.anchors, walks, n)
        touched = [reached for *_, reached in walks]
        walked: dict[int, float] = {}
        for ai, path, prob, _ in walks:
            walked[ai] = max(walked.get(ai, 0.0), plan.certainty.get((ai, path), prob))
        conf = walk_confidence(walked, text_only_confidence(self._type_share(plan)))
        uniq = unique_sorted(np.concatenate(touched), n) if len(touched) > 1 else (
            touched[0] if touched else np.zeros(0, np.int64))
        # the n_graph best reached nodes (ties: lower node first)
        g_nodes = uniq[top_k(rel_all[uniq], self.n_graph)] if len(uniq) > self.n_graph else uniq
        rows = unique_sorted(np.concatenate([g_nodes.astype(np.int64), text]))
        if exclude:
            named = [a for a in plan.anchors if a.whole or a.conf >= 0.99]
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
            reached = self.row_of_node[g_nodes]
            t += self.word_forms.back_off(plan.words, reached[reached >= 0], doc_rows[ok])
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
            if row < 0 or (plan.types and plan.types.get(self.planner.type_name(a.node), 0.0) < 0.1):
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

    # ------------------------------------------------------------------ combine
    def combine(self, scored: Scored, weights: dict[str, float] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Candidates of one query ranked by the weighted evidence: ``(nodes, scores)``."""
        w = weights or self.weights
        s = scored.features @ np.array([w.get(f, 0.0) for f in FEATURES]) + scored.tie
        order = np.lexsort((scored.nodes, -s))[: self.k]
        return scored.nodes[order], s[order]

    def __call__(self, queries: Sequence[Query], run: Run | None = None) -> Run:
        """The stage's Run: the fitted model's list, blended with the untrained twin's at the
        fit's strength (:mod:`~skbsearch.retrieve.graph.blend`)."""
        queries = list(queries)
        b = self.model.blend if self.model is not None else 1.0
        if b <= 0.0:
            return self.untrained().ranked(queries, run)
        fitted = self.ranked(queries, run)
        if b >= 1.0:
            return fitted
        plain = self.untrained().ranked(queries, run)
        out = blend_runs(plain, fitted, b, self.k, self.run_name)
        out.confidence = {q: max(plain.confidence.get(q, 0.0), c) for q, c in fitted.confidence.items()}
        return out

    def ranked(self, queries: list[Query], run: Run | None) -> Run:
        """Its own model's Run (no blend): each query's candidates combined, top ``k``."""
        _, scored = self.score(queries, run)
        ids = self.skb.ids_array
        out = Run(name=self.run_name)
        for q, sc in zip(queries, scored, strict=True):
            check_deadline()
            nodes, s = self.combine(sc)
            out[q.id] = dict(zip(ids[nodes].tolist(), s.tolist(), strict=True))
            out.confidence[q.id] = sc.confidence
        return out
