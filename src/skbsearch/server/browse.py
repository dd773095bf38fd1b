"""What the explorer shows of an SKB: the overview (``GET /kb``) and a node page (``GET /nodes/{id}``).

Both read only the in-memory snapshot (the Arrow node table, the edge arrays and the CSR
graph); a node id is a dictionary lookup and never reaches the file system.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import numpy as np

from skbsearch.core.errors import InputError
from skbsearch.kb.schema import INVERSE_SUFFIX

if TYPE_CHECKING:
    from skbsearch.kb.store import SKB

#: Highest-degree nodes listed in the overview.
TOP_DEGREE = 10


def kb_overview(skb: SKB) -> dict[str, Any]:
    """Counts per node type and relation, the schema as observed, degree statistics.

    ``schema.relations`` lists every (relation, source type, target type) that occurs,
    with its edge count: the diagram the explorer draws (types as boxes, relations as
    arrows). ``degree`` summarises each node's number of edges (both directions).
    """
    types = skb.type_names
    codes = skb.node_type_codes.astype(np.int64)
    counts = np.bincount(codes, minlength=len(types))
    rels = list(skb.schema.relations)
    edge_counts = np.bincount(skb.edge_rel.astype(np.int64), minlength=len(rels))
    degree = (np.bincount(skb.edge_src, minlength=skb.num_nodes)
              + np.bincount(skb.edge_dst, minlength=skb.num_nodes)).astype(np.int64)
    return {
        "nodes": skb.num_nodes, "edges": skb.num_edges,
        "node_types": {t: int(counts[i]) for i, t in enumerate(types) if counts[i]},
        "relations": rels,
        "edge_counts": {r: int(edge_counts[i]) for i, r in enumerate(rels)},
        "text_fields": list(skb.schema.text_fields),
        "attributes": list(skb.schema.attributes),
        "schema": {"types": [{"name": t, "count": int(counts[i])} for i, t in enumerate(types)
                             if counts[i]],
                   "relations": _relation_roles(skb, codes, len(types))},
        "degree": _summary(degree),
        "degree_by_type": _degree_by_type(degree, codes, types, counts),
        "top_degree": _top_degree(skb, degree, codes),
        "relation_ids": dict(skb.meta.get("relation_ids") or {}),
        "examples": _examples(skb, codes, counts, degree),
    }


def overview_with_attributes(overview: dict[str, Any], skb: SKB) -> dict[str, Any]:
    """:func:`kb_overview` of ``skb`` from the ``overview`` of an SKB with the same nodes,
    types, names and edges (an earlier generation whose update changed attribute values
    only): what reads attributes is made again, the rest is kept."""
    examples = {**overview["examples"], "where": _where_example(skb)} if skb.num_nodes else overview["examples"]
    return {**overview, "attributes": list(skb.schema.attributes),
            "relation_ids": dict(skb.meta.get("relation_ids") or {}), "examples": examples}


def _quote(word: str) -> str:
    return word if re.fullmatch(r"[A-Za-z_][\w-]*", word) else repr(word)


def _examples(skb: SKB, codes: np.ndarray, counts: np.ndarray, degree: np.ndarray) -> dict[str, Any]:
    """Placeholders for the explorer's inputs, taken from this SKB: the best-connected node
    of the largest type (a query), a predicate over a real attribute (or None when the SKB
    has none) and a pipeline spec targeting the largest type."""
    if not skb.num_nodes:
        return {"query": None, "where": None, "spec": "bm25 % 20"}
    big = int(np.argmax(counts))
    rows = np.flatnonzero(codes == big)
    i = int(rows[np.argmax(degree[rows])])
    name = skb.cell("name", i) or skb.ids[i]
    return {"query": name[:80], "where": _where_example(skb),
            "spec": f"bm25 + graph(target=[{_quote(skb.type_names[big])}]) % 20"}


def _where_example(skb: SKB) -> str | None:
    numeric = ("int", "uint", "double", "float", "decimal")
    for attr, kind in skb.schema.attributes.items():
        if not re.fullmatch(r"[A-Za-z_]\w*", attr):
            continue
        values = skb.nodes.column(attr).drop_null().slice(0, 1000).to_pylist()
        if not values:
            continue
        if kind.startswith(numeric) and not isinstance(values[0], bool):
            return f"{attr} < {np.median(values):.4g}"
        if isinstance(values[0], str) and "'" not in values[0] and len(values[0]) <= 40:
            return f"{attr} = '{values[0]}'"
    return None


def _degree_by_type(degree: np.ndarray, codes: np.ndarray, types: list[str],
                    counts: np.ndarray) -> dict[str, dict[str, float]]:
    """Degree summary per type: one sort by type, then a slice a type (a mask a type would
    scan every node once per type: minutes for thousands of types over millions of nodes)."""
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(len(types) + 1))
    by_type = degree[order]
    return {t: _summary(by_type[bounds[i]:bounds[i + 1]]) for i, t in enumerate(types) if counts[i]}


#: Most (relation, source type, target type) rows the overview lists (the largest first).
MAX_SCHEMA_ROWS = 5000


def _relation_roles(skb: SKB, codes: np.ndarray, n_types: int) -> list[dict[str, Any]]:
    if not skb.num_edges:
        return []
    st = codes[skb.edge_src]
    dt = codes[skb.edge_dst]
    key = (skb.edge_rel.astype(np.int64) * n_types + st) * n_types + dt
    uniq, n = np.unique(key, return_counts=True)
    if len(uniq) > MAX_SCHEMA_ROWS:  # thousands of types: the busiest rows only
        top = np.sort(np.argsort(-n, kind="stable")[:MAX_SCHEMA_ROWS])
        uniq, n = uniq[top], n[top]
    types, rels = skb.type_names, skb.schema.relations
    out = []
    for k, c in zip(uniq.tolist(), n.tolist(), strict=True):
        rel, rest = divmod(k, n_types * n_types)
        src, dst = divmod(rest, n_types)
        out.append({"relation": rels[rel], "source": types[src], "target": types[dst],
                    "count": int(c)})
    return out


def _summary(values: np.ndarray) -> dict[str, float]:
    if len(values) == 0:
        return {"min": 0, "median": 0, "mean": 0.0, "p95": 0, "max": 0}
    return {"min": int(values.min()), "median": float(np.median(values)),
            "mean": round(float(values.mean()), 3), "p95": float(np.percentile(values, 95)),
            "max": int(values.max())}


def _top_degree(skb: SKB, degree: np.ndarray, codes: np.ndarray) -> list[dict[str, Any]]:
    if len(degree) == 0:
        return []
    top = np.argsort(-degree, kind="stable")[:TOP_DEGREE]
    names = skb.column("name")
    return [{"id": skb.ids[int(i)], "name": names[int(i)] or "",
             "type": skb.type_names[int(codes[int(i)])], "degree": int(degree[int(i)])}
            for i in top if degree[int(i)] > 0]


def node_page(skb: SKB, i: int, *, offset: int, limit: int,
              relation: str | None = None) -> tuple[dict[str, list[str]], list[dict[str, Any]]]:
    """A node's neighbours, grouped by relation and direction, one page of each.

    Args:
        skb: the SKB.
        i: the node's internal index.
        offset, limit: the page of every relation's neighbours (sorted by node order).
        relation: only this relation (``r`` for out-going edges, ``r^-1`` for in-coming).

    Returns:
        ``({relation: [ids]}, [{relation, base, direction, total, offset, limit, nodes}])``
        with only the relations the node has edges of.

    Raises:
        InputError: an unknown ``relation`` (the message lists them).
    """
    names, codes = skb.column("name"), skb.node_type_codes
    wanted = [r for base in skb.schema.relations for r in (base, base + INVERSE_SUFFIX)]
    if relation is not None:
        if relation not in wanted:
            raise InputError(f"unknown relation {relation[:100]!r}; relations: "
                             f"{', '.join(wanted)}", field="relation")
        wanted = [relation]
    ids: dict[str, list[str]] = {}
    groups: list[dict[str, Any]] = []
    for rel in wanted:
        _, nbrs = skb.graph.neighbors([i], [rel], "out")
        if not len(nbrs):
            continue
        page = nbrs[offset: offset + limit]
        inverse = rel.endswith(INVERSE_SUFFIX)
        ids[rel] = skb.id_of(page)
        groups.append({
            "relation": rel, "base": rel.removesuffix(INVERSE_SUFFIX),
            "direction": "in" if inverse else "out", "total": int(len(nbrs)),
            "offset": offset, "limit": limit,
            "nodes": [{"id": skb.ids[int(j)], "name": names[int(j)] or "",
                       "type": skb.type_names[int(codes[int(j)])]} for j in page],
        })
    return ids, groups
