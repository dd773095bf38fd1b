"""Opening generation N+1 from generation N in memory applies only the segments after N
(``kb.live_next``, issue 31) and gives exactly the SKB a whole open gives: node table,
schema, meta, row map to the base, CSR graph and edges."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from live_data import build, write_jsonl  # noqa: E402

import skbsearch.kb.live_next as live_next  # noqa: E402
from skbsearch.kb import SKB  # noqa: E402
from skbsearch.kb.generations import current  # noqa: E402
from skbsearch.kb.schema import INVERSE_SUFFIX  # noqa: E402
from skbsearch.kb.update import update  # noqa: E402


def _records(rng: np.random.Generator) -> tuple[list[dict], list[dict]]:
    nodes = ([{"id": f"p{i}", "type": "product", "name": f"product {i}", "price": float(i)} for i in range(30)]
             + [{"id": f"b{i}", "type": "brand", "name": f"brand {i}"} for i in range(5)])
    edges = ([{"source": f"p{i}", "relation": "has_brand", "target": f"b{i % 5}"} for i in range(30)]
             + [{"source": f"p{int(a)}", "relation": "also_bought", "target": f"p{int(b)}"}
                for a, b in rng.integers(0, 30, (25, 2))])
    return nodes, edges


def _step(rng: np.random.Generator, k: int, alive: list[str], tmp: Path) -> dict[str, Path]:
    """One random update (upserts, new nodes, deleted nodes and edges, added edges) as files."""
    files: dict[str, Path] = {}
    products = [i for i in alive if i.startswith("p")]
    up = [{"id": str(i), "type": "product", "name": f"product {i} v{k}", "price": float(rng.random())}
          for i in rng.choice(products, 3, replace=False)]
    up += [{"id": f"n{k}_{j}", "type": "product", "name": f"new {k} {j}", "price": 1.0} for j in range(2)]
    files["nodes"] = write_jsonl(tmp / f"n{k}.jsonl", up)
    ids = products + [r["id"] for r in up]
    add = [{"source": str(rng.choice(ids)), "relation": "also_bought", "target": str(rng.choice(ids))}
           for _ in range(3)] + [{"source": f"n{k}_0", "relation": "has_brand", "target": "b1"}]
    files["edges"] = write_jsonl(tmp / f"e{k}.jsonl", add)
    if k % 2:
        named = {r["id"] for r in up} | {e[x] for e in add for x in ("source", "target")}
        dead = [str(x) for x in rng.choice([p for p in products if p not in named], 2, replace=False)]
        files["delete_nodes"] = tmp / f"d{k}.txt"
        files["delete_nodes"].write_text("".join(i + "\n" for i in dead), encoding="utf-8")
    if k == 3:
        files["delete_edges"] = write_jsonl(tmp / f"x{k}.jsonl", [{"source": "n0_0", "relation": "has_brand", "target": "b1"}])
    return files


def _same(got: SKB, ref: SKB) -> None:
    assert got.nodes.equals(ref.nodes)
    assert got.schema.to_dict() == ref.schema.to_dict()
    assert got.meta == ref.meta
    assert np.array_equal(got.new_of_base, ref.new_of_base)
    assert got.graph.relations == ref.graph.relations
    for r in ref.graph.relations:
        for step in (r, r + INVERSE_SUFFIX):
            a, b = got.graph.adjacency(step), ref.graph.adjacency(step)
            assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]), step
    for a, b in zip((got.edge_src, got.edge_rel, got.edge_dst), (ref.edge_src, ref.edge_rel, ref.edge_dst),
                    strict=True):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("seed", range(3))
def test_the_next_generation_applies_only_its_new_segment(seed: int, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(seed)
    nodes, edges = _records(rng)
    root = tmp_path / "skb"
    build(tmp_path / "in", nodes, edges, root)
    read: list[str] = []
    counted = live_next.read_segment

    def counting(path: Path, content_hash: str):  # type: ignore[no-untyped-def]
        read.append(path.name)
        return counted(path, content_hash)

    whole = live_next.read_generation

    def opened_whole(*a, **k):  # type: ignore[no-untyped-def]
        read.append("whole")
        return whole(*a, **k)

    monkeypatch.setattr(live_next, "read_segment", counting)
    monkeypatch.setattr(live_next, "read_generation", opened_whole)
    prev = SKB.load(root)
    for k in range(5):
        update(root, **_step(rng, k, prev.nodes.column("id").to_pylist(), tmp_path))
        read.clear()
        got = SKB.load(root, previous=prev)
        assert read == [f"seg-{k + 1:08d}"], k  # the new segment only, not the k + 1 pending ones
        _same(got, SKB.load(root))
        read.clear()
        again = SKB.load(root, previous=got)  # the same generation (what an update reads): no segment read
        assert read == [] and again.graph is got.graph
        _same(again, SKB.load(root))
        prev = got


def test_a_new_relation_or_column_opens_the_generation_whole(tmp_path: Path) -> None:
    nodes, edges = _records(np.random.default_rng(0))
    root = tmp_path / "skb"
    build(tmp_path / "in", nodes, edges, root)
    update(root, nodes=write_jsonl(tmp_path / "a.jsonl", [{"id": "p1", "type": "product", "name": "x", "price": 2.0}]))
    prev = SKB.load(root)
    for k, kwargs in enumerate([
            {"edges": write_jsonl(tmp_path / "e.jsonl", [{"source": "p1", "relation": "aaa", "target": "p2"}])},
            {"nodes": write_jsonl(tmp_path / "c.jsonl", [{"id": "p3", "type": "product", "name": "y", "color": "red"}])}]):
        update(root, **kwargs)
        gen = current(root)
        assert live_next.new_segment_entries(gen, prev) is not None
        assert live_next.read_after(root, gen, prev) is None, k  # its place depends on every segment
        got = SKB.load(root, previous=prev)
        _same(got, SKB.load(root))
        prev = got


def test_an_update_of_values_only_shares_the_graph(tmp_path: Path) -> None:
    """No edge added or dropped, no row moved: the next generation's CSR graph is the
    previous one's object (no second copy in memory during a reload); any edge change
    merges a new one."""
    nodes, edges = _records(np.random.default_rng(0))
    root = tmp_path / "skb"
    build(tmp_path / "in", nodes, edges, root)
    prev = SKB.load(root)
    update(root, nodes=write_jsonl(tmp_path / "a.jsonl", [{"id": "p1", "type": "product", "name": "x", "price": 2.0}]))
    got = SKB.load(root, previous=prev)
    assert got.graph is prev.graph
    _same(got, SKB.load(root))
    update(root, edges=write_jsonl(tmp_path / "e.jsonl", [{"source": "p1", "relation": "has_brand", "target": "b2"}]))
    after = SKB.load(root, previous=got)
    assert after.graph is not got.graph
    _same(after, SKB.load(root))


def test_segments_that_add_and_delete_nothing_share_the_previous_edge_arrays(tmp_path: Path) -> None:
    """Renamed, re-priced and new nodes move no edge: the next generation's edge arrays are
    the previous one's (no whole open reading every segment again) while it lives, read whole
    once it is gone; an update that adds an edge gets its own arrays. All equal a whole open's."""
    import gc

    nodes, edges = _records(np.random.default_rng(0))
    root = tmp_path / "skb"
    build(tmp_path / "in", nodes, edges, root)
    prev, other = SKB.load(root), SKB.load(root)
    prev.edge_src  # noqa: B018 - read, as a server's graph stage does
    update(root, nodes=write_jsonl(tmp_path / "a.jsonl", [{"id": "p1", "type": "product", "name": "renamed"},
                                                          {"id": "n1", "type": "product", "name": "new"}]))
    got = SKB.load(root, previous=prev)
    assert got.edge_src is prev.edge_src and got.edge_dst is prev.edge_dst and got.edge_rel is prev.edge_rel
    _same(got, SKB.load(root))
    orphan = SKB.load(root, previous=other)
    del other  # gone before its successor reads edges: they are read whole
    gc.collect()
    _same(orphan, SKB.load(root))
    update(root, edges=write_jsonl(tmp_path / "e.jsonl", [{"source": "p1", "relation": "has_brand", "target": "b2"}]))
    after = SKB.load(root, previous=got)
    assert after.edge_src is not got.edge_src
    _same(after, SKB.load(root))


def test_an_update_reads_the_served_generation_and_commits_the_same(tmp_path: Path) -> None:
    """``update(previous=served)`` (the server's admin update) opens the generation it changes
    from the served SKB and commits exactly what an update of the directory alone commits."""
    import shutil

    nodes, edges = _records(np.random.default_rng(1))
    build(tmp_path / "in", nodes, edges, tmp_path / "a")
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    served = SKB.load(tmp_path / "a")
    rng = np.random.default_rng(1)
    for k in range(3):
        files = _step(rng, k, served.nodes.column("id").to_pylist(), tmp_path)
        got = update(tmp_path / "a", **files, previous=served)
        ref = update(tmp_path / "b", **files)
        assert (got.generation, got.content_hash) == (ref.generation, ref.content_hash)
        served = SKB.load(tmp_path / "a", previous=served)
        _same(served, SKB.load(tmp_path / "b"))


def test_unmoved_rows_keep_the_served_generations_look_ups(tmp_path: Path) -> None:
    """A value-only update keeps the id look-ups and every unchanged column list (the same
    objects: no 100K-entry lists rebuilt before the new generation is served); a changed
    column, or rows that moved, are read anew and equal a whole open's."""
    nodes, edges = _records(np.random.default_rng(0))
    root = tmp_path / "skb"
    build(tmp_path / "in", nodes, edges, root)
    prev = SKB.load(root)
    ids, names, prices = prev.ids, prev.column("name"), prev.column("price")
    assert prev.has_node("p1")
    update(root, nodes=write_jsonl(tmp_path / "a.jsonl", [{"id": "p1", "type": "product", "name": "product 1",
                                                          "price": 99.0}]))
    got = SKB.load(root, previous=prev)
    whole = SKB.load(root)
    assert got.ids is ids and got.column("name") is names  # carried over
    assert got.column("price") is not prices and got.column("price") == whole.column("price")
    assert got.column("price")[got.index_of("p1")] == 99.0 and prices[prev.index_of("p1")] == 1.0
    assert got.index_of("b3") == whole.index_of("b3") and got.ids_array.tolist() == whole.ids
    # a renaming: only the renamed row is compared (the rows did not move), the prices kept
    prices = got.column("price")
    update(root, nodes=write_jsonl(tmp_path / "r.jsonl", [{"id": "p2", "type": "product", "name": "renamed",
                                                          "price": prices[got.index_of("p2")]}]))
    opened = live_next.read_newest(root, current(root), previous=got)
    assert opened.changed_rows is not None and opened.changed_rows.tolist() == [got.index_of("p2")]
    renamed = SKB.load(root, previous=got)
    assert renamed.ids is ids and renamed.column("price") is prices
    assert renamed.column("name") is not names and renamed.column("name") == SKB.load(root).column("name")
    got = renamed
    update(root, nodes=write_jsonl(tmp_path / "b.jsonl", [{"id": "zz", "type": "product", "name": "new"}]))
    moved = SKB.load(root, previous=got)
    assert moved.ids is not ids and moved.ids == SKB.load(root).ids and moved.has_node("zz")
    assert moved.column("name") == SKB.load(root).column("name")
