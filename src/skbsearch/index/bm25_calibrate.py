"""How much a node's relation lines count in the default BM25 index, chosen on the SKB itself.

The default index scores a node's own document (name, type, texts) and its relation lines
(neighbours' names) as two fields, added. How much the relation field should weigh is a fact
about the data, not a constant: on a KG whose nodes are bare names (FB15k-237) the relation
lines are most of what a node says, and a question naming a related entity needs them; on a
KG whose nodes carry their own texts (WordNet's glosses) a parent that lists its children
outranks the child a question describes. :func:`choose_rel_weight` decides per SKB:

- nodes mostly without a description of their own (:data:`MIN_COVERAGE`): the relation
  lines are their text, weight 1 (nothing to calibrate);
- fewer than :data:`MIN_NODES` nodes, or more than :data:`MAX_NODES`: weight 1 (too few
  queries to tell weights apart / synthesis too slow to run at index time);
- otherwise: :data:`N_QUERIES` STaRK-style queries are synthesised from the SKB
  (:func:`skbsearch.synth.queries.synthesize_queries`, deterministic, seed 0: a relation to a
  named anchor plus words of the answer's own text), each weight of :data:`REL_WEIGHTS` is
  scored on them (MRR@100 of ``document + w * relations``, from one index per field), and the
  best weight is kept if it beats weight 1 by :data:`MIN_GAIN` MRR; else weight 1. Weights
  never exceed 1: a neighbour list never counts more than the node's own text.

Never evaluation questions: only queries synthesised from the SKB's own triples and texts.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from skbsearch.core.errors import InputError

if TYPE_CHECKING:
    from skbsearch.kb.store import SKB

#: weights tried for the relation field (the document field weighs 1)
REL_WEIGHTS = (0.1, 0.25, 0.5, 1.0)
#: the weight kept when nothing is calibrated or no weight clearly beats it
DEFAULT_WEIGHT = 1.0
#: nodes with a description of their own, at least this share, before calibrating
MIN_COVERAGE = 0.5
#: SKB sizes calibrated (below: too few distinct queries; above: synthesis takes minutes)
MIN_NODES = 1000
MAX_NODES = 500_000
#: synthesised queries, and the fewest that make a calibration
N_QUERIES = 100
MIN_QUERIES = 30
#: MRR a weight must gain over weight 1 on the synthesised queries to be chosen
MIN_GAIN = 0.01
#: candidates scored per query (each field's top, pooled)
DEPTH = 100


@dataclass(frozen=True)
class RelWeightChoice:
    """The relation field's weight, why, and (when calibrated) each weight's MRR."""

    weight: float
    reason: str
    mrr: dict[float, float] = field(default_factory=dict)
    queries: int = 0
    seconds: float = 0.0

    def as_source(self) -> dict[str, Any]:
        """The index manifest's record (``source["rel_weight_choice"]``)."""
        return {"weight": self.weight, "reason": self.reason, "queries": self.queries,
                "mrr": {str(w): round(v, 4) for w, v in self.mrr.items()}, "seconds": round(self.seconds, 1)}


def _mrr(doc: Any, rel: Any, queries: Sequence[tuple[str, set[int]]], weights: Sequence[float]) -> dict[float, float]:
    """MRR@DEPTH of ``doc + w * rel`` for each weight (rows pooled from both fields' tops)."""
    out: dict[float, list[float]] = {w: [] for w in weights}
    for text, answers in queries:
        td, tr = doc.tokenize([text])[0], rel.tokenize([text])[0]
        rows = np.unique(np.concatenate([doc.top_rows(td, DEPTH)[0], rel.top_rows(tr, DEPTH)[0]])).astype(np.int64)
        gold = np.isin(rows, list(answers))
        sd = doc.score_docs(td, rows).astype(np.float64) if len(td) and len(rows) else np.zeros(len(rows))
        sr = rel.score_docs(tr, rows).astype(np.float64) if len(tr) and len(rows) else np.zeros(len(rows))
        for w in weights:
            order = np.lexsort((rows, -(sd + w * sr)))[:DEPTH]
            hit = np.flatnonzero(gold[order])
            out[w].append(1.0 / (hit[0] + 1) if len(hit) else 0.0)
    return {w: float(np.mean(v)) if v else 0.0 for w, v in out.items()}


def _synthesised(skb: SKB) -> list[tuple[str, set[int]]]:
    """``(text, answer rows)`` of the queries synthesised for calibration ([] if none ground)."""
    from skbsearch.synth.queries import synthesize_queries

    try:
        got = synthesize_queries(skb, N_QUERIES, seed=0, spacy_model=None, max_hops=2,
                                 anchor_pool=300, max_paths=60, time_budget=5.0)
    except InputError:  # no relation template grounds on this SKB
        return []
    return [(q.text, set(q.answers)) for q in got.queries if q.answers]


def choose_rel_weight(skb: SKB, texts: Callable[[], Mapping[str, Sequence[Any]]],
                      build: Callable[[Sequence[Any]], Any]) -> RelWeightChoice:
    """The relation field's weight for ``skb`` (see the module docstring). ``texts()``: the
    ``document`` and ``relations`` texts of every node (rendered only when calibrating);
    ``build(texts)``: a one-field index with the default index's BM25 settings."""
    from skbsearch.kb.profile import description_coverage

    n = skb.num_nodes
    if not (MIN_NODES <= n <= MAX_NODES):
        return RelWeightChoice(DEFAULT_WEIGHT, f"not calibrated: {n:,} nodes (calibrates {MIN_NODES:,}..{MAX_NODES:,})")
    coverage, _ = description_coverage(skb)
    if coverage < MIN_COVERAGE:
        return RelWeightChoice(DEFAULT_WEIGHT, f"nodes are mostly bare names ({coverage:.0%} with a description): "
                               "their relation lines are their text")
    t0 = time.perf_counter()
    queries = _synthesised(skb)
    if len(queries) < MIN_QUERIES:
        return RelWeightChoice(DEFAULT_WEIGHT, f"not calibrated: {len(queries)} queries synthesised",
                               queries=len(queries), seconds=time.perf_counter() - t0)
    parts = texts()
    mrr = _mrr(build(parts["document"]), build(parts["relations"]), queries, REL_WEIGHTS)
    best = max(REL_WEIGHTS, key=lambda w: (mrr[w], w))
    weight = best if mrr[best] >= mrr[DEFAULT_WEIGHT] + MIN_GAIN else DEFAULT_WEIGHT
    return RelWeightChoice(weight, "calibrated on queries synthesised from the SKB", mrr, len(queries),
                           time.perf_counter() - t0)
