"""What a new generation's snapshot takes over from the one it replaces, so that a reload
costs what the update changed, not what the SKB holds (issue 31).

A generation differs from the previous one by a few segments (``skb kb update``). The
indexes that follow updates are caught up from the previous snapshot's loaded ones (only the
new segments' documents are tokenised; :meth:`Snapshot.inherit`), and the values the graph
stage shares — its type graph, its exact-name tables, its answer types, which text fields
describe nodes (``kb.descriptive``), all functions of the node rows, their types, names and
text fields and of the edges — are taken over whole when
the new segments change none of those (an update that only re-prices products, say), and
the type graph (node types and edges only) and the descriptive fields (text only) when they
change names but no row, type or edge (a renaming): a shallow copy pointing at the new SKB,
never the old object, so the old snapshot and its SKB are freed when its last request ends. Anything else is built again as on a fresh load;
either way a search answers exactly what a fresh load of the generation answers.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from skbsearch.core.errors import SkbError
from skbsearch.index.bm25_docs import source_texts
from skbsearch.index.bm25_live import pending_affected, pending_segments, upserted_or_deleted
from skbsearch.kb.descriptive import carry_descriptive_fields
from skbsearch.kb.segments import Segment
from skbsearch.kb.store import SKB

#: Stage-context keys of values that read node rows, types, names, text fields and edges only
#: (``retrieve.graph.retriever``); an ``skb`` attribute of theirs is pointed at the new SKB.
GRAPH_KEYS = ("type-graph", "exact-names", "answer-types")
#: Those of :data:`GRAPH_KEYS` that read neither names nor text fields.
NAMELESS_KEYS = ("type-graph",)


def new_segments(old: SKB, new: SKB, root: Path) -> list[Segment] | None:
    """The segments ``new`` applies on top of ``old`` (an earlier generation of the same
    build), in order; ``None`` when ``old`` is not an ancestor of ``new``."""
    return pending_segments(new, (old.meta or {}).get("content_hash"), root)


def rows_of(skb: SKB, ids: Sequence[str]) -> np.ndarray:
    """The row of each of a few ``ids`` in ``skb`` (-1: none), from its id look-up (made
    before a snapshot is served, carried by a generation whose rows did not move): no scan
    of every id as :func:`skbsearch.kb.arrays.positions` would make (~6 ms at 100K, six a
    reload)."""
    return np.array([skb.index_of(i) if skb.has_node(i) else -1 for i in ids], np.int64)


def changed_values(old: SKB, new: SKB, segments: Sequence[Segment]) -> set[str] | None:
    """What ``new`` (``old`` plus ``segments``) changed of ``old``'s node values when it has
    the same node rows in the same order, the same types, relations, text columns and edges:
    ``"name"`` (a name changed), ``"text"`` (a text field did), neither (attribute values
    only), or ``None`` when the rows, types or edges changed. Only the rows the segments
    upsert are compared (the others are ``old``'s)."""
    if any(s.deleted_nodes or s.deleted_edges or s.edges.num_rows for s in segments):
        return None
    if (old.num_nodes != new.num_nodes or old.num_edges != new.num_edges
            or list(old.type_names) != list(new.type_names)
            or list(old.schema.relations) != list(new.schema.relations)
            or list(old.schema.text_fields) != list(new.schema.text_fields)):
        return None
    ids = sorted({i for s in segments for i in s.nodes.column("id").to_pylist()})
    if not ids:
        return set()
    rows = rows_of(old, ids)
    if (rows < 0).any() or not (rows_of(new, ids) == rows).all():
        return None  # a new node (appended row) or a moved one
    if not (old.node_type_codes[rows] == new.node_type_codes[rows]).all():
        return None
    changed = set()
    for col in ("name", *old.schema.text_fields):
        have = col in old.nodes.column_names
        if have != (col in new.nodes.column_names):
            return None
        if have and [old.cell(col, r) for r in rows] != [new.cell(col, r) for r in rows]:
            changed.add("name" if col == "name" else "text")
    return changed


def carried_graph_values(old_context: Any, new: SKB, changed: set[str] | None = None) -> dict[str, Any]:
    """The graph stage's shared values of ``old_context`` (those built so far) that ``new``
    leaves as they were, each a shallow copy whose ``skb`` is ``new``; ``changed``: what
    :func:`changed_values` says (not ``None``; the caller checks). Attribute values only:
    every value of :data:`GRAPH_KEYS` and the descriptive fields; new names or text: the type
    graph (node types and edges only), and the descriptive fields when no text changed."""
    changed = set() if changed is None else changed
    if "text" not in changed:
        carry_descriptive_fields(old_context.kb, new)  # the same text columns
    out: dict[str, Any] = {}
    for key in GRAPH_KEYS if not changed else NAMELESS_KEYS:
        value = old_context.shared_value(key)
        if value is None:
            continue
        value = copy.copy(value)  # the old snapshot's object stays as it is
        if isinstance(getattr(value, "skb", None), SKB):
            value.skb = new
        out[key] = value
    return out


def unchanged_index(index: Any, old: SKB, new: SKB, segments: Sequence[Segment]) -> Any | None:
    """``index`` (a BM25 index over ``old``) as an index over ``new``, when every document of
    it reads the same over both: a shallow copy recording ``new``'s generation, its postings
    and scores shared (they are exactly what a catch-up would compute). Only the rows the
    segments touch are rendered again (upserted nodes, and the nodes whose relation lines
    name them), and compared. ``None`` when a document differs, or the index cannot tell;
    for a ``new`` whose :func:`changed_values` is empty (the caller checks)."""
    stats = getattr(index, "term_stats", None)
    affected = pending_affected(segments)
    source = dict(getattr(index, "source", None) or {})
    if stats is None or affected is None or source.get("skb_hash") != (old.meta or {}).get("content_hash"):
        return None
    ids = sorted(upserted_or_deleted(segments) | affected)
    rows = rows_of(old, ids)
    rows = rows[rows >= 0]
    try:
        for f in stats.fields:
            if source_texts(old, rows, source, stats.fields, only=f) != source_texts(new, rows, source, stats.fields, only=f):
                return None
    except SkbError:  # a layout this index kind cannot render again: caught up as usual
        return None
    out = copy.copy(index)
    out.source = {**source, "skb_hash": (new.meta or {}).get("content_hash")}
    return out
