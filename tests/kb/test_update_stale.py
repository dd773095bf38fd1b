"""An index that cannot follow an update is never stale silently (issue 25): ``skb kb
update`` names it, says why, and gives the command that rebuilds it; the service's
``/admin/update`` answer lists it too."""

from __future__ import annotations

import json
from pathlib import Path

from live_data import build, write_jsonl
from typer.testing import CliRunner

from skbsearch.cli import app
from skbsearch.index.live import stale_indexes
from skbsearch.index.multivector import MultiVectorIndex
from skbsearch.index.sparse import BM25Index
from skbsearch.kb import SKB
from skbsearch.kb.generations import current
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
    # tests/kb/test_update_multivector.py)
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
