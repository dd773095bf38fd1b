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

from skbsearch.kb.graph import Graph, rows_unique_sorted
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


#: edges inserted or dropped one row look-up at a time up to this many (beyond: one sorted pass)
_FEW_EDGES = 20_000


def _entries_of(indptr: np.ndarray, indices: np.ndarray, pairs: Pairs) -> np.ndarray:
    """Positions in a CSR with sorted rows of every entry ``(src, dst)`` of ``pairs`` (all copies)."""
    out = [np.arange(indptr[s] + np.searchsorted(indices[indptr[s]:indptr[s + 1]], t, side="left"),
                     indptr[s] + np.searchsorted(indices[indptr[s]:indptr[s + 1]], t, side="right"))
           for s, t in zip(pairs[0].tolist(), pairs[1].tolist(), strict=True)]
    return np.concatenate(out) if out else np.zeros(0, np.int64)


def _insert_places(indptr: np.ndarray, indices: np.ndarray, ar: np.ndarray, ac: np.ndarray) -> np.ndarray:
    """Where entries ``(ar, ac)`` (sorted) go in a CSR with sorted rows: after equal entries."""
    if len(ar) > _FEW_EDGES:
        n = max(len(indptr) - 1, 1)
        rows = np.repeat(np.arange(len(indptr) - 1, dtype=np.int64), np.diff(indptr))
        return np.searchsorted(rows * n + indices, ar * n + ac, side="right")
    return np.array([indptr[r] + np.searchsorted(indices[indptr[r]:indptr[r + 1]], c, side="right")
                     for r, c in zip(ar.tolist(), ac.tolist(), strict=True)], np.int64)


def _still_unique(indptr: np.ndarray, indices: np.ndarray, rows: np.ndarray) -> bool:
    """Whether ``rows`` of a CSR (the only ones that can have changed) are strictly increasing."""
    if len(rows) > _FEW_EDGES:
        return rows_unique_sorted(indptr, indices)
    return all(bool(np.all(np.diff(indices[indptr[r]:indptr[r + 1]]) > 0)) for r in np.unique(rows).tolist())


def _merge_step(indptr: np.ndarray, indices: np.ndarray, d: GraphDelta, drop: Pairs | None,
                add: Pairs | None, alive: np.ndarray, nob32: np.ndarray,
                unique: bool) -> tuple[np.ndarray, np.ndarray, bool]:
    """One relation's CSR: entries of deleted rows, of deleted columns and ``drop`` removed (a
    mask, then the survivors renumbered by ``nob32``, the new row of each base row, -1: gone),
    ``add`` inserted at their sorted places. ``alive``: ``nob32 >= 0``. Also whether its rows
    are sorted without repeats, from the base's (``unique``; dropping keeps it, an insert is
    checked in its row)."""
    indptr = np.asarray(indptr, np.int64)
    indices = np.asarray(indices)
    deg = np.diff(indptr)
    keep = np.repeat(alive, deg)
    keep &= alive[indices]
    if drop is not None and len(drop[0]):
        if len(drop[0]) > _FEW_EDGES:
            n = max(len(indptr) - 1, 1)
            rows = np.repeat(np.arange(len(indptr) - 1, dtype=np.int64), deg)
            keep &= ~np.isin(rows * n + indices, np.asarray(drop[0], np.int64) * n + drop[1])
        else:
            keep[_entries_of(indptr, indices, drop)] = False
    gone = np.flatnonzero(~keep)
    lost = np.bincount(np.searchsorted(indptr, gone, side="right") - 1, minlength=len(deg))
    counts = np.zeros(d.n_final, np.int64)
    counts[nob32[alive]] = (deg - lost)[alive]
    c = nob32[indices[keep] if len(gone) else indices]
    out = np.zeros(d.n_final + 1, np.int64)
    np.cumsum(counts, out=out[1:])
    if add is not None and len(add[0]):
        order = np.lexsort((add[1], add[0]))
        ar, ac = add[0][order].astype(np.int64), add[1][order].astype(np.int64)
        c = np.insert(c, _insert_places(out, c, ar, ac), ac.astype(np.int32))
        np.cumsum(counts + np.bincount(ar, minlength=d.n_final), out=out[1:])
        unique = unique and _still_unique(out, c, ar)  # (an added edge may repeat one)
    return out, c.astype(np.int32, copy=False), unique


def merged_graph(base: Graph, d: GraphDelta) -> Graph:
    """The generation's :class:`Graph` from the base's and the delta (see the module docstring):
    ``base`` itself when the delta changes no edge and moves no row (an update of node
    values only), so two generations share one graph."""
    if unchanged(base, d):
        return base
    csr, unique = {}, {}
    empty: tuple[np.ndarray, np.ndarray] = (np.zeros(base.n_nodes + 1, np.int64), np.zeros(0, np.int32))
    nob32 = np.asarray(d.new_of_base).astype(np.int32)
    alive = nob32 >= 0
    for rel in d.relations:
        drop, add = d.dropped.get(rel), d.added.get(rel)
        for step, flip in ((rel, False), (rel + INVERSE_SUFFIX, True)):
            old = rel in base.relations
            ptr, idx, unique[step] = _merge_step(*(base.adjacency(step) if old else empty), d, _flip(drop, flip),
                                                 _flip(add, flip), alive, nob32, base.unique_rows(step) if old else True)
            csr[step] = (ptr, idx)
    return Graph(d.n_final, d.relations, csr, unique)


def unchanged(base: Graph, d: GraphDelta) -> bool:
    """Whether ``d`` leaves ``base`` as it is: no edge dropped or added, the same relations,
    every row where it was."""
    return (not d.dropped and not d.added and list(d.relations) == list(base.relations)
            and d.n_final == base.n_nodes == len(d.new_of_base)
            and bool(np.array_equal(d.new_of_base, np.arange(base.n_nodes))))


def _flip(pairs: Pairs | None, flip: bool) -> Pairs | None:
    return None if pairs is None else (pairs[1], pairs[0]) if flip else pairs
