"""Paired significance tests over per-query scores, and multiple-testing corrections.

Tests (two-sided; ``a`` and ``b`` are one metric's scores of two systems on the same
queries, in the same order):

* ``"t"``: Student's paired t-test (``scipy.stats.ttest_rel``), as ranx's ``"student"``.
* ``"wilcoxon"``: Wilcoxon signed-rank test (``scipy.stats.wilcoxon`` defaults: zero
  differences dropped).
* ``"randomization"``: paired randomization (sign-flip permutation) test on the mean
  difference (Smucker et al., CIKM 2007); exact over all ``2^n`` sign vectors when
  ``2^n <= n_permutations``, else ``n_permutations`` seeded draws with p = (hits + 1) /
  (n_permutations + 1).

Identical score vectors give p = 1 under every test (scipy would give NaN or raise); fewer
than two queries give NaN (no test possible).

Corrections: ``"bonferroni"`` (p·m) and ``"holm"`` (step-down), capped at 1; NaN p-values
are left out of the family and stay NaN.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from skbsearch.core.errors import InputError

TESTS = ("t", "wilcoxon", "randomization")
CORRECTIONS = ("holm", "bonferroni")
#: at most this many sign flips are held in memory at once (rows × queries).
_CHUNK_CELLS = 2_000_000


@dataclass(frozen=True)
class Comparison:
    """One paired test of ``system`` against ``other`` on ``metric``."""

    system: str
    other: str
    metric: str
    delta: float  #: mean(system) − mean(other)
    p_value: float  #: raw p-value
    p_adjusted: float  #: after the correction (equal to ``p_value`` without one)
    significant: bool
    better: int  #: queries where ``system`` scores higher
    worse: int  #: queries where ``system`` scores lower


def check_test(test: str) -> str:
    """``test`` if it is one of :data:`TESTS`, else an :class:`InputError`."""
    if test not in TESTS:
        raise InputError(f"unknown significance test {test!r}; use one of {', '.join(TESTS)}",
                         field="test")
    return test


def check_correction(correction: str | None) -> str | None:
    """``correction`` if it is ``None`` or one of :data:`CORRECTIONS`."""
    if correction is not None and correction not in CORRECTIONS:
        raise InputError(f"unknown correction {correction!r}; use one of "
                         f"{', '.join(CORRECTIONS)} or none", field="correction")
    return correction


def paired_pvalue(
    a: Sequence[float] | np.ndarray,
    b: Sequence[float] | np.ndarray,
    test: str = "t",
    *,
    n_permutations: int = 10_000,
    seed: int = 42,
) -> float:
    """Two-sided p-value of the paired ``test`` between score vectors ``a`` and ``b``."""
    check_test(test)
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"paired scores must be two vectors of one length, got {x.shape} "
                         f"and {y.shape}")
    if x.size < 2:
        return math.nan
    d = x - y
    if not np.any(d):
        return 1.0
    if test == "t":
        return paired_t(x, y)
    if test == "wilcoxon":
        return wilcoxon(x, y)
    return randomization(d, n_permutations=n_permutations, seed=seed)


def paired_t(a: np.ndarray, b: np.ndarray) -> float:
    """Student's paired t-test p-value (``scipy.stats.ttest_rel``); 1.0 when undefined."""
    from scipy.stats import ttest_rel

    p = float(ttest_rel(a, b).pvalue)
    return 1.0 if math.isnan(p) else p


def wilcoxon(a: np.ndarray, b: np.ndarray) -> float:
    """Wilcoxon signed-rank p-value (``scipy.stats.wilcoxon``); 1.0 when no difference."""
    from scipy.stats import wilcoxon as _wilcoxon

    if not np.any(np.asarray(a) - np.asarray(b)):
        return 1.0
    p = float(_wilcoxon(a, b).pvalue)
    return 1.0 if math.isnan(p) else p


def randomization(d: np.ndarray, *, n_permutations: int = 10_000, seed: int = 42) -> float:
    """Sign-flip randomization p-value of the mean of paired differences ``d``."""
    if n_permutations < 1:
        raise InputError(f"n_permutations must be >= 1, got {n_permutations}",
                         field="n_permutations")
    d = np.asarray(d, dtype=np.float64)
    n = d.size
    observed = abs(float(d.mean()))
    tol = 1e-12 * max(1.0, observed)  # the identity flip must count despite rounding
    if n < 63 and 2**n <= n_permutations:  # exact: every sign vector once
        codes = np.arange(2**n, dtype=np.int64)[:, None]
        signs = 1.0 - 2.0 * ((codes >> np.arange(n)) & 1)
        stats = np.abs(signs @ d) / n
        return float(np.count_nonzero(stats >= observed - tol)) / 2**n
    rng = np.random.default_rng(seed)
    rows = max(1, _CHUNK_CELLS // n)
    hits = done = 0
    while done < n_permutations:
        m = min(rows, n_permutations - done)
        signs = rng.integers(0, 2, size=(m, n), dtype=np.int8) * 2 - 1
        stats = np.abs(signs @ d) / n
        hits += int(np.count_nonzero(stats >= observed - tol))
        done += m
    return (hits + 1) / (n_permutations + 1)


def correct(pvalues: Sequence[float] | np.ndarray, method: str | None) -> np.ndarray:
    """Adjusted p-values for one family of tests (``None``: unchanged)."""
    check_correction(method)
    p = np.asarray(pvalues, dtype=np.float64).copy()
    if method is None:
        return p
    ok = ~np.isnan(p)
    q = p[ok]
    m = q.size
    if m == 0:
        return p
    if method == "bonferroni":
        adj = np.minimum(1.0, q * m)
    else:  # holm: sorted ascending, p_(i) * (m - i), running maximum
        order = np.argsort(q, kind="stable")
        stepped = np.maximum.accumulate(q[order] * (m - np.arange(m)))
        adj = np.empty(m)
        adj[order] = np.minimum(1.0, stepped)
    p[ok] = adj
    return p
