"""Fit a pipeline only where it helps: held-out folds decide between fitted and untrained.

:func:`choose_fit` scores the untrained pipeline and, by query-level cross-validation
(:func:`skbsearch.eval.cv.cross_validate`: each fold fitted on the other folds), the fitted
one on the same judged queries. The fitted pipeline is kept only if it beats the untrained
one on the chosen metric over the held-out folds; then it is fitted on every judged query
and :func:`save_fitted` writes its models and the spec that reloads them (``skb fit``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from skbsearch.core.atomic import atomic_dir
from skbsearch.core.errors import InputError
from skbsearch.core.progress import ProgressFn
from skbsearch.core.types import Qrels, Query
from skbsearch.eval.cv import cross_validate, fit_pipeline, trainable_stages
from skbsearch.eval.evaluate import evaluate

METRICS = ("hit@1", "hit@5", "hit@10", "mrr")
#: The artefact kind of an ``skb fit`` output directory (its marker: ``fit.json``).
FIT_ARTEFACT = "fit"


@dataclass
class FitChoice:
    """Untrained vs fitted on held-out folds, and whether the fitted pipeline is kept."""

    metric: str
    folds: int
    queries: int
    untrained: dict[str, float]
    fitted: dict[str, float]
    keep: bool
    fit_seconds: float
    spec: str = ""
    models: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict."""
        return asdict(self)


def choose_fit(build: Callable[[], Any], queries: Sequence[Query], qrels: Qrels, *, folds: int = 5,
               metric: str = "mrr", metrics: Sequence[str] = METRICS, seed: int = 0,
               progress: ProgressFn | None = None) -> tuple[FitChoice, Any]:
    """Compare the fitted pipeline with the untrained one on held-out folds.

    Args:
        build: makes a fresh, untrained pipeline (bound to its SKB).
        queries, qrels: judged queries (queries without judgements are ignored).
        folds, seed: the fold scheme (:func:`skbsearch.eval.cv.folds_of`).
        metric: the metric that decides (must be one of ``metrics``).

    Returns:
        the :class:`FitChoice` and, when it is kept, the pipeline fitted on every judged
        query (else the untrained one).
    """
    if metric not in metrics:
        metrics = [*metrics, metric]
    judged = [q for q in queries if q.id in qrels]
    if len(judged) < max(folds, 2):
        raise InputError(f"fit needs at least {max(folds, 2)} judged queries, got {len(judged)}",
                         field="queries")
    untrained = build()
    if not trainable_stages(untrained):
        raise InputError(f"nothing to fit in {untrained!r}: no trainable stage (see 'skb stages')",
                         field="pipeline")
    sub = Qrels({q.id: qrels[q.id] for q in judged})
    plain = evaluate(untrained(judged), sub, list(metrics))
    t0 = time.perf_counter()
    cv = cross_validate(build(), judged, sub, folds=folds, seed=seed, progress=progress)
    fitted = evaluate(cv.run, sub, list(metrics))
    keep = fitted[metric] > plain[metric] + 1e-12
    final = untrained
    if keep:
        final = fit_pipeline(build(), judged, sub)
    seconds = time.perf_counter() - t0
    choice = FitChoice(metric, folds, len(judged), {k: round(v, 4) for k, v in plain.items()},
                       {k: round(v, 4) for k, v in fitted.items()}, keep, round(seconds, 1))
    return choice, final


def save_fitted(stage: Any, out: str | Path, choice: FitChoice) -> FitChoice:
    """Write a kept pipeline's models under ``out`` (one directory per model stage), its
    spec (``out/pipeline.txt``, loadable with ``-p "$(cat out/pipeline.txt)"``) and the
    comparison (``out/fit.json``, marked ``"artefact": "fit"``); a pipeline not kept writes
    only ``fit.json``. ``out`` is replaced whole (atomically), and only when it is new, empty
    or an earlier output of this function: an earlier ``pipeline.txt`` never outlives a
    fit that was not kept."""
    out = Path(out)
    with atomic_dir(out, kind=FIT_ARTEFACT) as tmp:
        if choice.keep:
            for i, s in enumerate(trainable_stages(stage)):
                if callable(getattr(s, "save_model", None)):
                    name = f"{s.name}-{i}"
                    s.save_model(tmp / name)
                    params = getattr(s, "params", None)
                    if getattr(params, "model", None) == str(tmp / name):
                        params.model = str(out / name)  # the spec names where it will be
                    choice.models.append(str(out / name))
            choice.spec = repr(stage)
            (tmp / "pipeline.txt").write_text(choice.spec + "\n", encoding="utf-8")
        record = {"artefact": FIT_ARTEFACT, **choice.to_dict()}
        (tmp / "fit.json").write_text(json.dumps(record, indent=1), encoding="utf-8")
    return choice
