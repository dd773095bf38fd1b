"""The exact-name part of the graph stage's linker: query mentions -> nodes by whole names.

:class:`ExactNames` is a part of :class:`~skbsearch.retrieve.graph.linking.NameLinker` (the
one linker: build a ``NameLinker`` and call its ``link``, ``link_exact`` or ``lookup``), not a
linker of its own. It holds the name tables and finds mentions in two modes:

- ``brackets``: the mention is given, ``what movies did [Temuera Morrison] act in``;
- ``ngram``: no markup; the longest n-grams of the normalised question that are node
  names, scored by how unlike template words their tokens are.

Names are not unique (a person "Richard Brooks" and a tag "richard brooks"), so a
mention links to *all* nodes of that name; exact-case matches rank above normalised
ones, then more popular (higher degree) nodes first. Candidate scores of a mention sum
to 1.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from skbsearch.kb.store import SKB
from skbsearch.retrieve.graph.name_table import (
    build_name_tables,
    load_or_build_name_tables,
    normalise,
)

BRACKET_RE = re.compile(r"\[([^\[\]]+)\]")

#: Function words that alone never make a mention (used without background questions).
DEFAULT_STOPWORDS = frozenset(
    "a an the of in on at to for by with from and or is are was were be been did do does "
    "what which who whom whose when where how why that this these those it its his her "
    "their film films movie movies".split()
)

#: The token that replaces a linked mention in a masked question.
MASK = "ENT"


def bracket_mentions(text: str) -> list[str]:
    """The ``[bracketed]`` mentions of a question, in order."""
    return [m.strip() for m in BRACKET_RE.findall(text)]


def strip_brackets(text: str) -> str:
    """The question without the bracket markup (mentions kept)."""
    return BRACKET_RE.sub(lambda m: m.group(1), text)


@dataclass(frozen=True)
class Candidate:
    """A node a mention may refer to; ``score`` is its share of the mention (sums to 1)."""

    node: int
    score: float
    exact: bool


@dataclass(frozen=True)
class Mention:
    """A linked span: its surface text, token span in :func:`normalise` d text, candidates."""

    text: str
    start: int
    end: int
    score: float
    candidates: tuple[Candidate, ...]


@dataclass(frozen=True)
class LinkResult:
    """Mentions of one question (best first) and the question with mentions masked."""

    mentions: tuple[Mention, ...]
    masked: str

    @property
    def best(self) -> Mention | None:
        """The best mention, if any."""
        return self.mentions[0] if self.mentions else None


class ExactNames:
    """The exact-name part of :class:`~skbsearch.retrieve.graph.linking.NameLinker`: its name
    tables (exact and normalised names -> nodes), template-word weights, and mentions found by
    whole names (see the module docstring). ``NameLinker`` builds or shares one; link through it.

    Args:
        skb: the knowledge base.
        types: only link nodes of these types (default: all).
        max_ngram: the longest name (in tokens) tried in n-gram mode (default: longest
            name in the SKB, at most 24).
        normalised_weight: weight of a normalised-only match relative to an exact one.
    """

    def __init__(
        self,
        skb: SKB,
        *,
        types: Sequence[str] | None = None,
        max_ngram: int | None = None,
        normalised_weight: float = 0.5,
    ) -> None:
        self.skb = skb
        self.normalised_weight = normalised_weight
        if types is None:  # every node: persisted beside the SKB's indexes
            exact, norm, longest = load_or_build_name_tables(skb)
        else:
            allowed = np.zeros(skb.num_nodes, bool)
            allowed[skb.nodes_of_type(*types)] = True
            exact, norm, longest = build_name_tables(skb, allowed)
        self.degree = skb.graph.degree(direction="both")
        self._exact = exact
        self._norm = norm
        self.max_ngram = max_ngram or min(longest, 24)
        self._weights: dict[str, float] | None = None

    # ------------------------------------------------------------------ dictionary
    def lookup(self, mention: str) -> list[Candidate]:
        """All nodes named ``mention`` (exact or normalised), best first, scores sum to 1."""
        exact = set(self._exact.get(mention.strip(), ()))
        nodes = exact | set(self._norm.get(normalise(mention), ()))
        if not nodes:
            return []
        raw = {
            n: (1.0 if n in exact else self.normalised_weight) * math.log(2.0 + self.degree[n])
            for n in nodes
        }
        total = sum(raw.values())
        ranked = sorted(raw, key=lambda n: (-raw[n], n))
        return [Candidate(n, raw[n] / total, n in exact) for n in ranked]

    def fit_background(self, questions: Iterable[str]) -> ExactNames:
        """Learn template words from questions (bracketed mentions are ignored).

        A token's weight is its inverse document frequency over these questions,
        scaled to 0..1: words of question templates ("what", "movies", "act") get ~0,
        words of names ~1. Without background, stop words weigh 0 and others 1.
        """
        df: Counter[str] = Counter()
        n = 0
        for q in questions:
            tokens = set(normalise(BRACKET_RE.sub(" ", q)).split())
            df.update(tokens)
            n += 1
        top = math.log(n + 1.0)
        self._weights = {t: math.log((n + 1.0) / (c + 1.0)) / top for t, c in df.items()} if n else {}
        return self

    @property
    def background(self) -> dict[str, float] | None:
        """Token weights learned by :meth:`fit_background` (``None``: stop words weigh 0)."""
        return self._weights

    @background.setter
    def background(self, weights: dict[str, float] | None) -> None:
        self._weights = dict(weights) if weights is not None else None

    def token_weight(self, token: str) -> float:
        """How much a normalised token counts as part of a mention (template words ~0)."""
        return self._token_weight(token)

    def _token_weight(self, token: str) -> float:
        if self._weights is None:
            return 0.0 if token in DEFAULT_STOPWORDS else 1.0
        return self._weights.get(token, 1.0)

    # ------------------------------------------------------------------ linking
    def link(self, text: str, mode: str = "auto", max_mentions: int = 3) -> LinkResult:
        """Mentions of one question by whole names (:meth:`NameLinker.link_exact
        <skbsearch.retrieve.graph.linking.NameLinker.link_exact>`). ``mode``: ``brackets``,
        ``ngram`` or ``auto`` (brackets if any)."""
        if mode not in ("auto", "brackets", "ngram"):
            raise ValueError("mode must be 'auto', 'brackets' or 'ngram'")
        given = bracket_mentions(text)
        if mode == "brackets" or (mode == "auto" and given):
            return self._link_brackets(text, given)
        return self._link_ngrams(normalise(strip_brackets(text)), max_mentions)

    def _link_brackets(self, text: str, given: list[str]) -> LinkResult:
        mentions = []
        for k, m in enumerate(given):
            cands = self.lookup(m)
            mentions.append(Mention(m, k, k + 1, 1.0 if cands else 0.0, tuple(cands)))
        mentions.sort(key=lambda m: -m.score)
        parts = BRACKET_RE.split(text)  # even positions: outside text; odd: mentions
        masked = " ".join(
            p for k, part in enumerate(parts) if (p := MASK if k % 2 else normalise(part))
        )
        return LinkResult(tuple(mentions), masked)

    def _link_ngrams(self, norm: str, max_mentions: int) -> LinkResult:
        tokens = norm.split()
        weights = [self._token_weight(t) for t in tokens]
        spans: list[tuple[float, int, int]] = []
        for i in range(len(tokens)):
            for j in range(min(len(tokens), i + self.max_ngram), i, -1):
                key = " ".join(tokens[i:j])
                if key in self._norm:
                    score = sum(weights[i:j])
                    if score > 0:
                        spans.append((score + 1e-3 * (j - i), i, j))
        spans.sort(key=lambda s: (-s[0], s[1]))
        taken = np.zeros(len(tokens), bool)
        mentions: list[Mention] = []
        for score, i, j in spans:
            if taken[i:j].any():
                continue
            taken[i:j] = True
            surface = " ".join(tokens[i:j])
            mentions.append(Mention(surface, i, j, score, tuple(self.lookup(surface))))
            if len(mentions) >= max_mentions:
                break
        if mentions:
            best = mentions[0]
            masked = " ".join(tokens[: best.start] + [MASK] + tokens[best.end :])
        else:
            masked = norm
        return LinkResult(tuple(mentions), masked)
