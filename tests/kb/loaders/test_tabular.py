"""CSV nodes + edges loader: happy path and every bad-input error."""

from __future__ import annotations

from pathlib import Path

import pytest

from skbsearch.core.errors import InputError
from skbsearch.kb.loaders import load, load_csv
from skbsearch.kb.loaders.tabular import parse_scalar

NODES_CSV = """id,type,name,plot,year,attributes.rating,fields.tagline
m1,movie,Kismet,"A beggar, a king",1944,7.1,
m2,movie,Heat,,1995,8.3,"A Los Angeles
crime saga"
p1,person,William Dieterle,,,,
"""
EDGES_CSV = """src,relation,dst,weight
m1,directed_by,p1,1
m2,directed_by,p1,0.5
"""


@pytest.fixture
def kb_dir(tmp_path: Path) -> Path:
    (tmp_path / "nodes.csv").write_text(NODES_CSV, encoding="utf-8")
    (tmp_path / "edges.csv").write_text(EDGES_CSV, encoding="utf-8")
    return tmp_path


def test_parse_scalar() -> None:
    assert parse_scalar("12") == 12 and parse_scalar("-1.5e3") == -1500.0
    assert parse_scalar("TRUE") is True and parse_scalar("abc") == "abc"


def test_happy_path(kb_dir: Path) -> None:
    skb = load_csv(kb_dir, attributes=["year"])
    assert skb.num_nodes == 3 and skb.num_edges == 2
    m1 = skb.node("m1")
    assert m1.fields == {"plot": "A beggar, a king"}
    assert m1.attributes == {"year": 1944, "rating": 7.1}
    assert skb.node("m2").fields == {"tagline": "A Los Angeles\ncrime saga"}
    assert skb.schema.attributes["year"] == "int64"
    assert skb.schema.relation_roles["directed_by"] == ["movie", "person"]
    assert skb.node("p1").fields == {} and skb.node("p1").attributes == {}


def test_without_attributes_option_year_is_text(kb_dir: Path) -> None:
    skb = load_csv(kb_dir)
    assert skb.node("m1").fields["year"] == "1944"


def test_tsv_and_explicit_files(tmp_path: Path) -> None:
    n = tmp_path / "n.tsv"
    n.write_text("id\ttype\tname\na\tt\tA\nb\tt\tB\n", encoding="utf-8")
    e = tmp_path / "e.tsv"
    e.write_text("head\tpredicate\ttail\na\tr\tb\n", encoding="utf-8")
    skb = load(None, format="csv", nodes=n, edges=e)
    assert skb.num_edges == 1 and skb.node("b").name == "B"
    assert load(tmp_path / "x", format="csv", nodes=n).num_nodes == 2


def _err(kb_dir: Path, nodes: str | None = None, edges: str | None = None, **kw) -> InputError:
    if nodes is not None:
        (kb_dir / "nodes.csv").write_text(nodes, encoding="utf-8")
    if edges is not None:
        (kb_dir / "edges.csv").write_text(edges, encoding="utf-8")
    with pytest.raises(InputError) as ei:
        load_csv(kb_dir, **kw)
    return ei.value


def test_ragged_row(kb_dir: Path) -> None:
    e = _err(kb_dir, nodes="id,type,name\na,t,A\nb,t\n")
    assert (Path(e.file).name, e.line, e.field) == ("nodes.csv", 3, "name")
    assert "nodes.csv:3" in str(e)


def test_empty_id(kb_dir: Path) -> None:
    e = _err(kb_dir, nodes="id,type,name\na,t,A\n,t,B\n")
    assert (e.line, e.field) == (3, "id")


def test_no_id_column(kb_dir: Path) -> None:
    e = _err(kb_dir, nodes="key,type\na,t\n")
    assert (e.line, e.field) == (1, "id")


def test_missing_type(kb_dir: Path) -> None:
    e = _err(kb_dir, nodes="id,type,name\na,,A\n")
    assert (e.line, e.field) == (2, "type")


def test_duplicate_id(kb_dir: Path) -> None:
    e = _err(kb_dir, nodes="id,type\na,t\nb,t\na,t\n")
    assert (Path(e.file).name, e.line, e.field) == ("nodes.csv", 4, "id") and "nodes.csv:2" in str(e)


def test_edge_to_unknown_node(kb_dir: Path) -> None:
    e = _err(kb_dir, edges="source,relation,target\nm1,directed_by,p1\nm1,starred_actors,ghost\n")
    assert (Path(e.file).name, e.line, e.field) == ("edges.csv", 3, "target")


def test_edges_without_relation_column(kb_dir: Path) -> None:
    e = _err(kb_dir, edges="source,target\nm1,p1\n")
    assert (Path(e.file).name, e.field) == ("edges.csv", "relation")


def test_attribute_kind_conflict(kb_dir: Path) -> None:
    e = _err(kb_dir, nodes="id,type,year\na,t,1999\nb,t,unknown\n", attributes=["year"])
    assert (e.line, e.field) == (3, "year") and "nodes.csv:2" in str(e)


def test_unknown_attribute_column(kb_dir: Path) -> None:
    e = _err(kb_dir, attributes=["nope"])
    assert (e.line, e.field) == (1, "nope")


def test_duplicate_header(kb_dir: Path) -> None:
    e = _err(kb_dir, nodes="id,type,id\na,t,b\n")
    assert (e.line, e.field) == (1, "id")
