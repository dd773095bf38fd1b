"""`skb bench trecdl` (cli/bench_trecdl.py): the protocol from the command line, as JSON or as
tables with latency per stage, one result a spec, and its run saved for one pipeline only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import assert_clean_error, invoke
from judged_data import write_trecdl
from typer.testing import CliRunner

from skbsearch.core.types import Run


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKB_CACHE_DIR", str(tmp_path / "cache"))  # never the user's cache


def _dir(shared_data: Path) -> Path:
    d = shared_data / "trec-dl"
    if not (d / "dl19_bm25_top100.json").is_file():
        pytest.skip("trec-dl data not present")
    return d


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    """One DL19 query with four BM25 candidates and its qrels."""
    d = tmp_path / "dl"
    d.mkdir()
    write_trecdl(d)
    return d


def test_cli_json(shared_data: Path) -> None:
    from skbsearch.cli import app

    res = CliRunner().invoke(app, ["bench", "trecdl", "--data", str(_dir(shared_data)),
                                   "--pipeline", "input", "--json", "-", "--quiet"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["benchmark"] == "trecdl"
    assert out["metrics"]["ndcg@10"] == pytest.approx(0.5058, abs=5e-5)
    bad = CliRunner().invoke(app, ["bench", "trecdl", "--data", str(_dir(shared_data)),
                                   "--reranker", "nope", "--quiet"])
    assert bad.exit_code == 2
    spec = CliRunner().invoke(app, ["bench", "trecdl", "--data", str(_dir(shared_data)),
                                    "--pipeline", "input % 5", "--json", "-", "--quiet"])
    assert spec.exit_code == 0, spec.output
    assert json.loads(spec.output)["config"]["pipeline"] == "input % 5"
    two = CliRunner().invoke(app, ["bench", "trecdl", "--data", str(_dir(shared_data)), "--limit",
                                   "3", "--pipeline", "input", "--pipeline", "input % 5", "--json",
                                   "-", "--quiet"])
    assert two.exit_code == 0, two.output
    results = json.loads(two.stdout)  # one result a spec, in their order
    assert [r["config"]["pipeline"] for r in results] == ["input", "input % 5"]
    assert results[0]["metrics"]["mrr@10"] == results[1]["metrics"]["mrr@10"]
    both = CliRunner().invoke(app, ["bench", "trecdl", "--data", str(_dir(shared_data)),
                                    "--pipeline", "input", "--reranker", "none", "--quiet"])
    assert both.exit_code == 2 and "No such option" in both.output  # (retired old flag)


def test_tables_with_latency_per_stage(tiny: Path) -> None:
    r = invoke("bench", "trecdl", "--data", tiny, "--pipeline", "bm25 % 2")
    assert r.exit_code == 0, r.output
    assert "TREC DL dl19" in r.output and "pipeline bm25 % 2" in r.output
    assert "queries: 1" in r.output and "latency per query" in r.output


def test_the_run_is_saved_for_one_pipeline_only(tiny: Path, tmp_path: Path) -> None:
    r = invoke("bench", "trecdl", "--data", tiny, "--pipeline", "input % 2",
               "--save-run", tmp_path / "final.trec", "--json", "-", "--quiet")
    assert r.exit_code == 0, r.output
    saved = Run.from_trec(tmp_path / "final.trec")
    assert list(saved["1"]) == ["d0", "d1"] and json.loads(r.stdout)["config"]["n_queries"] == 1
    two = invoke("bench", "trecdl", "--data", tiny, "--pipeline", "input", "--pipeline", "bm25",
                 "--save-run", tmp_path / "two.trec")
    assert_clean_error(two, "--save-run", "one --pipeline")
    assert not (tmp_path / "two.trec").exists()
    assert_clean_error(invoke("bench", "trecdl", "--data", tiny, "--split", "dl18"), "dl18")
