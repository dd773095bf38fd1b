"""The graph stage's parameters and working data (``retrieve.graph.plan``): parameters
checked, a plan's target types, the confidence of a list without a sure walk and with one,
and each node's relational evidence (rival senses of one name taken at their largest)."""

from __future__ import annotations

import numpy as np
import pytest

from skbsearch.core.errors import InputError
from skbsearch.retrieve.graph.linking import Anchor
from skbsearch.retrieve.graph.plan import GraphParams, Plan, relational_evidence


def test_text_only_confidence_grows_with_what_the_answer_types_rule_out():
    """0.5 when the types rule out nothing, 1 from one bit (half the nodes ruled out) on."""
    from skbsearch.retrieve.graph.plan import text_only_confidence, walk_confidence

    assert text_only_confidence(1.0) == 0.5
    assert text_only_confidence(0.5) == 1.0 and text_only_confidence(0.01) == 1.0
    assert text_only_confidence(10 / 15) == pytest.approx(0.5 * (1 + 0.58496), abs=1e-4)
    assert text_only_confidence(0.0) == 1.0  # no row of the types: not a crash
    assert walk_confidence({}, 0.8) == 0.8 and walk_confidence({3: 0.9}, 0.8) == 0.9
    assert walk_confidence({}) == 0.5


@pytest.mark.parametrize(("kw", "field"), [({"k": -1}, "k"), ({"n_text": -5}, "n_text"), ({"backoff": -1}, "backoff"),
                                           ({"max_hops": 0}, "max_hops"), ({"max_hops": 5}, "max_hops")])
def test_parameters_out_of_range_are_refused(kw: dict, field: str) -> None:
    with pytest.raises(InputError) as e:
        GraphParams(**kw).check()
    assert e.value.field == field
    GraphParams(k=0, max_hops=4, backoff=0).check()


def test_target_types_are_the_likely_ones_sorted() -> None:
    plan = Plan(words=["x"], anchors=[], paths=[], types={"product": 0.6, "brand": 0.1, "category": 0.05})
    assert plan.target_types() == ("brand", "product")
    assert Plan(words=[], anchors=[], paths=[], types={}).target_types() == ()


def _anchor(node: int, words: tuple[int, ...], whole: bool) -> Anchor:
    return Anchor(node=node, conf=1.0, mention="m", words=words, source="exact", whole=whole)


def test_relational_evidence_adds_anchors_and_paths_but_not_rival_senses() -> None:
    # anchors 0 and 1: two senses of one name said whole (the same words); anchor 2: another mention
    anchors = [_anchor(10, (1,), True), _anchor(11, (1,), True), _anchor(12, (3,), True)]
    walks = [(0, ("a", "r"), 0.5, np.array([1, 2])), (0, ("a", "s"), 0.25, np.array([2])),
             (1, ("b", "r"), 0.6, np.array([2, 3])), (2, ("c", "r"), 0.25, np.array([2, 4]))]
    rel = relational_evidence(anchors, walks, 6)
    # node 2: sense 0 gives 0.75 (two paths), sense 1 gives 0.6: the larger, 0.75; plus anchor 2's 0.25
    assert rel.tolist() == pytest.approx([0.0, 0.5, 1.0, 0.6, 0.25, 0.0])
    partial = [_anchor(10, (1,), True), _anchor(11, (1,), False), _anchor(12, (3,), True)]
    assert relational_evidence(partial, walks, 6)[2] == pytest.approx(0.75 + 0.6 + 0.25)  # not rivals: they add
    assert relational_evidence(anchors, [], 3).tolist() == [0.0, 0.0, 0.0]
