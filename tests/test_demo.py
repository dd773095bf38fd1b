"""skb demo end to end (small sizes): every system computed."""

from __future__ import annotations

from skbsearch.demo import METRICS, run_demo


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
