"""An SKB directory on disk (``kb.store_files``): written atomically (a failed save keeps the
old directory), the node table memory-mapped from ``nodes.arrow`` (a damaged copy falls back
to the Parquet one), edges checked at load and on first use, every damaged or missing file
refused with its name and the rebuild command; the content hash; a generation opened whole."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest
from live_data import write_jsonl
from store_data import assert_same, small_skb

import skbsearch.kb.store_files as files_mod
from skbsearch.core.errors import ArtefactError
from skbsearch.kb import SKB, SKBBuilder
from skbsearch.kb.generations import current
from skbsearch.kb.store_files import GENERATION_KEYS, content_hash, read_generation, read_plain
from skbsearch.kb.update import update


def test_atomic_save_keeps_old_dir(tmp_path, monkeypatch) -> None:
    old = small_skb()
    old.save(tmp_path / "kb")
    b = SKBBuilder()
    b.add_node("only", "thing", "Only")
    new = b.build()
    real = files_mod.pq.write_table
    calls = []

    def failing(table, where, *args, **kwargs):
        calls.append(where)
        if len(calls) == 2:  # nodes.parquet written, edges.parquet fails
            raise OSError("disk full")
        return real(table, where, *args, **kwargs)

    monkeypatch.setattr(files_mod.pq, "write_table", failing)
    with pytest.raises(OSError, match="disk full"):
        new.save(tmp_path / "kb")
    monkeypatch.setattr(files_mod.pq, "write_table", real)
    assert len(calls) == 2
    assert [p.name for p in tmp_path.iterdir()] == ["kb"]  # no temp or .old dirs left
    assert_same(old, SKB.load(tmp_path / "kb"))
    with pytest.raises(FileExistsError, match="overwrite"):
        new.save(tmp_path / "kb", overwrite=False)
    new.save(tmp_path / "kb")
    assert SKB.load(tmp_path / "kb").ids == ["only"]
    assert [p.name for p in tmp_path.iterdir()] == ["kb"]


def test_load_maps_nodes_and_reads_edges_on_first_use(tmp_path) -> None:
    skb = small_skb()
    skb.save(tmp_path / "kb")
    before = pa.total_allocated_bytes()
    back = SKB.load(tmp_path / "kb")
    # The node table is memory-mapped from nodes.arrow: no Arrow heap memory for it.
    assert pa.total_allocated_bytes() - before < 1024
    assert back._edges is None and back.num_edges == 4  # from meta.json, nothing read yet
    assert back.node("m1").fields == {"plot": "A heist in LA."}
    assert back.graph.degree("starred_in", "out").tolist() == [0, 0, 0, 2, 0]  # CSR, edges untouched
    assert back._edges is None
    assert_same(skb, back)  # edge arrays read here
    assert back._edges is not None


@pytest.mark.parametrize("damage", ["truncate", "other rows", "garbage"])
def test_damaged_nodes_arrow_falls_back_to_parquet(tmp_path, damage: str) -> None:
    skb = small_skb()
    skb.save(tmp_path / "kb")
    f = tmp_path / "kb" / "nodes.arrow"
    if damage == "truncate":
        f.write_bytes(f.read_bytes()[:100])
    elif damage == "garbage":
        f.write_bytes(b"not arrow at all" * 10)
    else:  # a consistent file of another table: row count does not match meta.json
        files_mod._write_arrow(skb.nodes.slice(0, 2), f)
    assert_same(skb, SKB.load(tmp_path / "kb"))


def test_edges_checked_at_load_and_first_use(tmp_path) -> None:
    small_skb().save(tmp_path / "kb")
    meta = tmp_path / "kb" / "meta.json"
    m = json.loads(meta.read_text())
    m["num_edges"] = 7
    meta.write_text(json.dumps(m))
    with pytest.raises(ArtefactError, match="4 edges but meta.json says 7"):
        SKB.load(tmp_path / "kb")
    m["num_edges"] = 4
    meta.write_text(json.dumps(m))
    import pyarrow.parquet as pq

    e = pq.read_table(tmp_path / "kb" / "edges.parquet")
    e = e.set_column(e.schema.get_field_index("dst_idx"), "dst_idx", pa.array([0, 1, 2, 99], pa.int32()))
    pq.write_table(e, tmp_path / "kb" / "edges.parquet")
    back = SKB.load(tmp_path / "kb")  # the footer is fine: the values are read on first use
    with pytest.raises(ArtefactError, match="dst_idx points outside the 5 nodes"):
        _ = back.edge_src


def test_load_errors(tmp_path) -> None:
    with pytest.raises(ArtefactError, match="not an SKB directory"):
        SKB.load(tmp_path)
    small_skb().save(tmp_path / "kb")
    meta = tmp_path / "kb" / "meta.json"
    good = meta.read_text()
    meta.write_text(good.replace('"format_version": 1', '"format_version": 99'))
    with pytest.raises(ArtefactError, match="format version 99"):
        SKB.load(tmp_path / "kb")
    meta.write_text("{\n  oops")
    with pytest.raises(ArtefactError, match="meta.json:2"):
        SKB.load(tmp_path / "kb")


def test_content_hash_follows_the_node_and_edge_files(tmp_path: Path) -> None:
    small_skb().save(tmp_path / "a")
    small_skb().save(tmp_path / "b")
    meta = json.loads((tmp_path / "a" / "meta.json").read_text())
    assert content_hash(tmp_path / "a") == content_hash(tmp_path / "b") == meta["content_hash"]
    (tmp_path / "b" / "meta.json").write_text(json.dumps({**meta, "source": "other"}))  # not hashed
    assert content_hash(tmp_path / "b") == meta["content_hash"]
    other = SKB.from_columns(["x"], ["t"], ["X"])
    other.save(tmp_path / "c")
    assert content_hash(tmp_path / "c") != meta["content_hash"]


def test_read_plain_gives_the_parts_and_edges_on_first_use(tmp_path: Path) -> None:
    skb = small_skb()
    skb.save(tmp_path / "kb")
    opened = read_plain(tmp_path / "kb")
    assert opened.nodes.column("id").to_pylist() == skb.ids and opened.schema == skb.schema
    assert opened.edges is None and opened.edges_loader is not None and not opened.merged
    src, rel, dst = opened.edges_loader()
    assert src.tolist() == skb.edge_src.tolist() and dst.tolist() == skb.edge_dst.tolist()
    assert [opened.schema.relations[r] for r in rel] == [skb.schema.relations[r] for r in skb.edge_rel]
    # a meta.json without an edge count: the edges are read (and checked) at once
    meta = json.loads((tmp_path / "kb" / "meta.json").read_text())
    del meta["num_edges"]
    (tmp_path / "kb" / "meta.json").write_text(json.dumps(meta))
    eager = read_plain(tmp_path / "kb", mmap=False)
    assert eager.edges_loader is None and eager.edges is not None and len(eager.edges[0]) == 4


@pytest.mark.parametrize(("damage", "says"), [
    ("no nodes", "nodes.parquet is missing"), ("no edges", "edges.parquet is missing"),
    ("no schema", "missing or corrupt 'schema'"), ("not an object", "not a JSON object"),
    ("no id column", r"no column\(s\) \['id'\]"), ("bad parquet", "corrupt or truncated parquet")])
def test_damaged_or_missing_files_are_named(tmp_path: Path, damage: str, says: str) -> None:
    small_skb().save(tmp_path / "kb")
    kb, meta_file = tmp_path / "kb", tmp_path / "kb" / "meta.json"
    meta = json.loads(meta_file.read_text())
    if damage == "no nodes":
        (kb / "nodes.parquet").unlink()
    elif damage == "no edges":
        (kb / "edges.parquet").unlink()
    elif damage == "no schema":
        meta_file.write_text(json.dumps({k: v for k, v in meta.items() if k != "schema"}))
    elif damage == "not an object":
        meta_file.write_text("[1, 2]")
    elif damage == "no id column":
        import pyarrow.parquet as pq

        (kb / "nodes.arrow").unlink()
        pq.write_table(pq.read_table(kb / "nodes.parquet").drop_columns(["id"]), kb / "nodes.parquet")
    else:
        (kb / "nodes.arrow").unlink()
        (kb / "nodes.parquet").write_bytes(b"PAR1 not really")
    with pytest.raises(ArtefactError, match=says) as e:
        read_plain(kb)
    assert "skb kb build" in str(e.value) or damage == "not an object"


def test_saved_meta_leaves_out_the_generation(tmp_path: Path) -> None:
    """An SKB opened at a generation, saved again, is a plain SKB of that data."""
    small_skb().save(tmp_path / "kb")
    update(tmp_path / "kb", nodes=write_jsonl(tmp_path / "n.jsonl", [{"id": "m9", "type": "movie", "name": "Thief"}]))
    live = SKB.load(tmp_path / "kb")
    assert live.meta["generation"] == 1
    live.save(tmp_path / "copy")
    meta = json.loads((tmp_path / "copy" / "meta.json").read_text())
    assert not set(GENERATION_KEYS) & set(meta) and meta["num_nodes"] == 6 and meta["source"] == "test"


def test_read_generation_merges_the_base_and_its_segments(tmp_path: Path) -> None:
    base = small_skb()
    base.save(tmp_path / "kb")
    update(tmp_path / "kb", nodes=write_jsonl(tmp_path / "n.jsonl", [{"id": "m9", "type": "movie", "name": "Thief"}]),
           edges=write_jsonl(tmp_path / "e.jsonl", [{"source": "a1", "relation": "starred_in", "target": "m9"}]))
    gen = current(tmp_path / "kb")
    opened = read_generation(tmp_path / "kb", gen, mmap=True)
    assert opened.merged and opened.meta["generation"] == gen.number == 1
    assert opened.meta["content_hash"] == gen.content_hash and opened.meta["lineage"] == gen.lineage
    assert opened.meta["num_nodes"] == 6 and opened.meta["num_edges"] == 5
    assert opened.nodes.column("id").to_pylist() == [*base.ids, "m9"]
    assert opened.new_of_base is not None and opened.new_of_base.tolist() == [0, 1, 2, 3, 4]
    edges = opened.edges if opened.edges is not None else opened.edges_loader()
    assert len(edges[0]) == 5
