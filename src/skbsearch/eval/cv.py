"""Query-level cross-validation of a pipeline (layer L3): one fold scheme for every benchmark.

:func:`folds_of` splits query ids into ``k`` folds (sorted ids, a seeded shuffle, every
k-th id; sizes differ by at most one). :func:`cross_validate` runs a pipeline with
trainable stages honestly: per fold, :func:`fit_pipeline` trains every trainable stage
on the judged queries of the other folds, then the pipeline scores the held-out fold;
the held-out runs are united, so no query is scored by a model that saw its judgements.
TREC DL (5 folds) and IMPLIRET (2 folds) both use it.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from skbsearch.core.errors import InputError
from skbsearch.core.operators import Pipeline
from skbsearch.core.progress import ProgressFn
from skbsearch.core.stage import SpecStage
from skbsearch.core.types import Qrels, Query, Run
from skbsearch.eval.latency import LatencyRecorder, run_timed, stage_label
from skbsearch.stages.base import trainable_parts


def folds_of(query_ids: Sequence[str], k: int, seed: int = 0) -> list[list[str]]:
    """``k`` disjoint query folds (seeded shuffle, sizes differ by at most one)."""
    if not 2 <= k <= len(query_ids):
        raise InputError(f"--cv-folds must be between 2 and {len(query_ids)}", field="cv_folds")
    ids = sorted(query_ids)
    random.Random(seed).shuffle(ids)
    return [ids[i::k] for i in range(k)]


def _parts(stage: Any) -> list[Any]:
    return list(stage.stages) if isinstance(stage, Pipeline) else [stage]


def trainable_stages(stage: Any) -> list[SpecStage]:
    """The trainable registered stages inside ``stage`` (chains and fusions walked; the stage
    layer's :func:`~skbsearch.stages.base.trainable_parts`)."""
    return trainable_parts(stage)


def fit_pipeline(stage: Any, queries: Sequence[Query], qrels: Qrels,
                 run: Run | None = None) -> Any:
    """Fit every trainable stage in order, each on the run it receives.

    A fusion's children are fitted (on the fusion's input run) before the fusion itself;
    stages after the last trainable one are not run.
    """
    queries = list(queries)
    parts = _parts(stage)
    todo = [i for i, p in enumerate(parts) if trainable_stages(p)]
    for i, part in enumerate(parts[: (todo[-1] + 1) if todo else 0]):
        if i in todo:
            for child in getattr(part, "children", ()):
                fit_pipeline(child, queries, qrels, run)
            if isinstance(part, SpecStage) and part.trainable:
                part.fit(queries, qrels, run)
        if i < todo[-1]:
            run = part(queries, run)
    return stage


@dataclass
class CVResult:
    """The united held-out run, the scored query ids per fold and what each fold's fit did."""

    run: Run
    folds: list[list[str]]
    fits: list[dict[str, Any]] = field(default_factory=list)


def cross_validate(stage: Any, queries: Sequence[Query], qrels: Qrels, run: Run | None = None, *,
                   folds: int, seed: int = 0, train_queries: Sequence[Query] | None = None,
                   recorder: LatencyRecorder | None = None,
                   progress: ProgressFn | None = None) -> CVResult:
    """Query-level ``folds``-fold cross-validation of ``stage`` (module docstring).

    Args:
        stage: a pipeline with trainable stages, bound to its context.
        queries: the queries to score.
        qrels: judgements (training uses those of the training folds only).
        run: the pipeline's input run (e.g. a first stage's candidates), covering the
            training queries too.
        folds: the number of folds (:func:`folds_of`).
        seed: the seed of the fold scheme (:func:`folds_of`).
        train_queries: the queries folds are drawn from and training uses (default:
            ``queries``); a superset lets training see queries that are not scored.
        recorder: times the scoring of each held-out fold, stage by stage.
        progress: ``progress("cross-validation", fold, folds)``.
    """
    queries = list(queries)
    pool = list(train_queries) if train_queries is not None else queries
    known = {q.id for q in pool}
    pool += [q for q in queries if q.id not in known]
    fold_ids = folds_of([q.id for q in pool], folds, seed)
    scored = {q.id for q in queries}
    out, info = Run(name=f"{stage_label(stage)}-cv"), []
    for i, fold in enumerate(fold_ids, start=1):
        held = set(fold)
        test = [q for q in queries if q.id in held]
        if progress is not None:
            progress("cross-validation", i - 1, folds)
        if not test:  # nothing to score in this fold: no need to train for it
            info.append({"fold": i, "held_out": 0})
            continue
        train = [q for q in pool if q.id not in held and q.id in qrels]
        t = time.perf_counter()
        fit_pipeline(stage, train, qrels, run)
        fit_s = time.perf_counter() - t
        out.update(run_timed(stage, test, run, recorder or LatencyRecorder()))
        fits = {repr(s): dict(getattr(s, "last_fit", {}) or {}) for s in trainable_stages(stage)}
        info.append({"fold": i, "held_out": len(test), "trained_on": len(train),
                     "fit_s": round(fit_s, 1), "stages": fits})
    if progress is not None:
        progress("cross-validation", folds, folds)
    return CVResult(out, [[q for q in f if q in scored] for f in fold_ids], info)
