"""IMPLIRET's retrieval protocol (benchmarks/impliret/run.py) on hand-written pools: the
metrics by hand, what the protocol may and may not read, the per-pool limit, the per-pool
scoring and the paper's table rows; one pool of the shared data."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from impliret_pools import ARITHMETIC, TEMPORAL, tiny_folder
from impliret_pools import write_pool as _write

from skbsearch.benchmarks.impliret import run_impliret
from skbsearch.benchmarks.impliret.run import score_by_pool, table_rows
from skbsearch.benchmarks.result import BenchmarkResult
from skbsearch.core.errors import InputError
from skbsearch.core.types import Qrels, Query, Run


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    return tiny_folder(tmp_path)


def test_protocol_hand_computed(tiny: Path) -> None:
    r = run_impliret(tiny, pipeline="enrich")
    d_ndcg = 1 / math.log2(3)  # D's positive at rank 2
    t = r.groups["temporal_multispeaker"]
    assert t["ndcg@10"] == pytest.approx((3 + d_ndcg) / 4)
    assert t["mrr@10"] == pytest.approx((3 + 0.5) / 4)
    assert t["recall@10"] == pytest.approx(1.0)
    assert r.groups["arithmetic_multispeaker"]["ndcg@10"] == pytest.approx(1.0)
    # category = mean over present styles; overall = mean over categories
    assert r.groups["temporal"]["ndcg@10"] == pytest.approx(t["ndcg@10"])
    assert r.metrics["ndcg@10"] == pytest.approx(((3 + d_ndcg) / 4 + 1.0) / 2)
    assert r.metrics["mrr@10"] == pytest.approx((0.875 + 1.0) / 2)
    assert sorted(r.config["missing_pools"]) == sorted(
        ["arithmetic_unispeaker", "temporal_unispeaker", "wknow_multispeaker", "wknow_unispeaker"])
    assert r.config["n_documents"] == 6 and r.config["n_queries"] == 6
    assert {"p50", "p95", "temporal_multispeaker.p50"} <= set(r.latency_ms)


def test_plain_bm25_cannot_resolve_dates(tiny: Path) -> None:
    enrich = run_impliret(tiny, pipeline="enrich").groups["temporal_multispeaker"]["mrr@10"]
    bm25 = run_impliret(tiny, pipeline="bm25").groups["temporal_multispeaker"]["mrr@10"]
    assert bm25 < enrich


def test_answers_and_other_questions_do_not_change_ranking(tiny: Path, tmp_path: Path) -> None:
    base = run_impliret(tiny, pipeline="enrich")
    changed = [dict(r, answer="garbage " * 3) for r in TEMPORAL]
    d2 = tmp_path / "changed"
    _write(d2, "temporal_multispeaker", changed)
    _write(d2, "arithmetic_multispeaker", ARITHMETIC)
    assert run_impliret(d2, pipeline="enrich").groups == base.groups


def test_limit_per_pool_scores_first_queries_over_all_documents(tiny: Path) -> None:
    r = run_impliret(tiny, pipeline="enrich", limit_per_pool=1)
    assert r.config["n_queries"] == 2 and r.config["n_documents"] == 6
    assert r.groups["temporal_multispeaker"]["ndcg@10"] == pytest.approx(1.0)


def test_an_unknown_pipeline_is_refused(tiny: Path) -> None:
    with pytest.raises(InputError, match="pipeline"):
        run_impliret(tiny, pipeline="nope")


@pytest.mark.data
def test_shared_one_pool_default_pipeline(shared_data: Path, tmp_path: Path) -> None:
    src = shared_data / "impliret" / "temporal_multispeaker.jsonl"
    if not src.is_file():
        pytest.skip("IMPLIRET pool not in shared data")
    d = tmp_path / "impliret"
    d.mkdir()
    (d / src.name).symlink_to(src)
    r = run_impliret(d, limit_per_pool=15, gazetteer=shared_data / "gazetteer" / "wikidata_landmarks.jsonl")
    assert r.config["n_documents"] == 750 and r.config["n_queries"] == 15
    assert r.metrics["ndcg@10"] >= 0.9


def test_scores_by_pool_then_category_then_the_average() -> None:
    queries = [Query("temporal_multispeaker/0", "a"), Query("temporal_multispeaker/1", "b"),
               Query("wknow_unispeaker/0", "c")]
    qrels = Qrels({q.id: {q.id: 1} for q in queries})
    run = Run({"temporal_multispeaker/0": {"temporal_multispeaker/0": 1.0},  # hit
               "wknow_unispeaker/0": {"x": 2.0, "wknow_unispeaker/0": 1.0}})  # rank 2; /1: none
    overall, groups = score_by_pool(run, qrels, queries, ["temporal_multispeaker", "arithmetic_unispeaker",
                                                          "wknow_unispeaker"], ["mrr@10"])
    assert groups["temporal_multispeaker"] == {"mrr@10": 0.5} and groups["wknow"] == {"mrr@10": 0.5}
    assert "arithmetic_unispeaker" not in groups and overall == {"mrr@10": 0.5}


def test_table_rows_are_the_papers_with_dashes_for_missing_pools() -> None:
    result = BenchmarkResult("impliret", {}, {"ndcg@10": 0.5},
                             {"temporal_multispeaker": {"ndcg@10": 0.25}, "temporal": {"ndcg@10": 0.25},
                              "wknow_unispeaker": {"ndcg@10": 0.75}, "wknow": {"ndcg@10": 0.75}}, {})
    rows = table_rows(result)
    assert rows == [
        {"": "multispeaker", "arithmetic": "-", "temporal": 25.0, "wknow": "-"},
        {"": "unispeaker", "arithmetic": "-", "temporal": "-", "wknow": 75.0},
        {"": "average (styles)", "arithmetic": "-", "temporal": 25.0, "wknow": 75.0, "Average": 50.0}]
    assert table_rows(result, "mrr@10")[-1]["Average"] == "-"
