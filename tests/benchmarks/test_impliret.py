"""IMPLIRET adapter: the protocol on hand-written pools, missing pools, persistence, shared data."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skbsearch.benchmarks.impliret import (
    aggregate,
    discover_pools,
    load_pool,
    pool_queries,
    run_impliret,
)
from skbsearch.benchmarks.impliret.read import oracle_context, parse_ks, run_impliret_reader
from skbsearch.core.errors import InputError
from skbsearch.core.types import Query
from skbsearch.enrich import TemporalEnricher, enrich_documents
from skbsearch.enrich.store import load_enriched, save_enriched
from skbsearch.retrieve.constrained import ConstrainedRetriever

# Tuple set 0: kayaking (A, B); tuple set 1: baking (C, D). D's query asks C's date, so C
# meets its constraint and D (text match only) ranks second.
TEMPORAL = [
    {"id": 0, "tuple_set_id": 0, "document": "2024-03-10 09:00, Ana: I went kayaking 3 days ago on the lake.",
     "question": "Who went kayaking on March 7, 2024?", "answer": "Ana"},
    {"id": 1, "tuple_set_id": 0, "document": "2024-03-10 09:05, Ben: I went kayaking 2 days ago with friends.",
     "question": "Who went kayaking on March 8, 2024?", "answer": "Ben"},
    {"id": 2, "tuple_set_id": 1, "document": "2024-05-01 10:00, Cleo: I baked bread yesterday for my family.",
     "question": "Who baked bread on April 30, 2024?", "answer": "Cleo"},
    {"id": 3, "tuple_set_id": 1, "document": "2024-05-01 11:00, Dan: I baked bread 5 days ago at home.",
     "question": "Who baked bread on April 30, 2024?", "answer": "Dan"},
]
ARITHMETIC = [
    {"id": 0, "tuple_set_id": 0, "document": "2024-01-01 10:00, Eve: The Acme model 2020 costs 100 dollars, "
     "while the newer model 2021 is 2 times more expensive.",
     "question": "What is the brand and model of the phone that cost $200?", "answer": "Acme 2021 model"},
    {"id": 1, "tuple_set_id": 1, "document": "2024-01-02 10:00, Finn: The Zeta model 2018 costs 900 dollars, "
     "while the newer model 2019 is 3 times more expensive.",
     "question": "What is the brand and model of the phone that cost $2,700?", "answer": "Zeta 2019 model"},
]


def _write(folder: Path, name: str, rows: list[dict]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    d = tmp_path / "impliret"
    _write(d, "temporal_multispeaker", TEMPORAL)
    _write(d, "arithmetic_multispeaker", ARITHMETIC)
    return d


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


def test_missing_pools_and_bad_input(tmp_path: Path, tiny: Path) -> None:
    present, missing = discover_pools(tiny)
    assert list(present) == ["arithmetic_multispeaker", "temporal_multispeaker"]
    assert len(missing) == 4
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputError, match="no IMPLIRET pool"):
        discover_pools(empty)
    bad = tmp_path / "bad"
    _write(bad, "wknow_unispeaker", [{"id": 1, "document": "x"}])
    with pytest.raises(InputError, match="question"):
        load_pool(bad / "wknow_unispeaker.jsonl")
    with pytest.raises(InputError, match="pipeline"):
        run_impliret(tiny, pipeline="nope")


def test_aggregate_and_queries(tiny: Path) -> None:
    overall, cats = aggregate({"temporal_multispeaker": {"m": 0.5}, "temporal_unispeaker": {"m": 1.0},
                               "wknow_unispeaker": {"m": 0.0}})
    assert cats == {"temporal": {"m": 0.75}, "wknow": {"m": 0.0}} and overall == {"m": 0.375}
    qs, qrels = pool_queries(load_pool(tiny / "temporal_multispeaker.jsonl"), limit=2)
    assert [q.id for q in qs] == ["0", "1"] and qrels == {"0": {"0": 1}, "1": {"1": 1}}


def test_store_and_retriever_roundtrip(tmp_path: Path) -> None:
    docs = enrich_documents([(str(r["id"]), r["document"]) for r in TEMPORAL], [TemporalEnricher()],
                            progress=False)
    (tmp_path / "idx").mkdir()
    f = save_enriched(tmp_path / "idx", docs)
    assert f.name == "enriched.jsonl"
    back = load_enriched(f)
    assert [d.to_dict() for d in back] == [d.to_dict() for d in docs]
    ret = ConstrainedRetriever(docs)
    ret.save(tmp_path / "cr")
    again = ConstrainedRetriever.load(tmp_path / "cr")
    q = [Query("q", "Who went kayaking on March 8, 2024?")]
    assert again(q).ranked("q")[0][0] == "1" == ret(q).ranked("q")[0][0]
    (tmp_path / "broken.jsonl").write_text('{"id": 1}\n', encoding="utf-8")
    with pytest.raises(InputError, match="text"):
        load_enriched(tmp_path / "broken.jsonl")


def test_oracle_context_and_reader_protocol(tiny: Path) -> None:
    recs = load_pool(tiny / "temporal_multispeaker.jsonl")
    ctx = oracle_context(recs, 0, 10)
    assert sorted(ctx) == [0, 1] and oracle_context(recs, 2, 1) == [2]
    assert parse_ks("1, 10,all") == [1, 10, None]
    with pytest.raises(InputError):
        parse_ks("0")
    r = run_impliret_reader(tiny, reader="extractive", ks=[1, None])
    assert r.groups["k=1 temporal_multispeaker"]["em"] == pytest.approx(1.0)
    # k=all: D's question names C's date, so the reader answers "Cleo" for it.
    assert r.groups["k=all temporal_multispeaker"]["em"] == pytest.approx(0.75)
    e2e = run_impliret_reader(tiny, reader="extractive", ks=[1], source="retriever")
    assert e2e.groups["k=1 temporal_multispeaker"]["em"] == pytest.approx(0.75)
    assert e2e.config["pipeline"] == "enrich"  # a spec (the tiny folder has no gazetteer)
    plain = run_impliret_reader(tiny, reader="extractive", ks=[1], source="retriever",
                                pipeline="bm25 % 1")
    assert plain.config["pipeline"] == "bm25 % 1" and "bm25 % 1" in plain.config["protocol"]


def test_cli_tiny(tiny: Path, tmp_path: Path) -> None:
    import skbsearch.cli.bench_impliret  # noqa: F401  (registers the command)
    from skbsearch.cli import app

    out = tmp_path / "r.json"
    res = CliRunner().invoke(app, ["bench", "impliret", "--data", str(tiny), "--json", str(out)])
    assert res.exit_code == 0, res.output
    assert "temporal_unispeaker not found" in res.output and "index build" in res.output
    assert json.loads(out.read_text())["benchmark"] == "impliret"
    bad = CliRunner().invoke(app, ["bench", "impliret", "--data", str(tmp_path / "none")])
    assert bad.exit_code == 2
    read = ["bench", "impliret", "--data", str(tiny), "--reader", "extractive", "--reader-k", "1"]
    two = CliRunner().invoke(app, [*read, "--reader-source", "retriever", "--pipeline", "bm25",
                                   "--pipeline", "enrich", "--json", "-", "-q"])
    assert two.exit_code == 0, two.output  # one reader result a retriever spec
    assert [r["config"]["pipeline"] for r in json.loads(two.stdout)] == ["bm25", "enrich"]
    oracle = CliRunner().invoke(app, [*read, "--pipeline", "bm25"])
    assert oracle.exit_code == 2 and "oracle reader" in oracle.output


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
