"""`skb eval` and `skb stats queries` end to end on small files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skbsearch.cli import app
from skbsearch.core.types import Qrels, Run

runner = CliRunner()


@pytest.fixture()
def files(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    Run({"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0}}, name="good").to_trec(tmp_path / "good.run")
    Run({"q1": {"a": 1.0, "b": 2.0}}, name="bad").to_trec(tmp_path / "bad.run")
    qrels = Qrels({"q1": {"a": 1}, "q2": {"c": 2}})
    qrels.to_trec(tmp_path / "qrels.txt")
    (tmp_path / "qrels.json").write_text(json.dumps({"q1": {"a": "1"}, "q2": {"c": "2"}}))
    return (
        tmp_path / "good.run",
        tmp_path / "bad.run",
        tmp_path / "qrels.txt",
        tmp_path / "qrels.json",
    )


def test_eval_json_and_formats(files: tuple[Path, Path, Path, Path]) -> None:
    good, bad, qrels_trec, qrels_json = files
    for qrels in (qrels_trec, qrels_json):
        r = runner.invoke(
            app, ["eval", str(good), str(bad), str(qrels), "-m", "mrr,hit@1", "--json"]
        )
        assert r.exit_code == 0, r.output
        out = json.loads(r.stdout)
        assert out["results"] == {
            "good": {"mrr": 1.0, "hit@1": 1.0},
            "bad": {"mrr": 0.25, "hit@1": 0.0},
        }
        assert out["queries"] == 2


def test_eval_table_per_query_and_plot(
    files: tuple[Path, Path, Path, Path], tmp_path: Path
) -> None:
    good, _, qrels, _ = files
    png = tmp_path / "p.png"
    args = [
        "eval",
        str(good),
        str(qrels),
        "--metrics",
        "ndcg@10",
        "--per-query",
        "--plot",
        str(png),
    ]
    r = runner.invoke(app, args)
    assert r.exit_code == 0, r.output
    assert "q2" in r.stdout and "1.0000" in r.stdout
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_eval_errors(files: tuple[Path, Path, Path, Path], tmp_path: Path) -> None:
    good, _, qrels, _ = files
    r = runner.invoke(app, ["eval", str(good), str(qrels), "-m", "bleu"])
    assert r.exit_code == 2 and "unknown metric" in r.output
    r = runner.invoke(app, ["eval", str(qrels)])
    assert r.exit_code == 2 and "RUN" in r.output
    broken = tmp_path / "broken.run"
    broken.write_text("q1 Q0 a 1\n")
    r = runner.invoke(app, ["eval", str(broken), str(qrels)])
    assert r.exit_code == 2 and "broken.run:1" in r.output
    r = runner.invoke(app, ["eval", str(tmp_path / "none.run"), str(qrels)])
    assert r.exit_code == 2 and "not found" in r.output


def test_stats_queries(tmp_path: Path) -> None:
    f = tmp_path / "q.csv"
    f.write_text('id,query,answer_ids\n1,find a red shoe,"[10, 11]"\n2,blue hat,[3]\n')
    r = runner.invoke(app, ["stats", "queries", str(f), "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["n_queries"] == 2 and out["answers_mean"] == 1.5 and out["tokenizer"] == "whitespace"
    r = runner.invoke(app, ["stats", "queries", str(f)])
    assert r.exit_code == 0 and "entropy" in r.stdout
