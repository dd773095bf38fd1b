"""One relation numbering that updates keep (issue 31): a generation numbers its relations as
its base does (a loader's order of first use, not name order), relations that lose every
edge leave the list, and relations a segment introduces come after the base's, in order of
first use; the edges are those of a build of the final records either way."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from live_data import apply, build, content, write_jsonl  # noqa: E402

from skbsearch.kb import SKB  # noqa: E402
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
