"""Evaluate runs against qrels with metrics named by strings (``"ndcg@10"``, ``"mrr"``…).

Conventions (trec_eval's, so numbers match pytrec_eval / ir-measures):

* ranking: score descending, ties by doc id descending (see ``metrics.ranking``);
* averaging: over **every query in the qrels**; a qrels query missing from the run scores 0
  (trec_eval ``-c``); queries with qrels but no relevant document score 0; run queries
  without qrels are ignored;
* relevance: a document is relevant when its grade is ``>= min_grade`` (default 1);
  nDCG gains are the grades themselves (``gains="exp"`` for 2^grade − 1).

Metric names (case-insensitive; ``@k`` a positive cut-off):
``hit@k`` (aliases ``hits@k``, ``success@k``), ``recall[@k]`` (``r@k``), ``precision@k``
(``p@k``), ``mrr[@k]`` (``rr``), ``map[@k]`` (``ap``), ``ndcg[@k]``, and G-RAG's
``mrr_all``, ``mhits@k``, ``mtrr``, ``tmhits@k``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from skbsearch.core.errors import InputError
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


def evaluate(
    run: Mapping[str, Mapping[str, float]],
    qrels: Qrels | Mapping[str, Mapping[str, int]],
    metrics: str | Sequence[str],
    per_query: bool = False,
    *,
    min_grade: int = 1,
    gains: str = "linear",
    literal_ties: bool = False,
) -> dict:
    """Score ``run`` against ``qrels`` (conventions in the module docstring).

    Args:
        run: a :class:`Run` or ``{qid: {docid: score}}``.
        qrels: a :class:`Qrels` or ``{qid: {docid: grade}}``.
        metrics: names such as ``["ndcg@10", "mrr@10"]`` or ``"ndcg@10,mrr@10"``.
        per_query: return ``{qid: {metric: value}}`` instead of the means.
        min_grade: smallest grade that counts as relevant.
        gains: nDCG gains, ``"linear"`` (trec_eval) or ``"exp"`` (2^grade − 1).
        literal_ties: evaluate G-RAG's Eq. 21 as printed for ``tmhits@k``.

    Returns:
        ``{metric: mean}`` (0.0 for empty qrels), or per query ``{qid: {metric: value}}``.
    """
    if gains not in ("linear", "exp"):
        raise InputError(f"gains must be 'linear' or 'exp', got {gains!r}", field="gains")
    specs = parse_metrics(metrics)
    q = qrels if isinstance(qrels, Qrels) else Qrels(qrels)
    rj = RankedJudgements.build(run, q)
    values = {s.name: _compute(s, rj, min_grade, gains, literal_ties) for s in specs}
    if per_query:
        return {
            qid: {name: float(v[i]) for name, v in values.items()}
            for i, qid in enumerate(rj.query_ids)
        }
    return {name: float(v.mean()) if v.size else 0.0 for name, v in values.items()}


def compare(
    runs: Mapping[str, Mapping[str, Mapping[str, float]]] | Sequence[Run],
    qrels: Qrels | Mapping[str, Mapping[str, int]],
    metrics: str | Sequence[str],
    **options: object,
) -> dict[str, dict[str, float]]:
    """Mean metrics for several systems: ``{system: {metric: mean}}``.

    ``runs`` is ``{name: run}`` or a list of :class:`Run` (named by ``Run.name``, made
    unique with a suffix). ``options`` are passed to :func:`evaluate`.
    """
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
