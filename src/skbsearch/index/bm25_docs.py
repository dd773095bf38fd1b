"""The texts a BM25 index of an SKB is built from, per field, for all nodes or some rows.

:meth:`skbsearch.index.sparse.BM25Index.from_skb` indexes every node with these texts and
:mod:`skbsearch.index.bm25_live` re-tokenises the rows an update touched with the very same
function, so a caught-up index holds what a rebuild would.

Layouts (the index's ``source`` records which):

- no ``fields``, no ``add_rel``: one field ``document``, the node rendered (type, name, text fields);
- no ``fields``, ``add_rel`` and ``rel_weight``: ``document`` as above plus ``relations``, the
  node's relation lines (names of related nodes, at most ``max_per_relation`` per relation);
- no ``fields``, ``add_rel`` alone: one ``document`` with the relation lines inside;
- ``fields``: one field per node column, plus ``relations`` with ``add_rel``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from skbsearch.core.errors import ArtefactError, InputError
from skbsearch.kb.arrays import take_rows

if TYPE_CHECKING:
    from skbsearch.kb.store import SKB


def _column(skb: SKB, name: str, rows: np.ndarray | None) -> list[Any]:
    if rows is None:
        return list(skb.column(name))
    if name not in skb.nodes.column_names:
        return [None] * len(rows)
    return take_rows(skb.nodes.column(name), np.asarray(rows, dtype=np.int64)).to_pylist()


def relation_texts(skb: SKB, rows: np.ndarray | None, max_per_relation: int) -> list[str]:
    """Each node's relation lines (no name line): the ``relations`` field."""
    from skbsearch.documents import DocumentRenderer

    rel = DocumentRenderer(fields=[], add_rel=True, include_type=False,
                           max_per_relation=max_per_relation).render_many(skb, rows)
    return [d.partition("\n")[2] for d in rel]  # drop the name line


def field_texts(skb: SKB, rows: np.ndarray | None = None, *, fields: Sequence[str] | None = None,
                add_rel: bool = False, rel_weight: float | None = None, max_per_relation: int = 10,
                only: str | None = None) -> dict[str, list[Any]]:
    """``{field: texts}`` of ``rows`` (all nodes when ``None``), in the layout the arguments
    name (see the module docstring); ``only``: just that field."""
    from skbsearch.documents import DocumentRenderer

    split = fields is None and add_rel and rel_weight is not None
    if fields is None and not split:
        renderer = DocumentRenderer(add_rel=add_rel, max_per_relation=max_per_relation)
        return {"document": renderer.render_many(skb, rows)}
    if fields is None:
        names = ["document", "relations"]
    else:
        names = [f.strip() for f in fields if f.strip()]
        if not names:
            raise InputError("no fields given", field="fields")
        names += ["relations"] if add_rel else []
    out: dict[str, list[Any]] = {}
    for f in names if only is None else [only]:
        if f == "relations" and add_rel:
            out[f] = relation_texts(skb, rows, max_per_relation)
        elif fields is None:
            out[f] = DocumentRenderer().render_many(skb, rows)
        else:
            out[f] = _column(skb, f, rows)
    return out


def skb_source(skb: SKB, *, fields: Sequence[str] | None, add_rel: bool, rel_weight: float | None,
               max_per_relation: int) -> dict[str, Any]:
    """The manifest's ``source`` of a BM25 index of every node of ``skb`` in the layout the
    arguments name (whatever engine built it: one record, so the builds compare equal)."""
    from pathlib import Path

    split = fields is None and add_rel and rel_weight is not None
    path = getattr(skb, "path", None)
    return {
        "kind": "skb",
        "path": str(Path(path).absolute()) if path else None,
        "num_nodes": int(skb.num_nodes),
        "skb_hash": (getattr(skb, "meta", None) or {}).get("content_hash"),
        "fields": list(fields) if fields is not None else None,
        "add_rel": add_rel,
        "max_per_relation": max_per_relation,
        "rel_weight": rel_weight if split else None,
        "node_order": True,  # row i is node i (see BM25Index.in_node_order)
    }


def source_texts(skb: SKB, rows: np.ndarray, source: dict[str, Any], fields: list[str],
                 only: str) -> list[Any]:
    """The texts of field ``only`` of ``rows`` as an index with this ``source`` (its
    manifest) and these ``fields`` was built from them; an index over one column as the
    single field ``document`` (the linker's name index) included."""
    cols = source.get("fields")
    if cols is not None and fields == ["document"] and len(cols) == 1:
        return _column(skb, cols[0], rows)
    add_rel, split = bool(source.get("add_rel")), source.get("rel_weight") is not None
    layout = (["document"] if cols is None and not split else ["document", "relations"] if cols is None
              else [c for c in cols] + (["relations"] if add_rel else []))
    if layout != fields:
        raise ArtefactError(f"index fields {fields} do not match its source's {layout}; rebuild the index")
    return field_texts(skb, rows, fields=cols, add_rel=add_rel, rel_weight=source.get("rel_weight"),
                       max_per_relation=int(source.get("max_per_relation", 10)), only=only)[only]
