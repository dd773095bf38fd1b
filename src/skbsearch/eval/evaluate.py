"""Evaluate runs against qrels with metrics named by strings (``"ndcg@10"``, ``"mrr"``…).

Conventions (trec_eval's, so numbers match pytrec_eval / ir-measures):

* ranking: score descending, ties by doc id descending (see ``metrics.ranking``);
* averaging: over **the run's queries that have qrels** (trec_eval's default), and says so:
  a warning (:class:`SubsetWarning`) and the result's ``left_out`` name the qrels queries
  the run lacks. ``complete=True`` averages over every query in the qrels instead, a query
  missing from the run scoring 0 (trec_eval ``-c``); ``queries=`` averages over the judged
  queries among those given. A stage's Run has a row for every query it was asked (empty
  when it found nothing), so a pipeline's Run is scored over all the queries it ran; queries
  with qrels but no relevant document score 0; run queries without qrels are ignored;
* relevance: a document is relevant when its grade is ``>= min_grade`` (default 1);
  nDCG gains are the grades themselves (``gains="exp"`` for 2^grade − 1).

Metric names (case-insensitive; ``@k`` a positive cut-off):
``hit@k`` (aliases ``hits@k``, ``success@k``), ``recall[@k]`` (``r@k``), ``precision@k``
(``p@k``), ``mrr[@k]`` (``rr``), ``map[@k]`` (``ap``), ``ndcg[@k]``, and G-RAG's
``mrr_all``, ``mhits@k``, ``mtrr``, ``tmhits@k``.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from skbsearch.core.errors import InputError, MissingDependencyError
from skbsearch.core.types import Qrels, Run
from skbsearch.eval.metrics.hits import hit_kernel
from skbsearch.eval.metrics.map import ap_kernel
from skbsearch.eval.metrics.ndcg import ndcg_kernel
from skbsearch.eval.metrics.precision import precision_kernel
from skbsearch.eval.metrics.ranking import RankedJudgements
from skbsearch.eval.metrics.recall import recall_kernel
from skbsearch.eval.metrics.rr import rr_kernel
from skbsearch.eval.metrics.tied import mtrr_kernel, rr_all_kernel, tmhits_kernel

#: family -> whether a cut-off is "required", "optional" or "none".
CUTOFF_RULES: dict[str, str] = {
    "hit": "required",
    "recall": "optional",
    "precision": "required",
    "mrr": "optional",
    "map": "optional",
    "ndcg": "optional",
    "mrr_all": "none",
    "mhits": "required",
    "mtrr": "none",
    "tmhits": "required",
}
ALIASES: dict[str, str] = {
    "hits": "hit",
    "success": "hit",
    "r": "recall",
    "p": "precision",
    "rr": "mrr",
    "ap": "map",
}
_NAME = re.compile(r"^([a-z_]+)(?:@(\d+))?$")


@dataclass(frozen=True)
class MetricSpec:
    """A parsed metric name: its family and optional cut-off; ``name`` as the user wrote it."""

    name: str
    family: str
    k: int | None


def parse_metric(name: str) -> MetricSpec:
    """Parse ``"ndcg@10"``-style names; raise :class:`InputError` naming what is wrong."""
    raw = name.strip().lower()
    m = _NAME.match(raw)
    known = ", ".join(sorted(CUTOFF_RULES))
    if not m:
        raise InputError(
            f"cannot parse metric {name!r}; write a name and an optional cut-off, e.g. "
            f"'ndcg@10' or 'mrr' (known: {known})",
            field="metrics",
        )
    family = ALIASES.get(m.group(1), m.group(1))
    k = int(m.group(2)) if m.group(2) is not None else None
    rule = CUTOFF_RULES.get(family)
    if rule is None:
        raise InputError(f"unknown metric {name!r}; known: {known}", field="metrics")
    if rule == "required" and k is None:
        raise InputError(f"metric {name!r} needs a cut-off, e.g. '{family}@10'", field="metrics")
    if rule == "none" and k is not None:
        raise InputError(f"metric {family!r} takes no cut-off; write '{family}'", field="metrics")
    if k is not None and k < 1:
        raise InputError(f"metric {name!r}: the cut-off must be >= 1", field="metrics")
    return MetricSpec(raw, family, k)


def parse_metrics(metrics: str | Iterable[str]) -> list[MetricSpec]:
    """Parse a comma-separated string or a list of names (duplicates dropped, order kept)."""
    names = metrics.split(",") if isinstance(metrics, str) else list(metrics)
    specs: dict[str, MetricSpec] = {}
    for n in names:
        if n.strip():
            spec = parse_metric(n)
            specs.setdefault(spec.name, spec)
    if not specs:
        raise InputError("no metrics given, e.g. 'ndcg@10,mrr@10'", field="metrics")
    return list(specs.values())


def _compute(
    spec: MetricSpec, rj: RankedJudgements, min_grade: int, gains: str, literal_ties: bool
) -> np.ndarray:
    rel = rj.relevant(min_grade)
    k = spec.k
    kernels: dict[str, Callable[[], np.ndarray]] = {
        "hit": lambda: hit_kernel(rel, k),
        "recall": lambda: recall_kernel(rel, rj.n_relevant(min_grade), k),
        "mhits": lambda: recall_kernel(rel, rj.n_relevant(min_grade), k),
        "precision": lambda: precision_kernel(rel, k),
        "mrr": lambda: rr_kernel(rel, k),
        "map": lambda: ap_kernel(rel, rj.n_relevant(min_grade), k),
        "ndcg": lambda: ndcg_kernel(*rj.gains(min_grade, gains), k),
        "mrr_all": lambda: rr_all_kernel(rel, rj.n_relevant(min_grade)),
        "mtrr": lambda: mtrr_kernel(rel, rj.n_relevant(min_grade), *rj.ties()),
        "tmhits": lambda: tmhits_kernel(
            rel, rj.n_relevant(min_grade), *rj.ties(), k, literal_ties
        ),
    }
    return kernels[spec.family]()


class SubsetWarning(UserWarning):
    """``evaluate`` averaged over fewer queries than the qrels hold (the run's)."""


class Scores(dict[str, float]):
    """``{metric: mean}`` from :func:`evaluate`, with the queries it averaged over.

    Attributes:
        queries: how many queries the means are over.
        left_out: qrels queries not averaged (not in the run; empty with ``complete=True``).
    """

    queries: int = 0
    left_out: tuple[str, ...] = ()


class PerQuery(dict[str, dict[str, float]]):
    """``{qid: {metric: value}}`` from :func:`evaluate` (``per_query=True``)."""

    queries: int = 0
    left_out: tuple[str, ...] = ()

    def to_df(self) -> Any:
        """A pandas DataFrame: one row a query, a ``qid`` column then one column a metric."""
        try:
            import pandas as pd
        except ImportError:
            raise MissingDependencyError("pandas", "test", "per-query DataFrames") from None
        rows = [{"qid": q, **vals} for q, vals in self.items()]
        return pd.DataFrame(rows, columns=["qid", *(next(iter(self.values()), {}))])


def scored_qrels(run: Mapping[str, Mapping[str, float]], qrels: Qrels, *, complete: bool = False,
                 queries: Iterable[Any] | None = None) -> tuple[Qrels, tuple[str, ...]]:
    """The qrels :func:`evaluate` averages over and the qrels query ids it leaves out: all
    (``complete``), the judged ones among ``queries`` (ids or ``Query`` objects), or the
    judged queries of the run."""
    if complete:
        return qrels, ()
    if queries is not None:
        keep = {str(getattr(q, "id", q)) for q in queries}
    else:
        keep = set(run)
    sub = Qrels({q: d for q, d in qrels.items() if q in keep})
    return sub, tuple(q for q in qrels if q not in keep)


def evaluate(
    run: Mapping[str, Mapping[str, float]],
    qrels: Qrels | Mapping[str, Mapping[str, int]],
    metrics: str | Sequence[str],
    per_query: bool = False,
    *,
    complete: bool = False,
    queries: Iterable[Any] | None = None,
    min_grade: int = 1,
    gains: str = "linear",
    literal_ties: bool = False,
) -> Scores | PerQuery:
    """Score ``run`` against ``qrels`` (conventions in the module docstring).

    Args:
        run: a :class:`Run` or ``{qid: {docid: score}}``.
        qrels: a :class:`Qrels` or ``{qid: {docid: grade}}``.
        metrics: names such as ``["ndcg@10", "mrr@10"]`` or ``"ndcg@10,mrr@10"``.
        per_query: return ``{qid: {metric: value}}`` (:class:`PerQuery`, ``.to_df()``)
            instead of the means.
        complete: average over every qrels query, one missing from the run scoring 0
            (trec_eval ``-c``); default: over the run's queries, warning when qrels
            queries are left out.
        queries: average over the judged queries among these (ids or ``Query``), one
            missing from the run scoring 0.
        min_grade: smallest grade that counts as relevant.
        gains: nDCG gains, ``"linear"`` (trec_eval) or ``"exp"`` (2^grade − 1).
        literal_ties: evaluate G-RAG's Eq. 21 as printed for ``tmhits@k``.

    Returns:
        ``{metric: mean}`` (:class:`Scores`; 0.0 over no query), or per query
        ``{qid: {metric: value}}``; both say how many queries they cover (``queries``) and
        which qrels queries they left out (``left_out``).
    """
    if gains not in ("linear", "exp"):
        raise InputError(f"gains must be 'linear' or 'exp', got {gains!r}", field="gains")
    specs = parse_metrics(metrics)
    q = qrels if isinstance(qrels, Qrels) else Qrels(qrels)
    sub, left_out = scored_qrels(run, q, complete=complete, queries=queries)
    if left_out and queries is None:
        warnings.warn(f"evaluate: averaged over the run's {len(sub)} judged queries; {len(left_out)} of the "
                      f"{len(q)} qrels queries are not in the run and were left out (complete=True counts "
                      "them as 0, as trec_eval -c; queries=... names the set)", SubsetWarning, stacklevel=2)
    rj = RankedJudgements.build(run, sub)
    values = {s.name: _compute(s, rj, min_grade, gains, literal_ties) for s in specs}
    out: Scores | PerQuery
    if per_query:
        out = PerQuery({qid: {name: float(v[i]) for name, v in values.items()}
                        for i, qid in enumerate(rj.query_ids)})
    else:
        out = Scores({name: float(v.mean()) if v.size else 0.0 for name, v in values.items()})
    out.queries, out.left_out = len(sub), left_out
    return out


def compare(
    runs: Mapping[str, Mapping[str, Mapping[str, float]]] | Sequence[Run],
    qrels: Qrels | Mapping[str, Mapping[str, int]],
    metrics: str | Sequence[str],
    **options: object,
) -> dict[str, dict[str, float]]:
    """Mean metrics for several systems: ``{system: {metric: mean}}``.

    ``runs`` is ``{name: run}`` or a list of :class:`Run` (named by ``Run.name``, made
    unique with a suffix). ``options`` are passed to :func:`evaluate`; unless they say
    otherwise (``queries=``, ``complete=``), every system is averaged over the same queries:
    every qrels query, one missing from a run scoring 0.
    """
    if "queries" not in options:
        options.setdefault("complete", True)
    if not isinstance(runs, Mapping):
        named: dict[str, Mapping[str, Mapping[str, float]]] = {}
        for i, r in enumerate(runs):
            base = getattr(r, "name", None) or f"run{i + 1}"
            name, n = base, 2
            while name in named:
                name, n = f"{base}-{n}", n + 1
            named[name] = r
        runs = named
    return {name: evaluate(r, qrels, metrics, **options) for name, r in runs.items()}  # type: ignore[arg-type]
