"""Compare systems on one query set with paired significance tests (PyTerrier's
``pt.Experiment``, ranx's ``compare``).

    from skbsearch.eval.experiment import Experiment
    res = Experiment({"bm25": bm25, "hybrid": hybrid_run}, queries, qrels,
                     ["ndcg@10", "mrr@10"], baseline="bm25", correction="holm")
    res.table_rows()      # systems × metrics, ▲/▼ marks, p-values, ms/query
    res.to_latex("t.tex"); res.to_csv("t.csv"); res.plot("t.png")

A system is a :class:`Run` (or ``{qid: {doc: score}}``) or a stage (any callable
``stage(queries) -> Run``); stages are run once over all queries (one batch) and timed:
mean ms a query (``ms_per_query``), after the set-up of a pipeline's registered stages
(indexes opened, name tables, type graph: :func:`skbsearch.core.stage.prepare`), which is
timed apart (``setup_s``, seconds). Per-query scores come from :func:`skbsearch.eval.evaluate` (``per_query=True``),
averaged over every query of the (restricted) qrels, a query missing from a run scoring 0
(``complete=True``). When ``queries`` are given, the qrels are first restricted to them
(PyTerrier's default). Per-query numbers: ``res.to_dataframe(per_query=True)``.

Comparisons (tests in :mod:`skbsearch.eval.significance`):

* with a ``baseline``: every other system against it; marks ``▲`` (significantly better)
  and ``▼`` (significantly worse). The correction family is one metric across the
  systems (PyTerrier's choice).
* without one (and ≥ 2 systems): every pair, as ranx; systems are labelled a, b, c… and
  a mean carries the superscript labels of the systems it is significantly better than.
  The correction family is one metric across all pairs.

Significant means adjusted p < ``alpha``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from skbsearch.core.errors import InputError
from skbsearch.core.progress import ProgressFn as Progress
from skbsearch.core.stage import prepare
from skbsearch.core.types import Qrels, Query, Run, as_queries
from skbsearch.eval.evaluate import evaluate, parse_metrics
from skbsearch.eval.experiment_report import ReportMixin
from skbsearch.eval.significance import (
    Comparison,
    check_correction,
    check_test,
    correct,
    paired_pvalue,
)

System = Mapping[str, Mapping[str, float]] | Callable[..., Any]


@dataclass
class ExperimentResult(ReportMixin):
    """Means, paired comparisons and latency of several systems on one query set."""

    systems: list[str]
    metrics: list[str]
    query_ids: list[str]
    scores: dict[str, dict[str, np.ndarray]]  #: system -> metric -> per-query scores
    ms_per_query: dict[str, float | None]
    baseline: str | None
    test: str
    correction: str | None
    alpha: float
    comparisons: list[Comparison] = field(default_factory=list)
    per_query: bool = False
    #: system -> seconds its stages took to set up before the timed queries (``None``: a run)
    setup_s: dict[str, float | None] = field(default_factory=dict)

    @property
    def means(self) -> dict[str, dict[str, float]]:
        """``{system: {metric: mean over queries}}``."""
        return {s: {m: float(v.mean()) if v.size else 0.0 for m, v in ms.items()}
                for s, ms in self.scores.items()}

    def comparison(self, system: str, other: str, metric: str) -> Comparison | None:
        """The test of ``system`` against ``other`` (either order), oriented from ``system``."""
        for c in self.comparisons:
            if c.metric != metric:
                continue
            if (c.system, c.other) == (system, other):
                return c
            if (c.system, c.other) == (other, system):
                return Comparison(system, other, metric, -c.delta, c.p_value, c.p_adjusted,
                                  c.significant, c.worse, c.better)
        return None

    def p_value(self, system: str, metric: str, adjusted: bool = True) -> float | None:
        """The p-value of ``system`` against the baseline (``None`` for the baseline)."""
        if self.baseline is None:
            raise ValueError("no baseline: use comparison(system, other, metric)")
        c = self.comparison(system, self.baseline, metric)
        if c is None:
            return None
        return c.p_adjusted if adjusted else c.p_value


def Experiment(  # PyTerrier's name (pt.Experiment)
    systems: Mapping[str, System] | Sequence[System],
    queries: Iterable[Query] | Mapping[str, str] | None,
    qrels: Qrels | Mapping[str, Mapping[str, int]],
    metrics: str | Sequence[str],
    *,
    baseline: str | int | None = None,
    test: str = "t",
    correction: str | None = None,
    alpha: float = 0.05,
    per_query: bool = False,
    n_permutations: int = 10_000,
    seed: int = 42,
    min_grade: int = 1,
    gains: str = "linear",
    progress: Progress | None = None,
) -> ExperimentResult:
    """Evaluate and compare ``systems`` (see the module docstring).

    Args:
        systems: ``{name: run_or_stage}``, or a list (named by ``.name`` or ``repr``).
        queries: the query set (needed when a system is a stage); ``None`` for runs only.
        qrels: judgements; restricted to ``queries`` when those are given.
        metrics: names such as ``["ndcg@10", "mrr@10"]`` or ``"ndcg@10,mrr@10"``.
        baseline: a system name or index; ``None`` compares every pair.
        test: ``"t"``, ``"wilcoxon"`` or ``"randomization"``.
        correction: ``None``, ``"holm"`` or ``"bonferroni"``.
        alpha: significance level (adjusted p < alpha).
        per_query: include per-query scores in exports (``to_json``, the CLI).
        n_permutations: draws of the randomization test.
        seed: seed of the randomization test.
        min_grade: passed to :func:`evaluate`.
        gains: passed to :func:`evaluate`.
        progress: ``progress(stage, done, total)`` callback, one step a system.
    """
    check_test(test)
    check_correction(correction)
    if not 0.0 < alpha < 1.0:
        raise InputError(f"alpha must be in (0, 1), got {alpha}", field="alpha")
    names = [s.name for s in parse_metrics(metrics)]
    named = _named_systems(systems)
    qlist = as_queries(queries) if queries is not None else None
    judged = _restrict(qrels, qlist)
    base = _resolve_baseline(baseline, list(named))
    query_ids = list(judged)
    scores: dict[str, dict[str, np.ndarray]] = {}
    latency: dict[str, float | None] = {}
    setup: dict[str, float | None] = {}
    for i, (name, system) in enumerate(named.items()):
        if progress:
            progress(f"running {name}", i, len(named))
        run, latency[name], setup[name] = _run_system(name, system, qlist)
        per_q = evaluate(run, judged, names, per_query=True, complete=True, min_grade=min_grade,
                         gains=gains)
        scores[name] = {m: np.array([per_q[q][m] for q in query_ids]) for m in names}
    if progress:
        progress("running", len(named), len(named))
    pairs = _pairs(list(named), base)
    comparisons = _compare(scores, pairs, names, test, correction, alpha, n_permutations, seed)
    return ExperimentResult(list(named), names, query_ids, scores, latency, base, test,
                            correction, alpha, comparisons, per_query, setup)


# ---------------------------------------------------------------------- internals
def _named_systems(systems: Mapping[str, System] | Sequence[System]) -> dict[str, System]:
    if isinstance(systems, Mapping) and not _is_run(systems):
        named = {str(k): v for k, v in systems.items()}
    else:
        if _is_run(systems):
            systems = [systems]  # type: ignore[list-item]
        named = {}
        for i, s in enumerate(systems):  # type: ignore[union-attr]
            base = getattr(s, "name", None) if _is_run(s) else repr(s)
            base = str(base or f"system{i + 1}")
            name, n = base, 2
            while name in named:
                name, n = f"{base}-{n}", n + 1
            named[name] = s
    if not named:
        raise InputError("no systems to compare", field="systems")
    return named


def _is_run(obj: Any) -> bool:
    """A Run or a ``{qid: {doc: score}}`` mapping (not a ``{name: system}`` mapping)."""
    if isinstance(obj, Run):
        return True
    if not isinstance(obj, Mapping) or not obj:
        return False
    first = next(iter(obj.values()))
    return isinstance(first, Mapping) and all(
        isinstance(v, (int, float)) for v in list(first.values())[:5]
    )


def _restrict(qrels: Qrels | Mapping[str, Mapping[str, int]], queries: list[Query] | None) -> Qrels:
    q = qrels if isinstance(qrels, Qrels) else Qrels(qrels)
    if queries is None:
        if not q:
            raise InputError("the qrels are empty", field="qrels")
        return q
    ids = {x.id for x in queries}
    out = Qrels({qid: docs for qid, docs in q.items() if qid in ids})
    if not out:
        raise InputError(f"none of the {len(ids)} queries has qrels; check that query ids "
                         "match the qrels' ids", field="qrels")
    return out


def _resolve_baseline(baseline: str | int | None, names: list[str]) -> str | None:
    if baseline is None:
        return None
    if isinstance(baseline, int) and not isinstance(baseline, bool):
        if not -len(names) <= baseline < len(names):
            raise InputError(f"baseline index {baseline} out of range for {len(names)} systems",
                             field="baseline")
        return names[baseline]
    if baseline not in names:
        raise InputError(f"baseline {baseline!r} is not a system; systems: {', '.join(names)}",
                         field="baseline")
    return str(baseline)


def _run_system(name: str, system: System, queries: list[Query] | None
                ) -> tuple[Run, float | None, float | None]:
    """The system's run, its ms a query and its set-up seconds (``None``: a run)."""
    if _is_run(system) or (isinstance(system, Mapping) and not system):
        return (system if isinstance(system, Run) else Run(system, name=name)), None, None  # type: ignore[arg-type]
    if not callable(system):
        raise InputError(f"system {name!r} is neither a run nor a stage (got "
                         f"{type(system).__name__})", field="systems")
    if not queries:
        raise InputError(f"system {name!r} is a stage: give the queries to run it on",
                         field="queries")
    start = time.perf_counter()
    prepare(system)  # set-up (indexes, name tables) is not a query's cost
    setup_s = time.perf_counter() - start
    start = time.perf_counter()
    run = system(queries)
    elapsed_ms = (time.perf_counter() - start) * 1000.0
    if not isinstance(run, Mapping):
        raise InputError(f"stage {name!r} returned {type(run).__name__}, not a Run",
                         field="systems")
    return (run if isinstance(run, Run) else Run(run, name=name)), elapsed_ms / len(queries), setup_s


def _pairs(names: list[str], baseline: str | None) -> list[tuple[str, str]]:
    if baseline is not None:
        return [(s, baseline) for s in names if s != baseline]
    return [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]


def _compare(
    scores: dict[str, dict[str, np.ndarray]], pairs: list[tuple[str, str]], metrics: list[str],
    test: str, correction: str | None, alpha: float, n_permutations: int, seed: int,
) -> list[Comparison]:
    out: list[Comparison] = []
    for m in metrics:  # one correction family per metric
        raw = [paired_pvalue(scores[a][m], scores[b][m], test, n_permutations=n_permutations,
                             seed=seed) for a, b in pairs]
        adjusted = correct(raw, correction)
        for (a, b), p, q in zip(pairs, raw, adjusted, strict=True):
            x, y = scores[a][m], scores[b][m]
            delta = float(x.mean() - y.mean()) if x.size else 0.0
            out.append(Comparison(a, b, m, delta, float(p), float(q),
                                  bool(q < alpha and delta != 0.0),
                                  int(np.count_nonzero(x > y)), int(np.count_nonzero(x < y))))
    return out
