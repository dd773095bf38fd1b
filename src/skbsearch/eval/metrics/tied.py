"""G-RAG's metrics over *all* positives, and their tie-aware variants.

From Dong et al., "Don't Forget to Connect! Improving RAG with Graph-based Reranking"
(G-RAG, 2024), Sec. 4.1.1. For a query with positives P+ (documents judged
``>= min_grade``) and r_p the rank of positive p:

* ``mrr_all`` (the paper's "MRR") = (1/|P+|) Σ_p 1/r_p  — every positive counts, not only
  the first (compare :mod:`~skbsearch.eval.metrics.rr`).
* ``mhits@k`` (the paper's "MHits@k") = (1/|P+|) Σ_p 1[r_p <= k] — numerically recall@k.

Both use the deterministic rank (ties broken by doc id, see ``ranking``). The tie-aware
versions do not break ties. Let τ be the number of documents sharing p's score (p
included) and A the number of documents scored strictly higher (the paper's Σ_i t_i over
the tied groups H(p) above p), so p's optimistic rank is r = A + 1 and its pessimistic
rank is A + τ:

* ``mtrr`` (Eq. 14) = (1/|P+|) Σ_p [1/r if τ = 1 else 2/(r + r + τ − 1)] — the
  reciprocal of the mean of the optimistic and pessimistic rank.
* ``tmhits@k`` (Eq. 15, 21) = (1/|P+|) Σ_p Hits@k(p) with
  Hits@k(p) = 0 if A > k; (k − A)/τ if 0 < A < k and τ > 1; k/τ if A = 0 and τ > k;
  1 otherwise.

Two literal edge cases of Eq. 21 contradict its stated intent ("dividing the hit-number,
no greater than k, by the number of ties"): A = k (p is at rank k+1 or worse) falls to
"otherwise" = 1, and (k − A)/τ exceeds 1 when the whole tied group fits in the top k
(e.g. A = 2, τ = 3, k = 10 gives 8/3). By default we use the reading that agrees with all
other cases, Hits@k(p) = clip((k − A)/τ, 0, 1): the probability that p lands in the top k
when the tied group is ordered at random. ``literal=True`` evaluates Eq. 21 as printed.
Without ties both reduce to MRR-over-positives and MHits@k. Positives that were not
retrieved contribute 0; queries without positives score 0.
"""

from __future__ import annotations

import numpy as np

from skbsearch.core.types import Qrels, Run
from skbsearch.eval.metrics.ranking import judge
from skbsearch.eval.metrics.recall import recall_kernel


def _mean_over_positives(values: np.ndarray, rel: np.ndarray, n_rel: np.ndarray) -> np.ndarray:
    total = np.where(rel, values, 0.0).sum(axis=1)
    return np.divide(total, n_rel, out=np.zeros_like(total), where=n_rel > 0)


def rr_all_kernel(rel: np.ndarray, n_rel: np.ndarray) -> np.ndarray:
    """``(Q,)`` mean over positives of 1 / (deterministic) rank."""
    ranks = np.arange(1, rel.shape[1] + 1, dtype=np.float64)[None, :]
    return _mean_over_positives(np.broadcast_to(1.0 / ranks, rel.shape), rel, n_rel)


def mtrr_kernel(
    rel: np.ndarray, n_rel: np.ndarray, above: np.ndarray, size: np.ndarray
) -> np.ndarray:
    """``(Q,)`` G-RAG Eq. 14: mean over positives of 2 / (2r + τ − 1), r = above + 1."""
    r = above.astype(np.float64) + 1.0
    values = 2.0 / (2.0 * r + size.astype(np.float64) - 1.0)
    return _mean_over_positives(values, rel, n_rel)


def tmhits_kernel(
    rel: np.ndarray,
    n_rel: np.ndarray,
    above: np.ndarray,
    size: np.ndarray,
    k: int,
    literal: bool = False,
) -> np.ndarray:
    """``(Q,)`` G-RAG Eq. 15/21: mean over positives of the tie-discounted hit at ``k``."""
    a = above.astype(np.float64)
    t = size.astype(np.float64)
    if literal:
        values = np.select(
            [a > k, (a > 0) & (a < k) & (t > 1), (a == 0) & (t > k)],
            [0.0, (k - a) / t, k / t],
            default=1.0,
        )
    else:
        values = np.clip((k - a) / t, 0.0, 1.0)
    return _mean_over_positives(values, rel, n_rel)


def mrr_all(run: Run, qrels: Qrels, *, min_grade: int = 1) -> dict[str, float]:
    r"""G-RAG's MRR per query: $\frac{1}{|P^+|}\sum_{p \in P^+} 1/r_p$ (ties broken by doc id)."""
    rj = judge(run, qrels)
    return rj.per_query(rr_all_kernel(rj.relevant(min_grade), rj.n_relevant(min_grade)))


def mhits_at_k(run: Run, qrels: Qrels, k: int, *, min_grade: int = 1) -> dict[str, float]:
    r"""G-RAG's MHits@k per query: $\frac{1}{|P^+|}\sum_{p} \mathbb{1}[r_p \le k]$ (= recall@k)."""
    rj = judge(run, qrels, k, required=True)
    return rj.per_query(recall_kernel(rj.relevant(min_grade), rj.n_relevant(min_grade), k))


def mtrr(run: Run, qrels: Qrels, *, min_grade: int = 1) -> dict[str, float]:
    r"""Mean Tied Reciprocal Rank per query (G-RAG Eq. 14).

    $\frac{1}{|P^+|}\sum_{p}\big[\frac{1}{r_p}\mathbb{1}(t=1) + \frac{2}{2r_p+t-1}\mathbb{1}(t>1)\big]$,
    $r_p$ the optimistic rank of p and t the size of its group of equal scores.
    """
    rj = judge(run, qrels)
    above, size = rj.ties()
    return rj.per_query(mtrr_kernel(rj.relevant(min_grade), rj.n_relevant(min_grade), above, size))


def tmhits_at_k(
    run: Run, qrels: Qrels, k: int = 10, *, min_grade: int = 1, literal: bool = False
) -> dict[str, float]:
    r"""Tied Mean Hits@k per query (G-RAG Eq. 15 and 21; see the module docstring).

    Args:
        k: cut-off (the paper uses 10).
        min_grade: smallest grade that counts as a positive.
        literal: evaluate Eq. 21 exactly as printed instead of clip((k − A)/τ, 0, 1).
    """
    rj = judge(run, qrels, k, required=True)
    above, size = rj.ties()
    rel, n_rel = rj.relevant(min_grade), rj.n_relevant(min_grade)
    return rj.per_query(tmhits_kernel(rel, n_rel, above, size, k, literal))
