"""The old fusion names of ``skbsearch.retrieve.hybrid`` (``RRF``, ``WeightedFusion``,
``ScoreFusion`` and the functions) build the fusion stages, with the parameters they pass."""

from __future__ import annotations

import pytest

from skbsearch.core.errors import InputError
from skbsearch.core.fusion import rrf, score_fusion, weighted_fusion
from skbsearch.core.operators import FunctionStage
from skbsearch.core.types import Query, Run
from skbsearch.stages.fusion import FuseStage, MinMaxStage, RRFStage, ZScoreStage

A = Run({"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"x": 1.0}}, name="A")
B = Run({"q1": {"c": 0.9, "a": 0.5, "d": 0.1}}, name="B")


def _fixed(run: Run, name: str) -> FunctionStage:
    """A stage that answers from a precomputed Run."""
    return FunctionStage(lambda queries, prev: Run({q.id: run.get(q.id, {}) for q in queries}, name=name), name)


def test_the_old_hybrid_names_build_the_stages() -> None:
    """``RRF``, ``WeightedFusion``, ``ScoreFusion`` and the functions still import from
    ``skbsearch.retrieve.hybrid``; the classes are now the stages."""
    from skbsearch.retrieve import hybrid

    sa, sb = _fixed(A, "A"), _fixed(B, "B")
    qs = [Query("q1", "x")]
    assert isinstance(hybrid.RRF(sa, sb, k=10), RRFStage)
    assert hybrid.RRF(sa, sb, k=10)(qs)["q1"] == rrf([A, B], k=10)["q1"]
    w = hybrid.WeightedFusion([(sa, 0.7), sb], norm="zscore")
    assert isinstance(w, ZScoreStage) and w.params.weights == (0.7, 1.0)
    assert w(qs)["q1"] == weighted_fusion([A, B], [0.7, 1.0], "zscore")["q1"]
    assert hybrid.ScoreFusion(sa, sb, top=1.0)(qs)["q1"] == score_fusion([A, B], top=1.0)["q1"]
    assert hybrid.rrf is rrf and hybrid.score_fusion is score_fusion
    with pytest.raises(InputError, match="normalisation"):
        hybrid.WeightedFusion([sa], norm="l2")


def test_parameters_reach_the_stages() -> None:
    from skbsearch.retrieve import hybrid

    sa, sb = _fixed(A, "A"), _fixed(B, "B")
    r = hybrid.RRF(sa, sb, k=5, weights=[2.0, 1.0], depth=2)
    assert (r.params.k, r.params.weights, r.params.depth) == (5, (2.0, 1.0), 2)
    assert r([Query("q1", "x")])["q1"] == rrf([A, B], k=5, weights=[2.0, 1.0], depth=2)["q1"]
    m = hybrid.WeightedFusion([sa, sb])  # plain stages weigh 1, min-max by default
    assert isinstance(m, MinMaxStage) and m.params.weights == (1.0, 1.0)
    f = hybrid.ScoreFusion(sa, sb, weights=[1.0, 3.0], depth=50, k=30)
    assert isinstance(f, FuseStage) and (f.params.weights, f.params.depth, f.params.k) == ((1.0, 3.0), 50, 30)
    assert repr(hybrid.RRF(sa, sb)).startswith("rrf(")  # prints as the spec that builds it
