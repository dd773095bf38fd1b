"""Average precision (MAP when averaged).

``ap@k`` = (1/|R_q|) Σ_{i<=k, rel_i} precision@i — the denominator is *all* relevant
documents of the query, as in trec_eval ``map`` / ``map_cut_k`` and ranx ``map@k``
(Buckley & Voorhees, 2000).
"""

from __future__ import annotations

import numpy as np

from skbsearch.core.types import Qrels, Run
from skbsearch.eval.metrics.ranking import judge


def ap_kernel(rel: np.ndarray, n_rel: np.ndarray, k: int | None) -> np.ndarray:
    """``(Q,)`` average precision over the first ``k`` columns of ``rel``."""
    cut = rel[:, :k].astype(np.float64)
    if cut.shape[1] == 0:
        return np.zeros(cut.shape[0])
    prec = np.cumsum(cut, axis=1) / np.arange(1, cut.shape[1] + 1)
    total = (prec * cut).sum(axis=1)
    return np.divide(total, n_rel, out=np.zeros_like(total), where=n_rel > 0)


def average_precision(
    run: Run, qrels: Qrels, k: int | None = None, *, min_grade: int = 1
) -> dict[str, float]:
    r"""Average precision per query: $\frac{1}{|R_q|}\sum_{i \le k} P@i \cdot \mathrm{rel}_i$.

    Args:
        k: cut-off (>= 1) or None for the whole run.
        min_grade: smallest grade that counts as relevant.
    """
    rj = judge(run, qrels, k)
    return rj.per_query(ap_kernel(rj.relevant(min_grade), rj.n_relevant(min_grade), k))
