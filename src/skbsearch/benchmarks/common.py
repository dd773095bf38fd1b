"""What the benchmark protocols share: re-ranking a first stage's run with a (possibly
trained) pipeline, and the sentence a cross-validated result's protocol gets.

Every bench command takes ``--pipeline SPEC`` in the language of ``skb run`` (parsed by
:mod:`skbsearch.stages`); no protocol dispatches on names.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from skbsearch.core.progress import ProgressFn
from skbsearch.core.stage import prepare
from skbsearch.core.types import Qrels, Query, Run
from skbsearch.eval.cv import cross_validate, trainable_stages
from skbsearch.eval.latency import LatencyRecorder, run_timed


def warm(stage: Any) -> None:
    """Build every registered stage of ``stage`` now (indexes, enrichment), not at query time
    (:func:`skbsearch.core.stage.prepare`)."""
    prepare(stage)


def rerank(pipe: Any, queries: Sequence[Query], qrels: Qrels, run: Run | None, *,
           folds: int | None = None, seed: int = 0,
           train_queries: Sequence[Query] | None = None, recorder: LatencyRecorder,
           progress: ProgressFn | None = None) -> tuple[Run, dict[str, Any]]:
    """``pipe`` over ``queries`` with ``run`` as its input; cross-validated when it trains.

    With ``folds`` and trainable stages: :func:`skbsearch.eval.cv.cross_validate` (fit on
    the other folds' judged queries, score the held-out fold). Without ``folds`` the
    stages run as given (a fusion with its given weights; a ``gnn-row`` or
    ``cross-encoder-ft`` without a model says that it needs folds). Returns the run and
    what to record of the folds (empty without cross-validation).
    """
    trained = trainable_stages(pipe)
    if not trained or not folds:
        warm(pipe)  # indexes (and models) are built before the clock starts
        return run_timed(pipe, queries, run, recorder), {}
    cv = cross_validate(pipe, queries, qrels, run, folds=folds, seed=seed,
                        train_queries=train_queries, recorder=recorder, progress=progress)
    return cv.run, {"folds": folds, "fold_seed": seed,
                    "fold_sizes": [len(f) for f in cv.folds], "fits": cv.fits,
                    "trained": [repr(s) for s in trained]}


def cv_protocol(folds: int, seed: int) -> str:
    """The sentence a result's protocol gets for a cross-validated pipeline."""
    return (f"trainable stages fitted with {folds}-fold query-level cross-validation (folds: "
            f"sorted query ids shuffled with seed {seed}, every {folds}th; per fold: trained "
            "on the other folds' judged queries, scores the held-out fold; held-out runs "
            "united)")
