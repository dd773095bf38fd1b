"""A compact L-BFGS minimiser in numpy (two-loop recursion, Armijo backtracking).

For smooth convex losses with many variables (softmax regression over n-gram features),
where each iteration of SciPy's L-BFGS-B costs far more than the loss itself. Stops like
L-BFGS-B: largest gradient entry below ``gtol``, or relative decrease below ``ftol``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Loss = Callable[[np.ndarray], tuple[float, np.ndarray]]


def _dot(a: np.ndarray, b: np.ndarray) -> float:
    # einsum, not BLAS: a threaded BLAS dot on a busy machine costs 100x more
    return float(np.einsum("i,i->", a, b))


def minimize_lbfgs(fun: Loss, x0: np.ndarray, *, max_iter: int = 300, memory: int = 10,
                   gtol: float = 1e-5, ftol: float = 2.2e-9) -> tuple[np.ndarray, int]:
    """Minimise ``fun`` (returning value and gradient) from ``x0``; returns ``(x, iterations)``."""
    x = np.array(x0, dtype=np.float64)
    f, g = fun(x)
    hist: list[tuple[np.ndarray, np.ndarray, float]] = []
    iterations = 0
    while iterations < max_iter:
        if float(np.abs(g).max(initial=0.0)) <= gtol:
            break
        iterations += 1
        q = g.copy()
        alphas = []
        for s, y, rho in reversed(hist):
            a = rho * _dot(s, q)
            q -= a * y
            alphas.append(a)
        if hist:
            s, y, _ = hist[-1]
            q *= _dot(s, y) / _dot(y, y)
        else:
            q /= max(np.sqrt(_dot(g, g)), 1.0)
        for (s, y, rho), a in zip(hist, reversed(alphas), strict=True):
            q += s * (a - rho * _dot(y, q))
        d = -q
        slope = _dot(g, d)
        if slope >= 0:  # not a descent direction: restart from the gradient
            hist.clear()
            d = -g / max(np.sqrt(_dot(g, g)), 1.0)
            slope = _dot(g, d)
        step = 1.0
        while True:
            xn = x + step * d
            fn, gn = fun(xn)
            if fn <= f + 1e-4 * step * slope or step < 1e-12:
                break
            step *= 0.5
        s, y = xn - x, gn - g
        sy = _dot(s, y)
        if sy > 1e-12:
            hist.append((s, y, 1.0 / sy))
            if len(hist) > memory:
                hist.pop(0)
        done = (f - fn) <= ftol * max(abs(f), abs(fn), 1.0)
        x, f, g = xn, fn, gn
        if done:
            break
    return x, iterations
