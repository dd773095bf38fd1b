"""MetaQA with a pipeline spec: the general graph stage fitted on answers only (no qtypes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kgqa_fixtures import write_folder
from typer.testing import CliRunner

from skbsearch.benchmarks.metaqa import run_metaqa
from skbsearch.benchmarks.metaqa.protocol import load_kb, read_split
from skbsearch.benchmarks.metaqa.spec import training_data
from skbsearch.core.errors import InputError
from skbsearch.retrieve.graph.linking import NameLinker


def test_training_data_has_answers_but_no_question_types(tmp_path: Path) -> None:
    data = write_folder(tmp_path / "metaqa")
    kb = load_kb(data, tmp_path / "cache")
    qs = read_split(data, 1, "dev")[:3]
    queries, qrels = training_data(kb, NameLinker(kb), qs, brackets=False)
    assert [q.text for q in queries] == [q.text.replace("[", "").replace("]", "") for q in qs]
    assert all(not q.meta for q in queries)  # nothing of the qtype
    assert qrels[qs[0].id] == {"William Dieterle": 1}


def test_run_metaqa_with_the_general_stage(tmp_path: Path) -> None:
    data = write_folder(tmp_path / "metaqa")
    res = run_metaqa(data, hops=(1, 2), cache_dir=tmp_path / "cache")
    assert res.config["pipeline"] == "graph" and "no question types" in res.config["protocol"]
    assert res.config["spec"]["n_train"] == res.config["n_train"]["1-hop"] > 0
    for g in res.groups.values():
        assert g["hits@1"] >= 0.6 and {"hit@1", "hit@5", "recall@20", "mrr"} <= set(g)
    model = Path(res.config["spec"]["model"])
    assert (model / "model.json").is_file()
    again = run_metaqa(data, "kg", hops=(1, 2), cache_dir=tmp_path / "cache")  # the old name, same stage
    assert again.groups == res.groups and "fit" not in again.config["spec"]  # the cached model


def test_bad_spec_fails_before_loading(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="unknown stage"):
        run_metaqa(tmp_path, "no-such-stage")


def test_cli_bench_metaqa_pipeline_spec(tmp_path: Path) -> None:
    from skbsearch.cli import app

    data = write_folder(tmp_path / "metaqa")
    out = tmp_path / "res.json"
    r = CliRunner().invoke(app, ["bench", "metaqa", "--data", str(data), "--hops", "1", "--pipeline", "graph(k=20)",
                                 "--pipeline", "bm25", "--json", str(out), "--cache", str(tmp_path / "cache")])
    assert r.exit_code == 0, r.output
    saved = json.loads(out.read_text())  # one result a spec, in their order
    assert [s["config"]["pipeline"] for s in saved] == ["graph(k=20)", "bm25"]
    assert all("1-hop" in s["groups"] for s in saved)


def test_cli_old_pipeline_names_print_the_spec_to_use(tmp_path: Path) -> None:
    from skbsearch.cli import app

    data = write_folder(tmp_path / "metaqa")
    r = CliRunner().invoke(app, ["bench", "metaqa", "--data", str(data), "--hops", "1", "--pipeline", "text", "-q",
                                 "--link", "ngram", "--json", str(tmp_path / "r.json"), "--cache", str(tmp_path / "c")])
    assert r.exit_code == 0, r.output
    assert "--pipeline 'bm25'" in r.output and "--no-brackets" in r.output
    saved = json.loads((tmp_path / "r.json").read_text())
    assert saved["config"]["pipeline"] == "bm25" and saved["config"]["brackets"] is False
    for old in (["--pipeline", "rerank"], ["--model", str(tmp_path)], ["--graph-weight", "1"]):
        r = CliRunner().invoke(app, ["bench", "metaqa", "--data", str(data), *old])
        assert r.exit_code != 0 and "retired" in r.output or "rerank" in r.output


def test_a_chain_reuses_the_cached_first_stage(tmp_path: Path) -> None:
    """``graph >> <untrained re-ranker>`` fits only graph, cached as for ``--pipeline graph``."""
    data = write_folder(tmp_path / "metaqa")
    res = run_metaqa(data, hops=(1,), cache_dir=tmp_path / "cache")
    chain = run_metaqa(data, "graph >> input", hops=(1,), cache_dir=tmp_path / "cache")
    assert chain.config["spec"]["model"] == res.config["spec"]["model"]
    assert "fit" not in chain.config["spec"] and chain.groups == res.groups


def test_the_model_cache_key_follows_the_stage_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A model fitted by other code of the stage's package is not reused."""
    from skbsearch.benchmarks.metaqa import spec as metaqa_spec
    from skbsearch.core.types import Qrels, Query
    from skbsearch.stages import pipeline

    stage, qs, qrels = pipeline("graph"), [Query("q", "who directed x")], Qrels({"q": {"a": 1}})
    first = metaqa_spec._cache_dir(stage, qs, qrels, tmp_path)
    assert first == metaqa_spec._cache_dir(stage, qs, qrels, tmp_path)
    real = metaqa_spec._code_digest(stage)
    monkeypatch.setattr(metaqa_spec, "_code_digest", lambda s: real + "-changed")
    assert metaqa_spec._cache_dir(stage, qs, qrels, tmp_path) != first


def test_the_code_digest_reads_the_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Changing any source file of the package changes the digest (a copy of the package is
    imported from ``tmp_path`` in a fresh process, one file edited between two digests)."""
    import shutil
    import subprocess
    import sys

    import skbsearch

    src = tmp_path / "src"
    shutil.copytree(Path(skbsearch.__file__).parent, src / "skbsearch",
                    ignore=shutil.ignore_patterns("__pycache__"))
    code = ("from skbsearch.benchmarks.metaqa.spec import _code_digest; "
            "from skbsearch.stages import pipeline; print(_code_digest(pipeline('graph')))")

    def digest() -> str:
        return subprocess.run([sys.executable, "-c", code], env={"PYTHONPATH": str(src), "PATH": ""},
                              capture_output=True, text=True, check=True).stdout.strip()

    before = digest()
    assert before == digest()
    with (src / "skbsearch" / "index" / "sparse.py").open("a") as f:
        f.write("\n# changed\n")
    assert digest() != before
