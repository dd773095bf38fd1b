"""IMPLIRET pools (benchmarks/impliret/pools.py): the protocol's means over styles and
categories, the gazetteer beside the data, the enrichers of every pool and the one-query-at-a-
time ranking with its latencies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from impliret_pools import tiny_folder

from skbsearch.benchmarks.impliret.pools import (
    aggregate,
    default_gazetteer,
    enrich_pool,
    load_gazetteer,
    load_pool,
    make_enrichers,
    pool_queries,
    rank_queries,
)
from skbsearch.core.errors import InputError
from skbsearch.core.types import Query, Run
from skbsearch.enrich import ArithmeticEnricher, GazetteerEnricher, TemporalEnricher


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    return tiny_folder(tmp_path)


def test_aggregate() -> None:
    overall, cats = aggregate({"temporal_multispeaker": {"m": 0.5}, "temporal_unispeaker": {"m": 1.0},
                               "wknow_unispeaker": {"m": 0.0}})
    assert cats == {"temporal": {"m": 0.75}, "wknow": {"m": 0.0}} and overall == {"m": 0.375}


def test_aggregate_of_nothing_is_nothing() -> None:
    assert aggregate({}) == ({}, {})
    overall, cats = aggregate({"arithmetic_unispeaker": {"m": 0.2, "n": 1.0}})
    assert cats == {"arithmetic": {"m": 0.2, "n": 1.0}} and overall == {"m": 0.2, "n": 1.0}


LANDMARK = {"itemQ": "Q1", "itemLabel": "Soyu Stadium", "countryQ": "Q17", "countryLabel": "Japan",
            "adminEntityQ": "Q13", "adminEntityLabel": "Akita"}


def test_the_gazetteer_beside_the_data_and_the_enrichers(tmp_path: Path, tiny: Path) -> None:
    assert default_gazetteer(tiny) is None and load_gazetteer(None) is None
    assert [type(e) for e in make_enrichers()] == [TemporalEnricher, ArithmeticEnricher]
    gaz_file = tmp_path / "gazetteer" / "wikidata_landmarks.jsonl"
    gaz_file.parent.mkdir()
    gaz_file.write_text(json.dumps(LANDMARK) + "\n", encoding="utf-8")
    assert default_gazetteer(tiny) == gaz_file  # <DIR>/../gazetteer/wikidata_landmarks.jsonl
    gaz = load_gazetteer(gaz_file)
    assert isinstance(gaz, GazetteerEnricher) and make_enrichers(gaz)[-1] is gaz
    with pytest.raises(InputError, match="gazetteer file not found") as e:
        load_gazetteer(tmp_path / "nope.jsonl")
    assert e.value.field == "gazetteer"


def test_a_pools_documents_are_enriched_from_their_text_only(tiny: Path) -> None:
    records = load_pool(tiny / "temporal_multispeaker.jsonl")
    docs = enrich_pool(records)
    assert [d.id for d in docs] == ["0", "1", "2", "3"]
    assert docs[0].text == records[0].document and docs[0].facts  # "3 days ago" -> a date


class Echo:
    """A stage ranking one document per query: its own id, scored by the query's length."""

    name = "echo"

    def __call__(self, queries, run=None):  # noqa: ANN001, ANN204
        return Run({q.id: {q.id: float(len(q.text))} for q in queries})


def test_queries_are_ranked_one_at_a_time_with_their_latency(tiny: Path) -> None:
    queries = [Query(str(i), "x" * (i + 1)) for i in range(30)]
    seen: list[tuple[str, int, int]] = []
    run, ms = rank_queries(Echo(), queries, lambda what, done, total: seen.append((what, done, total)),
                           label="ranking tiny")
    assert run.name == "echo" and run["29"] == {"29": 30.0} and len(run) == 30
    assert len(ms) == 30 and all(t >= 0 for t in ms)
    assert seen == [("ranking tiny", 25, 30), ("ranking tiny", 30, 30)]  # every 25 and the last
    qs, _ = pool_queries(load_pool(tiny / "arithmetic_multispeaker.jsonl"))
    assert rank_queries(Echo(), qs)[0].keys() == {"0", "1"}
