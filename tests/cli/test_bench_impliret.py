"""``skb bench impliret`` (cli/bench_impliret.py): the protocol and the readers from the
command line, their JSON results and refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import assert_clean_error, invoke
from impliret_pools import tiny_folder
from typer.testing import CliRunner


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKB_CACHE_DIR", str(tmp_path / "cache"))  # never the user's cache


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    return tiny_folder(tmp_path)


def test_cli_tiny(tiny: Path, tmp_path: Path) -> None:
    import skbsearch.cli.bench_impliret  # noqa: F401  (registers the command)
    from skbsearch.cli import app

    out = tmp_path / "r.json"
    res = CliRunner().invoke(app, ["bench", "impliret", "--data", str(tiny), "--json", str(out)])
    assert res.exit_code == 0, res.output
    assert "temporal_unispeaker not found" in res.output and "index build" in res.output
    assert json.loads(out.read_text())["benchmark"] == "impliret"
    bad = CliRunner().invoke(app, ["bench", "impliret", "--data", str(tmp_path / "none")])
    assert bad.exit_code == 2
    read = ["bench", "impliret", "--data", str(tiny), "--reader", "extractive", "--reader-k", "1"]
    two = CliRunner().invoke(app, [*read, "--reader-source", "retriever", "--pipeline", "bm25",
                                   "--pipeline", "enrich", "--json", "-", "-q"])
    assert two.exit_code == 0, two.output  # one reader result a retriever spec
    assert [r["config"]["pipeline"] for r in json.loads(two.stdout)] == ["bm25", "enrich"]
    oracle = CliRunner().invoke(app, [*read, "--pipeline", "bm25"])
    assert oracle.exit_code == 2 and "oracle reader" in oracle.output


def test_the_reader_table_and_a_limited_retrieval(tiny: Path) -> None:
    r = invoke("bench", "impliret", "--data", tiny, "--reader", "extractive", "--reader-k", "1,all")
    assert r.exit_code == 0, r.output
    assert "ROUGE-1 recall (%) by k, as Table 3" in r.output and "reader: extractive" in r.output
    assert "note: pool wknow_unispeaker not found" in r.output
    r = invoke("bench", "impliret", "--data", tiny, "--pipeline", "bm25", "--limit", "1",
               "--json", "-", "-q")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["config"]["n_queries"] == 2 and out["config"]["limit_per_pool"] == 1
    assert_clean_error(invoke("bench", "impliret", "--data", tiny, "--reader", "extractive",
                              "--reader-k", "0"), "--reader-k")
