"""`skb run` and `skb experiment` end to end on a small synthetic catalogue SKB."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from typer.testing import CliRunner

from skbsearch.cli import app
from skbsearch.core.types import Qrels, Run
from skbsearch.eval import evaluate
from skbsearch.synth import generate_catalogue

runner = CliRunner()


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 300-product catalogue with 30 queries, a BM25 index and a STaRK-style CSV."""
    root = tmp_path_factory.mktemp("catalogue")
    ds = generate_catalogue(300, seed=0, n_queries=30)
    ds.save(root / "cat")
    r = runner.invoke(app, ["index", str(root / "cat" / "skb"), "-q"])
    assert r.exit_code == 0, r.output
    with (root / "stark_qa.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "query", "answer_ids"])
        for q in ds.queries:
            w.writerow([q.id, q.text, json.dumps(sorted(ds.qrels.get(q.id, {})))])
    return root


def flat(text: str) -> str:
    """Console output with rich's line wrapping undone."""
    return " ".join(text.split())


def skb(data: Path) -> str:
    return str(data / "cat" / "skb")


def run_bm25(data: Path, out: Path, *extra: str) -> dict:
    r = runner.invoke(app, [
        "run", skb(data), "--queries", str(data / "cat" / "queries.jsonl"),
        "--pipeline", "bm25(k=50)", "--save-run", str(out),
        "--qrels", str(data / "cat" / "qrels.trec"), "-m", "hit@1,recall@20,mrr", "--json", *extra,
    ])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def test_run_writes_trec_and_evaluates(data: Path, tmp_path: Path) -> None:
    out = run_bm25(data, tmp_path / "runs" / "bm25.trec", "--k", "20")
    run = Run.from_trec(tmp_path / "runs" / "bm25.trec")
    assert len(run) == 30 and max(len(d) for d in run.values()) == 20
    qrels = Qrels.from_trec(data / "cat" / "qrels.trec")
    assert out["results"] == pytest.approx(evaluate(run, qrels, "hit@1,recall@20,mrr"))
    assert out["results"]["recall@20"] > 0.1  # BM25 finds something on the catalogue
    assert out["queries"] == 30 and out["ms_per_query"] > 0
    assert (tmp_path / "runs" / "bm25.trec").read_text().split("\n")[0].endswith(" bm25")


def test_run_stark_csv_queries_and_qrels_table(data: Path, tmp_path: Path) -> None:
    csv_file = str(data / "stark_qa.csv")
    r = runner.invoke(app, [
        "run", skb(data), "--queries", csv_file, "-p", "bm25(k=10)",
        "--save-run", str(tmp_path / "r.trec"), "--qrels", csv_file, "-m", "recall@10", "-q",
    ])
    assert r.exit_code == 0, r.output
    assert "recall@10" in r.stdout and "bm25" in r.stdout
    run = Run.from_trec(tmp_path / "r.trec")
    assert len(run) == 30 and max(len(d) for d in run.values()) <= 10


def test_run_with_qrels_only_prints_metrics_and_writes_nothing(data: Path, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's `skb run SKB --queries Q --qrels R -p SPEC` (no --save-run): metrics, Hit@10
    and MRR among the defaults, and no file anywhere."""
    monkeypatch.chdir(tmp_path)
    r = runner.invoke(app, ["run", skb(data), "--queries", str(data / "cat" / "queries.jsonl"),
                            "-p", "bm25", "--qrels", str(data / "cat" / "qrels.trec")])
    assert r.exit_code == 0, r.output
    assert "not saved" in flat(r.output) and "hit@10" in r.output and "mrr" in r.output
    assert not any(tmp_path.iterdir())
    r = runner.invoke(app, ["run", skb(data), "--queries", str(data / "cat" / "queries.jsonl"), "-p", "bm25"])
    assert r.exit_code == 2 and "nothing to do" in flat(r.output)


def test_run_errors(data: Path, tmp_path: Path) -> None:
    queries = str(data / "cat" / "queries.jsonl")
    r = runner.invoke(app, ["run", skb(data), "--queries", queries, "-p", "nosuchstage",
                            "--save-run", str(tmp_path / "x.trec")])
    assert r.exit_code == 2 and "unknown stage" in flat(r.output)
    other = tmp_path / "other.trec"
    Qrels({"zz": {"p1": 1}}).to_trec(other)
    r = runner.invoke(app, ["run", skb(data), "--queries", queries, "-p", "bm25",
                            "--save-run", str(tmp_path / "x.trec"), "--qrels", str(other)])
    assert r.exit_code == 2 and "none of the 30 queries has qrels" in flat(r.output)
    assert not (tmp_path / "x.trec").exists()


def worse_run(data: Path, path: Path) -> Run:
    """BM25's candidates in reverse order: a clearly weaker saved run."""
    run_bm25(data, path.with_suffix(".bm25"))
    base = Run.from_trec(path.with_suffix(".bm25"))
    rev = Run({q: {d: -s for d, s in docs.items()} for q, docs in base.items()}, name="rev")
    rev.to_trec(path)
    return rev


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
