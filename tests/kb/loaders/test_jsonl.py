"""JSONL nodes + edges loader: happy path and every bad-input error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skbsearch.core.errors import InputError
from skbsearch.kb.loaders import load, load_jsonl

NODES = [
    {"id": "m1", "type": "movie", "name": "Kismet", "fields": {"plot": "A beggar"}, "year": 1944},
    {"id": "m2", "type": "movie", "name": "Heat", "tagline": "A Los Angeles crime saga",
     "attributes": {"rating": 8.3}, "year": 1995, "aliases": ["Heat (1995)", "HEAT"]},
    {"id": "p1", "type": "person", "name": "William Dieterle", "country": "DE"},
    {"id": 7, "type": "person", "name": "Michael Mann", "active": True},
]
EDGES = [
    {"source": "m1", "relation": "directed_by", "target": "p1"},
    {"src": "m2", "relation": "directed_by", "dst": "7"},
    {"head": "m2", "rel": "written_by", "tail": 7, "weight": 1.0},
]


def write_jsonl(path: Path, records: list) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture
def kb_dir(tmp_path: Path) -> Path:
    write_jsonl(tmp_path / "nodes.jsonl", NODES)
    write_jsonl(tmp_path / "edges.jsonl", EDGES)
    return tmp_path


def test_happy_path(kb_dir: Path) -> None:
    skb = load_jsonl(kb_dir, attributes=["country"])
    assert skb.num_nodes == 4 and skb.num_edges == 3
    assert sorted(skb.type_names) == ["movie", "person"]
    assert sorted(skb.schema.relations) == ["directed_by", "written_by"]
    m2 = skb.node("m2")
    assert m2.name == "Heat"
    assert m2.fields == {"tagline": "A Los Angeles crime saga", "aliases": "Heat (1995); HEAT"}
    assert m2.attributes == {"rating": 8.3, "year": 1995}
    assert skb.node("m1").fields == {"plot": "A beggar"}
    assert skb.node("p1").attributes == {"country": "DE"}  # listed via attributes=
    assert skb.node("7").attributes == {"active": True}
    assert set(skb.schema.text_fields) == {"plot", "tagline", "aliases"}
    assert set(skb.schema.attributes) == {"year", "rating", "country", "active"}
    g = skb.graph
    _, nb = g.neighbors([skb.index_of("m2")], ["directed_by"], "out")
    assert skb.id_of(nb) == ["7"]
    assert skb.meta["source"]["format"] == "jsonl"


def test_explicit_files_and_detection(kb_dir: Path) -> None:
    skb = load(None, nodes=kb_dir / "nodes.jsonl", edges=kb_dir / "edges.jsonl")
    assert skb.num_edges == 3
    assert load(kb_dir).num_nodes == 4  # format detected from nodes.jsonl


def test_nodes_only_with_default_type(tmp_path: Path) -> None:
    f = write_jsonl(tmp_path / "n.jsonl", [{"id": "a", "name": "A"}, {"id": "b", "type": "t"}])
    skb = load_jsonl(nodes=f, default_type="thing")
    assert [skb.node(i).type for i in ("a", "b")] == ["thing", "t"]
    assert skb.num_edges == 0


def _err(kb_dir: Path, nodes: list | None = None, edges: list | None = None, **kw) -> InputError:
    if nodes is not None:
        write_jsonl(kb_dir / "nodes.jsonl", nodes)
    if edges is not None:
        write_jsonl(kb_dir / "edges.jsonl", edges)
    with pytest.raises(InputError) as ei:
        load_jsonl(kb_dir, **kw)
    return ei.value


def test_malformed_json_names_file_and_line(kb_dir: Path) -> None:
    (kb_dir / "nodes.jsonl").write_text('{"id": "a", "type": "t"}\n{"id": "b", "type": \n', encoding="utf-8")
    e = _err(kb_dir)
    assert e.file.endswith("nodes.jsonl") and e.line == 2
    assert "malformed JSON" in str(e) and "nodes.jsonl:2" in str(e)


def test_not_an_object(kb_dir: Path) -> None:
    (kb_dir / "edges.jsonl").write_text('["m1", "directed_by", "p1"]\n', encoding="utf-8")
    e = _err(kb_dir)
    assert e.file.endswith("edges.jsonl") and e.line == 1 and "JSON object" in str(e)


def test_missing_id(kb_dir: Path) -> None:
    e = _err(kb_dir, nodes=[NODES[0], {"type": "movie", "name": "No id"}])
    assert (Path(e.file).name, e.line, e.field) == ("nodes.jsonl", 2, "id")
    assert "field 'id'" in str(e)


def test_missing_type(kb_dir: Path) -> None:
    e = _err(kb_dir, nodes=[{"id": "x", "name": "X"}])
    assert (e.line, e.field) == (1, "type")


def test_duplicate_id(kb_dir: Path) -> None:
    e = _err(kb_dir, nodes=NODES + [{"id": "m1", "type": "movie"}])
    assert (Path(e.file).name, e.line, e.field) == ("nodes.jsonl", 5, "id")
    assert "duplicate" in str(e) and "nodes.jsonl:1" in str(e)  # points at the first definition


def test_duplicate_first_wins(kb_dir: Path) -> None:
    write_jsonl(kb_dir / "nodes.jsonl", NODES + [{"id": "m1", "type": "movie", "name": "Other"}])
    assert load_jsonl(kb_dir, on_duplicate="first").node("m1").name == "Kismet"


def test_edge_to_unknown_node(kb_dir: Path) -> None:
    e = _err(kb_dir, edges=EDGES + [{"source": "m1", "relation": "starred_actors", "target": "nobody"}])
    assert (Path(e.file).name, e.line, e.field) == ("edges.jsonl", 4, "target")
    assert "unknown node 'nobody'" in str(e)


def test_edge_without_source(kb_dir: Path) -> None:
    e = _err(kb_dir, edges=[{"relation": "r", "target": "m1"}])
    assert (e.line, e.field) == (1, "source") and "'src'" in str(e)


def test_kind_conflict_names_both_lines(kb_dir: Path) -> None:
    e = _err(kb_dir, nodes=[NODES[0], {"id": "m3", "type": "movie", "year": "nineteen"}])
    assert (e.line, e.field) == (2, "year")
    assert "nodes.jsonl:1" in str(e)


def test_nested_object_refused(kb_dir: Path) -> None:
    e = _err(kb_dir, nodes=[{"id": "a", "type": "t", "info": {"x": 1}}])
    assert (e.line, e.field) == (1, "info")


def test_reserved_relation(kb_dir: Path) -> None:
    e = _err(kb_dir, edges=[{"source": "m1", "relation": "directed_by^-1", "target": "p1"}])
    assert (e.line, e.field) == (1, "relation")


def test_missing_nodes_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="nodes file not found"):
        load_jsonl(tmp_path)
