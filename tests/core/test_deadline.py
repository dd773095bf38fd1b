"""Cooperative deadlines: long loops stop when their work runs out of time or is cancelled."""

from __future__ import annotations

import threading
import time

import pytest

from skbsearch.core.deadline import Deadline, check_deadline, current_deadline, deadline
from skbsearch.core.errors import DeadlineExceeded
from skbsearch.core.types import Query
from skbsearch.enrich import ArithmeticEnricher, TemporalEnricher, enrich_documents
from skbsearch.stages import pipeline
from skbsearch.synth.catalogue import generate_catalogue


def test_no_deadline_means_no_check():
    assert current_deadline() is None
    check_deadline()  # nothing happens outside a deadline


def test_expired_and_cancelled_deadlines_raise_and_reset():
    with deadline(0.0) as d:
        time.sleep(0.001)
        with pytest.raises(DeadlineExceeded, match="time limit of 0 s"):
            check_deadline()
        assert current_deadline() is d
    assert current_deadline() is None
    d = Deadline(None)
    with deadline(d):
        check_deadline()
        d.cancel()
        with pytest.raises(DeadlineExceeded, match="cancelled"):
            check_deadline()


def test_deadline_is_per_thread():
    seen: list[object] = []
    with deadline(0.0):
        t = threading.Thread(target=lambda: seen.append(current_deadline()))
        t.start()
        t.join()
    assert seen == [None]


def test_enrichment_stops_at_the_deadline():
    docs = {f"d{i}": f"sold on 3 May 2021 for $12.50, item {i}" for i in range(20_000)}
    enrichers = [TemporalEnricher(), ArithmeticEnricher()]
    t0 = time.perf_counter()
    with deadline(0.05), pytest.raises(DeadlineExceeded):
        enrich_documents(docs, enrichers, progress=False)
    assert time.perf_counter() - t0 < 5  # enriching all 20,000 takes far longer


def test_a_pipeline_stops_between_stages_and_queries():
    ds = generate_catalogue(100, seed=0, n_queries=3)
    p = pipeline("bm25 + graph", ds.skb)
    queries = [Query("q", "blue mug")]
    assert p(queries)["q"]  # runs without a deadline
    d = Deadline(60)
    d.cancel()
    with deadline(d), pytest.raises(DeadlineExceeded):
        p(queries)
