"""Paired tests against scipy, the randomization test, and multiple-testing corrections."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from skbsearch.core.errors import InputError
from skbsearch.eval.significance import correct, paired_pvalue, randomization


def paired_scores(seed: int, n: int, effect: float) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.uniform(0, 1, n)
    b = np.clip(a + effect + rng.normal(0, 0.3, n), 0, 1)
    return b, a


def test_t_and_wilcoxon_equal_scipy() -> None:
    for seed in range(4):
        x, y = paired_scores(seed, 60, 0.05)
        assert paired_pvalue(x, y, "t") == pytest.approx(stats.ttest_rel(x, y).pvalue, rel=1e-12)
        assert paired_pvalue(x, y, "wilcoxon") == pytest.approx(
            stats.wilcoxon(x, y).pvalue, rel=1e-12
        )


def test_identical_systems_give_p_one_and_one_query_nan() -> None:
    x = np.array([0.1, 0.5, 0.0, 1.0])
    for test in ("t", "wilcoxon", "randomization"):
        assert paired_pvalue(x, x.copy(), test) == 1.0
        assert math.isnan(paired_pvalue([0.3], [0.1], test))
    with pytest.raises(InputError, match="unknown significance test"):
        paired_pvalue(x, x, "anova")


def test_randomization_exact_enumeration() -> None:
    # all five differences positive: only the all-plus and all-minus flips reach |mean| = 1
    assert randomization(np.ones(5), n_permutations=1000) == pytest.approx(2 / 32)
    # one flip of sign changes nothing about the two-sided p-value
    d = np.array([0.3, -0.1, 0.2, 0.4])
    assert randomization(d, n_permutations=100) == randomization(-d, n_permutations=100)


def test_randomization_seeded_and_close_to_t_on_many_queries() -> None:
    x, y = paired_scores(7, 800, 0.025)
    p1 = paired_pvalue(x, y, "randomization", n_permutations=20_000, seed=3)
    p2 = paired_pvalue(x, y, "randomization", n_permutations=20_000, seed=3)
    p3 = paired_pvalue(x, y, "randomization", n_permutations=20_000, seed=4)
    assert p1 == p2 and p1 != p3
    p_t = stats.ttest_rel(x, y).pvalue
    assert 0.001 < p_t < 0.2  # a fixture where the comparison means something
    assert p1 == pytest.approx(p_t, abs=0.01)


def test_corrections_on_known_inputs() -> None:
    p = [0.01, 0.04, 0.03, 0.005]
    np.testing.assert_allclose(correct(p, "bonferroni"), [0.04, 0.16, 0.12, 0.02])
    # Holm: sorted 0.005·4, 0.01·3, 0.03·2, 0.04·1 → running max 0.02, 0.03, 0.06, 0.06
    np.testing.assert_allclose(correct(p, "holm"), [0.03, 0.06, 0.06, 0.02])
    np.testing.assert_allclose(correct([0.5, 0.6], "bonferroni"), [1.0, 1.0])
    np.testing.assert_allclose(correct(p, None), p)
    out = correct([0.01, math.nan, 0.02], "holm")  # NaN is not part of the family
    assert out[0] == pytest.approx(0.02) and math.isnan(out[1]) and out[2] == pytest.approx(0.02)
    with pytest.raises(InputError, match="unknown correction"):
        correct(p, "fdr")
