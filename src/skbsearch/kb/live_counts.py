"""A generation's relations, relation roles and edge count without reading the base's edges.

Opening a generation (:mod:`skbsearch.kb.live`) must know which relations still have edges,
each relation's source and target type (``Schema.relation_roles``) and how many edges there
are; the edge arrays themselves (10M at 1M products: a Parquet read and a pass to renumber
them) are needed only by what reads edges one by one. Where it can be exact, this module
reads those facts off the base's saved CSR graph and the segments instead, and the edge
arrays are built when first used:

- edges lost with deleted nodes: per relation, the out- and in-degrees of the deleted rows,
  less the edges between two deleted rows (counted twice);
- roles: the base's, when each relation has one source and one target type, no replaced
  node changed its type and every added edge joins those types.

Anything else (edges deleted by name, a relation the segments introduce, a role with several
types, a base without a saved graph or roles) returns ``None``: the caller then builds the
edge arrays and computes everything from them, as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import pyarrow as pa

from skbsearch.kb.graph import Graph
from skbsearch.kb.schema import INVERSE_SUFFIX
from skbsearch.kb.segments import Segment


class MergeState(Protocol):
    """What the counts read of a generation's merge after its replay
    (:class:`skbsearch.kb.live._Merge`), and the graph delta they set on it."""

    nodes: pa.Table
    segments: list[Segment]
    rel_names: list[str]
    base_row: dict[str, int]
    where: dict[str, tuple[int, int]]
    appended: dict[str, None]

    def segment_edges(self, new_of_base: np.ndarray, final: dict[str, int],
                      ) -> tuple[list[int], list[int], list[int], list[str]]:
        """The segments' surviving edges on the final rows and the relation names."""
        ...

    def set_graph_delta(self, new_of_base: np.ndarray, n_added: int, s_all: np.ndarray, r_all: np.ndarray,
                        d_all: np.ndarray, names: list[str], used: list[str]) -> None:
        """Record what the graph merge needs."""
        ...


def _types_of(table: pa.Table, rows: Sequence[int]) -> list[str]:
    return [str(t) for t in table.column("type").take(pa.array(list(rows), pa.int64())).to_pylist()]


def _types_kept(m: MergeState) -> bool:
    """Whether every replaced node (a segment's version of a base row) kept its base type."""
    replaced = [(nid, m.where[nid]) for nid in m.where if nid not in m.appended]
    if not replaced:
        return True
    base = _types_of(m.nodes, [m.base_row[nid] for nid, _ in replaced])
    new = [str(m.segments[k].nodes.column("type")[row].as_py()) for _, (k, row) in replaced]
    return base == new


def _lost(graph: Graph, rel: str, dead: np.ndarray, new_of_base: np.ndarray) -> tuple[int, int]:
    """``(base edges of rel, those touching a deleted row)``."""
    fp, fi = graph.adjacency(rel)
    ip = graph.adjacency(rel + INVERSE_SUFFIX)[0]
    fp, ip = np.asarray(fp), np.asarray(ip)
    out_deg, in_deg = fp[dead + 1] - fp[dead], ip[dead + 1] - ip[dead]
    lost = int(out_deg.sum()) + int(in_deg.sum())
    if out_deg.any():  # edges between two deleted rows were counted at both ends
        nb = np.concatenate([np.asarray(fi[fp[r]:fp[r + 1]]) for r in dead[out_deg > 0].tolist()])
        lost -= int((new_of_base[nb] < 0).sum())
    return int(fp[-1]), lost


def counts_without_edges(m: MergeState, graph: Graph | None, roles: dict[str, list[str | None]],
                         new_of_base: np.ndarray, final: dict[str, int], table: pa.Table,
                         ) -> tuple[list[str], dict[str, list[str | None]], int] | None:
    """``(relations, relation roles, edge count)`` of the merge ``m`` (a
    :class:`skbsearch.kb.live._Merge` after its replay; ``table``: the generation's nodes),
    read off the base's CSR ``graph`` and the segments, or ``None`` where that cannot be
    exact (see the module docstring). Sets ``m.graph_delta`` for the graph merge."""
    rels = list(m.rel_names)
    if (graph is None or any(seg.deleted_edges for seg in m.segments) or sorted(graph.relations) != sorted(rels)
            or any(len(roles.get(r) or []) != 2 or None in roles[r] for r in rels)):
        return None
    seg_src, seg_dst, seg_rel, names = m.segment_edges(new_of_base, final)
    if len(names) != len(rels) or not _types_kept(m):
        return None
    ends = _types_of(table, seg_src + seg_dst)
    if any([ends[i], ends[len(seg_src) + i]] != list(roles[names[c]]) for i, c in enumerate(seg_rel)):
        return None
    dead = np.flatnonzero(np.asarray(new_of_base) < 0)
    added = np.bincount(np.asarray(seg_rel, np.int64), minlength=len(names))
    used, n_edges = [], 0
    for k, r in enumerate(names):
        total, lost = _lost(graph, r, dead, new_of_base)
        if total - lost + int(added[k]) > 0:
            used.append(r)
            n_edges += total - lost + int(added[k])
    m.set_graph_delta(new_of_base, len(seg_src), np.asarray(seg_src, np.int32), np.asarray(seg_rel, np.int16),
                      np.asarray(seg_dst, np.int32), names, used)
    return used, {r: list(roles[r]) for r in used}, n_edges
