"""benchmarks/fuse_weights.py on a small generated catalogue: the default row is the per-query
confidence-weighted fusion (BM25 at 1/2 when the graph list is sure)."""

from __future__ import annotations

import json
from pathlib import Path

from skbsearch.synth.catalogue import generate_catalogue


def test_default_bm25_plus_graph_follows_the_graph_lists_confidence(tmp_path: Path, bench_script) -> None:
    generate_catalogue(300, n_queries=20, seed=0).save(tmp_path / "cat")
    cat = tmp_path / "cat"
    out = tmp_path / "fw.json"
    mod = bench_script("fuse_weights")
    assert mod.main(["--set", f"cat={cat / 'skb'},{cat / 'queries.jsonl'},{cat / 'qrels.trec'}",
                     "--weights", "1,0.5", "--tops", "2", "--json", str(out)]) == 0
    res = json.loads(out.read_text())
    groups = res["groups"]
    assert set(groups) == {"bm25", "graph", "bm25 + graph (default)", "per-query confidence",
                           "w_bm25=1 top=2", "w_bm25=0.5 top=2"}
    assert groups["bm25 + graph (default)"] == groups["per-query confidence"]
    assert 0.0 <= groups["graph"]["mrr cat"] <= 1.0 and "mean mrr" in groups["bm25"]
    assert res["config"]["title"].startswith("`bm25 + graph` fusion weights")
