"""The linker weighs its evidence on the SKB's own text (issue 32): a word of the KG is not a
typo, a repeated word is still one word, a proper noun's text uses that point at its node
are no evidence against it."""

from __future__ import annotations

import pytest

from skbsearch.index.names import build_name_index
from skbsearch.index.sparse import BM25Index
from skbsearch.kb import SKBBuilder
from skbsearch.retrieve.graph.commonness import NameShare
from skbsearch.retrieve.graph.linking import NameLinker, proper_nouns


def _glossed():
    """WordNet-shaped: lemma names, glosses; 'Italy' is named in its regions' glosses (its
    neighbours), 'lie' and 'part' in glosses of unrelated nodes; 'genera' is a gloss word
    and no name."""
    b = SKBBuilder()
    b.add_node("italy", "concept", "italy", {"description": "a republic in southern Europe"})
    b.add_node("general", "concept", "general", {"description": "a high ranking military officer"})
    b.add_node("generality", "concept", "generality", {"description": "the quality of being general"})
    b.add_node("lie", "concept", "lie", {"description": "a statement that deceives"})
    b.add_node("part", "concept", "part", {"description": "something less than the whole"})
    regions = ["tuscany", "lombardy", "sicily", "umbria", "liguria", "veneto"]
    for r in regions:
        b.add_node(r, "concept", r, {"description": "a region of northern italy; a part of italy"})
        b.add_edge("italy", "has part", r)
    b.add_node("flatfish", "concept", "flatfish family", {"description": "several genera of flatfish"})
    b.add_node("sole", "concept", "sole", {"description": "flatfish of two genera that lie on the sea bed"})
    uses = ["to lie down and rest", "lie in wait for prey", "the land may lie fallow",
            "a coat that is part wool", "part of a machine", "the better part of a day",
            "an old italy of the mind"]
    for i, gloss in enumerate(uses):
        b.add_node(f"u{i}", "concept", f"sense {i}", {"description": gloss})
    b.add_edge("u0", "related", "general")
    b.add_edge("flatfish", "related", "sole")
    return b.build()


@pytest.fixture(scope="module")
def glossed():
    kb = _glossed()
    return kb, build_name_index(kb), BM25Index.default_for_skb(kb)


def _links(kb, linker, text):
    return {kb.ids[a.node]: a for a in linker.link(text)}


def test_a_word_of_the_kgs_text_is_not_read_as_a_typo(glossed):
    kb, names, text = glossed
    # without the text, "genera" is one trigram step from the name "general": a typo
    blind = _links(kb, NameLinker(kb, names), "which fish genera are there")
    assert "general" in blind and blind["general"].source == "fuzzy"
    # "genera" is a word of the glosses: not a misspelt name
    linker = NameLinker(kb, names, text_index=text)
    assert linker.known_word("genera") and not linker.known_word("generra")
    assert "general" not in _links(kb, linker, "which fish genera are there")
    # a real typo (a word no text has) is still corrected
    assert "general" in _links(kb, linker, "which generral fought")


def test_a_repeated_word_is_weighed_as_one_word(glossed):
    kb, names, text = glossed
    linker = NameLinker(kb, names, text_index=text)
    weight = linker.name_share.weight("part")
    assert weight < 0.7  # "part" is a word of five other glosses
    once = _links(kb, linker, "which places are part of the whole")
    twice = _links(kb, linker, "which places are part of a thing that is part of the whole")
    assert once["part"].conf == pytest.approx(weight)
    assert twice["part"].conf <= weight + 1e-9  # not a two-word mention at full confidence


def test_a_proper_nouns_uses_in_its_neighbours_text_do_not_count_against_it(glossed):
    kb, names, text = glossed
    share = NameShare(kb, names, text)
    # 'italy' is in 8 nodes' own text, one of them its own: as a common word it has share 1/8,
    # but 7 of those 8 are the node itself and its neighbours (its regions)
    assert share.share("italy") == pytest.approx(1 / 8)
    assert share.share("italy", proper=True) == pytest.approx(7 / 8)
    # 'lie' is in glosses of nodes that are not its neighbours: a capital letter changes nothing
    assert share.share("lie", proper=True) == pytest.approx(share.share("lie")) == pytest.approx(1 / 5)
    linker = NameLinker(kb, names, text_index=text)
    written = _links(kb, linker, "Which places that are part of Italy lie in the north?")
    lower = _links(kb, linker, "which places that are part of italy lie in the north?")
    assert written["italy"].conf == pytest.approx((7 / 8) ** 0.5)
    assert lower["italy"].conf == pytest.approx((1 / 8) ** 0.5)
    assert written["lie"].conf == pytest.approx(lower["lie"].conf)


def test_proper_nouns_are_capitalised_words_after_the_first():
    assert proper_nouns("Which places that are part of Italy lie in the north?") == {"italy"}
    assert proper_nouns("Italy: which places") == frozenset()
    assert proper_nouns("WHICH PLACES ARE PART OF ITALY") == frozenset()  # shouted: no evidence
    assert proper_nouns("Which Rivers Flow Through Africa") == frozenset()  # title case: none


def test_rival_senses_of_one_mention_do_not_add_up():
    import numpy as np

    from skbsearch.retrieve.graph.linking import Anchor
    from skbsearch.retrieve.graph.plan import relational_evidence

    # "Which places that are part of Italy lie in the north?": three senses of "lie" (word 7)
    # reach one another's nodes; Italy (word 6) reaches its regions 10 and 11
    anchors = [Anchor(0, 0.75, "italy", (6,), "exact", True), Anchor(1, 0.4, "lie", (7,), "exact", True),
               Anchor(2, 0.4, "lie", (7,), "exact", True), Anchor(3, 0.4, "lie", (7,), "fuzzy", True),
               # a partial name ("lie detector" for "lie") is no rival sense: its evidence adds
               Anchor(4, 0.3, "lie", (7,), "fuzzy", False)]
    walks = [(0, ("t", "has part"), 0.75, np.array([10, 11])),
             (1, ("t", "derived"), 0.4, np.array([2, 3])),
             (2, ("t", "derived"), 0.4, np.array([1, 3])),
             (3, ("t", "derived"), 0.4, np.array([1, 2])),
             (3, ("t", "hypernym"), 0.2, np.array([2, 10])),
             (4, ("t", "hypernym"), 0.3, np.array([1, 11]))]
    rel = relational_evidence(anchors, walks, 12)
    # each sense's node is reached by the other two: one sense's evidence, not their sum
    assert rel[1] == pytest.approx(0.4 + 0.3) and rel[3] == pytest.approx(0.4)
    assert rel[2] == pytest.approx(0.6)  # one sense ("lie in") reaches it by two metapaths: they add
    # distinct mentions add: region 10 is reached from Italy and from a sense of "lie"
    assert rel[10] == pytest.approx(0.75 + 0.2) and rel[11] == pytest.approx(0.75 + 0.3)
    assert rel[0] == 0.0


def test_a_name_said_whole_stays_a_named_link():
    b = SKBBuilder()
    b.add_node("lie-v", "concept", "lie", {"description": "be located somewhere"})
    b.add_node("lie-n", "concept", "lie", {"description": "a statement that deceives"})
    b.add_node("lie-in", "concept", "lie-in", {"description": "a morning spent in bed"})
    b.add_node("detector", "concept", "lie detector", {"description": "a polygraph"})
    b.add_node("town", "concept", "town", {"description": "an urban area"})
    for n in ("lie-v", "lie-n", "lie-in", "detector"):
        b.add_edge("town", "related", n)
    kb = b.build()
    linker = NameLinker(kb, build_name_index(kb), text_index=BM25Index.default_for_skb(kb))
    got = _links(kb, linker, "where does the town lie")
    # the fuzzy match of the whole name is stronger than each candidate's share of the exact
    # mention, but the node is still one the question names (not an answer, a rival sense)
    for node in ("lie-v", "lie-n"):
        assert got[node].source == "exact" and got[node].whole
        assert got[node].conf > 0.5  # the fuzzy link's confidence, not half of the exact one's
    assert got["lie-in"].source == "fuzzy" and got["lie-in"].whole  # every name word said
    assert "detector" not in got or not got["detector"].whole


def test_nodes_the_question_names_whole_are_not_its_answers():
    from skbsearch.core.types import Query
    from skbsearch.retrieve.graph.retriever import SKBGraphRetriever

    b = SKBBuilder()
    b.add_node("italy", "concept", "italy", {"description": "a republic in southern Europe"})
    b.add_node("lie-v", "concept", "lie", {"description": "be located or situated in a place"})
    b.add_node("lie-n", "concept", "lie", {"description": "the position in which something lies"})
    b.add_node("lie-in", "concept", "lie-in", {"description": "a morning spent in bed"})
    b.add_edge("lie-v", "derived", "lie-n")
    b.add_edge("lie-in", "derived", "lie-v")
    for i, gloss in enumerate(["to lie down and rest", "lie in wait for prey", "the land may lie fallow",
                               "where the truth may lie", "lie low for a while"]):
        b.add_node(f"u{i}", "concept", f"sense {i}", {"description": gloss})  # "lie": a common word
    for r, where in [("ferrara", "northern"), ("lombardy", "north central"), ("calabria", "southern"),
                     ("puglia", "southeastern"), ("tuscany", "central")]:
        b.add_node(r, "concept", r, {"description": f"a region in {where} italy"})
        b.add_edge("italy", "has part", r)
    kb = b.build()
    stage = SKBGraphRetriever(kb, BM25Index.default_for_skb(kb), build_name_index(kb), k=10)
    run = stage([Query("q", "Which places that are part of Italy lie in the north?", {})])
    ranked = sorted(run["q"], key=lambda d: -run["q"][d])
    # "lie" (each sense, and "lie-in" whose every name word the question says) is named, not asked for
    assert not {"lie-v", "lie-n", "lie-in"} & set(ranked)
    assert ranked[0] in ("ferrara", "lombardy")


def _painters():
    """Lemma names and glosses: 24 painters are instances of the class node 'painter', whose
    name is also a word of eight other glosses (a small name share)."""
    b = SKBBuilder()
    b.add_node("painter", "concept", "painter", {"description": "an artist who paints"})
    b.add_node("lexicon", "concept", "lexicon", {"description": "a list of words"})
    for i in range(24):
        b.add_node(f"p{i}", "concept", f"master {i}", {"description": f"an artist of the school number {i}"})
        b.add_edge(f"p{i}", "instance hypernym", "painter")
    for i in range(8):
        b.add_node(f"u{i}", "concept", f"tool {i}", {"description": f"a brush a painter uses, kind {i}"})
        b.add_edge(f"u{i}", "related", "lexicon")
    return b.build()


def test_a_class_the_answer_phrase_names_keeps_its_weight_whatever_its_name_share():
    from skbsearch.retrieve.graph.retriever import SKBGraphRetriever

    kb = _painters()
    work = SKBGraphRetriever(kb, BM25Index.default_for_skb(kb), build_name_index(kb), k=10).inner
    painter = kb.index_of("painter")
    assert painter in work.planner.answer_types.class_nodes
    asked = work.plan(["Which painters does the lexicon list by name?"])[0]
    said = work.plan(["Which brushes does a painter use?"])[0]  # named, not asked for
    link = {a.node: a for a in asked.anchors}[painter]
    assert link.conf < 0.6  # a common word of the glosses
    weight = [v for ai, path, v in asked.paths if asked.anchors[ai].node == painter]
    assert weight and max(weight) == pytest.approx(1.0)  # the class's in-link share
    other = [v for ai, path, v in said.paths if said.anchors[ai].node == painter]
    assert all(v <= {a.node: a for a in said.anchors}[painter].conf + 1e-9 for v in other)


def test_a_word_naming_many_nodes_is_no_proper_noun(glossed, monkeypatch):
    from skbsearch.retrieve.graph import commonness

    kb, names, text = glossed
    monkeypatch.setattr(commonness, "MAX_PROPER_NAMED", 0)  # 'italy' names one node: now too many
    share = NameShare(kb, names, text)
    assert share.share("italy", proper=True) == pytest.approx(share.share("italy")) == pytest.approx(1 / 8)
