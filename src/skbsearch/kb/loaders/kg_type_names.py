"""Names for node types inferred on a KG whose relation ids name no types.

On such KGs (WN18RR's ``_hypernym``, YAGO's ``hasGender``, Wikidata's ``P19`` with texts)
a type is a group of relation positions, so only the relations' texts can name it. Each
type gets, in this order:

1. a **role noun** that at least half of its nodes carry and that mostly they carry: the
   noun a relation's text gives its tails (``has capital`` -> ``capital``, ``place of
   birth`` -> ``place``, ``hypernym``) or its heads (``is citizen of`` -> ``citizen``,
   ``is part of`` -> ``part``);
2. else its **most distinctive relation position** (the share of the type's nodes in it
   times the share of that position's nodes in the type) read as a noun phrase: its heads
   ``thing with gender`` (a noun text) or ``thing that plays for`` (a verb text), its tails
   the noun the text names or ``thing something acted in``.

A name another type already took (a larger one, named first) is skipped for the next
choice; on a tie a head position names a type before a tail position (as it types a node
first); nothing here names a particular KG's relations.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from skbsearch.kb.graph import unique_sorted
from skbsearch.kb.loaders.kg_names import head_noun_of, noun_of, words

#: a role noun names a type when this share of its nodes, at least, carry it
COVERAGE = 0.5
#: ... and at least this share of the nodes carrying it are of the type
PRECISION = 0.5
_LEADING = frozenset("has have had".split())
#: the word the names of bare relation positions start with (``thing with gender``)
POSITION_HEAD = "thing"


def is_position_phrase(name: str) -> bool:
    """Whether ``name`` is one this module makes for a bare relation position (``thing with
    gender``, ``thing that plays for``, ``thing something acted in``): no noun for the type."""
    return name.startswith(POSITION_HEAD + " ")


def _positions(type_of: np.ndarray, ent: np.ndarray, r: np.ndarray, n_types: int,
               n_rel: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per (type, relation) pair seen: type, relation, distinct nodes of the type in that
    position, and the position's distinct nodes of any type."""
    n_ent = len(type_of)
    key = unique_sorted(r.astype(np.int64) * n_ent + ent)
    rel, node = key // n_ent, key % n_ent
    total = np.bincount(rel, minlength=n_rel)
    pair = type_of[node].astype(np.int64) * n_rel + rel
    uniq, counts = np.unique(pair, return_counts=True)
    return uniq // n_rel, uniq % n_rel, counts, total[uniq % n_rel]


def _phrase(rel_name: str, head: bool) -> str:
    """A relation position as a noun phrase (see the module docstring)."""
    text = " ".join(words(rel_name.split(" (")[0])) or rel_name
    noun = noun_of(text)
    if not head:
        return noun or f"{POSITION_HEAD} something {text}"
    if noun:
        ws = text.split()
        while ws and ws[0] in _LEADING:
            ws = ws[1:]
        return f"{POSITION_HEAD} with " + " ".join(ws)
    return f"{POSITION_HEAD} that {text}"


def readable_type_names(type_names: Sequence[str], node_type: np.ndarray, h: np.ndarray, r: np.ndarray,
                        t: np.ndarray, rel_names: Sequence[str], keep: set[str]) -> list[str]:
    """``type_names`` with every name not in ``keep`` replaced as the module docstring says."""
    n_types, n_rel = len(type_names), len(rel_names)
    size = np.bincount(node_type, minlength=n_types)
    options: dict[int, list[tuple[float, float, bool, str]]] = {k: [] for k in range(n_types)}
    for head, ent in ((True, h), (False, t)):
        nouns = [head_noun_of(n) if head else noun_of(n.split(" (")[0]) for n in rel_names]
        for k, rel, c, tot in zip(*_positions(node_type, ent, r, n_types, n_rel), strict=True):
            cov, prec = c / max(size[k], 1), c / max(tot, 1)
            noun = nouns[rel]
            if noun and cov >= COVERAGE and prec >= PRECISION:
                options[int(k)].append((2.0, cov, not head, noun))  # a role noun before any phrase
            options[int(k)].append((cov * prec, float(c), not head, _phrase(rel_names[rel], head)))
    out = list(type_names)
    taken = {n for n in type_names if n in keep}
    for k in np.argsort(-size, kind="stable"):
        k = int(k)
        if type_names[k] in keep:
            continue
        ranked = [o[3] for o in sorted(options[k], key=lambda o: (-o[0], -o[1], o[2], o[3]))]
        out[k] = next((n for n in [*ranked, type_names[k]] if n not in taken), f"{type_names[k]} ({k})")
        taken.add(out[k])
    return out
