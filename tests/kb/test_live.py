"""One generation opened whole (``kb.live``): a base and its segments merged as a build of the
final records, row for row (a replaced node keeps its row, a new or re-added one goes last, a
deleted one is gone with its edges; deleted edges gone, added ones named by id).

One relation numbering that updates keep (issue 31): a generation numbers its relations as
its base does (a loader's order of first use, not name order), relations that lose every
edge leave the list, and relations a segment introduces come after the base's, in order of
first use; the edges are those of a build of the final records either way."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parent))
from live_data import apply, build, content, write_jsonl  # noqa: E402

from skbsearch.kb import SKB  # noqa: E402
from skbsearch.kb.live import merge  # noqa: E402
from skbsearch.kb.segments import Segment  # noqa: E402
from skbsearch.kb.update import update  # noqa: E402

#: not in name order, as the catalogue generator and the KG loaders number them
RELATIONS = ["has_brand", "also_bought", "rare", "also_viewed"]
NODES = ([{"id": f"p{i}", "type": "product", "name": f"product {i}"} for i in range(6)]
         + [{"id": "b0", "type": "brand", "name": "brand 0"}])
EDGES = ([{"source": f"p{i}", "relation": "has_brand", "target": "b0"} for i in range(6)]
         + [{"source": "p0", "relation": "also_bought", "target": "p1"},
            {"source": "p2", "relation": "rare", "target": "p3"},
            {"source": "p4", "relation": "also_viewed", "target": "p5"}])


def _base(root: Path) -> None:
    ids = [n["id"] for n in NODES]
    row = {nid: i for i, nid in enumerate(ids)}
    src = np.array([row[e["source"]] for e in EDGES], np.int32)
    dst = np.array([row[e["target"]] for e in EDGES], np.int32)
    rel = np.array([RELATIONS.index(e["relation"]) for e in EDGES], np.int16)
    SKB.from_columns(ids, [n["type"] for n in NODES], [n["name"] for n in NODES],
                     edges=(src, rel, dst), relations=RELATIONS).save(root)


def test_updates_keep_the_bases_relation_numbering(tmp_path: Path) -> None:
    root = tmp_path / "skb"
    _base(root)
    assert SKB.load(root).schema.relations == RELATIONS
    steps = [
        # a re-price: nothing about relations changes
        {"upsert": [{"id": "p1", "type": "product", "name": "product 1", "price": 3.0}]},
        # p2 deleted: "rare" loses its one edge; two new relations, the later-named first
        {"delete_nodes": ["p2"], "add_edges": [{"source": "p0", "relation": "zz_new", "target": "p1"},
                                               {"source": "p3", "relation": "aa_new", "target": "b0"}]},
        {"add_edges": [{"source": "p4", "relation": "also_bought", "target": "p0"}]},
    ]
    want = [RELATIONS, ["has_brand", "also_bought", "also_viewed", "zz_new", "aa_new"],
            ["has_brand", "also_bought", "also_viewed", "zz_new", "aa_new"]]
    nodes, edges = list(NODES), list(EDGES)
    for k, step in enumerate(steps):
        files = {}
        if step.get("upsert"):
            files["nodes"] = write_jsonl(tmp_path / f"n{k}.jsonl", step["upsert"])
        if step.get("add_edges"):
            files["edges"] = write_jsonl(tmp_path / f"e{k}.jsonl", step["add_edges"])
        if step.get("delete_nodes"):
            files["delete_nodes"] = tmp_path / f"d{k}.txt"
            files["delete_nodes"].write_text("".join(i + "\n" for i in step["delete_nodes"]), encoding="utf-8")
        update(root, **files)
        nodes, edges = apply(nodes, edges, **step)
        got = SKB.load(root)
        assert got.schema.relations == want[k], k
        assert set(got.schema.relation_roles) <= set(want[k])
        ref = build(tmp_path / f"in{k}", nodes, edges, tmp_path / f"ref{k}.skb")
        assert content(got) == content(ref), k  # the same edges, by name, as a build
        assert sorted(got.schema.relations) == sorted(ref.schema.relations)


def _small() -> SKB:
    return SKB.from_columns(["a", "b", "c", "d"], ["t", "t", "u", "u"], ["A", "B", "C", "D"],
                            fields={"text": ["ta", None, "tc", "td"]}, attributes={"n": [1, 2, 3, 4]},
                            edges=(np.array([0, 1, 2, 0]), ["r", "r", "s", "r"], np.array([2, 3, 3, 1])))


def _seg(nodes: dict[str, list], edges: Sequence[tuple[str, str, str]] = (), deleted: Sequence[str] = (),
         unlinked: Sequence[tuple[str, str, str]] = (), text_fields: Sequence[str] = ()) -> Segment:
    return Segment(nodes=pa.table(nodes) if nodes else pa.table({"id": pa.array([], pa.string())}),
                   edges=pa.table({"src": [e[0] for e in edges], "relation": [e[1] for e in edges],
                                   "dst": [e[2] for e in edges]},
                                  schema=pa.schema([("src", pa.string()), ("relation", pa.string()),
                                                    ("dst", pa.string())])),
                   deleted_nodes=list(deleted), deleted_edges=list(unlinked), text_fields=list(text_fields))


def _merged(skb: SKB, segments: list[Segment]) -> tuple[pa.Table, list[tuple[str, str, str]], list[str], int]:
    table, edges, schema, _, n_edges = merge(skb.nodes, (skb.edge_src, skb.edge_rel, skb.edge_dst), skb.schema,
                                             segments)
    src, rel, dst = edges() if callable(edges) else edges
    ids = table.column("id").to_pylist()
    triples = [(ids[s], schema.relations[r], ids[d]) for s, r, d in zip(src, rel, dst, strict=True)]
    return table, triples, schema.relations, n_edges


def test_merge_keeps_rows_as_a_build_of_the_final_records() -> None:
    seg = _seg({"id": ["b", "e"], "type": ["t", "v"], "name": ["B2", "E"], "text": ["new b", "te"], "n": [20, 50]},
               edges=[("e", "q", "a")], deleted=["c"], text_fields=["text"])
    table, edges, relations, n_edges = _merged(_small(), [seg])
    assert table.to_pydict() == {"id": ["a", "b", "d", "e"], "type": ["t", "t", "u", "v"], "name": ["A", "B2", "D", "E"],
                                 "text": ["ta", "new b", "td", "te"], "n": [1, 20, 4, 50]}
    # c's edges went with it; b was replaced, its edges kept; "s" lost its only edge
    assert sorted(edges) == [("a", "r", "b"), ("b", "r", "d"), ("e", "q", "a")] and n_edges == 3
    assert relations == ["r", "q"]


def test_merge_replays_segments_in_order() -> None:
    first = _seg({}, deleted=["a"], unlinked=[("b", "r", "d")])
    second = _seg({"id": ["a"], "type": ["t"], "name": ["A again"]}, edges=[("a", "r", "d"), ("d", "s", "b")])
    table, edges, relations, _ = _merged(_small(), [first, second])
    assert table.column("id").to_pylist() == ["b", "c", "d", "a"]  # deleted, then re-added: last
    assert table.column("name").to_pylist() == ["B", "C", "D", "A again"]
    assert sorted(edges) == [("a", "r", "d"), ("c", "s", "d"), ("d", "s", "b")]
    assert relations == ["r", "s"]


def test_merge_of_no_segment_is_the_base() -> None:
    skb = _small()
    table, edges, relations, n_edges = _merged(skb, [])
    assert table.to_pydict() == skb.nodes.cast(table.schema).to_pydict() and n_edges == 4
    assert relations == skb.schema.relations
