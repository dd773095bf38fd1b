"""The CSR graph of a generation: the base's saved adjacency merged with the segments' edges.

Rebuilding a generation's graph from its edge arrays sorts every edge (``Graph.build``). The
merge instead reads the base's memory-mapped CSR arrays, drops the entries of deleted nodes
and deleted edges, renumbers the rest (surviving rows keep their relative order, so every row
stays sorted) and inserts the few edges the segments added at their sorted places: linear in
the number of edges, with no sort of the base.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from skbsearch.kb.graph import Graph
from skbsearch.kb.schema import INVERSE_SUFFIX

Pairs = tuple[np.ndarray, np.ndarray]


@dataclass
class GraphDelta:
    """How a generation's edges differ from its base's.

    Attributes:
        n_final: nodes of the generation.
        new_of_base: final row of each base row (-1: deleted).
        dropped: per relation, base ``(src, dst)`` rows of explicitly deleted edges.
        added: per relation, final ``(src, dst)`` rows of the segments' surviving edges.
        relations: the generation's relations.
    """

    n_final: int
    new_of_base: np.ndarray
    dropped: dict[str, Pairs] = field(default_factory=dict)
    added: dict[str, Pairs] = field(default_factory=dict)
    relations: list[str] = field(default_factory=list)


def _merge_step(indptr: np.ndarray, indices: np.ndarray, d: GraphDelta, drop: Pairs | None,
                add: Pairs | None) -> tuple[np.ndarray, np.ndarray]:
    n_base = len(indptr) - 1
    rows = np.repeat(np.arange(n_base, dtype=np.int64), np.diff(np.asarray(indptr)))
    cols = np.asarray(indices, dtype=np.int64)
    keep = (d.new_of_base[rows] >= 0) & (d.new_of_base[cols] >= 0)
    if drop is not None and len(drop[0]):
        keep &= ~np.isin(rows * max(n_base, 1) + cols, drop[0] * max(n_base, 1) + drop[1])
    r, c = d.new_of_base[rows[keep]], d.new_of_base[cols[keep]]
    if add is not None and len(add[0]):
        order = np.lexsort((add[1], add[0]))
        ar, ac = add[0][order], add[1][order]
        at = np.searchsorted(r * d.n_final + c, ar * d.n_final + ac, side="right")
        r, c = np.insert(r, at, ar), np.insert(c, at, ac)
    out = np.zeros(d.n_final + 1, np.int64)
    np.cumsum(np.bincount(r, minlength=d.n_final), out=out[1:])
    return out, c.astype(np.int32)


def merged_graph(base: Graph, d: GraphDelta) -> Graph:
    """The generation's :class:`Graph` from the base's and the delta (see the module docstring)."""
    csr = {}
    empty = (np.zeros(base.n_nodes + 1, np.int64), np.zeros(0, np.int32))
    for rel in d.relations:
        fwd = base.adjacency(rel) if rel in base.relations else empty
        bwd = base.adjacency(rel + INVERSE_SUFFIX) if rel in base.relations else empty
        drop, add = d.dropped.get(rel), d.added.get(rel)
        csr[rel] = _merge_step(*fwd, d, drop, add)
        csr[rel + INVERSE_SUFFIX] = _merge_step(*bwd, d, None if drop is None else (drop[1], drop[0]),
                                                None if add is None else (add[1], add[0]))
    return Graph(d.n_final, d.relations, csr)
