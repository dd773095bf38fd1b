"""Fusion stages: ``fuse`` (``a + b``), ``rrf``, ``zscore``, ``minmax``, one class each.

A fusion stage runs its children on the same queries (and Run) and fuses their Runs with its
method in :mod:`skbsearch.core.fusion` (the one place that fuses lists, which saved Runs use
too); ``fit`` chooses its weights. Importing this module registers :func:`fuse` as what
``a + b`` builds (:func:`skbsearch.core.operators.register_fusion`).

The classes that were ``skbsearch.retrieve.hybrid``'s (``RRF``, ``WeightedFusion``,
``ScoreFusion``) are these stages: :meth:`FusionStage.of` builds one over stage objects.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Self

import numpy as np

from skbsearch.core.errors import InputError
from skbsearch.core.fusion import rrf, score_fusion, weighted_fusion
from skbsearch.core.operators import Pipeline, register_fusion
from skbsearch.core.registry import register_stage
from skbsearch.core.stage import Context, SpecStage, format_value
from skbsearch.core.types import Qrels, Query, Run, as_query
from skbsearch.stages.base import bind
from skbsearch.stages.explain import explainers
from skbsearch.stages.inputs import FilterStage, SavedRunStage  # noqa: F401 - their old home


class FusionStage(SpecStage):
    """Base of fusion stages: child stages run on the same queries, then their Runs fuse."""

    category = "fusion"
    children: list[Any]

    @classmethod
    def from_children(cls, children: Sequence[Any], context: Context | None = None,
                      **params: Any) -> Self:
        """A fusion of ``children`` (stages or pipelines) with parameters ``params``."""
        if len(children) < 1:
            raise InputError(f"{cls.name} needs at least one stage", field="pipeline")
        st = cls(context, **params)
        st.children = list(children)
        w = getattr(st.params, "weights", ())
        if w and len(w) != len(st.children):
            raise InputError(f"{cls.name}: {len(w)} weights for {len(st.children)} stages",
                             field="weights")
        if context is not None:
            for c in st.children:
                bind(c, context)
        return st

    @classmethod
    def of(cls, *children: Any, **params: Any) -> FusionStage:
        """The stage over stage objects, unbound: ``RRFStage.of(bm25, dense, k=60)`` (what
        ``skbsearch.retrieve.hybrid.RRF(bm25, dense, k=60)`` built)."""
        return cls.from_children(children, **params)

    def __init__(self, context: Context | None = None, **params: Any) -> None:
        super().__init__(context, **params)
        self.children = []
        self._built = self  # the stage does its own work: nothing to build from a context

    def build(self, context: Context) -> FusionStage:
        """The stage itself (its children are built on their first call)."""
        return self

    def __call__(self, queries: Sequence[Query], run: Run | None = None) -> Run:
        queries = list(queries)
        fused = self.fuse([c(queries, run) for c in self.children])
        for q in queries:
            fused.setdefault(q.id, {})
        return fused

    def fuse(self, runs: Sequence[Run]) -> Run:  # pragma: no cover - abstract
        """The children's ``runs`` fused by this stage's method and parameters."""
        raise NotImplementedError

    def _child_repr(self, c: Any) -> str:
        r = repr(c)
        return f"({r})" if isinstance(c, (Pipeline, FusionStage)) else r

    def __repr__(self) -> str:
        p = self.non_default_params()
        kids = [self._child_repr(c) for c in self.children]
        if self.name == "fuse" and not p and len(kids) > 1:  # (one child: fuse(a), not a)
            return " + ".join(kids)
        extra = [f"{k}={format_value(v)}" for k, v in p.items()]
        return f"{self.name}(" + ", ".join(kids + extra) + ")"

    def __eq__(self, other: object) -> bool:
        return (type(self) is type(other) and self.params == other.params
                and len(self.children) == len(other.children)
                and all(a == b for a, b in zip(self.children, other.children, strict=True)))

    __hash__ = None

    def bind(self, context: Context) -> SpecStage:
        super().bind(context)
        for c in self.children:
            bind(c, context)
        return self

    def explain(self, query: Query | str, doc_id: str) -> list[str]:
        """Its children's evidence for ``doc_id``, merged in child order without repeats (a
        fusion adds no evidence of its own: it only weighs its lists)."""
        q = as_query(query)
        lines: list[str] = []
        for child in self.children:
            for ex in explainers(child):
                lines.extend(ex.explain(q, doc_id))
        return list(dict.fromkeys(lines))

    def judged_child_runs(self, queries: Sequence[Query], qrels: Qrels,
                          run: Run | None) -> tuple[list[str], list[Run]]:
        """What a fit searches over: the ids of the judged queries and each child's Run on them."""
        judged = [q for q in queries if q.id in qrels]
        if not judged:
            raise InputError("fit needs judged queries (none of the queries is in the qrels)",
                             field="qrels")
        return [q.id for q in judged], [c(judged, run) for c in self.children]


@register_stage
class FuseStage(FusionStage):
    """Score-aware fusion that keeps a confident list's top; ``a + b`` in a spec (fit learns weights)."""

    name = "fuse"
    trainable = True

    @dataclass
    class Params:
        weights: tuple[float, ...] = field(default=(), metadata={
            "help": "one per stage (default: per query, from each list's evidence and confidence)"})
        top: float = field(default=2.0, metadata={
            "help": "weight of the best normalised score a candidate has in any list (0: RRF)"})
        depth: int = field(default=100, metadata={"help": "candidates of each list normalised and fused"})
        k: int = field(default=60, metadata={"help": "RRF constant of the rank sum"})

        def check(self) -> None:
            if self.top < 0 or self.depth < 1 or self.k < 0:
                raise InputError("fuse needs top >= 0, depth >= 1 and k >= 0", field="top")

    _given: tuple[tuple[float, ...] | None, float] | None = None

    def fuse(self, runs: Sequence[Run]) -> Run:
        """:func:`~skbsearch.core.fusion.score_fusion` of ``runs``: with the spec's weights, or
        per query from each list's evidence and confidence (the weights: those at full
        confidence)."""
        p = self.params
        if p.weights:
            return score_fusion(runs, p.weights, p.top, p.depth, k=p.k)
        return score_fusion(runs, self.list_weights(), p.top, p.depth, k=p.k,
                            evidence=child_evidence(self.children))

    def list_weights(self) -> tuple[float, ...]:
        """The lists' weights at full confidence: the spec's, else those of
        :func:`shared_evidence_weights` (shared evidence counted once)."""
        return tuple(self.params.weights) or shared_evidence_weights(self.children)

    def fit(self, queries: Sequence[Query], qrels: Qrels, run: Run | None = None) -> SpecStage:
        """Choose the weights (simplex, step 0.1) and ``top`` (0: RRF, 1, 2, 4) that maximise
        MRR, only where that choice beats the spec's parameters on held-out quarters of
        the queries and loses on none (:func:`_backed_off`); else keep the spec's (default
        weights: each query's, from the lists' evidence and confidence)."""
        qids, runs = self.judged_child_runs(queries, qrels, run)
        if self._given is None:  # the spec's parameters, which a refit (another fold) backs off to
            self._given = (tuple(self.params.weights) or None, self.params.top)
        current = self._given
        grid = [current] + [(w, top) for top in (2.0, 0.0, 1.0, 4.0) for w in _simplex(len(runs), 10)]
        evidence = child_evidence(self.children)
        ranks = np.array([_first_ranks(score_fusion(runs, list(w) if w is not None else None, top, self.params.depth,
                                                    k=self.params.k, evidence=evidence if w is None else None),
                                       qrels, qids) for w, top in grid])
        row = _backed_off(ranks, qids)
        w, top = grid[row]
        self.params.weights = tuple(round(x, 3) for x in w) if w is not None else ()
        self.params.top = top
        mrr = _rr(ranks).mean(axis=1)
        self._summary = {"kept": "fitted" if row else "spec", "weights": self.params.weights, "top": top,
                         "training": {"queries": len(qids), "spec": {"mrr": round(float(mrr[0]), 4)},
                                      "fitted": {"mrr": round(float(mrr[row]), 4)}}}
        return self

    _summary: dict[str, Any] | None = None

    def fit_summary(self) -> dict[str, Any] | None:
        """The weights and ``top`` kept (the spec's unless held-out quarters backed the fitted
        choice) and the judged queries' MRR under the spec's and the kept parameters."""
        return self._summary


def child_evidence(children: Sequence[Any]) -> list[tuple[str, ...]]:
    """What each child's list rests on (its :meth:`~skbsearch.core.stage.SpecStage.evidence`
    keys; empty for a stage that declares none)."""
    return [tuple(getattr(c, "evidence", tuple)()) for c in children]


def shared_evidence_weights(children: Sequence[Any]) -> tuple[float, ...]:
    """``fuse``'s default weights: ``1 / n`` for a child whose own evidence (the first key of
    its :meth:`~skbsearch.core.stage.SpecStage.evidence`) ``n`` children carry, else 1.

    The graph stage's score holds the BM25 score of the index a ``bm25`` child reads, so in
    ``bm25 + graph`` that text evidence would count twice at equal weights: the BM25 list
    gets 1/2 (measured on six development sets in benchmarks/NOTES.md, "Shared evidence
    counts once"). A nested fusion's evidence is not looked into (``(bm25 + graph) + dense``
    weighs its two lists 1 and 1)."""
    ev = child_evidence(children)
    return tuple(1.0 / max(1, sum(e[0] in other for other in ev)) if e else 1.0 for e in ev)


#: MRR a fitted choice must gain over the current parameters on held-out quarters
MIN_GAIN = 0.01


def _rr(ranks: np.ndarray) -> np.ndarray:
    return np.where(ranks > 0, 1.0 / np.maximum(ranks, 1), 0.0)


def _backed_off(ranks: np.ndarray, qids: Sequence[str]) -> int:
    """Row of ``ranks`` (choices x queries; row 0 the current parameters) to keep: the best
    MRR over all queries, if choosing so on three quarters of the queries (by id hash) beat
    row 0 on the fourth by :data:`MIN_GAIN` MRR without losing Hit@10 (pooled) and lost MRR
    on no quarter; else 0."""
    rr, hit = _rr(ranks), (ranks > 0) & (ranks <= 10)
    part = np.array([zlib.crc32(q.encode("utf-8")) % 4 for q in qids])
    picked = np.zeros(len(qids), np.int64)
    for p in range(4):
        test = part == p
        if test.all() or not test.any():
            return 0
        picked[test] = int(np.argmax(rr[:, ~test].mean(axis=1)))
        if rr[picked[test][0], test].mean() < rr[0, test].mean() - 1e-12:
            return 0
    cols = np.arange(len(qids))
    if (rr[picked, cols].mean() < rr[0].mean() + MIN_GAIN) or hit[picked, cols].mean() < hit[0].mean():
        return 0
    return int(np.argmax(rr.mean(axis=1)))


def _first_ranks(run: Run, qrels: Qrels, qids: Sequence[str]) -> np.ndarray:
    """Rank of each query's first relevant document (0: none returned)."""
    out = []
    for q in qids:
        rel = {d for d, g in qrels.get(q, {}).items() if g > 0}
        out.append(next((i for i, (d, _) in enumerate(run.ranked(q), start=1) if d in rel), 0))
    return np.array(out, np.int64)


@register_stage
class RRFStage(FusionStage):
    """Reciprocal rank fusion of child stages (Cormack et al., 2009): ``rrf(a, b)``."""

    name = "rrf"

    @dataclass
    class Params:
        k: int = 60
        weights: tuple[float, ...] = ()
        depth: int | None = None

    def fuse(self, runs: Sequence[Run]) -> Run:
        """:func:`~skbsearch.core.fusion.rrf` of ``runs``."""
        return rrf(runs, self.params.k, self.params.weights or None, self.params.depth)


def fuse(a: Any, b: Any) -> FuseStage:
    """``a + b``: one score-aware fusion over both (a default ``fuse`` operand's children are merged)."""
    kids = []
    for s in (a, b):
        if isinstance(s, FuseStage) and not s.non_default_params():
            kids.extend(s.children)
        else:
            kids.append(s)
    ctx = next((getattr(s, "context", None) for s in kids if getattr(s, "context", None)), None)
    st = FuseStage.from_children(kids, context=ctx)
    assert isinstance(st, FuseStage)
    return st


class _WeightedStage(FusionStage):
    norm = "zscore"
    trainable = True

    @dataclass
    class Params:
        weights: tuple[float, ...] = ()

    def fuse(self, runs: Sequence[Run]) -> Run:
        """:func:`~skbsearch.core.fusion.weighted_fusion` of ``runs`` under this stage's norm."""
        return weighted_fusion(runs, self.params.weights or None, self.norm, self.name)

    def fit(self, queries: Sequence[Query], qrels: Qrels, run: Run | None = None) -> SpecStage:
        """Choose the weights (grid over the simplex, step 0.1) that maximise MRR on ``qrels``."""
        qids, runs = self.judged_child_runs(queries, qrels, run)
        best, best_w = -1.0, None
        for w in _simplex(len(runs), 10):
            fused = weighted_fusion(runs, list(w), self.norm, self.name)
            score = _mrr(fused, qrels, qids)
            if score > best + 1e-12:
                best, best_w = score, w
        self.params.weights = tuple(round(x, 3) for x in best_w or ())
        self._summary = {"kept": "fitted", "weights": self.params.weights,
                         "training": {"queries": len(qids), "fitted": {"mrr": round(best, 4)}}}
        return self

    _summary: dict[str, Any] | None = None

    def fit_summary(self) -> dict[str, Any] | None:
        """The weights the last fit chose and the judged queries' MRR under them."""
        return self._summary


def _simplex(n: int, steps: int) -> list[tuple[float, ...]]:
    if n == 1:
        return [(1.0,)]
    out = []

    def rec(prefix: list[int], left: int) -> None:
        if len(prefix) == n - 1:
            out.append(tuple(x / steps for x in [*prefix, left]))
            return
        for i in range(left + 1):
            rec([*prefix, i], left - i)

    rec([], steps)
    return [w for w in out if any(w)]


def _mrr(run: Run, qrels: Qrels, qids: Sequence[str]) -> float:
    total = 0.0
    for q in qids:
        rel = {d for d, g in qrels.get(q, {}).items() if g > 0}
        for rank, (d, _s) in enumerate(run.ranked(q), start=1):
            if d in rel:
                total += 1.0 / rank
                break
    return total / max(len(qids), 1)


@register_stage
class ZScoreStage(_WeightedStage):
    """Weighted fusion of z-score-normalised scores; ``fit`` learns the weights."""

    name = "zscore"


@register_stage
class MinMaxStage(_WeightedStage):
    """Weighted fusion of min-max-normalised scores; ``fit`` learns the weights."""

    name = "minmax"
    norm = "minmax"


register_fusion(fuse)  # what ``a + b`` builds (core never imports this layer)
