"""`skb kb update` and `skb kb compact` (cli/kb_update.py): a generation from record files
(attributes and a default type as options), its summary as text or JSON, compaction, and bad
input as one clean line. (Stale indexes named by the update: tests/index/test_live.py; the
update and compaction equal to a rebuild: tests/kb/test_update.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import assert_clean_error, invoke
from live_data import build, write_jsonl

from skbsearch.kb import SKB

NODES = [{"id": "p1", "type": "product", "name": "Red shoe", "description": "a red running shoe", "price": 50},
         {"id": "b1", "type": "brand", "name": "Acme"}]


@pytest.fixture
def skb_dir(tmp_path: Path) -> Path:
    build(tmp_path / "src", NODES, [{"source": "p1", "relation": "brand", "target": "b1"}], tmp_path / "kb")
    return tmp_path / "kb"


def test_an_update_with_attributes_and_a_default_type(skb_dir: Path, tmp_path: Path) -> None:
    nodes = write_jsonl(tmp_path / "n.jsonl", [{"id": "p2", "name": "Blue hat", "description": "wool",
                                                "colour": "blue", "sku": "B-2"}])
    r = invoke("kb", "update", skb_dir, "--nodes", nodes, "--attributes", "colour, sku",
               "--default-type", "product", "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["generation"] == 1 and out["upserted"] == 1 and out["stale_indexes"] == []
    assert out["seconds"] >= 0 and len(out["segments"]) == 1
    node = SKB.load(skb_dir).node("p2")
    assert node.type == "product" and node.attributes["colour"] == "blue"


def test_the_text_summary_unless_quiet(skb_dir: Path, tmp_path: Path) -> None:
    assert invoke("index", skb_dir, "--kind", "bm25", "-q").exit_code == 0
    dels = tmp_path / "del.txt"
    dels.write_text("b1\n", encoding="utf-8")
    r = invoke("kb", "update", skb_dir, "--delete-nodes", dels)
    assert r.exit_code == 0, r.output
    assert f"generation 1 of {skb_dir}" in " ".join(r.output.split())
    assert "0 nodes upserted, 1 deleted" in r.output
    write_jsonl(tmp_path / "n.jsonl", [{"id": "p3", "type": "product", "name": "Green cap"}])
    quiet = invoke("kb", "update", skb_dir, "--nodes", tmp_path / "n.jsonl", "-q")
    assert quiet.exit_code == 0, quiet.output
    assert quiet.output == ""  # the BM25 index follows updates: nothing stale to warn about


def test_compaction_keeps_the_data(skb_dir: Path, tmp_path: Path) -> None:
    write_jsonl(tmp_path / "n.jsonl", [{"id": "p2", "type": "product", "name": "Blue hat"}])
    assert invoke("kb", "update", skb_dir, "--nodes", tmp_path / "n.jsonl", "-q").exit_code == 0
    r = invoke("kb", "compact", skb_dir)
    assert r.exit_code == 0 and "compacted" in r.output and "generation 2" in r.output
    assert sorted(SKB.load(skb_dir).ids) == ["b1", "p1", "p2"]
    assert invoke("kb", "compact", skb_dir, "-q").output == ""
    again = json.loads(invoke("kb", "compact", skb_dir, "--json").stdout)
    assert again["generation"] == 2 and again["seconds"] >= 0  # nothing pending: no new generation


def test_bad_input_is_one_clean_line_and_changes_nothing(skb_dir: Path, tmp_path: Path) -> None:
    bad = write_jsonl(tmp_path / "bad.jsonl", [{"id": "p9", "type": "product", "price": "cheap"}])
    assert_clean_error(invoke("kb", "update", skb_dir, "--nodes", bad), "bad.jsonl", "price")
    assert_clean_error(invoke("kb", "update", tmp_path / "nowhere", "--nodes", bad), "nowhere")
    assert SKB.load(skb_dir).meta.get("generation", 0) == 0
