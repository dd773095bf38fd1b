"""No hidden first-query cost (issue 35 item 3): ``skb index`` builds the graph stage's name
lookups with the BM25 index, the stage's set-up builds what it keeps in memory, and
``skb run`` / ``Experiment`` report set-up apart from the time a query."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import skbsearch.index.names as names_mod
import skbsearch.retrieve.graph.name_table as table_mod
from skbsearch.cli import app
from skbsearch.core.stage import SpecStage, prepare
from skbsearch.core.types import Query, Run
from skbsearch.eval.experiment import Experiment
from skbsearch.kb.store import SKB
from skbsearch.retrieve.graph import zero_shot
from skbsearch.stages import pipeline
from skbsearch.synth.catalogue import generate_catalogue

runner = CliRunner(env={"COLUMNS": "250"})


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    root = tmp_path_factory.mktemp("fq")
    ds = generate_catalogue(120, seed=4, n_queries=6)
    ds.skb.save(root / "cat.skb")
    res = runner.invoke(app, ["index", str(root / "cat.skb"), "--json"])
    assert res.exit_code == 0, res.output
    assert {Path(p).name for p in json.loads(res.stdout)["graph_tables"]} == {"names", "linker"}
    return root / "cat.skb", ds


def test_skb_index_builds_the_graph_name_lookups(indexed, monkeypatch) -> None:
    kb_dir, ds = indexed
    for d in ("names", "linker"):
        assert (kb_dir / "indexes" / d / "manifest.json").is_file()

    def refuse(*_a: Any, **_k: Any) -> Any:
        raise AssertionError("a name lookup was built on the query path")

    monkeypatch.setattr(names_mod, "build_name_index", refuse)
    monkeypatch.setattr(table_mod, "build_name_tables", refuse)
    notes: list[str] = []
    from skbsearch.stages import StageContext

    stage = pipeline("graph", StageContext(SKB.load(kb_dir), notify=notes.append))
    assert stage.run(ds.queries[:2])  # opened from disk, nothing built
    assert not notes


def test_an_skb_without_edges_gets_no_graph_tables(tmp_path: Path) -> None:
    nodes = tmp_path / "n.jsonl"
    nodes.write_text('{"id": "a", "type": "t", "name": "A"}\n', encoding="utf-8")
    assert runner.invoke(app, ["kb", "build", str(tmp_path / "k.skb"), "--nodes", str(nodes), "-q"]).exit_code == 0
    res = runner.invoke(app, ["index", str(tmp_path / "k.skb"), "--json"])
    assert res.exit_code == 0 and json.loads(res.stdout)["graph_tables"] == []


def test_lazily_built_tables_are_announced(indexed, tmp_path: Path) -> None:
    kb_dir, ds = indexed
    ds.skb.save(tmp_path / "bare.skb")  # never indexed
    notes: list[str] = []
    from skbsearch.stages import StageContext

    prepare(pipeline("graph", StageContext(SKB.load(tmp_path / "bare.skb"), notify=notes.append)))
    assert any("building the graph stage's name index" in n and "skb index" in n for n in notes)


def test_set_up_builds_the_in_memory_lookups(indexed) -> None:
    kb_dir, ds = indexed
    stage = prepare(pipeline("graph", SKB.load(kb_dir)))
    graph = stage.inner
    assert graph.linker._grams is not None  # typo table: built at set-up, not by a query
    text = graph.linker.name_share.text
    assert text is not None and text._term_stats is not None  # term counts read at set-up
    before = zero_shot._ends_words.cache_info(), zero_shot._path_words.cache_info()
    stage.run(ds.queries[:1])
    # no type words computed, no path's words: a walk carries the few words the query says
    assert zero_shot._ends_words.cache_info().misses == before[0].misses
    assert zero_shot._path_words.cache_info().misses == before[1].misses


@dataclass
class _NoParams:
    pass


class _SlowSetUp(SpecStage):
    """A stage whose set-up takes 0.3 s and whose queries take nothing."""

    name = "slow-set-up (test)"
    Params = _NoParams

    def build(self, context: Any) -> Any:
        time.sleep(0.3)
        return lambda queries, run=None: Run({q.id: {"d1": 1.0} for q in queries})


def test_experiment_times_set_up_apart(indexed) -> None:
    kb_dir, _ = indexed
    stage = _SlowSetUp(pipeline("bm25", SKB.load(kb_dir)).context)
    qs = [Query(f"q{i}", "x") for i in range(4)]
    res = Experiment({"slow": stage}, qs, {q.id: {"d1": 1} for q in qs}, ["mrr"])
    assert res.setup_s["slow"] >= 0.3
    assert res.ms_per_query["slow"] < 50.0  # not 300 / 4 ms: set-up is not a query's cost
    assert res.to_dict()["setup_s"]["slow"] >= 0.3


def test_skb_run_reports_set_up_apart(indexed, tmp_path: Path) -> None:
    kb_dir, ds = indexed
    queries = tmp_path / "q.jsonl"
    queries.write_text("\n".join(json.dumps({"id": q.id, "text": q.text}) for q in ds.queries),
                       encoding="utf-8")
    res = runner.invoke(app, ["run", str(kb_dir), "--queries", str(queries), "-p", "bm25 + graph",
                              "--save-run", str(tmp_path / "r.trec"), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["setup_seconds"] > 0 and out["ms_per_query"] > 0
    res = runner.invoke(app, ["run", str(kb_dir), "--queries", str(queries), "-p", "bm25",
                              "--save-run", str(tmp_path / "r.trec")])
    assert "set-up" in res.output
