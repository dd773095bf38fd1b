"""The graph stage's parameters and its working data: one query's plan, its scored candidates."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from skbsearch.core.errors import InputError
from skbsearch.retrieve.graph.backoff import PlannedPath
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


@dataclass
class Scored:
    """Candidates of one query with their evidence (columns: ``model.FEATURES``) and the
    stage's confidence in its walks (:func:`walk_confidence`)."""

    nodes: np.ndarray
    features: np.ndarray
    tie: np.ndarray
    confidence: float = 1.0


#: the confidence of the graph stage's list when no walk is sure (or none reached anything):
#: the list is then its text candidates of the answer types, scored by text and type, which
#: stand whatever the anchors (measured on four KGs: benchmarks/NOTES.md, issue 32)
TEXT_ONLY_CONFIDENCE = 0.5


def walk_confidence(walked: dict[int, float]) -> float:
    """How sure the stage is of its graph evidence on one query, in [0, 1]: the certainty of
    its surest walk that reached something (an anchor's weight times its metapath's
    probability, or its share of the anchor's followed metapaths' if larger: an unnamed
    zero-shot path among several is only a guess, the one way out of an anchor is not), at
    least :data:`TEXT_ONLY_CONFIDENCE` (what its list holds without walks). ``walked``:
    anchor -> its surest reaching walk's."""
    return min(1.0, max([TEXT_ONLY_CONFIDENCE, *walked.values()]))
