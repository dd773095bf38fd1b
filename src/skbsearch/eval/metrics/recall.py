"""Recall at k.

``recall@k`` = |relevant ∩ top-k| / |relevant| (trec_eval ``recall_k``; ranx ``recall``).
Queries without relevant documents score 0. G-RAG's MHits@k (mean over a query's
positives of 1[r_p <= k]) is the same quantity and uses this kernel.
"""

from __future__ import annotations

import numpy as np

from skbsearch.core.types import Qrels, Run
from skbsearch.eval.metrics.ranking import judge


def recall_kernel(rel: np.ndarray, n_rel: np.ndarray, k: int | None) -> np.ndarray:
    """``(Q,)`` relevant retrieved in the top ``k`` (all if None) over ``n_rel``."""
    found = rel[:, :k].sum(axis=1).astype(np.float64)
    return np.divide(found, n_rel, out=np.zeros_like(found), where=n_rel > 0)


def recall_at_k(
    run: Run, qrels: Qrels, k: int | None = None, *, min_grade: int = 1
) -> dict[str, float]:
    r"""Recall@k per query: $|\{i \le k: \mathrm{rel}_i\}| \,/\, |R_q|$ (``k=None``: whole run).

    Args:
        k: cut-off (>= 1) or None.
        min_grade: smallest grade that counts as relevant.
    """
    rj = judge(run, qrels, k)
    return rj.per_query(recall_kernel(rj.relevant(min_grade), rj.n_relevant(min_grade), k))
