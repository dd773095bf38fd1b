"""Node rendering with and without relations (STaRK's add_rel)."""

from __future__ import annotations

from skbsearch.documents import DocumentRenderer, relation_label
from skbsearch.kb import SKBBuilder


def _movies():
    b = SKBBuilder()
    b.add_node("m1", "movie", "Kismet", {"plot": "A poet schemes in Baghdad."}, {"year": 1944})
    b.add_node("d1", "person", "William Dieterle")
    for i in range(5):
        b.add_node(f"a{i}", "person", f"Actor {i}")
        b.add_edge("m1", "starred_actors", f"a{i}")
    b.add_edge("m1", "directed_by", "d1")
    return b.build()


def test_render_fields_only():
    skb = _movies()
    doc = DocumentRenderer().render(skb, int(skb.index_of("m1")))
    assert doc == "movie: Kismet\nplot: A poet schemes in Baghdad."


def test_render_with_relations_capped():
    skb = _movies()
    doc = DocumentRenderer(add_rel=True, max_per_relation=3).render(skb, int(skb.index_of("m1")))
    lines = doc.splitlines()
    assert "directed by: William Dieterle" in lines
    assert "starred actors: Actor 0, Actor 1, Actor 2 (+2 more)" in lines


def test_render_reverse_relations_and_labels():
    skb = _movies()
    doc = DocumentRenderer(add_rel=True).render(skb, int(skb.index_of("d1")))
    assert doc.splitlines() == ["person: William Dieterle", "directed by (reverse): Kismet"]
    r = DocumentRenderer(add_rel=True, relations=["directed_by^-1"], labels={"directed_by^-1": "directed"})
    assert r.render(skb, int(skb.index_of("d1"))).endswith("directed: Kismet")
    assert relation_label("also_bought^-1") == "also bought (reverse)"


def test_render_many_all_nodes_and_truncation():
    skb = _movies()
    docs = DocumentRenderer(include_type=False, max_field_chars=6).render_many(skb)
    assert len(docs) == skb.num_nodes
    assert docs[0] == "Kismet\nplot: A poet..."


def test_render_a_few_rows_of_a_large_skb_equals_rendering_all() -> None:
    """A handful of rows (live-update catch-up) is rendered from those rows and the names
    shown, not from whole columns: the same documents, hubs and unnamed nodes included."""
    import numpy as np

    from skbsearch.kb import SKB

    n = 400
    ids = [f"n{i}" for i in range(n)]
    names = [None if i % 7 == 0 else f"Node {i}" for i in range(n)]
    plot = [None if i % 3 else f"text {i}" for i in range(n)]
    src = np.array([i for i in range(1, n)] + [i for i in range(2, n, 5)])
    dst = np.array([0] * (n - 1) + [i - 1 for i in range(2, n, 5)])
    rel = ["member_of"] * (n - 1) + ["next_to"] * len(range(2, n, 5))
    skb = SKB.from_columns(ids, ["hub" if i == 0 else "item" for i in range(n)], names,
                           fields={"plot": plot}, edges=(src, rel, dst))
    rows = [0, 1, 7, 12, 42, 399]
    for r in (DocumentRenderer(add_rel=True, max_per_relation=3), DocumentRenderer(),
              DocumentRenderer(fields=[], add_rel=True, include_type=False)):
        assert r.render_many(skb, rows) == [r.render_many(skb)[i] for i in rows]
    assert "(+396 more)" in DocumentRenderer(add_rel=True, max_per_relation=3).render(skb, 0)
