"""kb.live_counts: a generation opened without reading its base's edges has the relations,
relation roles, edge count and (built when first used) edges of a full build of its final
records, through random updates: deleted nodes (hubs and leaves, edges between two deleted
nodes), new and replaced nodes (types kept or changed), new edges of the roles' types or
not, a relation losing all its edges, edges deleted by name (the path that reads the edges)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from live_data import apply, build, content, write_jsonl  # noqa: E402

from skbsearch.kb import SKB  # noqa: E402
from skbsearch.kb.update import update  # noqa: E402


def _base(rng: np.random.Generator, mixed: bool) -> tuple[list[dict], list[dict]]:
    nodes = ([{"id": f"p{i}", "type": "product", "name": f"product {i}"} for i in range(30)]
             + [{"id": f"b{i}", "type": "brand", "name": f"brand {i}"} for i in range(4)]
             + [{"id": f"x{i}", "type": "extra", "name": f"extra {i}"} for i in range(3)])
    edges = [{"source": f"p{i}", "relation": "has_brand", "target": f"b{i % 4}"} for i in range(30)]
    edges += [{"source": f"p{int(a)}", "relation": "also_bought", "target": f"p{int(b)}"}
              for a, b in rng.integers(0, 30, (40, 2)) if a != b]
    edges += [{"source": "p0", "relation": "rare", "target": "x0"}]  # one edge: may lose it
    if mixed:  # a role with two source types: read off the edges
        edges += [{"source": "p1", "relation": "mixed", "target": "x1"}, {"source": "b1", "relation": "mixed", "target": "x2"}]
    return nodes, edges


def _step(rng: np.random.Generator, nodes: list[dict], edges: list[dict], k: int) -> dict:
    ids = [n["id"] for n in nodes]
    dead = sorted(set(rng.choice(ids, int(rng.integers(0, 4)), replace=False).tolist()))
    alive = [i for i in ids if i not in dead]
    upsert = [{"id": f"n{k}_{j}", "type": "product", "name": f"new {k} {j}"} for j in range(int(rng.integers(0, 3)))]
    for i in rng.choice(alive, min(2, len(alive)), replace=False).tolist():
        typ = next(n["type"] for n in nodes if n["id"] == i)
        upsert.append({"id": i, "type": "brand" if rng.random() < 0.1 else typ, "name": f"renamed {i} {k}"})
    products = [i for i in alive if i.startswith("p")] + [n["id"] for n in upsert if n["type"] == "product"]
    brands = [i for i in alive if i.startswith("b")]
    anything = alive + [n["id"] for n in upsert]
    add = []
    for _ in range(int(rng.integers(0, 4))):
        rel = str(rng.choice(["has_brand", "also_bought"]))
        ends = (products, brands if rel == "has_brand" else products) if rng.random() < 0.85 else (anything, anything)
        if ends[0] and ends[1]:  # mostly of the relation's types; now and then anything
            add.append({"source": str(rng.choice(ends[0])), "relation": rel, "target": str(rng.choice(ends[1]))})
    live_edges = [e for e in edges if e["source"] in alive and e["target"] in alive]
    gone = [live_edges[int(i)] for i in rng.choice(len(live_edges), 1)] if live_edges and rng.random() < 0.2 else []
    return {"upsert": upsert, "add_edges": add, "delete_nodes": dead, "delete_edges": gone}


def _check(root: Path, tmp_path: Path, nodes: list[dict], edges: list[dict], k: int) -> SKB:
    ref = build(tmp_path / f"ref{k}", nodes, edges, tmp_path / f"ref{k}.skb")
    got = SKB.load(root)
    assert got.num_edges == ref.num_edges
    assert got.schema.relations == ref.schema.relations
    assert got.schema.relation_roles == ref.schema.relation_roles
    lazy = got._edges is None
    assert content(got) == content(ref)  # the edge arrays, built now if they were not
    assert got.num_edges == len(got.edge_src)
    got._lazy = lazy  # type: ignore[attr-defined]
    return got


def _files(tmp_path: Path, k: int, s: dict) -> dict:
    files = {"nodes": write_jsonl(tmp_path / f"n{k}.jsonl", s["upsert"]),
             "edges": write_jsonl(tmp_path / f"e{k}.jsonl", s["add_edges"])}
    (tmp_path / f"d{k}.txt").write_text("".join(i + "\n" for i in s["delete_nodes"]), encoding="utf-8")
    files["delete_nodes"] = tmp_path / f"d{k}.txt"
    if s["delete_edges"]:
        files["delete_edges"] = write_jsonl(tmp_path / f"x{k}.jsonl", s["delete_edges"])
    return files


@pytest.mark.parametrize("seed", range(8))
def test_generation_without_base_edges_equals_a_build(seed: int, tmp_path: Path) -> None:
    rng = np.random.default_rng(seed)
    nodes, edges = _base(rng, mixed=seed % 4 == 3)
    root = tmp_path / "skb"
    build(tmp_path / "in", nodes, edges, root)
    for k in range(4):
        s = _step(rng, nodes, edges, k)
        update(root, **_files(tmp_path, k, s))
        nodes, edges = apply(nodes, edges, **s)
        _check(root, tmp_path, nodes, edges, k)


def test_an_update_of_the_roles_types_opens_without_the_edges(tmp_path: Path) -> None:
    """Deleted products (edges between two of them too), a new product with its brand, a
    renamed brand: the generation is opened from the saved graph, its edges built on use."""
    nodes, edges = _base(np.random.default_rng(0), mixed=False)
    edges += [{"source": "p3", "relation": "also_bought", "target": "p4"}]
    root = tmp_path / "skb"
    build(tmp_path / "in", nodes, edges, root)
    s = {"upsert": [{"id": "n", "type": "product", "name": "new"}, {"id": "b2", "type": "brand", "name": "B2"}],
         "add_edges": [{"source": "n", "relation": "has_brand", "target": "b2"}],
         "delete_nodes": ["p3", "p4", "x0"], "delete_edges": []}  # x0: "rare" loses its one edge
    update(root, **_files(tmp_path, 0, s))
    nodes, edges = apply(nodes, edges, **s)
    got = _check(root, tmp_path, nodes, edges, 0)
    assert got._lazy and "rare" not in got.schema.relations
