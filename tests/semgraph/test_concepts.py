"""ConceptGraph: nodes keep their first label, edges need both ends and are unique, the
views by concept, adjacency and the dict round trip of the parse cache."""

from __future__ import annotations

import json

import pytest

from skbsearch.semgraph.concepts import ROOT_CONCEPT, ConceptGraph


def _pair_graph() -> ConceptGraph:
    g = ConceptGraph(root="q")
    g.add_node("q", ROOT_CONCEPT)
    g.add_node("c", "cross")
    g.add_node("s", "Spain")
    g.add_edge("q", "ARG1", "c")
    g.add_edge("c", "location", "s")
    return g


def test_a_node_keeps_its_first_label_and_an_edge_is_added_once() -> None:
    g = _pair_graph()
    assert g.add_node("c", "crucifix") == "c" and g.concept("c") == "cross"
    assert g.add_node("x") == "x" and g.concept("x") == "x"  # the label defaults to the id
    g.add_edge("c", "location", "s")
    assert g.edges.count(("c", "location", "s")) == 1
    g.add_edge("s", "location", "c")  # the other direction is another edge
    assert len(g.edges) == 3 and len(g) == 4


def test_an_edge_to_a_missing_node_is_refused() -> None:
    g = _pair_graph()
    with pytest.raises(KeyError, match="'nowhere' is not a node"):
        g.add_edge("c", "r", "nowhere")
    assert len(g.edges) == 2


def test_views_by_concept_leave_out_ignored_concepts() -> None:
    g = _pair_graph()
    assert g.concepts(ignore=[ROOT_CONCEPT]) == {"cross", "Spain"}
    assert g.concept_edges() == {(ROOT_CONCEPT, "ARG1", "cross"), ("cross", "location", "Spain")}
    assert g.concept_edges(ignore=[ROOT_CONCEPT], labelled=False) == {("cross", "Spain")}


def test_adjacency_undirected_and_directed_without_self_loops() -> None:
    g = _pair_graph()
    g.add_edge("s", "same", "s")
    assert g.adjacency() == {"q": ["c"], "c": ["q", "s"], "s": ["c"]}
    assert g.adjacency(directed=True) == {"q": ["c"], "c": ["s"], "s": []}


def test_dict_round_trip_through_json() -> None:
    g = _pair_graph()
    back = ConceptGraph.from_dict(json.loads(json.dumps(g.to_dict())))
    assert back == g and back.root == "q"
    back.add_edge("q", "ARG1", "c")  # the restored graph knows its edges: no duplicate
    assert back.edges == g.edges
    assert repr(back) == "ConceptGraph(nodes=3, edges=2, root='q')"
