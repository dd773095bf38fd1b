"""Runs and graded qrels of several systems that the Experiment tests compare."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from skbsearch.core.types import Qrels, Run


def fixture(seed: int = 0, n_queries: int = 60, strengths: Sequence[float] = (0.0, 0.4, 0.8)):
    """Graded qrels with positives for every query; one run a strength (bigger = better)."""
    rng = np.random.default_rng(seed)
    qrels = {
        f"q{i}": {f"d{j}": int(rng.integers(1, 3)) for j in rng.choice(40, 4, replace=False)}
        for i in range(n_queries)
    }
    runs = {}
    for s_i, strength in enumerate(strengths):
        run = {}
        for q, rel in qrels.items():
            docs = rng.choice(40, 20, replace=False)
            run[q] = {f"d{d}": float(rng.normal() + strength * (f"d{d}" in rel)) for d in docs}
        runs[f"sys{s_i}"] = Run(run, name=f"sys{s_i}")
    return runs, Qrels(qrels)
