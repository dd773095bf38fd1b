"""What the explorer shows of an SKB (server/browse.py): the overview (counts, the schema as
observed, degrees, placeholders taken from the SKB) and a node's neighbours, a page a
relation and direction."""

from __future__ import annotations

import pytest

from skbsearch.core.errors import InputError
from skbsearch.kb import SKB, SKBBuilder
from skbsearch.server.browse import kb_overview, node_page, overview_with_attributes


def _films() -> SKB:
    b = SKBBuilder()
    for i in range(5):
        b.add_node(f"m{i}", "film", f"Film {i}", {}, {"year": 1990 + i})
    b.add_node("d", "person", "Dee Rector")
    b.add_node("g", "genre", "Drama")
    for i in range(5):
        b.add_edge(f"m{i}", "directed_by", "d")
    b.add_edge("m0", "has_genre", "g")
    return b.build()


def test_the_overview_counts_types_relations_and_degrees() -> None:
    ov = kb_overview(_films())
    assert ov["nodes"] == 7 and ov["edges"] == 6
    assert ov["node_types"] == {"film": 5, "person": 1, "genre": 1}
    assert ov["edge_counts"] == {"directed_by": 5, "has_genre": 1}
    assert sorted((r["relation"], r["source"], r["target"], r["count"]) for r in ov["schema"]["relations"]) == [
        ("directed_by", "film", "person", 5), ("has_genre", "film", "genre", 1)]
    assert ov["degree"]["max"] == 5 and ov["degree"]["min"] == 1
    assert ov["top_degree"][0] == {"id": "d", "name": "Dee Rector", "type": "person", "degree": 5}
    assert ov["degree_by_type"]["film"]["max"] == 2 and ov["degree_by_type"]["genre"]["max"] == 1
    assert ov["examples"] == {"query": "Film 0", "where": "year < 1992",
                              "spec": "bm25 + graph(target=[film]) % 20"}


def test_an_empty_skb_has_an_overview_too() -> None:
    ov = kb_overview(SKB.from_columns([], [], []))
    assert ov["nodes"] == 0 and ov["schema"]["relations"] == [] and ov["top_degree"] == []
    assert ov["degree"] == {"min": 0, "median": 0, "mean": 0.0, "p95": 0, "max": 0}
    assert ov["examples"] == {"query": None, "where": None, "spec": "bm25 % 20"}


def test_an_attribute_update_remakes_only_what_reads_attributes() -> None:
    old = _films()
    ov = kb_overview(old)
    b = SKBBuilder()
    for i in range(5):
        b.add_node(f"m{i}", "film", f"Film {i}", {}, {"year": 2000 + i, "rating": 3.5})
    b.add_node("d", "person", "Dee Rector")
    b.add_node("g", "genre", "Drama")
    for i in range(5):
        b.add_edge(f"m{i}", "directed_by", "d")
    b.add_edge("m0", "has_genre", "g")
    new = b.build()
    again = overview_with_attributes(ov, new)
    assert again["examples"]["where"] == kb_overview(new)["examples"]["where"] == "year < 2002"
    assert again["attributes"] == kb_overview(new)["attributes"]
    assert again["schema"] is ov["schema"] and again["top_degree"] is ov["top_degree"]


def test_a_node_page_groups_neighbours_by_relation_and_direction() -> None:
    skb = _films()
    d, m0 = int(skb.index_of("d")), int(skb.index_of("m0"))
    ids, groups = node_page(skb, d, offset=1, limit=2)
    assert ids == {"directed_by^-1": ["m1", "m2"]}
    (g,) = groups
    assert (g["base"], g["direction"], g["total"], g["offset"], g["limit"]) == ("directed_by", "in", 5, 1, 2)
    assert g["nodes"] == [{"id": "m1", "name": "Film 1", "type": "film"},
                          {"id": "m2", "name": "Film 2", "type": "film"}]
    ids, groups = node_page(skb, m0, offset=0, limit=10)
    assert ids == {"directed_by": ["d"], "has_genre": ["g"]} and {g["direction"] for g in groups} == {"out"}
    assert node_page(skb, m0, offset=0, limit=10, relation="has_genre")[0] == {"has_genre": ["g"]}
    assert node_page(skb, d, offset=9, limit=2)[0] == {"directed_by^-1": []}  # past the end: empty


def test_an_unknown_relation_lists_the_known_ones() -> None:
    with pytest.raises(InputError, match="unknown relation 'stars'; relations: directed_by, "
                                         "directed_by\\^-1, has_genre, has_genre\\^-1") as e:
        node_page(_films(), 0, offset=0, limit=5, relation="stars")
    assert e.value.field == "relation"


def test_kb_overview_scales_to_many_types(monkeypatch):
    """Thousands of types (a Wikidata-like KG): degree per type from one sort, and only the
    busiest (relation, source type, target type) rows."""
    import numpy as np

    from skbsearch.server import browse

    n = 400
    types = [f"class {i % 150}" for i in range(n)]
    rng = np.random.default_rng(1)
    src, dst = rng.integers(0, n, 2000), rng.integers(0, n, 2000)
    skb = SKB.from_columns([str(i) for i in range(n)], types, [f"n{i}" for i in range(n)],
                           edges=(src, ["r"] * 2000, dst))
    full = browse.kb_overview(skb)
    deg = np.bincount(src, minlength=n) + np.bincount(dst, minlength=n)
    assert full["degree_by_type"]["class 7"]["max"] == int(deg[7::150].max())
    monkeypatch.setattr(browse, "MAX_SCHEMA_ROWS", 5)
    rows = browse.kb_overview(skb)["schema"]["relations"]
    assert len(rows) == 5
    assert min(r["count"] for r in rows) >= sorted(r["count"] for r in full["schema"]["relations"])[-5]
