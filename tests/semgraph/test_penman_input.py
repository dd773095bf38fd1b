"""PENMAN input: AMR graphs from strings, files, folders and JSONL as concept graphs."""

from __future__ import annotations

import json

import pytest

from skbsearch.core.errors import InputError
from skbsearch.semgraph import (
    load_penman_dir,
    load_penman_file,
    load_penman_jsonl,
    parse_penman,
    path_text,
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
