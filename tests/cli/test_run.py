"""`skb run` (cli/run.py) end to end on a small synthetic catalogue SKB (`skb experiment`:
tests/cli/test_experiment.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from catalogue_runs import catalogue_data, flat, run_bm25, skb
from typer.testing import CliRunner

from skbsearch.cli import app
from skbsearch.core.types import Qrels, Run
from skbsearch.eval import evaluate

runner = CliRunner()


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 300-product catalogue with 30 queries, a BM25 index and a STaRK-style CSV."""
    return catalogue_data(tmp_path_factory.mktemp("catalogue"))


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


def test_a_name_is_split_off_only_when_it_is_a_plain_word() -> None:
    from skbsearch.cli.run import split_named
    from skbsearch.core.errors import InputError

    assert split_named("bm25=bm25(k=50)", "--pipeline") == ("bm25", "bm25(k=50)")
    assert split_named(" bm25(k=10) ", "--pipeline") == (None, "bm25(k=10)")  # a spec, not a name
    assert split_named("my.run-1=runs/a.trec", "--run") == ("my.run-1", "runs/a.trec")
    assert split_named("x=", "--run") == (None, "x=")
    with pytest.raises(InputError, match="empty value") as e:
        split_named("  ", "--run")
    assert e.value.field == "--run"


def test_batches_make_one_run_and_a_stage_must_return_one(data: Path) -> None:
    from skbsearch.cli.run import build_pipeline, load_queries, load_skb, run_batched
    from skbsearch.core.errors import InputError

    queries = load_queries(data / "cat" / "queries.jsonl", None, None)
    stage = build_pipeline("bm25(k=5)", load_skb(data / "cat" / "skb"))
    whole, _ = run_batched(stage, queries, 64, quiet=True)
    batched, seconds = run_batched(stage, queries, 7, quiet=True)
    assert batched == whole and len(batched) == 30 and seconds > 0
    with pytest.raises(InputError, match="returned list, not a run"):
        run_batched(lambda qs: [q.id for q in qs], queries, 10, quiet=True)
    with pytest.raises(InputError, match="give its directory"):
        load_skb(None)
    with pytest.raises(FileNotFoundError, match="SKB directory not found"):
        load_skb(data / "nope")


def test_a_run_tag_with_spaces_and_the_k_cut(data: Path, tmp_path: Path) -> None:
    queries = str(data / "cat" / "queries.jsonl")
    r = runner.invoke(app, ["run", skb(data), "--queries", queries, "-p", "bm25",
                            "--save-run", str(tmp_path / "x.trec"), "--tag", "two words"])
    assert r.exit_code == 2 and "a TREC run tag has no spaces" in flat(r.output)
    r = runner.invoke(app, ["run", skb(data), "--queries", queries, "-p", "bm25", "-k", "3",
                            "--save-run", str(tmp_path / "x.trec"), "--tag", "mine", "-q"])
    assert r.exit_code == 0, r.output
    run = Run.from_trec(tmp_path / "x.trec")
    assert max(len(d) for d in run.values()) == 3
    assert (tmp_path / "x.trec").read_text().split("\n")[0].endswith(" mine")
