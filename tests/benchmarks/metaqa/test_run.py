"""MetaQA's protocol end to end (benchmarks/metaqa/run.py) on a synthetic folder: dev (fitted
on a hash half, scored on the other) and test splits, per-hop groups with the KB ceiling, the
settings refused before any work, and (slow, with the data) the real MetaQA near its ceiling."""

from __future__ import annotations

from pathlib import Path

import pytest
from kgqa_fixtures import write_folder

from skbsearch.benchmarks.metaqa import run_metaqa
from skbsearch.benchmarks.metaqa.run import MetaQASettings
from skbsearch.benchmarks.result import BenchmarkResult
from skbsearch.core.errors import InputError


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


def test_run_metaqa_bad_arguments(tmp_path: Path) -> None:
    with pytest.raises(InputError):
        run_metaqa(tmp_path, split="train")
    with pytest.raises(InputError):
        run_metaqa(tmp_path, hops=(4,))
    with pytest.raises(InputError, match="kb.tsv"):
        run_metaqa(tmp_path, cache_dir=tmp_path / "c")




@pytest.mark.parametrize(("kw", "field"), [({"split": "train"}, "split"), ({"train_on": "hops"}, "train_on"),
                                           ({"hops": (1, 4)}, "hops"), ({"batch_size": 0}, "batch_size")])
def test_settings_are_checked_on_construction(tmp_path: Path, kw: dict, field: str) -> None:
    with pytest.raises(InputError) as e:
        MetaQASettings(tmp_path, **kw)
    assert e.value.field == field


def test_the_protocol_sentence_and_training_per_hop(tmp_path: Path) -> None:
    data = write_folder(tmp_path / "metaqa", with_test=True)
    res = run_metaqa(data, split="test", hops=(1,), limit=3, train_on="hop", brackets=False,
                     cache_dir=tmp_path / "cache")
    protocol = res.config["protocol"]
    assert protocol.startswith("test: pipeline graph") and "all dev questions of the same hop" in protocol
    assert "scored on qa_test.txt" in protocol and "without the [topic] brackets" in protocol
    assert res.config["n_questions"] == {"1-hop": 3}


@pytest.mark.slow
@pytest.mark.data
def test_real_metaqa_graph_near_ceiling(shared_data: Path, tmp_path: Path) -> None:
    # fitted on a 15% hash sample of dev (~5,900 questions: the slow part is the fit), scored
    # on 150 held-out questions a hop
    res = run_metaqa(shared_data / "metaqa", hops=(1, 2, 3), limit=150, cache_dir=tmp_path, train_fraction=0.15)
    for g in res.groups.values():
        assert g["hits@1"] >= g["ceiling"] - 0.03
        assert g["hits@1_decidable"] >= g["ceiling_decidable"] - 0.01
