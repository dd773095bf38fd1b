"""benchmarks/synth_queries_experiment.py lays out two `skb experiment --json` files as one result."""

from __future__ import annotations

import json
from pathlib import Path


def _experiment(systems: dict[str, float], significant: set[tuple[str, str]]) -> dict:
    names = list(systems)
    comps = [{"system": a, "other": b, "metric": "hit@1", "delta": systems[a] - systems[b],
              "p_value": 0.01 if (a, b) in significant else 0.5, "significant": (a, b) in significant}
             for i, a in enumerate(names) for b in names[i + 1:]]
    return {"systems": names, "queries": 10, "test": "t", "alpha": 0.05, "correction": None,
            "results": {s: {"hit@1": v, "mrr": v} for s, v in systems.items()},
            "ms_per_query": {s: 1.234 for s in names}, "comparisons": comps}


def test_rows_tests_and_command(tmp_path: Path, bench_script) -> None:
    text, rel, out = tmp_path / "t.json", tmp_path / "r.json", tmp_path / "out.json"
    text.write_text(json.dumps(_experiment({"bm25": 0.2, "graph": 0.5}, {("bm25", "graph")})))
    rel.write_text(json.dumps(_experiment({"bm25": 0.3, "dense": 0.1}, set())))
    res = bench_script("synth_queries_experiment").main(["--text", str(text), "--rel", str(rel), "--json", str(out),
                          "--note", "N.", "--setup", "a; b"])
    assert json.loads(out.read_text()) == res
    assert list(res["groups"]) == ["bm25 (node text)", "bm25 (+ relations)", "dense (+ relations)", "graph"]
    assert res["groups"]["bm25 (+ relations)"] == {"hit@1": 0.3, "mrr": 0.3, "latency ms": 1.23}
    note = res["config"]["note"]
    assert note.startswith("N. Paired t-test on hit@1")
    assert "bm25 vs graph -0.300 *" in note and "bm25 vs dense (+rel) +0.200." in note
    assert note.endswith("Commands, in order: a; b")
    assert res["config"]["command"].startswith("python benchmarks/synth_queries_experiment.py --text ")


def test_benchmark_name_and_order_per_skb(tmp_path: Path, bench_script) -> None:
    text, rel, out = tmp_path / "t.json", tmp_path / "r.json", tmp_path / "out.json"
    text.write_text(json.dumps(_experiment({"bm25": 0.2, "graph": 0.5}, set())))
    rel.write_text(json.dumps(_experiment({"bm25": 0.3}, set())))
    res = bench_script("synth_queries_experiment").main(["--text", str(text), "--rel", str(rel), "--json", str(out),
                          "--benchmark", "synth_queries_metaqa", "--order", "62"])
    assert res["benchmark"] == "synth_queries_metaqa" and res["config"]["order"] == 62
    assert res["config"]["command"].endswith("--benchmark synth_queries_metaqa --order 62")
