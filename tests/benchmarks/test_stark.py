"""The STaRK protocol end to end on a small SKB in STaRK's processed format, and the
evaluator check on the real saved STaRK rankings (skipped without ../shared/data); `skb bench
stark`: tests/cli/test_bench_stark.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from stark_files import PRODUCTS, write_processed, write_queries
from typer.testing import CliRunner

from skbsearch.benchmarks.stark import (
    candidate_ids,
    default_pipeline,
    evaluator_check,
    load_skb,
    run_stark,
)
from skbsearch.cli import app
from skbsearch.core.errors import InputError, UntrustedFileError

torch = pytest.importorskip("torch")


@pytest.fixture
def stark_dirs(tmp_path: Path) -> tuple[Path, Path]:
    return write_processed(tmp_path), write_queries(tmp_path)


def test_run_on_processed_files(stark_dirs: tuple[Path, Path]) -> None:
    processed, qa = stark_dirs
    res = run_stark(processed, qa, "test", trust_pickles=True)
    cfg = res.config
    assert cfg["dataset"] == "amazon" and cfg["candidate_types"] == ["product"]
    assert cfg["n_candidates"] == 6 and cfg["n_queries"] == 3
    assert cfg["answers_not_candidates"] == 1  # brand node 6 is no candidate: dropped
    assert cfg["pipeline"] == "bm25(k=1000, types=['product'])"
    m = res.metrics
    # q10 and q12 have their only candidate answer first; q11's two answers are its top 2
    assert m["hit@1"] == pytest.approx(1.0)
    assert m["recall@5"] == pytest.approx(1.0)
    assert m["mrr"] == pytest.approx(1.0) and m["rprecision"] == pytest.approx(1.0)
    assert set(m) >= {"hit@50", "recall@100", "map"}
    assert res.latency_ms["p50"] > 0


def test_unreturned_candidates_and_limit(stark_dirs: tuple[Path, Path]) -> None:
    processed, qa = stark_dirs
    # top-1 only: q11's second answer is unreturned -> tied last, stable by node id
    res = run_stark(processed, qa, "test", pipeline_spec="bm25(k=1, types=[product])",
                    trust_pickles=True, limit=2)
    assert res.config["n_queries"] == 2  # q12, q10 (split file order)
    assert res.metrics["recall@5"] == pytest.approx(1.0)
    res = run_stark(processed, qa, "test", pipeline_spec="bm25(k=1, types=[product])",
                    trust_pickles=True)
    # q11: answer 3 at rank 1; answer 2 unreturned, after the unreturned 0 and 1 -> rank 4
    assert res.metrics["hit@1"] == pytest.approx(1.0)
    assert res.metrics["recall@5"] == pytest.approx(1.0)  # rank 4 is within 5
    assert res.metrics["rprecision"] == pytest.approx((1 + 1 + 0.5) / 3)
    assert res.metrics["map"] == pytest.approx((1 + 1 + (1 + 2 / 4) / 2) / 3)
    pess = run_stark(processed, qa, "test", pipeline_spec="bm25(k=1, types=[product])",
                     trust_pickles=True, ties="pessimistic")
    assert pess.metrics["map"] == pytest.approx((1 + 1 + (1 + 2 / 6) / 2) / 3)


def test_skb_dir_matches_processed_files(stark_dirs: tuple[Path, Path], tmp_path: Path) -> None:
    processed, qa = stark_dirs
    out = tmp_path / "skb"
    built = CliRunner().invoke(app, ["kb", "build", str(processed), str(out), "--format", "stark",
                                     "--trust-pickles", "--quiet"])
    assert built.exit_code == 0, built.output
    a = run_stark(processed, qa, "human", trust_pickles=True)
    b = run_stark(out, qa, "human")  # no pickles read: no trust needed
    assert a.metrics == b.metrics and b.config["n_queries"] == 2
    assert b.metrics["hit@1"] == pytest.approx(1.0)


def test_refusals(stark_dirs: tuple[Path, Path], tmp_path: Path) -> None:
    processed, qa = stark_dirs
    with pytest.raises(UntrustedFileError):
        run_stark(processed, qa, "test")
    with pytest.raises(InputError, match="split file not found"):
        run_stark(processed, qa, "val", trust_pickles=True)
    with pytest.raises(InputError, match="unknown split"):
        run_stark(processed, qa, "dev", trust_pickles=True)
    with pytest.raises(InputError, match="unknown ties"):
        run_stark(processed, qa, "test", trust_pickles=True, ties="random")
    with pytest.raises(InputError, match="SKB not found"):
        run_stark(tmp_path / "nope", qa, "test")
    (qa / "split" / "val.index").write_text("10\n99\n", encoding="utf-8")
    with pytest.raises(InputError, match="'99' is not in stark_qa.csv") as ei:
        run_stark(processed, qa, "val", trust_pickles=True)
    assert ei.value.line == 2


def test_candidates_and_default_pipeline(stark_dirs: tuple[Path, Path]) -> None:
    processed, _ = stark_dirs
    skb = load_skb(processed, trust_pickles=True)
    assert candidate_ids(skb, ("product",)) == [str(i) for i in range(6)]
    assert candidate_ids(skb, ()) == [str(i) for i in range(8)]
    assert default_pipeline(()) == "bm25(k=1000)"


@pytest.mark.data
def test_evaluator_check_on_real_rankings(shared_data: Path) -> None:
    """Our evaluator on STaRK's saved ada-002 rankings reproduces STaRK's per-query numbers:
    exactly (1e-6) for hit@k, recall@k, R-precision and, where the saved top 1000 decides
    them, MRR; MAP where all answers are in the top 1000 up to one tie-order swap."""
    data = shared_data / "stark-queries"
    if not data.is_dir():
        pytest.skip("no stark-queries in the shared data")
    res = evaluator_check(data)
    assert set(res.groups) == {"amazon", "mag", "primekg"}
    assert [g["queries"] for g in res.groups.values()] == [81, 84, 109]
    for name, g in res.groups.items():
        assert g["exact_max_abs_diff"] <= 1e-6, name
        assert g["mrr_max_abs_diff_in_reach"] <= 1e-6, name
        assert g["mrr_queries_in_reach"] >= 0.6 * g["queries"]
        # beyond the top 1000 the rank is unknown: the reciprocal rank is at most 1/1001 there
        assert g["mrr_max_abs_diff_all"] <= 1 / 1001 + 1e-6, name
        assert g["map_differ_in_reach"] <= 1 and g["map_max_abs_diff_in_reach"] < 1e-5, name
        assert abs(g["mrr_mean_ours"] - g["mrr_mean_stark"]) < 1e-4
    assert res.groups["mag"]["answers_not_candidates"] > 0  # STaRK drops non-paper answers too


def test_own_skb_title_and_per_query_latency(stark_dirs: tuple[Path, Path], tmp_path: Path) -> None:
    """Issue 22: an SKB of no STaRK dataset is titled by its directory (not 'STaRK None'), and
    latency is timed query by query (one sample a query), batches report a mean only."""
    from skbsearch.benchmarks.stark import run_pipeline
    from skbsearch.datasets.stark import read_stark_qa
    from skbsearch.kb import SKB

    _, qa = stark_dirs
    own = qa.parent / "myshop"
    qa.rename(own)
    skb = SKB.from_columns([str(i) for i in range(6)], ["product"] * 6, PRODUCTS)
    skb.save(tmp_path / "shop.skb")
    res = CliRunner().invoke(app, ["bench", "stark", "--skb", str(tmp_path / "shop.skb"), "--qa",
                                   str(own), "--candidate-types", "product"])
    assert res.exit_code == 0, res.output
    assert "None" not in res.output and "STaRK shop.skb test" in res.output
    queries = read_stark_qa(own, "test")
    _, samples = run_pipeline("bm25(k=5)", skb, queries)
    assert len(samples) == 3  # one timing a query, not a batch average copied to each
    _, batched = run_pipeline("bm25(k=5)", skb, queries, latency="batch")
    assert len(batched) == 1
    out = run_stark(tmp_path / "shop.skb", own, "test", candidate_types=["product"], latency="batch")
    assert set(out.latency_ms) == {"mean"}
