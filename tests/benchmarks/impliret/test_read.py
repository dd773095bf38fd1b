"""IMPLIRET reader evaluation (benchmarks/impliret/read.py): the oracle contexts, the k
values, the extractive reader on oracle and retrieved contexts, and the paper's Table 3 rows."""

from __future__ import annotations

from pathlib import Path

import pytest
from impliret_pools import tiny_folder

from skbsearch.benchmarks.impliret import load_pool
from skbsearch.benchmarks.impliret.read import (
    k_label,
    make_reader,
    oracle_context,
    parse_ks,
    pool_ranker,
    reader_table,
    run_impliret_reader,
)
from skbsearch.core.errors import InputError
from skbsearch.read.extractive import ExtractiveReader


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    return tiny_folder(tmp_path)


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


def test_k_values_and_their_labels() -> None:
    assert parse_ks(" all ,3,") == [None, 3] and [k_label(k) for k in (None, 3)] == ["k=all", "k=3"]
    for bad in ("", " , ", "two", "-1"):
        with pytest.raises(InputError) as e:
            parse_ks(bad)
        assert e.value.field == "reader-k"


def test_oracle_context_is_seeded_and_always_holds_the_positive(tiny: Path) -> None:
    recs = load_pool(tiny / "temporal_multispeaker.jsonl")
    for i in range(len(recs)):
        for k in (1, 2, 10, None):
            rows = oracle_context(recs, i, k, seed=4)
            assert i in rows and {recs[j].tuple_set_id for j in rows} == {recs[i].tuple_set_id}
            assert rows == oracle_context(recs, i, k, seed=4)
    assert len(oracle_context(recs, 0, 10)) == 2  # the whole tuple set when it is smaller


def test_readers_by_name_and_a_retrievers_top_n(tiny: Path) -> None:
    assert isinstance(make_reader("extractive"), ExtractiveReader)
    with pytest.raises(InputError, match="unknown reader 'abstractive'") as e:
        make_reader("abstractive")
    assert e.value.field == "reader"
    recs = load_pool(tiny / "temporal_multispeaker.jsonl")
    seen: list[tuple[str, int, int]] = []
    rank = pool_ranker("bm25", "temporal_multispeaker", recs,
                       lambda what, done, total: seen.append((what, done, total)))
    assert seen == [("indexing temporal_multispeaker", 0, 1), ("indexing temporal_multispeaker", 1, 1)]
    top = rank(recs[2], 2)
    assert len(top) == 2 and set(top) == {"2", "3"}  # the two bread posts, ids without the pool


def test_an_unknown_source_and_the_table_rows(tiny: Path) -> None:
    with pytest.raises(InputError, match="unknown reader source 'web'"):
        run_impliret_reader(tiny, source="web")
    r = run_impliret_reader(tiny, reader="extractive", ks=[1], limit_per_pool=1)
    assert r.config["n_queries"] == 2 and r.config["ks"] == ["k=1"] and r.config["pipeline"] is None
    (row,) = reader_table(r)
    assert row["k"] == "k=1" and row["wknow"] == "-"
    assert row["temporal"] == pytest.approx(100 * r.groups["k=1 temporal"]["rouge1_recall"])
    assert row["Average"] == pytest.approx(100 * r.metrics["rouge1_recall@k=1"])
    assert set(row) == {"k", "arithmetic", "temporal", "wknow", "Average", "em avg", "contains avg"}
