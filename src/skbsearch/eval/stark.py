"""STaRK's evaluator semantics (``stark_qa.Evaluator``, Wu et al., NeurIPS 2024).

STaRK scores **every candidate node** (every node of the dataset's target type, in
ascending node-id order) and ranks the whole vector with torchmetrics' retrieval
functions. This module computes the same metrics without torch:

``hit@k``        1 if an answer is among the top ``k`` (``retrieval_hit_rate``)
``recall@k``     answers in the top ``k`` / answers among the candidates
``precision@k``  answers in the top ``k`` / ``k``
``mrr``          1 / rank of the first answer (over the whole ranking: no cut-off)
``map[@k]``      mean over the answers ranked within ``k`` of (i / rank_i)
``rprecision``   answers in the top R / R, R = number of answers among the candidates

A query whose answers are all outside the candidate set scores 0 everywhere. Scores are
compared as float32, as the Evaluator stores them. Candidates that a Run does not rank
score -inf: they tie below every ranked candidate (STaRK fills them with
``min(scores) - 1``, which ranks them the same way).

Ties: torchmetrics orders equal scores with torch's unstable sorts, ``argsort`` for
hit/recall/r-precision and ``topk`` for MRR/MAP/precision, and the two disagree with each
other and with any simple rule. ``ties`` chooses how equal scores are ordered here:

``"stable"``       by candidate order (a stable sort; the default: deterministic)
``"optimistic"``   answers first within a tie (an upper bound of any tie order)
``"pessimistic"``  answers last within a tie (a lower bound)
``"torch"``        torch's own argsort/topk, exactly as the Evaluator calls them (needs
                   torch; reproduces its numbers bit for bit, ties included)

Without ties all four agree. torchmetrics >= 1.9 also drops candidates whose score is
<= 0 from MRR, MAP, recall and precision (not from hit or R-precision); STaRK's published
numbers predate that change and so does this module: only the order of scores matters.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from skbsearch.core.errors import InputError, MissingDependencyError
from skbsearch.core.types import Qrels

#: The metrics STaRK's evaluation scripts report (``eval.py`` of the stark repository).
STARK_METRICS: tuple[str, ...] = (
    "hit@1", "hit@3", "hit@5", "hit@10", "hit@20", "hit@50",
    "recall@5", "recall@10", "recall@20", "recall@50", "recall@100",
    "mrr", "map", "rprecision",
)
TIES = ("stable", "optimistic", "pessimistic", "torch")
#: family -> (cut-off allowed, torch ordering the Evaluator uses for it)
_FAMILIES = {"hit": (True, "argsort"), "recall": (True, "argsort"), "precision": (True, "topk"),
             "map": (True, "topk"), "mrr": (False, "topk"), "rprecision": (False, "argsort")}
_ALIASES = {"hits": "hit", "r-precision": "rprecision", "r_precision": "rprecision"}
_NAME = re.compile(r"^([a-z_-]+)(?:@(\d+))?$")


@dataclass(frozen=True)
class StarkMetric:
    """A parsed metric name: family and optional cut-off ``k``."""

    family: str
    k: int | None = None

    @property
    def name(self) -> str:
        """The canonical name (``hit@5``, ``mrr``)."""
        return self.family if self.k is None else f"{self.family}@{self.k}"


def parse_stark_metrics(metrics: Iterable[str]) -> list[StarkMetric]:
    """Parse names like ``hit@5``, ``recall@20``, ``mrr``, ``map``, ``rprecision``."""
    out = []
    for raw in metrics:
        m = _NAME.match(str(raw).strip().lower())
        fam = _ALIASES.get(m.group(1), m.group(1)) if m else None
        if m is None or fam not in _FAMILIES:
            raise InputError(f"unknown STaRK metric {raw!r}; use hit@k, recall@k, precision@k, "
                             "mrr, map[@k] or rprecision", field="metrics")
        k = int(m.group(2)) if m.group(2) is not None else None
        if k is not None and (k < 1 or not _FAMILIES[fam][0]):
            raise InputError(f"metric {raw!r}: {fam} takes " +
                             ("a cut-off >= 1" if _FAMILIES[fam][0] else "no cut-off"),
                             field="metrics")
        out.append(StarkMetric(fam, k))
    return out


# ----------------------------------------------------------------------------- kernels
def metric_from_ranks(metric: StarkMetric, ranks: np.ndarray, n_relevant: int,
                      n_candidates: int) -> float:
    """One metric from the sorted 1-based ranks of the answers (``inf``: not ranked in reach)."""
    if n_relevant == 0 or len(ranks) == 0:
        return 0.0
    k = metric.k if metric.k is not None else n_candidates
    fam = metric.family
    if fam == "hit":
        return float(ranks[0] <= k)
    if fam == "recall":
        return float(np.count_nonzero(ranks <= k)) / n_relevant
    if fam == "precision":
        return float(np.count_nonzero(ranks <= k)) / k
    if fam == "mrr":
        return float(1.0 / ranks[0])
    if fam == "rprecision":
        return float(np.count_nonzero(ranks <= n_relevant)) / n_relevant
    inside = ranks[ranks <= k]  # map: (i / rank_i) over the answers within k
    if len(inside) == 0:
        return 0.0
    return float(np.mean(np.arange(1, len(inside) + 1) / inside))


def _float32(scores: Any, what: str) -> np.ndarray:
    s = np.asarray(scores, dtype=np.float64)
    if np.isnan(s).any():
        raise InputError(f"{what}: a score is NaN; every candidate needs a number (or -inf)",
                         field="scores")
    with np.errstate(over="ignore"):
        return s.astype(np.float32)


def _ranked_ranks(scores: np.ndarray, positions: np.ndarray, is_rel: np.ndarray,
                  ties: str) -> np.ndarray:
    """1-based ranks of the relevant items among ``scores`` (ties per ``ties``)."""
    m = len(scores)
    if not is_rel.any():
        return np.zeros(0)
    if ties == "stable":
        order = np.lexsort((positions, -scores))
        rank = np.empty(m, dtype=np.float64)
        rank[order] = np.arange(1, m + 1)
        return rank[is_rel]
    srt = np.sort(scores)
    vals, n_rel = np.unique(scores[is_rel], return_counts=True)
    left = np.searchsorted(srt, vals, "left")
    right = np.searchsorted(srt, vals, "right")
    greater = m - right
    start = greater if ties == "optimistic" else greater + (right - left) - n_rel
    return np.concatenate([np.arange(s + 1, s + c + 1) for s, c in zip(start, n_rel, strict=True)])


def _torch_ranks(vector: np.ndarray, rel: np.ndarray, method: str, k: int | None) -> np.ndarray:
    """Answer ranks in the order torch gives the Evaluator (``inf`` past a ``topk`` cut)."""
    try:
        import torch
    except ImportError:
        raise MissingDependencyError("torch", "dense", "ties='torch'") from None
    t = torch.from_numpy(np.ascontiguousarray(vector, dtype=np.float32))
    n = len(vector)
    if method == "argsort":
        order = torch.argsort(t, dim=-1, descending=True).numpy()
    else:
        order = t.topk(min(k or n, n), sorted=True, dim=-1)[1].numpy()
    rank = np.full(n, np.inf)
    rank[order] = np.arange(1, len(order) + 1)
    return rank[rel]


def _check_ties(ties: str) -> None:
    if ties not in TIES:
        raise InputError(f"unknown ties {ties!r}; use one of {', '.join(TIES)}", field="ties")


def _torch_metrics(vector: np.ndarray, rel: np.ndarray,
                   parsed: Sequence[StarkMetric]) -> dict[str, float]:
    out, n, n_rel = {}, len(vector), int(rel.sum())
    for mt in parsed:
        ranks = np.sort(_torch_ranks(vector, rel, _FAMILIES[mt.family][1], mt.k))
        out[mt.name] = metric_from_ranks(mt, ranks, n_rel, n)
    return out


# ----------------------------------------------------------------------------- public
def stark_metrics(scores: Sequence[float] | np.ndarray, relevant: Sequence[Any] | np.ndarray,
                  metrics: Iterable[str] = STARK_METRICS, *, ties: str = "stable") -> dict[str, float]:
    """STaRK's metrics for one query from the scores of **all** candidates.

    Args:
        scores: one score per candidate, in candidate order (-inf: not ranked).
        relevant: a boolean mask over the candidates, or the positions of the answers.
        metrics: names (see the module docstring).
        ties: ``"stable"``, ``"optimistic"``, ``"pessimistic"`` or ``"torch"``.
    """
    _check_ties(ties)
    parsed = parse_stark_metrics(metrics)
    s = _float32(scores, "scores").ravel()
    rel_in = np.asarray(relevant)
    if rel_in.dtype == bool:
        if rel_in.shape != s.shape:
            raise InputError(f"relevant mask has {rel_in.size} entries for {s.size} scores",
                             field="relevant")
        rel = rel_in
    else:
        rel = np.zeros(len(s), dtype=bool)
        idx = rel_in.astype(np.int64).ravel()
        if len(idx) and (idx.min() < 0 or idx.max() >= len(s)):
            raise InputError(f"answer position outside 0..{len(s) - 1}", field="relevant")
        rel[idx] = True
    if ties == "torch":
        return _torch_metrics(s, rel, parsed)
    ranks = np.sort(_ranked_ranks(s, np.arange(len(s)), rel, ties))
    return {mt.name: metric_from_ranks(mt, ranks, int(rel.sum()), len(s)) for mt in parsed}


def stark_per_query(run: Mapping[str, Mapping[str, float]], qrels: Qrels,
                    candidates: Sequence[str], metrics: Iterable[str] = STARK_METRICS, *,
                    ties: str = "stable", min_grade: int = 1) -> dict[str, dict[str, float]]:
    """STaRK's metrics per query of ``qrels`` for a Run (candidates it misses score -inf).

    Args:
        run: ``{qid: {node_id: score}}``; nodes outside ``candidates`` are ignored.
        qrels: ``{qid: {node_id: grade}}``; every query in it is scored (a query the run
            lacks ranks nothing).
        candidates: the candidate node ids in STaRK's order (ascending node id).
        metrics, ties: as :func:`stark_metrics`.
        min_grade: the smallest grade that counts as an answer.
    """
    _check_ties(ties)
    parsed = parse_stark_metrics(metrics)
    pos = {str(c): i for i, c in enumerate(candidates)}
    if len(pos) != len(candidates):
        raise InputError("candidate ids repeat; give each candidate once", field="candidates")
    n = len(pos)
    out: dict[str, dict[str, float]] = {}
    for qid, judged in qrels.items():
        answers = {pos[d] for d, g in judged.items() if g >= min_grade and d in pos}
        docs = run.get(qid, {})
        if ties == "torch":
            out[qid] = _torch_metrics(_torch_vector(docs, pos, n, qid), _mask(answers, n), parsed)
            continue
        ranks = _run_ranks(docs, pos, n, answers, ties, qid)
        out[qid] = {mt.name: metric_from_ranks(mt, ranks, len(answers), n) for mt in parsed}
    return out


def stark_evaluate(run: Mapping[str, Mapping[str, float]], qrels: Qrels,
                   candidates: Sequence[str], metrics: Iterable[str] = STARK_METRICS, *,
                   ties: str = "stable", min_grade: int = 1) -> dict[str, float]:
    """Means over the queries of ``qrels`` of :func:`stark_per_query` (0.0 each when empty)."""
    per = stark_per_query(run, qrels, candidates, metrics, ties=ties, min_grade=min_grade)
    names = [m.name for m in parse_stark_metrics(metrics)]
    return {m: (float(np.mean([v[m] for v in per.values()])) if per else 0.0) for m in names}


# ----------------------------------------------------------------------------- run helpers
def _mask(answers: set[int], n: int) -> np.ndarray:
    rel = np.zeros(n, dtype=bool)
    rel[list(answers)] = True
    return rel


def _run_arrays(docs: Mapping[str, float], pos: Mapping[str, int],
                qid: str) -> tuple[np.ndarray, np.ndarray]:
    """Candidate positions and float32 scores of the run's ranked candidates (-inf dropped)."""
    items = [(pos[d], s) for d, s in docs.items() if d in pos]
    p = np.fromiter((i for i, _ in items), dtype=np.int64, count=len(items))
    s = _float32([x for _, x in items], f"run query {qid}")
    keep = s != -np.inf
    return p[keep], s[keep]


def _run_ranks(docs: Mapping[str, float], pos: Mapping[str, int], n: int, answers: set[int],
               ties: str, qid: str) -> np.ndarray:
    """Sorted answer ranks with the unranked candidates tied below the ranked ones."""
    p, s = _run_arrays(docs, pos, qid)
    m = len(p)
    ranked = _ranked_ranks(s, p, np.isin(p, list(answers)), ties) if m else np.zeros(0)
    missing = np.array(sorted(answers - set(p.tolist())), dtype=np.int64)
    if len(missing):
        if ties == "stable":  # rank = m + (unranked candidates before it) + 1
            before = missing - np.searchsorted(np.sort(p), missing)
            extra = m + before + 1.0
        elif ties == "optimistic":
            extra = m + np.arange(1, len(missing) + 1, dtype=np.float64)
        else:
            extra = (n - len(missing)) + np.arange(1, len(missing) + 1, dtype=np.float64)
        ranked = np.concatenate([ranked, extra])
    return np.sort(ranked)


def _torch_vector(docs: Mapping[str, float], pos: Mapping[str, int], n: int, qid: str) -> np.ndarray:
    """The Evaluator's ``all_pred``: unranked candidates at ``min(scores) - 1`` (float32)."""
    scores = _float32(list(docs.values()), f"run query {qid}")
    fill = (np.float32(scores.min()) - np.float32(1)) if len(scores) else np.float32(0)
    vec = np.full(n, fill, dtype=np.float32)
    for (d, _), x in zip(docs.items(), scores, strict=True):
        if d in pos:
            vec[pos[d]] = x
    return vec

