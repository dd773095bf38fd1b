"""Normalised discounted cumulative gain (Järvelin & Kekäläinen, TOIS 2002).

``ndcg@k`` = DCG@k / IDCG@k with DCG@k = Σ_{i<=k} gain_i / log2(i + 1). By default this is
trec_eval's ``ndcg_cut_k``: gain = the relevance grade (linear), unjudged = 0, and the ideal
ranking sorts *all* judged documents of the query by grade. ``gains="exp"`` uses
2^grade − 1 (Burges et al., ICML 2005; ranx ``ndcg_burges``). Grades below ``min_grade``
gain 0. Queries without a positive gain score 0.
"""

from __future__ import annotations

import numpy as np

from skbsearch.core.types import Qrels, Run
from skbsearch.eval.metrics.ranking import judge


def _dcg_kernel(gains: np.ndarray, k: int | None) -> np.ndarray:
    """``(Q,)`` DCG of the first ``k`` columns of ``gains``."""
    cut = gains[:, :k]
    discounts = 1.0 / np.log2(np.arange(2, cut.shape[1] + 2))
    return cut @ discounts


def ndcg_kernel(gains: np.ndarray, ideal_gains: np.ndarray, k: int | None) -> np.ndarray:
    """``(Q,)`` DCG@k / IDCG@k (0 where IDCG is 0)."""
    dcg = _dcg_kernel(gains, k)
    idcg = _dcg_kernel(ideal_gains, k)
    return np.divide(dcg, idcg, out=np.zeros_like(dcg), where=idcg > 0)


def ndcg_at_k(
    run: Run,
    qrels: Qrels,
    k: int | None = None,
    *,
    min_grade: int = 1,
    gains: str = "linear",
) -> dict[str, float]:
    r"""nDCG@k per query: $\mathrm{DCG@k}/\mathrm{IDCG@k}$, $\mathrm{DCG@k}=\sum_{i\le k} g_i/\log_2(i+1)$.

    Args:
        k: cut-off (>= 1) or None for the whole run.
        min_grade: grades below it gain 0.
        gains: ``"linear"`` (gain = grade, trec_eval) or ``"exp"`` (2^grade − 1).
    """
    rj = judge(run, qrels, k)
    g, ideal = rj.gains(min_grade, gains)
    return rj.per_query(ndcg_kernel(g, ideal, k))
