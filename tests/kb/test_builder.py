"""Row-wise SKB construction (``kb.builder``): nodes and edges one at a time, then the SKB;
every refusal names file, line and field, and a rejected node leaves no trace."""

from __future__ import annotations

import pytest

from skbsearch.core.errors import InputError
from skbsearch.kb import SKB, SKBBuilder
from skbsearch.kb.builder import INT64_MAX, INT64_MIN, type_name


def test_builder_duplicate_ids() -> None:
    b = SKBBuilder()
    b.add_node("x", "t", file="a.jsonl", line=3)
    with pytest.raises(InputError) as e:
        b.add_node("x", "t", file="b.jsonl", line=7)
    assert "first defined at a.jsonl:3" in str(e.value)
    assert (e.value.file, e.value.line, e.value.field) == ("b.jsonl", 7, "id")
    assert str(e.value).startswith("b.jsonl:7")
    keep = SKBBuilder(on_duplicate="first")
    keep.add_node("x", "t", "first")
    assert keep.add_node("x", "t", "second") == 0 and keep.build().node("x").name == "first"
    with pytest.raises(ValueError):
        SKBBuilder(on_duplicate="last")


@pytest.mark.parametrize("which", ["source", "target"])
def test_builder_unknown_endpoint(which: str) -> None:
    b = SKBBuilder()
    b.add_node("a", "t")
    b.add_edge("a", "r", "a", file="edges.tsv", line=1)
    src, dst = ("ghost", "a") if which == "source" else ("a", "ghost")
    b.add_edge(src, "r", dst, file="edges.tsv", line=2)
    with pytest.raises(InputError, match="unknown node 'ghost'") as e:
        b.build()
    assert (e.value.file, e.value.line, e.value.field) == ("edges.tsv", 2, which)


def test_builder_field_errors() -> None:
    b = SKBBuilder()
    for kwargs, field in [
        ({"fields": {"type": "x"}}, "type"),
        ({"fields": {"name": "x"}}, "name"),
        ({"attributes": {"id": 1}}, "id"),
        ({"attributes": {"tags": ["a", "b"]}}, "tags"),
    ]:
        with pytest.raises(InputError) as e:
            b.add_node("n", "t", file="f.jsonl", line=4, **kwargs)
        assert (e.value.field, e.value.line) == (field, 4)
    assert len(b) == 0 and not b.has_node("n")  # a rejected node leaves no trace
    with pytest.raises(InputError) as e:
        SKB.from_columns(["a"], ["t"], ["A"], attributes={"type": [1]})
    assert e.value.field == "type"
    with pytest.raises(InputError, match="no id"):
        b.add_node("  ", "t")
    with pytest.raises(InputError, match="no type"):
        b.add_node("z", "")
    with pytest.raises(InputError, match="reserved") as e:
        b.add_edge("a", "r^-1", "b", line=9)
    assert e.value.field == "relation" and e.value.line == 9
    with pytest.raises(InputError) as e:
        b.add_edge("a", "r", None)
    assert e.value.field == "target"


def test_builder_mixed_attribute_types() -> None:
    ok = SKBBuilder()
    ok.add_node("a", "t", attributes={"v": 1})
    ok.add_node("b", "t", attributes={"v": 2.5})
    assert ok.build().column("v") == [1.0, 2.5]
    bad = SKBBuilder()
    bad.add_node("a", "t", attributes={"v": 1})
    bad.add_node("b", "t", attributes={"v": "one"})
    with pytest.raises(InputError, match="mixed types") as e:
        bad.build()
    assert e.value.field == "v"


def test_nodes_and_edges_in_any_order_make_the_skb() -> None:
    b = SKBBuilder()
    b.add_edge("p1", "brand", "b1")  # an edge may name nodes defined later
    assert b.add_node("p1", "product", "Red shoe", {"text": "a shoe", "size": 42, "none": None},
                      {"price": 9.5, "stock": None, "ok": True}) == 0
    assert b.add_node(7, "brand", None) == 1 and b.has_node("7") and len(b) == 2
    b.add_edge("p1", "brand", 7)
    with pytest.raises(InputError, match="unknown node 'b1'"):
        b.build()
    b.add_node("b1", "brand", 3.5)
    skb = b.build(meta={"source": "rows"})
    assert skb.ids == ["p1", "7", "b1"] and skb.column("name") == ["Red shoe", "", "3.5"]
    p1 = skb.node("p1")
    assert p1.fields == {"text": "a shoe", "size": "42"}  # texts as strings, None left out
    assert p1.attributes == {"price": 9.5, "ok": True}
    assert skb.num_edges == 2 and skb.meta["source"] == "rows"
    assert skb.edges_table().column("dst").to_pylist() == ["b1", "7"]


def test_integers_past_64_bits_are_refused() -> None:
    b = SKBBuilder()
    b.add_node("a", "t", attributes={"n": INT64_MAX})
    b.add_node("b", "t", attributes={"n": INT64_MIN})
    with pytest.raises(InputError, match="does not fit in 64 bits") as e:
        b.add_node("c", "t", attributes={"n": INT64_MAX + 1}, file="n.jsonl", line=3)
    assert (e.value.file, e.value.line, e.value.field) == ("n.jsonl", 3, "n")
    assert b.build().column("n") == [INT64_MAX, INT64_MIN]
    with pytest.raises(InputError, match="no relation"):
        b.add_edge("a", "", "b")


def test_type_name() -> None:
    assert [type_name(v) for v in (1, 1.5, "x", [1], None)] == ["int", "float", "str", "list", "NoneType"]
