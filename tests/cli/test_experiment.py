"""`skb experiment` (cli/experiment.py) end to end on a small synthetic catalogue SKB: named
pipelines against saved runs, paired tests with their correction, the CSV, LaTeX and plot
outputs, and the refusals."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from catalogue_runs import catalogue_data, flat, skb, worse_run
from scipy import stats
from typer.testing import CliRunner

from skbsearch.cli import app
from skbsearch.core.types import Qrels
from skbsearch.eval import evaluate

runner = CliRunner()


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 300-product catalogue with 30 queries, a BM25 index and a STaRK-style CSV."""
    return catalogue_data(tmp_path_factory.mktemp("catalogue"))


def test_experiment_pipeline_against_saved_run(data: Path, tmp_path: Path) -> None:
    rev = worse_run(data, tmp_path / "rev.trec")
    files = {k: tmp_path / f"out.{k}" for k in ("csv", "tex", "png")}
    r = runner.invoke(app, [
        "experiment", skb(data), "--queries", str(data / "cat" / "queries.jsonl"),
        "--qrels", str(data / "cat" / "qrels.trec"),
        "--pipeline", "bm25=bm25(k=50)", "--run", f"reversed={tmp_path / 'rev.trec'}",
        "-m", "mrr,ndcg@10", "--baseline", "reversed", "--correction", "holm", "--per-query",
        "--csv", str(files["csv"]), "--latex", str(files["tex"]), "--plot", str(files["png"]),
        "--json",
    ])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["systems"] == ["bm25", "reversed"] and out["baseline"] == "reversed"
    assert out["ms_per_query"]["bm25"] > 0 and out["ms_per_query"]["reversed"] is None
    qrels = Qrels.from_trec(data / "cat" / "qrels.trec")
    assert out["results"]["reversed"] == pytest.approx(evaluate(rev, qrels, "mrr,ndcg@10"))
    per_q = out["per_query"]
    qids = list(qrels)
    a = np.array([per_q["bm25"][q]["mrr"] for q in qids])
    b = np.array([per_q["reversed"][q]["mrr"] for q in qids])
    (cmp,) = [c for c in out["comparisons"] if c["metric"] == "mrr"]
    assert cmp["p_value"] == pytest.approx(stats.ttest_rel(a, b).pvalue, rel=1e-9)
    assert cmp["p_adjusted"] == pytest.approx(min(1.0, cmp["p_value"]))  # one system tested
    assert all(files[k].is_file() for k in files)
    assert "\\toprule" in files["tex"].read_text()
    rows = list(csv.DictReader(files["csv"].open()))
    assert [row["system"] for row in rows] == ["bm25", "reversed"]


def test_experiment_saved_runs_only_table(data: Path, tmp_path: Path) -> None:
    worse_run(data, tmp_path / "rev.trec")
    r = runner.invoke(app, [
        "experiment", "--qrels", str(data / "stark_qa.csv"),
        "--run", f"bm25={tmp_path / 'rev.bm25'}", "--run", str(tmp_path / "rev.trec"),
        "-m", "mrr", "--test", "randomization", "--permutations", "2000",
    ])
    assert r.exit_code == 0, r.output
    assert "bm25" in r.stdout and "rev" in r.stdout and "randomization" in r.stdout
    assert "ᵇ" in r.stdout  # bm25 (a) is significantly better than the reversed run (b)


def test_experiment_errors(data: Path, tmp_path: Path) -> None:
    qrels = str(data / "cat" / "qrels.trec")
    r = runner.invoke(app, ["experiment", skb(data), "--qrels", qrels, "-p", "bm25"])
    assert r.exit_code == 2 and "--queries" in flat(r.output)
    worse_run(data, tmp_path / "rev.trec")
    rev = str(tmp_path / "rev.trec")
    r = runner.invoke(app, ["experiment", "--qrels", qrels, "--run", f"x={rev}", "--run", f"x={rev}"])
    assert r.exit_code == 2 and "two systems are named 'x'" in flat(r.output)
    r = runner.invoke(app, ["experiment", "--qrels", qrels, "--run", rev, "--baseline", "nope"])
    assert r.exit_code == 2 and "baseline 'nope'" in flat(r.output)
    r = runner.invoke(app, ["experiment", "--qrels", qrels, "--run", rev, "--test", "z"])
    assert r.exit_code == 2 and "unknown significance test" in flat(r.output)


def test_systems_are_named_by_spec_or_file_stem(data: Path, tmp_path: Path) -> None:
    from skbsearch.cli.experiment import collect_systems
    from skbsearch.core.errors import InputError

    worse_run(data, tmp_path / "rev.trec")
    systems = collect_systems(["bm25(k=5)", "mine=bm25(k=7)"], [str(tmp_path / "rev.trec")],
                              Path(skb(data)))
    assert list(systems) == ["bm25(k=5)", "mine", "rev"]
    assert repr(systems["mine"]) == "bm25(k=7)" and systems["rev"].name == "rev"
    with pytest.raises(FileNotFoundError, match="run file not found"):
        collect_systems([], [str(tmp_path / "none.trec")], None)
    with pytest.raises(InputError, match="nothing to compare"):
        collect_systems([], [], None)
    with pytest.raises(InputError, match="pipelines run on an SKB"):
        collect_systems(["bm25"], [], None)


def test_the_text_table_names_the_outputs_written(data: Path, tmp_path: Path) -> None:
    worse_run(data, tmp_path / "rev.trec")
    r = runner.invoke(app, ["experiment", "--qrels", str(data / "cat" / "qrels.trec"),
                            "--run", f"base={tmp_path / 'rev.bm25'}", "--run", str(tmp_path / "rev.trec"),
                            "-m", "mrr", "--csv", str(tmp_path / "t.csv")])
    assert r.exit_code == 0, r.output
    assert f"csv written to {tmp_path / 't.csv'}" in flat(r.output) and "(30 queries)" in flat(r.output)
    r = runner.invoke(app, ["experiment", "--run", str(tmp_path / "rev.trec")])
    assert r.exit_code == 2 and "--qrels" in flat(r.output)
