"""What an SKB's data says about itself: how much text its nodes carry and which node types
inform.

Defaults are facts about the data (DESIGN.md): the graph stage restricts answers to the
types a question names only when those types tell nodes apart, and ``skb kb build`` /
``skb kb info`` print what was inferred. A node type is **not informative** when

- it holds :data:`DEGENERATE_SHARE` or more of all nodes (restricting to it excludes little
  and drops the rest: WordNet's inferred ``thing with hypernym`` holds 93 % of its synsets), or
- its name is no noun phrase: the KG importer's names for a bare relation position
  (``thing with part``, ``thing that similar to``; :func:`kg_type_names.is_position_phrase`),
  or a name that ends in a function word.

A type the data gives (a ``type`` field, a types file, an ``instance of`` relation) is a
noun the data chose; only its share can make it uninformative. Nothing here names a
particular KG's types.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pyarrow.compute as pc

from skbsearch.kb.descriptive import descriptive_fields
from skbsearch.kb.loaders.kg_type_names import is_position_phrase
from skbsearch.kb.store import SKB, arrow_numpy

#: a type holding this share of all nodes, or more, says nothing about a node
DEGENERATE_SHARE = 0.9
#: English function words: a type name ending in one is no noun phrase, and a question's
#: function word never names a type
FUNCTION_WORDS = frozenset(
    "a an the of to in on at by for from with without into onto about as than that which who "
    "whom whose what this these those and or but not is are was were be been being do does did "
    "has have had it its".split())
_TOKEN = re.compile(r"[^0-9a-z]+")


@dataclass(frozen=True)
class TypeInfo:
    """One node type: its size, share of all nodes, whether it informs, and why not."""

    name: str
    nodes: int
    share: float
    informative: bool
    why: str = ""


@dataclass(frozen=True)
class Profile:
    """An SKB's text and types (see the module docstring)."""

    nodes: int
    #: share of nodes with a descriptive text besides the name (a description, a gloss)
    description_coverage: float
    description_fields: list[str]
    types: list[TypeInfo] = field(default_factory=list)
    #: what the importer did with a names column of ``name, text`` values (``meta["names_split"]``)
    names_split: dict[str, object] | None = None

    @property
    def informative_types(self) -> frozenset[str]:
        """Names of the types that tell nodes apart."""
        return frozenset(t.name for t in self.types if t.informative)

    def as_dict(self) -> dict[str, object]:
        """JSON-ready (``skb kb info --json``)."""
        return {"description_coverage": round(self.description_coverage, 4),
                "description_fields": self.description_fields,
                "names_split": self.names_split,
                "types_informative": sorted(self.informative_types),
                "types_not_informative": {t.name: t.why for t in self.types if not t.informative}}


def type_informs(name: str, share: float, *, inferred: bool = True) -> tuple[bool, str]:
    """Whether a type named ``name`` holding ``share`` of the nodes informs, and why not."""
    if share >= DEGENERATE_SHARE:
        return False, f"holds {share:.0%} of all nodes"
    toks = [t for t in _TOKEN.split(name.lower()) if t]
    if inferred and is_position_phrase(name):
        return False, "named after a relation position, not a noun"
    if not toks or toks[-1] in FUNCTION_WORDS:
        return False, "its name is no noun phrase"
    return True, ""


def description_coverage(skb: SKB) -> tuple[float, list[str]]:
    """Share of nodes with a value in a descriptive text field (:func:`descriptive_fields`)."""
    fields = [f for f in descriptive_fields(skb) if f != "name"]
    if not fields or not skb.num_nodes:
        return 0.0, fields
    has = np.zeros(skb.num_nodes, dtype=bool)
    for f in fields:
        col = skb.nodes.column(f)
        has |= arrow_numpy(pc.fill_null(pc.greater(pc.utf8_length(col), 0), False))
    return float(has.mean()), fields


def type_infos(skb: SKB) -> list[TypeInfo]:
    """Every node type with nodes: size, share and whether it informs (:func:`type_informs`;
    position phrases count as inferred names on an SKB imported from a KG)."""
    n = max(skb.num_nodes, 1)
    counts = np.bincount(skb.node_type_codes.astype(np.int64), minlength=len(skb.type_names))
    source = skb.meta.get("source")
    inferred = isinstance(source, dict) and source.get("format") == "kg"
    out = []
    for name, c in zip(skb.type_names, counts.tolist(), strict=True):
        if c:
            ok, why = type_informs(name, c / n, inferred=inferred)
            out.append(TypeInfo(name, int(c), c / n, ok, why))
    return out


def informative_types(skb: SKB) -> frozenset[str]:
    """Names of the node types that tell nodes apart (what answer types may restrict to)."""
    return frozenset(t.name for t in type_infos(skb) if t.informative)


def profile(skb: SKB) -> Profile:
    """The SKB's :class:`Profile` (cheap: one pass over the type codes and text columns)."""
    cov, fields = description_coverage(skb)
    return Profile(skb.num_nodes, cov, fields, type_infos(skb), skb.meta.get("names_split"))
