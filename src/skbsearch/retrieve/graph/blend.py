"""Back-off between the untrained graph stage and a fitted model: a fit that cannot lose.

A model fitted on few questions of many kinds (one or two a relation chain) learns chains
and types that generalise worse than the untrained stage's reading of the schema. So the
fitted stage ranks by a blend of the two::

    score(c) = (1 - b) * n_untrained(c) + b * n_fitted(c)

(each list min-max normalised over its top ``k``; a node one list lacks counts 0 there),
and the fit chooses the strength ``b`` by cross-validation *inside* its training queries
(:func:`choose_blend`): each quarter of them is scored by a model fitted on the other
three quarters and by the untrained stage, and ``b`` moves off 0 only when the blend
beats the untrained stage there on MRR by :data:`MIN_GAIN` without losing Hit@10, and
loses MRR on no quarter. When
the training questions do not support the fitted model, ``b = 0`` and the stage *is* the
untrained one (:meth:`~skbsearch.retrieve.graph.work.GraphWork.untrained`); at ``b = 1`` it is the fitted model alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from skbsearch.core.types import Query, Run
from skbsearch.retrieve.graph.model import KGModel

#: blend strengths the fit chooses from (0: untrained, 1: fitted alone)
BLENDS = (0.0, 0.25, 0.5, 0.75, 1.0)
#: MRR a blend must gain over the untrained stage on the inner folds
MIN_GAIN = 0.01


def _normalised(scores: dict[str, float]) -> dict[str, float]:
    if not scores:
        return {}
    vals = np.fromiter(scores.values(), float, len(scores))
    lo, hi = float(vals.min()), float(vals.max())
    if hi <= lo:
        return dict.fromkeys(scores, 1.0)
    return {d: (s - lo) / (hi - lo) for d, s in scores.items()}


def blend_runs(plain: Run, fitted: Run, b: float, k: int, name: str = "kg") -> Run:
    """Per query, ``(1 - b) * plain + b * fitted`` over min-max normalised scores, top ``k``."""
    out = Run(name=name)
    for qid in dict.fromkeys([*plain, *fitted]):
        p, f = _normalised(plain.get(qid, {})), _normalised(fitted.get(qid, {}))
        mixed = {d: (1.0 - b) * p.get(d, 0.0) + b * f.get(d, 0.0) for d in {**p, **f}}
        top = sorted(mixed.items(), key=lambda x: (-x[1], x[0]))[:k]
        out[qid] = dict(top)
    return out


def _ranks(run: Run, answers: dict[str, set[str]]) -> np.ndarray:
    """Rank of the first answer per query (0: none returned)."""
    out = []
    for qid, ans in answers.items():
        out.append(next((i for i, (d, _) in enumerate(run.ranked(qid), start=1) if d in ans), 0))
    return np.array(out)


def _mrr_hit10(ranks: np.ndarray) -> tuple[float, float]:
    return float(_rr(ranks).mean()), float(((ranks > 0) & (ranks <= 10)).mean())


def _rr(ranks: np.ndarray) -> np.ndarray:
    return np.where(ranks > 0, 1.0 / np.maximum(ranks, 1), 0.0)


def choose_blend(plain: Run, fitted: Run, answers: dict[str, set[str]], k: int,
                 parts: Sequence[int] | None = None) -> tuple[float, dict[str, Any]]:
    """The blend strength (:data:`BLENDS`) with the best MRR on held-out training queries,
    among those that beat the untrained stage by :data:`MIN_GAIN` without losing Hit@10,
    and lose MRR on none of the ``parts`` (one per query of ``answers``, in order; the
    inner folds); 0 when none does. ``fitted``: each query scored by a model that did not
    see it."""
    base = _ranks(plain, answers)
    base_mrr, base_hit = _mrr_hit10(base)
    part = np.asarray(parts if parts is not None else [0] * len(answers))
    best, table = 0.0, {}
    best_mrr = base_mrr + MIN_GAIN
    for b in BLENDS[1:]:
        ranks = _ranks(blend_runs(plain, fitted, b, k), answers)
        mrr, hit = _mrr_hit10(ranks)
        table[str(b)] = {"mrr": round(mrr, 4), "hit@10": round(hit, 4)}
        worse = any(_rr(ranks[part == p]).mean() < _rr(base[part == p]).mean() - 1e-12 for p in set(part.tolist()))
        if mrr >= best_mrr and hit >= base_hit and not worse:
            best, best_mrr = b, mrr
    return best, {"untrained": {"mrr": round(base_mrr, 4), "hit@10": round(base_hit, 4)}, "blends": table,
                  "chosen": best, "queries": len(answers)}


def inner_fitted_run(queries: Sequence[Query], parts: Sequence[int], fit_and_run: Callable[[list[int]], Run]
                     ) -> Run:
    """Every query scored by a model fitted without its part: ``fit_and_run(test indices)``
    fits on the other parts and returns the Run of the test queries."""
    out = Run()
    for p in sorted(set(parts)):
        test = [i for i, x in enumerate(parts) if x == p]
        if test and len(test) < len(queries):
            out.update(fit_and_run(test))
    return out


def blend_summary(model: KGModel) -> dict[str, Any]:
    """What a fit kept (``skb.fit``'s report): ``kept`` (``"untrained"`` at blend 0, else
    ``"fitted"``), the blend, the learned weights and answer types, and the inner held-out
    folds' MRR / Hit@10 of the untrained stage, the kept blend and the best blend tried
    (:func:`choose_blend`)."""
    out: dict[str, Any] = {"kept": "untrained" if model.blend <= 0.0 else "fitted", "blend": model.blend,
                           "weights": dict(model.weights), "answer_types": list(model.answer_types)}
    chosen = model.info.get("blend")
    if isinstance(chosen, dict):
        held = {"queries": chosen["queries"], "untrained": chosen["untrained"],
                "fitted": chosen["blends"].get(str(model.blend), chosen["untrained"])}
        best = max(chosen["blends"].items(), key=lambda kv: kv[1]["mrr"], default=None)
        if best is not None:
            held["best_blend"] = {"blend": float(best[0]), **best[1]}
        out["held_out"] = held
    elif model.blend >= 1.0:
        out["note"] = "too few judged queries to validate a blend: the fitted model alone"
    return out
