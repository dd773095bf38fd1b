"""Operations over whole pipelines of registered stages: binding a context, preparing (set-up
before the first query), fitting in order, structural equality."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from skbsearch.core.operators import Cutoff, Pipeline
from skbsearch.core.stage import SpecStage, prepare  # noqa: F401 (prepare: re-exported)
from skbsearch.core.types import Qrels, Query, Run
from skbsearch.stages.context import StageContext


def bind(stage: Any, context: StageContext) -> Any:
    """Bind ``context`` to every registered stage inside ``stage`` (pipelines, fusions)."""
    if isinstance(stage, Pipeline):
        for s in stage.stages:
            bind(s, context)
    elif isinstance(stage, SpecStage):
        stage.bind(context)
        for child in getattr(stage, "children", ()):
            bind(child, context)
    return stage


def fit(stage: Any, queries: Sequence[Query], qrels: Qrels, run: Run | None = None) -> Any:
    """Fit every trainable stage of a pipeline in order, each on the run it receives (a
    fusion's children first, on the fusion's input run; then the fusion itself)."""
    queries = list(queries)
    parts = stage.stages if isinstance(stage, Pipeline) else [stage]
    for part in parts:
        for child in getattr(part, "children", ()):
            fit(child, queries, qrels, run)
        if isinstance(part, SpecStage) and part.trainable:
            part.fit(queries, qrels, run)
        if part is not parts[-1]:
            run = part(queries, run)
    return stage


def stages_equal(a: Any, b: Any) -> bool:
    """Structural equality of two pipelines built by the spec parser or the operators."""
    if isinstance(a, Pipeline) and isinstance(b, Pipeline):
        return len(a.stages) == len(b.stages) and all(
            stages_equal(x, y) for x, y in zip(a.stages, b.stages, strict=True))
    if isinstance(a, Cutoff) and isinstance(b, Cutoff):
        return a.k == b.k
    return a == b
