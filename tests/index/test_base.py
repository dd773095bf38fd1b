"""An index built from an SKB that was rebuilt since is refused, with the command to rebuild it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skbsearch.cli import app
from skbsearch.core.errors import ArtefactError
from skbsearch.index.base import check_index_matches, read_manifest
from skbsearch.index.dense import DocSource
from skbsearch.index.sparse import BM25Index
from skbsearch.kb import SKB
from skbsearch.retrieve.filters import NodeFilter
from skbsearch.retrieve.sparse import BM25Retriever

runner = CliRunner(env={"COLUMNS": "300"})

NODES = [
    {"id": "m1", "type": "movie", "name": "Kismet", "plot": "A beggar becomes a king."},
    {"id": "m2", "type": "movie", "name": "Heat", "plot": "A thief and a detective."},
    {"id": "p1", "type": "person", "name": "William Dieterle"},
]


def _build(src: Path, out: Path, nodes: list[dict], force: bool = False) -> None:
    (src / "nodes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in nodes), encoding="utf-8")
    res = runner.invoke(app, ["kb", "build", str(src), str(out), "-q", *(["--force"] if force else [])])
    assert res.exit_code == 0, res.output


@pytest.fixture
def built(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(source dir, SKB dir, index dir outside the SKB) for NODES."""
    src, skb_dir, idx = tmp_path / "src", tmp_path / "skb", tmp_path / "idx"
    src.mkdir()
    _build(src, skb_dir, NODES)
    res = runner.invoke(app, ["index", str(skb_dir), "--out", str(idx), "--fields", "name,plot",
                              "--k1", "1.2", "-q"])
    assert res.exit_code == 0, res.output
    return src, skb_dir, idx


def test_skb_and_manifest_record_the_content_hash(built: tuple[Path, Path, Path]) -> None:
    _, skb_dir, idx = built
    meta = json.loads((skb_dir / "meta.json").read_text())
    assert meta["artefact"] == "skb" and len(meta["content_hash"]) == 32
    man = json.loads((idx / "manifest.json").read_text())
    assert man["artefact"] == "index"
    assert man["source"]["skb_hash"] == meta["content_hash"] and man["source"]["num_nodes"] == 3
    skb = SKB.load(skb_dir)
    assert DocSource.from_any(skb).source["skb_hash"] == meta["content_hash"]  # dense, multivector
    check_index_matches(read_manifest(idx), skb)  # the same build: fine


def test_search_refuses_index_of_a_rebuilt_skb(built: tuple[Path, Path, Path]) -> None:
    src, skb_dir, idx = built
    assert runner.invoke(app, ["search", str(skb_dir), "king", "--index", str(idx)]).exit_code == 0
    changed = [dict(NODES[0], plot="A thief becomes a king."), *NODES[1:]]  # same size, other text
    _build(src, skb_dir, changed, force=True)
    res = runner.invoke(app, ["search", str(skb_dir), "king", "--index", str(idx)])
    assert res.exit_code == 2, res.output
    err = " ".join(res.stderr.split())
    assert "built from a different SKB" in err and "Traceback" not in res.output
    assert f"skb index {skb_dir} --kind bm25 --out {idx} --fields name,plot --k1 1.2 --force" in err
    _build(src, skb_dir, NODES[:2], force=True)  # fewer nodes
    res = runner.invoke(app, ["search", str(skb_dir), "king", "--index", str(idx)])
    assert res.exit_code == 2 and "3 nodes" in res.stderr and "2 nodes" in res.stderr


def test_retriever_with_filter_refuses_index_of_a_rebuilt_skb(built: tuple[Path, Path, Path]) -> None:
    src, skb_dir, idx = built
    _build(src, skb_dir, [dict(NODES[0], name="Kismet (1944)"), *NODES[1:]], force=True)
    index = BM25Index.load(idx)
    with pytest.raises(ArtefactError, match="different SKB"):
        BM25Retriever(index, filter=NodeFilter(("movie",))).search("king")  # SKB from the manifest
    with pytest.raises(ArtefactError, match="different SKB"):
        BM25Retriever(index, skb=SKB.load(skb_dir))  # given both (graph-aware, stages): refused
    with pytest.raises(ArtefactError, match="different SKB"):
        check_index_matches(read_manifest(idx), SKB.load(skb_dir))


def test_never_built_index_says_build_not_rebuild(tmp_path: Path) -> None:
    src, skb_dir = tmp_path / "src", tmp_path / "skb"
    src.mkdir()
    _build(src, skb_dir, NODES)
    res = runner.invoke(app, ["search", str(skb_dir), "king"])
    assert res.exit_code == 2
    err = " ".join(res.stderr.split())
    assert f"build it with 'skb index {skb_dir} --kind bm25'" in err and "rebuild" not in err
    with pytest.raises(ArtefactError, match="build it with") as e:
        BM25Index.load(tmp_path / "nowhere")
    assert "rebuild" not in str(e.value)
