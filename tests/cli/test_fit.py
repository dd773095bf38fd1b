"""``skb fit`` (cli/fit.py): fit a pipeline on judged queries, say whether the fitted one was
kept (text and --json), and refuse what cannot be fitted before any work."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import assert_clean_error, invoke
from kg_fixtures import shop, shop_queries


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    """The shop SKB, its judged queries (JSONL) and their qrels (TREC)."""
    root = tmp_path_factory.mktemp("fit")
    kb_dir = root / "shop.skb"
    shop().save(kb_dir)
    queries, qrels = shop_queries()
    qfile, rfile = root / "q.jsonl", root / "qrels.trec"
    qfile.write_text("".join(json.dumps({"id": q.id, "text": q.text}) + "\n" for q in queries))
    qrels.to_trec(rfile)
    return {"kb": kb_dir, "queries": qfile, "qrels": rfile}


def _fit(files: dict[str, Path], pipeline: str, out: Path, *extra: str):
    return invoke("fit", files["kb"], "-p", pipeline, "--queries", files["queries"],
                  "--qrels", files["qrels"], "--out", out, *extra)


def test_fit_command_says_whether_it_kept_the_model(files, tmp_path):
    r = _fit(files, "graph", tmp_path / "out", "--folds", "3")
    assert r.exit_code == 0, r.output
    assert "untrained" in r.output and "fitted (3-fold held out)" in r.output
    assert ("kept:" in r.output) == (tmp_path / "out" / "pipeline.txt").exists()


def test_json_is_the_saved_comparison(files, tmp_path):
    r = _fit(files, "bm25 + bm25(k=5)", tmp_path / "out", "--folds", "2", "--metric", "ndcg@5",
             "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    saved = json.loads((tmp_path / "out" / "fit.json").read_text())
    assert out["out"] == str(tmp_path / "out") and out["metric"] == "ndcg@5"
    assert {k: v for k, v in out.items() if k != "out"} == {k: v for k, v in saved.items()
                                                             if k != "artefact"}
    assert "ndcg@5" in out["fitted"] and "mrr" in out["untrained"]  # the decider and the rest
    assert out["folds"] == 2 and out["queries"] == len(shop_queries()[0])


def test_a_pipeline_with_nothing_to_fit_is_a_clean_error(files, tmp_path):
    r = _fit(files, "bm25", tmp_path / "out", "--folds", "3")
    assert_clean_error(r, "nothing to fit")
    assert not (tmp_path / "out").exists()


def test_an_output_folder_of_something_else_is_refused_before_fitting(files, tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "todo.txt").write_text("mine")
    assert_clean_error(_fit(files, "graph", notes), "--out")
    r = _fit(files, "graph", tmp_path / "o", "--folds", "1")
    assert r.exit_code == 2 and "Invalid value for '--folds'" in r.output
    assert (notes / "todo.txt").read_text() == "mine"
