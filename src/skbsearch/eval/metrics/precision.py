"""Precision at k.

``precision@k`` = |relevant ∩ top-k| / k, with k the cut-off even when fewer than k
documents were retrieved (trec_eval ``P_k``; ranx ``precision``).
"""

from __future__ import annotations

import numpy as np

from skbsearch.core.types import Qrels, Run
from skbsearch.eval.metrics.ranking import judge


def precision_kernel(rel: np.ndarray, k: int) -> np.ndarray:
    """``(Q,)`` relevant documents in the first ``k`` columns divided by ``k``."""
    return rel[:, :k].sum(axis=1).astype(np.float64) / float(k)


def precision_at_k(run: Run, qrels: Qrels, k: int, *, min_grade: int = 1) -> dict[str, float]:
    r"""Precision@k per query: $|\{i \le k: \mathrm{rel}_i\}| / k$.

    Args:
        k: cut-off (>= 1).
        min_grade: smallest grade that counts as relevant.
    """
    rj = judge(run, qrels, k, required=True)
    return rj.per_query(precision_kernel(rj.relevant(min_grade), k))
