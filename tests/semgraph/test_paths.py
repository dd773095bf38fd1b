"""Shortest paths from the question root, the subset rule, path text (G-RAG §3.2.1)."""

from __future__ import annotations

from skbsearch.semgraph import (
    ConceptGraph,
    maximal_paths,
    path_concepts,
    shortest_paths,
)


def _graph(edges: list[tuple[str, str]]) -> ConceptGraph:
    g = ConceptGraph(root="q")
    g.add_node("q", "question")
    for s, d in edges:
        g.add_node(s)
        g.add_node(d)
        g.add_edge(s, "r", d)
    return g


def test_shortest_paths_keep_only_maximal() -> None:
    g = _graph([("q", "a"), ("a", "b"), ("b", "c"), ("a", "d"), ("q", "e"), ("c", "q")])
    paths = shortest_paths(g)
    # c is reached directly from q (undirected), so q-a-b-c is not a shortest path
    assert ["q", "c"] in paths and ["q", "a", "b", "c"] not in paths
    kept = maximal_paths(paths)
    # BFS order a, e, c, b, d; q-a is a subset of q-a-b and q-a-d
    assert kept == [["q", "e"], ["q", "c"], ["q", "a", "b"], ["q", "a", "d"]]
    # directed: c -> q cannot be followed
    assert ["q", "a", "b", "c"] in shortest_paths(g, directed=True)


def test_subset_rule_is_about_node_sets_not_prefixes() -> None:
    paths = [["q", "a", "b"], ["q", "b", "a", "c"], ["q", "x"], ["q", "x"]]
    assert maximal_paths(paths) == [["q", "b", "a", "c"], ["q", "x"]]


def test_path_text_matches_the_paper_example() -> None:
    p1 = ["question", "cross", "world-region", "crucifix", "number", "be-located-at",
          "country", "Spain"]  # fmt: skip
    p2 = ["question", "cross", "religion", "Catholicism", "belief", "worship"]
    g = _graph(list(zip(p1[:-1], p1[1:], strict=True)) + list(zip(p2[:-1], p2[1:], strict=True)))
    assert " ".join(path_concepts(g, maximal_paths([p1, p2]))) == (
        "question cross world-region crucifix number be-located-at country Spain "
        "religion Catholicism belief worship"
    )
