"""Indexes that follow their SKB's generations (``index.live``). An index that cannot follow
an update is never stale silently (issue 25): ``skb kb update`` names it, says why, and gives
the command that rebuilds it; the service's ``/admin/update`` answer lists it too. Catch-up
goes by the index's kind (none for an index of texts or another SKB); compaction rewrites the
indexes that follow at the SKB's generation."""

from __future__ import annotations

import json
from pathlib import Path

from live_data import build, write_jsonl
from typer.testing import CliRunner

from skbsearch.cli import app
from skbsearch.index.live import catch_up, compact_indexes, stale_indexes
from skbsearch.index.multivector import MultiVectorIndex
from skbsearch.index.sparse import BM25Index
from skbsearch.kb import SKB
from skbsearch.kb.generations import current
from skbsearch.kb.update import update
from skbsearch.server.admin import apply_update

runner = CliRunner(env={"COLUMNS": "200"})
NODES = [{"id": "p1", "type": "product", "name": "Red shoe", "description": "a red running shoe"},
         {"id": "p2", "type": "product", "name": "Blue hat", "description": "a blue sun hat"},
         {"id": "b1", "type": "brand", "name": "Acme"}]
EDGES = [{"source": "p1", "relation": "brand", "target": "b1"}]


def _kb(tmp: Path) -> Path:
    build(tmp / "src", NODES, EDGES, tmp / "kb")
    skb = SKB.load(tmp / "kb")
    BM25Index.default_for_skb(skb).save(tmp / "kb" / "indexes" / "bm25")
    # with related nodes' names a multi-vector index cannot follow (a plain one does:
    # tests/index/test_dense_live.py)
    MultiVectorIndex.from_skb(skb, size=8, stride=4, add_rel=True).save(tmp / "kb" / "indexes" / "multivector")
    return tmp / "kb"


def test_cli_update_names_the_indexes_it_leaves_stale(tmp_path: Path) -> None:
    kb = _kb(tmp_path)
    # a graph search saves the name index and the linker's tables (rebuilt on first use: never
    # reported, and `skb index --kind linker` does not exist)
    assert runner.invoke(app, ["search", str(kb), "red shoe", "-p", "graph"]).exit_code == 0
    assert {"names", "linker"} <= {d.name for d in (kb / "indexes").iterdir()}
    f = write_jsonl(tmp_path / "n.jsonl", [{"id": "p3", "type": "product", "name": "Green sock"}])
    res = runner.invoke(app, ["kb", "update", str(kb), "--nodes", str(f), "--json"])
    assert res.exit_code == 0, res.output
    stale = json.loads(res.stdout)["stale_indexes"]
    assert [(Path(s["path"]).name, s["kind"]) for s in stale] == [("multivector", "multivector")]
    assert "do not follow updates" in stale[0]["why"]
    assert stale[0]["rebuild"].startswith(f"skb index {kb} --kind multivector") and "--force" in stale[0]["rebuild"]
    assert "--add-rel" in stale[0]["rebuild"] and stale[0]["rebuild"].count("--force") == 1
    g = write_jsonl(tmp_path / "m.jsonl", [{"id": "p4", "type": "product", "name": "Tan belt"}])
    res = runner.invoke(app, ["kb", "update", str(kb), "--nodes", str(g), "-q"])
    assert res.exit_code == 0 and "multivector is stale" in res.output and "--kind multivector" in res.output
    assert "bm25" not in res.output  # the BM25 index follows: not reported
    # rebuilt as told, it is current; the next update (here through the service) leaves it stale again
    assert runner.invoke(app, ["index", str(kb), "--kind", "multivector", "--add-rel", "--force", "-q"]).exit_code == 0
    gen = current(kb)
    assert stale_indexes(kb, gen.lineage, gen.content_hash) == []
    out = apply_update(kb, {"delete_nodes": ["p4"]})
    assert [Path(s["path"]).name for s in out["stale_indexes"]] == ["multivector"]


def test_catch_up_follows_by_kind_and_compaction_rewrites_what_follows(tmp_path: Path) -> None:
    kb = _kb(tmp_path)
    bm25 = BM25Index.load(kb / "indexes" / "bm25")
    before = SKB.load(kb)
    assert catch_up(bm25, before) is bm25 and catch_up(bm25, None) is bm25  # current; no SKB
    assert compact_indexes(before) == []  # nothing to rewrite
    texts = BM25Index.build(["red shoe"], ["x"])
    update(kb, nodes=write_jsonl(tmp_path / "p9.jsonl", [{"id": "p9", "type": "product", "name": "Grey scarf"}]))
    live = SKB.load(kb)
    caught = catch_up(bm25, live)
    assert caught is not bm25 and caught.doc_ids == live.ids and "p9" in caught.doc_ids
    assert caught.source["skb_hash"] == live.meta["content_hash"]
    assert catch_up(texts, live) is texts  # an index of texts: nothing to follow
    # compaction rewrites the BM25 index (it follows); the multi-vector one (--add-rel) cannot
    # follow and is left as it is (it raised, and stopped `skb kb compact`)
    mv_manifest = (kb / "indexes" / "multivector" / "manifest.json").read_bytes()
    assert compact_indexes(live) == [kb / "indexes" / "bm25"]
    assert (kb / "indexes" / "multivector" / "manifest.json").read_bytes() == mv_manifest
    assert BM25Index.load(kb / "indexes" / "bm25").source["skb_hash"] == live.meta["content_hash"]
    assert compact_indexes(SKB.from_columns(["a"], ["t"], ["A"])) == []  # in memory: no indexes


def test_stale_indexes_skip_what_they_cannot_read_or_that_is_current(tmp_path: Path) -> None:
    kb = _kb(tmp_path)
    gen_hash = SKB.load(kb).meta["content_hash"]
    assert stale_indexes(kb, [gen_hash], gen_hash) == []  # built at this generation
    assert stale_indexes(tmp_path / "nowhere", [gen_hash], "later") == []
    (kb / "indexes" / "broken").mkdir()
    (kb / "indexes" / "broken" / "manifest.json").write_text("{not json", encoding="utf-8")
    stale = stale_indexes(kb, [gen_hash, "later"], "later")
    assert [(Path(s["path"]).name, s["kind"]) for s in stale] == [("multivector", "multivector")]
    assert stale_indexes(kb, ["another-lineage", "later"], "later") == []  # not built from this SKB
