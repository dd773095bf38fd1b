"""Live updates of an SKB (issue 25): upserts and deletions by id as generations, the merged
generation equal to a full build of the final data, validation that changes nothing, and
compaction."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from live_data import apply, build, content, write_jsonl
from typer.testing import CliRunner

from skbsearch.cli import app
from skbsearch.core.errors import InputError
from skbsearch.kb import SKB
from skbsearch.kb.generations import current, manifest_numbers
from skbsearch.kb.graph import Graph
from skbsearch.kb.update import compact, update

runner = CliRunner(env={"COLUMNS": "200"})

NODES = [
    {"id": "p1", "type": "product", "name": "Red shoe", "description": "a red running shoe", "price": 50},
    {"id": "p2", "type": "product", "name": "Blue shoe", "description": "a blue walking shoe", "price": 120},
    {"id": "p3", "type": "product", "name": "Green hat", "description": "a green sun hat", "price": 20},
    {"id": "b1", "type": "brand", "name": "Acme"},
]
EDGES = [{"source": "p1", "relation": "brand", "target": "b1"},
         {"source": "p2", "relation": "brand", "target": "b1"},
         {"source": "p3", "relation": "also_bought", "target": "p1"}]
UPSERT = [{"id": "p2", "type": "product", "name": "Blue shoe v2", "description": "a blue trail shoe", "price": 90},
          {"id": "p4", "type": "product", "name": "Red hat", "description": "a red wool hat", "price": 30.5,
           "colour": "red"},
          {"id": "b2", "type": "brand", "name": "Zed"}]
ADD = [{"source": "p4", "relation": "brand", "target": "b2"},
       {"source": "p3", "relation": "similar", "target": "p4"}]


@pytest.fixture
def skb_dir(tmp_path: Path) -> Path:
    build(tmp_path / "src", NODES, EDGES, tmp_path / "kb")
    return tmp_path / "kb"


def _files(tmp: Path, *, upsert=(), add=(), dels=(), del_edges=()) -> dict[str, Path | None]:
    out: dict[str, Path | None] = {"nodes": None, "edges": None, "delete_nodes": None, "delete_edges": None}
    if upsert:
        out["nodes"] = write_jsonl(tmp / "up_nodes.jsonl", list(upsert))
    if add:
        out["edges"] = write_jsonl(tmp / "up_edges.jsonl", list(add))
    if dels:
        (tmp / "del.txt").write_text("".join(d + "\n" for d in dels), encoding="utf-8")
        out["delete_nodes"] = tmp / "del.txt"
    if del_edges:
        out["delete_edges"] = write_jsonl(tmp / "del_edges.jsonl", list(del_edges))
    return out


def test_update_equals_full_build_of_final_data(skb_dir: Path, tmp_path: Path) -> None:
    dels, del_edges = ["p1"], [{"source": "p2", "relation": "brand", "target": "b1"}]
    res = update(skb_dir, **_files(tmp_path, upsert=UPSERT, add=ADD, dels=dels, del_edges=del_edges))
    assert (res.generation, res.upserted, res.deleted_nodes, res.added_edges, res.deleted_edges) == (1, 3, 1, 2, 1)
    nodes, edges = apply(NODES, EDGES, upsert=UPSERT, add_edges=ADD, delete_nodes=dels, delete_edges=del_edges)
    ref = build(tmp_path / "final", nodes, edges, tmp_path / "ref")
    live = SKB.load(skb_dir)
    assert live.meta["generation"] == 1 and live.meta["content_hash"] == res.content_hash
    assert content(live) == content(ref)
    assert live.ids == ref.ids  # a replaced node keeps its row, new ones come last: as a rebuild
    assert sorted(live.schema.relations) == sorted(ref.schema.relations)
    assert sorted(live.ids[i] for i in live.select("price < 100")) == sorted(
        ref.ids[i] for i in ref.select("price < 100"))
    p4 = int(live.index_of("p4"))
    assert live.ids_array[live.graph.follow([p4], ["brand"])].tolist() == ["b2"]
    assert live.ids_array[live.graph.follow([p4], ["similar^-1"])].tolist() == ["p3"]


def test_sequential_updates_replay_in_order(skb_dir: Path, tmp_path: Path) -> None:
    nodes, edges = NODES, EDGES
    steps = [dict(upsert=UPSERT, add=ADD), dict(dels=["p4"]),  # p4's edges go with it
             dict(upsert=[{"id": "p4", "type": "product", "name": "Back", "price": 1}],
                  add=[{"source": "p4", "relation": "brand", "target": "b1"}]),
             dict(del_edges=[{"source": "p3", "relation": "also_bought", "target": "p1"}])]
    for k, step in enumerate(steps):
        d = tmp_path / f"u{k}"
        d.mkdir()
        update(skb_dir, **_files(d, **step))
        nodes, edges = apply(nodes, edges, upsert=step.get("upsert", ()), add_edges=step.get("add", ()),
                             delete_nodes=step.get("dels", ()), delete_edges=step.get("del_edges", ()))
        ref = build(tmp_path / f"f{k}", nodes, edges, tmp_path / f"r{k}")
        live = SKB.load(skb_dir)
        assert content(live) == content(ref) and live.ids == ref.ids, k
        # the generation's graph is the base's saved CSR merged with the segments' edges
        assert live._graph_factory is not None
        built = Graph.build(live.num_nodes, live.edge_src, live.edge_rel, live.edge_dst, live.schema.relations)
        assert live.graph.relations == built.relations
        for step in built._csr:
            assert all(np.array_equal(a, b) for a, b in zip(live.graph.adjacency(step), built.adjacency(step),
                                                              strict=True)), (k, step)
    assert current(skb_dir).number == 4


@pytest.mark.parametrize("case", ["unknown-endpoint", "bad-json", "delete-unknown", "kind-clash",
                                  "delete-and-upsert", "missing-edge"])
def test_bad_update_is_an_error_and_changes_nothing(skb_dir: Path, tmp_path: Path, case: str) -> None:
    files = {
        "unknown-endpoint": lambda: _files(tmp_path, upsert=UPSERT, add=[
            ADD[0], {"source": "p2", "relation": "brand", "target": "nope"}]),
        "delete-unknown": lambda: _files(tmp_path, dels=["p1", "ghost"]),
        "kind-clash": lambda: _files(tmp_path, upsert=[{"id": "p9", "type": "product", "price": "cheap"}]),
        "delete-and-upsert": lambda: _files(tmp_path, upsert=UPSERT, dels=["p2"]),
        "missing-edge": lambda: _files(tmp_path, del_edges=[{"source": "p1", "relation": "brand",
                                                             "target": "b9"}]),
    }.get(case, dict)()
    if case == "bad-json":
        (tmp_path / "n.jsonl").write_text('{"id": "p9", "type": "product"}\n{"id": \n', encoding="utf-8")
        files = {"nodes": tmp_path / "n.jsonl"}
    before = content(SKB.load(skb_dir))
    with pytest.raises(InputError) as e:
        update(skb_dir, **files)
    where = {"unknown-endpoint": ("up_edges.jsonl", 2, "target"), "bad-json": ("n.jsonl", 2, None),
             "delete-unknown": ("del.txt", 2, "id"), "kind-clash": ("up_nodes.jsonl", 1, "price"),
             "delete-and-upsert": ("up_nodes.jsonl", 1, "id"),
             "missing-edge": ("del_edges.jsonl", 1, "source")}[case]
    assert Path(str(e.value.file)).name == where[0] and e.value.line == where[1]
    if where[2]:
        assert e.value.field == where[2]
    assert manifest_numbers(skb_dir) == [] and not (skb_dir / "segments").exists() or not any(
        (skb_dir / "segments").iterdir())
    assert content(SKB.load(skb_dir)) == before


def test_compact_keeps_data_and_identity_and_cleans_up(skb_dir: Path, tmp_path: Path) -> None:
    update(skb_dir, **_files(tmp_path, upsert=UPSERT, add=ADD, dels=["p1"]))
    before = SKB.load(skb_dir)
    res = compact(skb_dir)
    after = SKB.load(skb_dir)
    assert res.generation == 2 and after.meta["content_hash"] == before.meta["content_hash"]
    assert content(after) == content(before) and after.meta["segments"] == []
    assert after.graph_dir is not None and (after.graph_dir / "graph.json").is_file()
    # the next commit drops the generation that still referenced the old base and segment
    d = tmp_path / "more"
    d.mkdir()
    update(skb_dir, **_files(d, dels=["p3"]))
    assert manifest_numbers(skb_dir) == [2, 3]
    assert not (skb_dir / "nodes.parquet").exists() and not list((skb_dir / "segments").glob("seg-00000001"))
    assert "p3" not in SKB.load(skb_dir).ids and (skb_dir / "meta.json").is_file()


def _info(path: Path) -> dict:
    res = runner.invoke(app, ["kb", "info", str(path), "--json"])
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    return {"nodes": d["nodes"], "edges": d["edges"], "types": d["node_types"],
            "relations": {r["relation"]: r["edges"] for r in d["relations"]}}


def test_cli_update_and_compact_match_a_build(skb_dir: Path, tmp_path: Path) -> None:
    f = _files(tmp_path, upsert=UPSERT, add=ADD, dels=["p1"])
    res = runner.invoke(app, ["kb", "update", str(skb_dir), "--nodes", str(f["nodes"]), "--edges",
                              str(f["edges"]), "--delete-nodes", str(f["delete_nodes"]), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["generation"] == 1
    nodes, edges = apply(NODES, EDGES, upsert=UPSERT, add_edges=ADD, delete_nodes=["p1"])
    build(tmp_path / "final", nodes, edges, tmp_path / "ref")
    assert _info(skb_dir) == _info(tmp_path / "ref")
    res = runner.invoke(app, ["kb", "compact", str(skb_dir), "--json"])
    assert res.exit_code == 0, res.output
    assert _info(skb_dir) == _info(tmp_path / "ref")
    bad = runner.invoke(app, ["kb", "update", str(skb_dir), "--delete-nodes", str(tmp_path / "none.txt")])
    assert bad.exit_code == 2 and "none.txt" in bad.output and "Traceback" not in bad.output


def _search(path: Path, spec: str) -> list[tuple[str, float]]:
    res = runner.invoke(app, ["search", str(path), "red shoe hat", "-p", spec, "-k", "20", "--json"])
    assert res.exit_code == 0, res.output
    return sorted((r["id"], r["score"]) for r in json.loads(res.stdout)["results"])


@pytest.mark.parametrize("index_args", [[], ["--no-add-rel"]], ids=["default-relations", "no-add-rel"])
def test_cli_search_after_update_and_compact_equals_a_rebuild(skb_dir: Path, tmp_path: Path,
                                                              index_args: list[str]) -> None:
    """The default index (relation lines: re-indexed on catch-up) and a plain one (delta
    catch-up) both answer as a rebuild of the final data does."""
    assert runner.invoke(app, ["index", str(skb_dir), "-q", *index_args]).exit_code == 0
    f = _files(tmp_path, upsert=UPSERT, add=ADD, dels=["p1"])
    args = ["kb", "update", str(skb_dir), "--nodes", str(f["nodes"]), "--edges", str(f["edges"]),
            "--delete-nodes", str(f["delete_nodes"]), "-q"]
    assert runner.invoke(app, args).exit_code == 0
    nodes, edges = apply(NODES, EDGES, upsert=UPSERT, add_edges=ADD, delete_nodes=["p1"])
    build(tmp_path / "final", nodes, edges, tmp_path / "ref")
    assert runner.invoke(app, ["index", str(tmp_path / "ref"), "-q", *index_args]).exit_code == 0
    for stage in ("compact", None):
        if stage:
            assert runner.invoke(app, ["kb", stage, str(skb_dir), "-q"]).exit_code == 0
        for spec in ("bm25", "bm25(where='price < 100')"):
            live, ref = _search(skb_dir, spec), _search(tmp_path / "ref", spec)
            assert [d for d, _ in live] == [d for d, _ in ref] and len(ref) >= 2
            assert all(abs(a - b) <= 1e-6 for (_, a), (_, b) in zip(live, ref, strict=True))


def test_python_front_door_update_and_compact(skb_dir: Path, tmp_path: Path) -> None:
    import skbsearch as skb

    kb = skb.SKB.load(skb_dir)
    f = _files(tmp_path, upsert=UPSERT, add=ADD, dels=["p1"])
    new = kb.update(nodes=f["nodes"], edges=f["edges"], delete_nodes=f["delete_nodes"])
    assert new.meta["generation"] == 1 and "p1" in kb.ids and "p1" not in new.ids
    nodes, edges = apply(NODES, EDGES, upsert=UPSERT, add_edges=ADD, delete_nodes=["p1"])
    ref = build(tmp_path / "final", nodes, edges, tmp_path / "ref")
    assert content(new) == content(ref)
    done = new.compact()
    assert done.meta["generation"] == 2 and content(done) == content(ref)
    with pytest.raises(InputError, match="not saved"):
        skb.SKB(ref.nodes, ref.edge_src, ref.edge_rel, ref.edge_dst, ref.schema).update(nodes=f["nodes"])
