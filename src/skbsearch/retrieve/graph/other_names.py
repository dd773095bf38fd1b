"""Other names of nodes, read off the KG itself: what a question may call a node besides its name.

A KG names a node once; a question may use another of its names. Two kinds are found from
the KG's own names, text and edges, with no list of aliases and nothing about a particular KG:

- **acronyms**: a word the question writes in capitals ("NATO") that is the initials of a
  multi-word name (*north atlantic treaty organization*;
  :func:`~skbsearch.retrieve.graph.name_table.acronym_table`);
- **names in the text**: a proper noun that is no node's name but that the nodes' own
  texts use around one node ("a port city in southern France": the parts of WN18RR's
  *french republic*; :meth:`~skbsearch.retrieve.graph.commonness.NameShare.text_alias`).

:class:`OtherNames` is part of the graph stage's linker
(:class:`~skbsearch.retrieve.graph.linking.NameLinker`): it is asked only about the words no
node is named by whole, and its links say the node's whole name in another form.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from skbsearch.kb.profile import FUNCTION_WORDS
from skbsearch.kb.store import SKB
from skbsearch.retrieve.graph.commonness import NameShare
from skbsearch.retrieve.graph.name_table import (
    MIN_ACRONYM_WORDS,
    NameTable,
    acronym_table,
    load_or_build_name_tables,
)

#: a word in capitals long enough to be read as an acronym
_CAPS = re.compile(rf"\b[A-Z]{{{MIN_ACRONYM_WORDS},}}\b")

#: one link of another name: (node, confidence, the query word's position, source:
#: ``acronym`` or ``text-alias``)
OtherLink = tuple[int, float, int, str]


def acronyms(text: str) -> frozenset[str]:
    """The normalised words a question writes in capitals, of at least
    :data:`~skbsearch.retrieve.graph.name_table.MIN_ACRONYM_WORDS` letters ("NATO"); none when
    most words are capitalised (a shouted or title-case question says nothing by its capitals)."""
    raw = text.split()
    if sum(w[:1].isupper() for w in raw) > max(2, len(raw) // 2):
        return frozenset()
    return frozenset(m.lower() for m in _CAPS.findall(text))


class OtherNames:
    """Links words to nodes by names the KG does not list (see the module docstring).

    Args:
        skb: the knowledge base.
        name_share: the linker's :class:`NameShare` (the nodes' own text, for names in text).
        max_nodes: an acronym of more multi-word names than this names none of them.
    """

    def __init__(self, skb: SKB, name_share: NameShare, max_nodes: int = 8) -> None:
        self.skb = skb
        self.name_share = name_share
        self.max_nodes = max_nodes
        self._acronyms: NameTable | None = None

    def prepare(self) -> OtherNames:
        """Build the acronym table (from the linker's saved name tables) now, at set-up."""
        if self._acronyms is None:
            _, norm, _ = load_or_build_name_tables(self.skb)
            self._acronyms = acronym_table(norm, self.skb.num_nodes, FUNCTION_WORDS)
        return self

    def links(self, text: str, words: Sequence[str], proper: Collection[str],
              named: Collection[int]) -> list[OtherLink]:
        """Links of the question's acronyms and proper nouns (``proper``: its normalised
        proper nouns) at the positions of ``words`` (its normalised words) not in ``named``
        (words that name a node by whole already). An acronym's names share the mention
        (``1 / their number``); a name in the text links at its confidence."""
        caps = acronyms(text)
        out: list[OtherLink] = []
        for pos, word in enumerate(words):
            if pos in named or not (word in caps or word in proper):
                continue
            table = self.prepare()._acronyms if word in caps else None
            nodes = table.get(word) if table is not None else ()
            if 0 < len(nodes) <= self.max_nodes:
                out.extend((int(n), 1.0 / len(nodes), pos, "acronym") for n in nodes)
            elif word in proper and (got := self.name_share.text_alias(word)) is not None:
                out.append((got[0], got[1], pos, "text-alias"))
        return out
