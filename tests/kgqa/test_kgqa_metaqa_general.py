"""MetaQA with a pipeline spec: the general graph stage fitted on answers only (no qtypes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_kgqa_metaqa import write_folder
from typer.testing import CliRunner

from skbsearch.benchmarks.metaqa import run_metaqa
from skbsearch.benchmarks.metaqa.protocol import load_kb, read_split
from skbsearch.benchmarks.metaqa.spec import is_spec, training_data
from skbsearch.core.errors import InputError
from skbsearch.retrieve.linking import EntityLinker


def test_training_data_has_answers_but_no_question_types(tmp_path: Path) -> None:
    data = write_folder(tmp_path / "metaqa")
    kb = load_kb(data, tmp_path / "cache")
    qs = read_split(data, 1, "dev")[:3]
    queries, qrels = training_data(kb, EntityLinker(kb), qs, brackets=False)
    assert [q.text for q in queries] == [q.text.replace("[", "").replace("]", "") for q in qs]
    assert all(not q.meta for q in queries)  # nothing of the qtype
    assert qrels[qs[0].id] == {"William Dieterle": 1}
    assert is_spec("kg") and not is_spec("graph") and not is_spec("text")


def test_run_metaqa_with_the_general_stage(tmp_path: Path) -> None:
    data = write_folder(tmp_path / "metaqa")
    res = run_metaqa(data, hops=(1, 2), pipeline="kg", cache_dir=tmp_path / "cache")
    assert res.config["pipeline"] == "kg" and "no question types" in res.config["protocol"]
    assert res.config["spec"]["n_train"] == res.config["n_train"]["1-hop"] > 0
    for g in res.groups.values():
        assert g["hits@1"] >= 0.6 and {"hit@1", "hit@5", "recall@20", "mrr"} <= set(g)
    model = Path(res.config["spec"]["model"])
    assert (model / "model.json").is_file()
    again = run_metaqa(data, hops=(1, 2), pipeline="kg", cache_dir=tmp_path / "cache")
    assert again.groups == res.groups and "fit" not in again.config["spec"]  # the cached model


def test_bad_spec_fails_before_loading(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="unknown stage"):
        run_metaqa(tmp_path, pipeline="no-such-stage")


def test_cli_bench_metaqa_pipeline_spec(tmp_path: Path) -> None:
    from skbsearch.cli import app

    data = write_folder(tmp_path / "metaqa")
    out = tmp_path / "res.json"
    r = CliRunner().invoke(app, ["bench", "metaqa", "--data", str(data), "--hops", "1", "--pipeline", "kg(k=20)",
                                 "--json", str(out), "--cache", str(tmp_path / "cache")])
    assert r.exit_code == 0, r.output
    saved = json.loads(out.read_text())
    assert saved["config"]["pipeline"] == "kg(k=20)" and "1-hop" in saved["groups"]


def test_a_chain_reuses_the_cached_first_stage(tmp_path: Path) -> None:
    """``kg >> <untrained re-ranker>`` fits only kg, cached as for ``--pipeline kg``."""
    data = write_folder(tmp_path / "metaqa")
    res = run_metaqa(data, hops=(1,), pipeline="kg", cache_dir=tmp_path / "cache")
    chain = run_metaqa(data, hops=(1,), pipeline="kg >> input", cache_dir=tmp_path / "cache")
    assert chain.config["spec"]["model"] == res.config["spec"]["model"]
    assert "fit" not in chain.config["spec"] and chain.groups == res.groups
