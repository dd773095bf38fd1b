"""The MetaQA adapter and protocol on a synthetic folder (and, slow, on the real data)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from kgqa_fixtures import MOVIES
from typer.testing import CliRunner

from skbsearch.benchmarks.metaqa import ambiguity_split, read_questions, run_metaqa
from skbsearch.benchmarks.result import BenchmarkResult
from skbsearch.core.errors import InputError

FORMS = {
    "movie_to_director": ["who directed [{m}]", "who is the director of [{m}]", "[{m}] was directed by who"],
    "movie_to_year": ["when was [{m}] released", "what year did [{m}] come out", "[{m}] release year"],
    "actor_to_movie": ["what films did [{a}] act in", "which movies star [{a}]", "[{a}] appears in which movies"],
}
TWO_HOP = ["who directed the films [{a}] acted in", "the movies of [{a}] were directed by who",
           "who are the directors of films starring [{a}]"]


def write_folder(root: Path, with_test: bool = False) -> Path:
    (root / "1-hop").mkdir(parents=True)
    (root / "2-hop").mkdir()
    kb = [f"{m}\t{r}\t{t}" for m, rels in MOVIES.items() for r, ts in rels.items() for t in ts]
    (root / "kb.tsv").write_text("\n".join(kb) + "\n", encoding="utf-8")
    actors: dict[str, list[str]] = {}
    for m, rels in MOVIES.items():
        for a in rels["starred_actors"]:
            actors.setdefault(a, []).append(m)
    one, one_t, two, two_t = [], [], [], []
    for m, rels in MOVIES.items():
        for f in FORMS["movie_to_director"]:
            one.append(f"{f.format(m=m)}\t{rels['directed_by'][0]}")
            one_t.append("movie_to_director")
        for f in FORMS["movie_to_year"]:
            one.append(f"{f.format(m=m)}\t{rels['release_year'][0]}")
            one_t.append("movie_to_year")
    for a, ms in actors.items():
        for f in FORMS["actor_to_movie"]:
            one.append(f"{f.format(a=a)}\t{'|'.join(ms)}")
            one_t.append("actor_to_movie")
        directors = sorted({d for m in ms for d in MOVIES[m]["directed_by"]})
        for f in TWO_HOP:
            two.append(f"{f.format(a=a)}\t{'|'.join(directors)}")
            two_t.append("actor_to_movie_to_director")
    for h, qs, ts in ((1, one, one_t), (2, two, two_t)):
        (root / f"{h}-hop" / "qa_dev.txt").write_text("\n".join(qs) + "\n", encoding="utf-8")
        (root / f"{h}-hop" / "qa_dev_qtype.txt").write_text("\n".join(ts) + "\n", encoding="utf-8")
        if with_test:  # a test split without a qtype file
            (root / f"{h}-hop" / "qa_test.txt").write_text("\n".join(qs[::2]) + "\n", encoding="utf-8")
    return root


def test_read_questions_errors(tmp_path: Path) -> None:
    bad = tmp_path / "qa.txt"
    bad.write_text("who directed Kismet\tWilliam Dieterle\n", encoding="utf-8")
    with pytest.raises(InputError, match="topic entity"):
        read_questions(bad, 1)
    bad.write_text("who directed [Kismet]\n", encoding="utf-8")
    with pytest.raises(InputError) as e:
        read_questions(bad, 1)
    assert e.value.line == 1


def test_run_metaqa_dev_graph_and_text(tmp_path: Path) -> None:
    data = write_folder(tmp_path / "metaqa")
    res = run_metaqa(data, hops=(1, 2), cache_dir=tmp_path / "cache")
    assert set(res.groups) == {"1-hop", "2-hop"}
    for g in res.groups.values():
        assert g["ceiling"] == 1.0 and g["answer_in_kb"] == 1.0
        assert g["hits@1"] >= 0.8 and 0 <= g["mrr"] <= 1  # fitted on 28 questions; 5 of 6 2-hop
    assert res.config["n_train"]["1-hop"] + res.config["n_questions"]["1-hop"] >= 1
    assert {"p50", "p95", "1-hop.p50"} <= set(res.latency_ms)
    again = BenchmarkResult.from_json(res.to_json(tmp_path / "r.json"))
    assert again == res
    text = run_metaqa(data, "bm25", hops=(1,), cache_dir=tmp_path / "cache")
    assert text.config["pipeline"] == "bm25" and 0 <= text.metrics["hits@1"] <= 1


def test_run_metaqa_test_split_without_qtypes(tmp_path: Path) -> None:
    data = write_folder(tmp_path / "metaqa", with_test=True)
    res = run_metaqa(data, split="test", hops=(1, 2), limit=5, cache_dir=tmp_path / "cache")
    assert res.config["n_questions"] == {"1-hop": 5, "2-hop": 5}
    assert res.groups["2-hop"]["ceiling"] == 1.0  # reachable within 2 hops


def test_ambiguity_split_hand_computed() -> None:
    hits = np.array([1.0, 0.0, 1.0, 0.0, 1.0])
    ceiling = np.array([True, False, True, True, True])
    top1 = np.array([1.0, 0.0, 0.5, 0.25, np.nan])  # the last has no qtype: left out
    out = ambiguity_split(hits, ceiling, top1)
    assert out["ambiguous"] == 0.5  # 2 of the 4 with a qtype
    assert out["hits@1_decidable"] == 0.5 and out["ceiling_decidable"] == 0.5
    assert out["hits@1_ambiguous"] == 0.5 and out["random_ambiguous"] == 0.375
    assert ambiguity_split(hits, ceiling, np.full(5, np.nan)) == {"ambiguous": 0.0}


def test_run_metaqa_bad_arguments(tmp_path: Path) -> None:
    with pytest.raises(InputError):
        run_metaqa(tmp_path, split="train")
    with pytest.raises(InputError):
        run_metaqa(tmp_path, hops=(4,))
    with pytest.raises(InputError, match="kb.tsv"):
        run_metaqa(tmp_path, cache_dir=tmp_path / "c")


def test_cli_bench_metaqa(tmp_path: Path) -> None:
    from skbsearch.cli import app

    data = write_folder(tmp_path / "metaqa")
    out = tmp_path / "res.json"
    r = CliRunner().invoke(app, ["bench", "metaqa", "--data", str(data), "--hops", "1", "--json", str(out),
                                 "--cache", str(tmp_path / "cache")])
    assert r.exit_code == 0, r.output
    assert "1-hop" in r.output and "protocol" in r.output
    assert json.loads(out.read_text())["benchmark"] == "metaqa"
    r = CliRunner().invoke(app, ["bench", "metaqa", "--data", str(tmp_path), "--hops", "x"])
    assert r.exit_code == 2


@pytest.mark.slow
@pytest.mark.data
def test_real_metaqa_graph_near_ceiling(shared_data: Path, tmp_path: Path) -> None:
    # fitted on a 15% hash sample of dev (~5,900 questions: the slow part is the fit), scored
    # on 150 held-out questions a hop
    res = run_metaqa(shared_data / "metaqa", hops=(1, 2, 3), limit=150, cache_dir=tmp_path, train_fraction=0.15)
    for g in res.groups.values():
        assert g["hits@1"] >= g["ceiling"] - 0.03
        assert g["hits@1_decidable"] >= g["ceiling_decidable"] - 0.01
