"""The zero-shot plan's words (issue 32): a plural says its singular's relation when it names
nothing itself; an importer's position-phrase type names no path's end."""

from __future__ import annotations

import pytest

from skbsearch.kb import SKBBuilder
from skbsearch.retrieve.graph import zero_shot as zs
from skbsearch.retrieve.graph.metapaths import TypeGraph


def _countries():
    """A country has parts (regions) and borders others; the importer typed the nodes at the
    tail of ``borders`` ``thing with part`` (a position phrase, as it names types after
    relations), and a person's ``films`` and ``film_director`` relations share a word."""
    b = SKBBuilder()
    b.add_node("it", "country", "Italy")
    b.add_node("tus", "region", "Tuscany")
    b.add_node("fr", "thing with part", "France")
    b.add_edge("it", "has_part", "tus")
    b.add_edge("it", "borders", "fr")
    b.add_node("p", "person", "Ann")
    b.add_node("f", "film", "Dawn")
    b.add_edge("p", "films", "f")
    b.add_edge("f", "film_director", "p")
    return b.build()


def test_a_plural_says_its_singular_only_when_it_names_nothing_itself():
    tg = TypeGraph(_countries())
    assert zs._said_by(tg, "parts") == {"part"}  # "parts"[:5] is no prefix of "part"
    assert zs._said_by(tg, "part") == {"part"}
    # "films" names the relation "films" itself: it does not also say "film"
    assert zs._said_by(tg, "films") == {"films"}
    assert zs._said_by(tg, "regions") == {"region"}  # (a type's word, as a relation's)


def test_parts_name_the_part_relation():
    tg = TypeGraph(_countries())
    paths = dict(zs.zero_shot_paths(tg, "country", ["which", "parts", "of"], None, 1))
    # named ((1 + 2) / 1): the best path weighs 1; the unnamed one a third of it
    assert paths[("country", "has_part")] == 1.0
    assert paths[("country", "borders")] == 1.0 / 3


def test_a_position_phrase_type_names_no_path_end():
    tg = TypeGraph(_countries())
    assert zs.nameable_types(tg) == {"country", "region", "person", "film"}
    # "borders" ends at "thing with part": the query's "part" says the has_part relation, not
    # that path (counted, it would tie has_part at k = 1)
    paths = dict(zs.zero_shot_paths(tg, "country", ["what", "part", "is", "it"], None, 1))
    assert paths[("country", "has_part")] > paths[("country", "borders")]


def _nested():
    """A country's parts have parts of their own (regions, then towns)."""
    b = SKBBuilder()
    b.add_node("fr", "country", "France")
    b.add_node("nor", "region", "Normandy")
    b.add_node("rou", "town", "Rouen")
    b.add_node("be", "country", "Belgium")
    b.add_edge("fr", "has_part", "nor")
    b.add_edge("nor", "has_part", "rou")
    b.add_edge("be", "has_part", "nor")  # (so that has_part^-1 leads somewhere from a region)
    return b.build()


def test_a_relation_word_said_twice_names_the_step_taken_twice():
    tg = TypeGraph(_nested())
    once = dict(zs.zero_shot_paths(tg, "country", "which places are part of it".split(), None, 2))
    twice = dict(zs.zero_shot_paths(
        tg, "country", "which places are part of a place that is part of it".split(), None, 2))
    chain, one = ("country", "has_part", "has_part"), ("country", "has_part")
    back = ("country", "has_part", "has_part^-1")
    assert once[one] == 1.0 and once[chain] == pytest.approx(0.25)  # (1 + 2) / 2^2 of 3
    # said twice: the chain's repeat is a named word and no hop, (1 + 2 * 2) / 1 against 3
    assert twice[chain] == 1.0 and twice[one] == pytest.approx(3 / 5)
    # a step back up the relation is no repeat of it: as with the word said once
    assert twice[back] == pytest.approx(0.75 / 5)
    # the pruned search (a repeat adds a word and no hop: its bound allows for it) finds it too
    words = "which places are part of a place that is part of it".split()
    assert zs.zero_shot_paths(tg, "country", words, None, 2, limit=1) == [(chain, 1.0)]
