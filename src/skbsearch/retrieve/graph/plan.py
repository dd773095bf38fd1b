"""The graph stage's parameters and its working data: one query's plan, its scored candidates."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from skbsearch.core.errors import InputError
from skbsearch.retrieve.graph.backoff import PlannedPath, Walk
from skbsearch.retrieve.graph.linking import Anchor


@dataclass
class GraphParams:
    """The typed parameters of the ``graph`` stage (its spec's)."""

    k: int = 100
    target: tuple[str, ...] = field(default=(), metadata={
        "help": "node types that can be answers (default: learned, else from the schema)"})
    model: str | None = field(default=None, metadata={"help": "a fitted model directory"})
    n_text: int = field(default=200, metadata={"help": "text candidates per query"})
    n_anchor: int = field(default=30, metadata={"help": "name matches looked at per query"})
    n_graph: int = field(default=1000, metadata={"help": "graph-reached candidates per query"})
    max_hops: int = field(default=3, metadata={"help": "most hops of a learned relation chain"})
    top_paths: int = field(default=3, metadata={"help": "relation chains followed per linked anchor"})
    backoff: int = field(default=3, metadata={
        "help": "when no chain reaches anything: follow those that answered instead in training, "
                "then up to this many next chains per anchor (0: off)"})
    w_rel: float | None = field(default=None, metadata={"help": "relational weight (default: fitted)"})
    w_text: float | None = None
    w_attr: float | None = None
    w_type: float | None = None

    def check(self) -> None:
        for name in ("k", "n_text", "n_anchor", "n_graph", "top_paths", "backoff"):
            if getattr(self, name) < 0:
                raise InputError(f"{name} must be >= 0", field=name)
        if not 1 <= self.max_hops <= 4:
            raise InputError("max_hops must be between 1 and 4", field="max_hops")


@dataclass
class Plan:
    """What the stage decided for one query: words, anchors, metapaths, target types, and
    the anchors' next metapaths to back off to (:mod:`~skbsearch.retrieve.graph.backoff`)."""

    words: list[str]
    anchors: list[Anchor]
    paths: list[PlannedPath]
    types: dict[str, float]
    spare: list[PlannedPath] = field(default_factory=list)
    #: (anchor, metapath) -> how sure following it is (:func:`walk_confidence`)
    certainty: dict[tuple[int, tuple[str, ...]], float] = field(default_factory=dict)

    def target_types(self) -> tuple[str, ...]:
        """The answer types text candidates are drawn from (probability at least 0.1), sorted."""
        return tuple(sorted(t for t, v in self.types.items() if v >= 0.1))


@dataclass
class Scored:
    """Candidates of one query with their evidence (columns: ``model.FEATURES``) and the
    stage's confidence in its walks (:func:`walk_confidence`)."""

    nodes: np.ndarray
    features: np.ndarray
    tie: np.ndarray
    confidence: float = 1.0


#: the confidence of the graph stage's list when no walk is sure (or none reached anything)
#: and the answer types rule out no candidate: the list is then its text candidates, scored
#: by text and type, which stand whatever the anchors (measured on four KGs:
#: benchmarks/NOTES.md, issue 32)
TEXT_ONLY_CONFIDENCE = 0.5


def text_only_confidence(type_share: float) -> float:
    """The graph list's confidence without a sure walk, from how much its answer types narrow
    its text candidates: ``type_share`` is the share of the text index's nodes of those types.

    Each bit the types carry (``-log2(type_share)``) adds :data:`TEXT_ONLY_CONFIDENCE`: types
    that rule out nothing (one type for all nodes, or none guessed) leave it at 0.5; types
    that rule out half the nodes or more make the list (BM25 over the nodes the question
    can ask for) as sure as a sure walk, 1. A list of type-filtered text holds everything a
    text list beside it holds and the answer type besides, so fusion should not weigh it
    below that list (on FB15k-237's untyped-walk questions it ranked answers 1-10 where the
    BM25 list ranked them 3-47: benchmarks/NOTES.md, issue 32)."""
    share = min(1.0, max(float(type_share), 1e-12))
    return min(1.0, TEXT_ONLY_CONFIDENCE * (1.0 - math.log2(share)))


def walk_confidence(walked: dict[int, float], floor: float = TEXT_ONLY_CONFIDENCE) -> float:
    """How sure the stage is of its graph evidence on one query, in [0, 1]: the certainty of
    its surest walk that reached something (an anchor's weight times its metapath's
    probability, or its share of the anchor's followed metapaths' if larger: an unnamed
    zero-shot path among several is only a guess, the one way out of an anchor is not), at
    least ``floor`` (what its list holds without walks: :func:`text_only_confidence`).
    ``walked``: anchor -> its surest reaching walk's."""
    return min(1.0, max([floor, *walked.values()]))


def relational_evidence(anchors: Sequence[Anchor], walks: Sequence[Walk], n: int) -> np.ndarray:
    """Each node's relational evidence (``n`` nodes): the probabilities of the walks that reach
    it, summed over an anchor's metapaths and over the anchors, but taken at the largest over
    the nodes whose whole name one mention says (the same query words; :attr:`Anchor.whole`):
    those are rival senses of one name ("lie" the verb, the noun, "lie-in"), one of which the
    question means, so a node the senses reach from one another does not gather their sum.
    (Partial-name links — products named after the brand the question names — are not rivals
    of the named node: their evidence adds.)"""
    rel = np.zeros(n)  # zero pages cost nothing until touched
    groups: dict[tuple[int, ...], list[Walk]] = {}
    for w in walks:
        a = anchors[w[0]]
        groups.setdefault(a.words if a.whole and a.words else (-1 - w[0],), []).append(w)
    for group in groups.values():
        if len({w[0] for w in group}) == 1:
            for _, _, prob, reached in group:
                rel[reached] += prob  # a reached set is unique: no repeated index
            continue
        idx = np.unique(np.concatenate([w[3] for w in group]))
        best = np.zeros(len(idx))
        by_anchor: dict[int, np.ndarray] = {}
        for ai, _, prob, reached in group:
            own = by_anchor.setdefault(ai, np.zeros(len(idx)))
            own[np.searchsorted(idx, reached)] += prob
        for own in by_anchor.values():
            np.maximum(best, own, out=best)
        rel[idx] += best
    return rel
