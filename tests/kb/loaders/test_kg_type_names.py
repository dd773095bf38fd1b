"""Names for node types inferred on a KG whose relation ids name no types
(``kb.loaders.kg_type_names``): a role noun its nodes carry, else its most distinctive relation
position as a phrase; a name taken by a larger type skipped; names to keep kept. (Through the
KG loader: tests/kb/loaders/test_kg.py.)"""

from __future__ import annotations

import numpy as np

from skbsearch.kb.loaders.kg_type_names import (
    POSITION_HEAD,
    is_position_phrase,
    readable_type_names,
)

#: entities: countries 0, 1; cities 2, 3; people 4, 5
H, R, T = np.array([0, 1, 4, 5]), np.array([0, 0, 1, 1]), np.array([2, 3, 0, 1])
TYPES = np.array([0, 0, 1, 1, 2, 2])
RELATIONS = ["has capital", "is citizen of"]


def test_role_nouns_name_heads_and_tails() -> None:
    names = readable_type_names(["t0", "t1", "t2"], TYPES, H, R, T, RELATIONS, set())
    # cities are what "has capital" gives its tails, people what "is citizen of" calls its heads;
    # countries carry no noun: their most distinctive position (a head one first, on a tie)
    assert names == [f"{POSITION_HEAD} with capital", "capital", "citizen"]
    assert is_position_phrase(names[0]) and not is_position_phrase(names[1])


def test_names_to_keep_stay_and_are_not_given_again() -> None:
    names = readable_type_names(["country", "capital", "t2"], TYPES, H, R, T, RELATIONS, {"country", "capital"})
    assert names == ["country", "capital", "citizen"]


def test_a_name_taken_by_a_larger_type_is_skipped() -> None:
    """Two city types tail "has capital": the larger is named ``capital``; the smaller one's
    nodes are too few of the position's for the noun, and it keeps its own name."""
    h, r, t = np.array([0, 1, 0, 1]), np.array([0, 0, 0, 0]), np.array([2, 3, 4, 5])
    node_type = np.array([0, 0, 1, 1, 1, 2])
    assert readable_type_names(["a", "b", "c"], node_type, h, r, t, ["has capital"], set()) == [
        f"{POSITION_HEAD} with capital", "capital", "c"]


def test_verb_relations_read_as_phrases() -> None:
    # players 0, 1 play for clubs 2, 3; actors 4 acted in films 5
    h, r, t = np.array([0, 1, 4]), np.array([0, 0, 1]), np.array([2, 3, 5])
    names = readable_type_names(["p", "c", "a", "f"], np.array([0, 0, 1, 1, 2, 3]), h, r, t,
                                ["plays for", "acted in"], set())
    assert names == [f"{POSITION_HEAD} that plays for", f"{POSITION_HEAD} something plays for",
                     f"{POSITION_HEAD} that acted in", f"{POSITION_HEAD} something acted in"]
    assert all(is_position_phrase(n) for n in names) and not is_position_phrase("thingamajig")
