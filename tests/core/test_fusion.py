"""Rank and score fusion of Runs (:mod:`skbsearch.core.fusion`): hand-computed examples."""

from __future__ import annotations

import math

import pytest

from skbsearch.core.errors import InputError
from skbsearch.core.fusion import (
    confident_weights,
    fuse_runs,
    normalize_scores,
    rrf,
    score_fusion,
    weighted_fusion,
)
from skbsearch.core.types import Run

A = Run({"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"x": 1.0}}, name="A")
B = Run({"q1": {"c": 0.9, "a": 0.5, "d": 0.1}}, name="B")


def test_rrf_hand_computed():
    out = rrf([A, B], k=60)
    assert out["q1"]["a"] == pytest.approx(1 / 61 + 1 / 62)
    assert out["q1"]["b"] == pytest.approx(1 / 62)
    assert out["q1"]["c"] == pytest.approx(1 / 63 + 1 / 61)
    assert out["q1"]["d"] == pytest.approx(1 / 63)
    assert [d for d, _ in out.ranked("q1")] == ["a", "c", "b", "d"]
    assert out["q2"] == {"x": pytest.approx(1 / 61)}  # a query only one run has


def test_rrf_weights_depth_and_k():
    out = rrf([A, B], k=0, weights=[1.0, 3.0], depth=1)
    assert out["q1"] == {"a": pytest.approx(1.0), "c": pytest.approx(3.0)}
    ties = Run({"q": {"z": 1.0, "y": 1.0}})  # equal scores: ranked as Run.ranked breaks ties
    first, second = (d for d, _ in ties.ranked("q"))
    assert rrf([ties], k=1)["q"] == {first: pytest.approx(1 / 2), second: pytest.approx(1 / 3)}
    with pytest.raises(InputError, match="weights"):
        rrf([A, B], weights=[1.0])
    with pytest.raises(InputError):
        rrf([A], k=-1)


def test_minmax_weighted_fusion_hand_computed():
    out = weighted_fusion([A, B], weights=[0.7, 0.3], norm="minmax")
    # A normalised: a=1, b=0.5, c=0; B normalised: c=1, a=0.5, d=0; absent -> 0
    assert out["q1"]["a"] == pytest.approx(0.7 * 1 + 0.3 * 0.5)
    assert out["q1"]["b"] == pytest.approx(0.7 * 0.5 + 0.3 * 0.0)
    assert out["q1"]["c"] == pytest.approx(0.7 * 0 + 0.3 * 1)
    assert out["q1"]["d"] == pytest.approx(0.0)
    assert out["q2"] == {"x": pytest.approx(0.7)}  # one candidate: normalised to 1


def test_zscore_fusion_hand_computed():
    r1 = Run({"q": {"a": 1.0, "b": 2.0, "c": 3.0}})
    r2 = Run({"q": {"a": 10.0, "b": 30.0}})
    out = weighted_fusion([r1, r2], norm="zscore")
    sd = math.sqrt(2 / 3)
    z1 = {"a": -1 / sd, "b": 0.0, "c": 1 / sd}
    z2 = {"a": -1.0, "b": 1.0}  # mean 20, population std 10
    assert out["q"]["a"] == pytest.approx(z1["a"] + z2["a"])
    assert out["q"]["b"] == pytest.approx(z1["b"] + z2["b"])
    assert out["q"]["c"] == pytest.approx(z1["c"] + z2["a"])  # absent: r2's lowest z-score


def test_normalize_scores_edge_cases():
    assert normalize_scores({"a": 2.0, "b": 2.0}, "minmax") == {"a": 1.0, "b": 1.0}
    assert normalize_scores({"a": 2.0, "b": 2.0}, "zscore") == {"a": 0.0, "b": 0.0}
    assert normalize_scores({"a": 5.0}, "none") == {"a": 5.0}
    assert normalize_scores({}, "minmax") == {}
    with pytest.raises(InputError, match="normalisation"):
        normalize_scores({"a": 1.0}, "softmax")


def test_score_fusion_keeps_a_confident_lists_top():
    """Documents both lists return in their middle outrank each list's first under RRF;
    score fusion keeps both firsts on top, and a document both rank high still wins."""
    sure = Run({"q": {"g1": 10.0, "x1": 1.0, "x2": 0.9, "x3": 0.8, "x4": 0.0}})
    other = Run({"q": {"y": 5.0, "z": 4.0, "x1": 2.5, "x2": 2.4, "x3": 2.3, "w": 0.0}})
    assert [d for d, _ in rrf([sure, other]).ranked("q")[:2]] == ["x1", "x2"]
    fused = score_fusion([sure, other])
    assert {d for d, _ in fused.ranked("q")[:2]} == {"g1", "y"}
    # hand-computed: g1 = 61/61 + 2 * 1; x1 = 61/62 + 61/63 (ranks 2 and 3) + 2 * max(0.1, 0.5)
    assert fused["q"]["g1"] == pytest.approx(3.0)
    assert fused["q"]["x1"] == pytest.approx(61 / 62 + 61 / 63 + 1.0)
    both = score_fusion([Run({"q": {"a": 2.0, "b": 1.0, "c": 0.0}}), Run({"q": {"a": 3.0, "d": 0.0}})])
    assert both.ranked("q")[0] == ("a", pytest.approx(4.0))
    assert score_fusion([sure, other], weights=[1.0, 0.0])["q"]["y"] == 0.0
    with pytest.raises(InputError):
        score_fusion([sure], top=-1.0)


def test_score_fusion_a_steep_list_does_not_outvote_two_lists():
    """A list whose scores fall off fast after its first (BM25 beside dense or graph lists)
    put its first, s, above g, which the two other lists both rank first, when the sum was
    over min-max scores (s = 1 + .9 + .9 + 2 = 4.8 > g = .1 + 1 + 1 + 2 = 4.1); the rank
    sum follows the two lists, as RRF does."""
    steep = Run({"q": {"s": 10.0, "g": 1.9, "o": 1.0, "p": 0.9}})
    flat = Run({"q": {"g": 0.60, "o": 0.59, "s": 0.59 - 1e-9, "p": 0.5}})
    flat2 = Run({"q": {"g": 0.70, "o": 0.69, "s": 0.69 - 1e-9, "p": 0.6}})
    assert rrf([steep, flat, flat2]).ranked("q")[0][0] == "g"
    fused = score_fusion([steep, flat, flat2])
    assert fused.ranked("q")[0][0] == "g"
    assert fused["q"]["g"] == pytest.approx(61 / 62 + 1 + 1 + 2.0)
    assert score_fusion([steep, flat, flat2], top=0.0)["q"]["g"] == pytest.approx(
        61 * rrf([steep, flat, flat2])["q"]["g"])  # top = 0: RRF (scaled)
    with pytest.raises(InputError):
        score_fusion([steep], k=-1)


def test_confident_weights_follow_each_lists_confidence_on_the_query():
    """Shared evidence counts once at full confidence; a list that is not confident on a
    query weighs its confidence, and the lists it shares evidence with weigh more."""
    ev = [("index:bm25",), ("graph", "index:bm25")]
    assert confident_weights(ev, [1.0, 1.0]) == [0.5, 1.0]
    assert confident_weights(ev, [1.0, 0.0]) == [1.0, 0.0]
    assert confident_weights(ev, [1.0, 0.5]) == pytest.approx([1 / 1.5, 0.5])
    assert confident_weights([(), ("x",)], [1.0, 2.0]) == [1.0, 1.0]  # clipped to [0, 1]


def test_score_fusion_with_evidence_weighs_each_query_by_the_runs_confidence():
    text = Run({"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"a": 3.0, "b": 2.0, "c": 1.0}}, name="bm25")
    graph = Run({"q1": {"c": 5.0, "d": 1.0}, "q2": {"c": 5.0, "d": 1.0}}, name="graph")
    graph.confidence = {"q1": 0.0, "q2": 1.0}
    ev = [("index:bm25",), ("graph", "index:bm25")]
    fused = score_fusion([text, graph], evidence=ev)
    # no confidence on q1: the graph list adds nothing, the text list's order stands
    assert [d for d, _ in fused.ranked("q1")][:3] == ["a", "b", "c"]
    assert fused["q1"]["a"] == pytest.approx(1.0 + 2.0)
    # full confidence on q2: the static shared-evidence weights (0.5, 1)
    assert fused["q2"] == score_fusion([text, graph], weights=[0.5, 1.0])["q2"]
    assert fused.ranked("q2")[0][0] == "c"
    # a cut keeps the confidence it was given
    assert graph.top(1).confidence == graph.confidence


def test_fuse_runs_is_run_plus_run_and_names_the_methods():
    """Saved Runs fuse with the functions the stages use: ``a + b`` is ``fuse``, and each
    method's own parameters are checked by name."""
    assert (A + B) == fuse_runs([A, B]) == score_fusion([A, B], name="A+B")
    assert (A + B).name == "A+B"
    assert fuse_runs([A, B], "rrf", k=0) == rrf([A, B], k=0)
    assert fuse_runs([A, B], "zscore", weights=[1.0, 2.0]) == weighted_fusion([A, B], [1.0, 2.0], "zscore")
    with pytest.raises(InputError, match="no parameter 'top'"):
        fuse_runs([A, B], "rrf", top=1.0)
    with pytest.raises(InputError, match="unknown fusion method"):
        fuse_runs([A, B], "max")
