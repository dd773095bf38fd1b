"""Reciprocal rank of the first relevant document (MRR when averaged).

``mrr@k`` = 1 / rank of the first relevant document if it is within the top ``k``, else 0
(Voorhees, TREC-8 QA track 1999; trec_eval ``recip_rank``; ranx ``mrr``).
"""

from __future__ import annotations

import numpy as np

from skbsearch.core.types import Qrels, Run
from skbsearch.eval.metrics.ranking import judge


def rr_kernel(rel: np.ndarray, k: int | None) -> np.ndarray:
    """``(Q,)`` 1 / (1-based index of the first True in ``rel[:, :k]``), 0 if none."""
    cut = rel[:, :k]
    if cut.shape[1] == 0:
        return np.zeros(cut.shape[0])
    first = cut.argmax(axis=1)
    found = cut[np.arange(cut.shape[0]), first]
    return np.where(found, 1.0 / (first + 1.0), 0.0)


def reciprocal_rank(
    run: Run, qrels: Qrels, k: int | None = None, *, min_grade: int = 1
) -> dict[str, float]:
    r"""Reciprocal rank per query: $1/\min\{i \le k: \mathrm{rel}_i\}$ (0 if none; ``k=None``: no cut-off).

    Args:
        k: cut-off (>= 1) or None.
        min_grade: smallest grade that counts as relevant.
    """
    rj = judge(run, qrels, k)
    return rj.per_query(rr_kernel(rj.relevant(min_grade), k))
