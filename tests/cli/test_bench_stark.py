"""`skb bench stark` (cli/bench_stark.py): STaRK's protocol from the command line on a small
SKB in STaRK's processed format: the printed protocol and table, JSON results (one a spec),
candidate types, and the refusal to unpickle without --trust-pickles."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from stark_files import write_processed, write_queries
from typer.testing import CliRunner

from skbsearch.cli import app

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKB_CACHE_DIR", str(tmp_path / "cache"))  # never the user's cache


@pytest.fixture
def stark_dirs(tmp_path: Path) -> tuple[Path, Path]:
    return write_processed(tmp_path), write_queries(tmp_path)


def test_cli(stark_dirs: tuple[Path, Path], tmp_path: Path) -> None:
    processed, qa = stark_dirs
    out = tmp_path / "res.json"
    res = CliRunner().invoke(app, ["bench", "stark", "--skb", str(processed), "--qa", str(qa),
                                   "--split", "test", "--trust-pickles", "--json", str(out)])
    assert res.exit_code == 0, res.output
    assert "protocol: STaRK evaluator" in res.output and "candidates: 6" in res.output
    assert "hit@1" in res.output and str(out) in res.output
    data = json.loads(out.read_text())
    assert data["benchmark"] == "stark" and data["metrics"]["mrr"] == pytest.approx(1.0)
    two = CliRunner().invoke(app, ["bench", "stark", "--skb", str(processed), "--qa", str(qa),
                                   "--trust-pickles", "--pipeline", "bm25(k=1, types=[product])",
                                   "--pipeline", "bm25(types=[product])", "--json", "-", "-q"])
    assert two.exit_code == 0, two.output
    both = json.loads(two.stdout)  # one result a spec, in their order
    assert [r["config"]["pipeline"] for r in both] == ["bm25(k=1, types=[product])",
                                                       "bm25(types=[product])"]
    assert both[1]["metrics"]["mrr"] == pytest.approx(1.0)
    bad = CliRunner().invoke(app, ["bench", "stark", "--skb", str(processed), "--qa", str(qa)])
    assert bad.exit_code == 2 and "--trust-pickles" in bad.output
    assert "Traceback" not in bad.output


def test_human_queries_candidate_types_and_a_limit(stark_dirs: tuple[Path, Path]) -> None:
    processed, qa = stark_dirs
    res = CliRunner().invoke(app, ["bench", "stark", "--skb", str(processed), "--qa", str(qa),
                                   "--split", "human", "--trust-pickles", "--candidate-types",
                                   "product, brand", "--limit", "1", "--json", "-", "-q"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["config"]["n_queries"] == 1 and out["config"]["n_candidates"] == 8
    assert out["config"]["candidate_types"] == ["product", "brand"]
    bad = CliRunner().invoke(app, ["bench", "stark", "--skb", str(processed), "--qa", str(qa),
                                   "--trust-pickles", "--split", "dev"])
    assert bad.exit_code == 2 and "dev" in bad.output and "Traceback" not in bad.output
