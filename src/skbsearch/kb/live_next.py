"""Open a generation from an earlier one already open: only the segments after it applied.

A served SKB moves by one small segment at a time (``skb kb update``). Opening each new
generation whole (:func:`skbsearch.kb.store_files.read_generation`) reads and replays every
pending segment again, so a reload grows with the segments since the last compaction. When
the previous generation is in memory, :func:`read_after` treats it as the base of the merge
(:func:`skbsearch.kb.live.merge`) and applies only the new segments: the merge's semantics
compose (rows kept in a list updated in place; relations numbered as before, new ones after),
so the result is the SKB a whole open gives — the same node table, schema, meta, row map to
the base (``new_of_base``), CSR graph and edges.

Where composing could differ from a whole open it is not tried (``None``; the caller opens
the generation whole): another base (a compaction since), segments that are not an extension
of the previous generation's, or new segments that bring a column or a relation the previous
generation lacks (their place in a whole open depends on every segment's rows).
"""

from __future__ import annotations

import copy
import weakref
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pyarrow as pa

from skbsearch.kb.generations import SEGMENTS_DIR, Generation
from skbsearch.kb.graph import Graph
from skbsearch.kb.graph_merge import GraphDelta, merged_graph
from skbsearch.kb.live import Edges, merge
from skbsearch.kb.schema import Schema
from skbsearch.kb.segments import Segment, read_segment
from skbsearch.kb.store_files import GENERATION_KEYS, Opened, read_generation, read_plain


class Served(Protocol):
    """What a new generation is opened from: the served :class:`~skbsearch.kb.store.SKB`
    (a Protocol, so that this module, which ``kb.store`` imports, does not import it back)."""

    nodes: pa.Table
    schema: Schema
    meta: dict[str, Any]
    new_of_base: np.ndarray | None

    @property
    def graph(self) -> Graph:
        """The CSR graph."""

    @property
    def num_nodes(self) -> int:
        """Node count."""

    @property
    def num_edges(self) -> int:
        """Edge count."""

    @property
    def edge_src(self) -> np.ndarray:
        """Edge sources."""

    @property
    def edge_rel(self) -> np.ndarray:
        """Edge relation codes."""

    @property
    def edge_dst(self) -> np.ndarray:
        """Edge targets."""

    def index_of(self, node_ids: str | Iterable[str]) -> int | np.ndarray:
        """The row of one id, or of each of many (its id look-up)."""


def read_newest(path: Path, gen: Generation | None, *, mmap: bool = True, previous: Served | None = None) -> Opened:
    """What :meth:`skbsearch.kb.store.SKB.load` opens: the plain directory (``gen`` ``None``),
    generation ``gen`` from ``previous`` (:func:`read_after`) where it can be, else whole."""
    got = read_after(path, gen, previous, mmap=mmap) if gen is not None and previous is not None else None
    if got is not None:
        return got
    return read_plain(path, mmap=mmap) if gen is None else read_generation(path, gen, mmap=mmap)


def new_segment_entries(gen: Generation, prev: Served) -> list[dict[str, str]] | None:
    """The manifest entries of the segments ``gen`` has after ``prev``'s generation (none:
    ``prev`` is ``gen``), or ``None`` when ``prev`` is no generation of ``gen``'s base up to
    ``gen``."""
    meta = prev.meta or {}
    had = list(meta.get("segments") or [])
    base_hash = meta.get("base_hash") if "generation" in meta else meta.get("content_hash")
    names = [s["name"] for s in gen.segments]
    if base_hash != gen.base_hash or len(had) > len(names) or names[:len(had)] != had:
        return None
    return gen.segments[len(had):]


def _fits(prev: Served, segs: list[Segment]) -> bool:
    """Whether the segments bring no column and no relation ``prev`` lacks."""
    cols = set(prev.nodes.column_names)
    rels = set(prev.schema.relations)
    return all(set(s.nodes.column_names) <= cols and set(s.edges.column("relation").to_pylist()) <= rels
               for s in segs)


def read_after(path: Path, gen: Generation, prev: Served, *, mmap: bool = True) -> Opened | None:
    """Generation ``gen`` of the SKB directory ``path``, opened from ``prev`` (an earlier
    generation of it, in memory) by applying the segments after ``prev``'s only; ``None``
    where that cannot give exactly what :func:`read_generation` gives (see the module
    docstring). The result holds nothing of ``prev`` but shared Arrow buffers: its CSR graph
    is merged from ``prev``'s on first use, and its edge arrays, if ever read one by one, are
    ``prev``'s when the new segments add and delete nothing and ``prev`` is still alive, else
    come from a whole open of ``gen`` (which fails with an ``ArtefactError`` once a compaction
    has collected ``gen``'s segments: a server has moved to the compacted generation by then)."""
    entries = new_segment_entries(gen, prev)
    if entries is None:
        return None
    if not entries:
        return _same(prev, gen)
    segs = [read_segment(path / SEGMENTS_DIR / s["name"], s["content_hash"]) for s in entries]
    if not _fits(prev, segs):
        return None
    prev_graph = prev.graph
    table, edges, schema, delta, n_edges = merge(prev.nodes, lambda: _edges_of(prev), prev.schema, segs,
                                                 prev_graph)
    meta = _meta(prev, gen, table.num_rows, n_edges)
    prev_rows = prev.new_of_base if prev.new_of_base is not None else np.arange(prev.num_nodes)
    step = np.asarray(delta.new_of_base)
    new_of_base = np.where(prev_rows >= 0, step[np.maximum(prev_rows, 0)], -1).astype(step.dtype)
    changed = None  # no row moved: the rows the new segments upsert are all that changed
    if table.num_rows == prev.num_nodes and np.array_equal(step, np.arange(len(step))):
        ids = sorted({i for s in segs for i in s.nodes.column("id").to_pylist()})
        changed = np.asarray(prev.index_of(ids), np.int64)
    whole: Callable[[], Edges] | None = None
    if callable(edges):  # (a lazy merge would hold ``prev`` until its edges are read)
        whole = _whole_edges(path, gen, mmap)
        if not any(s.edges.num_rows or s.deleted_nodes or s.deleted_edges for s in segs):
            whole = _previous_edges(prev, whole)
    return Opened(table, schema, meta, None if callable(edges) else edges, whole, merged=True,
                  new_of_base=new_of_base, graph_factory=_once_graph(prev_graph, delta), changed_rows=changed)


def _meta(prev: Served, gen: Generation, num_nodes: int, num_edges: int) -> dict[str, Any]:
    meta = {k: v for k, v in prev.meta.items() if k not in GENERATION_KEYS}
    meta.update(generation=gen.number, content_hash=gen.content_hash, base_hash=gen.base_hash,
                lineage=list(gen.lineage), segments=[s["name"] for s in gen.segments],
                num_nodes=num_nodes, num_edges=num_edges)
    return meta


def _same(prev: Served, gen: Generation) -> Opened:
    """``prev``'s generation ``gen`` again (what an update reads while a server serves the
    newest generation): its tables and graph shared, its schema and meta copied."""
    graph = prev.graph
    return Opened(prev.nodes, copy.deepcopy(prev.schema), _meta(prev, gen, prev.num_nodes, prev.num_edges),
                  None, lambda: _edges_of(prev), merged=True, new_of_base=prev.new_of_base,
                  graph_factory=lambda: graph, changed_rows=np.zeros(0, np.int64))


def _edges_of(prev: Served) -> Edges:
    return prev.edge_src, prev.edge_rel, prev.edge_dst


def _whole_edges(path: Path, gen: Generation, mmap: bool) -> Callable[[], Edges]:
    """What reads generation ``gen``'s edge arrays from disk (a whole open, on first call)."""
    def read() -> Edges:
        got = read_generation(path, gen, mmap=mmap)
        if got.edges is not None:
            return got.edges
        assert got.edges_loader is not None
        return got.edges_loader()
    return read


def _previous_edges(prev: Served, whole: Callable[[], Edges]) -> Callable[[], Edges]:
    """What reads the edge arrays of a generation whose new segments add and delete nothing:
    ``prev``'s own (the same rows, relation codes and order; no copy, no read of every
    segment from disk) while ``prev`` lives — held by a weak reference, so the new generation
    never keeps the served one in memory — else ``whole``."""
    ref = weakref.ref(prev)

    def read() -> Edges:
        p = ref()
        return _edges_of(p) if p is not None else whole()
    return read


def _once_graph(graph: Graph, delta: GraphDelta) -> Callable[[], Graph]:
    """The merged graph's factory (called once), letting go of the previous graph as it runs."""
    held = [(graph, delta)]

    def build() -> Graph:
        g, d = held.pop()
        return merged_graph(g, d)
    return build


#: the SKB's row look-ups, valid while the rows (node ids in order) do not move
_ROW_CACHES = ("ids", "ids_array", "_index")


def carried_caches(cached: dict[str, Any], old: pa.Table, new: pa.Table,
                   changed_rows: np.ndarray | None = None) -> dict[str, Any]:
    """What a generation opened from the served one can keep of its caches (``cached``: the
    served SKB's ``__dict__``): the id look-ups when the node ids did not move, and each cached
    column list whose column is unchanged — so that a value-only update does not rebuild
    100K-entry Python lists before it is served (~0.08 s of CPU at 100K nodes).

    ``changed_rows`` (:class:`~skbsearch.kb.store_files.Opened`): the rows are known not to
    have moved and only these rows' values can differ, so a column is compared there only
    (comparing whole text columns of hundreds of slices cost ~10 ms a reload at 100K)."""
    out: dict[str, Any] = {}
    same_rows = changed_rows is not None or old.column("id").equals(new.column("id"))
    if same_rows:
        out.update({k: cached[k] for k in _ROW_CACHES if k in cached})
    columns = cached.get("_columns") or {}
    kept = {c: v for c, v in columns.items() if same_rows and c in new.column_names
            and c in old.column_names and _unchanged(old, new, c, v, changed_rows)}
    if kept:
        out["_columns"] = kept
    return out


def _unchanged(old: pa.Table, new: pa.Table, name: str, values: list[Any], rows: np.ndarray | None) -> bool:
    """Whether column ``name`` holds the same values in both tables (``values``: ``old``'s as a
    list); with ``rows``, only those rows can differ."""
    if rows is None:
        return bool(old.column(name).equals(new.column(name)))
    col = new.column(name)
    return old.schema.field(name).type == col.type and all(values[r] == col[r].as_py() for r in rows.tolist())
