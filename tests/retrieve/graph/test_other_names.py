"""Other names of nodes read off the KG itself (issue 32): acronyms of multi-word names, and
proper nouns the nodes' own text uses around one node."""

from __future__ import annotations

import pyarrow as pa
import pytest

from skbsearch.index.names import build_name_index
from skbsearch.index.sparse import BM25Index
from skbsearch.kb import SKBBuilder
from skbsearch.kb.profile import FUNCTION_WORDS
from skbsearch.retrieve.graph.linking import NameLinker
from skbsearch.retrieve.graph.name_table import (
    NameTable,
    acronym_table,
    initials_array,
    normalise_array,
)
from skbsearch.retrieve.graph.other_names import acronyms

PARTS = ["toulon", "lyons", "brittany", "normandy", "bordeaux", "alsace"]


def _glossed():
    """WordNet-shaped: one lemma per node. The country a question calls "France" is named
    *french republic*; its parts' glosses say "France", and so does one unrelated gloss. The
    alliance is named in full only. "Danube" is in the glosses of three capitals on three
    countries: no node is near most of its uses."""
    b = SKBBuilder()
    b.add_node("fr", "concept", "french republic", {"description": "a republic in western Europe"})
    b.add_node("king", "concept", "king of france", {"description": "a monarch of the French"})
    for p in PARTS:
        b.add_node(p, "concept", p, {"description": f"a city or region of France; {p} is part of France"})
        b.add_edge("fr", "has part", p)
    b.add_node("franc", "concept", "franc", {"description": "a former currency unit"})
    b.add_node("wine", "concept", "claret", {"description": "a dry red wine from Bordeaux in France"})
    b.add_node("nato", "concept", "north atlantic treaty organization",
               {"description": "an international organization created in 1949"})
    b.add_node("bel", "concept", "kingdom of belgium", {"description": "a monarchy in northwestern Europe"})
    b.add_node("nor", "concept", "kingdom of norway", {"description": "a monarchy in northern Europe"})
    for member in ("fr", "bel", "nor"):
        b.add_edge("nato", "member meronym", member)
    for i, country in enumerate(["bel", "nor", "king"]):
        b.add_node(f"cap{i}", "concept", f"capital {i}", {"description": "a capital on the Danube"})
        b.add_edge(country, "has part", f"cap{i}")
    return b.build()


@pytest.fixture(scope="module")
def linker():
    kb = _glossed()
    return kb, NameLinker(kb, build_name_index(kb), text_index=BM25Index.default_for_skb(kb)).prepare()


def _links(kb, linker, text):
    return {kb.ids[a.node]: a for a in linker.link(text)}


def test_initials_skip_function_words_and_short_names():
    names = pa.array(["North Atlantic Treaty Organization", "Federal Bureau of Investigation",
                      "kingdom of belgium", "dog", None, "Île de France région"])
    got = initials_array(names, FUNCTION_WORDS).to_pylist()
    assert got == ["nato", "fbi", None, None, None, "idfr"]  # two words: too few to read as one
    table = acronym_table(NameTable.build(normalise_array(names)), len(names), FUNCTION_WORDS)
    assert list(table.get("nato")) == [0] and list(table.get("fbi")) == [1] and "kb" not in table


def test_acronyms_are_words_in_capitals_of_three_letters_or_more():
    assert acronyms("Which places are parts of member nations of NATO?") == {"nato"}
    assert acronyms("Which US states border Canada?") == frozenset()  # two letters: too short
    assert acronyms("WHICH NATIONS ARE IN NATO") == frozenset()  # shouted: capitals say nothing


def test_an_acronym_in_capitals_links_the_name_it_abbreviates(linker):
    kb, linker = linker
    got = _links(kb, linker, "Which nations are members of NATO?")
    assert got["nato"].source == "acronym" and got["nato"].whole and got["nato"].conf == pytest.approx(1.0)
    assert "nato" not in _links(kb, linker, "which nations are members of nato")  # not written as one


def test_a_proper_noun_links_the_node_its_uses_in_the_text_are_near(linker):
    kb, linker = linker
    share = linker.name_share
    node, conf = share.text_alias("france")
    # six of its nine users (its parts; not "king of france", the wine's gloss or the currency
    # "franc", which the stemmer folds "france" into) are next to it
    assert kb.ids[node] == "fr" and conf == pytest.approx((6 / 9) ** 0.5)
    got = _links(kb, linker, "Which cities are part of France?")
    assert got["fr"].source == "text-alias" and got["fr"].whole and got["fr"].words == (5,)
    # lower case: no proper noun, no alias (the stem's currency "franc" is not the word said)
    assert "fr" not in _links(kb, linker, "which cities are part of france?")


def test_a_word_spread_over_the_graph_or_named_whole_gets_no_alias(linker):
    kb, linker = linker
    # three capitals of three countries: no node is near most of the uses of "Danube"
    assert linker.name_share.text_alias("danube") is None
    assert linker.name_share.text_alias("europe") is None  # users next to nothing in common
    # a word that is a node's whole name is linked by it, never by another name
    got = _links(kb, linker, "Which wines come from Bordeaux?")
    assert got["bordeaux"].source == "exact" and all(a.source != "text-alias" for a in got.values())
