"""What the benchmark protocols share: one alias table from the old re-ranker names to
pipeline specs, and re-ranking a first stage's run with a (possibly trained) pipeline.

Every bench command takes ``--pipeline SPEC`` in the language of ``skb run`` (parsed by
:mod:`skbsearch.stages`). The old names stay as aliases: TREC DL's ``--reranker NAME``
and IMPLIRET's ``bm25>NAME`` map through :data:`RERANKER_ALIASES` (``gnn-rl`` and
``grag-rl`` are one row), their option flags becoming the stage's parameters.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from skbsearch.core.errors import InputError
from skbsearch.core.operators import Pipeline
from skbsearch.core.progress import ProgressFn
from skbsearch.core.types import Qrels, Query, Run
from skbsearch.eval.cv import cross_validate, trainable_stages
from skbsearch.eval.latency import LatencyRecorder, run_timed
from skbsearch.stages import get_stage, stage
from skbsearch.stages.base import SpecStage

#: Old re-ranker name -> (registered stage, its fixed parameters). ``none``/``bm25`` are
#: the input run itself (the benchmark's first stage).
RERANKER_ALIASES: dict[str, tuple[str, dict[str, Any]]] = {
    "none": ("input", {}),
    "bm25": ("input", {}),
    "bi-encoder": ("dense", {}),
    "cross-encoder": ("cross-encoder-ft", {}),
    "llm": ("llm", {"kind": "passage"}),
    "mlp": ("gnn-row", {"row": "mlp"}),
    "gcn": ("gnn-row", {"row": "gcn"}),
    "gnn": ("gnn-row", {"row": "grag"}),
    "grag": ("gnn-row", {"row": "grag"}),
    "gnn-rl": ("gnn-row", {"row": "grag-rl"}),
    "grag-rl": ("gnn-row", {"row": "grag-rl"}),
}
#: How ``fusion:A+B`` fuses: RRF (k = 60) or the min-max normalised weighted sum.
FUSIONS = {"rrf": "rrf", "wsum": "minmax"}


Aliases = dict[str, tuple[str, dict[str, Any]]]


def alias_stage(name: str, params: dict[str, Any] | None = None,
                table: Aliases | None = None) -> Any:
    """The stage an old re-ranker name stands for, with ``params`` (``None`` values dropped).

    ``run:FILE`` is a saved TREC run (the ``run`` stage); ``table`` overrides
    :data:`RERANKER_ALIASES`.
    """
    table = RERANKER_ALIASES if table is None else table
    if name.startswith("run:"):
        return stage("run", path=name[4:])
    if name not in table:
        raise InputError(f"unknown re-ranker {name!r}; use one of "
                         f"{', '.join(table)}, fusion:<a>+<b> or run:FILE, or give "
                         "--pipeline SPEC", field="reranker")
    base, fixed = table[name]
    cls = get_stage(base)
    known = {f.name for f in cls.param_fields()}
    extra = {k: v for k, v in (params or {}).items() if v is not None and k in known}
    return cls(None, **{**fixed, **extra})


def alias_spec(name: str, params_of: Any = None, fusion: str = "rrf",
               table: Aliases | None = None) -> str:
    """The spec of an old re-ranker name, ``fusion:A+B`` included.

    ``params_of(part) -> dict`` gives each named part's parameters (e.g. the option flags
    of its kind); unknown parameters of a stage are ignored.
    """
    get = params_of or (lambda part: {})
    if not name.startswith("fusion:"):
        return repr(alias_stage(name, get(name), table))
    parts = [p.strip() for p in name[len("fusion:"):].split("+") if p.strip()]
    if len(parts) < 2:
        raise InputError("write fusion:<a>+<b>, e.g. fusion:cross-encoder+bm25", field="reranker")
    if fusion not in FUSIONS:
        raise InputError(f"unknown fusion {fusion!r}; use one of {', '.join(FUSIONS)}",
                         field="fusion")
    kids = [alias_stage(p, get(p), table) for p in parts]
    return repr(get_stage(FUSIONS[fusion]).from_children(kids))


def warm(stage: Any) -> None:
    """Build every registered stage of ``stage`` now (indexes, enrichment), not at query time."""
    parts = stage.stages if isinstance(stage, Pipeline) else [stage]
    for part in parts:
        for child in getattr(part, "children", ()):
            warm(child)
        if isinstance(part, SpecStage):
            _ = part.inner


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
