"""One-word links weighed by how often the word is a name in the SKB's own text (issue 32)."""

from __future__ import annotations

import pytest

from skbsearch.index.names import build_name_index
from skbsearch.index.sparse import BM25Index
from skbsearch.kb import SKBBuilder
from skbsearch.retrieve.graph.commonness import NameShare
from skbsearch.retrieve.graph.linking import NameLinker

USES = ["a tool to make bread", "make a copy of a file", "to make music", "make a sound",
        "what machines make", "make believe", "to make a living", "things people make"]


def _glossed():
    """Nodes with glosses: 'make' is a node's name and a word of eight other glosses;
    'saxony' is a name and nowhere else; 'Tool' names a node and a type of nine nodes."""
    b = SKBBuilder()
    b.add_node("make", "concept", "make", {"description": "to create or build"})
    b.add_node("saxony", "concept", "saxony", {"description": "an area of Germany on the Elbe"})
    b.add_node("tool-node", "concept", "Tool", {"description": "an instrument held in the hand"})
    for i, gloss in enumerate(USES):
        b.add_node(f"u{i}", "concept", f"sense {i}", {"description": gloss})
    for i in range(9):
        b.add_node(f"t{i}", "tool", f"gadget {i}", {"description": "a small device"})
    for i in range(len(USES)):
        b.add_edge(f"u{i}", "related", "make")
    b.add_edge("saxony", "related", "make")
    b.add_edge("t0", "related", "tool-node")
    return b.build()


def _bare():
    """Bare names (no text besides them): every word of a name is a name word."""
    b = SKBBuilder()
    for i, name in enumerate(["Texas", "University of Texas", "Texas Rangers", "Oklahoma"]):
        b.add_node(f"n{i}", "place", name)
    b.add_edge("n1", "in", "n0")
    b.add_edge("n2", "in", "n0")
    b.add_edge("n3", "adjoins", "n0")
    return b.build()


@pytest.fixture(scope="module")
def glossed():
    kb = _glossed()
    return kb, build_name_index(kb), BM25Index.default_for_skb(kb)


def test_a_word_common_in_the_nodes_own_text_has_a_small_name_share(glossed):
    kb, names, text = glossed
    share = NameShare(kb, names, text)
    assert share.share("make") == pytest.approx(1 / 9)  # a name of 1 node, in 9 nodes' text
    assert share.share("saxony") == 1.0
    assert share.share("tool") <= 1 / 9  # the name of a type of nine nodes
    assert share.share("unheard") == 1.0  # no evidence: not weighed
    assert share.weight("make") == pytest.approx((1 / 9) ** 0.5)
    # no text index (or one that mixes relation lines into the document): no evidence
    assert NameShare(kb, names, None).share("make") == 1.0
    mixed = BM25Index.from_skb(kb, add_rel=True)
    assert NameShare(kb, names, mixed).share("make") == 1.0


def test_relation_lines_are_not_the_nodes_own_text():
    kb = _bare()
    share = NameShare(kb, build_name_index(kb), BM25Index.default_for_skb(kb))
    # 'texas' is listed in three neighbours' relation lines, but every own-text use is a name
    assert share.share("texas") == 1.0 and share.share("oklahoma") == 1.0


def test_the_linker_needs_more_than_an_exact_match_for_a_common_word(glossed):
    kb, names, text = glossed
    plain = {kb.ids[a.node]: a.conf for a in NameLinker(kb, names).link("what does make mean in saxony")}
    weighed = {kb.ids[a.node]: a.conf for a in
               NameLinker(kb, names, text_index=text).link("what does make mean in saxony")}
    assert plain["make"] == pytest.approx(1.0) and plain["saxony"] == pytest.approx(1.0)
    assert weighed["make"] == pytest.approx((1 / 9) ** 0.5)
    assert weighed["saxony"] == pytest.approx(1.0)
    assert weighed.get("tool-node", 0.0) < 0.5 or "tool-node" not in weighed
    tool = {kb.ids[a.node]: a.conf for a in NameLinker(kb, names, text_index=text).link("which tool is it")}
    assert tool["tool-node"] <= (1 / 9) ** 0.5 + 1e-9
