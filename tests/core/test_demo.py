"""skb demo end to end (small sizes), and the synthetic chat generator."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from skbsearch.cli import app
from skbsearch.demo import METRICS, run_demo
from skbsearch.synth.chats import generate_chats


def test_run_demo_quiet_computes_every_system(tmp_path):
    res = run_demo(tmp_path / "demo", products=400, queries=30, quiet=True)
    assert set(res.metrics) == {"bm25", "bm25+rel", "graph", "graph (fitted)"}
    assert res.config["graph_train_queries"] > 0 and len(res.runs["graph (fitted)"]) == 30
    for row in res.metrics.values():
        assert set(row) == set(METRICS) and all(0.0 <= v <= 1.0 for v in row.values())
    assert (tmp_path / "demo" / "dataset" / "skb" / "meta.json").is_file()
    # Enrichment makes the implicit facts findable; raw BM25 cannot tell the messages apart.
    assert res.implicit["enriched + constraints"]["hit@1"] == 1.0
    assert res.implicit["bm25 (raw text)"]["hit@1"] < 0.6
    out = res.to_benchmark_result()
    assert out.benchmark == "demo" and out.config["best"] in res.metrics


def test_demo_cli_prints_tables_and_saves_result(tmp_path):
    r = CliRunner().invoke(app, ["demo", "--products", "300", "--queries", "20", "--show", "1",
                                 "--save-result", str(tmp_path / "r.json")])
    assert r.exit_code == 0, r.output
    assert "Recall@20" in r.output and "Implicit-fact retrieval" in r.output
    saved = json.loads((tmp_path / "r.json").read_text())
    assert saved["benchmark"] == "demo" and "graph (fitted)" in saved["groups"]


def test_generate_chats_is_seeded_and_one_positive_per_query():
    a, b = generate_chats(seed=3), generate_chats(seed=3)
    assert a.documents == b.documents and [q.text for q in a.queries] == [q.text for q in b.queries]
    assert len(a.queries) == len(a.documents) == 18
    assert all(len(v) == 1 and next(iter(v)) in a.documents for v in a.qrels.values())
    assert generate_chats(seed=4).documents != a.documents
