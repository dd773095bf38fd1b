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

Only the names of types that inform (:func:`skbsearch.kb.profile.informative_types`: not one
type for nearly every node, a noun phrase for a name) are matched: a question's "part" or
"that" never restricts answers to an importer's ``thing with part`` or ``thing that similar
to``. A class node speaks for its members whatever their type is named ("national capitals"
asks for the nodes that are instances of *national capital*).
Nothing here names a particular KB's types: the vocabulary is read off the SKB (type
names, node names, in-links). :class:`AnswerTypes` is built once per SKB.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from skbsearch.kb.profile import FUNCTION_WORDS, informative_types
from skbsearch.kb.schema import INVERSE_SUFFIX
from skbsearch.kb.store import SKB
from skbsearch.retrieve.graph.name_table import normalise

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
#: common English synonyms of type-name words (a question says "movies", the KB "film")
_SYNONYMS = {"movie": ("film",), "film": ("movie",), "people": ("person",), "human": ("person",),
             "company": ("organization", "organisation", "business", "company"),
             "firm": ("organization", "organisation", "business", "company"),
             "show": ("program", "programme", "series"), "series": ("program", "programme", "show"),
             "program": ("programme",), "programme": ("program",), "nation": ("country",),
             "song": ("track", "recording"), "track": ("song", "recording"), "book": ("work",),
             "organisation": ("organization",), "organization": ("organisation",)}
#: English agent-noun endings: "directors", "thinkers", "guitarists", "comedians" ask for people
_AGENT = ("er", "or", "ist", "ian", "ess", "ant", "ee")
#: English nouns for people without an agent ending (singular forms): "Harvard alumni" asks
#: for people even though "Harvard" names an organisation
_PERSON_NOUNS = frozenset(
    "alumni alumnus alumna alumnae graduate student pupil member native resident citizen "
    "inhabitant man men woman women child children son daughter wife husband spouse parent "
    "sibling brother sister friend colleague alum".split())


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


def forms(word: str) -> tuple[str, ...]:
    """The word and its possible singulars (``movies`` -> ``movie``, ``countries`` -> ``country``)."""
    w = word.lower()
    out = [w, singular(w)]
    if len(w) > 3 and w.endswith("s"):
        out.append(w[:-1])
    if len(w) > 4 and w.endswith("es"):
        out.append(w[:-2])
    return tuple(dict.fromkeys(out))


def answer_phrase(words: Sequence[str]) -> list[str]:
    """The words a question names its answers with: after the leading question words, up
    to the first preposition, relative or auxiliary (``["films", "directed"]`` for "which
    films directed by ...")."""
    i = 0
    while i < len(words) and words[i] in _LEAD:
        i += 1
    out: list[str] = []
    for w in words[i:]:
        if w in _STOP or (out and _verb_like(w)):
            break
        out.append(w)
    return out


def _verb_like(word: str) -> bool:
    """A participle that starts a relative clause ("directed", "starring")."""
    return len(word) > 4 and word.endswith(("ed", "ing"))


class AnswerTypes:
    """Guesses the answer types of questions from the SKB's type names and class nodes.

    Args:
        skb: the knowledge base.
        min_links: a class node has at least this many in-links ...
        min_share: ... at least this share of which come from one type.
    """

    def __init__(self, skb: SKB, *, min_links: int = 20, min_share: float = 0.6) -> None:
        self.types = list(skb.type_names)
        #: the types that inform (the only ones a guess may name)
        self.informative = informative_types(skb)
        #: singular head word of a type name -> type indices
        self.heads: dict[str, list[int]] = {}
        for k, t in enumerate(self.types):
            toks = [x for x in _TOKEN.split(t.lower()) if x]
            if toks and t in self.informative and toks[-1] not in FUNCTION_WORDS:
                self.heads.setdefault(singular(toks[-1]), []).append(k)
        #: class name (tuple of singular words) -> (type index, share)
        #: class node -> (type index of its members, their share of its in-links, the step
        #: from the class node to its members, e.g. ``profession^-1``)
        self.class_nodes: dict[int, tuple[int, float, str]] = self._class_nodes(skb, min_links, min_share)
        names = skb.column("name")
        #: class name (tuple of singular words) -> (type index, share)
        self.classes: dict[tuple[str, ...], tuple[int, float]] = {}
        for node, (code, share, _) in self.class_nodes.items():
            words = tuple(singular(w) for w in normalise(names[node] or "").split() if len(w) > 2)
            if words and len(words) <= 4 and share > self.classes.get(words, (0, 0.0))[1]:
                self.classes[words] = (code, share)
        self._longest = max((len(c) for c in self.classes), default=0)

    @staticmethod
    def _class_nodes(skb: SKB, min_links: int, min_share: float) -> dict[int, tuple[int, float, str]]:
        if skb.num_edges == 0 or not len(skb.type_names):
            return {}
        src, rel, dst = skb.edge_src, skb.edge_rel, skb.edge_dst
        indeg = np.bincount(dst, minlength=skb.num_nodes)
        hubs = np.flatnonzero(indeg >= min_links)
        if not len(hubs):
            return {}
        keep = np.isin(dst, hubs)
        codes = skb.node_type_codes.astype(np.int64)
        T, R = len(skb.type_names), max(len(skb.schema.relations), 1)
        key, counts = np.unique((dst[keep].astype(np.int64) * T + codes[src[keep]]) * R
                                + rel[keep].astype(np.int64), return_counts=True)
        rels = skb.schema.relations
        per_type: dict[tuple[int, int], int] = {}
        best_rel: dict[tuple[int, int], tuple[int, int]] = {}
        for k, c in zip(key.tolist(), counts.tolist(), strict=True):
            nc, r = divmod(k, R)
            pair = divmod(nc, T)
            per_type[pair] = per_type.get(pair, 0) + c
            if c > best_rel.get(pair, (0, -1))[0]:
                best_rel[pair] = (c, r)
        best: dict[int, tuple[int, int]] = {}
        for (n, code), c in per_type.items():
            if c > best.get(n, (0, -1))[0]:
                best[n] = (c, code)
        out: dict[int, tuple[int, float, str]] = {}
        for n, (c, code) in best.items():
            share = c / float(indeg[n])
            if share >= min_share:
                out[n] = (code, share, rels[best_rel[(n, code)][1]] + INVERSE_SUFFIX)
        return out

    def guess(self, words: Sequence[str]) -> dict[str, float]:
        """Answer types with weights (summing to 1) said by the question's answer phrase;
        empty when it says none. The phrase's last match is its head ("film *directors*"):
        earlier matches weigh a quarter."""
        if words and words[0] in ("who", "whom"):
            person = self._person()
            if person:
                return self._norm(person)
        raw = answer_phrase(words)
        phrase = [singular(w) for w in raw]
        matches: list[dict[int, float]] = []
        i, n = 0, len(phrase)
        while i < n:
            hit, size = self._class_at(phrase, i)
            got: dict[int, float] = {}
            if hit is not None:
                got[hit[0]] = hit[1]
            if size <= 1:
                for f in forms(raw[i]):
                    for w in (f, *_SYNONYMS.get(f, ())):
                        for k in self.heads.get(w, ()):
                            got[k] = 1.0
                    if hit is None and (one := self.classes.get((f,))) is not None:
                        got[one[0]] = max(got.get(one[0], 0.0), one[1])
            if got:
                matches.append(got)
            i += max(size, 1)
        if phrase and phrase[-1] in _PERSON_NOUNS and not self._at_head(phrase, matches):
            matches.append(self._person())  # the head says people ("Harvard University alumni")
        matches = [m for m in matches if m]
        if not matches:  # an agent noun ("directors") says people when nothing else says a type
            head = phrase[-1] if phrase else ""
            return self._norm(self._person()) if head.endswith(_AGENT) and len(head) > 4 else {}
        found: dict[int, float] = {}
        for j, got in enumerate(matches):
            scale = 1.0 if j == len(matches) - 1 else 0.25
            for k, v in got.items():
                found[k] = max(found.get(k, 0.0), v * scale)
        return self._norm(found)

    def _at_head(self, phrase: list[str], matches: list[dict[int, float]]) -> bool:
        """Whether the phrase's last word is itself a type or class match (then it speaks)."""
        if not matches:
            return False
        head = phrase[-1]
        return bool(self.heads.get(head) or self.classes.get((head,))
                    or any(self.heads.get(w) for w in _SYNONYMS.get(head, ())))

    def _class_at(self, phrase: list[str], i: int) -> tuple[tuple[int, float] | None, int]:
        """The longest class name starting at word ``i`` and its length (``(None, 0)``)."""
        for size in range(min(self._longest, len(phrase) - i), 0, -1):
            hit = self.classes.get(tuple(phrase[i : i + size]))
            if hit is not None:
                return hit, size
        return None, 0

    def _person(self) -> dict[int, float]:
        return {k: 1.0 for w, ks in self.heads.items() if w in _PERSON for k in ks}

    def _norm(self, found: dict[int, float]) -> dict[str, float]:
        total = sum(found.values())
        return {self.types[k]: v / total for k, v in sorted(found.items())} if total > 0 else {}
