"""An index built with ``skb index --out DIR`` is usable: a retriever stage names it with its
``index`` parameter (issue 32 item 7: no pipeline could use such an index); a server refuses
the parameter in a client's spec."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skbsearch.cli import app
from skbsearch.core.errors import ArtefactError, InputError
from skbsearch.index import get_kind
from skbsearch.kb.store import SKB
from skbsearch.retrieve.sparse import BM25Retriever
from skbsearch.server.pipelines import PipelinePolicy, PipelineRefused, PipelineRequest
from skbsearch.stages import StageContext, pipeline
from skbsearch.synth.catalogue import generate_catalogue

runner = CliRunner(env={"COLUMNS": "250"})


@pytest.fixture(scope="module")
def kb_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("idx") / "cat.skb"
    generate_catalogue(80, seed=3, n_queries=2).skb.save(out)
    return out


@pytest.fixture(scope="module")
def other_index(kb_dir: Path) -> Path:
    """A BM25 index outside SKB_DIR/indexes, with settings unlike the default one."""
    out = kb_dir.parent / "elsewhere" / "bm25-k1"
    res = runner.invoke(app, ["index", str(kb_dir), "--kind", "bm25", "--k1", "0.9",
                              "--no-add-rel", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert f"bm25(index='{out}')" in res.output  # says how to use it
    # an index built elsewhere leaves the SKB as it was (no name tables written into it)
    assert not (kb_dir / "indexes").exists()
    return out


def test_a_stage_reads_the_index_it_names(kb_dir: Path, other_index: Path) -> None:
    kb = SKB.load(kb_dir)
    p = pipeline(f"bm25(index='{other_index}', k=5)", kb)
    assert p.search("jacket", 3)
    assert p.index.params["k1"] == 0.9  # the named index, not one built in memory
    assert p.index.source.get("add_rel") is False
    assert pipeline(repr(p), kb) == p  # prints back as its spec
    # the default stage is another index (built in memory: none was saved there)
    default = pipeline("bm25", StageContext(kb, notify=lambda _m: None))
    assert default.index.params["k1"] == 1.5
    # its evidence is not the context's default index (fusion weights count it apart)
    own, named = pipeline(f"bm25 + bm25(index='{other_index}')", kb).children
    assert own.evidence() and own.evidence() != named.evidence()


def test_a_missing_or_foreign_index_is_refused(kb_dir: Path, tmp_path: Path) -> None:
    kb = SKB.load(kb_dir)
    with pytest.raises(InputError, match=r"no bm25 index at .*nope; build it with 'skb index .* "
                                         r"--kind bm25 --out .*nope'") as e:
        pipeline(f"bm25(index='{tmp_path / 'nope'}')", kb).search("jacket")
    assert e.value.field == "index"
    other = generate_catalogue(40, seed=9, n_queries=1).skb
    other.save(tmp_path / "other.skb")
    foreign = tmp_path / "foreign"
    get_kind("bm25").build(SKB.load(tmp_path / "other.skb")).save(foreign)
    with pytest.raises(ArtefactError):
        pipeline(f"bm25(index='{foreign}')", kb).search("jacket")
    with pytest.raises(InputError, match="not both"):
        BM25Retriever(get_kind("bm25").load(foreign), index=str(foreign))


def test_cli_run_and_search_use_it(kb_dir: Path, other_index: Path, tmp_path: Path) -> None:
    queries = tmp_path / "q.jsonl"
    queries.write_text(json.dumps({"id": "q1", "text": "jacket"}) + "\n", encoding="utf-8")
    res = runner.invoke(app, ["run", str(kb_dir), "--queries", str(queries), "-p",
                              f"bm25(index='{other_index}')", "--save-run", str(tmp_path / "r.trec"),
                              "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["pipeline"] == f"bm25(index='{other_index}')"
    res = runner.invoke(app, ["search", str(kb_dir), "jacket", "--index", str(other_index),
                              "-p", "bm25 + graph"])
    assert res.exit_code == 2 and "bm25(index=" in res.output  # not silently ignored


def test_a_server_refuses_it_from_clients_but_not_from_its_operator(kb_dir: Path,
                                                                    other_index: Path) -> None:
    ctx = StageContext(SKB.load(kb_dir), notify=lambda _m: None)
    spec = f"bm25(index='{other_index}')"
    with pytest.raises(PipelineRefused, match="file, model or URL"):
        PipelinePolicy().build(PipelineRequest(spec), ctx)
    with pytest.raises(PipelineRefused, match="file, model or URL"):
        PipelinePolicy().build(PipelineRequest("bm25(index='/etc')"), ctx)
    trusted = PipelinePolicy({"k1": spec}).build(PipelineRequest("k1"), ctx)
    assert trusted.search("jacket", 2)
