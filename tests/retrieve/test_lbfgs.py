"""The numpy L-BFGS minimiser against closed forms and SciPy on smooth losses."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize, rosen, rosen_der

from skbsearch.retrieve.lbfgs import minimize_lbfgs


def _quadratic(seed: int = 0, n: int = 30):
    rng = np.random.default_rng(seed)
    m = rng.normal(size=(n, n))
    a = m @ m.T + n * np.eye(n)  # symmetric positive definite
    b = rng.normal(size=n)

    def fun(x: np.ndarray) -> tuple[float, np.ndarray]:
        return float(0.5 * x @ a @ x - b @ x), a @ x - b

    return fun, np.linalg.solve(a, b)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_convex_quadratic_reaches_its_closed_form_minimum(seed: int) -> None:
    fun, best = _quadratic(seed)
    x, iterations = minimize_lbfgs(fun, np.zeros(len(best)), gtol=1e-8, ftol=0.0)
    assert np.allclose(x, best, atol=1e-6) and 0 < iterations < 100


def test_rosenbrock_ends_where_scipy_does() -> None:
    x0 = np.array([-1.2, 1.0, -0.5, 0.8])
    x, _ = minimize_lbfgs(lambda v: (float(rosen(v)), rosen_der(v)), x0, max_iter=2000,
                          gtol=1e-7, ftol=0.0)
    ref = minimize(rosen, x0, jac=rosen_der, method="L-BFGS-B", options={"gtol": 1e-7}).x
    assert np.allclose(x, ref, atol=1e-3) and np.allclose(x, np.ones(4), atol=1e-3)


def test_it_stops_at_once_at_a_minimum_and_after_max_iter() -> None:
    fun, best = _quadratic()
    x, iterations = minimize_lbfgs(fun, best)
    assert iterations == 0 and np.array_equal(x, best)
    _, iterations = minimize_lbfgs(fun, np.zeros(len(best)), max_iter=3, gtol=0.0, ftol=0.0)
    assert iterations == 3


def test_each_step_decreases_the_loss_and_x0_is_not_changed() -> None:
    fun, _ = _quadratic()
    x0 = np.zeros(30)
    values = [fun(minimize_lbfgs(fun, x0, max_iter=k, gtol=0.0, ftol=0.0)[0])[0] for k in range(6)]
    assert all(b < a for a, b in zip(values, values[1:], strict=False))
    assert not x0.any()
