"""Shared helpers for the live-update tests: write record files, build the final data from
scratch, and compare two SKBs by content (ids, not row numbers)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from skbsearch.kb import SKB
from skbsearch.kb.loaders import load


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    """Write ``records`` as JSONL and return ``path``."""
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def build(dir_: Path, nodes: list[dict[str, Any]], edges: list[dict[str, Any]], out: Path) -> SKB:
    """``skb kb build`` of ``nodes`` + ``edges`` into ``out`` (the reference)."""
    dir_.mkdir(parents=True, exist_ok=True)
    write_jsonl(dir_ / "nodes.jsonl", nodes)
    write_jsonl(dir_ / "edges.jsonl", edges)
    load(dir_, "jsonl").save(out)
    return SKB.load(out)


def content(skb: SKB) -> tuple[dict[str, dict[str, Any]], list[tuple[str, str, str]]]:
    """``({id: node as dict without nulls}, sorted edges as id triples)``."""
    nodes = {}
    for rec in skb.nodes.to_pylist():
        rec = {k: (float(v) if isinstance(v, int) and not isinstance(v, bool) and k != "id" else v)
               for k, v in rec.items() if v is not None}
        nodes[rec["id"]] = rec
    t = skb.edges_table()
    edges = sorted(zip(t.column("src").to_pylist(), t.column("relation").to_pylist(),
                       t.column("dst").to_pylist(), strict=True))
    return nodes, edges


def apply(nodes: list[dict[str, Any]], edges: list[dict[str, Any]], *, upsert=(), add_edges=(),
          delete_nodes=(), delete_edges=()) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The final records after one update, by the documented semantics (the oracle)."""
    dead = set(delete_nodes)
    gone = {(e["source"], e["relation"], e["target"]) for e in delete_edges}
    by_id = {n["id"]: n for n in nodes if n["id"] not in dead}
    edges = [e for e in edges if e["source"] not in dead and e["target"] not in dead
             and (e["source"], e["relation"], e["target"]) not in gone]
    for n in upsert:
        by_id[n["id"]] = n
    return list(by_id.values()), edges + list(add_edges)
