"""Hit rate (a.k.a. Success@k, Top-k accuracy).

``hit@k`` is 1 when at least one relevant document is among the top ``k``, else 0
(trec_eval's ``success_k``; ir-measures ``Success@k``; ranx ``hit_rate@k``).
"""

from __future__ import annotations

import numpy as np

from skbsearch.core.types import Qrels, Run
from skbsearch.eval.metrics.ranking import judge


def hit_kernel(rel: np.ndarray, k: int) -> np.ndarray:
    """``(Q,)`` 1.0 where a relevant document is in the first ``k`` columns of ``rel``."""
    return rel[:, :k].any(axis=1).astype(np.float64)


def hit_at_k(run: Run, qrels: Qrels, k: int, *, min_grade: int = 1) -> dict[str, float]:
    r"""Hit@k per query: $\mathbb{1}[\exists\, i \le k: \mathrm{rel}_i \ge \text{min\_grade}]$.

    Args:
        k: cut-off (>= 1).
        min_grade: smallest grade that counts as relevant.
    """
    rj = judge(run, qrels, k, required=True)
    return rj.per_query(hit_kernel(rj.relevant(min_grade), k))
