"""The graph stage on a small catalogue: relational evidence from linked names, attribute bounds
(the cases of the retired catalogue stage ``graph-v1``, now answered by ``graph``; the bounds'
parser and mask: test_bounds.py)."""

from __future__ import annotations

import pytest

from skbsearch.core.types import Query
from skbsearch.kb import SKBBuilder
from skbsearch.stages import StageContext, pipeline


def _shop():
    b = SKBBuilder()
    b.add_node("brand:acme", "brand", "Acme")
    b.add_node("brand:zen", "brand", "Zenith")
    b.add_node("p1", "product", "Acme Trail Mug", {"description": "a ceramic mug, dishwasher safe"}, {"price": 12.0, "rating": 4.5})
    b.add_node("p2", "product", "Zenith Alpine Mug", {"description": "a ceramic mug, dishwasher safe"}, {"price": 30.0, "rating": 3.0})
    b.add_node("p3", "product", "Zenith Cosy Mug", {"description": "a porcelain cup"}, {"price": 15.0, "rating": 4.8})
    b.add_node("p4", "product", "Acme Hiking Boot", {"description": "leather boots, waterproof"}, {"price": 90.0, "rating": 4.1})
    b.add_edge("p1", "has_brand", "brand:acme")
    b.add_edge("p4", "has_brand", "brand:acme")
    b.add_edge("p2", "has_brand", "brand:zen")
    b.add_edge("p3", "has_brand", "brand:zen")
    b.add_edge("p3", "also_bought", "p4")  # people who bought the boot also bought p3
    return b.build()


@pytest.fixture(scope="module")
def stage():
    return pipeline("graph(target=[product], k=10)", StageContext(_shop(), notify=lambda _: None))


def test_brand_relation_breaks_a_text_tie(stage):
    run = stage([Query("q", "dishwasher safe ceramic mug by Zenith")])
    ranked = [d for d, _ in run.ranked("q")]
    assert ranked[0] == "p2"  # p1 and p2 have identical text; only p2 is a Zenith product
    assert set(ranked) <= {"p1", "p2", "p3", "p4"}  # only target types


def test_graph_only_candidate_is_found(stage):
    # p3's text does not mention 'cup bought with Acme Hiking Boot' except 'cup';
    # the also_bought edge to the named boot makes it the answer.
    run = stage([Query("q", "a cup bought together with the Acme Hiking Boot")])
    assert run.ranked("q")[0][0] == "p3"


def test_attribute_bounds_push_violators_down(stage):
    run = stage([Query("q", "ceramic mug dishwasher safe under $20")])
    assert run.ranked("q")[0][0] == "p1"  # p2 matches the text too but costs $30


def test_explain_names_the_bounds_met(stage):
    lines = stage.explain(Query("q", "ceramic mug dishwasher safe under $20"), "p1")
    assert "attribute: price <= 20" in lines
