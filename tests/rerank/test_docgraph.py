"""Document graph construction and edge features on hand-made concept graphs."""

from __future__ import annotations

from skbsearch.rerank.docgraph import build_document_graph
from skbsearch.semgraph import ConceptGraph


def _graph(triples: list[tuple[str, str, str]]) -> ConceptGraph:
    g = ConceptGraph(root="question")
    g.add_node("question")
    for s, r, d in triples:
        g.add_node(s)
        g.add_node(d)
        g.add_edge(s, r, d)
    return g


G1 = _graph([("question", "q", "a"), ("a", "r", "b"), ("b", "s", "c")])
G2 = _graph([("question", "q", "a"), ("a", "r", "b"), ("b", "t", "d")])
G3 = _graph([("question", "q", "x"), ("x", "r", "y")])
G4 = _graph([("question", "q", "c"), ("c", "u", "e")])


def _edges(dg) -> dict[tuple[int, int], tuple[float, ...]]:
    return {
        (int(s), int(d)): tuple(float(v) for v in a)
        for (s, d), a in zip(dg.edge_index.T, dg.edge_attr, strict=True)
    }


def test_edges_counts_and_normalisation() -> None:
    dg = build_document_graph([G1, G2, G3, G4])
    assert dg.num_nodes == 4 and dg.num_edges == 2
    # G1-G2 share {a, b} and the edge a-r->b; G1-G4 share {c}; 'question' is not counted
    counts = {
        (int(s), int(d)): tuple(c) for (s, d), c in zip(dg.edge_index.T, dg.counts, strict=True)
    }
    assert counts == {(0, 1): (2, 1), (1, 0): (2, 1), (0, 3): (1, 0), (3, 0): (1, 0)}
    assert _edges(dg) == {
        (0, 1): (1.0, 1.0),
        (1, 0): (1.0, 1.0),
        (0, 3): (0.5, 0.0),
        (3, 0): (0.5, 0.0),
    }


def test_options_unlabelled_edges_and_counting_the_root() -> None:
    g5 = _graph([("question", "q", "a"), ("a", "other", "b")])
    labelled = build_document_graph([G1, g5])
    assert labelled.counts.tolist() == [[2, 0], [2, 0]]
    unlabelled = build_document_graph([G1, g5], labelled_edges=False)
    assert unlabelled.counts.tolist() == [[2, 1], [2, 1]]
    with_root = build_document_graph([G1, G3], ignore_concepts=())
    assert with_root.num_edges == 1  # only the shared 'question' node joins them
    assert build_document_graph([G1, G2], min_common_nodes=3).num_edges == 0


def test_no_edges_and_single_document() -> None:
    for graphs in ([G3], [G1, G3], []):
        dg = build_document_graph(graphs)
        assert dg.edge_index.shape == (2, 0) and dg.edge_attr.shape == (0, 2)
