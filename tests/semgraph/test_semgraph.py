"""Concept graphs: PENMAN input, shortest paths with the subset rule, the spaCy parser."""

from __future__ import annotations

import json

import pytest

from skbsearch.core.errors import InputError
from skbsearch.semgraph import (
    ConceptGraph,
    DependencyParser,
    load_penman_dir,
    load_penman_file,
    load_penman_jsonl,
    maximal_paths,
    parse_penman,
    path_concepts,
    path_text,
    shortest_paths,
)

pytest.importorskip("penman")

AMR = """
# ::snt question: where is the cross of Spain
(q / question
   :ARG1 (c / cross
            :location (c2 / country
                         :name (n / name :op1 "Spain"))
            :ARG0-of (w / worship-01)))
"""


def test_penman_nodes_edges_and_root() -> None:
    g = parse_penman(AMR)
    assert g.root == "q"
    assert g.nodes["q"] == "question" and g.nodes["c2"] == "country"
    assert "Spain" in g.concepts()  # attribute constants become nodes, quotes stripped
    assert ("q", "ARG1", "c") in g.edges
    assert ("w", "ARG0", "c") in g.edges  # inverted role normalised by penman
    # kept paths in BFS order: q-c-w (depth 2) before q-c-c2-n-Spain (depth 4)
    assert path_text(g) == "question cross worship-01 country name Spain"


def test_penman_multi_graph_union_and_missing_root() -> None:
    g = parse_penman("(a / alpha :mod (b / beta))\n\n(q / question :ARG1 (a / alpha))")
    assert set(g.nodes) == {"g0.a", "g0.b", "g1.q", "g1.a"}
    assert g.root == "g1.q"
    assert parse_penman("(a / alpha)").root is None
    assert path_text(parse_penman("(a / alpha)")) == ""


def test_penman_errors_name_file_and_line(tmp_path) -> None:
    bad = tmp_path / "q1" / "d1.amr"
    bad.parent.mkdir()
    bad.write_text("(q / question :ARG1 (c / cross", encoding="utf-8")
    with pytest.raises(InputError) as e:
        load_penman_file(bad)
    assert e.value.file == str(bad) and "PENMAN" in str(e.value)
    with pytest.raises(InputError, match="no AMR graph"):
        parse_penman("   ")


def test_penman_dir_and_jsonl(tmp_path) -> None:
    (tmp_path / "amr" / "q1").mkdir(parents=True)
    (tmp_path / "amr" / "q1" / "d7.amr").write_text(AMR, encoding="utf-8")
    graphs = load_penman_dir(tmp_path / "amr")
    assert list(graphs) == [("q1", "d7")] and graphs["q1", "d7"].root == "q"

    path = tmp_path / "amr.jsonl"
    rows = [{"qid": "q1", "docid": "d7", "amr": AMR}, {"qid": "q1", "docid": "d8"}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as e:
        load_penman_jsonl(path)
    assert (e.value.line, e.value.field) == (2, "amr")
    path.write_text(json.dumps(rows[0]) + "\n", encoding="utf-8")
    assert load_penman_jsonl(path)["q1", "d7"].nodes["c"] == "cross"


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


def test_dependency_parser_graph_and_disk_cache(tmp_path) -> None:
    pytest.importorskip("spacy")
    q = "how long is life cycle of flea"
    doc = "A flea can live up to a year. The Eiffel Tower is in Paris."
    parser = DependencyParser(cache_dir=tmp_path)
    g = parser.parse(q, doc)
    assert g.root == "question"
    assert ("cycle", "prep_of", "flea") in g.edges
    assert ("question", "q", "cycle") in g.edges and ("question", "q", "live") not in g.edges
    assert "eiffel tower" in g.concepts()  # a named entity is one node
    text = path_text(g)
    assert text.startswith("question") and "live" in text and "paris" not in text
    again = DependencyParser(cache_dir=tmp_path)
    assert again.parse_many([(q, doc)])[0].to_dict() == g.to_dict()
    assert again._nlp is None  # served from the disk cache, spaCy never loaded
