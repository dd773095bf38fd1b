"""Open one generation whole: a base plus its delta segments merged into one node table and
one set of edge arrays, as if the final data had been built from scratch.

The merge replays the segments in order (within a segment: deleted nodes, deleted edges,
upserted nodes, added edges). Rows come in the order a full build of the final records
would give them, were the records kept in a list updated in place: a replaced node keeps
its row, a new (or deleted and re-added) node goes after all others, a deleted node's row
is gone. Every consumer of an SKB (predicates, documents, the CSR graph, indexes, stages
that break ties by row) therefore sees exactly the SKB a rebuild would give. Relations keep the
base's numbering (those with no edge left drop out; new ones follow in order of first use):
an update never renumbers the relations it leaves, so what a server built for the previous
generation stays valid. Node look-ups touch only the ids the segments name (hashed, and
the base ids scanned once against them), and the base's memory-mapped node table is
sliced, not copied, around the rows that changed. The base's edge arrays are read only
when the generation's edges are needed: its relations, roles and edge count come off the
base's saved graph where exact (:mod:`skbsearch.kb.live_counts`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from skbsearch.kb.arrays import positions
from skbsearch.kb.graph import Graph
from skbsearch.kb.graph_merge import GraphDelta
from skbsearch.kb.live_counts import counts_without_edges
from skbsearch.kb.schema import RESERVED_COLUMNS, Schema
from skbsearch.kb.segments import Segment

Edges = tuple[np.ndarray, np.ndarray, np.ndarray]


class _Merge:
    """The replay state: which version of each touched id is live, which edges survive."""

    def __init__(self, nodes: pa.Table, edges: Edges | Callable[[], Edges], schema: Schema,
                 segments: Sequence[Segment]):
        self.nodes, self.segments = nodes, list(segments)
        self.nb = nodes.num_rows
        self._base_edges = edges  # the base's edge arrays, or what reads them when first needed
        self.base_alive = np.ones(self.nb, bool)
        self.rel_names = list(schema.relations)
        self.where: dict[str, tuple[int, int]] = {}  # live touched id -> its data (segment, row)
        self.appended: dict[str, None] = {}  # live ids with no base row, in insertion order
        self.gone: set[str] = set()
        self.seg_edges: list[tuple[list[str], list[str], list[str]]] = []
        self.seg_edge_alive: list[np.ndarray] = []
        named: set[str] = set()
        for s in self.segments:
            named.update(s.deleted_nodes)
            named.update(x for e in s.deleted_edges for x in (e[0], e[2]))
            named.update(s.nodes.column("id").to_pylist())
            named.update(s.edges.column("src").to_pylist())
            named.update(s.edges.column("dst").to_pylist())
        ordered = sorted(named)
        rows = positions(ordered, nodes.column("id").combine_chunks()) if ordered else np.zeros(0, np.int64)
        self.base_row = {nid: int(r) for nid, r in zip(ordered, rows, strict=True)}
        self._bkey: np.ndarray | None = None

    @cached_property
    def _edge_arrays(self) -> Edges:
        e = self._base_edges() if callable(self._base_edges) else self._base_edges
        return (np.asarray(e[0]), np.asarray(e[1]), np.asarray(e[2]))

    @property
    def src(self) -> np.ndarray:
        return self._edge_arrays[0]

    @property
    def rel(self) -> np.ndarray:
        return self._edge_arrays[1]

    @property
    def dst(self) -> np.ndarray:
        return self._edge_arrays[2]

    @cached_property
    def edge_alive(self) -> np.ndarray:
        """Per base edge: not explicitly deleted (a deleted node's edges go with its row)."""
        return np.ones(len(self.src), bool)

    def _live(self, nid: str) -> bool:
        return nid in self.where or (nid not in self.gone and self.base_row.get(nid, -1) >= 0)

    def _delete_nodes(self, ids: list[str]) -> None:
        for nid in ids:
            if nid not in self.appended and self.base_row.get(nid, -1) >= 0:
                self.base_alive[self.base_row[nid]] = False
            self.appended.pop(nid, None)
            self.where.pop(nid, None)
            self.gone.add(nid)
        # (the base edges of a deleted node go with its row: :meth:`edges` keeps only edges
        # between surviving rows, and a deleted row never comes back, even if its id does)
        dead = set(ids)
        for (s, _, t), alive in zip(self.seg_edges, self.seg_edge_alive, strict=True):
            for i in range(len(s)):
                if s[i] in dead or t[i] in dead:
                    alive[i] = False

    def _delete_edges(self, triples: list[tuple[str, str, str]]) -> None:
        dead = set(triples)
        wanted = set()
        for s, r, t in triples:
            a, b = self.base_row.get(s, -1), self.base_row.get(t, -1)
            if a >= 0 and b >= 0 and r in self.rel_names:
                wanted.add((a * self.nb + b, self.rel_names.index(r)))
        if wanted and len(self.src):
            if self._bkey is None:
                self._bkey = self.src.astype(np.int64) * self.nb + self.dst.astype(np.int64)
            cand = np.flatnonzero(np.isin(self._bkey, np.array([k for k, _ in wanted], np.int64)))
            for i in cand:
                if (int(self._bkey[i]), int(self.rel[i])) in wanted:
                    self.edge_alive[i] = False
        for (ss, rs, ts), alive in zip(self.seg_edges, self.seg_edge_alive, strict=True):
            for j in range(len(ss)):
                if (ss[j], rs[j], ts[j]) in dead:
                    alive[j] = False

    def replay(self) -> None:
        """Apply every segment in order."""
        for k, seg in enumerate(self.segments):
            self._delete_nodes(seg.deleted_nodes)
            self._delete_edges(seg.deleted_edges)
            for row, nid in enumerate(seg.nodes.column("id").to_pylist()):
                if not self._live(nid):
                    self.appended[nid] = None
                self.gone.discard(nid)
                self.where[nid] = (k, row)
            e = seg.edges
            self.seg_edges.append((e.column("src").to_pylist(), e.column("relation").to_pylist(),
                                   e.column("dst").to_pylist()))
            self.seg_edge_alive.append(np.ones(e.num_rows, bool))

    # ------------------------------------------------------------------ the result
    def _final_rows(self) -> tuple[np.ndarray, dict[str, int]]:
        n_alive = int(self.base_alive.sum())
        new_of_base = np.full(self.nb, -1, np.int64)
        new_of_base[self.base_alive] = np.arange(n_alive)
        final = {nid: n_alive + i for i, nid in enumerate(self.appended)}
        for nid in self.where:
            if nid not in final:
                final[nid] = int(new_of_base[self.base_row[nid]])
        return new_of_base, final

    def edges(self, new_of_base: np.ndarray, final: dict[str, int]) -> tuple[Edges, list[str]]:
        """The surviving edges on the final rows; relations numbered as in the base (those
        still with edges), the segments' new relations after them in order of first use:
        an update never renumbers the relations that stay."""
        seg_src, seg_dst, seg_rel, names = self.segment_edges(new_of_base, final)
        # the base's surviving edges, renumbered straight into the output arrays (in int32:
        # half the memory traffic), the segments' few edges after them
        nob = new_of_base.astype(np.int32)
        src, dst, rel = self.src, self.dst, self.rel
        if len(src):
            live_node = nob >= 0
            keep = self.edge_alive & live_node[src] & live_node[dst]
            if not keep.all():
                src, dst, rel = src[keep], dst[keep], rel[keep]
        n_base = len(src)
        s_all, d_all = np.empty(n_base + len(seg_src), np.int32), np.empty(n_base + len(seg_src), np.int32)
        r_all = np.empty(n_base + len(seg_src), np.int16)  # the SKB's relation codes are int16
        np.take(nob, src, out=s_all[:n_base], mode="clip")
        np.take(nob, dst, out=d_all[:n_base], mode="clip")
        r_all[:n_base] = rel
        s_all[n_base:], d_all[n_base:], r_all[n_base:] = seg_src, seg_dst, seg_rel
        used = [names[c] for c in np.flatnonzero(_present(r_all, len(names)))]
        self.set_graph_delta(new_of_base, len(seg_src), s_all, r_all, d_all, names, used)
        remap = np.full(len(names), -1, np.int64)
        for i, nm in enumerate(used):
            remap[names.index(nm)] = i
        identity = bool(np.array_equal(remap, np.arange(len(names))))
        r_out = r_all if identity else remap[r_all]
        return ((s_all, r_out.astype(np.int16, copy=False), d_all), used)

    def segment_edges(self, new_of_base: np.ndarray, final: dict[str, int],
                      ) -> tuple[list[int], list[int], list[int], list[str]]:
        """The segments' surviving edges on the final rows (sources, targets, relation codes)
        and the relation names the codes index (the base's, then new ones)."""
        code = {r: i for i, r in enumerate(self.rel_names)}

        def row_of(nid: str) -> int:
            return final[nid] if nid in final else int(new_of_base[self.base_row[nid]])

        seg_src, seg_dst, seg_rel = [], [], []
        for (s, r, t), alive in zip(self.seg_edges, self.seg_edge_alive, strict=True):
            idx = np.flatnonzero(alive).tolist()
            seg_src += [row_of(s[i]) for i in idx]
            seg_dst += [row_of(t[i]) for i in idx]
            seg_rel += [code.setdefault(r[i], len(code)) for i in idx]
        return seg_src, seg_dst, seg_rel, list(code)

    def set_graph_delta(self, new_of_base: np.ndarray, n_added: int, s_all: np.ndarray, r_all: np.ndarray,
                        d_all: np.ndarray, names: list[str], used: list[str]) -> None:
        """What :func:`skbsearch.kb.graph_merge.merged_graph` needs: explicitly deleted base
        edges between surviving nodes, and the segments' surviving edges (final rows)."""
        n_final = int((new_of_base >= 0).sum()) + len(self.appended)
        d = GraphDelta(n_final, new_of_base, relations=used)
        gone = np.flatnonzero(~self.edge_alive) if "edge_alive" in self.__dict__ else np.zeros(0, np.intp)
        if len(gone):
            gone = gone[(new_of_base[self.src[gone]] >= 0) & (new_of_base[self.dst[gone]] >= 0)]
        for r in np.unique(self.rel[gone]) if len(gone) else []:
            g = gone[self.rel[gone] == r]
            d.dropped[self.rel_names[int(r)]] = (self.src[g].astype(np.int64), self.dst[g].astype(np.int64))
        if n_added:
            first = len(s_all) - n_added
            for c in np.unique(r_all[first:]):
                m = np.flatnonzero(r_all[first:] == c) + first
                d.added[names[int(c)]] = (s_all[m], d_all[m])
        self.graph_delta = d

    def table(self) -> pa.Table:
        """The base's surviving rows (zero-copy slices; a replaced node's row from its
        segment), then the appended nodes in insertion order."""
        replaced = sorted((self.base_row[nid], self.where[nid]) for nid in self.where
                          if nid not in self.appended)
        pieces, at = [], 0
        for b, (k, row) in [*replaced, (self.nb, (-1, -1))]:
            pieces += self._base_runs(at, b)
            if k >= 0:
                pieces.append(self.segments[k].nodes.slice(row, 1))
            at = b + 1
        for nid in self.appended:
            k, row = self.where[nid]
            pieces.append(self.segments[k].nodes.slice(row, 1))
        pieces = [_plain_type(p) for p in pieces] or [_plain_type(self.nodes.slice(0, 0))]
        out = pa.concat_tables(pieces, promote_options="permissive")
        i = out.column_names.index("type")
        return out.set_column(i, "type", pc.dictionary_encode(out.column("type").combine_chunks()))

    def _base_runs(self, a: int, b: int) -> list[pa.Table]:
        """Slices of the surviving base rows in ``[a, b)``."""
        if a >= b:
            return []
        alive = self.base_alive[a:b]
        if alive.all():
            return [self.nodes.slice(a, b - a)]
        edges = np.flatnonzero(np.diff(np.concatenate(([0], alive.astype(np.int8), [0]))))
        return [self.nodes.slice(a + int(x), int(y - x)) for x, y in zip(edges[::2], edges[1::2], strict=True)]


def _present(codes: np.ndarray, n: int) -> np.ndarray:
    """Which of the codes ``0 .. n-1`` occur (in cache-sized pieces: no array-long temporaries)."""
    seen = np.zeros(n, bool)
    for a in range(0, len(codes), 1 << 18):
        seen[codes[a:a + (1 << 18)]] = True
    return seen


def _plain_type(table: pa.Table) -> pa.Table:
    i = table.column_names.index("type")
    return table.set_column(i, "type", table.column("type").cast(pa.string()))


def merge(nodes: pa.Table, edges: Edges | Callable[[], Edges], schema: Schema, segments: Sequence[Segment],
          graph: Graph | None = None) -> tuple[pa.Table, Edges | Callable[[], Edges], Schema, GraphDelta, int]:
    """The node table, edge arrays, schema, graph delta and edge count of ``base + segments``
    (see the module docstring). ``edges``: the base's edge arrays, or what reads them;
    ``graph``: the base's CSR graph, if saved. Where the generation's relations, their roles
    and its edge count can be read off ``graph`` and the segments
    (:func:`skbsearch.kb.live_counts.counts_without_edges`), the edge arrays are returned as a
    function that builds them when first called; else as arrays (roles left to the caller)."""
    m = _Merge(nodes, edges, schema, segments)
    m.replay()
    new_of_base, final = m._final_rows()
    table = m.table()
    quick = counts_without_edges(m, graph, schema.relation_roles, new_of_base, final, table)
    out_edges: Edges | Callable[[], Edges]
    if quick is None:
        out_edges, relations = m.edges(new_of_base, final)
        roles, n_edges = None, len(out_edges[0])
    else:
        relations, roles, n_edges = quick
        out_edges = lambda: m.edges(new_of_base, final)[0]  # noqa: E731
    text = list(schema.text_fields)
    for seg in segments:
        text += [f for f in seg.text_fields if f not in text]
    text = [f for f in text if f in table.column_names]
    # ids, names and attributes in one chunk each (per-row look-ups on a table of a thousand
    # slices would search the chunks every time); the long text columns stay zero-copy slices
    table = pa.table({c: table.column(c) if c in text else table.column(c).combine_chunks()
                      for c in table.column_names})
    attrs = {c: str(table.schema.field(c).type) for c in table.column_names
             if c not in RESERVED_COLUMNS and c not in text}
    types = sorted({str(t) for t in table.column("type").combine_chunks().dictionary.to_pylist()})
    out = Schema(node_types=types, relations=relations, text_fields=text, attributes=attrs)
    if roles is not None:
        out.relation_roles = roles
    return table, out_edges, out, m.graph_delta, n_edges
