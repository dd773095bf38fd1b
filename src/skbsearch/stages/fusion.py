"""Fusion stages (``a + b`` is ``rrf(a, b)``) and the saved-run, filter stages."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from skbsearch.core.errors import InputError
from skbsearch.core.operators import Pipeline
from skbsearch.core.types import Qrels, Query, Run
from skbsearch.retrieve.filters import NodeFilter
from skbsearch.retrieve.hybrid import (
    RRF,
    ScoreFusion,
    WeightedFusion,
    score_fusion,
    weighted_fusion,
)
from skbsearch.stages.base import SpecStage, bind, format_value
from skbsearch.stages.context import StageContext
from skbsearch.stages.registry import register_stage


class FusionStage(SpecStage):
    """Base of fusion stages: child stages run on the same queries, then their Runs fuse."""

    category = "fusion"
    children: list[Any]

    @classmethod
    def from_children(cls, children: Sequence[Any], context: StageContext | None = None,
                      **params: Any) -> FusionStage:
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

    def __init__(self, context: StageContext | None = None, **params: Any) -> None:
        super().__init__(context, **params)
        self.children = []

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
        return (type(self) is type(other) and self.params == other.params  # type: ignore[attr-defined]
                and len(self.children) == len(other.children)  # type: ignore[attr-defined]
                and all(a == b for a, b in zip(self.children, other.children, strict=True)))  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]

    def bind(self, context: StageContext) -> SpecStage:
        super().bind(context)
        for c in self.children:
            bind(c, context)
        return self


@register_stage
class FuseStage(FusionStage):
    """Score-aware fusion that keeps a confident list's top; ``a + b`` in a spec (fit learns weights)."""

    name = "fuse"
    trainable = True

    @dataclass
    class Params:
        weights: tuple[float, ...] = field(default=(), metadata={"help": "one per stage (default 1 each)"})
        top: float = field(default=2.0, metadata={
            "help": "weight of the best normalised score a candidate has in any list (0: CombSUM)"})
        depth: int = field(default=100, metadata={"help": "candidates of each list normalised and fused"})

        def check(self) -> None:
            if self.top < 0 or self.depth < 1:
                raise InputError("fuse needs top >= 0 and depth >= 1", field="top")

    def build(self, context: StageContext) -> Any:
        return ScoreFusion(*self.children, weights=self.params.weights or None, top=self.params.top,
                           depth=self.params.depth)

    def fit(self, queries: Sequence[Query], qrels: Qrels, run: Run | None = None) -> SpecStage:
        """Choose the weights (simplex, step 0.1) and ``top`` (0, 1, 2, 4) that maximise MRR."""
        queries = [q for q in queries if q.id in qrels]
        if not queries:
            raise InputError("fit needs judged queries (none of the queries is in the qrels)",
                             field="qrels")
        runs = [c(queries, run) for c in self.children]
        qids = [q.id for q in queries]
        best, choice = -1.0, None
        for top in (2.0, 0.0, 1.0, 4.0):
            for w in _simplex(len(runs), 10):
                score = _mrr(score_fusion(runs, list(w), top, self.params.depth), qrels, qids)
                if score > best + 1e-12:
                    best, choice = score, (w, top)
        if choice is not None:
            self.params.weights = tuple(round(x, 3) for x in choice[0])
            self.params.top = choice[1]
        self._built = None
        return self


@register_stage
class RRFStage(FusionStage):
    """Reciprocal rank fusion of child stages (Cormack et al., 2009): ``rrf(a, b)``."""

    name = "rrf"

    @dataclass
    class Params:
        k: int = 60
        weights: tuple[float, ...] = ()
        depth: int | None = None

    def build(self, context: StageContext) -> Any:
        return RRF(*self.children, k=self.params.k, weights=self.params.weights or None,
                   depth=self.params.depth)


def fuse(a: Any, b: Any) -> FuseStage:
    """``a + b``: one score-aware fusion over both (a default ``fuse`` operand's children are merged)."""
    kids = []
    for s in (a, b):
        if isinstance(s, FuseStage) and not s.non_default_params():
            kids.extend(s.children)
        else:
            kids.append(s)
    ctx = next((getattr(s, "context", None) for s in kids if getattr(s, "context", None)), None)
    return FuseStage.from_children(kids, context=ctx)


class _WeightedStage(FusionStage):
    norm = "zscore"
    trainable = True

    @dataclass
    class Params:
        weights: tuple[float, ...] = ()

    def build(self, context: StageContext) -> Any:
        w = self.params.weights or (1.0,) * len(self.children)
        return WeightedFusion(list(zip(self.children, w, strict=True)), norm=self.norm,
                              name=self.name)

    def fit(self, queries: Sequence[Query], qrels: Qrels, run: Run | None = None) -> SpecStage:
        """Choose the weights (grid over the simplex, step 0.1) that maximise MRR on ``qrels``."""
        queries = [q for q in queries if q.id in qrels]
        if not queries:
            raise InputError("fit needs judged queries (none of the queries is in the qrels)",
                             field="qrels")
        runs = [c(queries, run) for c in self.children]

        best, best_w = -1.0, None
        for w in _simplex(len(runs), 10):
            fused = weighted_fusion(runs, list(w), self.norm, self.name)
            score = _mrr(fused, qrels, [q.id for q in queries])
            if score > best + 1e-12:
                best, best_w = score, w
        self.params.weights = tuple(round(x, 3) for x in best_w or ())
        self._built = None
        return self


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


@register_stage
class SavedRunStage(SpecStage):
    """A saved TREC run file as a stage (first stage, or to fuse with live stages)."""

    name = "run"
    category = "input"

    @dataclass
    class Params:
        path: str = field(metadata={"help": "TREC run file (qid Q0 doc rank score tag)"})

    def build(self, context: StageContext | None) -> Any:
        return _RunFile(Run.from_trec(self.params.path))

    @property
    def inner(self) -> Any:
        if self._built is None:
            self._built = self.build(self.context)
        return self._built


class _RunFile:
    def __init__(self, run: Run) -> None:
        self.run = run

    def __call__(self, queries: Sequence[Query], run: Run | None = None) -> Run:
        return Run({q.id: dict(self.run.get(q.id, {})) for q in queries}, name=self.run.name)


@register_stage
class FilterStage(SpecStage):
    """Keep the incoming candidates whose node has one of ``types`` and passes ``where``."""

    name = "filter"
    category = "filter"

    @dataclass
    class Params:
        types: tuple[str, ...] = ()
        where: str | None = None

    def build(self, context: StageContext) -> Any:
        flt = NodeFilter(self.params.types, self.params.where)
        allowed = np.zeros(context.kb.num_nodes, dtype=bool)
        allowed[flt.node_indices(context.kb)] = True
        kb = context.kb

        def keep(queries: Sequence[Query], run: Run | None = None) -> Run:
            if run is None:
                raise InputError("filter narrows a run: put a retriever before it",
                                 field="pipeline")
            out = Run()
            for q in queries:
                out[q.id] = {d: s for d, s in run.get(q.id, {}).items()
                             if kb.has_node(d) and allowed[int(kb.index_of(d))]}
            return out

        return keep
