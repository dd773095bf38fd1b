"""A small SKB built row by row, and a check that two SKBs hold the same nodes and edges
(shared by the store tests: test_store.py, test_store_files.py)."""

from __future__ import annotations

import numpy as np

from skbsearch.kb import SKB, SKBBuilder


def small_skb() -> SKB:
    """Three movies and two people; one edge given twice (kept: a multigraph)."""
    b = SKBBuilder()
    b.add_node("m1", "movie", "Heat", {"plot": "A heist in LA."}, {"year": 1995, "rating": 8.3, "color": True})
    b.add_node("m2", "movie", "Ronin", {"plot": "Mercenaries chase a case."}, {"year": 1998, "rating": 7.2})
    b.add_node("m3", "movie", "Untitled", {}, {"lang": "fr"})
    b.add_node("a1", "person", "Robert De Niro", {"bio": "Actor."}, {"year": 1943})
    b.add_node("d1", "person", "Michael Mann")
    b.add_edge("a1", "starred_in", "m1")
    b.add_edge("a1", "starred_in", "m2")
    b.add_edge("m1", "directed_by", "d1")
    b.add_edge("m1", "directed_by", "d1")  # duplicate edges are kept (multigraph)
    return b.build(meta={"source": "test"})


def assert_same(a: SKB, b: SKB) -> None:
    """The same ids, schema, nodes and edges, row by row."""
    assert a.ids == b.ids
    assert a.schema == b.schema
    assert a.type_names == b.type_names
    for nid in a.ids:
        assert a.node(nid) == b.node(nid)
    assert np.array_equal(a.edge_src, b.edge_src)
    assert np.array_equal(a.edge_dst, b.edge_dst)
    rels_a = [a.schema.relations[r] for r in a.edge_rel]
    rels_b = [b.schema.relations[r] for r in b.edge_rel]
    assert rels_a == rels_b
