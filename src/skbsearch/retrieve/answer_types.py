"""Answer-type inference from a question's words against the SKB's own type vocabulary.

Untrained, the graph stage must guess which node types can be answers. The words that say
it come first in a question, before the first relation word or preposition ("Which
*films* directed by ...", "an *actor* born in ...", "rock *bands* from ..."): the
*answer phrase*. A type is evidenced when a word of that phrase

- is the head word of the type's name, in any inflection (``film`` for "films",
  ``educational institution`` for "institutions", ``country`` for "countries"), or
- names a *class node* the type's nodes point to: a node that many nodes link to and most
  of them are of one type (a profession "Comedian" for people, a genre for films): "a
  *comedian* born in ..." asks for the type of the nodes that link to Comedian.

Nothing here names a particular KB's types: the vocabulary is read off the SKB (type
names, node names, in-links). :class:`AnswerTypes` is built once per SKB.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from skbsearch.kb.store import SKB
from skbsearch.retrieve.name_table import normalise

_TOKEN = re.compile(r"[^0-9a-z]+")
#: words a question starts with before it says what it asks for
_LEAD = frozenset(
    "which what who whom whose list find name show give tell me us some all any every a an the "
    "is are was were do does did has have had there i want looking for search".split())
#: words that end the answer phrase (prepositions, relatives, auxiliaries, conjunctions)
_STOP = frozenset(
    "by in of from with who whom that which whose where when for at on to into about as "
    "is are was were be been do does did has have had and or but than like whose not "
    "s".split())
#: "who" asks for a person; these type-name heads are the usual names of a person type
_PERSON = frozenset("person people human individual agent".split())


def singular(word: str) -> str:
    """A crude English singular: ``countries`` -> ``country``, ``films`` -> ``film``,
    ``classes`` -> ``class``, ``people`` stays."""
    w = word.lower()
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith(("sses", "shes", "ches", "xes")):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


def answer_phrase(words: Sequence[str]) -> list[str]:
    """The words a question names its answers with: after the leading question words, up
    to the first preposition, relative or auxiliary (``["films", "directed"]`` for "which
    films directed by ...")."""
    i = 0
    while i < len(words) and words[i] in _LEAD:
        i += 1
    out = []
    for w in words[i:]:
        if w in _STOP:
            break
        out.append(w)
    return out


class AnswerTypes:
    """Guesses the answer types of questions from the SKB's type names and class nodes.

    Args:
        skb: the knowledge base.
        min_links: a class node has at least this many in-links ...
        min_share: ... at least this share of which come from one type.
    """

    def __init__(self, skb: SKB, *, min_links: int = 20, min_share: float = 0.6) -> None:
        self.types = list(skb.type_names)
        #: singular head word of a type name -> type indices
        self.heads: dict[str, list[int]] = {}
        for k, t in enumerate(self.types):
            toks = [x for x in _TOKEN.split(t.lower()) if x]
            if toks:
                self.heads.setdefault(singular(toks[-1]), []).append(k)
        #: class name (tuple of singular words) -> (type index, share)
        self.classes: dict[tuple[str, ...], tuple[int, float]] = self._class_nodes(skb, min_links, min_share)
        self._longest = max((len(c) for c in self.classes), default=0)

    @staticmethod
    def _class_nodes(skb: SKB, min_links: int, min_share: float) -> dict[tuple[str, ...], tuple[int, float]]:
        if skb.num_edges == 0 or not len(skb.type_names):
            return {}
        src, dst = skb.edge_src, skb.edge_dst
        indeg = np.bincount(dst, minlength=skb.num_nodes)
        hubs = np.flatnonzero(indeg >= min_links)
        if not len(hubs):
            return {}
        keep = np.isin(dst, hubs)
        codes = skb.node_type_codes.astype(np.int64)
        T = len(skb.type_names)
        key, counts = np.unique(dst[keep].astype(np.int64) * T + codes[src[keep]], return_counts=True)
        node, code = key // T, key % T
        best: dict[int, tuple[int, int]] = {}
        for n, c, k in zip(node.tolist(), code.tolist(), counts.tolist(), strict=True):
            if k > best.get(n, (0, -1))[0]:
                best[n] = (k, c)
        names = skb.column("name")
        out: dict[tuple[str, ...], tuple[int, float]] = {}
        for n, (k, c) in best.items():
            share = k / float(indeg[n])
            words = tuple(singular(w) for w in normalise(names[n] or "").split() if len(w) > 2)
            if share >= min_share and words and len(words) <= 4 and share > out.get(words, (0, 0.0))[1]:
                out[words] = (c, share)
        return out

    def guess(self, words: Sequence[str]) -> dict[str, float]:
        """Answer types with weights (summing to 1) said by the question's answer phrase;
        empty when it says none."""
        if words and words[0] in ("who", "whom"):
            found = {k: 1.0 for w, ks in self.heads.items() if w in _PERSON for k in ks}
            if found:
                return self._norm(found)
        phrase = [singular(w) for w in answer_phrase(words)]
        found: dict[int, float] = {}
        n = len(phrase)
        for i in range(n):  # class names (longest first), then type heads
            for size in range(min(self._longest, n - i), 0, -1):
                hit = self.classes.get(tuple(phrase[i : i + size]))
                if hit is not None:
                    found[hit[0]] = max(found.get(hit[0], 0.0), hit[1])
                    break
            for k in self.heads.get(phrase[i], ()):
                found[k] = max(found.get(k, 0.0), 1.0)
        return self._norm(found)

    def _norm(self, found: dict[int, float]) -> dict[str, float]:
        total = sum(found.values())
        return {self.types[k]: v / total for k, v in sorted(found.items())} if total > 0 else {}
