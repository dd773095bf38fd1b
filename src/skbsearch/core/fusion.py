"""Fusion of Runs: the one place that fuses ranked lists.

The fusion stages (:mod:`skbsearch.stages.fusion`: ``fuse``, ``rrf``, ``zscore``, ``minmax``)
fuse their children's Runs with these functions, and saved Runs fuse with the same ones
(:func:`fuse_runs`: ``run_a + run_b``, the front door's ``skb.fuse``). Pure arithmetic on
:class:`~skbsearch.core.types.Run`, so it lives with the Run, below every stage.

- Reciprocal rank fusion (Cormack, Clarke & Buettcher, SIGIR 2009)::

      rrf(d) = sum_i w_i / (k + rank_i(d))      (rank 1-based; k = 60)

  summed over the runs that rank ``d`` (within their top ``depth`` if given).
- Weighted score fusion::

      wsum(d) = sum_i w_i * norm_i(s_i(d))

  with each run's scores normalised per query: ``"minmax"`` to [0, 1] (all 1 when every
  score is equal), ``"zscore"`` to mean 0 and unit (population) standard deviation (all 0
  when every score is equal), or ``"none"``. A document that a run did not return gets that
  run's lowest normalised score for the query (0 under min-max), as it ranked below them.

- Score-aware fusion (:func:`score_fusion`, the ``+`` of a pipeline spec): RRF's rank sum
  (scaled so a first place counts 1) for the lists' consensus, plus ``top`` times the best
  min-max normalised score a document has in any list, so that a list's confident first
  candidates stay on top.

Ranks within a run follow :meth:`Run.ranked` (score descending, its tie-breaking by doc id).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

from skbsearch.core.deadline import check_deadline
from skbsearch.core.errors import InputError
from skbsearch.core.types import Run

NORMS = ("minmax", "zscore", "none")


def check_weights(weights: Sequence[float] | None, n: int) -> list[float]:
    """``weights`` as ``n`` finite floats (``None``: all 1); a wrong count is an InputError."""
    if weights is None:
        return [1.0] * n
    w = [float(x) for x in weights]
    if len(w) != n:
        raise InputError(f"{len(w)} weights for {n} runs; give one weight per run", field="weights")
    if not all(math.isfinite(x) for x in w):
        raise InputError("weights must be finite numbers", field="weights")
    return w


def _query_ids(runs: Sequence[Run]) -> list[str]:
    seen: dict[str, None] = {}
    for r in runs:
        seen.update(dict.fromkeys(r))
    return list(seen)


def rrf(
    runs: Sequence[Run],
    k: int = 60,
    weights: Sequence[float] | None = None,
    depth: int | None = None,
    name: str = "rrf",
) -> Run:
    """Reciprocal rank fusion of ``runs`` (see the module docstring).

    Args:
        runs: the Runs to fuse.
        k: the RRF constant (60 in the original paper); must be >= 0.
        weights: one weight per run (default: all 1).
        depth: only each run's top ``depth`` candidates count (default: all).
        name: the fused Run's name.
    """
    out = Run(name=name)
    for qid, lists in _ranked_lists(runs, weights, k, depth):
        fused: dict[str, float] = {}
        for wi, ranked in lists:
            for rank, (doc, _) in enumerate(ranked, start=1):
                fused[doc] = fused.get(doc, 0.0) + wi / (k + rank)
        out[qid] = fused
    return out


def _ranked_lists(runs: Sequence[Run], weights: Sequence[float] | None, k: int,
                  depth: int | None) -> Iterator[tuple[str, list[tuple[float, list[tuple[str, float]]]]]]:
    """Per query (deadline checked): each run's weight and its top ``depth`` ranked
    candidates; the RRF constant ``k`` and the weights are checked first."""
    if k < 0:
        raise InputError("the RRF constant k must be >= 0", field="k")
    w = check_weights(weights, len(runs))
    for qid in _query_ids(runs):
        check_deadline()
        lists = []
        for run, wi in zip(runs, w, strict=True):
            ranked = run.ranked(qid)
            lists.append((wi, ranked[:depth] if depth else ranked))
        yield qid, lists


def normalize_scores(scores: dict[str, float], norm: str = "minmax") -> dict[str, float]:
    """One query's scores normalised by ``"minmax"``, ``"zscore"`` or ``"none"``."""
    if norm not in NORMS:
        raise InputError(f"unknown normalisation {norm!r}; use one of {NORMS}", field="norm")
    if not scores or norm == "none":
        return dict(scores)
    vals = list(scores.values())
    if norm == "minmax":
        lo, hi = min(vals), max(vals)
        if hi == lo:
            return dict.fromkeys(scores, 1.0)
        return {d: (s - lo) / (hi - lo) for d, s in scores.items()}
    mean = sum(vals) / len(vals)
    std = math.sqrt(sum((v - mean) ** 2 for v in vals) / len(vals))
    if std == 0:
        return dict.fromkeys(scores, 0.0)
    return {d: (s - mean) / std for d, s in scores.items()}


def weighted_fusion(
    runs: Sequence[Run],
    weights: Sequence[float] | None = None,
    norm: str = "minmax",
    name: str = "wsum",
) -> Run:
    """Weighted sum of per-query normalised scores (see the module docstring)."""
    if norm not in NORMS:
        raise InputError(f"unknown normalisation {norm!r}; use one of {NORMS}", field="norm")
    w = check_weights(weights, len(runs))
    out = Run(name=name)
    for qid in _query_ids(runs):
        check_deadline()
        normed = [normalize_scores(r.get(qid, {}), norm) for r in runs]
        docs: dict[str, None] = {}
        for n in normed:
            docs.update(dict.fromkeys(n))
        floor = [min(n.values()) if n else 0.0 for n in normed]
        out[qid] = {
            d: sum(wi * n.get(d, f) for n, wi, f in zip(normed, w, floor, strict=True) if n)
            for d in docs
        }
    return out


def score_fusion(
    runs: Sequence[Run],
    weights: Sequence[float] | None = None,
    top: float = 2.0,
    depth: int | None = 100,
    name: str = "fuse",
    k: int = 60,
    evidence: Sequence[Sequence[str]] | None = None,
) -> Run:
    """Score-aware fusion that keeps a confident list's top: RRF's rank sum + CombMAX.

    Each run's top ``depth`` candidates for a query get a rank term ``(k + 1) / (k + rank)``
    (RRF scaled so that a first place counts 1) and a min-max normalised score ``n_i`` (its
    best candidate 1, its ``depth``-th 0; a document it did not return counts 0 in both)::

        fuse(d) = sum_i w_i * (k + 1) / (k + rank_i(d)) + top * max_i w_i * n_i(d)

    The sum is rank-based, as RRF's: a list whose scores fall off faster from its first
    (BM25 next to a dense or graph list) does not outvote the others by its score shape.
    The ``top`` term (CombMAX, Fox & Shaw 1994) is score-based: a list's clear best keeps
    ``top`` more than documents found weakly by several lists (RRF's failure when one list
    is good and the other weak), while documents that all lists rank high still win.
    ``top = 0`` is RRF.

    ``evidence`` (one tuple of evidence keys per run, as the stages declare them): the
    weights are then set per query by :func:`confident_weights` from each run's
    ``confidence`` on that query (``weights`` is ignored).
    """
    if top < 0:
        raise InputError("top must be >= 0", field="top")
    out = Run(name=name)
    for qid, lists in _ranked_lists(runs, weights, k, depth):
        if evidence is not None:
            w = confident_weights(evidence, [getattr(r, "confidence", {}).get(qid, 1.0) for r in runs])
            lists = [(wi, ranked) for wi, (_, ranked) in zip(w, lists, strict=True)]
        ranks: dict[str, float] = {}
        best: dict[str, float] = {}
        for wi, ranked in lists:
            head = dict(ranked)
            normed = normalize_scores(head, "minmax")
            for rank, d in enumerate(head, start=1):  # head is in rank order
                v = normed[d]
                ranks[d] = ranks.get(d, 0.0) + wi * (k + 1) / (k + rank)
                best[d] = max(best.get(d, 0.0), wi * v)
        out[qid] = {d: r + top * best[d] for d, r in ranks.items()}
    return out


#: ``fuse_runs`` methods: the ``+`` of a spec, RRF, weighted sums of normalised scores.
FUSE_METHODS = ("fuse", "rrf", "zscore", "minmax")


def fuse_runs(runs: Sequence[Run], method: str = "fuse", weights: Sequence[float] | None = None,
              **params: float | int | None) -> Run:
    """Fuse saved Runs as the fusion stage of ``method`` fuses its stages' Runs.

    Args:
        runs: two or more Runs.
        method: ``"fuse"`` (:func:`score_fusion`, what ``a + b`` does; ``top``, ``depth``,
            ``k``), ``"rrf"`` (:func:`rrf`; ``k``, ``depth``), ``"zscore"`` or ``"minmax"``
            (:func:`weighted_fusion`).
        weights: one per run (default 1 each).
        params: the method's own parameters, as the stage of the same name takes them.
    """
    if method not in FUSE_METHODS:
        raise InputError(f"unknown fusion method {method!r}; use one of {', '.join(FUSE_METHODS)}",
                         field="method")
    runs = list(runs)
    bad = next((r for r in runs if not isinstance(r, Run)), None)
    if bad is not None:
        raise InputError(f"fuse takes Runs, got {type(bad).__name__}; wrap a dict with Run(...)",
                         field="runs")
    if len(runs) < 2:
        raise InputError(f"fuse needs at least two runs, got {len(runs)}", field="runs")
    allowed = {"fuse": ("top", "depth", "k"), "rrf": ("k", "depth")}.get(method, ())
    unknown = [p for p in params if p not in allowed]
    if unknown:
        raise InputError(f"fusion {method!r} has no parameter {unknown[0]!r}; its parameters: "
                         f"{', '.join(('weights', *allowed))}", field=unknown[0])
    name = "+".join(r.name for r in runs)
    if method == "fuse":
        return score_fusion(runs, weights, name=name, **params)  # type: ignore[arg-type]  # names checked above
    if method == "rrf":
        return rrf(runs, weights=weights, name=name, **params)  # type: ignore[arg-type]  # names checked above
    return weighted_fusion(runs, weights, norm=method, name=name)


def confident_weights(evidence: Sequence[Sequence[str]], confidence: Sequence[float]) -> list[float]:
    """One query's fusion weights from what each list rests on and how sure it is.

    List ``i`` with own evidence ``e_i`` (the first of its keys) and confidence ``c_i``::

        w_i = c_i / (1 + sum of c_j over the other lists j whose evidence includes e_i)

    With every confidence 1 this counts shared evidence once (a BM25 list beside a graph
    list that holds the same BM25 score weighs 1/2); a list that says it has nothing on a
    query (a graph stage without a confident anchor, ``c = 0``) adds nothing, and the lists
    it shares evidence with weigh in full.
    """
    c = [min(1.0, max(0.0, float(x))) for x in confidence]
    out = []
    for i, ev in enumerate(evidence):
        if not ev:
            out.append(c[i])
            continue
        shared = sum(c[j] for j, other in enumerate(evidence) if j != i and ev[0] in other)
        out.append(c[i] / (1.0 + shared))
    return out


Run.fusion = fuse_runs  # ``run_a + run_b`` (the Run type cannot import this module: a cycle)
