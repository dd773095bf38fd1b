"""Node types for a KG that ships none (``kb.loaders.kg_types``): path-named head positions
make the types, a specific type merges into the general one that contains it (kept as a
category), tail-only nodes take the noun of their relation; a relation that states what kind
of thing its heads are found by its shape; each entity's class under it. (Through the KG
loader: tests/kb/loaders/test_kg.py.)"""

from __future__ import annotations

import numpy as np

from skbsearch.kb.loaders.kg_types import class_types, infer_types, typing_relation

#: films 0-2, people 3-5 (4 and 5 also act), cities 6-7, a country 8
REL_IDS = ["/film/film/directed_by", "/people/person/place_of_birth", "/film/actor/film",
           "/people/person/nationality"]
REL_NAMES = ["directed by", "place of birth", "film", "nationality"]
TRIPLES = [(0, 0, 3), (1, 0, 3), (2, 0, 4), (3, 1, 6), (4, 1, 7), (5, 1, 6), (4, 2, 0), (5, 2, 1), (5, 2, 2),
           (3, 3, 8), (4, 3, 8), (5, 3, 8)]


def _arrays(triples: list[tuple[int, int, int]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    h, r, t = (np.array(x, np.int64) for x in zip(*triples, strict=True))
    return h, r, t


def test_types_from_relation_signatures() -> None:
    names, node_type, categories = infer_types(*_arrays(TRIPLES), 9, REL_IDS, REL_NAMES)
    assert names == ["film", "nationality", "person", "place"]
    assert [names[c] for c in node_type] == ["film"] * 3 + ["person"] * 3 + ["place"] * 2 + ["nationality"]
    # the actors' own base is inside "person": merged, and kept as a category
    assert categories == ["film"] * 3 + ["person", "person; actor", "person; actor", None, None, None]


def test_a_kg_without_path_relations_is_named_from_relation_texts() -> None:
    h, r, t = _arrays([(0, 0, 2), (1, 0, 3), (2, 1, 4), (3, 1, 4)])
    names, node_type, categories = infer_types(h, r, t, 5, ["_capital", "_part_of"], ["has capital", "is part of"])
    assert categories is None  # no path names a category
    # cities 2, 3 head "is part of" (a head position types a node before a tail one): the
    # role noun of its heads; 4 is only a tail, of a verb phrase
    assert [names[c] for c in node_type] == ["thing with capital", "thing with capital", "part", "part",
                                             "thing something is part of"]


def test_an_entity_in_no_triple_is_an_entity() -> None:
    h, r, t = _arrays(TRIPLES)
    names, node_type, _ = infer_types(h, r, t, 10, REL_IDS, REL_NAMES)
    assert names[node_type[9]] == "entity"


def _instances(n_items: int, n_classes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Items 0..n_items-1 each an instance of one class (relation 0), and of a second one for
    item 0; relation 1 links items in a ring; relation 2 gives each item one of two genders."""
    classes = n_items + np.arange(n_classes)
    h = [*range(n_items), 0, *range(n_items), *range(n_items)]
    t = ([int(classes[i % n_classes]) for i in range(n_items)] + [int(classes[1])]
         + [(i + 1) % n_items for i in range(n_items)] + [n_items + n_classes + i % 2 for i in range(n_items)])
    r = [0] * (n_items + 1) + [1] * n_items + [2] * n_items
    return np.array(h), np.array(r), np.array(t), n_items + n_classes + 2


def test_the_typing_relation_is_found_by_its_shape() -> None:
    h, r, t, n = _instances(400, 10)
    assert typing_relation(h, r, t, n, 3) == 0
    h5, r5, t5, n5 = _instances(400, 5)  # five classes: too few tails to be classes (a gender has two)
    assert typing_relation(h5, r5, t5, n5, 3) is None
    assert typing_relation(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64), 5, 2) is None


def test_class_types_take_the_commonest_class() -> None:
    h, r, t, n = _instances(400, 10)
    cls = class_types(h, r, t, 0, n)
    assert cls[1] == 401 and cls[2] == 402 and cls[400] == -1  # a class has no class
    # item 0 is an instance of classes 400 and 401, each used 40 times but 401 once more
    assert cls[0] == 401
    assert (class_types(h, r, t, 5, n) == -1).all()  # no such relation: no class
