"""MetaQA miss classification: one cause per miss, K-fold held-out protocol."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from kgqa_fixtures import write_folder

from skbsearch.benchmarks.metaqa import load_kb, read_split
from skbsearch.benchmarks.metaqa.misses import CAUSES, classify, fold_of, kfold_misses
from skbsearch.benchmarks.metaqa.paths import RelationPathRetriever
from skbsearch.core.errors import InputError
from skbsearch.kb.store import SKB
from skbsearch.retrieve.graph.linking import NameLinker
from skbsearch.retrieve.graph.relpath import RelationPathModel


def two_smiths() -> SKB:
    """Two actors named John Smith (different nodes), each in one film with one co-star."""
    ids = ["m1", "m2", "p1", "p2", "p3", "p4"]
    types = ["movie", "movie", "person", "person", "person", "person"]
    names = ["Alpha", "Beta", "John Smith", "John Smith", "Ann Lee", "Bob Ray"]
    src = np.array([0, 0, 1, 1])
    dst = np.array([2, 4, 3, 5])
    return SKB.from_columns(ids, types, names, edges=(src, ["starred_actors"] * 4, dst))


def question(text: str, answers: tuple[str, ...], qtype: str):  # noqa: ANN201
    from skbsearch.benchmarks.metaqa import MetaQAQuestion

    return MetaQAQuestion("q", text, answers, 1, qtype)


def node(skb: SKB, ident: str) -> int:
    return int(skb.index_of(ident))


def test_fold_of_is_deterministic_and_in_range() -> None:
    folds = [fold_of(f"question {i}", 5) for i in range(200)]
    assert folds == [fold_of(f"question {i}", 5) for i in range(200)]
    assert set(folds) == set(range(5))


def test_classify_each_cause() -> None:
    skb = two_smiths()
    linker = NameLinker(skb)
    stage = RelationPathRetriever(skb, RelationPathModel(), linker)
    films = ("starred_actors^-1",)
    q = question("what films did [John Smith] act in", ("Alpha",), "actor_to_movie")
    alpha, beta = node(skb, "m1"), node(skb, "m2")
    assert classify(stage, linker, q, films, np.array([alpha, beta]), np.array([0.5, 0.5])).cause is None
    # Beta is reached only from the other John Smith: linking
    miss = classify(stage, linker, q, films, np.array([beta, alpha]), np.array([0.6, 0.4]))
    assert miss.cause == "linking" and "John Smith" in miss.detail
    # a wrong predicted path whose answer is not on the gold path
    lee = node(skb, "p3")
    assert classify(stage, linker, q, ("starred_actors",), np.array([lee]), np.array([1.0])).cause == "relation path"
    # gold answer not a node, or not on the gold path
    q_gap = question("what films did [John Smith] act in", ("Gamma",), "actor_to_movie")
    assert classify(stage, linker, q_gap, films, np.array([alpha]), np.array([1.0])).cause == "kb gap"
    q_off = question("what films did [Ann Lee] act in", ("Beta",), "actor_to_movie")
    assert classify(stage, linker, q_off, films, np.array([alpha]), np.array([1.0])).cause == "kb gap"
    q_none = question("what films did [Nobody] act in", ("Alpha",), "actor_to_movie")
    assert classify(stage, linker, q_none, films, np.zeros(0, np.int64), np.zeros(0)).cause == "kb gap"


def test_classify_tie_and_ranking() -> None:
    skb = two_smiths()
    linker = NameLinker(skb)
    stage = RelationPathRetriever(skb, RelationPathModel(), linker)
    q = question("who acted in [Alpha]", ("Ann Lee",), "movie_to_actor")
    smith, lee = node(skb, "p1"), node(skb, "p3")
    path = ("starred_actors",)
    tie = classify(stage, linker, q, path, np.array([smith, lee]), np.array([0.5 + 1e-7, 0.5]))
    assert tie.cause == "tie" and "50% gold" in tie.detail
    ranked = classify(stage, linker, q, path, np.array([smith, lee]), np.array([0.9, 0.5]))
    assert ranked.cause == "ranking"
    with pytest.raises(InputError):
        classify(stage, linker, question("who acted in [Alpha]", ("Ann Lee",), None), path,  # type: ignore[arg-type]
                 np.array([smith]), np.array([1.0]))


def test_kfold_misses_on_a_synthetic_folder(tmp_path: Path) -> None:
    data = write_folder(tmp_path / "metaqa")
    skb = load_kb(data, tmp_path / "cache")
    linker = NameLinker(skb)
    questions = {h: read_split(data, h, "dev") for h in (1, 2)}
    groups, misses = kfold_misses(skb, linker, questions, k=3, cache_dir=tmp_path / "cache")
    assert set(groups) == {"1-hop", "2-hop"}
    assert len(misses) == sum(len(q) for q in questions.values())
    for g in groups.values():
        assert g["hits@1"] + sum(g[c] for c in CAUSES) == pytest.approx(1.0)
        assert g["ceiling_path"] == 1.0 and g["ceiling_hops"] == 1.0
        assert g["gap_hops"] == pytest.approx(1.0 - g["hits@1"])
        assert 0.0 <= g["path_acc"] <= 1.0
        assert g["ambiguous"] == 0.0 and g["hits@1_decidable"] == g["hits@1"]
    with pytest.raises(InputError):
        kfold_misses(skb, linker, questions, k=1)


def test_kfold_misses_with_backoff(tmp_path: Path) -> None:
    data = write_folder(tmp_path / "metaqa")
    skb = load_kb(data, tmp_path / "cache")
    questions = {1: read_split(data, 1, "dev")}
    groups, _ = kfold_misses(skb, NameLinker(skb), questions, k=2, backoff=True, cache_dir=tmp_path / "cache")
    assert groups["1-hop"]["hits@1"] + sum(groups["1-hop"][c] for c in CAUSES) == pytest.approx(1.0)


def test_run_metaqa_backoff_switch(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from skbsearch.benchmarks.metaqa import run_metaqa
    from skbsearch.cli import app

    data = write_folder(tmp_path / "metaqa", with_test=True)
    on = run_metaqa(data, hops=(1,), cache_dir=tmp_path / "cache")
    off = run_metaqa(data, "graph(backoff=0)", hops=(1,), cache_dir=tmp_path / "cache")
    assert on.config["pipeline"] == "graph" and off.config["pipeline"] == "graph(backoff=0)"
    test = run_metaqa(data, split="test", hops=(1, 2), cache_dir=tmp_path / "cache")  # dev + qa_test.txt only
    assert test.config["n_questions"]["1-hop"] > 0
    r = CliRunner().invoke(app, ["bench", "metaqa", "--data", str(data), "--hops", "1", "--no-backoff", "-q",
                                 "--cache", str(tmp_path / "cache"), "--json", str(tmp_path / "r.json")])
    assert r.exit_code == 0, r.output  # the old flag runs, and says what to use instead
    assert "graph(backoff=0)" in r.output
    assert '"pipeline": "graph(backoff=0)"' in (tmp_path / "r.json").read_text()
