"""``skb search`` has one path, the pipeline one: ``--retriever KIND`` (deprecated for one
release) prints the equivalent spec and runs it, with the results the retriever gave."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skbsearch.cli import app
from skbsearch.index import open_index
from skbsearch.kb.store import SKB
from skbsearch.retrieve.filters import NodeFilter
from skbsearch.retrieve.sparse import BM25Retriever
from skbsearch.synth.catalogue import generate_catalogue

runner = CliRunner()


@pytest.fixture(scope="module")
def kb_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated catalogue (about 250 nodes) with its default BM25 index and one elsewhere."""
    root = tmp_path_factory.mktemp("search")
    ds = generate_catalogue(200, n_queries=3, seed=1)
    ds.skb.save(root / "kb")
    for extra in ([], ["--out", str(root / "other"), "--no-add-rel"]):
        res = runner.invoke(app, ["index", str(root / "kb"), "--kind", "bm25", "--quiet", *extra])
        assert res.exit_code == 0, res.output
    return root / "kb"


def _hits(res) -> list[tuple[str, float]]:
    assert res.exit_code == 0, res.output
    return [(r["id"], r["score"]) for r in json.loads(res.stdout)["results"]]


QUERY = "a brown task chair for my posture"


@pytest.mark.parametrize("args", [
    ["--retriever", "bm25"],
    ["--retriever", "bm25", "--type", "product", "--where", "price < 200"],
    ["--index", "OTHER", "--type", "product,brand"],
], ids=["plain", "filters", "other-index"])
def test_retriever_prints_its_pipeline_and_gives_the_retrievers_results(kb_dir: Path, args: list[str]) -> None:
    other = kb_dir.parent / "other"
    args = [str(other) if a == "OTHER" else a for a in args]
    old = runner.invoke(app, ["search", str(kb_dir), QUERY, "-k", "7", "--json", *args])
    note = next(line for line in old.stderr.splitlines() if "deprecated" in line)
    spec = shlex.split(note.partition(" -p ")[2])[0]  # shell-quoted, as it prints
    assert spec.startswith("bm25(k=7") and ("index=" in spec) == ("--index" in args)
    hits = _hits(old)
    assert 0 < len(hits) <= 7
    # the printed pipeline gives the same results
    assert _hits(runner.invoke(app, ["search", str(kb_dir), QUERY, "-k", "7", "--json", "-p", spec])) == hits
    # and they are the retriever's own over the index (filters applied before the top 7)
    kb = SKB.load(kb_dir)
    index = open_index(other if "--index" in args else kb_dir / "indexes" / "bm25", kb)
    types = tuple(t for a, b in zip(args, args[1:], strict=False) if a == "--type" for t in b.split(","))
    where = next((b for a, b in zip(args, args[1:], strict=False) if a == "--where"), None)
    ref = BM25Retriever(index, k=7, filter=NodeFilter(types, where), skb=kb).search(QUERY, k=7)
    assert [d for d, _ in hits] == [d for d, _ in ref]
    assert [s for _, s in hits] == pytest.approx([s for _, s in ref], abs=1e-6)


def test_plain_search_is_the_bm25_pipeline_without_a_note(kb_dir: Path) -> None:
    res = runner.invoke(app, ["search", str(kb_dir), QUERY, "-k", "5", "--json"])
    assert "deprecated" not in res.stderr
    assert json.loads(res.stdout)["pipeline"] == "bm25(k=5)"
    assert _hits(res) == _hits(runner.invoke(app, ["search", str(kb_dir), QUERY, "-k", "5", "--json",
                                                   "-p", "bm25(k=5)"]))


def test_a_kind_without_an_index_says_how_to_build_it(kb_dir: Path) -> None:
    res = runner.invoke(app, ["search", str(kb_dir), QUERY, "--retriever", "multivector"])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert f"skb index {kb_dir} --kind multivector" in " ".join(res.stderr.split())
