"""What `skb kb info` and `skb kb show` report: an SKB's counts per type and relation,
degree statistics and one node's neighbourhood (as data), and the relations table (printed)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from skbsearch.cli.kb_profile import inferred
from skbsearch.cli.output import console
from skbsearch.core.errors import InputError

if TYPE_CHECKING:
    from skbsearch.kb.store import SKB


def type_counts(names: list[str], codes: np.ndarray) -> dict[str, int]:
    """How many rows carry each code of ``codes``, by its name in ``names``."""
    if not names:
        return {}
    c = np.bincount(codes.astype(np.int64), minlength=len(names))
    return {n: int(c[i]) for i, n in enumerate(names)}


def _degree_stats(deg: np.ndarray) -> dict[str, float]:
    if len(deg) == 0:
        return {"mean": 0.0, "median": 0.0, "max": 0, "zero": 0}
    return {
        "mean": round(float(deg.mean()), 3),
        "median": float(np.median(deg)),
        "max": int(deg.max()),
        "zero": int(np.count_nonzero(deg == 0)),
    }


def _dominant_types(skb: SKB, ends: np.ndarray) -> list[tuple[str, float]]:
    """Per relation, the most common type at one end of its edges and that type's share."""
    n_types = max(len(skb.type_names), 1)
    n_rel = len(skb.schema.relations)
    key = skb.edge_rel.astype(np.int64) * n_types + skb.node_type_codes[ends].astype(np.int64)
    pairs, counts = np.unique(key, return_counts=True)
    rel, typ = pairs // n_types, pairs % n_types
    totals = np.bincount(rel, weights=counts, minlength=n_rel)
    best = np.full(n_rel, -1, np.int64)
    best_count = np.zeros(n_rel)
    for r, t, c in zip(rel.tolist(), typ.tolist(), counts.tolist(), strict=True):
        if c > best_count[r]:
            best[r], best_count[r] = t, c
    return [(skb.type_names[b] if b >= 0 else "-", float(best_count[r] / totals[r]) if totals[r] else 0.0)
            for r, b in enumerate(best.tolist())]


def kb_info(path: Path) -> dict[str, Any]:
    """Counts per type and relation, and degree statistics, of the SKB at ``path``."""
    from skbsearch.kb import SKB

    skb = SKB.load(path)
    n = skb.num_nodes
    deg = np.bincount(skb.edge_src, minlength=n) + np.bincount(skb.edge_dst, minlength=n)
    heads, tails = _dominant_types(skb, skb.edge_src), _dominant_types(skb, skb.edge_dst)
    raw_ids = skb.meta.get("relation_ids") or {}
    order = np.argsort(skb.edge_rel, kind="stable")
    bounds = np.searchsorted(skb.edge_rel[order], np.arange(len(skb.schema.relations) + 1))
    rels = []
    for r, name in enumerate(skb.schema.relations):
        sel = order[bounds[r]:bounds[r + 1]]
        src, dst = skb.edge_src[sel], skb.edge_dst[sel]
        u_src, out_deg = np.unique(src, return_counts=True)
        roles = skb.schema.relation_roles.get(name, [None, None])
        row = {
            "relation": name,
            "edges": int(len(sel)),
            "sources": int(len(u_src)),
            "targets": int(len(np.unique(dst))),
            "source type": roles[0] or "(mixed)",
            "target type": roles[1] or "(mixed)",
            "main source type": heads[r][0], "main source share": round(heads[r][1], 4),
            "main target type": tails[r][0], "main target share": round(tails[r][1], 4),
            "max out-degree": int(out_deg.max()) if len(out_deg) else 0,
        }
        if name in raw_ids:
            row["id"] = raw_ids[name]
        rels.append(row)
    return {
        "path": str(path),
        "nodes": n,
        "edges": skb.num_edges,
        "node_types": type_counts(skb.type_names, skb.node_type_codes),
        "relations": rels,
        "degree": _degree_stats(deg),
        "text_fields": list(skb.schema.text_fields),
        "attributes": dict(skb.schema.attributes),
        "source": skb.meta.get("source"),
        "inferred": inferred(skb),
    }


def _share(name: str, share: float) -> str:
    return name if share >= 0.995 else f"{name} {share:.0%}"


def largest_rows(rows: list[dict[str, Any]], key: str, limit: int, title: str) -> tuple[list[dict[str, Any]], str]:
    """All rows (when they are fewer than ``limit`` or it is 0), or the ``limit`` with the
    largest ``key``, largest first, with a title saying how many of how many."""
    if limit <= 0 or len(rows) <= limit:
        return rows, title
    top = sorted(rows, key=lambda r: -r[key])[:limit]
    return top, f"{title}: the {limit} largest of {len(rows):,}"


def print_relations(rels: list[dict[str, Any]], ids: bool = False, title: str = "relations") -> None:
    """The relations table, readable at 80 columns: long names fold in their own wide
    column, the ends show each side's main type (with its share when not all), numbers
    never wrap; with ``ids``, raw ids (of an SKB imported from ids) on a dim line below."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    has_ids = any(r.get("id") for r in rels)
    title += " (raw ids: --ids)" if has_ids and not ids else ""
    table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False, expand=False)
    table.add_column("relation", ratio=3, overflow="fold", min_width=16)
    table.add_column("edges", justify="right", no_wrap=True)
    table.add_column("from → to (main types)", ratio=2, overflow="fold", min_width=14)
    table.add_column("max out", justify="right", no_wrap=True)
    for r in rels:
        name = Text(r["relation"])
        if ids and r.get("id") and r["id"] != r["relation"]:
            name.append("\n" + r["id"], style="dim")
        ends = (f"{_share(r['main source type'], r['main source share'])} → "
                f"{_share(r['main target type'], r['main target share'])}")
        table.add_row(name, f"{r['edges']:,}", Text(ends), f"{r['max out-degree']:,}")
    console.print(table)


def kb_show(path: Path, node_id: str, limit: int = 20) -> dict[str, Any]:
    """One node: fields, its rendered document, and neighbours grouped by relation."""
    from skbsearch.documents import DocumentRenderer
    from skbsearch.kb import SKB

    skb = SKB.load(path)
    if not skb.has_node(node_id):
        names = skb.column("name")
        hits = [skb.ids[i] for i, nm in enumerate(names) if nm == node_id][:5]
        hint = f"; nodes named {node_id!r} have ids {hits}" if hits else ""
        raise InputError(f"no node with id {node_id!r} in {path}{hint}", field="id")
    i = int(skb.index_of(node_id))
    node = skb.node(i)
    doc = DocumentRenderer(add_rel=True).render(skb, i)
    names, types, codes = skb.column("name"), skb.type_names, skb.node_type_codes
    neighbours: dict[str, Any] = {}
    for base in skb.schema.relations:
        for rel in (base, base + "^-1"):
            offsets, nb = skb.graph.neighbors([i], [rel], "out")
            if len(nb) == 0:
                continue
            neighbours[rel] = {
                "count": int(len(nb)),
                "nodes": [
                    {"id": skb.ids[int(j)], "name": names[int(j)], "type": types[int(codes[int(j)])]}
                    for j in nb[: limit if limit > 0 else None]
                ],
            }
    return {
        "id": node.id,
        "type": node.type,
        "name": node.name,
        "fields": node.fields,
        "attributes": node.attributes,
        "document": doc,
        "neighbors": neighbours,
    }


def node_label(x: dict[str, str]) -> str:
    """A neighbour as shown: its id, or ``name (id …)`` when the name says more."""
    if not x["name"] or x["name"] == x["id"]:
        return x["id"]
    return f"{x['name']} (id {x['id']})"
